package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// withTimeout is context.WithTimeout with the deadline kept by clock, so that
// the clock the Scheduler is given also decides when a run times out.
//
// With any clock but a clockwork.FakeClock it is context.WithTimeout itself:
// such a clock follows the system's time, which the standard library's
// deadline follows too. With a fake clock the context ends when the clock is
// advanced to the deadline, with context.DeadlineExceeded as on the real
// clock. Its timer stops waiting on the fake clock once the context is done,
// and before cancel returns: a finished run leaves no timer behind, and tests
// can count the timers that wait.
func withTimeout(parent context.Context, clock clockwork.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	fake, ok := clock.(*clockwork.FakeClock)
	if !ok {
		return context.WithTimeout(parent, d)
	}
	dc := &deadlineContext{parent: parent, deadline: fake.Now().Add(d), done: make(chan struct{})}
	if pd, ok := parent.Deadline(); ok && pd.Before(dc.deadline) {
		dc.deadline = pd
	}
	timer := fake.NewTimer(d)
	// The standard library's context on top carries the cancellation: it has
	// the usual Err and context.Cause, and contexts derived from it behave as
	// they do under context.WithTimeout.
	ctx, cancel := context.WithCancel(dc)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		var err error
		select {
		case <-timer.Chan():
			err = context.DeadlineExceeded
		case <-parent.Done():
			err = parent.Err()
		case <-ctx.Done():
		}
		// Stopped first, so that once the context is done its timer no
		// longer waits on the clock.
		timer.Stop()
		if err != nil {
			dc.end(err)
		}
	}()
	return ctx, func() {
		cancel()
		<-exited
	}
}

// deadlineContext ends with the error passed to end; it has the deadline it
// is given and the parent's values.
type deadlineContext struct {
	parent   context.Context
	deadline time.Time
	done     chan struct{}

	mu  sync.Mutex
	err error
}

func (c *deadlineContext) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *deadlineContext) Done() <-chan struct{}       { return c.done }
func (c *deadlineContext) Value(key any) any           { return c.parent.Value(key) }

func (c *deadlineContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// end records err and closes done; it is called once.
func (c *deadlineContext) end(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
}
