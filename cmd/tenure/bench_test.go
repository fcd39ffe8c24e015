package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/bench"
	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestBenchCommand runs "tenure bench" at 10,000 facts: a smoke test of the
// benchmark code; no timing is asserted.
func TestBenchCommand(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewEmptyURL(t)}
	out, _, err := runCmd(t, env, "", "bench", "--facts", "10000", "--nodes", "1200", "--scopes", "3", "--due", "100",
		"--requests", "35", "--push-batches", "1", "--json")
	if err != nil {
		t.Fatalf("bench = %v", err)
	}
	var rep struct {
		Seed struct {
			Facts, Due int
		}
		Results []struct {
			Workload string
			Tenure   float64
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench --json printed %q: %v", out, err)
	}
	if rep.Seed.Facts != 10000 || rep.Seed.Due != 100 {
		t.Errorf("seed = %+v, want 10000 facts, 100 due", rep.Seed)
	}
	for _, w := range []string{"decay tick", "consolidation", "facts page", "recall p95", "batch push", "peak RSS"} {
		found := false
		for _, r := range rep.Results {
			if strings.HasPrefix(r.Workload, w) && r.Tenure > 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("no figure for %q in %+v", w, rep.Results)
		}
	}
}

func TestBenchSeedCommand(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewEmptyURL(t)}
	out, stderr, err := runCmd(t, env, "", "bench", "seed", "--facts", "20000", "--nodes", "300", "--scopes", "2", "--due", "10")
	if err != nil || !strings.Contains(out, "seeded 20000 facts") || !strings.Contains(out, "10 due now") {
		t.Fatalf("bench seed = %q, %v", out, err)
	}
	// Off a terminal, progress comes as JSON lines (at most one a second
	// within a phase): the facts' phase of 20,000 rows, the other phases,
	// then a final line.
	for _, want := range []string{`"phase":"facts","done":0,"total":20000,"unit":"rows"`,
		`"phase":"working rows"`, `"phase":"analyze"`, `"final":true`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("bench seed progress lacks %s:\n%s", want, stderr)
		}
	}
	if _, _, err := runCmd(t, nil, "", "bench", "--facts", "10"); err == nil || exitCode(err) != 2 {
		t.Errorf("bench --facts 10 error = %v, want a usage error", err)
	}
	// The seeded database measured again, one workload only.
	out, _, err = runCmd(t, env, "", "bench", "--seeded", "--workloads", "recall", "--facts", "20000", "--nodes", "300",
		"--scopes", "2", "--due", "10", "--requests", "40", "--json")
	if err != nil {
		t.Fatalf("bench --seeded --workloads recall: %v\n%s", err, out)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench --seeded --json = %q: %v", out, err)
	}
	if len(rep.Results) == 0 {
		t.Fatal("bench --seeded --workloads recall reported nothing")
	}
	for _, r := range rep.Results {
		if !strings.HasPrefix(r.Workload, "recall ") {
			t.Errorf("bench --workloads recall reported %q", r.Workload)
		}
	}
	for _, args := range [][]string{{"bench", "--seeded"}, {"bench", "--workloads", "recall,nap"}} {
		if _, stderr, err := runCmd(t, nil, "", args...); err == nil || exitCode(err) != 2 {
			t.Errorf("%v error = %v (%s), want a usage error", args, err, stderr)
		}
	}
}
