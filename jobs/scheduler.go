package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/jonboulle/clockwork"
)

// ErrUnknownJob is returned by RunNow for a name no job has.
var ErrUnknownJob = errors.New("jobs: unknown job")

// ErrRunning is returned by RunNow when the job is already running.
var ErrRunning = errors.New("jobs: job already running")

const (
	// defaultStopTimeout is how long Shutdown waits for running jobs, which
	// see their context cancelled, to return.
	defaultStopTimeout = 30 * time.Second
	// Bounds of the default per-run timeout, ten intervals.
	minRunTimeout = time.Minute
	maxRunTimeout = time.Hour
)

// Job is one scheduled unit of work: idempotent, named, retried next tick on
// failure.
type Job struct {
	// Name is stable across releases and replicas, e.g. "consolidation",
	// "decay", "tombstone_purge". It names the job in logs, metrics and the
	// console.
	Name string
	// Interval between ticks; must be positive. Ticks fall on multiples of
	// the interval (UTC), the same instants on every replica.
	Interval time.Duration
	// Timeout bounds one run through its context. Zero means ten intervals,
	// at least a minute and at most an hour.
	Timeout time.Duration
	// Run does the work. It must return once its context is done: the
	// context ends at the timeout and when the Scheduler shuts down.
	Run func(ctx context.Context) error
}

// Metrics receives one observation per finished run, for example to feed
// Prometheus. err is nil on success; a recovered panic arrives as an error.
// ObserveRun is called from the goroutine of the run and must not block.
type Metrics interface {
	ObserveRun(job string, took time.Duration, err error)
}

// Options configure a Scheduler. The zero value runs every job in this
// process without election and logs nowhere.
type Options struct {
	Logger *slog.Logger
	// Leader decides whether this replica runs the jobs; nil means this
	// process always does (a single process, tests). The caller keeps
	// ownership: close it after Shutdown.
	Leader *Leader
	// Metrics, if set, observes every run.
	Metrics Metrics
	// Recorder, if set, records every job and every run where every
	// replica reads them (History): the console's scheduled jobs and the
	// job metrics read that record, not this process's Status.
	Recorder Recorder
	// StopTimeout is how long Shutdown waits for running jobs; zero means 30 s.
	StopTimeout time.Duration
	// Clock is what the Scheduler reads the time from and sets its timers
	// on: the grid of ticks and the timers gocron arms for them, the start
	// and duration of runs, run timeouts, the Shutdown deadline and NextRun
	// in Status. Nil means the real clock. It is a clockwork.Clock, the
	// clock gocron takes, rather than a now function because the Scheduler
	// needs timers too; tests pass a fake one and hand its Now to the code
	// that takes a now function, so that every part reads the same time.
	Clock clockwork.Clock

	// monitor, if set, is told by gocron how each tick of a job went; tests
	// use it to know when a tick is over.
	monitor gocron.Monitor
}

// JobStatus describes a job as this replica sees it, for the console.
type JobStatus struct {
	Name     string
	Interval time.Duration
	// Running is true while a run is under way in this process.
	Running bool
	// LastRun is when the latest run in this process started; zero if none
	// has. A replica that is not the leader never runs its jobs.
	LastRun time.Time
	// LastDuration is how long the latest finished run took.
	LastDuration time.Duration
	// LastError is the error of the latest finished run, empty if it succeeded.
	LastError string
	// NextRun is the next tick; zero before Start and after Shutdown.
	NextRun time.Time
	// Runs counts finished runs, Failures those that returned an error or
	// panicked.
	Runs, Failures int
}

// Scheduler runs jobs on their intervals with gocron, on the replica its
// Leader elects. A run is never overlapped by another run of the same job: a
// tick that comes while one is under way is skipped.
type Scheduler struct {
	logger      *slog.Logger
	leader      *Leader
	metrics     Metrics
	recorder    Recorder
	stopTimeout time.Duration
	clock       clockwork.Clock

	cron    gocron.Scheduler
	entries []*entry // in the order given
	byName  map[string]*entry

	// ctx is the parent of every run's context; Shutdown cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	// mu orders runs.Add against Shutdown's runs.Wait.
	mu      sync.Mutex
	started bool
	closed  bool
	runs    sync.WaitGroup
}

// entry is one job and what this process knows of its runs.
type entry struct {
	job     Job
	timeout time.Duration

	// running guards against overlapping runs, scheduled or RunNow. The jobs
	// are not in gocron's singleton mode: gocron would give its slot back
	// only after the tick function has returned, so that a tick coming just
	// after a run could be dropped without the Scheduler knowing. With this
	// guard alone, released before the tick function returns, whether a tick
	// runs depends on nothing but the Scheduler's own state, and every tick
	// skipped is logged.
	running atomic.Bool

	mu     sync.Mutex
	status JobStatus // Name, Interval and the fields about past runs
}

