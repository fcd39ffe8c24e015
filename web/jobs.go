package web

import (
	"context"
	"time"

	"github.com/tenurehq/tenure/jobs"
	"github.com/tenurehq/tenure/views/pages"
)

// jobsView is the scheduled jobs section: what the database records of
// every job's runs (jobs.History), the same on every replica and after a
// restart, with what this process knows that the record does not: whether
// it schedules each job, and when it will run it next.
//
// The next run is known here only on the replica that runs the jobs (the
// leader). Elsewhere the section says so, and shows the tick each job is
// expected at: jobs tick on the multiples of their interval, on every
// replica alike, so the leader's next tick is the next multiple of the
// interval it recorded, if it keeps its schedule.
func (s *Console) jobsView(ctx context.Context, now time.Time) pages.Jobs {
	view := pages.Jobs{Now: now, Enabled: s.jobs != nil}
	var local []jobs.JobStatus
	leading := false
	if s.jobs != nil {
		local = s.jobs.Status()
		leading = true
		if l, ok := s.jobs.(interface{ Leading() bool }); ok {
			leading = l.Leading()
		}
	}
	view.Leading = leading
	recorded, err := jobs.NewHistory(s.pool).Summaries(ctx)
	if err != nil {
		s.logger.Warn("console.jobs_history", "err", err)
		view.HistoryError = true
	}
	byName := make(map[string]jobs.Summary, len(recorded))
	for _, r := range recorded {
		byName[r.Name] = r
	}

	for _, j := range local {
		row := pages.JobRow{
			Name: j.Name, Interval: j.Interval, Running: j.Running, LastRun: j.LastRun,
			LastDuration: j.LastDuration, LastError: j.LastError, NextRun: j.NextRun,
			Runs: j.Runs, Failures: j.Failures,
		}
		rec, ok := byName[j.Name]
		if ok {
			delete(byName, j.Name)
			recordedRow(&row, rec, now)
			row.Running = row.Running || j.Running
		}
		if !leading {
			if ok && rec.Interval > 0 {
				row.Interval = rec.Interval
			}
			row.NextElsewhere, row.NextRun = true, expectedTick(now, row.Interval)
		}
		view.Rows = append(view.Rows, row)
	}
	// The jobs this process does not schedule, which another replica
	// recorded. On the leader nothing runs them any more.
	for _, rec := range recorded {
		if _, ok := byName[rec.Name]; !ok {
			continue
		}
		row := pages.JobRow{Name: rec.Name, Interval: rec.Interval, NotHere: true}
		recordedRow(&row, rec, now)
		if !leading {
			row.NextElsewhere, row.NextRun = true, expectedTick(now, rec.Interval)
		}
		view.Rows = append(view.Rows, row)
	}
	return view
}

// recordedRow sets what the database records of a job's runs on row.
func recordedRow(row *pages.JobRow, rec jobs.Summary, now time.Time) {
	row.Runs, row.Failures = int(rec.Runs), int(rec.Failures)
	row.LastRun, row.LastDuration, row.LastError = rec.LastStarted, rec.LastDuration, rec.LastError
	row.LastSuccess = rec.LastSuccess
	row.Running = rec.RunningAt(now)
}

// expectedTick is the next multiple of interval after now (the grid every
// replica ticks on), zero if the interval is unknown.
func expectedTick(now time.Time, interval time.Duration) time.Time {
	if interval <= 0 {
		return time.Time{}
	}
	return now.Truncate(interval).Add(interval)
}
