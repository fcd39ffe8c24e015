package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// recallFixture is a Store over a fresh database with a fixed clock, and the
// statements it sent, for recall and brief tests.
type recallFixture struct {
	s    *Store
	pool *pgxpool.Pool
	now  time.Time
	sent *sqlRecorder
}

var recallNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func newRecallFixture(t *testing.T) *recallFixture {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rf := &recallFixture{now: recallNow, sent: &sqlRecorder{}}
	cfg.ConnConfig.Tracer = rf.sent
	pgtest.WatchWarnings(t, cfg.ConnConfig)
	rf.pool, err = pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rf.pool.Close)
	rf.s = NewStore(rf.pool, Options{Now: func() time.Time { return rf.now }})
	return rf
}

// sqlRecorder keeps the text and arguments of every statement sent.
type sqlRecorder struct {
	mu    sync.Mutex
	stmts []pgx.TraceQueryStartData
	// lone are the statements sent on their own, not in a batch.
	lone []string
	// beforeBatch, when set, sees each statement of a batch before it is
	// sent (a test's way to write between two statements of one recall).
	beforeBatch func(sql string)
}

func (r *sqlRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	r.stmts = append(r.stmts, data)
	r.lone = append(r.lone, data.SQL)
	r.mu.Unlock()
	return ctx
}

