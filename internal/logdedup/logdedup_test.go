package logdedup_test

import (
	"bytes"
	"errors"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/logdedup"
)

// clock is a fake clock: timers run, in the caller's goroutine, when
// Advance passes their time.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []timer
}

type timer struct {
	at time.Time
	f  func()
}

func newClock() *clock { return &clock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) AfterFunc(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, timer{at: c.now.Add(d), f: f})
}

// Advance moves the clock on by d and runs the timers due by then.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
		} else {
			due = append(due, t.f)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// pending is the number of timers not yet run.
func (c *clock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// output is what the inner handler wrote, line by line.
type output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *output) lines() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := strings.TrimSpace(o.buf.String())
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// newLogger returns a logger through a Handler on c, writing text lines
// without their time to the returned output.
func newLogger(c *clock, opts logdedup.Options) (*slog.Logger, *logdedup.Handler, *output) {
	out := &output{}
	inner := slog.NewTextHandler(out, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	})
	opts.Now, opts.AfterFunc = c.Now, c.AfterFunc
	h := logdedup.New(inner, opts)
	return slog.New(h), h, out
}

var repeatedRE = regexp.MustCompile(`[ .]repeated=(\d+) [a-z.]*repeated_within=10s$`)

// repeated is the count of a summary line, or -1 for another line.
func repeated(line string) int {
	m := repeatedRE.FindStringSubmatch(line)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var errDown = errors.New("failed to connect: connection refused")

// TestBurstIsWrittenOnceThenCounted: 200 identical errors within the
// interval write one line; when the interval ends, without a later record,
// one line says how many repeats there were; an interval without repeats
// ends the burst, and the next record is written again.
func TestBurstIsWrittenOnceThenCounted(t *testing.T) {
	c := newClock()
	log, _, out := newLogger(c, logdedup.Options{})
	for i := range 200 {
		log.Error("mcp.authenticate", "error", errDown, "latency", time.Duration(i)*time.Millisecond)
		c.Advance(10 * time.Millisecond) // 2 s in all
	}
	lines := out.lines()
	if len(lines) != 1 || lines[0] != `level=ERROR msg=mcp.authenticate error="failed to connect: connection refused" latency=0s` {
		t.Fatalf("200 identical errors wrote %d lines, want the first one only:\n%s", len(lines), strings.Join(lines, "\n"))
	}

	c.Advance(8 * time.Second) // the interval ends: the timer writes the count
	lines = out.lines()
	want := `level=ERROR msg=mcp.authenticate error="failed to connect: connection refused" repeated=199 repeated_within=10s`
	if len(lines) != 2 || lines[1] != want {
		t.Fatalf("after the interval: %d lines, want the summary\n%s\ngot:\n%s", len(lines), want, strings.Join(lines, "\n"))
	}
	if c.pending() != 0 {
		t.Errorf("%d timers pending with no repeat to report, want 0", c.pending())
	}

	c.Advance(10 * time.Second) // an interval without repeats: the burst ends
	log.Error("mcp.authenticate", "error", errDown, "latency", time.Second)
	lines = out.lines()
	if len(lines) != 3 || repeated(lines[2]) != -1 || !strings.Contains(lines[2], "latency=1s") {
		t.Fatalf("the first record after a quiet interval: %d lines, want it written in full:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

// TestLongBurstWritesALinePerInterval: a record a second for 35 s writes the
// first, then one summary per interval; the counts add up to every record.
func TestLongBurstWritesALinePerInterval(t *testing.T) {
	c := newClock()
	log, _, out := newLogger(c, logdedup.Options{})
	for range 35 {
		log.Warn("readyz.database", "err", errDown)
		c.Advance(time.Second)
	}
	c.Advance(10 * time.Second)
	lines := out.lines()
	var counts []int
	for _, l := range lines[1:] {
		counts = append(counts, repeated(l))
	}
	if len(lines) != 5 || repeated(lines[0]) != -1 || !equal(counts, []int{9, 10, 10, 5}) {
		t.Fatalf("35 records over 35 s: %d lines with counts %v, want the first and 4 summaries of 9, 10, 10 and 5:\n%s",
			len(lines), counts, strings.Join(lines, "\n"))
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestKinds: the request's latency, URI and path do not make records
// differ; the message, the level, the error, another attribute and the
// logger's own attributes do.
func TestKinds(t *testing.T) {
	c := newClock()
	log, h, out := newLogger(c, logdedup.Options{})
	for i := range 50 {
		log.Error("http.request", "method", "GET", "uri", "/api/v1/scopes/s"+strconv.Itoa(i)+"/facts",
			"route", "/api/v1/scopes/:scope/facts", "status", 503, "latency", time.Duration(i)*time.Microsecond)
		log.Error("api.error", "method", "GET", "path", "/api/v1/scopes/s"+strconv.Itoa(i)+"/facts", "err", errDown)
	}
	distinct := []func(){
		func() {
			log.Error("http.request", "method", "GET", "route", "/api/v1/scopes/:scope/facts", "status", 500)
		},
		func() { log.Error("api.error", "method", "GET", "err", errors.New("boom")) },
		func() { log.Error("api.error", "method", "POST", "err", errDown) },
		func() { log.Warn("api.error", "method", "GET", "err", errDown) },
		func() { log.Error("api.failure", "method", "GET", "err", errDown) },
		func() { log.With("component", "a").Error("api.error", "method", "GET", "err", errDown) },
		func() { log.With("component", "b").Error("api.error", "method", "GET", "err", errDown) },
		func() { log.WithGroup("g").Error("api.error", "method", "GET", "err", errDown) },
		func() { log.Error("api.error", slog.Group("req", "method", "GET"), "err", errDown) },
	}
	for _, f := range distinct {
		f()
		f()
	}
	lines := out.lines()
	if len(lines) != 2+len(distinct) {
		t.Fatalf("2 kinds 50 times and %d others twice wrote %d lines, want %d:\n%s",
			len(distinct), len(lines), 2+len(distinct), strings.Join(lines, "\n"))
	}
	h.Flush()
	lines = out.lines()[2+len(distinct):]
	total := 0
	for _, l := range lines {
		total += repeated(l)
	}
	if len(lines) != 2+len(distinct) || total != 2*49+len(distinct) {
		t.Fatalf("Flush wrote %d summaries counting %d repeats, want %d counting %d:\n%s",
			len(lines), total, 2+len(distinct), 2*49+len(distinct), strings.Join(lines, "\n"))
	}
	for _, want := range []string{
		`level=ERROR msg=http.request method=GET route=/api/v1/scopes/:scope/facts status=503 repeated=49 repeated_within=10s`,
		`level=ERROR msg=api.error component=a method=GET err="failed to connect: connection refused" repeated=1 repeated_within=10s`,
		`level=ERROR msg=api.error g.method=GET g.err="failed to connect: connection refused" g.repeated=1 g.repeated_within=10s`,
	} {
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("no summary %s in:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

// TestBelowTheLevelPassesThrough: INFO records are all written, and the
// level is configurable.
func TestBelowTheLevelPassesThrough(t *testing.T) {
	c := newClock()
	log, _, out := newLogger(c, logdedup.Options{})
	for range 20 {
		log.Info("http.request", "status", 200)
		log.Debug("pool.acquire")
	}
	if n := len(out.lines()); n != 40 {
		t.Errorf("20 INFO and 20 DEBUG records wrote %d lines, want 40", n)
	}
	log, _, out = newLogger(c, logdedup.Options{Level: slog.LevelError, Interval: time.Second})
	for range 20 {
		log.Warn("readyz.database", "err", errDown)
		log.Error("mcp.authenticate", "err", errDown)
	}
	if n := len(out.lines()); n != 21 {
		t.Errorf("with Level ERROR, 20 WARN and 20 ERROR records wrote %d lines, want 21", n)
	}
	c.Advance(time.Second)
	if lines := out.lines(); len(lines) != 22 || !strings.HasSuffix(lines[21], "repeated=19 repeated_within=1s") {
		t.Errorf("with Interval 1s, the summary is %q", lines[len(lines)-1])
	}
}

// TestMaxKinds: past the bound, records of new kinds are written as they
// come; no record is lost.
func TestMaxKinds(t *testing.T) {
	c := newClock()
	log, _, out := newLogger(c, logdedup.Options{MaxKinds: 2})
	for range 3 {
		for i := range 4 {
			log.Error("boom", "n", i)
		}
	}
	if n := len(out.lines()); n != 2+2*3 {
		t.Errorf("4 kinds 3 times with room for 2 wrote %d lines, want 8", n)
	}
}

// TestConcurrentRecordsAreCounted: records from many goroutines are each
// written or counted once.
func TestConcurrentRecordsAreCounted(t *testing.T) {
	c := newClock()
	log, h, out := newLogger(c, logdedup.Options{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				log.Error("api.error", "err", errDown, "kind", (g+i)%3)
				if g == 0 && i%50 == 0 {
					c.Advance(3 * time.Second)
				}
			}
		}()
	}
	wg.Wait()
	h.Flush()
	written, total := 0, 0
	for _, l := range out.lines() {
		if n := repeated(l); n >= 0 {
			total += n
		} else {
			written++
		}
	}
	if written+total != 8*250 {
		t.Errorf("%d lines written in full and %d repeats counted, want %d records in all", written, total, 8*250)
	}
	if written > 3*6 {
		t.Errorf("%d lines written in full for 3 kinds over 15 s, want a few", written)
	}
}

// TestRealClock: with the default clock and timers, the summary of a burst
// comes out once its interval has passed, without a later record.
func TestRealClock(t *testing.T) {
	out := &output{}
	log := slog.New(logdedup.New(slog.NewTextHandler(out, nil), logdedup.Options{Interval: 50 * time.Millisecond}))
	for range 10 {
		log.Error("mcp.authenticate", "err", errDown)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(out.lines()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lines := out.lines()
	if len(lines) != 2 || !strings.HasSuffix(lines[1], "repeated=9 repeated_within=50ms") {
		t.Fatalf("10 errors: %d lines, want the first and a summary of 9 repeats:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}
