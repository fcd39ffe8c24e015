package memory

import (
	"context"
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