func (r *sqlRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// Statements sent in a batch (recall's, planned once per connection) are
// kept as well.
func (r *sqlRecorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	r.mu.Lock()
	before := r.beforeBatch
	r.mu.Unlock()
	if before != nil {
		for _, q := range data.Batch.QueuedQueries {
			before(q.SQL)
		}
	}
	return ctx
}

func (r *sqlRecorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	r.mu.Lock()
	r.stmts = append(r.stmts, pgx.TraceQueryStartData{SQL: data.SQL, Args: data.Args})
	r.mu.Unlock()
}

func (r *sqlRecorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// first returns the first statement sent that contains marker.
func (r *sqlRecorder) first(t *testing.T, marker string) pgx.TraceQueryStartData {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.stmts {
		if strings.Contains(s.SQL, marker) {
			return s
		}
	}
	t.Fatalf("no statement containing %q was sent", marker)
	return pgx.TraceQueryStartData{}
}

// last returns the last statement sent that contains marker.
func (r *sqlRecorder) last(t *testing.T, marker string) pgx.TraceQueryStartData {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.stmts) - 1; i >= 0; i-- {
		if strings.Contains(r.stmts[i].SQL, marker) && !strings.HasPrefix(r.stmts[i].SQL, "EXPLAIN") {
			return r.stmts[i]
		}
	}
	t.Fatalf("no statement containing %q was sent", marker)
	return pgx.TraceQueryStartData{}
}

// recallFact is a fact to insert directly, with full control of its
// confidence and age.
type recallFact struct {
	scope, entity, key, content string
	durability, category        string
	confidence, importance      float64
	age                         time.Duration // confirmed this long before now
	deadline                    *time.Time
	archived                    bool
}

// insert writes f (and its entity) and returns its id. Defaults: scope
// acme, entity Ann, long_term observation, confidence 0.8, importance 0.5,
// confirmed now.
func (rf *recallFixture) insert(t *testing.T, f recallFact) int64 {
	t.Helper()
	if f.scope == "" {
		f.scope = "acme"
	}
	if f.entity == "" {
		f.entity = "Ann"
	}
	if f.durability == "" {
		f.durability = "long_term"
	}
	if f.category == "" {
		f.category = "observation"
	}
	if f.confidence == 0 {
		f.confidence = 0.8
	}
	if f.importance == 0 {
		f.importance = 0.5
	}
	ctx := context.Background()
	var entity, id int64
	if err := rf.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ($1, $2)
		ON CONFLICT (scope, name) DO UPDATE SET name = excluded.name RETURNING id`, f.scope, f.entity).Scan(&entity); err != nil {
		t.Fatal(err)
	}
	var archivedAt *time.Time
	status := "active"
	if f.archived {
		status, archivedAt = "archived", &rf.now
	}
	if err := rf.pool.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, key, content, durability, category,
			confidence, importance, confirmed_at, deadline, status, archived_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $9, $9) RETURNING id`,
		f.scope, entity, f.key, f.content, f.durability, f.category, f.confidence, f.importance,
		rf.now.Add(-f.age), f.deadline, status, archivedAt).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func (rf *recallFixture) recall(t *testing.T, q RecallQuery) []RecallResult {
	t.Helper()
	res, err := rf.s.Recall(context.Background(), q)
	if err != nil {
		t.Fatalf("Recall(%+v) error = %v", q, err)
	}
	return res
}

func resultIDs(res []RecallResult) []int64 {
	ids := make([]int64, len(res))
	for i, r := range res {
		ids[i] = r.Fact.ID
	}
	return ids
}

func TestRecallRanksByRelevanceTimesConfidence(t *testing.T) {
	rf := newRecallFixture(t)
	// The same words, so the same relevance; one confirmed today, one 360
	// days ago (two long_term half-lives: a quarter of its confidence left).
	faded := rf.insert(t, recallFact{content: "Ann drinks green tea every morning", age: 360 * 24 * time.Hour})
	fresh := rf.insert(t, recallFact{entity: "Bob", content: "Bob drinks green tea every morning"})
	rf.insert(t, recallFact{content: "Ann takes the train to work"})

	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "green tea"})
	if got, want := resultIDs(res), []int64{fresh, faded}; !slices.Equal(got, want) {
		t.Fatalf("Recall(green tea) ids = %v, want %v (the confident fact first, the unrelated one left out)", got, want)
	}
	if res[0].Relevance != res[1].Relevance || res[0].Relevance <= 0 {
		t.Errorf("relevances = %v, %v, want equal and positive", res[0].Relevance, res[1].Relevance)
	}
	for _, r := range res {
		if math.Abs(r.Score-r.Relevance*r.Fact.EffectiveConfidence) > 1e-9 {
			t.Errorf("fact %d score = %v, want relevance × effective confidence = %v", r.Fact.ID, r.Score, r.Relevance*r.Fact.EffectiveConfidence)
		}
	}
	if got := res[1].Fact.EffectiveConfidence; math.Abs(got-0.2) > 1e-9 {
		t.Errorf("faded fact effective confidence = %v, want 0.8 × 2^-2 = 0.2", got)
	}
	if got := res[0].Fact.EffectiveConfidence; math.Abs(got-0.8) > 1e-9 {
		t.Errorf("fresh fact effective confidence = %v, want 0.8", got)
	}

	t.Run("relevance counts too", func(t *testing.T) {
		// Equal confidence: the fact that is about the query ranks first.
		about := rf.insert(t, recallFact{scope: "rel", content: "Kyoto trip: Kyoto hotels, Kyoto trains"})
		mention := rf.insert(t, recallFact{scope: "rel", content: "Ann once read a long book about gardens, mentioning Kyoto"})
		res := rf.recall(t, RecallQuery{Scope: "rel", Query: "kyoto"})
		if got, want := resultIDs(res), []int64{about, mention}; !slices.Equal(got, want) || res[0].Relevance <= res[1].Relevance {
			t.Errorf("Recall(kyoto) = %v (relevance %v), want %v", got, []float64{res[0].Relevance, res[1].Relevance}, want)
		}
	})

	t.Run("empty query ranks by confidence", func(t *testing.T) {
		res := rf.recall(t, RecallQuery{Scope: "acme"})
		if len(res) != 3 || res[len(res)-1].Fact.ID != faded {
			t.Fatalf("Recall(no query) ids = %v, want all three facts, the faded one last", resultIDs(res))
		}
		for i, r := range res {
			if r.Relevance != 1 || r.Score != r.Fact.EffectiveConfidence {
				t.Errorf("result %d relevance = %v, score = %v, want 1 and the effective confidence %v", i, r.Relevance, r.Score, r.Fact.EffectiveConfidence)
			}
			if i > 0 && r.Score > res[i-1].Score {
				t.Errorf("results not ranked by score: %v after %v", r.Score, res[i-1].Score)
			}
		}
	})

	t.Run("web search syntax", func(t *testing.T) {
		res := rf.recall(t, RecallQuery{Scope: "acme", Query: `"green tea" -Bob`})
		if got := resultIDs(res); !slices.Equal(got, []int64{faded}) {
			t.Errorf(`Recall("green tea" -Bob) = %v, want [%d]`, got, faded)
		}
		if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "the"}); len(res) != 0 {
			t.Errorf("Recall(stop word only) = %v, want nothing", resultIDs(res))
		}
	})
}

