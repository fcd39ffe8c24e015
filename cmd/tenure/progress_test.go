package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestProgressJSONLines: away from a terminal, progress is one JSON object
// per line, at most once per interval within a phase, at every new phase,
// and once at the end with final set.
func TestProgressJSONLines(t *testing.T) {
	var out bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newProgress(&environment{stderr: &out}, "import", false)
	p.now = func() time.Time { return now }
	p.set("read", "bytes", 0, 1000, map[string]int64{"lines": 0})
	now = now.Add(500 * time.Millisecond)
	p.set("read", "bytes", 100, 1000, map[string]int64{"lines": 10}) // within the interval: not written
	now = now.Add(600 * time.Millisecond)
	p.set("read", "bytes", 250, 1000, map[string]int64{"lines": 25})
	now = now.Add(100 * time.Millisecond)
	p.set("write", "facts", 0, -1, nil)
	now = now.Add(2 * time.Second)
	p.set("write", "facts", 40, -1, nil)
	p.finish()
	p.finish()

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("progress wrote %d lines, want 5:\n%s", len(lines), out.String())
	}
	var recs []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("progress line %q is not JSON: %v", l, err)
		}
		if m["progress"] != "import" {
			t.Errorf("line %q does not name its task", l)
		}
		recs = append(recs, m)
	}
	r := recs[1] // read: 250 of 1000 bytes after 1.1 s
	if r["phase"] != "read" || r["done"] != 250.0 || r["total"] != 1000.0 || r["unit"] != "bytes" || r["lines"] != 25.0 ||
		r["elapsed_s"] != 1.1 || r["rate"] != 227.27 || r["eta_s"] != 3.3 {
		t.Errorf("read record = %v", r)
	}
	if w := recs[2]; w["phase"] != "write" || w["total"] != nil || w["eta_s"] != nil {
		t.Errorf("a phase of unknown total = %v, want no total and no eta", w)
	}
	if f := recs[4]; f["final"] != true || f["done"] != 40.0 || f["rate"] != 20.0 {
		t.Errorf("final record = %v", f)
	}
}
