package jobs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// summaries returns the History's summaries by job name.
func summaries(t *testing.T, h *History) map[string]Summary {
	t.Helper()
	list, err := h.Summaries(context.Background())
	if err != nil {
		t.Fatalf("Summaries() = %v", err)
	}
	out := make(map[string]Summary, len(list))
	for _, s := range list {
		out[s.Name] = s
	}
	return out
}

// TestHistoryRecordsRuns: a Scheduler with a History records its jobs when
// it starts and every run when it ends, where another process (a restart,
// another replica) reads the same totals.
func TestHistoryRecordsRuns(t *testing.T) {
	pool := pgtest.NewPool(t)
	h := NewHistory(pool)
	clock := fakeClock()
	jobs := []Job{
		{Name: "ok", Interval: time.Minute, Run: func(context.Context) error {
			clock.Advance(2 * time.Second) // the run takes 2 s on the scheduler's clock
			return nil
		}},
		{Name: "bad", Interval: time.Minute, Run: func(context.Context) error { return errors.New("no route to the moon") }},
		{Name: "idle", Interval: 24 * time.Hour, Run: func(context.Context) error { return nil }},
	}
	first := newScheduler(t, Options{Clock: clock, Recorder: h}, jobs...)
	first.Start()
	got := summaries(t, h)
	for _, j := range jobs {
		s, ok := got[j.Name]
		if !ok || s.Runs != 0 || s.Failures != 0 || !s.LastStarted.IsZero() || s.Interval != j.Interval {
			t.Errorf("summary of %s after Start = %+v (listed %v), want it listed with its interval and no run", j.Name, s, ok)
		}
	}

	if err := first.RunNow("ok"); err != nil {
		t.Fatalf("RunNow(ok) = %v", err)
	}
	if err := first.Shutdown(); err != nil { // waits for the run
		t.Fatalf("Shutdown() = %v", err)
	}
	got = summaries(t, h)
	ok := got["ok"]
	if ok.Runs != 1 || ok.Failures != 0 || !ok.LastStarted.Equal(epoch) || !ok.LastFinished.Equal(epoch.Add(2*time.Second)) ||
		!ok.LastSuccess.Equal(epoch.Add(2*time.Second)) || ok.LastDuration != 2*time.Second || ok.LastError != "" {
		t.Errorf("summary of ok = %+v, want 1 run from %v, 2 s long, successful", ok, epoch)
	}
	if ok.RunningAt(clock.Now()) {
		t.Error("ok reads as running after its run ended")
	}

	// A new process, as after a restart, starts with no runs of its own;
	// the record keeps counting from where it was.
	second := newScheduler(t, Options{Clock: clock, Recorder: h}, jobs...)
	second.Start()
	if st := status(t, second, "ok"); st.Runs != 0 {
		t.Fatalf("the new Scheduler's own Status has %d runs, want 0", st.Runs)
	}
	for _, name := range []string{"ok", "bad"} {
		if err := second.RunNow(name); err != nil {
			t.Fatalf("RunNow(%s) = %v", name, err)
		}
	}
	if err := second.Shutdown(); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	got = summaries(t, h)
	if ok := got["ok"]; ok.Runs != 2 || ok.Failures != 0 || !ok.LastSuccess.After(epoch.Add(2*time.Second)) {
		t.Errorf("summary of ok after a run in the second process = %+v, want 2 runs and a later success", ok)
	}
	bad := got["bad"]
	if bad.Runs != 1 || bad.Failures != 1 || bad.LastError != "no route to the moon" || !bad.LastSuccess.IsZero() ||
		bad.LastStarted.IsZero() || bad.LastFinished.Before(bad.LastStarted) {
		t.Errorf("summary of bad = %+v, want 1 failed run with its error and no success", bad)
	}
	if idle := got["idle"]; idle.Runs != 0 || !idle.LastStarted.IsZero() || idle.Interval != 24*time.Hour {
		t.Errorf("summary of idle = %+v, want no run", idle)
	}
}

