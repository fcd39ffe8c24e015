package memory

import (
	"context"
	"fmt"
	"testing"
)

// TestPushAllIsOneTransaction pushes batches of two scopes at once: they all
// land with their notes; a bad row in the last batch leaves nothing of any
// batch; a dry run answers the notes and writes nothing.
func TestPushAllIsOneTransaction(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	actor := System("test")
	rows := func(scope string, n int) PushBatch {
		b := PushBatch{Scope: scope}
		for i := range n {
			b.Nodes = append(b.Nodes, NewNode{Content: fmt.Sprintf("%s row %d: the printer on floor %d was replaced.", scope, i, i)})
		}
		return b
	}
	// A locked decision on billing/vendor, so a row naming it gets a note.
	if _, err := e.store.RecordDecision(ctx, actor, NewDecision{Scope: "billing", Entity: "billing", Key: "vendor",
		Decision: "Use Stripe", Reasoning: "already integrated"}); err != nil {
		t.Fatal(err)
	}
	locked := NewNode{Content: "Billing moves to Paddle.", Properties: map[string]any{"entity": "billing", "key": "vendor"}}

	bad := rows("ops", 3)
	bad.Nodes[2].Content = "   "
	_, err := e.store.PushAll(ctx, actor, []PushBatch{rows("billing", 5), rows("ops", 4), bad}, PushAllOptions{})
	if e := AsError(err); e == nil || e.Code != CodeInvalid || e.Field != "batches[2].nodes[2].content" {
		t.Fatalf("PushAll with a blank row in batches[2] = %v, want invalid naming batches[2].nodes[2].content", err)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes`); n != 0 {
		t.Fatalf("a refused PushAll left %d rows", n)
	}

	withNote := rows("billing", 2)
	withNote.Nodes = append(withNote.Nodes, locked)
	res, err := e.store.PushAll(ctx, actor, []PushBatch{withNote, rows("ops", 4)}, PushAllOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || len(res[0].Notes) != 1 || res[0].Notes[0].Code != NoteDecisionLocked || res[0].Notes[0].Row != 2 || len(res[1].IDs) != 4 {
		t.Errorf("dry run = %+v, want the locked-decision note on batch 0 row 2 and 4 ids for batch 1", res)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes`); n != 0 {
		t.Fatalf("a dry run left %d rows", n)
	}

	var progress []int
	res, err = e.store.PushAll(ctx, actor, []PushBatch{withNote, rows("ops", 4)}, PushAllOptions{
		Progress: func(done, total int) { progress = append(progress, done, total) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].IDs) != 3 || len(res[1].IDs) != 4 || len(res[0].Notes) != 1 {
		t.Errorf("PushAll = %+v, want 3 and 4 ids and one note", res)
	}
	if fmt.Sprint(progress) != "[3 7 7 7]" {
		t.Errorf("progress = %v, want [3 7 7 7]", progress)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes WHERE scope = 'ops'`); n != 4 {
		t.Errorf("ops holds %d rows, want 4", n)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.push'`); n != 2 {
		t.Errorf("%d push audit rows, want one per batch", n)
	}
}
