package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestSimulateCommand runs "tenure simulate" over one day on an empty
// database: the report counts 24 hourly checks and Tenure fails none.
func TestSimulateCommand(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewEmptyURL(t)}
	out, _, err := runCmd(t, env, "", "simulate", "--days", "1", "--json")
	if err != nil {
		t.Fatalf("simulate = %v", err)
	}
	var rep struct {
		Checks int
		Tenure map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("simulate --json printed %q: %v", out, err)
	}
	if rep.Checks != 24 {
		t.Errorf("checks = %d, want 24", rep.Checks)
	}
	for _, k := range []string{"stale_states", "old_moods", "contradictions", "duplicate_lines",
		"decisions_overwritten", "unwarned_locked_writes", "overdue_listed_as_due"} {
		if v, ok := rep.Tenure[k]; !ok || v != 0 {
			t.Errorf("tenure %s = %v (present %v), want 0", k, v, ok)
		}
	}
	_, _, err = runCmd(t, nil, "", "simulate", "--days", "0")
	if err == nil || exitCode(err) != 2 {
		t.Errorf("simulate --days 0 = %v, want a usage error (exit 2)", err)
	} else if !strings.Contains(err.Error(), "--days must be 1 to 90") {
		t.Errorf("simulate --days 0 error = %q, want it to name --days and its range", err)
	}
	_, _, err = runCmd(t, nil, "", "simulate", "--scenario", "year")
	if err == nil || exitCode(err) != 2 {
		t.Errorf("simulate --scenario year = %v, want a usage error (exit 2)", err)
	} else if !strings.Contains(err.Error(), "--scenario must be month or team") {
		t.Errorf("simulate --scenario year error = %q, want it to name --scenario and its values", err)
	}
}

// TestSimulateTeamScenario runs "tenure simulate --scenario team" over one
// day: the report names the scenario, counts 24 hourly checks and counts the
// naive store's contradictions and locked decisions beside another value.
func TestSimulateTeamScenario(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewEmptyURL(t)}
	out, _, err := runCmd(t, env, "", "simulate", "--scenario", "team", "--days", "1", "--json")
	if err != nil {
		t.Fatalf("simulate --scenario team = %v", err)
	}
	var rep struct {
		Scenario string
		Checks   int
		Naive    map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("simulate --json printed %q: %v", out, err)
	}
	if rep.Scenario != "team" || rep.Checks != 24 {
		t.Errorf("scenario %q, %d checks; want team, 24", rep.Scenario, rep.Checks)
	}
	if rep.Naive["contradictions"] == 0 || rep.Naive["locked_beside_other"] == 0 {
		t.Errorf("naive scores %v: want contradictions and locked decisions beside another value counted", rep.Naive)
	}
}
