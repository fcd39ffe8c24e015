package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// Options configure a benchmark run over a seeded database.
type Options struct {
	Seed SeedOptions
	// Requests is how many page requests and recall queries to time.
	Requests int
	// PushBatches is how many batches of 1,000 rows to push.
	PushBatches int
	// Budget bounds the page and the recall workloads each: timing stops
	// early, with fewer samples, once it is spent; default 2 minutes.
	Budget time.Duration
	Logger *slog.Logger
	// Progress receives a line as each workload starts; nil for none.
	Progress io.Writer
	// NoRewrite skips decay's second baseline, the UPDATE of every active
	// fact (minutes at millions of facts): the curve measures how Tenure's
	// own work grows, not that baseline.
	NoRewrite bool
	// Seeded runs the workloads on a database "tenure bench seed" filled
	// already (with the same Seed options), rather than seeding it.
	Seeded bool
	// Workloads, when set, runs only the workloads named (Workloads lists
	// the names); empty runs them all.
	Workloads []string
}

// Workloads are the names of the workloads, in the order Run runs them.
var Workloads = []string{"decay", "consolidation", "page", "pages", "recall", "brief", "push", "pending"}

// Result is one workload's figures.
type Result struct {
	Workload string  `json:"workload"`
	Unit     string  `json:"unit"`
	Tenure   float64 `json:"tenure"`
	Baseline float64 `json:"baseline"` // 0 when the workload has none
	BaseName string  `json:"baseline_name"`
	Ratio    float64 `json:"ratio"` // tenure / baseline
	Target   string  `json:"target"`
	Met      *bool   `json:"met,omitempty"` // nil when the row has no target
}

