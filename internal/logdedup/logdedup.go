// Package logdedup keeps a burst of identical warnings and errors from
// filling the log. While PostgreSQL is down every request fails the same
// way, and each failure logs the same lines: a 10 s outage under 100
// requests a second wrote about 2,000 ERROR lines, all alike.
//
// A Handler wraps another slog.Handler. A record at or above its level (WARN
// by default) is written when it is the first of its kind; its repeats
// within the interval that follows (10 s by default) are counted, not
// written; when the interval ends, one record with the same level, message
// and attributes says how many there were (repeated=N
// repeated_within=10s), and a new interval begins. An interval without a
// repeat ends the burst: the next record of that kind is written again.
// Records below the level pass untouched.
//
// Two records are of one kind when they have the same level, message and
// attributes (those of the logger's With and WithGroup included), leaving
// out the attributes that differ from request to request by nature (a
// latency, a request's path; see DefaultIgnore).
package logdedup

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultInterval is how long repeats are counted before a summary.
const DefaultInterval = 10 * time.Second

// DefaultMaxKinds bounds how many kinds of record are tracked at once;
// records of a kind beyond it are written as they come.
const DefaultMaxKinds = 1000

// DefaultIgnore are the attribute keys left out when records are compared:
// the request log's latency and URI, the path errors name (it carries ids
// and scopes), a job's duration, a request id.
var DefaultIgnore = []string{"latency", "uri", "path", "duration", "request_id"}

// Options configure a Handler. The zero value is the default.
type Options struct {
	// Interval is how long repeats are counted; 0 means DefaultInterval.
	Interval time.Duration
	// Level is the lowest level deduplicated; nil means slog.LevelWarn.
	Level slog.Leveler
	// Ignore are the attribute keys, at any depth, left out when records
	// are compared; nil means DefaultIgnore, an empty slice none.
	Ignore []string
	// MaxKinds bounds the kinds tracked at once; 0 means DefaultMaxKinds.
	MaxKinds int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// AfterFunc runs f once d has passed, to write the summary of a burst
	// that no later record brings out; nil means time.AfterFunc.
	AfterFunc func(d time.Duration, f func())
}

// Handler is a slog.Handler that writes each burst of identical records
// once, then a count of its repeats per interval. It is safe for concurrent
// use; handlers derived with WithAttrs and WithGroup share its counts.
type Handler struct {
	inner  slog.Handler
	st     *state
	prefix string // the identity of the attributes and groups added to the logger
}

// state is what a Handler and the handlers derived from it share.
type state struct {
	interval  time.Duration
	level     slog.Leveler
	ignore    map[string]bool
	max       int
	now       func() time.Time
	afterFunc func(time.Duration, func())

	mu     sync.Mutex
	kinds  map[[32]byte]*burst
	next   time.Time // the earliest end of an interval; zero when none
	armed  bool      // a timer will call fire
	report time.Time // when the armed timer fires
}

// burst is one kind of record seen in the current interval.
type burst struct {
	handler slog.Handler // the inner handler (with the logger's attributes) that writes its summary
	level   slog.Level
	msg     string
	attrs   []slog.Attr // the record's attributes, less the ignored ones
	end     time.Time   // the end of the current interval
	count   int         // repeats in the current interval, not written
}

// New returns a Handler writing to inner.
func New(inner slog.Handler, opts Options) *Handler {
	st := &state{
		interval: opts.Interval, level: opts.Level, max: opts.MaxKinds, now: opts.Now, afterFunc: opts.AfterFunc,
		ignore: map[string]bool{}, kinds: map[[32]byte]*burst{},
	}
	if st.interval <= 0 {
		st.interval = DefaultInterval
	}
	if st.level == nil {
		st.level = slog.LevelWarn
	}
	if st.max <= 0 {
		st.max = DefaultMaxKinds
	}
	if st.now == nil {
		st.now = time.Now
	}
	if st.afterFunc == nil {
		st.afterFunc = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
	}
	ignore := opts.Ignore
	if ignore == nil {
		ignore = DefaultIgnore
	}
	for _, k := range ignore {
		st.ignore[k] = true
	}
	return &Handler{inner: inner, st: st}
}

// Enabled reports whether the inner handler handles records at level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

// WithAttrs returns a Handler whose records carry attrs, sharing h's counts.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	var b strings.Builder
	b.WriteString(h.prefix)
	appendAttrs(&b, h.st.kept(attrs))
	return &Handler{inner: h.inner.WithAttrs(attrs), st: h.st, prefix: b.String()}
}

// WithGroup returns a Handler whose records' attributes are in group name,
// sharing h's counts.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &Handler{inner: h.inner.WithGroup(name), st: h.st, prefix: h.prefix + "[" + strconv.Quote(name) + "]"}
}

