package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// statementRecorder is a pgx tracer that keeps every statement a pool runs
// with its arguments, so that a test can EXPLAIN exactly what the store ran.
type statementRecorder struct {
	mu    sync.Mutex
	stmts []recordedStatement
}

type recordedStatement struct {
	sql  string
	args []any
}

func (r *statementRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stmts = append(r.stmts, recordedStatement{sql: data.SQL, args: data.Args})
	return ctx
}

func (r *statementRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *statementRecorder) take() []recordedStatement {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stmts
	r.stmts = nil
	return out
}

// factPlanNode is the part of EXPLAIN (ANALYZE, FORMAT JSON) the plan test reads.
type factPlanNode struct {
	NodeType         string         `json:"Node Type"`
	Relation         string         `json:"Relation Name"`
	Index            string         `json:"Index Name"`
	ActualRows       float64        `json:"Actual Rows"`
	ActualLoops      float64        `json:"Actual Loops"`
	RemovedByFilter  float64        `json:"Rows Removed by Filter"`
	RemovedByRecheck float64        `json:"Rows Removed by Index Recheck"`
	Plans            []factPlanNode `json:"Plans"`
}

// factRowsExamined is how many entity_facts rows (and index entries of its
// indexes) the plan's nodes produced or threw away.
func factRowsExamined(n factPlanNode, factIndexes map[string]bool) float64 {
	var sum float64
	if n.Relation == "entity_facts" || factIndexes[n.Index] {
		sum += (n.ActualRows + n.RemovedByFilter + n.RemovedByRecheck) * max(n.ActualLoops, 1)
	}
	for _, c := range n.Plans {
		sum += factRowsExamined(c, factIndexes)
	}
	return sum
}

// planShape lists the plan's node types with their index, one per line.
func planShape(n factPlanNode, depth int, b *strings.Builder) {
	fmt.Fprintf(b, "%s%s", strings.Repeat("  ", depth), n.NodeType)
	if n.Index != "" {
		fmt.Fprintf(b, " using %s", n.Index)
	}
	if n.Relation != "" {
		fmt.Fprintf(b, " on %s", n.Relation)
	}
	fmt.Fprintf(b, " (rows %.0f, removed %.0f)\n", n.ActualRows, n.RemovedByFilter+n.RemovedByRecheck)
	for _, c := range n.Plans {
		planShape(c, depth+1, b)
	}
}

