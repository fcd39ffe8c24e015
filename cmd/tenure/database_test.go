package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestPoolReadsCategoryPageFromItsIndex: when the newest facts are all of
// other categories (a consolidation run just promoted thousands of
// observations), a page of one category is read from the category index,
// not by walking the primary key backwards past every newer fact.
func TestPoolReadsCategoryPageFromItsIndex(t *testing.T) {
	ctx := context.Background()
	pcfg, err := poolConfig(pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `INSERT INTO entities (scope, name) VALUES ('acme', 'Ann')`); err != nil {
		t.Fatal(err)
	}
	// 40,000 older facts over eight categories, then 40,000 newer observations.
	if _, err := pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, category)
		SELECT 'acme', (SELECT id FROM entities), 'fact ' || i,
			CASE WHEN i > 40000 THEN 'observation'
			     ELSE (ARRAY['observation', 'preference', 'identity', 'mood', 'decision', 'routine',
			                 'state', 'obligation'])[1 + i % 8] END
		FROM generate_series(1, 80000) i`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE entity_facts`); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `EXPLAIN SELECT f.id FROM entity_facts f
		WHERE f.category = $1 AND f.status = 'active' ORDER BY f.id DESC LIMIT 51`, "decision")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	if !strings.Contains(text, "entity_facts_category_idx") {
		t.Errorf("a page of decisions is not read from the category index:\n%s", text)
	}
}
