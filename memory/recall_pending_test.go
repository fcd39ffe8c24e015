package memory

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// pushed pushes one row to scope acme and returns its id.
func (rf *recallFixture) pushed(t *testing.T, n NewNode) int64 {
	t.Helper()
	ids, err := rf.s.Push(context.Background(), agent, "acme", []NewNode{n})
	if err != nil {
		t.Fatalf("Push(%+v) = %v", n, err)
	}
	return ids[0]
}

// pendingOf returns the result for working row id, and how many results
// hold content.
func pendingOf(res []RecallResult, id int64, content string) (*RecallResult, int) {
	var found *RecallResult
	n := 0
	for i, r := range res {
		if r.Pending && r.NodeID == id {
			found = &res[i]
		}
		if r.Fact.Content == content {
			n++
		}
	}
	return found, n
}

// TestRecallReadsItsOwnWrites checks that a durable working row is recalled
// as soon as its push returns, marked pending, with the fact consolidation
// plans to make of it, ranked by the facts' BM25 at the row's confidence;
// that transient, expired and timed-out rows never are; and that once it is
// consolidated the same text comes back once, as a fact.
func TestRecallReadsItsOwnWrites(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	rf.insert(t, recallFact{content: "Ann flies to Porto in June"})
	rf.insert(t, recallFact{entity: "Bob", content: "Bob booked a hotel in Lisbon"})

	const text = "Ann booked the Lisbon flight for May"
	id := rf.pushed(t, NewNode{Content: text, Properties: map[string]any{"entity": "Ann", "key": "lisbon_trip", "confidence": 0.9}})
	plain := rf.pushed(t, NewNode{Content: "The Lisbon flight leaves from gate 12"})
	rf.pushed(t, NewNode{Content: "Ann is boarding the Lisbon flight right now", Durability: "transient"})
	rf.pushed(t, NewNode{Content: "The old Lisbon flight plan", Durability: "expired"})
	ttl := int32(60)
	rf.pushed(t, NewNode{Content: "Lisbon flight gate changes within the minute", TTLSeconds: &ttl})
	rf.now = rf.now.Add(2 * time.Minute) // past that row's ttl

	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "When is the Lisbon flight?"})
	got, n := pendingOf(res, id, text)
	if got == nil || n != 1 {
		t.Fatalf("Recall(Lisbon flight) = %+v, want the pushed row once, pending", res)
	}
	f := got.Fact
	if f.ID != 0 || f.Scope != "acme" || f.Entity != "Ann" || f.Key != "lisbon_trip" || f.Content != text ||
		f.Confidence != 0.9 || f.EffectiveConfidence != 0.9 || !f.ConfirmedAt.Equal(recallNow) || !f.CreatedAt.Equal(recallNow) ||
		f.Status != StatusActive || f.SourceNodeID == nil || *f.SourceNodeID != id || f.Durability == "" || f.Category == "" {
		t.Errorf("pending fact = %+v, want the row's content, entity, key, scope, confidence and push time, id 0", f)
	}
	if got.Relevance <= 0 || math.Abs(got.Score-got.Relevance*0.9) > 1e-9 {
		t.Errorf("pending relevance %v, score %v, want score = relevance × 0.9", got.Relevance, got.Score)
	}
	if other, _ := pendingOf(res, plain, ""); other == nil || other.Fact.EffectiveConfidence != defaultConfidence {
		t.Errorf("row without a confidence = %+v, want it pending at %v", other, defaultConfidence)
	}
	never := []string{"Ann is boarding the Lisbon flight right now", "The old Lisbon flight plan", "Lisbon flight gate changes within the minute"}
	for _, r := range res {
		if slices.Contains(never, r.Fact.Content) {
			t.Errorf("Recall returned %q: a transient, expired or timed-out row", r.Fact.Content)
		}
		if !r.Pending && (r.NodeID != 0 || r.Fact.ID == 0) {
			t.Errorf("fact result %+v, want a fact id and no node id", r)
		}
	}
	if len(res) != 3 || res[2].Fact.Content != "Bob booked a hotel in Lisbon" {
		t.Errorf("Recall = %v, want the two pending rows and Bob's fact", contents(res))
	}

	t.Run("ranked with the facts", func(t *testing.T) {
		// A pending row ranks by the facts' statistics: "Porto" is in one
		// fact, so a row naming it at a lower confidence ranks below it.
		porto := rf.pushed(t, NewNode{Content: "Ann flies to Porto in June", Properties: map[string]any{"confidence": 0.5}})
		res := rf.recall(t, RecallQuery{Scope: "acme", Query: "porto"})
		if len(res) != 2 || res[0].Pending || !res[1].Pending || res[1].NodeID != porto ||
			math.Abs(res[1].Relevance-res[0].Relevance) > 1e-9 {
			t.Errorf("Recall(porto) = %+v, want the fact, then the row at the same relevance", res)
		}
	})

	t.Run("observed earlier", func(t *testing.T) {
		// Confirmed when its statement was observed, as its fact will be.
		said := rf.now.Add(-48 * time.Hour)
		old := rf.pushed(t, NewNode{Content: "Ann renewed her Madrid visa", ObservedAt: &said})
		res := rf.recall(t, RecallQuery{Scope: "acme", Query: "madrid visa"})
		if len(res) != 1 || res[0].NodeID != old || !res[0].Fact.ConfirmedAt.Equal(said) || !res[0].Fact.CreatedAt.Equal(rf.now) {
			t.Errorf("Recall(madrid visa) = %+v, want the row confirmed when observed, created when pushed", res)
		}
	})

	t.Run("filters", func(t *testing.T) {
		if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "Lisbon flight", Entity: "Ann"}); len(res) != 1 || res[0].NodeID != id {
			t.Errorf("Recall(entity Ann) = %v, want only the row naming Ann", contents(res))
		}
		if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "Lisbon flight", Entity: "Bob"}); len(res) != 1 || res[0].Pending {
			t.Errorf("Recall(entity Bob) = %v, want Bob's fact alone", contents(res))
		}
		for _, q := range []RecallQuery{
			{Scope: "acme", Query: "Lisbon flight", Category: "observation"},
			{Scope: "acme", Query: "Lisbon flight", Durability: "long_term"},
		} {
			for _, r := range rf.recall(t, q) {
				if r.Pending {
					t.Errorf("Recall(%+v) returned pending row %d: rows are not classified yet", q, r.NodeID)
				}
			}
		}
		if res := rf.recall(t, RecallQuery{Scope: "acme", Query: `"Lisbon flight" -gate`}); len(res) != 1 || res[0].NodeID != id {
			t.Errorf(`Recall("Lisbon flight" -gate) = %v, want only the row without gate`, contents(res))
		}
		if res := rf.recall(t, RecallQuery{Scope: "other", Query: "Lisbon flight"}); len(res) != 0 {
			t.Errorf("Recall(scope other) = %v, want nothing", contents(res))
		}
	})

	t.Run("consolidated", func(t *testing.T) {
		if _, err := rf.s.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest}); err != nil {
			t.Fatal(err)
		}
		res := rf.recall(t, RecallQuery{Scope: "acme", Query: "When is the Lisbon flight?"})
		var facts int
		for _, r := range res {
			if r.Fact.Content == text {
				facts++
				if r.Pending || r.NodeID != 0 || r.Fact.ID == 0 || r.Fact.SourceNodeID == nil || *r.Fact.SourceNodeID != id {
					t.Errorf("consolidated result = %+v, want the fact promoted from row %d", r, id)
				}
			}
			if r.Pending {
				t.Errorf("after consolidation, row %d is still pending", r.NodeID)
			}
		}
		if facts != 1 {
			t.Errorf("after consolidation, %q came back %d times, want once", text, facts)
		}
	})
}

