package memory

import (
	"context"
	"testing"
)

// TestOneSentenceTwoAttributes: the extractor files a sentence that states
// two attributes as two rows with the same text ("the finance lead at
// Bluefin Logistics": occupation and employer); consolidation keeps both as
// facts, neither merged into the other, and a later employer supersedes the
// employer alone.
func TestOneSentenceTwoAttributes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const text = "I'm the finance lead at Bluefin Logistics."
	e.push(t, "acme",
		NewNode{Content: text, Properties: map[string]any{"entity": "Dana Whitfield", "key": "occupation", "category": "identity"}},
		NewNode{Content: text, Properties: map[string]any{"entity": "Dana Whitfield", "key": "employer", "category": "observation"}})
	e.consolidate(t)
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active'`); n != 2 {
		t.Fatalf("%d active facts, want the occupation and the employer", n)
	}
	e.push(t, "acme", NewNode{Content: "Dana Whitfield works at Kettle Labs now.",
		Properties: map[string]any{"entity": "Dana Whitfield", "key": "employer"}})
	e.consolidate(t)
	var keys []string
	rows, err := e.pool.Query(ctx, `SELECT key FROM entity_facts WHERE status = 'active' ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if len(keys) != 2 || keys[0] != "employer" || keys[1] != "occupation" {
		t.Errorf("active keys %v, want the new employer and the occupation", keys)
	}
}
