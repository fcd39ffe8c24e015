package memory

import (
	"context"
	"maps"
	"slices"
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

// TestListDecisionsTextSearchPages: the text search finds a substring of the
// decision, its reasoning, key or alternatives whatever its case, takes
// ILIKE's wildcards literally, pages through many matches with the cursor
// (the walk of the newest decisions, then the search below it, giving the
// same pages as a plain newest-first scan), finds one old match below many
// newer decisions, and answers an empty page when nothing matches.
func TestListDecisionsTextSearchPages(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	// Old decisions first: one says needle, one has it only in an
	// alternative; then 2,100 newer ones, every third saying haystack.
	record := func(key, decision, reasoning string, alternatives ...string) int64 {
		t.Helper()
		d, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "acme", Entity: "Acme", Key: key,
			Decision: decision, Reasoning: reasoning, Alternatives: alternatives})
		if err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	oldNeedle := record("old_one", "Ship the Needle_Point release.", "It is ready.")
	oldAlt := record("old_two", "Keep the current carrier.", "Rates are fine.", "switch to NeedleCo")
	if _, err := fx.pool.Exec(ctx, `
		WITH f AS (
			INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence)
			SELECT 'acme', (SELECT id FROM entities WHERE scope = 'acme' AND name = 'Acme'), 'bulk_' || i,
			       'bulk decision ' || i, 'permanent', 'decision', 1
			FROM generate_series(1, 2100) i
			RETURNING id, key)
		INSERT INTO decisions (fact_id, scope, entity_id, key, decision, reasoning)
		SELECT f.id, 'acme', (SELECT id FROM entities WHERE scope = 'acme' AND name = 'Acme'), f.key,
		       'Bulk decision ' || f.id || CASE WHEN f.id % 3 = 0 THEN ' about the HayStack' ELSE '' END, 'bulk'
		FROM f ORDER BY f.id`); err != nil {
		t.Fatal(err)
	}
	ids := func(f DecisionFilter) []int64 {
		t.Helper()
		got, err := fx.s.ListDecisions(ctx, f)
		if err != nil {
			t.Fatalf("ListDecisions(%+v): %v", f, err)
		}
		out := []int64{}
		for _, d := range got {
			out = append(out, d.ID)
		}
		return out
	}
	for _, c := range []struct {
		q    string
		want []int64
	}{
		{"needle", []int64{oldAlt, oldNeedle}},
		{"NEEDLE_POINT", []int64{oldNeedle}},
		{"needle_p", []int64{oldNeedle}},
		{"needle%point", []int64{}},
		{"needleco", []int64{oldAlt}},
		{"rates are", []int64{oldAlt}},
		{"old_two", []int64{oldAlt}},
		{"nowhere to be found", []int64{}},
	} {
		if got := ids(DecisionFilter{Query: c.q}); !slices.Equal(got, c.want) {
			t.Errorf("ListDecisions(q %q) = %v, want %v", c.q, got, c.want)
		}
	}

	// Paging through the 700 haystack decisions, 100 at a time, gives
	// them all, newest first, each once.
	var want []int64
	rows, err := fx.pool.Query(ctx, `SELECT id FROM decisions WHERE decision ILIKE '%haystack%' ORDER BY id DESC`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	if rows.Err() != nil || len(want) != 700 {
		t.Fatalf("seeded %d haystack decisions (%v), want 700", len(want), rows.Err())
	}
	var got []int64
	var before int64
	for page := 0; page < 10; page++ {
		p := ids(DecisionFilter{Query: "haystack", Limit: 100, BeforeID: before})
		got = append(got, p...)
		if len(p) < 100 {
			break
		}
		before = p[len(p)-1]
	}
	if !slices.Equal(got, want) {
		t.Errorf("paging through haystack gave %d decisions, want the %d newest first", len(got), len(want))
	}
	// A cursor below every match answers an empty page.
	if got := ids(DecisionFilter{Query: "haystack", BeforeID: want[len(want)-1]}); len(got) != 0 {
		t.Errorf("ListDecisions(haystack below the last match) = %v, want none", got)
	}
}

// TestDecisionsSupersededFollowWrites: a decision recorded on a key marks
// the older ones on it superseded, deleting the newer one makes the older
// current again, and the state filters read the marks.
func TestDecisionsSupersededFollowWrites(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	first := fx.recordLock(t, "acme", "Acme", "carrier")
	if _, err := fx.s.ReopenDecision(ctx, reviewer, first.ID, "rates changed"); err != nil {
		t.Fatal(err)
	}
	other := fx.recordLock(t, "acme", "Acme", "database")
	second, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "acme", Entity: "Acme", Key: "carrier",
		Decision: "Ship with the cheaper carrier.", Reasoning: "Rates changed."})
	if err != nil {
		t.Fatal(err)
	}
	state := func(st string) []int64 {
		t.Helper()
		got, err := fx.s.ListDecisions(ctx, DecisionFilter{State: st})
		if err != nil {
			t.Fatal(err)
		}
		out := []int64{}
		for _, d := range got {
			out = append(out, d.ID)
		}
		return out
	}
	if got := state(DecisionSuperseded); !slices.Equal(got, []int64{first.ID}) {
		t.Errorf("superseded = %v, want [%d]", got, first.ID)
	}
	if got := state(DecisionCurrent); !slices.Equal(got, []int64{second.ID, other.ID}) {
		t.Errorf("current = %v, want [%d %d]", got, second.ID, other.ID)
	}
	if got := state(DecisionReopened); len(got) != 0 {
		t.Errorf("reopened = %v, want none (the reopened one is superseded)", got)
	}
	// Locked and a contradicting state select nothing.
	if got, err := fx.s.ListDecisions(ctx, DecisionFilter{State: DecisionCurrent, Locked: pointerTo(false)}); err != nil || len(got) != 0 {
		t.Errorf("current and unlocked = %v, %v, want none", got, err)
	}
	if _, err := fx.pool.Exec(ctx, `DELETE FROM entity_facts WHERE id = $1`, second.FactID); err != nil {
		t.Fatal(err)
	}
	if got := state(DecisionSuperseded); len(got) != 0 {
		t.Errorf("superseded after deleting the newer decision = %v, want none", got)
	}
	if got := state(DecisionReopened); !slices.Equal(got, []int64{first.ID}) {
		t.Errorf("reopened after deleting the newer decision = %v, want [%d]", got, first.ID)
	}
}
