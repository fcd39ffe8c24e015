package jobs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/google/uuid"
	"github.com/jonboulle/clockwork"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// The tests run their Schedulers on fake clocks and move the clock to each
// tick themselves; nothing waits for time to pass. They learn that gocron has
// dealt with a tick from its monitor, and that a goroutine got somewhere from
// a channel it sends on, with a generous timeout that only a failing test
// reaches.

// epoch is where the fake clocks start: half a minute past midnight, so the
// first tick of a job every minute is 30 s away and that of an hourly job
// 59 min 30 s.
var epoch = time.Date(2030, time.January, 1, 0, 0, 30, 0, time.UTC)

func fakeClock() *clockwork.FakeClock { return clockwork.NewFakeClockAt(epoch) }

// tickReport is gocron's report on one tick of a job.
type tickReport struct {
	job string
	// status is gocron.Success when the Scheduler's tick function ran and
	// returned (a run, or a skip because a run was under way), gocron.Skip
	// when this replica did not lead.
	status gocron.JobStatus
}

// tickMonitor is a gocron.Monitor passing on every report.
type tickMonitor chan tickReport

func (m tickMonitor) IncrementJob(_ uuid.UUID, name string, _ []string, status gocron.JobStatus) {
	m <- tickReport{job: name, status: status}
}

func (tickMonitor) RecordJobTiming(time.Time, time.Time, uuid.UUID, string, []string) {}

// testScheduler is a Scheduler on a fake clock that the test moves.
type testScheduler struct {
	*Scheduler
	t     *testing.T
	clock *clockwork.FakeClock
	ticks tickMonitor
}

// newScheduler returns a Scheduler, on a new fake clock at epoch unless
// opts has a clock, shut down when the test ends.
func newScheduler(t *testing.T, opts Options, jobs ...Job) *testScheduler {
	t.Helper()
	clock, ok := opts.Clock.(*clockwork.FakeClock)
	if !ok {
		if opts.Clock != nil {
			t.Fatalf("newScheduler: clock %T is not a fake clock", opts.Clock)
		}
		clock = fakeClock()
		opts.Clock = clock
	}
	ticks := make(tickMonitor, 1024)
	opts.monitor = ticks
	s, err := NewScheduler(opts, jobs...)
	if err != nil {
		t.Fatalf("NewScheduler() = %v", err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(); err != nil {
			t.Errorf("Shutdown() = %v", err)
		}
	})
	return &testScheduler{Scheduler: s, t: t, clock: clock, ticks: ticks}
}

// untilTick is how far clock is from the next multiple of interval.
func untilTick(clock clockwork.Clock, interval time.Duration) time.Duration {
	now := clock.Now()
	return now.Truncate(interval).Add(interval).Sub(now)
}

// advance moves the clock of the schedulers, which they share, d forward
// once they have settled and timers timers wait on it: the armed ticks of the
// started jobs, the timeouts of runs under way, a Shutdown's deadline.
//
// Settled means that gocron's scheduler loop of each has handled what the
// ticks so far sent it. A tick sends the loop the job's next tick to arm and,
// before running the task, word that it is done, which drops ticks up to the
// clock's time from the job's schedule. Handled after the clock has moved on,
// that word would drop the tick now due too, and gocron would fire it again
// and again. Each request through the loop returns once the loop has handled
// what it received before, and the tests only advance the clock after a
// tick's run has started or its report has come, which is after both sends.
func advance(t *testing.T, timers int, d time.Duration, ss ...*testScheduler) {
	t.Helper()
	for _, s := range ss {
		_ = s.cron.Jobs()
	}
	clock := ss[0].clock
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := clock.BlockUntilContext(ctx, timers); err != nil {
		t.Fatalf("timed out after %v waiting for %d timers on the clock", wait, timers)
	}
	clock.Advance(d)
}

// reports waits for gocron's report on one tick of each named job.
func (ts *testScheduler) reports(names ...string) map[string]gocron.JobStatus {
	ts.t.Helper()
	got := make(map[string]gocron.JobStatus, len(names))
	for len(got) < len(names) {
		r := receive(ts.t, "gocron to report on the tick of "+strings.Join(names, ", "), (<-chan tickReport)(ts.ticks))
		if _, dup := got[r.job]; dup || !slices.Contains(names, r.job) {
			ts.t.Fatalf("gocron reported %s on a tick of %s, want one report on each of %v", r.status, r.job, names)
		}
		got[r.job] = r.status
	}
	return got
}

