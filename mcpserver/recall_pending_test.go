package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// TestRecallPendingRow checks that a row remembered is recalled at once,
// before any consolidation: its text line says it is pending, and the
// structured content carries pending and the row's id.
func TestRecallPendingRow(t *testing.T) {
	f := newMCPFixture(t)
	if _, _, err := f.store.CreateFact(t.Context(), memory.Human("ann@example.com"), memory.NewFact{Scope: "acme", Entity: "Ann",
		Key: "lives_in", Content: "Ann lives in Berlin"}); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	var written struct {
		IDs []int64 `json:"ids"`
	}
	call(t, cs, "remember", map[string]any{"content": "Ann moved to Hamburg in March", "properties": map[string]any{"entity": "Ann"}}, &written)
	call(t, cs, "remember", map[string]any{"content": "Ann is unpacking in Hamburg", "durability": "transient"}, nil)

	var out recallOut
	res := call(t, cs, "recall", map[string]any{"query": "Where does Ann live? Hamburg"}, &out)
	if len(out.Results) != 2 || !out.Results[0].Pending || out.Results[0].NodeID == nil || *out.Results[0].NodeID != written.IDs[0] || out.Results[0].Fact.ID != 0 ||
		out.Results[0].Fact.Content != "Ann moved to Hamburg in March" || out.Results[1].Pending || out.Results[1].NodeID != nil {
		t.Fatalf("recall = %+v, want the remembered row first, pending with node id %d, then the fact (not the transient row)", out.Results, written.IDs[0])
	}
	lines := strings.Split(strings.TrimSpace(toolText(res)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "1. Ann moved to Hamburg in March (Ann / ") ||
		!strings.HasSuffix(lines[0], "; pending (not yet consolidated); confidence 0.70; observed 2026-06-01, just now)") ||
		strings.Contains(lines[1], "pending") {
		t.Errorf("recall text = %q, want the row's line to say pending (not yet consolidated), the fact's not", lines)
	}
}