func TestRecallFilters(t *testing.T) {
	rf := newRecallFixture(t)
	deadline := recallNow.Add(48 * time.Hour)
	pref := rf.insert(t, recallFact{key: "prefers", content: "Ann prefers window seats on flights", category: "preference"})
	mood := rf.insert(t, recallFact{key: "mood", content: "Ann is tired after the flights", durability: "ephemeral", category: "mood"})
	bobs := rf.insert(t, recallFact{entity: "Bob", content: "Bob books flights for the team"})
	due := rf.insert(t, recallFact{content: "Ann must book flights for Lisbon", durability: "short_term", category: "obligation", deadline: &deadline})
	other := rf.insert(t, recallFact{scope: "other", content: "Ann prefers aisle seats on flights"})
	archived := rf.insert(t, recallFact{content: "Ann hated flights", archived: true})
	// Confirmed long ago at a low confidence: past its forget_at, which decay
	// will archive at its next tick.
	forgotten := rf.insert(t, recallFact{content: "Ann used to fear flights", confidence: 0.2, age: 400 * 24 * time.Hour})

	tests := []struct {
		name string
		q    RecallQuery
		want []int64
	}{
		{"scope only", RecallQuery{Scope: "acme", Query: "flights"}, []int64{due, bobs, mood, pref}},
		{"other scope", RecallQuery{Scope: "other", Query: "flights"}, []int64{other}},
		{"entity", RecallQuery{Scope: "acme", Query: "flights", Entity: "Bob"}, []int64{bobs}},
		{"entity is trimmed", RecallQuery{Scope: "acme", Query: "flights", Entity: " Bob "}, []int64{bobs}},
		{"unknown entity", RecallQuery{Scope: "acme", Query: "flights", Entity: "Carol"}, nil},
		{"category", RecallQuery{Scope: "acme", Query: "flights", Category: "preference"}, []int64{pref}},
		{"durability", RecallQuery{Scope: "acme", Query: "flights", Durability: "ephemeral"}, []int64{mood}},
		{"all filters", RecallQuery{Scope: "acme", Query: "flights", Entity: "Ann", Category: "obligation", Durability: "short_term"}, []int64{due}},
		{"filters without query", RecallQuery{Scope: "acme", Entity: "Ann", Category: "mood"}, []int64{mood}},
		{"limit", RecallQuery{Scope: "acme", Query: "flights", Limit: 2}, []int64{due, bobs}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := rf.recall(t, tt.q)
			got := resultIDs(res)
			// Equal scores tie-break on id, newest first; compare as sets
			// except where order is the point.
			if tt.name != "limit" {
				slices.Sort(got)
				tt.want = slices.Clone(tt.want)
				slices.Sort(tt.want)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Recall(%+v) ids = %v, want %v", tt.q, got, tt.want)
			}
			for _, r := range res {
				if r.Fact.ID == archived || r.Fact.ID == forgotten {
					t.Errorf("Recall(%+v) returned fact %d, which is archived or past its forget_at", tt.q, r.Fact.ID)
				}
			}
		})
	}
}