// Handle writes r unless it repeats a record of its kind written within
// the interval; it first writes the summaries of the intervals that have
// ended.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	st := h.st
	if r.Level < st.level.Level() {
		return h.inner.Handle(ctx, r)
	}
	attrs := make([]slog.Attr, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, a)
		return true
	})
	attrs = st.kept(attrs)
	var b strings.Builder
	b.WriteString(h.prefix)
	b.WriteString("\x00")
	b.WriteString(r.Level.String())
	b.WriteString("\x00")
	b.WriteString(r.Message)
	b.WriteString("\x00")
	appendAttrs(&b, attrs)
	key := sha256.Sum256([]byte(b.String()))

	now := st.now()
	st.mu.Lock()
	due := st.collect(now)
	repeat := false
	if k, ok := st.kinds[key]; ok {
		repeat = true
		k.count++
		st.arm(now, k.end)
	} else if len(st.kinds) < st.max {
		end := now.Add(st.interval)
		st.kinds[key] = &burst{handler: h.inner, level: r.Level, msg: r.Message, attrs: attrs, end: end}
		if st.next.IsZero() || end.Before(st.next) {
			st.next = end
		}
	}
	st.mu.Unlock()
	err := st.write(due, now)
	if repeat {
		return err
	}
	return h.inner.Handle(ctx, r)
}

// Flush writes now the summaries of every burst with repeats not yet
// counted, and forgets every burst: the next record of each kind is
// written. A process may call it before it exits.
func (h *Handler) Flush() {
	st := h.st
	now := st.now()
	st.mu.Lock()
	var due []*burst
	for key, k := range st.kinds {
		if k.count > 0 {
			due = append(due, k)
		}
		delete(st.kinds, key)
	}
	st.next = time.Time{}
	st.mu.Unlock()
	_ = st.write(due, now)
}

// collect ends the intervals ended at now and returns, each with its
// count, the bursts whose summary must be written; a burst with repeats
// starts a new interval with none, one without is forgotten. Called with
// st.mu held.
func (st *state) collect(now time.Time) []*burst {
	if st.next.IsZero() || now.Before(st.next) {
		return nil
	}
	var due []*burst
	st.next = time.Time{}
	for key, k := range st.kinds {
		if now.Before(k.end) {
			if st.next.IsZero() || k.end.Before(st.next) {
				st.next = k.end
			}
			continue
		}
		if k.count == 0 {
			delete(st.kinds, key)
			continue
		}
		c := *k
		due = append(due, &c)
		k.count, k.end = 0, now.Add(st.interval)
		if st.next.IsZero() || k.end.Before(st.next) {
			st.next = k.end
		}
	}
	return due
}

// arm makes sure that a timer brings out the summary of an interval ending
// at end, should no record come after it. Called with st.mu held.
func (st *state) arm(now, end time.Time) {
	if st.armed && !st.report.After(end) {
		return
	}
	st.armed, st.report = true, end
	st.afterFunc(end.Sub(now), st.fire)
}

// fire writes the summaries of the intervals ended, and arms the timer
// again for a burst that has repeats in an interval still running.
func (st *state) fire() {
	now := st.now()
	st.mu.Lock()
	st.armed = false
	due := st.collect(now)
	var end time.Time
	for _, k := range st.kinds {
		if k.count > 0 && (end.IsZero() || k.end.Before(end)) {
			end = k.end
		}
	}
	if !end.IsZero() {
		st.arm(now, end)
	}
	st.mu.Unlock()
	_ = st.write(due, now)
}

// write writes the summary of each burst: its record's level, message and
// attributes, with the count of its repeats.
func (st *state) write(due []*burst, now time.Time) error {
	var first error
	slices.SortFunc(due, func(a, b *burst) int { return a.end.Compare(b.end) })
	for _, k := range due {
		r := slog.NewRecord(now, k.level, k.msg, 0)
		r.AddAttrs(k.attrs...)
		r.AddAttrs(slog.Int("repeated", k.count), slog.String("repeated_within", st.interval.String()))
		if err := k.handler.Handle(context.Background(), r); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// kept returns attrs less the ignored ones (at any depth), their values
// resolved. A group left empty is left out.
func (st *state) kept(attrs []slog.Attr) []slog.Attr {
	var out []slog.Attr
	for _, a := range attrs {
		if st.ignore[a.Key] {
			continue
		}
		a.Value = a.Value.Resolve()
		if a.Value.Kind() == slog.KindGroup {
			g := st.kept(a.Value.Group())
			if len(g) == 0 {
				continue
			}
			a.Value = slog.GroupValue(g...)
		}
		out = append(out, a)
	}
	return out
}

// appendAttrs writes the identity of attrs.
func appendAttrs(b *strings.Builder, attrs []slog.Attr) {
	for _, a := range attrs {
		b.WriteString(strconv.Quote(a.Key))
		b.WriteByte('=')
		if a.Value.Kind() == slog.KindGroup {
			b.WriteByte('{')
			appendAttrs(b, a.Value.Group())
			b.WriteByte('}')
		} else {
			b.WriteString(strconv.Quote(a.Value.String()))
		}
		b.WriteByte(';')
	}
}
