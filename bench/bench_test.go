package bench_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/bench"
	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestSeedCounts checks that Seed writes exactly what it reports, with the
// requested number of facts due.
func TestSeedCounts(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	c, err := bench.Seed(ctx, pool, bench.SeedOptions{Facts: 10000, Nodes: 1200, Scopes: 3, DueNow: 250, Now: now, Seed: 7})
	if err != nil {
		t.Fatalf("Seed = %v", err)
	}
	var facts, active, due, decisions, nodes, durable, transient, expired, durs, cats int
	err = pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM entity_facts), (SELECT count(*) FROM entity_facts WHERE status = 'active'),
		(SELECT count(*) FROM entity_facts WHERE status = 'active' AND forget_at <= $1 AND forget_at >= $1 - interval '1 hour'),
		(SELECT count(*) FROM decisions), (SELECT count(*) FROM memory_nodes),
		(SELECT count(*) FILTER (WHERE properties->>'durability' = 'durable') FROM memory_nodes),
		(SELECT count(*) FILTER (WHERE properties->>'durability' = 'transient') FROM memory_nodes),
		(SELECT count(*) FILTER (WHERE properties->>'durability' = 'expired') FROM memory_nodes),
		(SELECT count(DISTINCT durability) FROM entity_facts), (SELECT count(DISTINCT category) FROM entity_facts)`, now).Scan(
		&facts, &active, &due, &decisions, &nodes, &durable, &transient, &expired, &durs, &cats)
	if err != nil {
		t.Fatal(err)
	}
	if facts != 10000 || active != c.Active || due != 250 || decisions != c.Decisions || decisions == 0 || nodes != 1200 ||
		durable != c.Durable || transient != c.Transient || expired != c.Expired || expired == 0 || transient == 0 || durs != 4 || cats != 8 {
		t.Errorf("database holds facts=%d active=%d due=%d decisions=%d nodes=%d (durable %d, transient %d, expired %d), %d durabilities, %d categories; Seed reported %+v",
			facts, active, due, decisions, nodes, durable, transient, expired, durs, cats, c)
	}
	// The seed leaves recall's document frequencies folded, as a running
	// store's decay tick keeps them, and their sums equal to the facts'.
	var unfolded, mismatched int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM recall_terms WHERE NOT folded),
		(SELECT count(*) FROM (
			SELECT f.scope, l.lexeme, count(*) AS n FROM entity_facts f, unnest(tsvector_to_array(f.search)) l(lexeme)
			WHERE f.status = 'active' GROUP BY 1, 2
			UNION ALL -- each scope's row of totals
			SELECT scope, '', count(*) FROM entity_facts WHERE status = 'active' GROUP BY 1) live
		 FULL JOIN recall_terms t USING (scope, lexeme)
		 WHERE live.n IS DISTINCT FROM t.facts)`).Scan(&unfolded, &mismatched); err != nil {
		t.Fatal(err)
	}
	if unfolded != 0 || mismatched != 0 {
		t.Errorf("after the seed, recall_terms holds %d unfolded rows and %d lexemes whose count is not the live facts'", unfolded, mismatched)
	}
}

// TestSmall runs every workload at 10,000 facts: a smoke test of the
// benchmark code itself; no timing is asserted.
func TestSmall(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	opts := bench.Options{Seed: bench.SeedOptions{Facts: 10000, Nodes: 1200, Scopes: 4, DueNow: 100, Seed: 1,
		Now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}, Requests: 70, PushBatches: 2}
	rep, err := bench.Run(ctx, pool, opts)
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	s := rep.Seed
	if s.Facts != 10000 || s.Due != 100 || s.Durable+s.Transient+s.Expired != 1200 || s.Durable == 0 || s.Transient == 0 || s.Expired == 0 || s.Decisions == 0 {
		t.Errorf("seed counts = %+v, want 10000 facts, 100 due, 1200 working rows of every marker, some decisions", s)
	}
	want := []string{"decay tick", "consolidation", "facts page durability=permanent", "facts page durability=ephemeral",
		"facts page category=obligation", "facts page, all filters, p99", "peak RSS during the page", "recall p95", "batch push", "peak RSS during the push"}
	for _, w := range want {
		found := false
		for _, r := range rep.Results {
			if strings.HasPrefix(r.Workload, w) {
				found = true
				if r.Tenure <= 0 {
					t.Errorf("%s: tenure figure %v, want > 0", r.Workload, r.Tenure)
				}
				if r.BaseName != "" && r.Baseline <= 0 {
					t.Errorf("%s: baseline figure %v, want > 0", r.Workload, r.Baseline)
				}
			}
		}
		if !found {
			t.Errorf("no result for %q in %+v", w, rep.Results)
		}
	}
	var b strings.Builder
	if err := bench.WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
}