// NewScheduler checks the jobs and registers them; nothing runs before Start.
// Every job needs a non-empty name unique among them, a positive interval, a
// non-negative timeout and a Run function.
func NewScheduler(opts Options, jobs ...Job) (*Scheduler, error) {
	if err := validate(jobs); err != nil {
		return nil, fmt.Errorf("jobs: new scheduler: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	stopTimeout := opts.StopTimeout
	if stopTimeout <= 0 {
		stopTimeout = defaultStopTimeout
	}
	clock := opts.Clock
	if clock == nil {
		clock = clockwork.NewRealClock()
	}
	cronOpts := []gocron.SchedulerOption{
		gocron.WithClock(clock),
		gocron.WithLocation(time.UTC),
		gocron.WithStopTimeout(stopTimeout),
	}
	if opts.Leader != nil {
		cronOpts = append(cronOpts, gocron.WithDistributedElector(opts.Leader))
	}
	if opts.monitor != nil {
		cronOpts = append(cronOpts, gocron.WithMonitor(opts.monitor))
	}
	cron, err := gocron.NewScheduler(cronOpts...)
	if err != nil {
		return nil, fmt.Errorf("jobs: new scheduler: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Scheduler{
		logger:      logger,
		leader:      opts.Leader,
		metrics:     opts.Metrics,
		recorder:    opts.Recorder,
		stopTimeout: stopTimeout,
		clock:       clock,
		cron:        cron,
		byName:      make(map[string]*entry, len(jobs)),
		ctx:         ctx,
		cancel:      cancel,
	}
	now := clock.Now()
	for _, j := range jobs {
		e := &entry{
			job:     j,
			timeout: runTimeout(j),
			status:  JobStatus{Name: j.Name, Interval: j.Interval},
		}
		_, err = cron.NewJob(
			gocron.DurationJob(j.Interval),
			gocron.NewTask(func() { s.tick(e) }),
			gocron.WithName(j.Name),
			// The grid: gocron moves a start in the past forward by whole
			// intervals, so every replica ticks at the same instants and a
			// restart does not postpone a long-interval job.
			gocron.WithStartAt(gocron.WithStartDateTimePast(now.Truncate(j.Interval))),
		)
		if err != nil {
			cancel()
			_ = cron.Shutdown()
			return nil, fmt.Errorf("jobs: new scheduler: job %q: %w", j.Name, err)
		}
		s.entries = append(s.entries, e)
		s.byName[j.Name] = e
	}
	return s, nil
}

// nextTick is the first tick of a job every interval after t: ticks fall on
// the multiples of the interval, where NewScheduler starts gocron's schedule.
// Status works it out rather than asking gocron, which on a replica that does
// not lead keeps reporting the first tick it skipped.
func nextTick(t time.Time, interval time.Duration) time.Time {
	return t.Truncate(interval).Add(interval)
}

func validate(jobs []Job) error {
	var errs []error
	seen := make(map[string]bool, len(jobs))
	for i, j := range jobs {
		if j.Name == "" {
			errs = append(errs, fmt.Errorf("job %d: empty name", i+1))
		} else if seen[j.Name] {
			errs = append(errs, fmt.Errorf("duplicate job name %q", j.Name))
		}
		seen[j.Name] = true
		name := j.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if j.Interval <= 0 {
			errs = append(errs, fmt.Errorf("job %q: interval must be positive, got %v", name, j.Interval))
		}
		if j.Timeout < 0 {
			errs = append(errs, fmt.Errorf("job %q: timeout must not be negative, got %v", name, j.Timeout))
		}
		if j.Run == nil {
			errs = append(errs, fmt.Errorf("job %q: nil Run func", name))
		}
	}
	return errors.Join(errs...)
}

func runTimeout(j Job) time.Duration {
	if j.Timeout > 0 {
		return j.Timeout
	}
	d := 10 * j.Interval
	if d/10 != j.Interval || d > maxRunTimeout { // overflow or too long
		return maxRunTimeout
	}
	return max(d, minRunTimeout)
}

// Start starts ticking. It does nothing after Shutdown or a second time.
// With a Recorder, it first records every job that has no record yet.
func (s *Scheduler) Start() {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return
	}
	s.started = true
	s.mu.Unlock()
	if s.recorder != nil {
		for _, e := range s.entries {
			s.record("scheduled", Run{Job: e.job.Name, Interval: e.job.Interval}, func(ctx context.Context, r Run) error {
				return s.recorder.Scheduled(ctx, r.Job, r.Interval)
			})
		}
	}
	s.cron.Start()
	names := make([]string, len(s.entries))
	for i, e := range s.entries {
		names[i] = e.job.Name
	}
	s.logger.Info("jobs.started", "jobs", names)
}

// Shutdown stops ticking, cancels the context of running jobs and waits for
// them to return, at most the StopTimeout. It does not close the Leader.
// Later calls return nil.
func (s *Scheduler) Shutdown() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()

	deadline := s.clock.Now().Add(s.stopTimeout)
	s.cancel()
	cronErr := s.cron.Shutdown()

	// gocron waited for the runs it started; this also covers RunNow's.
	done := make(chan struct{})
	go func() {
		s.runs.Wait()
		close(done)
	}()
	timer := s.clock.NewTimer(max(s.clock.Until(deadline), 0))
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.Chan():
		var still []string
		for _, e := range s.entries {
			if e.running.Load() {
				still = append(still, e.job.Name)
			}
		}
		return fmt.Errorf("jobs: shutdown: jobs still running after %v: %v", s.stopTimeout, still)
	}
	if cronErr != nil {
		return fmt.Errorf("jobs: shutdown: %w", cronErr)
	}
	s.logger.Info("jobs.stopped")
	return nil
}

