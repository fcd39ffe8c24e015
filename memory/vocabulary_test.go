package memory

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestSynonymKeysAndCategoriesShareAKey: rows that name one attribute by
// different keys (company, works_at) and file it under different
// categories land on one canonical key, and the later value supersedes the
// earlier; a row repeating a live fact under a synonym of its key gets the
// duplicate note.
func TestSynonymKeysAndCategoriesShareAKey(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	row := func(content, key, category string) NewNode {
		return NewNode{Content: content, Properties: map[string]any{"entity": "Dana", "key": key, "category": category}}
	}
	e.push(t, "pa", row("Dana works for Acme.", "company", "observation"))
	e.consolidate(t)
	e.clock.Advance(time.Hour)
	e.push(t, "pa", row("Dana now works for Initech.", "works_at", "identity"))
	e.consolidate(t)
	e.clock.Advance(time.Hour)
	e.push(t, "pa", row("Dana lives in Leeds.", "lives_in", "identity"))
	e.consolidate(t)
	e.clock.Advance(time.Hour)
	e.push(t, "pa", row("Dana moved to York.", "city", "observation"))
	e.consolidate(t)
	for _, tc := range []struct {
		content, key string
		active       bool
	}{
		{"Dana works for Acme.", "employer", false},
		{"Dana now works for Initech.", "employer", true},
		{"Dana lives in Leeds.", "home_city", false},
		{"Dana moved to York.", "home_city", true},
	} {
		var key, status string
		if err := e.pool.QueryRow(ctx, `SELECT key, status FROM entity_facts WHERE content = $1`, tc.content).Scan(&key, &status); err != nil {
			t.Fatalf("%q: %v", tc.content, err)
		}
		if key != tc.key || (status == "active") != tc.active {
			t.Errorf("%q = key %q, %s; want key %q, active %v", tc.content, key, status, tc.key, tc.active)
		}
	}
	res, err := e.store.PushNoted(ctx, agent, "pa", []NewNode{{Content: "Dana now works for Initech.", Properties: map[string]any{"entity": "Dana", "key": "company"}}}, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || res.Notes[0].Code != NoteDuplicate {
		t.Errorf("notes = %+v, want the duplicate of the live employer fact", res.Notes)
	}
}

// TestFulfilmentClosesObligation: a row saying an obligation was done, about
// the same entity, archives the obligation as fulfilled by its fact (audited,
// restorable); a denial, or the same words about another entity, leaves it
// open.
func TestFulfilmentClosesObligation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	about := func(entity, content string) NewNode {
		return NewNode{Content: content, Properties: map[string]any{"entity": entity}}
	}
	e.push(t, "pa", about("Mia", "Mia must pay the water bill by Friday."), about("Leo", "Leo must pay the water bill by Friday."))
	e.consolidate(t)
	e.clock.Advance(time.Hour)
	e.push(t, "pa", about("Mia", "Mia hasn't paid the water bill yet."))
	e.consolidate(t)
	status := func(content string) (string, string) {
		var st, reason string
		if err := e.pool.QueryRow(ctx, `SELECT status, coalesce(archive_reason, '') FROM entity_facts WHERE content = $1`,
			content).Scan(&st, &reason); err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		return st, reason
	}
	if st, _ := status("Mia must pay the water bill by Friday."); st != "active" {
		t.Fatalf("a denial closed the obligation: %s", st)
	}
	e.clock.Advance(time.Hour)
	e.push(t, "pa", about("Mia", "Paid the water bill this morning."))
	e.consolidate(t)
	var paid int64
	if err := e.pool.QueryRow(ctx, `SELECT id FROM entity_facts WHERE content = 'Paid the water bill this morning.'`).Scan(&paid); err != nil {
		t.Fatal(err)
	}
	if st, reason := status("Mia must pay the water bill by Friday."); st != "archived" || reason != fmt.Sprintf("fulfilled by fact %d", paid) {
		t.Errorf("Mia's obligation = %s (%q), want archived as fulfilled by fact %d", st, reason, paid)
	}
	if st, _ := status("Leo must pay the water bill by Friday."); st != "active" {
		t.Errorf("Leo's obligation = %s, want active: Mia paid hers", st)
	}
	var audited int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'fact.fulfil'`).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if audited != 1 {
		t.Errorf("fact.fulfil audit rows = %d, want 1", audited)
	}
}
