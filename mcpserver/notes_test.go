package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

var lead = memory.Human("lead@example.com")

// lockedAndKnown records a locked decision on Acme Robotics / rma_policy
// and a live fact on Ann / home_city in scope acme.
func lockedAndKnown(t *testing.T, f *mcpFixture) (memory.Decision, memory.Fact) {
	t.Helper()
	ctx := context.Background()
	d, err := f.store.RecordDecision(ctx, lead, memory.NewDecision{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy",
		Decision: "Cracked housings are replaced without photos.", Reasoning: "Photos delayed every RMA by a week."})
	if err != nil {
		t.Fatal(err)
	}
	fact, _, err := f.store.CreateFact(ctx, lead, memory.NewFact{Scope: "acme", Entity: "Ann", Key: "home_city",
		Content: "Ann lives in Berlin.", Category: "identity"})
	if err != nil {
		t.Fatal(err)
	}
	return d, fact
}

type notedOut struct {
	IDs   []int64           `json:"ids"`
	Notes []memory.PushNote `json:"notes"`
}

func TestRememberWarnsAndStrictRefuses(t *testing.T) {
	f := newMCPFixture(t)
	d, fact := lockedAndKnown(t, f)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	rows := []map[string]any{
		{"content": "Cracked housings are replaced without photos.", "properties": map[string]any{"entity": "Acme Robotics", "key": "rma_policy"}},
		{"content": "Ann likes tea."},
		{"content": "Ann lives in Berlin.", "properties": map[string]any{"entity": "Ann", "key": "home_city"}},
	}

	var out notedOut
	res := call(t, cs, "remember", map[string]any{"rows": rows}, &out)
	if len(out.IDs) != 3 || len(out.Notes) != 2 || out.Notes[0].Code != memory.NoteDecisionLocked || out.Notes[0].DecisionID != d.ID ||
		out.Notes[1].Code != memory.NoteDuplicate || out.Notes[1].FactID != fact.ID || out.Notes[1].Row != 2 {
		t.Fatalf("remember = %+v, want three ids, a decision_locked note on row 0 and a duplicate note on row 2", out)
	}
	text := toolText(res)
	for _, want := range []string{
		fmt.Sprintf("row 0: not stored as a fact — decision %d 'Cracked housings are replaced without photos.' is locked (because Photos delayed every RMA by a week.)", d.ID),
		fmt.Sprintf("row 2: not stored as a new fact — it repeats fact %d word for word", fact.ID),
		fmt.Sprintf("Wrote 3 working rows to scope acme (ids %d, %d, %d).", out.IDs[0], out.IDs[1], out.IDs[2]),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("remember text =\n%s\nwant it to say %q", text, want)
		}
	}
	if strings.Contains(text, "row 1:") {
		t.Errorf("remember text =\n%s\nwant no warning on row 1", text)
	}

	var plain notedOut
	res = call(t, cs, "remember", map[string]any{"content": "Ann likes coffee.", "strict": true}, &plain)
	if len(plain.IDs) != 1 || plain.Notes == nil || len(plain.Notes) != 0 ||
		toolText(res) != fmt.Sprintf("Wrote 1 working row to scope acme (id %d).", plain.IDs[0]) {
		t.Errorf("strict remember without warnings = %+v, %q; want it written with an empty notes list", plain, toolText(res))
	}

	before := f.count(t, `SELECT count(*) FROM memory_nodes`)
	msg := callError(t, cs, "remember", map[string]any{"rows": rows, "strict": true})
	if !strings.Contains(msg, "strict") || !strings.Contains(msg, fmt.Sprint(d.ID)) || !strings.Contains(msg, "2 rows") {
		t.Errorf("strict remember error = %q, want the decision, strict and the number of noted rows", msg)
	}
	if after := f.count(t, `SELECT count(*) FROM memory_nodes`); after != before {
		t.Errorf("rows = %d after a strict refusal, want %d", after, before)
	}
}

func TestListDecisionsMarksReplaced(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	first, _ := lockedAndKnown(t, f)
	if _, err := f.store.ReopenDecision(ctx, lead, first.ID, "the new contract asks for photos"); err != nil {
		t.Fatal(err)
	}
	second, err := f.store.RecordDecision(ctx, lead, memory.NewDecision{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy",
		Decision: "RMAs need two photos of the crack.", Reasoning: "The new contract asks for them."})
	if err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenReader))

	var list wire.Page[wire.Decision]
	res := call(t, cs, "list_decisions", map[string]any{}, &list)
	if len(list.Items) != 2 || list.Items[1].SupersededBy == nil || *list.Items[1].SupersededBy != second.ID || list.Items[1].State != "superseded" {
		t.Fatalf("list_decisions = %+v, want the first replaced by %d", list.Items, second.ID)
	}
	text := toolText(res)
	wantFirst := fmt.Sprintf("- decision %d [Acme Robotics / rma_policy] Cracked housings are replaced without photos. — because Photos delayed every RMA by a week. (replaced by decision %d)", first.ID, second.ID)
	wantSecond := fmt.Sprintf("- decision %d [Acme Robotics / rma_policy] RMAs need two photos of the crack. — because The new contract asks for them. (locked)", second.ID)
	if !strings.Contains(text, wantFirst) || !strings.Contains(text, wantSecond) {
		t.Errorf("list_decisions text =\n%s\nwant\n%s\n%s", text, wantFirst, wantSecond)
	}

	call(t, cs, "list_decisions", map[string]any{"state": "superseded"}, &list)
	if len(list.Items) != 1 || list.Items[0].ID != first.ID {
		t.Errorf("list_decisions(superseded) = %+v, want decision %d", list.Items, first.ID)
	}
	call(t, cs, "list_decisions", map[string]any{"state": "current"}, &list)
	if len(list.Items) != 1 || list.Items[0].ID != second.ID {
		t.Errorf("list_decisions(current) = %+v, want decision %d", list.Items, second.ID)
	}
	res = call(t, cs, "list_decisions", map[string]any{"state": "reopened"}, &list)
	if len(list.Items) != 0 || !strings.Contains(toolText(res), "No decisions") {
		t.Errorf("list_decisions(reopened) = %+v, %q; want none", list.Items, toolText(res))
	}
	if msg := callError(t, cs, "list_decisions", map[string]any{"state": "old"}); !strings.Contains(msg, "current, superseded, reopened") {
		t.Errorf("list_decisions(state old) error = %q, want the allowed values", msg)
	}
}