// tick moves the clock to the next multiple of interval once the next tick
// of every job is armed (no run may be under way), and returns gocron's
// report on the tick of each named job, which comes once the tick is over.
func (ts *testScheduler) tick(interval time.Duration, names ...string) map[string]gocron.JobStatus {
	ts.t.Helper()
	advance(ts.t, len(ts.entries), untilTick(ts.clock, interval), ts)
	return ts.reports(names...)
}

// status returns the named job's status.
func status(t *testing.T, s *testScheduler, name string) JobStatus {
	t.Helper()
	for _, st := range s.Status() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("Status() has no job %q", name)
	return JobStatus{}
}

func counting(name string, n *atomic.Int64) Job {
	return Job{Name: name, Interval: time.Minute, Run: func(context.Context) error {
		n.Add(1)
		return nil
	}}
}

func TestTwoSchedulersOneLeader(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	const key = 99
	la := newLeader(t, pool, key, nil)
	lb := newLeader(t, pool, key, nil)
	clock := fakeClock()
	var na, nb atomic.Int64
	sa := newScheduler(t, Options{Leader: la, Clock: clock}, counting("tick", &na))
	sb := newScheduler(t, Options{Leader: lb, Clock: clock}, counting("tick", &nb))
	sa.Start()
	sb.Start()

	// Both replicas see every tick; one runs it, the other skips it.
	for i := range 20 {
		advance(t, 2, untilTick(clock, time.Minute), sa, sb)
		ra, rb := sa.reports("tick")["tick"], sb.reports("tick")["tick"]
		if !(ra == gocron.Success && rb == gocron.Skip) && !(ra == gocron.Skip && rb == gocron.Success) {
			t.Fatalf("tick %d: gocron reports %s on scheduler a and %s on b; want one %s and one %s",
				i+1, ra, rb, gocron.Success, gocron.Skip)
		}
	}
	a, b := na.Load(), nb.Load()
	if (a == 0) == (b == 0) {
		t.Fatalf("runs: scheduler a %d, scheduler b %d; want exactly one of them to run the job", a, b)
	}
	leader, leaderLock, follower, followerCount := sa, la, sb, &nb
	if a == 0 {
		leader, leaderLock, follower, followerCount = sb, lb, sa, &na
	}
	if !leader.Leading() || follower.Leading() {
		t.Errorf("Leading() = leader %v, follower %v; want true, false", leader.Leading(), follower.Leading())
	}
	now := clock.Now()
	next := now.Add(time.Minute)
	if st := status(t, follower, "tick"); st.Runs != 0 || !st.LastRun.IsZero() || !st.NextRun.Equal(next) {
		t.Errorf("follower Status() = %+v, want no runs and NextRun %v", st, next)
	}
	if st := status(t, leader, "tick"); st.Runs != 20 || st.Failures != 0 || !st.LastRun.Equal(now) || !st.NextRun.Equal(next) {
		t.Errorf("leader Status() = %+v, want 20 runs, no failures, LastRun %v and NextRun %v", st, now, next)
	}

	// The leader goes away; the other replica takes over on the next tick.
	if err := leader.Shutdown(); err != nil {
		t.Fatalf("leader Shutdown() = %v", err)
	}
	if err := leaderLock.Close(ctx); err != nil {
		t.Fatalf("leader Close() = %v", err)
	}
	for i := range 5 {
		if got := follower.tick(time.Minute, "tick")["tick"]; got != gocron.Success {
			t.Fatalf("tick %d after the leader left: gocron reports %s on the other scheduler, want %s", i+1, got, gocron.Success)
		}
	}
	if got := followerCount.Load(); got != 5 {
		t.Errorf("the other scheduler ran the job %d times in 5 ticks, want 5", got)
	}
	if !follower.Leading() {
		t.Error("follower Leading() = false after taking over")
	}
}

