package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// TestRememberObservedAt: remember keeps when each row was observed, and
// refuses a time from the future or before 1970 naming the row, writing
// nothing of the batch.
func TestRememberObservedAt(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	past := mcpNow.Add(-20 * 24 * time.Hour)
	var out notedOut
	call(t, cs, "remember", map[string]any{"rows": []any{
		map[string]any{"content": "Ann moved to Porto.", "observed_at": past.Format(time.RFC3339)},
		map[string]any{"content": "Ann drinks tea."},
	}}, &out)
	call(t, cs, "remember", map[string]any{"content": "Ann is tired.", "observed_at": past.Add(time.Hour).Format(time.RFC3339)}, &out)
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE observed_at = $1 AND content = 'Ann moved to Porto.'`, past); n != 1 {
		t.Errorf("batch row not observed at %s", past)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE observed_at = $1 AND content = 'Ann is tired.'`, past.Add(time.Hour)); n != 1 {
		t.Errorf("single row not observed an hour later")
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE observed_at IS NULL`); n != 1 {
		t.Errorf("rows observed when written = %d, want 1 (the row without observed_at)", n)
	}

	for _, tt := range []struct{ value, says string }{
		{mcpNow.Add(10 * time.Minute).Format(time.RFC3339), "ahead of the server's clock"},
		{"1969-07-20T20:17:00Z", "1970"},
		{"yesterday", "RFC 3339"},
	} {
		msg := callError(t, cs, "remember", map[string]any{"rows": []any{
			map[string]any{"content": "fine"}, map[string]any{"content": "bad", "observed_at": tt.value},
		}})
		if !strings.Contains(msg, "rows[1].observed_at") || !strings.Contains(msg, tt.says) {
			t.Errorf("remember(observed_at %s) error = %q, want rows[1].observed_at and %q", tt.value, msg, tt.says)
		}
	}
	msg := callError(t, cs, "extract", map[string]any{"text": "Ann must send the report by June 10.", "store": true,
		"observed_at": mcpNow.Add(time.Hour).Format(time.RFC3339)})
	if !strings.Contains(msg, "observed_at") || !strings.Contains(msg, "ahead of the server's clock") {
		t.Errorf("extract(observed_at ahead) error = %q", msg)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 3 {
		t.Errorf("%d rows after the refusals, want the 3 written before", n)
	}

	// Extraction reads dates from when the text was said.
	var ex extractOut
	call(t, cs, "extract", map[string]any{"text": "Ann must send the report by June 10.", "entity": "Ann", "store": true,
		"observed_at": "2025-05-01T09:00:00Z"}, &ex)
	if len(ex.Candidates) != 1 || ex.Candidates[0].Deadline == nil || ex.Candidates[0].Deadline.Format(time.DateOnly) != "2025-06-10" {
		t.Errorf("extract(observed 2025-05-01) = %+v, want the deadline 2025-06-10", ex.Candidates)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE observed_at = '2025-05-01T09:00:00Z'`); n != 1 {
		t.Errorf("extracted row not observed when the text was said")
	}
}

// TestRecallObservedDate: recall's lines say when each fact was observed,
// and since and until keep the facts observed in between.
func TestRecallObservedDate(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	old := mcpNow.Add(-30 * 24 * time.Hour)
	for _, at := range []time.Time{old, mcpNow.Add(-2 * 24 * time.Hour)} {
		if _, _, err := f.store.CreateFact(context.Background(), memory.Token("agent"), memory.NewFact{Scope: "acme", Entity: "Melanie",
			Content: "Melanie painted a sunrise on " + at.Format(time.DateOnly), ObservedAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	res := call(t, cs, "recall", map[string]any{"query": "When did Melanie paint a sunrise?", "until": mcpNow.Add(-7 * 24 * time.Hour).Format(time.RFC3339)}, nil)
	text := toolText(res)
	if lines := strings.Split(strings.TrimSpace(text), "\n"); len(lines) != 1 ||
		!strings.Contains(lines[0], "observed "+old.Format(time.DateOnly)+", 30 d ago") {
		t.Errorf("recall until a week ago = %q, want the sunrise of 30 days ago with its date", text)
	}
	if msg := callError(t, cs, "recall", map[string]any{"query": "sunrise", "since": "last week"}); !strings.Contains(msg, "since") {
		t.Errorf("recall(since: last week) error = %q", msg)
	}
}
