package jobs

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/queries"
)

// Recorder keeps the record of every job's runs where every replica reads
// it (History, in the database). The Scheduler tells it about each job when
// it starts, and about each run when it starts and when it ends. A failure
// to record is logged; it does not fail the run.
type Recorder interface {
	// Scheduled is told of a job when the Scheduler starts ticking.
	Scheduled(ctx context.Context, job string, interval time.Duration) error
	// Started is told of a run as it starts, Finished once it has ended.
	Started(ctx context.Context, run Run) error
	Finished(ctx context.Context, run Run) error
}

// Run is one run of a job, as a Recorder is told of it.
type Run struct {
	Job      string
	Interval time.Duration
	Started  time.Time
	// Deadline is when the run times out.
	Deadline time.Time
	// Finished is when the run ended, zero until it has; Err is its error,
	// nil if it succeeded.
	Finished time.Time
	Err      error
	// Interrupted is set when the process shutting down cancelled the run:
	// it is recorded with its error but not counted as a failure.
	Interrupted bool
}

// Summary is what the database holds of a job: its totals and its latest
// run, as the replica that ran them recorded them.
type Summary struct {
	Name string
	// Interval is the job's interval on the replica that last started it
	// (or first scheduled it).
	Interval time.Duration
	// Runs counts the finished runs, Failures those that returned an error,
	// panicked or timed out, on every replica since the job was first
	// scheduled.
	Runs, Failures int64
	// LastStarted is when the latest run started; LastFinished,
	// LastDuration and LastError are those of the latest run finished;
	// LastSuccess is the end of the latest run that succeeded. Zero when
	// there was none.
	LastStarted  time.Time
	LastFinished time.Time
	LastSuccess  time.Time
	LastDuration time.Duration
	LastError    string
	// RunningUntil is the timeout of the latest run started.
	RunningUntil time.Time
}

// RunningAt reports whether, at now, a run is under way on some replica: the
// latest run started has not finished and has not timed out (a run whose
// process died reads as running until its timeout).
func (s Summary) RunningAt(now time.Time) bool {
	return !s.LastStarted.IsZero() && s.LastStarted.After(s.LastFinished) && now.Before(s.RunningUntil)
}

// maxErrorBytes bounds the error text recorded of a run.
const maxErrorBytes = 2000

// History records the jobs' runs in the database (table job_status: one
// row per job, its totals and its latest run) and reads them back. It
// implements Recorder. Every replica reads the same rows, so that the
// console and the metrics agree wherever they are read, and after a restart.
type History struct {
	q *queries.Queries
}

// NewHistory returns a History over db, a pool or a connection.
func NewHistory(db queries.DBTX) *History {
	return &History{q: queries.New(db)}
}

var _ Recorder = (*History)(nil)

// Scheduled gives the job its row if it has none, so that it is listed
// before its first run.
func (h *History) Scheduled(ctx context.Context, job string, interval time.Duration) error {
	if err := h.q.ScheduleJob(ctx, queries.ScheduleJobParams{Job: job, EveryUs: interval.Microseconds()}); err != nil {
		return fmt.Errorf("jobs: record %q scheduled: %w", job, err)
	}
	return nil
}

// Started records that a run started.
func (h *History) Started(ctx context.Context, run Run) error {
	started, deadline := run.Started.UTC(), run.Deadline.UTC()
	err := h.q.StartJobRun(ctx, queries.StartJobRunParams{
		Job: run.Job, EveryUs: run.Interval.Microseconds(), StartedAt: &started, RunningUntil: &deadline,
	})
	if err != nil {
		return fmt.Errorf("jobs: record the start of %q: %w", run.Job, err)
	}
	return nil
}

// Finished counts a finished run and records it as the job's latest.
func (h *History) Finished(ctx context.Context, run Run) error {
	started, finished := run.Started.UTC(), run.Finished.UTC()
	p := queries.FinishJobRunParams{
		Job: run.Job, EveryUs: run.Interval.Microseconds(), StartedAt: &started, FinishedAt: &finished,
		DurationUs: max(run.Finished.Sub(run.Started), 0).Microseconds(),
	}
	if run.Err != nil {
		msg := run.Err.Error()
		if run.Interrupted {
			msg = "interrupted as its process shut down: " + msg
		} else {
			p.Failures = 1
		}
		msg = clip(msg, maxErrorBytes)
		p.Error = &msg
	} else {
		p.SucceededAt = &finished
	}
	if err := h.q.FinishJobRun(ctx, p); err != nil {
		return fmt.Errorf("jobs: record the end of %q: %w", run.Job, err)
	}
	return nil
}

// Summaries returns what the database holds of every job that was ever
// scheduled, by name.
func (h *History) Summaries(ctx context.Context) ([]Summary, error) {
	rows, err := h.q.ListJobStatus(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs: read the jobs' history: %w", err)
	}
	out := make([]Summary, len(rows))
	for i, r := range rows {
		out[i] = Summary{
			Name: r.Job, Interval: time.Duration(r.EveryUs) * time.Microsecond,
			Runs: r.Runs, Failures: r.Failures,
			LastStarted: deref(r.LastStarted), LastFinished: deref(r.LastFinished),
			LastSuccess: deref(r.LastSuccess), RunningUntil: deref(r.RunningUntil),
			LastDuration: time.Duration(r.LastDurationUs) * time.Microsecond,
		}
		if r.LastError != nil {
			out[i].LastError = *r.LastError
		}
	}
	return out, nil
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// clip makes s text PostgreSQL takes (valid UTF-8, no NUL) and cuts it to
// at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) <= n {
		return s
	}
	const mark = " …"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// recordTimeout bounds each write of a run's record.
const recordTimeout = 5 * time.Second

// record calls f with a context of its own, bounded by recordTimeout: a run
// cancelled at shutdown is still recorded. A failure is logged, and costs
// the record of this run only.
func (s *Scheduler) record(what string, run Run, f func(context.Context, Run) error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), recordTimeout)
	defer cancel()
	if err := f(ctx, run); err != nil {
		s.logger.Warn("job.record_failed", "job", run.Job, "record", what, "err", err)
	}
}