func TestJobFailsThenSucceeds(t *testing.T) {
	logger, rec := newLogger()
	var n atomic.Int64
	s := newScheduler(t, Options{Logger: logger}, Job{
		Name:     "flaky",
		Interval: time.Minute,
		Run: func(context.Context) error {
			if n.Add(1) == 1 {
				return errors.New("boom")
			}
			return nil
		},
	})
	s.Start()

	s.tick(time.Minute, "flaky")
	st := status(t, s, "flaky")
	if st.Failures != 1 || st.LastError != "boom" || st.Runs != 1 || !st.LastRun.Equal(epoch.Truncate(time.Minute).Add(time.Minute)) {
		t.Errorf("Status() after a failure = %+v, want Failures 1, LastError boom, Runs 1, LastRun at the tick", st)
	}
	failed := rec.records(t, "job.failed", map[string]any{"level": "ERROR", "job": "flaky", "err": "boom"})
	if len(failed) != 1 {
		t.Fatalf("job.failed records = %v, want 1; log:\n%s", failed, rec)
	}
	if _, ok := failed[0]["duration"]; !ok {
		t.Errorf("job.failed record %v has no duration", failed[0])
	}

	// The next tick retries it.
	s.tick(time.Minute, "flaky")
	if st := status(t, s, "flaky"); st.Runs != 2 || st.Failures != 1 || st.LastError != "" {
		t.Errorf("Status() after the retry = %+v, want Runs 2, Failures 1 and no LastError", st)
	}
	if got := rec.records(t, "job.done", map[string]any{"level": "DEBUG", "job": "flaky"}); len(got) != 1 {
		t.Errorf("job.done records for flaky = %d, want 1; log:\n%s", len(got), rec)
	}
}

func TestJobPanicKeepsSchedulerRunning(t *testing.T) {
	logger, rec := newLogger()
	var steady atomic.Int64
	s := newScheduler(t, Options{Logger: logger},
		Job{Name: "explode", Interval: time.Minute, Run: func(context.Context) error {
			panic("kaboom")
		}},
		counting("steady", &steady),
	)
	s.Start()

	for i := range 5 {
		if got := s.tick(time.Minute, "explode", "steady"); got["explode"] != gocron.Success || got["steady"] != gocron.Success {
			t.Fatalf("tick %d: gocron reports %v, want %s for both jobs", i+1, got, gocron.Success)
		}
	}

	st := status(t, s, "explode")
	if st.Runs != 5 || st.Failures != 5 || st.LastError != "panic: kaboom" {
		t.Errorf("explode Status() = %+v, want 5 runs, 5 failures and LastError %q", st, "panic: kaboom")
	}
	panics := rec.records(t, "job.panic", map[string]any{"level": "ERROR", "job": "explode", "err": "panic: kaboom"})
	if len(panics) != 5 {
		t.Fatalf("job.panic records = %d, want 5; log:\n%s", len(panics), rec)
	}
	if stack, _ := panics[0]["stack"].(string); !strings.Contains(stack, "TestJobPanicKeepsSchedulerRunning") {
		t.Errorf("job.panic stack = %q, want the panicking function in it", stack)
	}
	if got := status(t, s, "steady"); got.Runs != 5 || got.Failures != 0 || steady.Load() != 5 {
		t.Errorf("steady Status() = %+v after %d runs, want 5 runs and no failures", got, steady.Load())
	}
}