// TestListFactsPlansAreBounded seeds a skewed table (a scope of 100,000
// facts about one entity, a word in none of them and a word in half of
// them) and checks, with EXPLAIN ANALYZE of every statement ListFacts runs,
// that no filter makes the fact list examine rows in proportion to the
// table: the text, entity and combined filters read a bounded walk of the
// newest facts and then only the matches the indexes find. It also checks
// that each page is the one a plain newest-first query returns.
func TestListFactsPlansAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100,000 facts")
	}
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	// The settings of every Tenure process (cmd/tenure's pool): statements
	// planned for their parameters, SSD page costs, no parallel workers.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	cfg.ConnConfig.RuntimeParams["random_page_cost"] = "1.1"
	cfg.ConnConfig.RuntimeParams["max_parallel_workers_per_gather"] = "0"
	rec := &statementRecorder{}
	cfg.ConnConfig.Tracer = rec
	pgtest.WatchWarnings(t, cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := NewStore(pool, Options{Now: func() time.Time { return fxStart }})

	const big = 100_000
	seed := []string{
		`INSERT INTO entities (scope, name) VALUES ('big', 'hub'), ('small', 'hub'), ('small', 'ivy')`,
		// The skewed scope: one entity, every other fact says halfword.
		`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence, confirmed_at, created_at, updated_at)
		 SELECT 'big', (SELECT id FROM entities WHERE scope = 'big'), 'k' || i,
		        'note ' || i || CASE WHEN i % 2 = 0 THEN ' halfword' ELSE ' plain' END,
		        'permanent', 'observation', 0.9, $1::timestamptz, $1::timestamptz, $1::timestamptz
		 FROM generate_series(1, ` + fmt.Sprint(big) + `) i`,
		// A small scope written after it, with a word found only there.
		`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence, confirmed_at, created_at, updated_at)
		 SELECT 'small', (SELECT id FROM entities WHERE scope = 'small' AND name = CASE WHEN i % 3 = 0 THEN 'hub' ELSE 'ivy' END),
		        'k' || i, 'small note ' || i || CASE WHEN i % 10 = 0 THEN ' rareword' ELSE '' END,
		        'long_term', CASE WHEN i % 2 = 0 THEN 'mood' ELSE 'observation' END, 0.9,
		        $1::timestamptz, $1::timestamptz, $1::timestamptz
		 FROM generate_series(1, 300) i`,
		`ANALYZE entity_facts`,
		`ANALYZE entities`,
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
	factIndexes := map[string]bool{}
	rows, err := pool.Query(ctx, `SELECT indexname FROM pg_indexes WHERE tablename = 'entity_facts'`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		factIndexes[n] = true
	}

	// The bound: two walks of the page's allowance and what the matches
	// cost, far below the 100,000 facts a walk of the scope would read.
	const bound = 3*2040 + 1000
	shapes := []struct {
		name  string
		f     FactFilter
		pages int
		// searched is set when the page must come from the full-text index
		// (the word is in none of the walked facts).
		searched bool
	}{
		{"text in none", FactFilter{Query: "absentword"}, 1, true},
		{"text in none, scope", FactFilter{Scope: "big", Query: "absentword"}, 1, true},
		{"text in half", FactFilter{Query: "halfword"}, 10, false},
		{"text in half, scope", FactFilter{Scope: "big", Query: "halfword"}, 10, false},
		{"text in a few, the big scope walked first", FactFilter{Query: "rareword", BeforeID: 0}, 1, false},
		{"text in none of the big scope, found elsewhere", FactFilter{Scope: "big", Query: "rareword"}, 1, true},
		{"entity", FactFilter{Entity: "hub"}, 10, false},
		{"entity, scope", FactFilter{Entity: "hub", Scope: "big"}, 2, false},
		{"entity and text in none", FactFilter{Entity: "hub", Query: "absentword"}, 1, true},
		{"entity and text in half", FactFilter{Entity: "hub", Query: "halfword"}, 10, false},
		{"entity, scope, text in none", FactFilter{Entity: "hub", Scope: "big", Query: "absentword"}, 1, true},
		{"category in none of the big scope", FactFilter{Scope: "big", Category: CategoryMood}, 1, false},
		{"category and text", FactFilter{Category: CategoryObservation, Query: "halfword"}, 2, false},
		{"archived and text", FactFilter{Status: string(StatusArchived), Query: "halfword"}, 1, false},
		{"all statuses, text in none", FactFilter{Status: FactStatusAll, Query: "absentword"}, 1, true},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			f := sh.f
			for page := 1; page <= sh.pages; page++ {
				rec.take()
				got, err := s.ListFacts(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				stmts := rec.take()
				checkFactPage(t, pool, f, got)

				var examined float64
				var plans strings.Builder
				usedText := false
				for _, st := range stmts {
					if !strings.Contains(st.sql, "entity_facts") {
						continue
					}
					var out []byte
					if err := pool.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+st.sql, st.args...).Scan(&out); err != nil {
						t.Fatalf("explain: %v\n%s", err, st.sql)
					}
					var plan []struct {
						Plan factPlanNode `json:"Plan"`
					}
					if err := json.Unmarshal(out, &plan); err != nil {
						t.Fatal(err)
					}
					examined += factRowsExamined(plan[0].Plan, factIndexes)
					var shape strings.Builder
					planShape(plan[0].Plan, 0, &shape)
					plans.WriteString(shape.String())
					if strings.Contains(st.sql, "name: FactIDsSearch ") && strings.Contains(shape.String(), "Bitmap Index Scan using entity_facts_") &&
						!strings.Contains(shape.String(), "Index Scan Backward") {
						usedText = true
					}
				}
				if examined > bound {
					t.Errorf("page %d of %+v examined %.0f fact rows, more than %d:\n%s", page, f, examined, bound, plans.String())
				}
				if sh.searched && page == 1 && !usedText {
					t.Errorf("%+v did not read its matches from an index after the walk:\n%s", f, plans.String())
				}
				if got.Next == 0 {
					break
				}
				f.BeforeID = got.Next
			}
		})
	}
}