// Report is a whole run.
type Report struct {
	Seed    SeedCounts `json:"seed"`
	Results []Result   `json:"results"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func met(ok bool) *bool { return &ok }

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Run seeds an empty migrated database behind pool and measures every
// workload against its baseline on the same data.
func Run(ctx context.Context, pool *pgxpool.Pool, o Options) (Report, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Requests <= 0 {
		o.Requests = 3000
	}
	if o.Budget <= 0 {
		o.Budget = 2 * time.Minute
	}
	if o.PushBatches <= 0 {
		o.PushBatches = 20
	}
	if o.Seed.Now.IsZero() {
		o.Seed.Now = time.Now()
	}
	now := o.Seed.Now.UTC().Truncate(time.Microsecond)
	o.Seed.Now = now
	var rep Report
	for _, w := range o.Workloads {
		if !slices.Contains(Workloads, w) {
			return rep, fmt.Errorf("no workload %q: use %s", w, strings.Join(Workloads, ", "))
		}
	}
	counts := SeedCounts{Due: o.Seed.DueNow}
	if !o.Seeded {
		fmt.Fprintf(o.Progress, "seeding %d facts, %d working rows...\n", o.Seed.Facts, o.Seed.Nodes)
		var err error
		if counts, err = Seed(ctx, pool, o.Seed); err != nil {
			return rep, err
		}
		fmt.Fprintf(o.Progress, "seeded in %s\n", counts.Elapsed.Round(time.Millisecond))
	}
	rep.Seed = counts
	clock := func() time.Time { return now }
	store := memory.NewStore(pool, memory.Options{Logger: o.Logger, Now: clock})

	steps := map[string]func() ([]Result, error){
		"decay":         func() ([]Result, error) { return decay(ctx, pool, store, now, counts.Due, o.NoRewrite, o.Progress) },
		"consolidation": func() ([]Result, error) { return consolidation(ctx, pool, store, now, o.Progress) },
		"page":          func() ([]Result, error) { return page(ctx, pool, store, now, o) },
		"pages":         func() ([]Result, error) { return pages(ctx, pool, store, now, o) },
		"recall":        func() ([]Result, error) { return recall(ctx, pool, store, now, o) },
		"brief":         func() ([]Result, error) { return brief(ctx, store, o) },
		"push":          func() ([]Result, error) { return push(ctx, pool, store, now, o) },
		"pending":       func() ([]Result, error) { return pending(ctx, pool, store, now, o) },
	}
	for _, name := range Workloads {
		if len(o.Workloads) > 0 && !slices.Contains(o.Workloads, name) {
			continue
		}
		res, err := steps[name]()
		if err != nil {
			return rep, err
		}
		rep.Results = append(rep.Results, res...)
	}
	return rep, nil
}

// timeTx runs sql in a transaction that is rolled back, and returns its
// duration and affected rows.
func timeTx(ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) (time.Duration, int64, error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback(ctx)
	start := time.Now()
	tag, err := tx.Exec(ctx, sql, args...)
	d := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	return d, tag.RowsAffected(), nil
}

// floorDecaySQL archives exactly the due rows through the forget_at index,
// with nothing else: no batching, no audit.
const floorDecaySQL = `UPDATE entity_facts SET status = 'archived', archived_at = $1, archive_reason = 'decayed'
WHERE status = 'active' AND forget_at <= $1`

// rewriteAllSQL is what a maintenance script that recomputes every row does.
const rewriteAllSQL = `UPDATE entity_facts SET confidence = tenure_effective_confidence(durability, category,
confidence, confirmed_at, deadline, $1) WHERE status = 'active'`

func decay(ctx context.Context, pool *pgxpool.Pool, store *memory.Store, now time.Time, due int, noRewrite bool, progress io.Writer) ([]Result, error) {
	fmt.Fprintln(progress, "decay: floor, Tenure, then the full rewrite")
	// Three rounds of the floor (rolled back) then Decay (committed), the
	// archived facts made active again after each round so the next one
	// finds the same due set; each side keeps its best round. Both sides
	// then step over the same dead row versions.
	var floor, took time.Duration
	for i := 0; i < 3; i++ {
		d, n, err := timeTx(ctx, pool, floorDecaySQL, now)
		if err != nil {
			return nil, fmt.Errorf("decay floor: %w", err)
		}
		if int(n) != due {
			return nil, fmt.Errorf("decay floor archived %d rows, want %d", n, due)
		}
		if i == 0 || d < floor {
			floor = d
		}
		start := time.Now()
		r, err := store.Decay(ctx, memory.System("bench"))
		t := time.Since(start)
		if err != nil {
			return nil, err
		}
		if r.Archived != due {
			return nil, fmt.Errorf("decay archived %d facts, want %d", r.Archived, due)
		}
		if i == 0 || t < took {
			took = t
		}
		if i < 2 {
			tag, err := pool.Exec(ctx, restoreDecayedSQL, now)
			if err != nil {
				return nil, fmt.Errorf("decay: restore: %w", err)
			}
			if int(tag.RowsAffected()) != due {
				return nil, fmt.Errorf("decay: restored %d facts, want %d", tag.RowsAffected(), due)
			}
		}
	}
	out := []Result{
		{Workload: fmt.Sprintf("decay tick, %d due", due), Unit: "ms", Tenure: ms(took), Baseline: ms(floor),
			BaseName: "bare UPDATE of the due rows (floor)", Ratio: float64(took) / float64(floor),
			Target: "≤ 1.5× floor", Met: met(float64(took) <= 1.5*float64(floor))},
	}
	if noRewrite {
		return out, nil
	}
	// The rewrite runs last: its rolled-back UPDATE leaves a dead version of
	// every active row and an index entry for each, which would slow the
	// index walks timed before it.
	rewrite, _, err := timeTx(ctx, pool, rewriteAllSQL, now)
	if err != nil {
		return nil, fmt.Errorf("decay rewrite: %w", err)
	}
	return append(out,
		Result{Workload: fmt.Sprintf("decay tick, %d due", due), Unit: "ms", Tenure: ms(took), Baseline: ms(rewrite),
			BaseName: "UPDATE every active fact's confidence", Ratio: float64(took) / float64(rewrite),
			Target: "≤ 0.01× (≥ 100× faster)", Met: met(100*float64(took) <= float64(rewrite))},
	), nil
}

// restoreDecayedSQL makes the facts the bench's Decay archived active again;
// their forget_at has still passed, so they are due again.
const restoreDecayedSQL = `UPDATE entity_facts SET status = 'active', archived_at = NULL, archive_reason = NULL
WHERE status = 'archived' AND archived_at = $1`

// vacuumFacts vacuums the tables consolidation reads and writes.
func vacuumFacts(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) entity_facts, memory_nodes, entities"); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	return nil
}

// floorConsolidateSQL copies the pending durable rows into entity_facts with
// one statement: no classification, no locks, no merge, no audit.
const floorConsolidateSQL = `INSERT INTO entity_facts (scope, entity_id, key, content, durability, category,
    confidence, source, source_node_id, confirmed_at)
SELECT n.scope, e.id, n.properties->>'key', n.content,
    coalesce(n.properties->>'fact_durability', 'long_term'), coalesce(n.properties->>'category', 'observation'),
    0.8, 'consolidation', n.id, $1
FROM memory_nodes n JOIN entities e ON e.scope = n.scope AND e.name = n.properties->>'entity'
WHERE n.promoted_at IS NULL AND n.marker = 'durable'`

func consolidation(ctx context.Context, pool *pgxpool.Pool, store *memory.Store, now time.Time, progress io.Writer) ([]Result, error) {
	fmt.Fprintln(progress, "consolidation: floor, then Tenure, then what one inserted fact costs")
	// Each starts from a vacuumed table, as autovacuum would leave it: the
	// workloads before (decay's full rewrite) and the floor roll back whole
	// passes over the facts, whose dead rows and index entries the next
	// writer would otherwise be the first to meet.
	if err := vacuumFacts(ctx, pool); err != nil {
		return nil, err
	}
	floor, n, err := timeTx(ctx, pool, floorConsolidateSQL, now)
	if err != nil {
		return nil, fmt.Errorf("consolidation floor: %w", err)
	}
	if err := vacuumFacts(ctx, pool); err != nil {
		return nil, err
	}
	floorRate := float64(n) / floor.Seconds()
	var phases []int
	took := map[int]time.Duration{}
	start := time.Now()
	run, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerManual,
		PhaseDone: func(phase int, d time.Duration) {
			phases = append(phases, phase)
			took[phase] = d
		}})
	whole := time.Since(start)
	if err != nil {
		return nil, err
	}
	var handled int
	err = pool.QueryRow(ctx, `SELECT count(*) FROM memory_nodes WHERE promoted_at IS NOT NULL`).Scan(&handled)
	if err != nil {
		return nil, err
	}
	if handled == 0 {
		return nil, fmt.Errorf("consolidation promoted nothing: report %v", run.Report)
	}
	rate := float64(handled) / whole.Seconds()
	out := []Result{{Workload: fmt.Sprintf("consolidation, %d promoted (whole run %s)", handled, whole.Round(time.Millisecond)),
		Unit: "rows/s", Tenure: rate, Baseline: floorRate, BaseName: "one INSERT ... SELECT of the durable rows",
		Ratio: rate / floorRate, Target: "≥ 20,000 rows/s, ≥ floor / 1.5",
		Met: met(rate >= 20000 && 1.5*rate >= floorRate)}}
	// Where the run's time went, phase by phase.
	for _, phase := range phases {
		out = append(out, Result{Workload: fmt.Sprintf("consolidation phase %d %s", phase, memory.PhaseName(phase)),
			Unit: "ms", Tenure: ms(took[phase])})
	}
	// What one inserted fact costs, part by part: copies of the facts the run
	// just wrote, inserted without one part at a time in a rolled-back
	// transaction (the DDL rolls back with it), three rounds each, the best
	// kept. The reference is the insert every writer but consolidation
	// makes, whose decay terms the trigger computes row by row.
	const sample = 2000
	parts, err := factParts(ctx, pool, now, sample)
	if err != nil {
		return nil, fmt.Errorf("consolidation parts: %w", err)
	}
	if len(parts) > 0 {
		all := parts[0].perFact
		for _, p := range parts {
			out = append(out, Result{Workload: "consolidation, one inserted fact: " + p.name, Unit: "µs",
				Tenure: p.perFact, Baseline: all, BaseName: parts[0].name, Ratio: p.perFact / all})
		}
	}
	return out, nil
}

// factPart is one way of inserting facts, and what a fact cost that way.
type factPart struct {
	name    string
	ddl     []string
	sql     string
	perFact float64 // µs
}

// copyFactsSQL inserts copies of the newest facts consolidation wrote,
// leaving their decay terms to the trigger.
const copyFactsSQL = `INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence,
    importance, confirmed_at, deadline, source, source_node_id, created_at, updated_at)
