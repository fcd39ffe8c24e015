package web_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/jobs"
)

// replicaJobs is a scheduler stand-in on a replica that leads or not.
type replicaJobs struct {
	fixedJobs
	leading bool
}

func (r replicaJobs) Leading() bool { return r.leading }

// recordRuns records, as the replica that runs the jobs would, runs of the
// consolidation job (the last one failed), and decay as scheduled only.
func recordRuns(t *testing.T, f fixture) {
	t.Helper()
	ctx := context.Background()
	h := jobs.NewHistory(f.pool)
	if err := h.Scheduled(ctx, "decay", time.Minute); err != nil {
		t.Fatal(err)
	}
	at := now.Add(-50 * time.Minute)
	for i := range 5 {
		run := jobs.Run{Job: "consolidation", Interval: 5 * time.Minute, Started: at, Deadline: at.Add(time.Hour),
			Finished: at.Add(1500 * time.Millisecond)}
		if i == 4 {
			run.Err = errors.New("consolidate: promote: connection reset")
		}
		if err := h.Started(ctx, run); err != nil {
			t.Fatal(err)
		}
		if err := h.Finished(ctx, run); err != nil {
			t.Fatal(err)
		}
		at = at.Add(10 * time.Minute)
	}
}

// jobCell returns the trimmed text of a cell of the named job's row.
func jobCell(doc *goquery.Document, job, cell string) string {
	return strings.Join(strings.Fields(doc.Find(`[data-job="`+job+`"] [data-testid="`+cell+`"]`).Text()), " ")
}

// TestJobsFromTheRecord: the scheduled jobs table shows what the database
// records of the jobs' runs, the same on every replica, after a restart, and
// on a replica that runs no jobs; the next run is known only where the jobs
// run.
func TestJobsFromTheRecord(t *testing.T) {
	t.Run("a replica without jobs", func(t *testing.T) {
		f := newFixture(t, false)
		recordRuns(t, f)
		doc := parse(t, f.get(t, "/consolidation"))
		if doc.Find(`[data-testid="jobs-elsewhere"]`).Length() != 1 {
			t.Errorf("no note that the jobs run elsewhere: %q", doc.Find(`[data-testid="jobs"]`).Text())
		}
		if got := jobCell(doc, "consolidation", "job-runs"); got != "5" {
			t.Errorf("consolidation runs = %q, want 5", got)
		}
		if got := jobCell(doc, "consolidation", "job-failures"); got != "1" {
			t.Errorf("consolidation failures = %q, want 1", got)
		}
		if got := jobCell(doc, "consolidation", "job-last-run"); got != "10 min ago" {
			t.Errorf("consolidation last run = %q, want 10 min ago", got)
		}
		if got := jobCell(doc, "consolidation", "job-error"); !strings.Contains(got, "connection reset") ||
			!strings.Contains(got, "last success") {
			t.Errorf("consolidation error = %q, want the error and when it last succeeded", got)
		}
		if got := jobCell(doc, "consolidation", "job-next-run"); !strings.Contains(got, "due in 5 min") || !strings.Contains(got, "expected") {
			t.Errorf("consolidation next run = %q, want the tick it is due at, marked expected", got)
		}
		if got := jobCell(doc, "decay", "job-runs"); got != "0" {
			t.Errorf("decay runs = %q, want 0", got)
		}
		if got := jobCell(doc, "decay", "job-last-run"); got != "never" {
			t.Errorf("decay last run = %q, want never", got)
		}
	})

	t.Run("a replica that does not lead", func(t *testing.T) {
		// Its own scheduler, started since, has no runs of its own.
		f := consFixtureWithJobs(t, replicaJobs{fixedJobs: fixedJobs{
			{Name: "consolidation", Interval: 5 * time.Minute, NextRun: now.Add(5 * time.Minute)},
			{Name: "decay", Interval: time.Minute, NextRun: now.Add(time.Minute)},
		}})
		recordRuns(t, f)
		doc := parse(t, f.get(t, "/consolidation"))
		if doc.Find(`[data-testid="jobs-follower"]`).Length() != 1 {
			t.Errorf("no note that another replica runs the jobs: %q", doc.Find(`[data-testid="jobs"]`).Text())
		}
		if got := jobCell(doc, "consolidation", "job-runs"); got != "5" {
			t.Errorf("consolidation runs = %q, want the 5 recorded", got)
		}
		if got := jobCell(doc, "consolidation", "job-next-run"); !strings.Contains(got, "expected") {
			t.Errorf("consolidation next run = %q, want it marked expected, not known", got)
		}
	})

	t.Run("the leader", func(t *testing.T) {
		f := consFixtureWithJobs(t, replicaJobs{leading: true, fixedJobs: fixedJobs{
			{Name: "consolidation", Interval: 5 * time.Minute, NextRun: now.Add(2 * time.Minute), Running: true, Runs: 1},
		}})
		recordRuns(t, f)
		doc := parse(t, f.get(t, "/consolidation"))
		if doc.Find(`[data-testid="jobs-follower"], [data-testid="jobs-elsewhere"]`).Length() != 0 {
			t.Error("the leader says the jobs run elsewhere")
		}
		if got := jobCell(doc, "consolidation", "job-runs"); got != "5" {
			t.Errorf("consolidation runs = %q, want the 5 recorded, not this process's 1", got)
		}
		if got := jobCell(doc, "consolidation", "job-next-run"); got != "in 2 min" {
			t.Errorf("consolidation next run = %q, want its own next tick, in 2 min", got)
		}
		if got := jobCell(doc, "consolidation", "job-state"); got != "running" {
			t.Errorf("consolidation state = %q, want running (it runs here now)", got)
		}
		// Recorded by a replica that scheduled it, not scheduled here.
		if got := jobCell(doc, "decay", "job-next-run"); got != "not scheduled here" {
			t.Errorf("decay next run = %q, want not scheduled here", got)
		}
	})
}
