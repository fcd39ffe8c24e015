package web

import (
	"time"

	"github.com/tenurehq/tenure/views/pages"
)

// jobsView is the scheduled jobs section as this process sees them.
func (s *Console) jobsView(now time.Time) pages.Jobs {
	view := pages.Jobs{Now: now}
	if s.jobs == nil {
		return view
	}
	view.Enabled = true
	for _, j := range s.jobs.Status() {
		view.Rows = append(view.Rows, pages.JobRow{
			Name: j.Name, Interval: j.Interval, Running: j.Running, LastRun: j.LastRun,
			LastDuration: j.LastDuration, LastError: j.LastError, NextRun: j.NextRun,
			Runs: j.Runs, Failures: j.Failures,
		})
	}
	return view
}