SELECT scope, entity_id, key, content, durability, category, confidence, importance, $1, deadline,
    source, source_node_id, $1, $1
FROM entity_facts
WHERE source = 'consolidation' AND status = 'active'
ORDER BY id DESC
LIMIT $2`

// copyFactsTermsSQL inserts the same copies with their decay terms computed
// in the statement, once for each distinct set of inputs, as consolidation
// writes its facts. The join is on equalities only (a missing deadline as
// -infinity), so that it can hash, as PromoteNodes' does: IS NOT DISTINCT
// FROM would make it a nested loop over every pair.
const copyFactsTermsSQL = `WITH src AS MATERIALIZED (
    SELECT scope, entity_id, key, content, durability, category, confidence, importance, deadline,
        source, source_node_id, search
    FROM entity_facts
    WHERE source = 'consolidation' AND status = 'active'
    ORDER BY id DESC
    LIMIT $2
),
terms AS MATERIALIZED (
    SELECT c.durability, c.category, c.confidence, c.deadline, s.half_life, s.decay_from, s.forget_at
    FROM (SELECT DISTINCT durability, category, confidence, deadline FROM src) c
    CROSS JOIN LATERAL tenure_decay_state(c.durability, c.category, c.confidence, $1, NULL, c.deadline) s
)
INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence,
    importance, confirmed_at, deadline, source, source_node_id, created_at, updated_at,
    decay_half_life, decay_from, forget_at, search)