func TestSingleton(t *testing.T) {
	logger, rec := newLogger()
	var running, maxRunning, runs atomic.Int64
	started := make(chan struct{})
	release := make(chan struct{})
	s := newScheduler(t, Options{Logger: logger}, Job{
		Name:     "slow",
		Interval: time.Minute,
		Timeout:  time.Hour, // outlasts the ticks below
		Run: func(ctx context.Context) error {
			now := running.Add(1)
			defer running.Add(-1)
			for {
				old := maxRunning.Load()
				if now <= old || maxRunning.CompareAndSwap(old, now) {
					break
				}
			}
			runs.Add(1)
			started <- struct{}{}
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	s.Start()

	advance(t, 1, untilTick(s.clock, time.Minute), s)
	receive(t, "the run of the first tick", started)
	// RunNow while it runs is refused rather than overlapping.
	if err := s.RunNow("slow"); !errors.Is(err, ErrRunning) {
		t.Errorf("RunNow(slow) during a run = %v, want ErrRunning", err)
	}
	if st := status(t, s, "slow"); !st.Running {
		t.Errorf("Status() during a run = %+v, want Running", st)
	}
	// Ticks due while it runs are skipped. Two timers wait on the clock: the
	// next tick and the run's timeout.
	for i := range 3 {
		advance(t, 2, time.Minute, s)
		if got := s.reports("slow")["slow"]; got != gocron.Success {
			t.Fatalf("tick %d during the run: gocron reports %s, want %s", i+1, got, gocron.Success)
		}
	}
	skipped := rec.records(t, "job.skipped", map[string]any{"job": "slow", "reason": ErrRunning.Error()})
	if len(skipped) != 3 || runs.Load() != 1 {
		t.Errorf("3 ticks during a run: %d job.skipped records and %d runs, want 3 and 1; log:\n%s", len(skipped), runs.Load(), rec)
	}
	release <- struct{}{}
	s.reports("slow") // the first tick is over

	// Each following tick runs it again, once.
	for i := range 3 {
		advance(t, 1, time.Minute, s)
		receive(t, "the run of a tick", started)
		release <- struct{}{}
		if got := s.reports("slow")["slow"]; got != gocron.Success {
			t.Fatalf("tick %d after the run: gocron reports %s, want %s", i+1, got, gocron.Success)
		}
	}

	// A tick due during a run started by RunNow is skipped too.
	if err := s.RunNow("slow"); err != nil {
		t.Fatalf("RunNow(slow) = %v", err)
	}
	receive(t, "the run started by RunNow", started)
	advance(t, 2, time.Minute, s)
	if got := s.reports("slow")["slow"]; got != gocron.Success {
		t.Fatalf("tick during the RunNow run: gocron reports %s, want %s", got, gocron.Success)
	}
	if got := rec.records(t, "job.skipped", map[string]any{"job": "slow"}); len(got) != 4 {
		t.Errorf("job.skipped records = %d, want 4; log:\n%s", len(got), rec)
	}
	release <- struct{}{}
	if err := s.Shutdown(); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	if got := runs.Load(); got != 5 {
		t.Errorf("job ran %d times, want 5", got)
	}
	if got := maxRunning.Load(); got != 1 {
		t.Errorf("at most %d runs of slow at once, want 1", got)
	}
	if st := status(t, s, "slow"); st.Runs != 5 || st.Failures != 0 {
		t.Errorf("Status() = %+v, want 5 runs and no failures", st)
	}
}

func TestRunNow(t *testing.T) {
	clock := fakeClock()
	var n atomic.Int64
	job := Job{Name: "manual", Interval: time.Hour, Run: func(context.Context) error {
		n.Add(1)
		clock.Advance(3 * time.Second) // the run takes 3 s on the scheduler's clock
		return nil
	}}
	s := newScheduler(t, Options{Clock: clock}, job)
	s.Start()

	if err := s.RunNow("manual"); err != nil {
		t.Fatalf("RunNow(manual) = %v, want nil", err)
	}
	err := s.RunNow("nope")
	if !errors.Is(err, ErrUnknownJob) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("RunNow(nope) = %v, want ErrUnknownJob naming nope", err)
	}

	// Shutdown waits for the run RunNow started.
	if err := s.Shutdown(); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("job ran %d times, want 1", got)
	}
	st := status(t, s, "manual")
	if st.Runs != 1 || !st.LastRun.Equal(epoch) || st.LastDuration != 3*time.Second {
		t.Errorf("Status() = %+v, want 1 run, LastRun %v and LastDuration 3s", st, epoch)
	}
	if err := s.RunNow("manual"); !errors.Is(err, ErrClosed) {
		t.Errorf("RunNow(manual) after Shutdown = %v, want ErrClosed", err)
	}
}

func TestRunNowNotLeader(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	other := newLeader(t, pool, 5, nil)
	if err := other.IsLeader(ctx); err != nil {
		t.Fatalf("other.IsLeader() = %v, want nil", err)
	}
	ran := make(chan struct{}, 1)
	s := newScheduler(t, Options{Leader: newLeader(t, pool, 5, nil)}, Job{
		Name: "manual", Interval: time.Minute, Run: func(context.Context) error {
			ran <- struct{}{}
			return nil
		}})
	if err := s.RunNow("manual"); !errors.Is(err, ErrNotLeader) {
		t.Errorf("RunNow(manual) on a follower = %v, want ErrNotLeader", err)
	}
	if err := other.Close(ctx); err != nil {
		t.Fatalf("other.Close() = %v", err)
	}
	if err := s.RunNow("manual"); err != nil {
		t.Fatalf("RunNow(manual) once the lock is free = %v, want nil", err)
	}
	receive(t, "the manual run", ran)
	if err := s.Shutdown(); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	if st := status(t, s, "manual"); st.Runs != 1 {
		t.Errorf("Status().Runs = %d, want 1", st.Runs)
	}
}

func TestRunTimeout(t *testing.T) {
	logger, rec := newLogger()
	deadlines := make(chan time.Time, 1)
	ended := make(chan error, 1)
	s := newScheduler(t, Options{Logger: logger}, Job{
		Name:     "stuck",
		Interval: time.Hour,
		Timeout:  time.Minute,
		Run: func(ctx context.Context) error {
			d, _ := ctx.Deadline()
			deadlines <- d
			<-ctx.Done()
			ended <- ctx.Err()
			return ctx.Err()
		},
	})
	if err := s.RunNow("stuck"); err != nil {
		t.Fatalf("RunNow(stuck) = %v", err)
	}
	if got, want := receive(t, "the run to start", deadlines), epoch.Add(time.Minute); !got.Equal(want) {
		t.Errorf("the run's deadline = %v, want %v", got, want)
	}
	// The run's timeout is the only timer on the clock: the scheduler is not
	// started.
	advance(t, 1, time.Minute, s)
	if err := receive(t, "the run's context to end", ended); err != context.DeadlineExceeded {
		t.Errorf("the run's ctx.Err() = %v, want %v", err, context.DeadlineExceeded)
	}
	if err := s.Shutdown(); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	st := status(t, s, "stuck")
	if st.Failures != 1 || st.LastError != context.DeadlineExceeded.Error() || st.LastDuration != time.Minute {
		t.Errorf("Status() = %+v, want Failures 1, LastError %q and LastDuration 1m", st, context.DeadlineExceeded)
	}
	if got := rec.records(t, "job.failed", map[string]any{"job": "stuck"}); len(got) != 1 {
		t.Errorf("job.failed records for stuck = %d, want 1; log:\n%s", len(got), rec)
	}
}

func TestShutdownCancelsAndWaits(t *testing.T) {
	logger, rec := newLogger()
	started := make(chan struct{}, 1)
	cancelled := make(chan struct{}, 1)
	finish := make(chan struct{})
	var returned atomic.Bool
	s := newScheduler(t, Options{Logger: logger}, Job{
		Name:     "long",
		Interval: time.Minute,
		Run: func(ctx context.Context) error {
			started <- struct{}{}
			<-ctx.Done()
			cancelled <- struct{}{}
			<-finish // some cleanup Shutdown must wait for
			returned.Store(true)
			return ctx.Err()
		},
	})
	s.Start()
	advance(t, 1, untilTick(s.clock, time.Minute), s)
	receive(t, "the job to start", started)

	shutdown := make(chan error, 1)
	go func() { shutdown <- s.Shutdown() }()
	receive(t, "Shutdown to cancel the job's context", cancelled)
	select {
	case err := <-shutdown:
		t.Fatalf("Shutdown() = %v before the running job returned", err)
	default:
	}
	close(finish)
	if err := receive(t, "Shutdown to return", shutdown); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	if !returned.Load() {
		t.Error("Shutdown() returned before the running job did")
	}
	if got := rec.records(t, "job.cancelled", map[string]any{"level": "INFO", "job": "long"}); len(got) != 1 {
		t.Errorf("job.cancelled records = %d, want 1; log:\n%s", len(got), rec)
	}
	if err := s.Shutdown(); err != nil {
		t.Errorf("second Shutdown() = %v, want nil", err)
	}
	if st := status(t, s, "long"); st.Running || !st.NextRun.IsZero() {
		t.Errorf("Status() after Shutdown = %+v, want not running and no next run", st)
	}
}

func TestShutdownGivesUpAtStopTimeout(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	release := make(chan struct{})
	s := newScheduler(t, Options{StopTimeout: time.Minute}, Job{
		Name:     "stubborn",
		Interval: time.Hour,
		Timeout:  time.Hour,
		Run: func(ctx context.Context) error {
			<-ctx.Done()
			cancelled <- struct{}{}
			<-release // and takes its time to return
			return ctx.Err()
		},
	})
	defer close(release)
	if err := s.RunNow("stubborn"); err != nil {
		t.Fatalf("RunNow(stubborn) = %v", err)
	}

	shutdown := make(chan error, 1)
	go func() { shutdown <- s.Shutdown() }()
	receive(t, "Shutdown to cancel the job's context", cancelled)
	// The run's timeout ended with its context; the one timer left on the
	// clock is Shutdown's deadline, set by the stop timeout on the same
	// clock.
	advance(t, 1, time.Minute-time.Nanosecond, s)
	select {
	case err := <-shutdown:
		t.Fatalf("Shutdown() = %v before the stop timeout", err)
	default:
	}
	s.clock.Advance(time.Nanosecond)
	err := receive(t, "Shutdown to give up", shutdown)
	if want := "jobs still running after 1m0s: [stubborn]"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Shutdown() = %v, want an error containing %q", err, want)
	}
}