// checkFactPage compares a page of ListFacts with the page a plain
// newest-first query over the same filters returns.
func checkFactPage(t *testing.T, pool *pgxpool.Pool, f FactFilter, got FactPage) {
	t.Helper()
	limit := f.Limit
	if limit == 0 {
		limit = defaultFactsLimit
	}
	status := &f.Status
	switch f.Status {
	case "":
		active := string(StatusActive)
		status = &active
	case FactStatusAll:
		status = nil
	}
	text := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	rows, err := pool.Query(context.Background(), `
		SELECT f.id FROM entity_facts f JOIN entities e ON e.id = f.entity_id
		WHERE ($1::text IS NULL OR f.scope = $1)
		  AND ($2::text IS NULL OR e.name = $2)
		  AND ($3::text IS NULL OR f.category = $3)
		  AND ($4::text IS NULL OR f.status = $4)
		  AND ($5::text IS NULL OR f.search @@ websearch_to_tsquery('english', $5))
		  AND ($6::bigint = 0 OR f.id < $6)
		ORDER BY f.id DESC LIMIT $7`,
		text(f.Scope), text(f.Entity), text(f.Category), status, text(f.Query), f.BeforeID, limit+1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	var wantNext int64
	if len(want) > limit {
		want = want[:limit]
		wantNext = want[limit-1]
	}
	var ids []int64
	for _, fact := range got.Facts {
		ids = append(ids, fact.ID)
	}
	if !slices.Equal(ids, want) || got.Next != wantNext {
		t.Fatalf("ListFacts(%+v) = %v next %d, want %v next %d", f, ids, got.Next, want, wantNext)
	}
}

// TestOverviewAxesFollowWrites: the overview's facts by axes, read from the
// counts the triggers keep, equal a count of the facts themselves after
// every kind of write, and after the counts are folded.
func TestOverviewAxesFollowWrites(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		v, err := fx.s.Overview(ctx, OverviewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := fx.pool.Query(ctx, `SELECT durability, category, count(*) FROM entity_facts
			WHERE status = 'active' GROUP BY 1, 2 ORDER BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AxesCount, error) {
			var c AxesCount
			err := r.Scan(&c.Durability, &c.Category, &c.Facts)
			return c, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(v.Axes, want) {
			t.Errorf("%s: overview axes = %v, counted %v", when, v.Axes, want)
		}
	}
	check("empty")
	a := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Key: "lives_in", Content: "Ann lives in Lyon"})
	b := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann is cheerful", Category: CategoryMood})
	fx.create(t, reviewer, NewFact{Scope: "work", Entity: "Bob", Content: "Bob likes tea", Category: CategoryPreference})
	check("after creates")
	if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{a.ID}, "moved"); err != nil {
		t.Fatal(err)
	}
	check("after an archive")
	if _, err := fx.s.RestoreFacts(ctx, reviewer, []int64{a.ID}, "back"); err != nil {
		t.Fatal(err)
	}
	check("after a restore")
	long := LongTerm
	obs := CategoryObservation
	if _, err := fx.s.ReclassifyFacts(ctx, reviewer, []int64{b.ID}, &long, &obs, "not a mood"); err != nil {
		t.Fatal(err)
	}
	check("after a reclassification")
	if _, err := fx.pool.Exec(ctx, `DELETE FROM entities WHERE name = 'Bob'`); err != nil {
		t.Fatal(err)
	}
	check("after a cascading delete")
	// Many small statements pile rows up past the fold threshold.
	for i := range foldFactAxesAt + 10 {
		fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Cy", Key: fmt.Sprintf("k%d", i), Content: fmt.Sprintf("note %d", i)})
	}
	check("before the fold")
	check("after the fold")
	var parts int
	if err := fx.pool.QueryRow(ctx, `SELECT count(*) FROM fact_axes_counts`).Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if parts > 10 {
		t.Errorf("fact_axes_counts holds %d rows after the fold, want one per triple", parts)
	}
	if _, err := fx.pool.Exec(ctx, `TRUNCATE entity_facts CASCADE`); err != nil {
		t.Fatal(err)
	}
	check("after a truncate")
}