SELECT f.scope, f.entity_id, f.key, f.content, f.durability, f.category, f.confidence, f.importance, $1,
    f.deadline, f.source, f.source_node_id, $1, $1, t.half_life, t.decay_from, t.forget_at, f.search
FROM src f
JOIN terms t ON t.durability = f.durability AND t.category = f.category AND t.confidence = f.confidence
    AND coalesce(t.deadline, '-infinity') = coalesce(f.deadline, '-infinity')`

// factParts measures what one inserted fact costs with everything entity_facts
// maintains, with its decay terms computed as consolidation does, and without
// each GIN index, without every other secondary index, without the foreign key,
// and with none of them nor any trigger.
func factParts(ctx context.Context, pool *pgxpool.Pool, now time.Time, sample int) ([]factPart, error) {
	rows, err := pool.Query(ctx, `SELECT c.relname::text, a.amname::text
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'entity_facts'::regclass AND NOT i.indisprimary
ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	var gin, all []string
	for rows.Next() {
		var name, am string
		if err := rows.Scan(&name, &am); err != nil {
			return nil, err
		}
		all = append(all, "DROP INDEX "+name)
		if am == "gin" {
			gin = append(gin, name)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var btree []string
	for _, d := range all {
		if !slices.Contains(gin, strings.TrimPrefix(d, "DROP INDEX ")) {
			btree = append(btree, d)
		}
	}
	const dropFK = "ALTER TABLE entity_facts DROP CONSTRAINT entity_facts_entity_fkey"
	parts := []factPart{
		{name: "as every writer inserts it (decay terms by the trigger)", sql: copyFactsSQL},
		{name: "decay terms computed in the statement, as consolidation writes", sql: copyFactsTermsSQL},
	}
	for _, g := range gin {
		parts = append(parts, factPart{name: "the same without " + g, ddl: []string{"DROP INDEX " + g}, sql: copyFactsTermsSQL})
	}
	parts = append(parts,
		// The search vector is the trigger's (the copy's own is given too,
		// for the part without triggers).
		factPart{name: "the same without the search trigger (entity name, key, content)",
			ddl: []string{"ALTER TABLE entity_facts DISABLE TRIGGER entity_facts_search"}, sql: copyFactsTermsSQL},
		factPart{name: "the same without recall's document frequencies (recall_terms triggers)",
			ddl: []string{"ALTER TABLE entity_facts DISABLE TRIGGER recall_terms_insert"}, sql: copyFactsTermsSQL},
		factPart{name: fmt.Sprintf("the same without the %d B-tree indexes but the primary key", len(btree)), ddl: btree, sql: copyFactsTermsSQL},
		factPart{name: "the same without the foreign key to entities", ddl: []string{dropFK}, sql: copyFactsTermsSQL},
		factPart{name: "heap and primary key only (no other index, foreign key or trigger)",
			ddl: append(slices.Clone(all), dropFK, "ALTER TABLE entity_facts DISABLE TRIGGER USER"), sql: copyFactsTermsSQL})
	best := make([]time.Duration, len(parts))
	var n int64
	for round := 0; round < 3; round++ {
		for i, p := range parts {
			d, rows, err := timePart(ctx, pool, p, now, sample)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.name, err)
			}
			if rows == 0 {
				return nil, nil
			}
			n = rows
			if round == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	for i := range parts {
		parts[i].perFact = float64(best[i].Nanoseconds()) / 1000 / float64(n)
	}
	return parts, nil
}

// timePart runs one part's DDL and insert in a transaction that is rolled
// back, and times the insert.
func timePart(ctx context.Context, pool *pgxpool.Pool, p factPart, now time.Time, sample int) (time.Duration, int64, error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback(ctx)
	for _, d := range p.ddl {
		if _, err := tx.Exec(ctx, d); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", d, err)
		}
	}
	start := time.Now()
	tag, err := tx.Exec(ctx, p.sql, now, sample)
	d := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	return d, tag.RowsAffected(), nil
}