func TestRecallDecisionsCarryReasoning(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	d, err := rf.s.RecordDecision(ctx, Human("ann@example.com"), NewDecision{
		Scope: "acme", Entity: "backend", Key: "database", Decision: "Use PostgreSQL for storage",
		Alternatives: []string{"MySQL", "SQLite"}, Reasoning: "We already run it and it has advisory locks",
	})
	if err != nil {
		t.Fatal(err)
	}
	plain := rf.insert(t, recallFact{entity: "backend", content: "The storage server has 64 GB of memory"})

	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "storage"})
	if len(res) != 2 {
		t.Fatalf("Recall(storage) ids = %v, want the decision's fact and %d", resultIDs(res), plain)
	}
	for _, r := range res {
		switch r.Fact.ID {
		case d.FactID:
			if r.Decision == nil || r.Decision.ID != d.ID || r.Decision.Reasoning != d.Reasoning ||
				!slices.Equal(r.Decision.Alternatives, d.Alternatives) || !r.Decision.DoNotReopen {
				t.Errorf("decision result = %+v, want decision %d with its reasoning and alternatives", r.Decision, d.ID)
			}
			if r.Fact.Category != CategoryDecision || r.Fact.EffectiveConfidence != 1 {
				t.Errorf("decision fact = %+v, want category decision at confidence 1 (decisions never decay)", r.Fact)
			}
		case plain:
			if r.Decision != nil {
				t.Errorf("plain fact has decision %+v, want none", r.Decision)
			}
		}
	}
	if res := rf.recall(t, RecallQuery{Scope: "acme", Category: "decision"}); len(res) != 1 || res[0].Decision == nil {
		t.Errorf("Recall(category decision) = %+v, want the decision with its reasoning", res)
	}
}

func TestRecallRefusesBadInput(t *testing.T) {
	rf := newRecallFixture(t)
	tests := []struct {
		q         RecallQuery
		field     string
		wantInMsg string
	}{
		{RecallQuery{}, "scope", "scope is empty"},
		{RecallQuery{Scope: "Not A Scope"}, "scope", "lowercase"},
		{RecallQuery{Scope: "acme", Durability: "forever"}, "durability", "permanent, long_term, short_term, ephemeral"},
		{RecallQuery{Scope: "acme", Durability: "durable"}, "durability", "permanent, long_term, short_term, ephemeral"},
		{RecallQuery{Scope: "acme", Category: "Mood!"}, "category", "observation, preference"},
		{RecallQuery{Scope: "acme", Limit: -1}, "limit", "1 to 100"},
		{RecallQuery{Scope: "acme", Limit: 101}, "limit", "1 to 100"},
		{RecallQuery{Scope: "acme", Query: strings.Repeat("x", 1001)}, "query", "at most 1000"},
		{RecallQuery{Scope: "acme", Entity: strings.Repeat("é", 201)}, "entity", "at most 200"},
	}
	for _, tt := range tests {
		_, err := rf.s.Recall(context.Background(), tt.q)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalid || e.Field != tt.field || !strings.Contains(e.Message, tt.wantInMsg) {
			t.Errorf("Recall(%+v) error = %v, want invalid %s naming %q", tt.q, err, tt.field, tt.wantInMsg)
		}
	}
}