// Status describes every job, in the order given to NewScheduler.
func (s *Scheduler) Status() []JobStatus {
	s.mu.Lock()
	ticking := s.started && !s.closed
	s.mu.Unlock()
	out := make([]JobStatus, len(s.entries))
	for i, e := range s.entries {
		e.mu.Lock()
		st := e.status
		e.mu.Unlock()
		st.Running = e.running.Load()
		if ticking {
			st.NextRun = nextTick(s.clock.Now(), e.job.Interval)
		}
		out[i] = st
	}
	return out
}

// Leading reports whether this replica runs the jobs, as of the Leader's
// last check (always true without a Leader).
func (s *Scheduler) Leading() bool {
	return s.leader == nil || s.leader.Leading()
}

// RunNow starts a run of the named job in the background, outside its
// schedule, and returns once it has started. It returns ErrUnknownJob for an
// unknown name, ErrNotLeader on a replica that is not the leader (running it
// here could overlap with the leader's run), ErrRunning if the job is running,
// and ErrClosed after Shutdown. It works before Start too.
func (s *Scheduler) RunNow(name string) error {
	e, ok := s.byName[name]
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownJob, name)
	}
	if err := s.ctx.Err(); err != nil {
		return ErrClosed
	}
	if s.leader != nil {
		if err := s.leader.IsLeader(s.ctx); err != nil {
			if errors.Is(err, ErrNotLeader) {
				return fmt.Errorf("jobs: run %q now: %w", name, err)
			}
			return fmt.Errorf("jobs: run %q now: %w: %w", name, ErrNotLeader, err)
		}
	}
	if err := s.begin(e); err != nil {
		return fmt.Errorf("jobs: run %q now: %w", name, err)
	}
	go func() {
		defer s.end(e)
		s.run(e)
	}()
	return nil
}

// tick is what gocron calls when a job is due and this replica leads.
func (s *Scheduler) tick(e *entry) {
	if err := s.begin(e); err != nil {
		s.logger.Debug("job.skipped", "job", e.job.Name, "reason", err)
		return
	}
	defer s.end(e)
	s.run(e)
}

// begin claims the job's running slot and registers the run with Shutdown.
func (s *Scheduler) begin(e *entry) error {
	if !e.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		e.running.Store(false)
		return ErrClosed
	}
	s.runs.Add(1)
	return nil
}

func (s *Scheduler) end(e *entry) {
	e.running.Store(false)
	s.runs.Done()
}

// run runs the job once, logs the outcome and records it.
func (s *Scheduler) run(e *entry) {
	name := e.job.Name
	ctx, cancel := withTimeout(s.ctx, s.clock, e.timeout)
	defer cancel()

	start := s.clock.Now()
	e.mu.Lock()
	e.status.LastRun = start
	e.mu.Unlock()
	rec := Run{Job: name, Interval: e.job.Interval, Started: start, Deadline: start.Add(e.timeout)}
	if s.recorder != nil {
		s.record("started", rec, s.recorder.Started)
	}

	err := call(ctx, e.job.Run)
	took := s.clock.Since(start)

	var pe *panicError
	switch {
	case errors.As(err, &pe):
		s.logger.Error("job.panic", "job", name, "err", err, "duration", took, "stack", string(pe.stack))
	case err != nil && s.ctx.Err() != nil && errors.Is(err, context.Canceled):
		// Shutdown interrupted it; the next process retries. Not a
		// failure: a rolling restart must not count as one.
		s.logger.Info("job.cancelled", "job", name, "err", err, "duration", took)
		rec.Interrupted = true
	case err != nil:
		s.logger.Error("job.failed", "job", name, "err", err, "duration", took)
	default:
		s.logger.Debug("job.done", "job", name, "duration", took)
	}
	if s.metrics != nil {
		s.metrics.ObserveRun(name, took, err)
	}
	if s.recorder != nil {
		rec.Finished, rec.Err = start.Add(took), err
		s.record("finished", rec, s.recorder.Finished)
	}

	// Recorded last, so that a finished run seen in Status has been logged,
	// observed and recorded.
	e.mu.Lock()
	e.status.Runs++
	e.status.LastDuration = took
	e.status.LastError = ""
	if err != nil {
		if !rec.Interrupted {
			e.status.Failures++
		}
		e.status.LastError = err.Error()
	}
	e.mu.Unlock()
}

// call runs f, turning a panic into an error so that one bad run neither
// kills the process nor stops the schedule.
func call(ctx context.Context, f func(context.Context) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return f(ctx)
}

// panicError is a panic recovered from a job.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// Unwrap exposes a panic value that is itself an error.
func (p *panicError) Unwrap() error {
	err, _ := p.value.(error)
	return err
}