// TestRecallPendingReadsItsIndex checks that the pending rows are read
// through memory_nodes_pending_search_idx (the statement's vector is the
// index's expression), and that a row holding a rare word is read however
// many newer rows hold a common one.
func TestRecallPendingReadsItsIndex(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	if _, err := rf.pool.Exec(ctx, `INSERT INTO memory_nodes (scope, content, properties)
		SELECT 'acme', 'Lisbon flight note ' || i, '{"durability": "transient"}' FROM generate_series(1, 5000) i`); err != nil {
		t.Fatal(err)
	}
	target := rf.pushed(t, NewNode{Content: "Ann hid the spare key under the zebra mat"})
	newer := make([]NewNode, 500)
	for i := range newer {
		// Words, not numbers: lines differing by a number are one
		// templated line, which recall shows once.
		newer[i] = NewNode{Content: "Ann mentioned the key again, " + strings.Repeat("very ", i%60) + "lately " + strings.Repeat("oh ", i/60)}
	}
	if _, err := rf.s.Push(ctx, agent, "acme", newer); err != nil {
		t.Fatal(err)
	}
	if _, err := rf.pool.Exec(ctx, `ANALYZE memory_nodes`); err != nil {
		t.Fatal(err)
	}
	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "Where is the key? The zebra mat?", Limit: 3})
	if len(res) != 3 || !res[0].Pending || res[0].NodeID != target {
		t.Fatalf("Recall(zebra key) = %v, want the row with zebra first, among 500 newer rows holding key", contents(res))
	}
	st := rf.sent.last(t, "-- name: RecallPending")
	if plan := explain(t, rf.pool, st.SQL, st.Args...); !strings.Contains(plan, "memory_nodes_pending_search_idx") {
		t.Errorf("RecallPending plan does not read its index:\n%s", plan)
	}
}

func contents(res []RecallResult) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Fact.Content
		if r.Pending {
			out[i] += " (pending)"
		}
	}
	return out
}

// TestRecallSkipsPendingNegations: a pending row that denies a value ("I no
// longer live in Berlin") will file no current fact, so recall does not
// answer it as a pending fact; the row it sits beside is still recalled.
func TestRecallSkipsPendingNegations(t *testing.T) {
	rf := newRecallFixture(t)
	denial := rf.pushed(t, NewNode{Content: "Ann no longer lives in Berlin.", Properties: map[string]any{"entity": "Ann"}})
	plain := rf.pushed(t, NewNode{Content: "Ann rents a flat in Berlin for the summer.", Properties: map[string]any{"entity": "Ann"}})
	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "Berlin"})
	if got, _ := pendingOf(res, denial, "Ann no longer lives in Berlin."); got != nil {
		t.Errorf("recall answered the pending negation as a fact: %+v", got.Fact)
	}
	if got, _ := pendingOf(res, plain, "Ann rents a flat in Berlin for the summer."); got == nil {
		t.Errorf("recall left out the pending row beside the negation; results %+v", res)
	}
}