// TestRecallUsesSearchIndex shows the plans of the statements Recall sends
// for a query: they read the recall indexes (the repeats, then the scope's
// tokens) rather than scanning the scope.
func TestRecallUsesSearchIndex(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	// acme is one scope of twenty, as on a server shared by many agents.
	if _, err := rf.pool.Exec(ctx, `INSERT INTO entities (scope, name)
		SELECT CASE WHEN s = 0 THEN 'acme' ELSE 'other-' || s END, 'Ann' FROM generate_series(0, 19) s`); err != nil {
		t.Fatal(err)
	}
	if _, err := rf.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, confidence, confirmed_at)
		SELECT e.scope, e.id, 'observation number ' || i || ' about ' ||
			(ARRAY['weather', 'lunch', 'traffic', 'meetings', 'music'])[1 + i % 5] ||
			CASE WHEN i % 7 = 0 THEN ' and more ' || (ARRAY['weather', 'lunch', 'traffic', 'meetings', 'music'])[1 + i % 5] ELSE '' END ||
			CASE WHEN i % 1000 = 0 THEN ' and the rare zeppelin' ELSE '' END,
			0.8, $1
		FROM generate_series(1, 2000) i, entities e`, recallNow); err != nil {
		t.Fatal(err)
	}
	if _, err := rf.pool.Exec(ctx, `ANALYZE entity_facts`); err != nil {
		t.Fatal(err)
	}
	plan := func(marker string) string {
		stmt := rf.sent.last(t, marker)
		text := explainGeneric(t, rf.pool, stmt.SQL)
		if strings.Contains(text, "Seq Scan on entity_facts") {
			t.Errorf("%s scans entity_facts:\n%s", marker, text)
		}
		return text
	}
	// A rare word: no fact holds it twice, so the scope's tokens find its
	// two matches.
	if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "zeppelin"}); len(res) != 2 {
		t.Fatalf("Recall(zeppelin) = %d results, want 2", len(res))
	}
	if text := plan("name: RecallWalk"); !strings.Contains(text, "entity_facts_recall_repeats_idx") {
		t.Errorf("the rungs do not read the repeats index:\n%s", text)
	}
	if text := plan("name: RecallEvery"); !strings.Contains(text, "entity_facts_recall_terms_idx") {
		t.Errorf("the ranking of every match does not read the scope's tokens:\n%s", text)
	}
	// A common word that some facts hold twice: the rungs settle it.
	before := len(rf.sent.stmts)
	if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "lunch"}); len(res) != 10 || res[0].Relevance <= 0.1 {
		t.Fatalf("Recall(lunch) = %d results, the first of relevance %v; want 10, led by a fact that says it twice", len(res), res[0].Relevance)
	}
	if rf.sent.sentSince(before, "name: RecallEvery") || rf.sent.sentSince(before, "name: RecallSearch") {
		t.Errorf("Recall(lunch) ranked every match; want the rungs to settle it")
	}
	// Two words that must both match: every match, through the tokens.
	before = len(rf.sent.stmts)
	if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "observation lunch"}); len(res) != 10 {
		t.Fatalf("Recall(observation lunch) = %d results, want 10", len(res))
	}
	if !rf.sent.sentSince(before, "name: RecallEvery") {
		t.Fatalf("Recall(observation lunch) did not rank every match")
	}
	if text := plan("name: RecallEvery"); !strings.Contains(text, "entity_facts_recall_terms_idx") {
		t.Errorf("the ranking of every match does not read the scope's tokens:\n%s", text)
	}
}

// TestRecallPlansOnce holds recall's statements to plans made once per
// connection (internal/pgplan): on a pool of one connection, every recall
// statement that ran was planned generic, and none for its parameters.
func TestRecallPlansOnce(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	seedRecallFacts(t, rf, "acme", 1500, 1)
	cfg := rf.pool.Config().Copy()
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := NewStore(pool, Options{Now: func() time.Time { return rf.now }})
	// Walk whatever the statistics say, so that every route runs.
	s.bothWalkMatches, s.pairsFirstFacts = 0, 0
	texts := append(recallQueries()[:40], strings.Repeat("z", 300), `"tea coffee"`)
	for _, text := range texts {
		for _, q := range []RecallQuery{
			{Scope: "acme", Query: text},
			{Scope: "acme", Query: text, Durability: string(LongTerm), Limit: 3},
			{Scope: "acme", Query: text, Entity: "Bob"},
		} {
			// A statement sent outside recall's connection would wait for
			// a second one, which this pool does not have.
			qctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			_, err := s.Recall(qctx, q)
			cancel()
			if err != nil {
				t.Fatalf("Recall(%+v): %v", q, err)
			}
		}
	}
	rows, err := pool.Query(ctx, `SELECT substring(statement FROM '-- name: (\w+)'), generic_plans, custom_plans
		FROM pg_prepared_statements WHERE statement ~ '-- name: Recall'`)
	if err != nil {
		t.Fatal(err)
	}
	type plans struct {
		Name            string
		Generic, Custom int64
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[plans])
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, p := range got {
		ran[p.Name] = true
		if p.Custom != 0 || p.Generic == 0 {
			t.Errorf("%s: %d generic and %d custom plans, want only generic ones", p.Name, p.Generic, p.Custom)
		}
	}
	for _, name := range []string{"RecallParse", "RecallWalk", "RecallPairs", "RecallEvery", "RecallSearch"} {
		if !ran[name] {
			t.Errorf("%s did not run on the connection (ran: %v)", name, ran)
		}
	}
}

// TestRecallDecisionsWholeOnEveryRoute: whichever statement answers a recall
// (a walk, the pairs, every match through the tokens or the search index, or
// confidence alone), a fact that records a decision comes with the whole
// decision, the same as GetDecision reads it, and a fact that records none
// comes without.
func TestRecallDecisionsWholeOnEveryRoute(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	long := strings.Repeat("x", 260) // too long for recall's tokens
	d, err := rf.s.RecordDecision(ctx, Human("ann@example.com"), NewDecision{
		Scope: "acme", Entity: "backend", Key: "database",
		Decision:     "storage postgresql storage postgresql storage postgresql storage " + long,
		Alternatives: []string{"MySQL", "SQLite"}, Reasoning: "We already run it and it has advisory locks",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rf.s.ReopenDecision(ctx, Human("bob@example.com"), d.ID, "The new team runs MySQL"); err != nil {
		t.Fatal(err)
	}
	want, err := rf.s.GetDecision(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(want)
	// Other facts with each word twice, so that a walk and the pairs settle
	// their queries without ranking every match.
	for i := range 12 {
		rf.insert(t, recallFact{entity: "backend", content: fmt.Sprintf("storage postgresql, storage postgresql: note %d", i), confidence: 0.9})
	}
	rf.pool.Exec(ctx, "ANALYZE entity_facts")
	for _, tt := range []struct {
		q          RecallQuery
		pairsFirst bool
		answeredBy string
	}{
		{RecallQuery{Scope: "acme", Query: "storage"}, false, "name: RecallWalk"},
		{RecallQuery{Scope: "acme", Query: "storage or postgresql"}, true, "name: RecallPairs"},
		{RecallQuery{Scope: "acme", Query: `"storage postgresql"`}, false, "name: RecallEvery"},
		{RecallQuery{Scope: "acme", Query: "storage " + long}, false, "name: RecallSearch"},
		{RecallQuery{Scope: "acme", Category: "decision"}, false, "name: RecallByConfidence"},
	} {
		rf.s.pairsFirstFacts = 0
		if tt.pairsFirst {
			rf.s.pairsFirstFacts = 1_000_000
		}
		before := len(rf.sent.stmts)
		res := rf.recall(t, tt.q)
		if !rf.sent.sentSince(before, tt.answeredBy) {
			t.Errorf("Recall(%q): no statement containing %q was sent", tt.q.Query, tt.answeredBy)
		}
		for _, every := range []string{"name: RecallEvery", "name: RecallSearch"} {
			if every != tt.answeredBy && rf.sent.sentSince(before, every) {
				t.Errorf("Recall(%q) ranked every match (%s), want it answered by %s", tt.q.Query, every, tt.answeredBy)
			}
		}
		found := false
		for _, r := range res {
			if r.Fact.ID != d.FactID {
				if r.Decision != nil {
					t.Errorf("Recall(%q): fact %d, which records no decision, has decision %+v", tt.q.Query, r.Fact.ID, r.Decision)
				}
				continue
			}
			found = true
			got, _ := json.Marshal(r.Decision)
			if string(got) != string(wantJSON) {
				t.Errorf("Recall(%q) decision =\n%s\nwant\n%s", tt.q.Query, got, wantJSON)
			}
		}
		if !found {
			t.Errorf("Recall(%q) = %v, want the decision's fact %d among them", tt.q.Query, resultIDs(res), d.FactID)
		}
	}
}

// TestRecallRungsReadRareWordsWhole: below recallBandedT a rung is read by
// confidence band unless the statistics say that it and every rung above
// it hold at most recallWholeFacts facts; the rungs read whole are always
// the highest ones, and one cell.
func TestRecallRungsReadRareWordsWhole(t *testing.T) {
	// Facts holding tea at least j times, by the statistics.
	tea := map[int]float64{2: 500, 3: 80, 4: 40, 5: 20, 6: 10, 7: 5}
	facts := func(token string) float64 {
		var j int
		if _, err := fmt.Sscanf(token, "tea %d acme", &j); err != nil {
			t.Fatalf("token %q is not one of tea's", token)
		}
		return tea[j]
	}
	// upTo is the cell of the facts of tea's step j and the steps above.
	upTo := func(j int) string { return "(('tea " + strconv.Itoa(j) + " acme'))" }
	for _, tt := range []struct {
		name  string
		facts func(string) float64
		whole int // the lowest step read whole
	}{
		{"without statistics", nil, 7},
		// Steps 7 to 4 hold 5, 10, 20 and 40 facts with the steps above;
		// with step 3 they would hold 80.
		{"with statistics", facts, 4},
		{"with every token rarer than the statistics list", func(string) float64 { return 0 }, 2},
	} {
		cells := recallRungs([]string{"tea"}, "acme", 1, tt.facts).cells("acme")
		banded := slices.Index(recallSteps, tt.whole) // the steps below, each in its bands
		if cells[0].tokens != upTo(tt.whole) || len(cells) != 1+banded*len(recallBandGroups) {
			t.Errorf("%s: %d cells, the first %s; want %d, the first %s", tt.name, len(cells), cells[0].tokens,
				1+banded*len(recallBandGroups), upTo(tt.whole))
		}
	}
	// Two lexemes: a level's facts are bounded by each term's rarest token;
	// the rungs read whole stay the highest ones however the estimates fall.
	without := len(recallRungs([]string{"tea", "coffee"}, "acme", 1, nil).cells("acme"))
	for _, n := range []float64{0, 3, 10, 30, 100} {
		l := recallRungs([]string{"tea", "coffee"}, "acme", 1, func(token string) float64 {
			if strings.HasPrefix(token, "coffee ") {
				return n
			}
			return 2 * n
		})
		split := false
		for i, r := range l.rungs {
			if split && !r.split {
				t.Errorf("estimate %g: rung %d is read whole below a rung read by band", n, i+1)
			}
			split = split || r.split
		}
		switch cells := len(l.cells("acme")); {
		case n == 0 && cells != 1:
			t.Errorf("estimate 0: %d cells, want every rung of two lexemes whole, in one", cells)
		case n == 100 && cells != without:
			t.Errorf("estimate 100 a token: %d cells, want the %d without statistics", cells, without)
		case cells > without:
			t.Errorf("estimate %g: %d cells, more than the %d without statistics", n, cells, without)
		}
	}
}

// TestRecallWalksUnlistedScopesByBand: the statistics decide which rungs a
// walk reads whole only in a scope they list; in a scope written since the
// last ANALYZE (its tokens all missing from them, whatever its size) the walk
// reads by band.
func TestRecallWalksUnlistedScopesByBand(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	for _, scope := range []string{"acme", "fresh"} {
		for i := range 30 {
			rf.insert(t, recallFact{scope: scope, content: fmt.Sprintf("tea tea and tea, note %d", i)})
		}
		if scope == "acme" {
			if _, err := rf.pool.Exec(ctx, "ANALYZE entity_facts"); err != nil {
				t.Fatal(err)
			}
		}
	}
	banded := len(recallRungs([]string{"tea"}, "acme", 1, nil).cells("acme"))
	for scope, wantBanded := range map[string]bool{"acme": false, "fresh": true} {
		before := len(rf.sent.stmts)
		rf.recall(t, RecallQuery{Scope: scope, Query: "tea"})
		walks := rf.sent.walkCellsSince(before)
		if len(walks) != 1 {
			t.Fatalf("Recall(tea) in %s sent %d walks, want 1", scope, len(walks))
		}
		if got := len(walks[0]) == banded; got != wantBanded {
			t.Errorf("Recall(tea) in %s walked %d cells (%d by band without statistics), want by band: %v", scope, len(walks[0]), banded, wantBanded)
		}
	}
}
