package jobs

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// newScheduler returns a Scheduler shut down when the test ends.
func newScheduler(t *testing.T, opts Options, jobs ...Job) *Scheduler {
	t.Helper()
	s, err := NewScheduler(opts, jobs...)
	if err != nil {
		t.Fatalf("NewScheduler() = %v", err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(); err != nil {
			t.Errorf("Shutdown() = %v", err)
		}
	})
	return s
}

// status returns the named job's status.
func status(t *testing.T, s *Scheduler, name string) JobStatus {
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
	return Job{Name: name, Interval: 50 * time.Millisecond, Run: func(context.Context) error {
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
	var na, nb atomic.Int64
	sa := newScheduler(t, Options{Leader: la}, counting("tick", &na))
	sb := newScheduler(t, Options{Leader: lb}, counting("tick", &nb))
	sa.Start()
	sb.Start()

	waitFor(t, "20 runs in all", func() bool { return na.Load()+nb.Load() >= 20 })
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
	if st := status(t, follower, "tick"); st.Runs != 0 || !st.LastRun.IsZero() || st.NextRun.IsZero() {
		t.Errorf("follower Status() = %+v, want no runs and a next tick", st)
	}
	if st := status(t, leader, "tick"); st.Runs < 10 || st.Failures != 0 {
		t.Errorf("leader Status() = %+v, want at least 10 runs and no failures", st)
	}

	// The leader goes away; the other replica takes over on a following tick.
	if err := leader.Shutdown(); err != nil {
		t.Fatalf("leader Shutdown() = %v", err)
	}
	if err := leaderLock.Close(ctx); err != nil {
		t.Fatalf("leader Close() = %v", err)
	}
	waitFor(t, "the other scheduler to run the job", func() bool { return followerCount.Load() >= 5 })
	if !follower.Leading() {
		t.Error("follower Leading() = false after taking over")
	}
}

func TestJobFailsThenSucceeds(t *testing.T) {
	logger, rec := newLogger()
	var n atomic.Int64
	gate := make(chan struct{})
	s := newScheduler(t, Options{Logger: logger}, Job{
		Name:     "flaky",
		Interval: 50 * time.Millisecond,
		Run: func(ctx context.Context) error {
			if n.Add(1) == 1 {
				return errors.New("boom")
			}
			select {
			case <-gate:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	s.Start()

	waitFor(t, "the first run to fail", func() bool { return status(t, s, "flaky").Failures == 1 })
	st := status(t, s, "flaky")
	if st.LastError != "boom" || st.Runs != 1 || st.LastRun.IsZero() {
		t.Errorf("Status() after a failure = %+v, want LastError boom, Runs 1, LastRun set", st)
	}
	failed := rec.records(t, "job.failed", map[string]any{"level": "ERROR", "job": "flaky", "err": "boom"})
	if len(failed) != 1 {
		t.Fatalf("job.failed records = %v, want 1; log:\n%s", failed, rec)
	}
	if _, ok := failed[0]["duration"]; !ok {
		t.Errorf("job.failed record %v has no duration", failed[0])
	}

	// The next tick retries it.
	close(gate)
	waitFor(t, "a successful retry", func() bool {
		st := status(t, s, "flaky")
		return st.Runs >= 2 && st.LastError == ""
	})
	if st := status(t, s, "flaky"); st.Failures != 1 {
		t.Errorf("Status().Failures = %d after the retry succeeded, want 1", st.Failures)
	}
	if got := rec.records(t, "job.done", map[string]any{"level": "DEBUG", "job": "flaky"}); len(got) == 0 {
		t.Errorf("no job.done record for flaky; log:\n%s", rec)
	}
}

func TestJobPanicKeepsSchedulerRunning(t *testing.T) {
	logger, rec := newLogger()
	var steady atomic.Int64
	s := newScheduler(t, Options{Logger: logger},
		Job{Name: "explode", Interval: 50 * time.Millisecond, Run: func(context.Context) error {
			panic("kaboom")
		}},
		counting("steady", &steady),
	)
	s.Start()

	waitFor(t, "explode to panic twice", func() bool { return status(t, s, "explode").Failures >= 2 })
	n := steady.Load()
	waitFor(t, "steady to keep running", func() bool { return steady.Load() >= n+3 })

	st := status(t, s, "explode")
	if st.LastError != "panic: kaboom" {
		t.Errorf("Status().LastError = %q, want %q", st.LastError, "panic: kaboom")
	}
	panics := rec.records(t, "job.panic", map[string]any{"level": "ERROR", "job": "explode", "err": "panic: kaboom"})
	if len(panics) < 2 {
		t.Fatalf("job.panic records = %d, want at least 2; log:\n%s", len(panics), rec)
	}
	if stack, _ := panics[0]["stack"].(string); !strings.Contains(stack, "TestJobPanicKeepsSchedulerRunning") {
		t.Errorf("job.panic stack = %q, want the panicking function in it", stack)
	}
	if got := status(t, s, "steady"); got.Failures != 0 {
		t.Errorf("steady Status().Failures = %d, want 0", got.Failures)
	}
}

func TestSingleton(t *testing.T) {
	var running, maxRunning, runs atomic.Int64
	s := newScheduler(t, Options{}, Job{
		Name:     "slow",
		Interval: 10 * time.Millisecond,
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
			time.Sleep(100 * time.Millisecond) // ten ticks
			return nil
		},
	})
	s.Start()

	// RunNow while it runs is refused rather than overlapping.
	waitFor(t, "the job to run", func() bool { return status(t, s, "slow").Running })
	waitFor(t, "RunNow to find the job running", func() bool {
		// Between two runs RunNow may start one, which is fine too.
		return errors.Is(s.RunNow("slow"), ErrRunning)
	})
	waitFor(t, "5 runs", func() bool { return runs.Load() >= 5 })
	if got := maxRunning.Load(); got != 1 {
		t.Errorf("at most %d runs of slow at once, want 1", got)
	}
}

func TestRunNow(t *testing.T) {
	var n atomic.Int64
	job := Job{Name: "manual", Interval: time.Hour, Run: func(context.Context) error {
		n.Add(1)
		return nil
	}}
	s := newScheduler(t, Options{}, job)
	s.Start()

	if err := s.RunNow("manual"); err != nil {
		t.Fatalf("RunNow(manual) = %v, want nil", err)
	}
	waitFor(t, "the manual run", func() bool { return status(t, s, "manual").Runs == 1 })
	if got := n.Load(); got != 1 {
		t.Errorf("job ran %d times, want 1", got)
	}

	err := s.RunNow("nope")
	if !errors.Is(err, ErrUnknownJob) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("RunNow(nope) = %v, want ErrUnknownJob naming nope", err)
	}

	if err := s.Shutdown(); err != nil {
		t.Fatalf("Shutdown() = %v", err)
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
	var n atomic.Int64
	s := newScheduler(t, Options{Leader: newLeader(t, pool, 5, nil)}, counting("manual", &n))
	if err := s.RunNow("manual"); !errors.Is(err, ErrNotLeader) {
		t.Errorf("RunNow(manual) on a follower = %v, want ErrNotLeader", err)
	}
	if err := other.Close(ctx); err != nil {
		t.Fatalf("other.Close() = %v", err)
	}
	if err := s.RunNow("manual"); err != nil {
		t.Errorf("RunNow(manual) once the lock is free = %v, want nil", err)
	}
	waitFor(t, "the manual run", func() bool { return n.Load() == 1 })
}

func TestRunTimeout(t *testing.T) {
	logger, rec := newLogger()
	s := newScheduler(t, Options{Logger: logger}, Job{
		Name:     "stuck",
		Interval: time.Hour,
		Timeout:  50 * time.Millisecond,
		Run: func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		},
	})
	if err := s.RunNow("stuck"); err != nil {
		t.Fatalf("RunNow(stuck) = %v", err)
	}
	waitFor(t, "the run to time out", func() bool { return status(t, s, "stuck").Failures == 1 })
	if got := status(t, s, "stuck").LastError; got != context.DeadlineExceeded.Error() {
		t.Errorf("Status().LastError = %q, want %q", got, context.DeadlineExceeded)
	}
	if got := rec.records(t, "job.failed", map[string]any{"job": "stuck"}); len(got) != 1 {
		t.Errorf("job.failed records for stuck = %d, want 1; log:\n%s", len(got), rec)
	}
}

func TestShutdownCancelsAndWaits(t *testing.T) {
	logger, rec := newLogger()
	started := make(chan struct{})
	var returned atomic.Bool
	s, err := NewScheduler(Options{Logger: logger}, Job{
		Name:     "long",
		Interval: 20 * time.Millisecond,
		Run: func(ctx context.Context) error {
			select {
			case started <- struct{}{}:
			default:
			}
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond) // some cleanup Shutdown must wait for
			returned.Store(true)
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatalf("NewScheduler() = %v", err)
	}
	s.Start()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("timed out after 10s waiting for the job to start")
	}
	if err := s.Shutdown(); err != nil {
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
	start := time.Now()
	s.Start()
	// Ticks fall on multiples of the interval.
	next := status(t, s, "b").NextRun
	if want := start.Truncate(time.Hour).Add(time.Hour); !next.Equal(want) && !next.Equal(want.Add(time.Hour)) {
		t.Errorf("NextRun = %v, want the next whole hour %v", next, want)
	}
	waitFor(t, "a to run", func() bool { return status(t, s, "a").Runs >= 1 })
	if st := status(t, s, "a"); st.LastRun.IsZero() || st.LastError != "" {
		t.Errorf("Status() of a = %+v, want LastRun set and no error", st)
	}
}

type recordingMetrics struct {
	mu   sync.Mutex
	runs map[string][]error
}

func (m *recordingMetrics) ObserveRun(job string, _ time.Duration, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs[job] = append(m.runs[job], err)
}

func (m *recordingMetrics) count(job string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.runs[job])
}

func TestMetrics(t *testing.T) {
	m := &recordingMetrics{runs: map[string][]error{}}
	s := newScheduler(t, Options{Metrics: m},
		Job{Name: "ok", Interval: time.Hour, Run: func(context.Context) error { return nil }},
		Job{Name: "bad", Interval: time.Hour, Run: func(context.Context) error { return errors.New("no") }},
	)
	for _, name := range []string{"ok", "bad"} {
		if err := s.RunNow(name); err != nil {
			t.Fatalf("RunNow(%s) = %v", name, err)
		}
	}
	waitFor(t, "both runs observed", func() bool { return m.count("ok") == 1 && m.count("bad") == 1 })
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.runs["ok"][0] != nil || m.runs["bad"][0] == nil {
		t.Errorf("observed errors = %v, want nil for ok and an error for bad", m.runs)
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