// session is a signed-in console client calling the handler in-process.
type session struct {
	h       http.Handler
	cookies map[string]*http.Cookie
}

func (s *session) do(req *http.Request) *httptest.ResponseRecorder {
	for _, c := range s.cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		s.cookies[c.Name] = c
	}
	return rec
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// signIn signs the bench's viewer in to the console served by h.
func signIn(ctx context.Context, pool *pgxpool.Pool, h http.Handler) (*session, error) {
	return signInViewer(ctx, pool, h, "bench@example.com")
}

type filter struct{ durability, category string }

func (f filter) query() string {
	v := url.Values{}
	if f.durability != "" {
		v.Set("durability", f.durability)
	}
	if f.category != "" {
		v.Set("category", f.category)
	}
	return v.Encode()
}

func (f filter) name() string {
	if f.durability != "" {
		return "durability=" + f.durability
	}
	return "category=" + f.category
}

func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is this process's VmHWM in MiB.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func page(ctx context.Context, pool *pgxpool.Pool, store *memory.Store, now time.Time, o Options) ([]Result, error) {
	fmt.Fprintln(o.Progress, "facts page: Tenure and the bare query, per filter")
	resetPeakRSS()
	clock := func() time.Time { return now }
	assets, err := static.New()
	if err != nil {
		return nil, err
	}
	srv, err := server.New(server.Config{Pool: pool, Logger: o.Logger, Now: clock, Store: store, Assets: assets})
	if err != nil {
		return nil, err
	}
	s, err := signIn(ctx, pool, srv)
	if err != nil {
		return nil, err
	}
	var filters []filter
	for _, d := range memory.Durabilities() {
		filters = append(filters, filter{durability: string(d)})
	}
	for _, c := range []string{memory.CategoryObservation, memory.CategoryDecision, memory.CategoryObligation} {
		filters = append(filters, filter{category: c})
	}
	per := max(10, o.Requests/len(filters))
	perBudget := o.Budget / time.Duration(len(filters))
	var out []Result
	var all, allBase []time.Duration
	for _, f := range filters {
		var times, base []time.Duration
		params := memory.FactFilter{At: now, Durability: f.durability, Category: f.category, Limit: 50}
		fstart := time.Now()
		for i := 0; i < per+5 && (i < 15 || time.Since(fstart) < perBudget); i++ {
			req := httptest.NewRequest(http.MethodGet, "/facts?"+f.query(), nil)
			for _, c := range s.cookies {
				req.AddCookie(c)
			}
			rec := httptest.NewRecorder()
			start := time.Now()
			srv.ServeHTTP(rec, req)
			d := time.Since(start)
			if rec.Code != http.StatusOK {
				return nil, fmt.Errorf("GET /facts?%s = %d", f.query(), rec.Code)
			}
			start = time.Now()
			rows, err := store.ListFacts(ctx, params)
			if err == nil {
				_, err = json.Marshal(rows)
			}
			bd := time.Since(start)
			if err != nil {
				return nil, err
			}
			if i >= 5 { // the first requests warm caches
				times = append(times, d)
				base = append(base, bd)
			}
		}
		all, allBase = append(all, times...), append(allBase, base...)
		p99, b99 := percentile(times, 0.99), percentile(base, 0.99)
		out = append(out, Result{Workload: "facts page " + f.name() + ", p99", Unit: "ms", Tenure: ms(p99), Baseline: ms(b99),
			BaseName: "ListFacts + json.Marshal", Ratio: float64(p99) / float64(b99), Target: "< 20 ms", Met: met(p99 < 20*time.Millisecond)})
	}
	p50, b50 := percentile(all, 0.5), percentile(allBase, 0.5)
	p99, b99 := percentile(all, 0.99), percentile(allBase, 0.99)
	out = append(out,
		Result{Workload: fmt.Sprintf("facts page, all filters, p50 (%d requests)", len(all)), Unit: "ms", Tenure: ms(p50), Baseline: ms(b50),
			BaseName: "ListFacts + json.Marshal", Ratio: float64(p50) / float64(b50)},
		Result{Workload: fmt.Sprintf("facts page, all filters, p99 (%d requests)", len(all)), Unit: "ms", Tenure: ms(p99), Baseline: ms(b99),
			BaseName: "ListFacts + json.Marshal", Ratio: float64(p99) / float64(b99), Target: "< 20 ms", Met: met(p99 < 20*time.Millisecond)},
		Result{Workload: "peak RSS during the page workload (whole process)", Unit: "MiB", Tenure: peakRSS()})
	return out, nil
}