func TestStatus(t *testing.T) {
	var n atomic.Int64
	s := newScheduler(t, Options{},
		Job{Name: "b", Interval: time.Hour, Run: func(context.Context) error { return nil }},
		counting("a", &n),
	)
	before := s.Status()
	if len(before) != 2 || before[0].Name != "b" || before[1].Name != "a" {
		t.Fatalf("Status() names = %+v, want b then a", before)
	}
	if before[0].Interval != time.Hour || !before[0].NextRun.IsZero() {
		t.Errorf("Status()[0] before Start = %+v, want Interval 1h and no NextRun", before[0])
	}
	s.Start()
	// Ticks fall on multiples of the interval.
	hour, minute := epoch.Truncate(time.Hour).Add(time.Hour), epoch.Truncate(time.Minute).Add(time.Minute)
	if next := status(t, s, "b").NextRun; !next.Equal(hour) {
		t.Errorf("NextRun of b = %v, want the next whole hour %v", next, hour)
	}
	if next := status(t, s, "a").NextRun; !next.Equal(minute) {
		t.Errorf("NextRun of a = %v, want the next whole minute %v", next, minute)
	}
	if got := s.tick(time.Minute, "a")["a"]; got != gocron.Success {
		t.Fatalf("gocron reports %s on the first tick of a, want %s", got, gocron.Success)
	}
	st := status(t, s, "a")
	if st.Runs != 1 || !st.LastRun.Equal(minute) || st.LastError != "" || !st.NextRun.Equal(minute.Add(time.Minute)) {
		t.Errorf("Status() of a = %+v, want 1 run at %v, no error and NextRun a minute later", st, minute)
	}
	if next := status(t, s, "b").NextRun; !next.Equal(hour) {
		t.Errorf("NextRun of b = %v after a ticked, want %v", next, hour)
	}
}

