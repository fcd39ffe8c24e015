// Package bench fills a database with a realistic mix of memory and measures
// Tenure's workloads against their baselines on that data.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/memory"
)

// SeedOptions say how much to generate.
type SeedOptions struct {
	Facts  int // entity_facts rows, active and archived
	Nodes  int // memory_nodes rows pending consolidation, all three markers
	Scopes int // scopes the rows spread over; default 10
	// DueNow is how many active facts have forget_at in [Now-1h, Now).
	DueNow int
	// Now is the instant the data is generated around; default time.Now.
	Now time.Time
	// Seed makes the data reproducible.
	Seed int64
	// Progress, when set, is told what Seed is doing: the phase (facts,
	// decisions, working rows, analyze, and done at the end), and for the
	// rows it copies how many of total it has sent, every few thousand rows;
	// total is -1 when unknown.
	Progress func(phase string, done, total int64)
}

// SeedCounts is what Seed wrote.
type SeedCounts struct {
	Entities  int `json:"entities"`
	Facts     int `json:"facts"`
	Active    int `json:"active"`
	Due       int `json:"due"`
	Decisions int `json:"decisions"`
	Durable   int `json:"durable_nodes"`
	Transient int `json:"transient_nodes"`
	Expired   int `json:"expired_nodes"`
	Elapsed   time.Duration
}

// halfLife is the seeded policies' half-life of each durability; non-due
// facts are confirmed within half of it, so with confidence at least 0.5 and
// the floor at 0.1 their forget_at lies more than 1.8 half-lives ahead.
var halfLife = map[string]time.Duration{
	"permanent":  3650 * 24 * time.Hour,
	"long_term":  180 * 24 * time.Hour,
	"short_term": 10 * 24 * time.Hour,
	"ephemeral":  36 * time.Hour,
}

var words = strings.Fields(`postgres deploy release budget meeting travel flight
hotel invoice customer contract deadline review design database index query latency
migration backup server cluster kubernetes docker python golang rust typescript react
vacation birthday doctor dentist gym running coffee tea breakfast lunch dinner project
roadmap hiring interview salary promotion manager team standup sprint ticket bug
feature launch marketing sales revenue pricing discount subscription renewal payment
berlin paris london tokyo lisbon madrid boston seattle austin denver family partner
daughter son mother father friend neighbour dog cat garden house apartment rent
mortgage insurance tax accountant lawyer bank loan savings pension stock bond crypto
weather rain snow summer winter spring autumn morning evening weekend holiday concert
book novel podcast movie series music guitar piano painting cooking recipe allergy
vegetarian vegan coffee espresso latte keyboard laptop monitor phone tablet printer`)