// brief times the context brief of a whole scope, round-robin over the
// scopes, with a 4,000-character budget: what an agent reads at the start of
// every turn; its target is p95 under 20 ms.
func brief(ctx context.Context, store *memory.Store, o Options) ([]Result, error) {
	fmt.Fprintln(o.Progress, "context brief")
	var times []time.Duration
	scopes := max(1, o.Seed.Scopes)
	n := max(30, o.Requests/10)
	deadline := time.Now().Add(o.Budget / 4)
	for i := 0; i < n+5 && (i < 20 || time.Now().Before(deadline)); i++ {
		start := time.Now()
		b, err := store.ContextBrief(ctx, memory.BriefOptions{Scope: Scope(i % scopes), Budget: 4000})
		if err != nil {
			return nil, fmt.Errorf("context brief: %w", err)
		}
		d := time.Since(start)
		if b.Used == 0 {
			return nil, fmt.Errorf("context brief of %s is empty", Scope(i%scopes))
		}
		if i >= 5 {
			times = append(times, d)
		}
	}
	return []Result{
		{Workload: fmt.Sprintf("context brief p50 (%d briefs, 4,000 characters)", len(times)), Unit: "ms", Tenure: ms(percentile(times, 0.5))},
		{Workload: fmt.Sprintf("context brief p95 (%d briefs)", len(times)), Unit: "ms", Tenure: ms(percentile(times, 0.95))},
	}, nil
}

// recallKinds are the shapes of the timed recall queries, in rotation: on
// the dense vocabulary's scopes (one word in about twelve facts: the worst
// case), then on the realistic Zipf vocabulary's (ZipfScope).
var recallKinds = []string{"one word", "two words (both)", "a or b", "one word, long_term only", "a fact's key",
	"Zipf vocabulary: one word", "Zipf vocabulary: two words (both)", "Zipf vocabulary: a or b",
	"a question (5 to 15 words)", "Zipf vocabulary: a question (5 to 15 words)"}

// question is what an agent asks, as it asks it: 5 to 15 words, some of
// them stop words ("what", "did"), one of them "user" (in every fact of the
// bench, as a speaker's name is in a chat), the rest drawn by word.
func question(r *rand.Rand, word func() string) string {
	n := 5 + r.IntN(11)
	openers := []string{"What did", "When did", "Where does", "Why is", "How does", "Did"}
	parts := []string{openers[r.IntN(len(openers))], "the user"}
	for len(parts) < n-2 {
		parts = append(parts, word())
	}
	return strings.Join(parts, " ") + "?"
}

// recallScopes splits the seeded scopes by vocabulary; with one scope both
// vocabularies' queries run on it.
func recallScopes(scopes int) (dense, zipf []string) {
	for i := range scopes {
		if ZipfScope(i, scopes) {
			zipf = append(zipf, Scope(i))
		} else {
			dense = append(dense, Scope(i))
		}
	}
	if len(zipf) == 0 {
		zipf = dense
	}
	return dense, zipf
}

