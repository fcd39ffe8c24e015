package memory

import (
	"context"
	"errors"
	"math"
	"slices"
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
		// Only stop words: nothing to rank by but confidence.
		if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "what is it?"}); len(res) != 3 || res[0].Relevance != 1 {
			t.Errorf("Recall(stop words only) = %v, want the three facts by confidence", resultIDs(res))
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
		// One word in all four: the shortest facts rank first (BM25's
		// length normalisation), equal ones newest first.
		{"limit", RecallQuery{Scope: "acme", Query: "flights", Limit: 2}, []int64{bobs, mood}},
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

// countSince counts the statements containing marker sent after the first n.
func (r *sqlRecorder) countSince(n int, marker string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	count := 0
	for _, s := range r.stmts[n:] {
		if strings.Contains(s.SQL, marker) {
			count++
		}
	}
	return count
}
