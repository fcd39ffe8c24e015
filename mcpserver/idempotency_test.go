package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
)

// TestRememberWithIdempotencyKey: remember called twice with one
// idempotency_key writes once and returns the same ids and text; other
// arguments with the key are refused; another token may use the key.
func TestRememberWithIdempotencyKey(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	args := map[string]any{"content": "Ann prefers tea over coffee.", "idempotency_key": "abc-123",
		"properties": map[string]any{"entity": "Ann", "key": "drink"}}
	var first, again struct{ IDs []int64 }
	res1 := call(t, cs, "remember", args, &first)
	res2 := call(t, cs, "remember", args, &again)
	if len(first.IDs) != 1 || len(again.IDs) != 1 || first.IDs[0] != again.IDs[0] {
		t.Fatalf("ids = %v then %v, want the same one id", first.IDs, again.IDs)
	}
	if toolText(res1) != toolText(res2) {
		t.Errorf("texts differ: %q and %q", toolText(res1), toolText(res2))
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 1 {
		t.Errorf("%d working rows after two calls with one key, want 1", n)
	}

	msg := callError(t, cs, "remember", map[string]any{"content": "Ann prefers coffee.", "idempotency_key": "abc-123"})
	if !strings.Contains(msg, "idempotency_key") || !strings.Contains(msg, "another call") {
		t.Errorf("reuse refusal = %q, want it to name the key and say it was used for another call", msg)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 1 {
		t.Errorf("%d working rows after a refused reuse, want 1", n)
	}

	other := f.connect(t, f.token(t, "other", "acme", auth.TokenWriter))
	var third struct{ IDs []int64 }
	call(t, other, "remember", args, &third)
	if len(third.IDs) != 1 || third.IDs[0] == first.IDs[0] {
		t.Errorf("another token's call with the same key returned %v, want a new row", third.IDs)
	}

	callError(t, cs, "remember", map[string]any{"content": "x", "idempotency_key": strings.Repeat("k", 256)})
}

// TestRecordDecisionRefusalReplayed: a refused call is the call's answer:
// repeated with its key, the same refusal comes back, and nothing is written.
func TestRecordDecisionWithIdempotencyKey(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	args := map[string]any{"entity": "checkout", "key": "database", "decision": "Use PostgreSQL.",
		"reasoning": "Orders and payments need one transaction.", "idempotency_key": "d-1"}
	var a, b struct{ ID int64 }
	call(t, cs, "record_decision", args, &a)
	call(t, cs, "record_decision", args, &b)
	if a.ID == 0 || a.ID != b.ID {
		t.Errorf("decision ids %d then %d, want one", a.ID, b.ID)
	}
	if n := f.count(t, `SELECT count(*) FROM decisions`); n != 1 {
		t.Errorf("%d decisions, want 1", n)
	}
	bad := map[string]any{"node_id": 999999, "durability": "durable", "idempotency_key": "s-1"}
	first := callError(t, cs, "set_durability", bad)
	if again := callError(t, cs, "set_durability", bad); again != first {
		t.Errorf("repeated refusal = %q, want %q", again, first)
	}
}
