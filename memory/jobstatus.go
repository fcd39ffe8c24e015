package memory

import (
	"context"
	"fmt"

	"github.com/tenurehq/tenure/queries"
)

// RunTotals sums what the finished consolidation runs recorded, from one
// run on: what their reports counted by phase and outcome, and how long
// they took. Metrics read it after every run by asking from the last run
// they counted on, so that the counts come from the runs' own records, the
// same on every replica whichever process ran them.
type RunTotals struct {
	// SettledID is the newest run counted: every run after the one asked
	// from up to it had finished. The next call asks from it.
	SettledID int64
	// Outcomes sums the runs' reports: rows by phase (its number, "10")
	// and outcome ("promoted", "transient_rejected", "set_aside", ...).
	Outcomes []OutcomeTotal
	// Durations counts the runs by status and by bucket of duration.
	Durations []DurationTotal
}

// OutcomeTotal is the sum of one outcome of one phase over runs.
type OutcomeTotal struct {
	Phase   string
	Outcome string
	Rows    int64
}

// DurationTotal counts the runs of one status whose duration fell in one
// bucket: bucket i holds those that took at most bounds[i] seconds and more
// than bounds[i-1]; bucket len(bounds) the longer ones. Seconds is the sum
// of their durations.
type DurationTotal struct {
	Status  string
	Bucket  int
	Runs    int64
	Seconds float64
}

// RunTotalsSince sums the runs after afterID that have finished, up to the
// first still running, with their durations in the buckets bounds (upper
// bounds in seconds, ascending). Asked from 0 it sums every run the
// database holds; asked from the SettledID of the previous call, it reads
// only the runs since, through the primary key.
func (s *Store) RunTotalsSince(ctx context.Context, afterID int64, bounds []float64) (RunTotals, error) {
	settled, err := s.q.SettledRunID(ctx, afterID)
	if err != nil {
		return RunTotals{}, fmt.Errorf("run totals: %w", err)
	}
	out := RunTotals{SettledID: settled}
	if settled <= afterID {
		return out, nil
	}
	outcomes, err := s.q.RunOutcomeTotals(ctx, queries.RunOutcomeTotalsParams{AfterID: afterID, SettledID: settled})
	if err != nil {
		return RunTotals{}, fmt.Errorf("run totals: outcomes: %w", err)
	}
	for _, o := range outcomes {
		out.Outcomes = append(out.Outcomes, OutcomeTotal{Phase: o.Phase, Outcome: o.Outcome, Rows: o.Total})
	}
	if bounds == nil {
		bounds = []float64{}
	}
	durations, err := s.q.RunDurationTotals(ctx, queries.RunDurationTotalsParams{
		Bounds: bounds, AfterID: afterID, SettledID: settled})
	if err != nil {
		return RunTotals{}, fmt.Errorf("run totals: durations: %w", err)
	}
	for _, d := range durations {
		out.Durations = append(out.Durations, DurationTotal{Status: d.Status, Bucket: int(d.Bucket), Runs: d.Runs, Seconds: d.Seconds})
	}
	return out, nil
}