func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("The user mentioned")
	for i := 0; i < n; i++ {
		b.WriteByte(' ')
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// ZipfWords is the size of the realistic vocabulary: made-up words drawn
// with Zipf's law (exponent zipfS), so that a few are common and most are
// rare, as in real text.
const (
	ZipfWords = 20000
	zipfS     = 1.1
)

// zipfVocabulary is ZipfWords distinct made-up words of three or four
// consonant-vowel syllables, the most frequent first.
var zipfVocabulary = func() []string {
	const consonants, vowels = "bdfgklmnprstvz", "aiou"
	r := rand.New(rand.NewPCG(20000, 1))
	seen := map[string]bool{}
	out := make([]string, 0, ZipfWords)
	for len(out) < ZipfWords {
		var b strings.Builder
		for range 3 + r.IntN(2) {
			b.WriteByte(consonants[r.IntN(len(consonants))])
			b.WriteByte(vowels[r.IntN(len(vowels))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}()

// zipfSource draws words of zipfVocabulary by Zipf's law.
type zipfSource struct{ z *rand.Zipf }

func newZipfSource(r *rand.Rand) zipfSource {
	return zipfSource{z: rand.NewZipf(r, zipfS, 1, ZipfWords-1)}
}

func (z zipfSource) word() string { return zipfVocabulary[z.z.Uint64()] }

func (z zipfSource) sentence(n int) string {
	var b strings.Builder
	b.WriteString("The user mentioned")
	for range n {
		b.WriteByte(' ')
		b.WriteString(z.word())
	}
	return b.String()
}

// ZipfScope reports whether scope i of scopes holds text of the realistic
// vocabulary: every other scope does when there are two or more, so that
// the dense vocabulary (one word in about twelve facts, the worst case for
// recall) and the realistic one are measured on scopes of the same size.
func ZipfScope(i, scopes int) bool { return scopes >= 2 && i%2 == 1 }

// Scope is the name of the i-th seeded scope.
func Scope(i int) string { return fmt.Sprintf("bench-%02d", i) }

// Seed fills an empty, migrated database through COPY. Rows go through the
// entity_facts trigger, so forget_at is computed by tenure_forget_at exactly
// as for any other writer (no superuser trick, no copy of the formula in Go);
// the due facts are made due by an expires_at in [Now-1h, Now), every other
// active fact is confirmed recently enough for its half-life that it is not
// due, and Seed checks the count before it returns.
func Seed(ctx context.Context, pool *pgxpool.Pool, o SeedOptions) (SeedCounts, error) {
	start := time.Now()
	if o.Scopes <= 0 {
		o.Scopes = 10
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	now := o.Now.UTC().Truncate(time.Microsecond)
	if o.DueNow > o.Facts/2 {
		return SeedCounts{}, fmt.Errorf("seed: %d due facts out of %d: at most half may be due", o.DueNow, o.Facts)
	}
	r := rand.New(rand.NewPCG(uint64(o.Seed), 0x7e11e))
	zipf := newZipfSource(rand.New(rand.NewPCG(uint64(o.Seed), 0x21bf)))
	var c SeedCounts

	// Entities: about one for every 20 facts, at least one per scope.
	perScope := max(1, o.Facts/20/o.Scopes)
	var ents [][]any
	for s := 0; s < o.Scopes; s++ {
		for i := 0; i < perScope; i++ {
			ents = append(ents, []any{Scope(s), fmt.Sprintf("entity-%d", i), "thing"})
		}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"entities"}, []string{"scope", "name", "kind"}, pgx.CopyFromRows(ents)); err != nil {
		return c, fmt.Errorf("seed: entities: %w", err)
	}
	c.Entities = len(ents)
	entityIDs := make([][]int64, o.Scopes)
	rows, err := pool.Query(ctx, `SELECT scope, id FROM entities WHERE scope LIKE 'bench-%' ORDER BY id`)
	if err != nil {
		return c, fmt.Errorf("seed: entities: %w", err)
	}
	for rows.Next() {
		var scope string
		var id int64
		if err := rows.Scan(&scope, &id); err != nil {
			return c, err
		}
		var s int
		fmt.Sscanf(scope, "bench-%d", &s)
		entityIDs[s] = append(entityIDs[s], id)
	}
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("seed: entities: %w", err)
	}

	durs := []string{"permanent", "long_term", "short_term", "ephemeral"}
	cats := memory.SuggestedCategories()
	// Due facts are spread evenly through the table.
	dueEvery := 0
	if o.DueNow > 0 {
		dueEvery = o.Facts / o.DueNow
	}
	progress := func(phase string, done, total int64) {
		if o.Progress != nil {
			o.Progress(phase, done, total)
		}
	}
	progress("facts", 0, int64(o.Facts))
	src := &factSource{n: o.Facts, progress: func(done int) { progress("facts", int64(done), int64(o.Facts)) }, fn: func(i int) []any {
		s := i % o.Scopes
		ids := entityIDs[s]
		entity := ids[r.IntN(len(ids))]
		dur := durs[r.IntN(len(durs))]
		cat := cats[r.IntN(len(cats))]
		key := ""
		if cat == memory.CategoryDecision || r.IntN(2) == 0 {
			key = fmt.Sprintf("k_%d", i)
		}
		conf := 0.5 + r.Float64()*0.45
		hl := halfLife[dur]
		confirmed := now.Add(-time.Duration(r.Float64() * 0.5 * float64(hl))).Truncate(time.Microsecond)
		var expires, deadline, archivedAt *time.Time
		var reason *string
		status := "active"
		due := dueEvery > 0 && i%dueEvery == 0 && i/dueEvery < o.DueNow
		switch {
		case due:
			t := now.Add(-time.Hour + time.Duration(r.Int64N(int64(time.Hour)))).Truncate(time.Microsecond)
			if !t.Before(now) {
				t = now.Add(-time.Microsecond)
			}
			expires = &t
			c.Due++
		case r.IntN(10) == 0:
			// Archived a while ago; forget_at does not matter to the index.
			status = "archived"
			t := now.Add(-time.Duration(r.Int64N(int64(30 * 24 * time.Hour)))).Truncate(time.Microsecond)
			archivedAt = &t
			rs := "decayed"
			reason = &rs
		case r.IntN(20) == 0:
			t := now.Add(time.Duration(1+r.Int64N(30*24)) * time.Hour).Truncate(time.Microsecond)
			expires = &t
		}
		if cat == memory.CategoryObligation {
			t := now.Add(time.Duration(1+r.Int64N(60*24)) * time.Hour).Truncate(time.Microsecond)
			deadline = &t
		}
		if status == "active" {
			c.Active++
		}
		c.Facts++
		text := sentence(r, 6+r.IntN(10))
		if ZipfScope(s, o.Scopes) {
			text = zipf.sentence(6 + r.IntN(10))
		}
		return []any{Scope(s), entity, key, text, dur, cat, conf, 0.2 + r.Float64()*0.8,
			confirmed, expires, deadline, status, archivedAt, reason, "api", confirmed, confirmed}
	}}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"entity_facts"}, []string{"scope", "entity_id", "key", "content",
		"durability", "category", "confidence", "importance", "confirmed_at", "expires_at", "deadline", "status",
		"archived_at", "archive_reason", "source", "created_at", "updated_at"}, src); err != nil {
		return c, fmt.Errorf("seed: facts: %w", err)
	}

	// Every keyed decision fact gets its decision row, locked against reopening.
	progress("decisions", 0, -1)
	tag, err := pool.Exec(ctx, `
INSERT INTO decisions (fact_id, scope, entity_id, key, decision, reasoning, decided_by, decided_at)
SELECT id, scope, entity_id, key, content, 'seeded', 'bench', confirmed_at
FROM entity_facts WHERE category = 'decision' AND key <> '' AND scope LIKE 'bench-%'`)
	if err != nil {
		return c, fmt.Errorf("seed: decisions: %w", err)
	}
	c.Decisions = int(tag.RowsAffected())

	// Working rows: 1 in 25 expired, 1 in 6 transient, the rest durable.
	progress("working rows", 0, int64(o.Nodes))
	nodeSrc := &factSource{n: o.Nodes, progress: func(done int) { progress("working rows", int64(done), int64(o.Nodes)) }, fn: func(i int) []any {
		s := i % o.Scopes
		marker := "durable"
		switch {
		case i%25 == 0:
			marker = "expired"
			c.Expired++
		case i%6 == 1:
			marker = "transient"
			c.Transient++
		default:
			c.Durable++
		}
		props := map[string]any{"durability": marker,
			"entity": fmt.Sprintf("entity-%d", r.IntN(perScope)), "key": fmt.Sprintf("note_%d", i)}
		if i%2 == 0 {
			props["category"] = cats[r.IntN(len(cats))]
			if props["category"] == memory.CategoryDecision || props["category"] == memory.CategoryObligation {
				props["category"] = memory.CategoryObservation
			}
			props["fact_durability"] = durs[r.IntN(len(durs))]
		}
		b, _ := json.Marshal(props)
		created := now.Add(-time.Duration(r.Int64N(int64(6 * time.Hour)))).Truncate(time.Microsecond)
		return []any{Scope(s), sentence(r, 8+r.IntN(8)), string(b), 0.5, created}
	}}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"memory_nodes"},
		[]string{"scope", "content", "properties", "importance", "created_at"}, nodeSrc); err != nil {
		return c, fmt.Errorf("seed: nodes: %w", err)
	}
	progress("analyze", 0, -1)
	// Each COPY statement appended its lexemes' counts to recall_terms
	// unfolded, as any writer does; the decay tick folds them. Folded here,
	// the seeded store is as a running one keeps it, and the first decay tick
	// measured is a tick, not the fold of the whole seed.
	if err := memory.NewStore(pool, memory.Options{Now: func() time.Time { return now }}).FoldRecallTerms(ctx); err != nil {
		return c, fmt.Errorf("seed: fold recall terms: %w", err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		return c, fmt.Errorf("seed: analyze: %w", err)
	}
	var due int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND forget_at <= $1`, now).Scan(&due); err != nil {
		return c, fmt.Errorf("seed: count due: %w", err)
	}
	if due != c.Due || c.Due != o.DueNow {
		return c, fmt.Errorf("seed: %d facts are due, want %d", due, o.DueNow)
	}
	c.Elapsed = time.Since(start)
	progress("done", int64(c.Facts), int64(c.Facts))
	return c, nil
}

// factSource feeds CopyFrom one generated row at a time, so a million rows
// never sit in memory at once.
type factSource struct {
	n, i int
	fn   func(i int) []any
	row  []any
	// progress, when set, is called with the rows sent so far every
	// progressRows rows and at the end.
	progress func(done int)
}

// progressRows is how often a factSource reports its progress.
const progressRows = 10_000

func (s *factSource) Next() bool {
	if s.i >= s.n {
		if s.progress != nil && s.n > 0 {
			s.progress(s.n)
			s.progress = nil
		}
		return false
	}
	s.row = s.fn(s.i)
	s.i++
	if s.progress != nil && s.i%progressRows == 0 && s.i < s.n {
		s.progress(s.i)
	}
	return true
}

func (s *factSource) Values() ([]any, error) { return s.row, nil }
func (s *factSource) Err() error             { return nil }