func TestContextSinceTool(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	for _, content := range []string{"billing-db replication lag is 40 s.", "billing-db replication lag recovered."} {
		if _, _, err := f.store.CreateFact(ctx, lead, memory.NewFact{Scope: "acme", Entity: "billing-db", Key: "replication_lag",
			Content: content, Category: "state", Durability: memory.ShortTerm}); err != nil {
			t.Fatal(err)
		}
	}
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenReader))
	since := mcpNow.Add(-time.Minute).Format(time.RFC3339)

	res := call(t, cs, "context", map[string]any{"since": since}, nil)
	text := toolText(res)
	if !strings.Contains(text, "Changes:") || !strings.Contains(text, "billing-db replication lag recovered.") ||
		!strings.Contains(text, "superseded by fact") {
		t.Errorf("context(since) text =\n%s\nwant the new fact and the superseded one under Changes:", text)
	}
	var out contextOut
	call(t, cs, "context", map[string]any{"since": since, "format": "json"}, &out)
	if out.Since == nil || out.Changes == nil || len(*out.Changes) != 2 || len(out.States) != 0 {
		t.Errorf("context(since, json) = %+v, want two changes and no states", out)
	}
	res = call(t, cs, "context", map[string]any{"since": mcpNow.Format(time.RFC3339)}, nil)
	if text := toolText(res); !strings.Contains(text, "Nothing changed.") {
		t.Errorf("context(since now) = %q, want Nothing changed.", text)
	}
	if msg := callError(t, cs, "context", map[string]any{"since": "yesterday"}); !strings.Contains(msg, "since") || !strings.Contains(msg, "RFC 3339") {
		t.Errorf("context(since yesterday) error = %q, want since and the format named", msg)
	}
}

func TestExtractSpeakerAndNotes(t *testing.T) {
	f := newMCPFixture(t)
	_, fact := lockedAndKnown(t, f)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))

	var out struct {
		Candidates []mcpCandidate   `json:"candidates"`
		NodeIDs    []int64          `json:"stored_node_ids"`
		Notes      *[]wire.PushNote `json:"notes"`
	}
	call(t, cs, "extract", map[string]any{"text": "I'm a nurse.", "speaker": "Jordan"}, &out)
	if len(out.Candidates) != 1 || out.Candidates[0].Entity != "Jordan" || out.Candidates[0].Key != "occupation" || out.Notes != nil {
		t.Errorf("extract(speaker Jordan) = %+v, want Jordan's occupation and no notes", out)
	}
	if msg := callError(t, cs, "extract", map[string]any{"text": "I'm a nurse.", "speaker": strings.Repeat("J", 300)}); !strings.Contains(msg, "speaker") {
		t.Errorf("extract(long speaker) error = %q, want speaker named", msg)
	}
	if msg := callError(t, cs, "extract", map[string]any{"text": "I'm a nurse.", "strict": true}); !strings.Contains(msg, "store") {
		t.Errorf("extract(strict without store) error = %q, want store named", msg)
	}

	res := call(t, cs, "extract", map[string]any{"text": "Ann lives in Berlin.", "entity": "Ann", "store": true}, &out)
	if len(out.NodeIDs) != 1 || out.Notes == nil || len(*out.Notes) != 1 || (*out.Notes)[0].FactID == nil || *(*out.Notes)[0].FactID != fact.ID {
		t.Fatalf("extract(store) = %+v, want one row noted as a repeat of fact %d", out, fact.ID)
	}
	if text := toolText(res); !strings.Contains(text, fmt.Sprintf("row 0 repeats fact %d", fact.ID)) ||
		!strings.Contains(text, "'Ann lives in Berlin.'") || strings.Contains(text, "\n") || strings.Contains(text, "{") {
		t.Errorf("extract(store) text =\n%s\nwant one line of prose with the candidate and the warning", text)
	}
	before := f.count(t, `SELECT count(*) FROM memory_nodes`)
	if msg := callError(t, cs, "extract", map[string]any{"text": "Ann lives in Berlin.", "entity": "Ann", "store": true, "strict": true}); !strings.Contains(msg, "strict") {
		t.Errorf("extract(store, strict) error = %q", msg)
	}
	if after := f.count(t, `SELECT count(*) FROM memory_nodes`); after != before {
		t.Errorf("rows = %d after a strict refusal, want %d", after, before)
	}
}

type mcpCandidate struct {
	Entity string `json:"entity"`
	Key    string `json:"key"`
}
