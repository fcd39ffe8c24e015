package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// TestRefusalsNameArgumentAsSent checks the refusals the schema walk
// (TestEverySchemaBoundEnforced) cannot make up on its own: a batch of one
// row names rows[0], a zero limit is refused rather than read as the
// default, an id below 1 is out of range rather than not found, and the
// refusal of an already promoted row names node_id, the argument given.
func TestRefusalsNameArgumentAsSent(t *testing.T) {
	f := newMCPFixture(t)
	cs := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenWriter))
	long := strings.Repeat("x", 10001)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string // the refusal's start
	}{
		{"recall", map[string]any{"limit": 0}, "limit: limit 0 is out of range: use 1 to 100"},
		{"list_decisions", map[string]any{"limit": 0}, "limit: limit 0 is out of range: use 1 to 500"},
		{"list_decisions", map[string]any{"before_id": -1}, "before_id: "},
		{"remember", map[string]any{"rows": []any{}}, "rows: rows is empty"},
		{"remember", map[string]any{"rows": []any{map[string]any{"durability": "transient"}}}, "rows[0].content: content is required"},
		{"remember", map[string]any{"rows": []any{map[string]any{"content": "a"}, map[string]any{}}}, "rows[1].content: content is required"},
		{"remember", map[string]any{"rows": []any{map[string]any{"content": long}}}, "rows[0].content: "},
		{"remember", map[string]any{"rows": []any{map[string]any{"content": " "}}}, "rows[0].content: content is empty"},
		{"remember", map[string]any{"rows": []any{map[string]any{"content": "a", "durability": "forever"}}}, "rows[0].durability: "},
		{"remember", map[string]any{"content": "a", "durability": "forever"}, "durability: "},
		{"remember", map[string]any{"content": "a", "idempotency_key": ""}, "idempotency_key: the idempotency key is empty"},
		{"set_durability", map[string]any{"node_id": 0, "durability": "durable"}, "node_id: 0 is out of range"},
		{"set_durability", map[string]any{"durability": "durable"}, "node_id: node_id is required"},
		{"forget", map[string]any{"fact_id": 0, "reason": "wrong"}, "fact_id: 0 is out of range"},
		{"correct", map[string]any{"fact_id": 999, "durability": "forever", "reason": "wrong"}, "durability: unknown durability"},
	} {
		if msg := callError(t, cs, c.tool, c.args); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s(%s) error = %q, want %q…", c.tool, brief(c.args), msg, c.want)
		}
	}
	if n := f.count(t, "SELECT count(*) FROM memory_nodes"); n != 0 {
		t.Errorf("rows after refused calls = %d, want 0", n)
	}

	// A row consolidation promoted keeps its marker: the refusal names
	// node_id, not the engine's ids.
	var out struct {
		IDs []int64 `json:"ids"`
	}
	call(t, cs, "remember", map[string]any{"content": "Ann lives in Hamburg.", "properties": map[string]any{"entity": "Ann", "key": "home_city"}}, &out)
	if _, err := f.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	msg := callError(t, cs, "set_durability", map[string]any{"node_id": out.IDs[0], "durability": "expired"})
	if !strings.HasPrefix(msg, "node_id: ") || !strings.Contains(msg, "already promoted") {
		t.Errorf("set_durability(promoted row) error = %q, want it to name node_id", msg)
	}
}
