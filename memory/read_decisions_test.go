package memory

import (
	"context"
	"maps"
	"testing"
)

// TestListRefusalsAndDecisionsOfFacts: refused writes counted per decision,
// and the decision each fact records.
func TestListRefusalsAndDecisionsOfFacts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	locked := lockedDecision(t, e, "acme", "Acme Robotics", "rma_policy")
	quiet := lockedDecision(t, e, "acme", "Acme Shipping", "carrier")
	e.push(t, "acme", NewNode{Content: "RMAs should wait for photos.",
		Properties: map[string]any{"entity": "Acme Robotics", "key": "rma_policy", "category": "observation"}},
		NewNode{Content: "We decided to require photos before every RMA.",
			Properties: map[string]any{"entity": "Acme Robotics", "key": "rma_policy", "category": "decision"}})
	e.consolidate(t)

	counts, err := e.store.CountRefusals(ctx, []int64{locked, quiet})
	if want := map[int64]int64{locked: 2}; err != nil || !maps.Equal(counts, want) {
		t.Errorf("CountRefusals() = %v, %v, want %v", counts, err, want)
	}
	if counts, err := e.store.CountRefusals(ctx, nil); err != nil || counts == nil || len(counts) != 0 {
		t.Errorf("CountRefusals(none) = %v, %v, want an empty map", counts, err)
	}

	var lockedFact, plainFact int64
	if err := e.pool.QueryRow(ctx, `SELECT fact_id FROM decisions WHERE id = $1`, locked).Scan(&lockedFact); err != nil {
		t.Fatal(err)
	}
	fx := &fixture{s: e.store, pool: e.pool}
	plainFact = fx.create(t, reviewer, NewFact{Scope: "acme", Entity: "Ann", Content: "Ann runs the RMA desk"}).ID
	got, err := e.store.DecisionsOfFacts(ctx, []int64{lockedFact, plainFact})
	if want := map[int64]int64{lockedFact: locked}; err != nil || !maps.Equal(got, want) {
		t.Errorf("DecisionsOfFacts() = %v, %v, want %v", got, err, want)
	}
	if got, err := e.store.DecisionsOfFacts(ctx, nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("DecisionsOfFacts(none) = %v, %v, want an empty map", got, err)
	}
}
