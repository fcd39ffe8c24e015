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
}
