package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// planPool opens a pool with the settings of every Tenure process
// (statements planned for their parameters, SSD page costs, no parallel
// workers) that records every statement it runs.
func planPool(t *testing.T) (*pgxpool.Pool, *statementRecorder) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	cfg.ConnConfig.RuntimeParams["random_page_cost"] = "1.1"
	cfg.ConnConfig.RuntimeParams["max_parallel_workers_per_gather"] = "0"
	rec := &statementRecorder{}
	cfg.ConnConfig.Tracer = rec
	pgtest.WatchWarnings(t, cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, rec
}

// relationIndexes names the indexes of table.
func relationIndexes(t *testing.T, pool *pgxpool.Pool, table string) map[string]bool {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT indexname FROM pg_indexes WHERE tablename = $1`, table)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// rowsExamined is how many rows of table (and entries of its indexes) the
// plan's nodes produced or threw away, and whether any node read the whole
// table sequentially.
func rowsExamined(n factPlanNode, table string, indexes map[string]bool) (sum float64, seqScan bool) {
	if n.Relation == table || indexes[n.Index] {
		sum += (n.ActualRows + n.RemovedByFilter + n.RemovedByRecheck) * max(n.ActualLoops, 1)
		if n.NodeType == "Seq Scan" && n.Relation == table {
			seqScan = true
		}
	}
	for _, c := range n.Plans {
		s, seq := rowsExamined(c, table, indexes)
		sum += s
		seqScan = seqScan || seq
	}
	return sum, seqScan
}

// explainStatements runs EXPLAIN ANALYZE on every recorded statement that
// names table and returns the rows of table they examined, whether any read
// it sequentially, and their plans for a failure message.
func explainStatements(t *testing.T, pool *pgxpool.Pool, stmts []recordedStatement, table string, indexes map[string]bool) (float64, bool, string) {
	t.Helper()
	var examined float64
	var seq bool
	var plans strings.Builder
	for _, st := range stmts {
		if !strings.Contains(st.sql, table) {
			continue
		}
		var out []byte
		if err := pool.QueryRow(context.Background(), "EXPLAIN (ANALYZE, FORMAT JSON) "+st.sql, st.args...).Scan(&out); err != nil {
			t.Fatalf("explain: %v\n%s", err, st.sql)
		}
		var plan []struct {
			Plan factPlanNode `json:"Plan"`
		}
		if err := json.Unmarshal(out, &plan); err != nil {
			t.Fatal(err)
		}
		n, s := rowsExamined(plan[0].Plan, table, indexes)
		examined += n
		seq = seq || s
		name := st.sql
		if i := strings.Index(name, "\n"); i > 0 {
			name = name[:i]
		}
		plans.WriteString(name + "\n")
		planShape(plan[0].Plan, 1, &plans)
	}
	return examined, seq, plans.String()
}

// listPlanBound is how many rows of the big table one page may examine: two
// walks of the page's allowance and what the matches cost, far below the
// 50,000 rows a walk of the skewed scope reads.
const listPlanBound = 3*2040 + 1000

// seedPlanTables writes the skewed tables of the list plan tests: in scope
// big, 50,000 locked decisions on entity hub (every other one says
// halfword), 50,000 promoted working rows (every other one transient, a few
// set aside) and 50,000 refusals of one run; then, newer, a small scope
// with a few hundred of each: decisions that replace one another on 100
// keys (a tenth say rareword, a few are reopened), pending rows (a tenth
// expired) and refusals by the API.
func seedPlanTables(t *testing.T, pool *pgxpool.Pool) (runID int64) {
	t.Helper()
	ctx := context.Background()
	const big = 50_000
	seed := []string{
		`INSERT INTO entities (scope, name) VALUES ('big', 'hub'), ('small', 'hub'), ('small', 'ivy')`,
		`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence, confirmed_at, created_at, updated_at)
		 SELECT 'big', (SELECT id FROM entities WHERE scope = 'big'), 'k' || i, 'decided ' || i,
		        'permanent', 'decision', 0.9, $1::timestamptz, $1::timestamptz, $1::timestamptz
		 FROM generate_series(1, ` + fmt.Sprint(big) + `) i`,
		`INSERT INTO decisions (fact_id, scope, entity_id, key, decision, reasoning, alternatives, decided_at)
		 SELECT f.id, f.scope, f.entity_id, f.key,
		        'Decided ' || f.id || CASE WHEN f.id % 2 = 0 THEN ' HalfWord' ELSE ' plain' END,
		        'because it was measured', ARRAY['other way ' || f.id], $1::timestamptz
		 FROM entity_facts f WHERE f.scope = 'big' ORDER BY f.id`,
		`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence, confirmed_at, created_at, updated_at)
		 SELECT 'small', (SELECT id FROM entities WHERE scope = 'small' AND name = CASE WHEN i % 3 = 0 THEN 'hub' ELSE 'ivy' END),
		        'dup' || (i % 100), 'small decision ' || i, 'permanent', 'decision', 0.9, $1::timestamptz, $1::timestamptz, $1::timestamptz
		 FROM generate_series(1, 300) i`,
		`INSERT INTO decisions (fact_id, scope, entity_id, key, decision, reasoning, do_not_reopen, reopened_at, reopened_by, reopen_reason, decided_at)
		 SELECT f.id, f.scope, f.entity_id, f.key,
		        'small decision ' || f.id || CASE WHEN f.id % 10 = 0 THEN ' with RareWord_100% inside' ELSE '' END,
		        'it fits', f.id % 50 <> 7, CASE WHEN f.id % 50 = 7 THEN $1::timestamptz END,
		        CASE WHEN f.id % 50 = 7 THEN 'ann' END, CASE WHEN f.id % 50 = 7 THEN 'new facts' END, $1::timestamptz
		 FROM entity_facts f WHERE f.scope = 'small' ORDER BY f.id`,
		`INSERT INTO consolidation_runs (trigger, status, started_at, finished_at) VALUES ('test', 'succeeded', $1::timestamptz, $1::timestamptz)`,
		`INSERT INTO memory_nodes (scope, content, properties, created_at, promoted_at, promoted_fact_id, promoted_run_id)
		 SELECT 'big', 'row ' || i, CASE WHEN i % 2 = 0 THEN '{"durability": "transient"}' ELSE '{}' END::jsonb,
		        $1::timestamptz, $1::timestamptz, 1, (SELECT max(id) FROM consolidation_runs)
		 FROM generate_series(1, ` + fmt.Sprint(big) + `) i`,
		`INSERT INTO consolidation_faults (node_id, scope, phase, error, first_failed_at, last_failed_at)
		 SELECT id, scope, 10, 'broken', $1::timestamptz, $1::timestamptz FROM memory_nodes WHERE scope = 'big' AND id % 10000 = 3`,
		`INSERT INTO consolidation_rejections (run_id, phase, node_id, scope, reason, source, content, created_at)
		 SELECT (SELECT max(id) FROM consolidation_runs), 10, i, 'big', 'transient', 'consolidation', 'row ' || i, $1::timestamptz
		 FROM generate_series(1, ` + fmt.Sprint(big) + `) i`,
		`INSERT INTO memory_nodes (scope, content, properties, created_at)
		 SELECT 'small', 'small row ' || i, CASE WHEN i % 10 = 0 THEN '{"durability": "expired"}' ELSE '{}' END::jsonb, $1::timestamptz
		 FROM generate_series(1, 300) i`,
		`INSERT INTO consolidation_rejections (scope, reason, source, content, created_at)
		 SELECT 'small', CASE WHEN i % 10 = 0 THEN 'expired' ELSE 'transient' END, 'api', 'small refusal ' || i, $1::timestamptz
		 FROM generate_series(1, 300) i`,
		`ANALYZE`,
	}
	for _, q := range seed {
		var args []any
		if strings.Contains(q, "$1") {
			args = []any{fxStart}
		}
		if _, err := pool.Exec(ctx, q, args...); err != nil {
			t.Fatalf("seed: %v\n%s", err, q)
		}
	}
	if err := pool.QueryRow(ctx, `SELECT max(id) FROM consolidation_runs`).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	return runID
}

// collectIDs runs a reference query returning ids.
func collectIDs(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) []int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestListPlansAreBounded seeds skewed decisions, working rows and
// refusals and checks, with EXPLAIN ANALYZE of every statement each list
// runs, that no filter of the decision, working-row or rejection list reads
// its big table sequentially or examines rows in proportion to it: text
// found in half, in a few or in none of the decisions, an entity, a scope,
// each state, markers and states of working rows, every filter of the
// rejection log, their combinations, and later pages. Every page is also
// compared with the page a plain newest-first query returns.
func TestListPlansAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 150,000 rows")
	}
	ctx := context.Background()
	pool, rec := planPool(t)
	s := NewStore(pool, Options{Now: func() time.Time { return fxStart }})
	runID := seedPlanTables(t, pool)

	// check explains what one page ran and fails when it read too much, or
	// when the first page did not read index (an index, or a small table the
	// search starts from), when one is named.
	check := func(t *testing.T, table string, page int, what any, index string) {
		t.Helper()
		stmts := rec.take()
		examined, seq, plans := explainStatements(t, pool, stmts, table, relationIndexes(t, pool, table))
		if examined > listPlanBound || seq {
			t.Errorf("page %d of %+v examined %.0f rows of %s (more than %d, or sequentially):\n%s",
				page, what, examined, table, listPlanBound, plans)
		}
		if index != "" && page == 1 && !strings.Contains(plans, "using "+index+" ") && !strings.Contains(plans, "on "+index+" ") {
			t.Errorf("%+v did not read %s:\n%s", what, index, plans)
		}
	}
	page := func(ids []int64, limit int) (next int64) {
		if len(ids) > limit {
			return ids[limit-1]
		}
		return 0
	}

	t.Run("decisions", func(t *testing.T) {
		shapes := []struct {
			name  string
			f     DecisionFilter
			pages int
			index string // an index the first page must read, if any
		}{
			{"text in none", DecisionFilter{Query: "absentword"}, 1, "decisions_text_trgm_idx"},
			{"text in none, scope", DecisionFilter{Scope: "big", Query: "absentword"}, 1, "decisions_text_trgm_idx"},
			{"text in half, other case", DecisionFilter{Query: "halfWORD"}, 10, ""},
			{"text in half, scope", DecisionFilter{Scope: "big", Query: "halfword"}, 3, ""},
			{"text in a few, with a wildcard character", DecisionFilter{Query: "rareword_100%"}, 2, ""},
			{"text in a few, not in the big scope", DecisionFilter{Scope: "big", Query: "rareword"}, 1, "decisions_text_trgm_idx"},
			{"text across the reasoning and the key", DecisionFilter{Query: "measured k4999"}, 1, ""},
			{"text in an alternative", DecisionFilter{Query: "other way 17"}, 2, ""},
			{"entity", DecisionFilter{Entity: "hub"}, 10, ""},
			{"entity of the small scope, pages of 20", DecisionFilter{Entity: "ivy", Limit: 20}, 10, ""},
			{"entity and text in none", DecisionFilter{Entity: "hub", Query: "absentword"}, 1, ""},
			{"entity, scope and text in a few", DecisionFilter{Entity: "hub", Scope: "small", Query: "rareword"}, 1, ""},
			{"scope", DecisionFilter{Scope: "big"}, 10, ""},
			{"superseded", DecisionFilter{State: DecisionSuperseded}, 5, ""},
			{"superseded in the big scope (none)", DecisionFilter{Scope: "big", State: DecisionSuperseded}, 1, "decisions_superseded"},
			{"reopened", DecisionFilter{State: DecisionReopened}, 1, ""},
			{"reopened in the big scope (none)", DecisionFilter{Scope: "big", State: DecisionReopened}, 1, "decisions_reopened_idx"},
			{"unlocked, text in half (none)", DecisionFilter{Locked: new(bool), Query: "halfword"}, 1, ""},
			{"current, text in half", DecisionFilter{State: DecisionCurrent, Query: "halfword"}, 3, ""},
			{"current and text in none", DecisionFilter{State: DecisionCurrent, Query: "absentword"}, 1, ""},
		}
		for _, sh := range shapes {
			t.Run(sh.name, func(t *testing.T) {
				f := sh.f
				for p := 1; p <= sh.pages; p++ {
					limit := f.Limit
					if limit == 0 {
						limit = defaultDecisions
					}
					rec.take()
					f.Limit = limit + 1
					got, err := s.ListDecisions(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					check(t, "decisions", p, f, sh.index)
					want := referenceDecisions(t, pool, f)
					var ids []int64
					for _, d := range got {
						ids = append(ids, d.ID)
					}
					if !slices.Equal(ids, want) {
						t.Fatalf("page %d: ListDecisions(%+v) = %v, want %v", p, f, ids, want)
					}
					f.Limit = limit
					next := page(ids, limit)
					if next == 0 {
						break
					}
					f.BeforeID = next
				}
			})
		}
	})

	t.Run("working rows", func(t *testing.T) {
		shapes := []struct {
			name  string
			f     NodeFilter
			pages int
			index string
		}{
			{"every row", NodeFilter{}, 10, ""},
			{"pending", NodeFilter{State: NodesPending}, 10, ""},
			{"pending in the big scope (none)", NodeFilter{Scope: "big", State: NodesPending}, 1, "memory_nodes_filters_idx"},
			{"promoted", NodeFilter{State: NodesPromoted}, 10, ""},
			{"promoted in the small scope (none)", NodeFilter{Scope: "small", State: NodesPromoted}, 1, ""},
			{"expired", NodeFilter{Marker: string(MarkerExpired)}, 2, ""},
			{"expired in the big scope (none)", NodeFilter{Scope: "big", Marker: string(MarkerExpired)}, 1, "memory_nodes_filters_idx"},
			{"transient and pending (none)", NodeFilter{Marker: string(MarkerTransient), State: NodesPending}, 1, ""},
			{"transient and promoted", NodeFilter{Marker: string(MarkerTransient), State: NodesPromoted}, 10, ""},
			{"set aside", NodeFilter{State: NodesSetAside}, 2, ""},
			{"set aside in the small scope (none)", NodeFilter{Scope: "small", State: NodesSetAside}, 1, ""},
		}
		for _, sh := range shapes {
			t.Run(sh.name, func(t *testing.T) {
				f := sh.f
				const limit = 50
				for p := 1; p <= sh.pages; p++ {
					rec.take()
					f.Limit = limit + 1
					got, err := s.ListNodes(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					check(t, "memory_nodes", p, f, sh.index)
					want := collectIDs(t, pool, `SELECT n.id FROM memory_nodes n
						WHERE ($1::text = '' OR n.scope = $1) AND ($2::text = '' OR n.marker = $2)
						  AND ($3::text IN ('', 'set_aside') OR ($3 = 'pending') = (n.promoted_at IS NULL))
						  AND ($3 <> 'set_aside' OR EXISTS (SELECT 1 FROM consolidation_faults f WHERE f.node_id = n.id))
						  AND ($4::bigint = 0 OR n.id < $4)
						ORDER BY n.id DESC LIMIT $5`, f.Scope, f.Marker, f.State, f.BeforeID, limit+1)
					var ids []int64
					for _, n := range got {
						ids = append(ids, n.ID)
					}
					if !slices.Equal(ids, want) {
						t.Fatalf("page %d: ListNodes(%+v) = %v, want %v", p, f, ids, want)
					}
					next := page(ids, limit)
					if next == 0 {
						break
					}
					f.BeforeID = next
				}
			})
		}
	})

	t.Run("rejections", func(t *testing.T) {
		shapes := []struct {
			name  string
			f     RejectionFilter
			pages int
			index string
		}{
			{"every entry", RejectionFilter{}, 10, ""},
			{"the run, older than the walk's first entries", RejectionFilter{RunID: runID}, 10, ""},
			{"the run, tenth page onwards", RejectionFilter{RunID: runID, BeforeID: 40_000}, 2, ""},
			{"a run with none", RejectionFilter{RunID: runID + 1}, 1, "consolidation_rejections_filters_idx"},
			{"phase 12 (none)", RejectionFilter{Phase: PhaseDecide}, 1, ""},
			{"decision locked (none)", RejectionFilter{Reason: ReasonDecisionLocked}, 1, "consolidation_rejections_filters_idx"},
			{"expired", RejectionFilter{Reason: ReasonExpired}, 2, ""},
			{"expired in the big scope (none)", RejectionFilter{Scope: "big", Reason: ReasonExpired}, 1, ""},
			{"source import (none)", RejectionFilter{Source: "import"}, 1, ""},
			{"source api in the small scope", RejectionFilter{Scope: "small", Source: "api"}, 10, ""},
			{"the run in the small scope (none)", RejectionFilter{RunID: runID, Scope: "small"}, 1, ""},
			{"the run, promote phase, transient", RejectionFilter{RunID: runID, Phase: PhasePromote, Reason: ReasonTransient}, 3, ""},
		}
		for _, sh := range shapes {
			t.Run(sh.name, func(t *testing.T) {
				f := sh.f
				const limit = 50
				for p := 1; p <= sh.pages; p++ {
					rec.take()
					f.Limit = limit + 1
					got, err := s.ListRejections(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					check(t, "consolidation_rejections", p, f, sh.index)
					want := collectIDs(t, pool, `SELECT id FROM consolidation_rejections
						WHERE ($1::bigint = 0 OR run_id = $1) AND ($2::int = 0 OR phase = $2)
						  AND ($3::text = '' OR reason = $3) AND ($4::text = '' OR scope = $4)
						  AND ($5::text = '' OR source = $5) AND ($6::bigint = 0 OR id < $6)
						ORDER BY id DESC LIMIT $7`, f.RunID, f.Phase, f.Reason, f.Scope, f.Source, f.BeforeID, limit+1)
					var ids []int64
					for _, r := range got {
						ids = append(ids, r.ID)
					}
					if !slices.Equal(ids, want) {
						t.Fatalf("page %d: ListRejections(%+v) = %v, want %v", p, f, ids, want)
					}
					next := page(ids, limit)
					if next == 0 {
						break
					}
					f.BeforeID = next
				}
			})
		}
	})
}

// referenceDecisions is the page of decisions a plain newest-first query
// over the same filters returns, testing the replacement of each decision
// on its key itself rather than reading decisions_superseded.
func referenceDecisions(t *testing.T, pool *pgxpool.Pool, f DecisionFilter) []int64 {
	t.Helper()
	var pattern string
	if q := strings.TrimSpace(f.Query); q != "" {
		pattern = "%" + likeEscaper.Replace(q) + "%"
	}
	return collectIDs(t, pool, `SELECT d.id FROM decisions d JOIN entities e ON e.id = d.entity_id
		WHERE ($1::text = '' OR d.scope = $1) AND ($2::text = '' OR e.name = $2)
		  AND ($3::boolean IS NULL OR d.do_not_reopen = $3)
		  AND ($4::text = '' OR ($4 = 'superseded') = EXISTS (
		          SELECT 1 FROM decisions n WHERE n.entity_id = d.entity_id AND n.key = d.key AND n.id > d.id))
		  AND ($4 IN ('', 'superseded') OR d.do_not_reopen = ($4 = 'current'))
		  AND ($5::text = '' OR concat_ws(' ', d.decision, d.reasoning, d.key, array_to_string(d.alternatives, ' ')) ILIKE $5)
		  AND ($6::bigint = 0 OR d.id < $6)
		ORDER BY d.id DESC LIMIT $7`, f.Scope, f.Entity, f.Locked, f.State, pattern, f.BeforeID, f.Limit)
}