// TestHistoryRunning: a run under way reads as running on every replica
// until it ends, or, if its process died, until its timeout.
func TestHistoryRunning(t *testing.T) {
	pool := pgtest.NewPool(t)
	h := NewHistory(pool)
	started, release := make(chan struct{}), make(chan struct{})
	s := newScheduler(t, Options{Recorder: h}, Job{Name: "slow", Interval: time.Minute, Timeout: 5 * time.Minute,
		Run: func(context.Context) error {
			close(started)
			<-release
			return nil
		}})
	if err := s.RunNow("slow"); err != nil {
		t.Fatalf("RunNow(slow) = %v", err)
	}
	receive(t, "the run to start", started)
	slow := summaries(t, h)["slow"]
	if !slow.RunningAt(epoch) || !slow.LastStarted.Equal(epoch) || !slow.RunningUntil.Equal(epoch.Add(5*time.Minute)) {
		t.Errorf("summary during the run = %+v, want running since %v until its timeout", slow, epoch)
	}
	if slow.RunningAt(epoch.Add(5 * time.Minute)) {
		t.Error("a run reads as running past its timeout")
	}
	close(release)
	if err := s.Shutdown(); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	if slow := summaries(t, h)["slow"]; slow.RunningAt(epoch) || slow.Runs != 1 {
		t.Errorf("summary after the run = %+v, want 1 run, not running", slow)
	}
}

// TestHistoryOutOfOrder: when two replicas' runs overlap (a change of
// leader), the record's times only move forward, whatever order the runs
// are recorded in.
func TestHistoryOutOfOrder(t *testing.T) {
	ctx := context.Background()
	h := NewHistory(pgtest.NewPool(t))
	early := Run{Job: "j", Interval: time.Minute, Started: epoch, Deadline: epoch.Add(time.Hour)}
	late := Run{Job: "j", Interval: time.Minute, Started: epoch.Add(time.Minute), Deadline: epoch.Add(time.Hour)}
	for _, step := range []func() error{
		func() error { return h.Started(ctx, early) },
		func() error { return h.Started(ctx, late) },
		func() error {
			late.Finished = late.Started.Add(time.Second)
			return h.Finished(ctx, late)
		},
		func() error {
			early.Finished, early.Err = epoch.Add(30*time.Second), errors.New("lost the lock")
			return h.Finished(ctx, early)
		},
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	j := summaries(t, h)["j"]
	if j.Runs != 2 || j.Failures != 1 || !j.LastStarted.Equal(late.Started) || !j.LastFinished.Equal(late.Finished) ||
		!j.LastSuccess.Equal(late.Finished) {
		t.Errorf("summary = %+v, want 2 runs, 1 failure, the later run's start, end and success", j)
	}
	if j.LastError != "" || j.LastDuration != time.Second {
		t.Errorf("latest error %q and duration %v, want the later run's (none, 1s), not the earlier run recorded after it", j.LastError, j.LastDuration)
	}
}

// TestHistoryClipsErrors: a long error is recorded cut, on a character.
func TestHistoryClipsErrors(t *testing.T) {
	ctx := context.Background()
	h := NewHistory(pgtest.NewPool(t))
	long := strings.Repeat("é", maxErrorBytes)
	if err := h.Finished(ctx, Run{Job: "j", Interval: time.Minute, Started: epoch, Finished: epoch, Err: errors.New(long)}); err != nil {
		t.Fatal(err)
	}
	got := summaries(t, h)["j"].LastError
	if len(got) > maxErrorBytes || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("recorded error is %d bytes (valid UTF-8 %v), want at most %d, cut on a character and marked", len(got), utf8.ValidString(got), maxErrorBytes)
	}
	// Bytes PostgreSQL's text refuses (invalid UTF-8, NUL) do not lose the run.
	if err := h.Finished(ctx, Run{Job: "k", Interval: time.Minute, Started: epoch, Finished: epoch, Err: errors.New("bad \xff byte and \x00 nul")}); err != nil {
		t.Fatalf("Finished(an error with invalid bytes) = %v", err)
	}
	if k := summaries(t, h)["k"]; k.Runs != 1 || k.Failures != 1 || !utf8.ValidString(k.LastError) || !strings.Contains(k.LastError, "byte and") {
		t.Errorf("run with an error of invalid bytes recorded as %+v", k)
	}
}

// TestHistoryInterruptedIsNoFailure: a run the process's shutdown cancelled
// is recorded, with why, but is not counted as a failure.
func TestHistoryInterruptedIsNoFailure(t *testing.T) {
	ctx := context.Background()
	h := NewHistory(pgtest.NewPool(t))
	run := Run{Job: "j", Interval: time.Minute, Started: epoch, Finished: epoch.Add(time.Second), Err: context.Canceled, Interrupted: true}
	if err := h.Finished(ctx, run); err != nil {
		t.Fatal(err)
	}
	j := summaries(t, h)["j"]
	if j.Runs != 1 || j.Failures != 0 || !strings.HasPrefix(j.LastError, "interrupted as its process shut down") || !j.LastSuccess.IsZero() {
		t.Errorf("an interrupted run recorded as %+v, want 1 run, no failure, no success, the interruption named", j)
	}
}
