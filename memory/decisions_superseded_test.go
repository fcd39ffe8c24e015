package memory

import (
	"context"
	"fmt"
	"testing"
)

// TestReplacedDecisionSaysSo: a decision reopened and then replaced by a
// later one on its key carries superseded_by; the list filters current,
// superseded, reopened and open decisions, and each decision says which
// state it is in.
func TestReplacedDecisionSaysSo(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	first := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	if _, err := fx.s.ReopenDecision(ctx, reviewer, first.ID, "photos are back in the contract"); err != nil {
		t.Fatal(err)
	}
	open := fx.recordLock(t, "acme", "Acme Robotics", "shipping")
	if _, err := fx.s.ReopenDecision(ctx, reviewer, open.ID, "carrier changed"); err != nil {
		t.Fatal(err)
	}
	second, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy",
		Decision: "RMAs need photos.", Reasoning: "The new contract asks for them."})
	if err != nil {
		t.Fatal(err)
	}
	// Recorded without a lock and never locked: open, not reopened.
	unlocked, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "acme", Entity: "Acme Robotics", Key: "carrier",
		Decision: "Ship with DHL.", Reasoning: "Cheapest this quarter.", DoNotReopen: pointerTo(false)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := fx.s.GetDecision(ctx, first.ID)
	if err != nil || got.SupersededBy == nil || *got.SupersededBy != second.ID {
		t.Errorf("replaced decision superseded_by = %v, %v; want %d", got.SupersededBy, err, second.ID)
	}
	if got, _ := fx.s.GetDecision(ctx, second.ID); got.SupersededBy != nil {
		t.Errorf("current decision superseded_by = %v, want none", *got.SupersededBy)
	}
	for state, want := range map[string][]int64{
		DecisionCurrent:    {second.ID},
		DecisionSuperseded: {first.ID},
		DecisionReopened:   {open.ID},
		DecisionOpen:       {unlocked.ID},
		"":                 {unlocked.ID, second.ID, open.ID, first.ID},
	} {
		ds, err := fx.s.ListDecisions(ctx, DecisionFilter{Scope: "acme", State: state})
		if err != nil {
			t.Fatalf("ListDecisions(%q): %v", state, err)
		}
		var ids []int64
		for _, d := range ds {
			ids = append(ids, d.ID)
			if state != "" && d.State() != map[string]string{DecisionCurrent: StateLocked}[state] && d.State() != state {
				t.Errorf("decision %d listed as %s says it is %s", d.ID, state, d.State())
			}
		}
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Errorf("ListDecisions(state %q) = %v, want %v", state, ids, want)
		}
	}
	if _, err := fx.s.ListDecisions(ctx, DecisionFilter{State: "old"}); err == nil {
		t.Error("ListDecisions(state old) succeeded")
	}
}
