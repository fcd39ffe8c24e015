package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
)

// TestBoundsOneSentence checks that a number past its bound is refused with
// the engine's one sentence, naming the argument, whether or not the tool's
// Go input type could hold it (the SDK's schema validation would otherwise
// answer for the ones it cannot), and that times past the bounds are refused
// before the engine could read Go's zero time as "now".
func TestBoundsOneSentence(t *testing.T) {
	f := newMCPFixture(t)
	cs := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenWriter))
	const (
		ttl  = "is out of range: use a whole number of seconds from 1 to 31536000 (365 days)"
		unit = "is out of range: use 0, or a number from 0.001 to 1"
		when = "is out of range: use a time from 1970-01-01T00:00:00Z to 9000-01-01T00:00:00Z"
	)
	for _, c := range []struct {
		tool, args, want string
	}{
		{"remember", `{"content": "x", "ttl_seconds": 31536001}`, "ttl_seconds: 31536001 " + ttl},
		{"remember", `{"content": "x", "ttl_seconds": 2147483648}`, "ttl_seconds: 2147483648 " + ttl},
		{"remember", `{"content": "x", "ttl_seconds": 1e30}`, "ttl_seconds: 1e30 " + ttl},
		{"remember", `{"content": "x", "ttl_seconds": 1.5}`, "ttl_seconds: 1.5 " + ttl},
		{"remember", `{"rows": [{"content": "x"}, {"content": "y", "ttl_seconds": 0}]}`, "rows[1].ttl_seconds: 0 " + ttl},
		{"remember", `{"content": "x", "importance": 5e-324}`, "importance: 5e-324 " + unit},
		{"remember", `{"content": "x", "properties": {"confidence": 5e-324}}`, "properties.confidence: 5e-324 " + unit},
		{"remember", `{"content": "x", "properties": {"deadline": "9999-12-31T23:59:59Z"}}`, "properties.deadline: 9999-12-31T23:59:59Z " + when},
		{"record_decision", `{"entity": "Ann", "key": "db", "decision": "PG", "reasoning": "r", "decided_at": "0001-01-01T00:00:00Z"}`, "decided_at: 0001-01-01T00:00:00Z " + when},
		{"context", `{"format": "json", "since": "9999-12-31T23:59:59-23:59"}`, "since: 9999-12-31T23:59:59-23:59 " + when},
	} {
		msg := callError(t, cs, c.tool, json.RawMessage(c.args))
		if !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s(%s) error = %q, want %q", c.tool, c.args, msg, c.want)
		}
	}
	if n := f.count(t, "SELECT count(*) FROM memory_nodes"); n != 0 {
		t.Errorf("rows after refused calls = %d, want 0", n)
	}
	if n := f.count(t, "SELECT count(*) FROM decisions"); n != 0 {
		t.Errorf("decisions after refused calls = %d, want 0", n)
	}
	// At the bounds, accepted.
	call(t, cs, "remember", json.RawMessage(`{"content": "x", "ttl_seconds": 31536000, "importance": 0.001,
		"properties": {"confidence": 0, "deadline": "9000-01-01T00:00:00Z"}}`), nil)
}
