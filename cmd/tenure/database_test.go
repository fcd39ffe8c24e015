package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestPoolReadsCategoryPageFromItsIndex: when the newest facts are all of
// other categories (a consolidation run just promoted thousands of
// observations), a page of one category is read from the category index,
// not by walking the primary key backwards past every newer fact.
func TestPoolReadsCategoryPageFromItsIndex(t *testing.T) {
	ctx := context.Background()
	pool := processPool(t, nil)
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

// TestPoolLogsServerWarningsOnce: a warning the server sends on the pool's
// connections reaches Tenure's log, each distinct one once, however often the
// statement that causes it runs; notices below a warning are not logged.
func TestPoolLogsServerWarningsOnce(t *testing.T) {
	ctx := context.Background()
	var log strings.Builder
	logger := slog.New(slog.NewTextHandler(&log, nil))
	pool := processPool(t, logger)
	for range 3 {
		// Outside a transaction block, SET LOCAL warns (SQLSTATE 25P01).
		if _, err := pool.Exec(ctx, `SET LOCAL work_mem = '8MB'`); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `COMMIT`); err != nil { // warns 25P01 too: no transaction in progress
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS no_such_table`); err != nil { // a NOTICE
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("logged %d lines, want one for each of the two distinct warnings:\n%s", len(lines), log.String())
	}
	for i, want := range []string{"SET LOCAL can only be used in transaction blocks", "there is no transaction in progress"} {
		if !strings.Contains(lines[i], "level=WARN") || !strings.Contains(lines[i], "sqlstate=25P01") ||
			!strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want a WARN line with sqlstate=25P01 and %q", i, lines[i], want)
		}
	}
}

// processPool opens a pool to a fresh database with the configuration of
// every Tenure process (poolConfig), closed when the test ends.
func processPool(t *testing.T, logger *slog.Logger) *pgxpool.Pool {
	t.Helper()
	pcfg, err := poolConfig(pgtest.NewURL(t), logger)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestServerWarningsRemembersAtMostAHundred: past maxServerWarnings distinct
// warnings, new ones are not logged, so that warnings that differ at every
// execution (a value in the message) cannot grow the set without end.
func TestServerWarningsRemembersAtMostAHundred(t *testing.T) {
	var log strings.Builder
	w := &serverWarnings{logger: slog.New(slog.NewTextHandler(&log, nil))}
	for i := range 3 * maxServerWarnings {
		w.notice(nil, &pgconn.Notice{Severity: "WARNING", Code: "01000", Message: fmt.Sprintf("warning %d", i%(2*maxServerWarnings))})
	}
	if n := strings.Count(log.String(), "\n"); n != maxServerWarnings {
		t.Errorf("logged %d lines for %d distinct warnings, want %d", n, 2*maxServerWarnings, maxServerWarnings)
	}
	if len(w.seen) != maxServerWarnings {
		t.Errorf("remembers %d warnings, want %d", len(w.seen), maxServerWarnings)
	}
}

// TestPoolNeverCompilesStatements: a statement whose estimated cost passes
// jit_above_cost is compiled to machine code at each execution on a server
// with JIT (tens of milliseconds), as the server's default does; the
// process's connections plan it without JIT.
func TestPoolNeverCompilesStatements(t *testing.T) {
	ctx := context.Background()
	// Ten million row pairs, a third kept: an estimated cost far past the
	// default jit_above_cost.
	const costly = `EXPLAIN SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100) b WHERE a + b > 3`
	jit := func(db interface {
		Query(context.Context, string, ...any) (pgx.Rows, error)
	}) bool {
		rows, err := db.Query(ctx, costly)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(strings.Join(plan, "\n"), "JIT:")
	}
	if !jit(pgtest.Connect(t, pgtest.NewURL(t))) {
		t.Fatal("the server does not plan JIT for a costly statement with its default settings: this test needs a server with JIT (PostgreSQL's llvmjit) to show anything")
	}
	if jit(processPool(t, nil)) {
		t.Error("the process's pool plans JIT compilation for a costly statement")
	}
}