// recallMatchesSQL counts the live facts a recall query matches: every
// fact of the scope that holds any of its words (and passes the durability
// filter).
const recallMatchesSQL = `SELECT count(*) FROM entity_facts
WHERE scope = $1 AND status = 'active' AND (forget_at IS NULL OR forget_at > $4)
  AND search @@ replace(plainto_tsquery('english', $2)::text, '&', '|')::tsquery AND ($3::text = '' OR durability = $3)`

func recall(ctx context.Context, pool *pgxpool.Pool, store *memory.Store, now time.Time, o Options) ([]Result, error) {
	fmt.Fprintln(o.Progress, "recall")
	r := rand.New(rand.NewPCG(uint64(o.Seed.Seed), 2))
	var times []time.Duration
	byKind := make([][]time.Duration, len(recallKinds))
	matches := make([]int64, len(recallKinds))
	scopes := max(1, o.Seed.Scopes)
	dense, zipfScopes := recallScopes(scopes)
	zipf := newZipfSource(rand.New(rand.NewPCG(uint64(o.Seed.Seed), 3)))
	word := func() string { return words[r.IntN(len(words))] }
	deadline := time.Now().Add(o.Budget)
	for i := 0; i < o.Requests+10 && (i < 30 || time.Now().Before(deadline)); i++ {
		q := memory.RecallQuery{Scope: dense[i%len(dense)], Limit: 10}
		kind := i % len(recallKinds)
		switch kind {
		case 0:
			q.Query = word()
		case 1:
			q.Query = word() + " " + word()
		case 2:
			q.Query = word() + " or " + word()
		case 3:
			q.Query = word()
			q.Durability = "long_term"
		case 4:
			// What an agent asks about one thing it knows by key.
			f := r.IntN(max(1, o.Seed.Facts))
			q.Scope, q.Query = Scope(f%scopes), fmt.Sprintf("k_%d", f)
		case 5, 6, 7:
			// Query words follow the text's own law: common words are
			// asked for more often, as people do.
			q.Scope = zipfScopes[i%len(zipfScopes)]
			switch kind {
			case 5:
				q.Query = zipf.word()
			case 6:
				q.Query = zipf.word() + " " + zipf.word()
			case 7:
				q.Query = zipf.word() + " or " + zipf.word()
			}
		case 8:
			q.Query = question(r, word)
		case 9:
			q.Scope = zipfScopes[i%len(zipfScopes)]
			q.Query = question(r, zipf.word)
		}
		start := time.Now()
		if _, err := store.Recall(ctx, q); err != nil {
			return nil, fmt.Errorf("recall %+v: %w", q, err)
		}
		d := time.Since(start)
		if i < 10 {
			continue
		}
		times = append(times, d)
		byKind[kind] = append(byKind[kind], d)
		var n int64
		if err := pool.QueryRow(ctx, recallMatchesSQL, q.Scope, q.Query, q.Durability, now).Scan(&n); err != nil {
			return nil, fmt.Errorf("recall matches: %w", err)
		}
		matches[kind] += n
	}
	p50, p95 := percentile(times, 0.5), percentile(times, 0.95)
	fmt.Fprintf(o.Progress, "recall: %d queries timed\n", len(times))
	out := []Result{
		{Workload: fmt.Sprintf("recall p50 (%d queries)", len(times)), Unit: "ms", Tenure: ms(p50)},
		{Workload: fmt.Sprintf("recall p95 (%d queries)", len(times)), Unit: "ms", Tenure: ms(p95), Target: "< 15 ms", Met: met(p95 < 15*time.Millisecond)},
	}
	for k, d := range byKind {
		if len(d) == 0 {
			continue
		}
		out = append(out, Result{
			Workload: fmt.Sprintf("recall p95, %s (%d queries, %.1f live matches each on average)",
				recallKinds[k], len(d), float64(matches[k])/float64(len(d))),
			Unit: "ms", Tenure: ms(percentile(d, 0.95)),
		})
	}
	return out, nil
}

