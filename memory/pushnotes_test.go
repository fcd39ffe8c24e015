package memory

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestPushAnswersHonestly: a durable row on the key of a locked decision
// gets a decision_locked note with the decision's id, text and reasoning; a
// row that repeats a live fact gets a duplicate note with its id; a
// transient row on the locked key gets none (it never becomes a fact); with
// Strict the batch is refused and nothing is written.
func TestPushAnswersHonestly(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	live := fx.create(t, bot, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "hq", Content: "HQ is in Denver."})
	on := func(key, content, marker string) NewNode {
		return NewNode{Content: content, Durability: marker, Properties: map[string]any{"entity": "Acme Robotics", "key": key}}
	}
	rows := []NewNode{
		on("rma_policy", "RMAs need photos again.", ""),
		on("hq", "hq is in denver.", ""),
		on("rma_policy", "RMA queue is syncing.", "transient"),
		{Content: "Unrelated note."},
	}
	res, err := fx.s.PushNoted(ctx, bot, "acme", rows, PushOptions{})
	if err != nil || len(res.IDs) != 4 {
		t.Fatalf("PushNoted = %+v, %v", res, err)
	}
	if len(res.Notes) != 2 {
		t.Fatalf("notes = %+v, want 2", res.Notes)
	}
	n := res.Notes[0]
	if n.Row != 0 || n.Code != NoteDecisionLocked || n.DecisionID != d.ID || n.Decision != d.Decision ||
		n.Reasoning != d.Reasoning || !strings.Contains(n.Message, d.Reasoning) {
		t.Errorf("note 0 = %+v, want decision_locked for decision %d with its text and reasoning", n, d.ID)
	}
	if n := res.Notes[1]; n.Row != 1 || n.Code != NoteDuplicate || n.FactID != live.ID {
		t.Errorf("note 1 = %+v, want duplicate of fact %d", n, live.ID)
	}

	before := fx.count(t, `SELECT count(*) FROM memory_nodes`)
	_, err = fx.s.PushNoted(ctx, bot, "acme", rows, PushOptions{Strict: true})
	var me *Error
	if !errors.As(err, &me) || me.Code != CodeConflict || me.Field != "nodes[0].key" || !strings.Contains(me.Message, "nothing of the batch was written") {
		t.Errorf("strict push error = %v, want a conflict on nodes[0].key saying nothing was written", err)
	}
	if got := fx.count(t, `SELECT count(*) FROM memory_nodes`); got != before {
		t.Errorf("strict refused push wrote %d rows", got-before)
	}
	if res, err := fx.s.PushNoted(ctx, bot, "acme", rows[3:], PushOptions{Strict: true}); err != nil || len(res.Notes) != 0 {
		t.Errorf("strict push of a clean row = %+v, %v; want it written without notes", res, err)
	}
}

// TestPushNotesRepeatWithoutKey: a row that names no key but repeats a live
// fact word for word (case and surrounding white space aside) gets the
// duplicate note naming the fact, its entity and its key, whether it names
// the fact's entity or no entity at all; about another entity it gets none;
// and strict refuses it on its content, writing nothing.
func TestPushNotesRepeatWithoutKey(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	live := fx.create(t, bot, NewFact{Scope: "acme", Entity: "Globex", Key: "contract_end",
		Content: "Globex renewed the enterprise contract until 2027."})
	rows := []NewNode{
		{Content: "  globex renewed the enterprise contract until 2027.", Properties: map[string]any{"entity": "Globex"}},
		{Content: "Globex renewed the enterprise contract until 2027."},
		{Content: "Globex renewed the enterprise contract until 2027.", Properties: map[string]any{"entity": "Initech"}},
		{Content: "Globex renewed the enterprise contract until 2027.", Durability: "transient"},
	}
	res, err := fx.s.PushNoted(ctx, bot, "acme", rows, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 2 {
		t.Fatalf("notes = %+v, want rows 0 and 1 noted", res.Notes)
	}
	for i, n := range res.Notes {
		if n.Row != i || n.Code != NoteDuplicate || n.FactID != live.ID || !strings.Contains(n.Message, `"contract_end"`) {
			t.Errorf("note %d = %+v, want row %d a duplicate of fact %d naming its key", i, n, i, live.ID)
		}
	}
	before := fx.count(t, `SELECT count(*) FROM memory_nodes`)
	_, err = fx.s.PushNoted(ctx, bot, "acme", rows[1:2], PushOptions{Strict: true})
	var me *Error
	if !errors.As(err, &me) || me.Code != CodeConflict || me.Field != "content" {
		t.Errorf("strict push of a repeat = %v, want a conflict on content", err)
	}
	if got := fx.count(t, `SELECT count(*) FROM memory_nodes`); got != before {
		t.Errorf("strict refused push wrote %d rows", got-before)
	}
}