// TestRealClockByDefault is the one test on the real clock: it reads the
// system's time to check that a Scheduler without a Clock follows it, and
// waits for its run on a channel.
func TestRealClockByDefault(t *testing.T) {
	ran := make(chan time.Time, 1)
	s, err := NewScheduler(Options{}, Job{Name: "hourly", Interval: time.Hour, Run: func(context.Context) error {
		ran <- time.Now()
		return nil
	}})
	if err != nil {
		t.Fatalf("NewScheduler() = %v", err)
	}
	defer s.Shutdown()
	before := time.Now()
	s.Start()
	if next, want := s.Status()[0].NextRun, before.Truncate(time.Hour).Add(time.Hour); !next.Equal(want) && !next.Equal(want.Add(time.Hour)) {
		t.Errorf("NextRun = %v, want the next whole hour %v", next, want)
	}
	if err := s.RunNow("hourly"); err != nil {
		t.Fatalf("RunNow(hourly) = %v", err)
	}
	at := receive(t, "the run", ran)
	if err := s.Shutdown(); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	if st := s.Status()[0]; st.LastRun.Before(before) || st.LastRun.After(at) {
		t.Errorf("LastRun = %v, want between %v and %v", st.LastRun, before, at)
	}
}

type recordingMetrics struct {
	mu       sync.Mutex
	runs     map[string][]error
	took     map[string][]time.Duration
	observed chan struct{}
}