func push(ctx context.Context, pool *pgxpool.Pool, store *memory.Store, now time.Time, o Options) ([]Result, error) {
	fmt.Fprintln(o.Progress, "batch push: API, then COPY of the same rows")
	resetPeakRSS()
	const scope = "bench-push"
	token, _, err := auth.SeedToken(ctx, pool, auth.NewToken{Name: "bench", Scope: scope, Role: auth.TokenWriter}, now)
	if err != nil {
		return nil, fmt.Errorf("bench token: %w", err)
	}
	e := echo.New()
	if err := api.Mount(e, api.Config{Store: store, Pool: pool, Logger: o.Logger, Now: func() time.Time { return now }}); err != nil {
		return nil, err
	}
	ts := httptest.NewServer(e)
	defer ts.Close()
	r := rand.New(rand.NewPCG(uint64(o.Seed.Seed), 3))
	type row struct {
		Content    string         `json:"content"`
		Durability string         `json:"durability"`
		Importance float64        `json:"importance"`
		Metadata   map[string]any `json:"metadata"`
		Properties map[string]any `json:"properties"`
	}
	batches := make([][]byte, o.PushBatches)
	var copyRows [][]any
	for b := range batches {
		rows := make([]row, 1000)
		for i := range rows {
			rows[i] = row{Content: sentence(r, 8+r.IntN(8)), Durability: []string{"durable", "transient"}[i%2], Importance: 0.5,
				Metadata: map[string]any{"turn": i}, Properties: map[string]any{"entity": "project", "key": fmt.Sprintf("note_%d", i%50)}}
			props, _ := json.Marshal(map[string]any{"durability": rows[i].Durability, "entity": "project",
				"key": fmt.Sprintf("note_%d", i%50), "metadata": rows[i].Metadata})
			copyRows = append(copyRows, []any{scope, rows[i].Content, string(props), 0.5, now})
		}
		if batches[b], err = json.Marshal(map[string]any{"nodes": rows}); err != nil {
			return nil, err
		}
	}
	client := ts.Client()
	start := time.Now()
	for _, body := range batches {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/api/v1/scopes/"+scope+"/nodes", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		msg, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			return nil, fmt.Errorf("push = %d: %s", res.StatusCode, msg)
		}
	}
	took := time.Since(start)
	rss := peakRSS()
	start = time.Now()
	for i := 0; i < len(copyRows); i += 1000 {
		if _, err := pool.CopyFrom(ctx, pgx.Identifier{"memory_nodes"}, []string{"scope", "content", "properties", "importance", "created_at"},
			pgx.CopyFromRows(copyRows[i:i+1000])); err != nil {
			return nil, fmt.Errorf("push baseline: %w", err)
		}
	}
	base := time.Since(start)
	n := float64(len(copyRows))
	rate, baseRate := n/took.Seconds(), n/base.Seconds()
	return []Result{
		{Workload: fmt.Sprintf("batch push, %d × 1,000 rows", len(batches)), Unit: "rows/s", Tenure: rate, Baseline: baseRate,
			BaseName: "COPY of the same rows, 1,000 a statement", Ratio: rate / baseRate, Target: "≥ 20,000 rows/s", Met: met(rate >= 20000)},
		{Workload: "peak RSS during the push workload (whole process)", Unit: "MiB", Tenure: rss},
	}, nil
}

// WriteTable prints the report as an aligned table.
func WriteTable(w io.Writer, rep Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "seed: %d facts (%d active, %d due), %d entities, %d decisions, working rows %d durable / %d transient / %d expired, in %s\n\n",
		rep.Seed.Facts, rep.Seed.Active, rep.Seed.Due, rep.Seed.Entities, rep.Seed.Decisions, rep.Seed.Durable, rep.Seed.Transient,
		rep.Seed.Expired, rep.Seed.Elapsed.Round(time.Millisecond))
	fmt.Fprintln(tw, "workload\ttenure\tbaseline\tratio\ttarget\tmet")
	for _, r := range rep.Results {
		base, ratio := "-", "-"
		if r.Baseline > 0 {
			base = fmt.Sprintf("%s %s (%s)", num(r.Baseline), r.Unit, r.BaseName)
			ratio = fmt.Sprintf("%.2f×", r.Ratio)
		}
		m := "-"
		if r.Met != nil {
			m = map[bool]string{true: "met", false: "NOT met"}[*r.Met]
		}
		target := r.Target
		if target == "" {
			target = "-"
		}
		fmt.Fprintf(tw, "%s\t%s %s\t%s\t%s\t%s\t%s\n", r.Workload, num(r.Tenure), r.Unit, base, ratio, target, m)
	}
	return tw.Flush()
}

func num(v float64) string {
	if v >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
