package server

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/tenurehq/tenure/replica"
)

// TestReadAfterRecordIsBounded: past its limit of callers, the record keeps
// no new entry, but raises a floor that every caller's reads see, so that a
// caller it could not record still reads its write; everything ends with
// the ttl, and the record fills again once swept.
func TestReadAfterRecordIsBounded(t *testing.T) {
	ttl := 50 * time.Millisecond
	ra := &readAfter{ttl: ttl, last: map[[sha256.Size]byte]lastWrite{}, limit: 2}
	key := func(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }
	a, b, c, d := key("a"), key("b"), key("c"), key("d")

	ra.record(a, 100)
	ra.record(b, 200)
	if got := ra.lookup(a); got != 100 {
		t.Errorf("a = %v, want 100", got)
	}
	if got := ra.lookup(d); got != 0 {
		t.Errorf("an unrecorded caller = %v, want 0 while the record has room", got)
	}
	ra.record(c, 300) // the record is full: c raises the floor
	if len(ra.last) != 2 {
		t.Fatalf("%d callers recorded, want the limit, 2", len(ra.last))
	}
	for name, k := range map[string][sha256.Size]byte{"a": a, "b": b, "c": c, "d": d} {
		if got := ra.lookup(k); got != 300 {
			t.Errorf("%s = %v after a caller found the record full, want the floor 300", name, got)
		}
	}
	ra.record(a, 150) // a recorded caller keeps its own entry
	ra.record(d, 250) // the floor never goes back
	if got := ra.lookup(b); got != 300 {
		t.Errorf("b = %v, want 300", got)
	}
	time.Sleep(2 * ttl)
	for name, k := range map[string][sha256.Size]byte{"a": a, "d": d} {
		if got := ra.lookup(k); got != 0 {
			t.Errorf("%s = %v past the ttl, want 0", name, got)
		}
	}
	ra.record(d, 400) // sweeps the old entries, then has room for d
	if _, ok := ra.last[d]; !ok || len(ra.last) != 1 {
		t.Errorf("after the sweep the record holds %d callers (d recorded: %t), want d alone", len(ra.last), ok)
	}
	if got := ra.lookup(d); got != replica.LSN(400) {
		t.Errorf("d = %v, want 400", got)
	}
}