func (m *recordingMetrics) ObserveRun(job string, took time.Duration, err error) {
	m.mu.Lock()
	m.runs[job] = append(m.runs[job], err)
	m.took[job] = append(m.took[job], took)
	m.mu.Unlock()
	m.observed <- struct{}{}
}

func TestMetrics(t *testing.T) {
	m := &recordingMetrics{runs: map[string][]error{}, took: map[string][]time.Duration{}, observed: make(chan struct{}, 2)}
	clock := fakeClock()
	s := newScheduler(t, Options{Metrics: m, Clock: clock},
		Job{Name: "ok", Interval: time.Hour, Run: func(context.Context) error {
			clock.Advance(2 * time.Second)
			return nil
		}},
		Job{Name: "bad", Interval: time.Hour, Run: func(context.Context) error { return errors.New("no") }},
	)
	for _, name := range []string{"ok", "bad"} {
		if err := s.RunNow(name); err != nil {
			t.Fatalf("RunNow(%s) = %v", name, err)
		}
		receive(t, "the run of "+name+" observed", m.observed)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.runs["ok"]) != 1 || len(m.runs["bad"]) != 1 || m.runs["ok"][0] != nil || m.runs["bad"][0] == nil {
		t.Errorf("observed errors = %v, want one nil for ok and one error for bad", m.runs)
	}
	if m.took["ok"][0] != 2*time.Second || m.took["bad"][0] != 0 {
		t.Errorf("observed durations = %v, want 2s for ok and 0 for bad, as the scheduler's clock measured them", m.took)
	}
}

func TestNewSchedulerValidation(t *testing.T) {
	run := func(context.Context) error { return nil }
	tests := []struct {
		name string
		jobs []Job
		want string
	}{
		{
			name: "duplicate name",
			jobs: []Job{{Name: "decay", Interval: time.Minute, Run: run}, {Name: "decay", Interval: time.Hour, Run: run}},
			want: `duplicate job name "decay"`,
		},
		{
			name: "zero interval",
			jobs: []Job{{Name: "decay", Run: run}},
			want: `job "decay": interval must be positive, got 0s`,
		},
		{
			name: "negative interval",
			jobs: []Job{{Name: "decay", Interval: -time.Second, Run: run}},
			want: `job "decay": interval must be positive, got -1s`,
		},
		{
			name: "empty name",
			jobs: []Job{{Name: "decay", Interval: time.Minute, Run: run}, {Interval: time.Minute, Run: run}},
			want: "job 2: empty name",
		},
		{
			name: "nil run",
			jobs: []Job{{Name: "decay", Interval: time.Minute}},
			want: `job "decay": nil Run func`,
		},
		{
			name: "negative timeout",
			jobs: []Job{{Name: "decay", Interval: time.Minute, Timeout: -time.Second, Run: run}},
			want: `job "decay": timeout must not be negative`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewScheduler(Options{}, tt.jobs...)
			if err == nil {
				_ = s.Shutdown()
				t.Fatalf("NewScheduler(%s) = nil error, want %q", tt.name, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewScheduler(%s) = %q, want it to contain %q", tt.name, err, tt.want)
			}
		})
	}

	t.Run("all problems at once", func(t *testing.T) {
		_, err := NewScheduler(Options{}, Job{Name: "a", Run: run}, Job{Name: "a", Interval: time.Minute})
		for _, want := range []string{`job "a": interval must be positive`, `duplicate job name "a"`, `job "a": nil Run func`} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("NewScheduler() = %v, want it to contain %q", err, want)
			}
		}
	})
}

func TestRunTimeoutDefault(t *testing.T) {
	tests := []struct {
		job  Job
		want time.Duration
	}{
		{Job{Interval: 50 * time.Millisecond}, time.Minute},
		{Job{Interval: time.Minute}, 10 * time.Minute},
		{Job{Interval: 5 * time.Minute}, 50 * time.Minute},
		{Job{Interval: 24 * time.Hour}, time.Hour},
		{Job{Interval: 1 << 62}, time.Hour},
		{Job{Interval: time.Minute, Timeout: time.Second}, time.Second},
	}
	for _, tt := range tests {
		if got := runTimeout(tt.job); got != tt.want {
			t.Errorf("runTimeout(interval %v, timeout %v) = %v, want %v", tt.job.Interval, tt.job.Timeout, got, tt.want)
		}
	}
}
