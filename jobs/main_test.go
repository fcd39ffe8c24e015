package jobs

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// logRecorder captures JSON slog output so tests can assert on log records.
type logRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *logRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

// newLogger returns a Debug-level logger writing into a fresh recorder.
func newLogger() (*slog.Logger, *logRecorder) {
	r := &logRecorder{}
	return slog.New(slog.NewJSONHandler(r, &slog.HandlerOptions{Level: slog.LevelDebug})), r
}

// records returns the records logged so far whose msg is msg and whose
// attributes include every key/value pair in attrs.
func (r *logRecorder) records(t *testing.T, msg string, attrs map[string]any) []map[string]any {
	t.Helper()
	r.mu.Lock()
	text := r.buf.String()
	r.mu.Unlock()
	var out []map[string]any
	for line := range strings.Lines(text) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] != msg {
			continue
		}
		match := true
		for k, v := range attrs {
			if rec[k] != v {
				match = false
			}
		}
		if match {
			out = append(out, rec)
		}
	}
	return out
}

func (r *logRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

// wait bounds how long a test waits for another goroutine, or for the
// database, to get somewhere. Only a failing test waits that long, so it is
// generous: the machine running the tests may be slow and shared.
const wait = 10 * time.Second

// receive returns the next value sent on ch, failing the test if none comes
// within wait.
func receive[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out after %v waiting for %s", wait, what)
	}
	var zero T
	return zero
}
