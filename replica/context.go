package replica

import (
	"context"
	"math"
	"sync/atomic"
)

// MaxLSN is a minimum position that only the primary meets: Pick(MaxLSN)
// and Read(ctx, MaxLSN, fn) always use the primary. It stands for a write
// whose position is not known.
const MaxLSN LSN = math.MaxUint64

// readsKey is the context key of *reads.
type readsKey struct{}

// reads is what a context says of the reads made under it: the position
// they must see, whether they must go to the primary, and how many writes
// were noted under it. It is shared by every context derived from the one
// WithMinLSN returned.
type reads struct {
	min     LSN
	primary atomic.Bool
	writes  atomic.Int64
}

// WithMinLSN returns a copy of ctx under which reads may go to a standby
// that has replayed at least lsn (0 asks for nothing), and under which
// writes are noted (NoteWrite). A reader such as memory.Store routes a
// read to a standby only under such a context; every other read goes to
// the primary, so that only the callers that have said what they must see
// (the HTTP server does, for each request) read from standbys.
func WithMinLSN(ctx context.Context, lsn LSN) context.Context {
	return context.WithValue(ctx, readsKey{}, &reads{min: lsn})
}

// MinLSN returns the position reads under ctx must see, as given to
// WithMinLSN. ok is false when they must go to the primary: ctx was not
// made by WithMinLSN, or UsePrimary or NoteWrite was called under it.
func MinLSN(ctx context.Context) (lsn LSN, ok bool) {
	r, _ := ctx.Value(readsKey{}).(*reads)
	if r == nil || r.primary.Load() {
		return 0, false
	}
	return r.min, true
}

// UsePrimary sends the reads made under ctx from now on to the primary: a
// request that is about to write reads what it checks before writing from
// where it writes. It does nothing under a context not made by
// WithMinLSN.
func UsePrimary(ctx context.Context) {
	if r, _ := ctx.Value(readsKey{}).(*reads); r != nil {
		r.primary.Store(true)
	}
}

// NoteWrite records that a write was made under ctx, to be called once it
// has committed (or failed): later reads under ctx go to the primary,
// which holds the write (its position is not known here), and Writes
// counts it, so that the caller can take the position after it with
// Router.CurrentLSN. It does nothing under a context not made by
// WithMinLSN.
func NoteWrite(ctx context.Context) {
	if r, _ := ctx.Value(readsKey{}).(*reads); r != nil {
		r.primary.Store(true)
		r.writes.Add(1)
	}
}

// Writes returns how many writes were noted under ctx (NoteWrite).
func Writes(ctx context.Context) int64 {
	if r, _ := ctx.Value(readsKey{}).(*reads); r != nil {
		return r.writes.Load()
	}
	return 0
}
