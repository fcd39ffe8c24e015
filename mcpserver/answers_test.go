package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/mcpserver"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// oneLineAnswer fails unless text is one line of prose, not JSON.
func oneLineAnswer(t *testing.T, tool, text string, want ...string) {
	t.Helper()
	if strings.Contains(strings.TrimRight(text, "\n"), "\n") || strings.HasPrefix(text, "{") || strings.Contains(text, `":`) {
		t.Errorf("%s text = %q, want one line of prose", tool, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s text = %q, want it to say %q", tool, text, w)
		}
	}
}

// TestToolAnswersAreOneLine: record_decision, set_durability and extract
// answer a model with one line of prose and keep the full object in the
// structured content; a locked decision refuses in one short line.
func TestToolAnswersAreOneLine(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "planner", "acme", auth.TokenWriter))

	var d memory.Decision
	res := call(t, cs, "record_decision", map[string]any{"entity": "backend", "key": "database", "decision": "Use PostgreSQL",
		"reasoning": strings.Repeat("We already run it and know it well. ", 12)}, &d)
	if d.ID == 0 || !d.DoNotReopen || d.Reasoning == "" {
		t.Fatalf("record_decision structured content = %+v, want the whole decision", d)
	}
	oneLineAnswer(t, "record_decision", toolText(res), "Recorded decision "+itoa(d.ID), "'Use PostgreSQL'", "locked")

	msg := callError(t, cs, "record_decision", map[string]any{"entity": "backend", "key": "database", "decision": "Use MySQL", "reasoning": "Cheaper"})
	oneLineAnswer(t, "refusal", msg, "decision_locked", "decision "+itoa(d.ID), "'Use PostgreSQL'", "We already run it")
	if n := utf8.RuneCountInString(msg); n > 250 {
		t.Errorf("refusal is %d characters: %q", n, msg)
	}

	ids, err := f.store.Push(context.Background(), memory.Token("planner"), "acme", []memory.NewNode{{Content: "Syncing, ETA 30s"}})
	if err != nil {
		t.Fatal(err)
	}
	var sd wire.Node
	res = call(t, cs, "set_durability", map[string]any{"node_id": ids[0], "durability": "expired"}, &sd)
	if sd.ID != ids[0] || sd.Durability != "expired" || sd.Content != "Syncing, ETA 30s" {
		t.Errorf("set_durability structured content = %+v", sd)
	}
	oneLineAnswer(t, "set_durability", toolText(res), "Working row "+itoa(ids[0])+" is now expired")

	var ex struct {
		Candidates []mcpserver.Candidate `json:"candidates"`
	}
	res = call(t, cs, "extract", map[string]any{"text": "Ann lives in Berlin.", "entity": "Ann"}, &ex)
	if len(ex.Candidates) != 1 {
		t.Fatalf("extract structured content = %+v, want one candidate", ex)
	}
	oneLineAnswer(t, "extract", toolText(res), "Extracted 1 candidate fact (not stored)", "'Ann lives in Berlin.'")
}

// TestListDecisionsSaysOpenAndReopened: a decision recorded without a lock
// is open; only one locked and then reopened is reopened.
func TestListDecisionsSaysOpenAndReopened(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	open, err := f.store.RecordDecision(ctx, memory.Human("ann@example.com"), memory.NewDecision{Scope: "acme", Entity: "backend",
		Key: "queue", Decision: "Try river", Reasoning: "A trial", DoNotReopen: new(bool)})
	if err != nil {
		t.Fatal(err)
	}
	locked, err := f.store.RecordDecision(ctx, memory.Human("ann@example.com"), memory.NewDecision{Scope: "acme", Entity: "backend",
		Key: "database", Decision: "Use PostgreSQL", Reasoning: "We run it"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.ReopenDecision(ctx, memory.Human("ann@example.com"), locked.ID, "traffic grew"); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenReader))
	text := toolText(call(t, cs, "list_decisions", map[string]any{}, nil))
	for _, want := range []string{"decision " + itoa(open.ID) + " [backend / queue] Try river — because A trial (open)",
		"decision " + itoa(locked.ID) + " [backend / database] Use PostgreSQL — because We run it (reopened)"} {
		if !strings.Contains(text, want) {
			t.Errorf("list_decisions text =\n%s\nwant %q", text, want)
		}
	}
}

// TestContextToolCarriesAsOf: the brief's JSON carries as_of, the time to
// pass back as since, and its text shows it in the header.
func TestContextToolCarriesAsOf(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenReader))
	res := call(t, cs, "context", map[string]any{"format": "json"}, nil)
	raw, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	asOf, _ := out["as_of"].(string)
	if asOf != f.store.Now().UTC().Format("2006-01-02T15:04:05Z07:00") && !strings.HasPrefix(asOf, f.store.Now().UTC().Format("2006-01-02T15:04")) {
		t.Errorf("as_of = %q, want the brief's time %v", asOf, f.store.Now())
	}
	if n, ok := out["decisions_left_out"].(float64); !ok || n != 0 {
		t.Errorf("decisions_left_out = %v, want 0", out["decisions_left_out"])
	}
	var back contextOut
	call(t, cs, "context", map[string]any{"since": asOf}, &back)
	if !strings.Contains(back.Text, "Nothing changed.") {
		t.Errorf("context(since as_of) = %q, want nothing changed", back.Text)
	}
}
