package memory

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseQuestion(t *testing.T) {
	tests := []struct {
		in                 string
		words              string
		phrases, negations []string
	}{
		{"What did Caroline research?", "What did Caroline research?", nil, nil},
		{`"green tea" -Bob`, `green tea`, []string{"green tea"}, []string{"Bob"}},
		{"postgres or mysql", "postgres or mysql", nil, nil},
		{"a well-known fix, 3 - 2", "a well-known fix, 3 - 2", nil, nil},
		{`-"not a phrase" x`, `- not a phrase x`, []string{"not a phrase"}, nil},
		{`"unclosed phrase`, `unclosed phrase`, []string{"unclosed phrase"}, nil},
		{"--double -", "--double -", nil, nil},
		{"tea -milk\t-sugar", "tea", nil, []string{"milk", "sugar"}},
	}
	for _, tt := range tests {
		got := parseQuestion(tt.in)
		if got.words != tt.words || !slices.Equal(got.phrases, tt.phrases) || !slices.Equal(got.negations, tt.negations) {
			t.Errorf("parseQuestion(%q) = %q %q %q, want %q %q %q", tt.in,
				got.words, got.phrases, got.negations, tt.words, tt.phrases, tt.negations)
		}
	}
}

func TestTSVectorCounts(t *testing.T) {
	got := tsvectorCounts(`'carolin':1A,8A 'it''s':3A 'back\\slash':4A 'solo' 'research':2A,5A,9A`)
	want := map[string]int{"carolin": 2, "it's": 1, `back\slash`: 1, "solo": 1, "research": 3}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tsvectorCounts = %v, want %v", got, want)
	}
	if got := tsvectorCounts(""); len(got) != 0 {
		t.Errorf("tsvectorCounts(empty) = %v, want none", got)
	}
}

// TestBM25 holds the ranking to what BM25 promises: a rarer word weighs
// more, a repeat adds less than the first match, a longer fact ranks below
// a shorter one with the same matches, and more matched words rank higher.
func TestBM25(t *testing.T) {
	r := newRanking([]string{"rare", "common"}, []int64{2, 500}, 1000, 10000)
	r.add(1, 1, 10, `'rare':1`)
	r.add(2, 1, 10, `'common':1`)
	r.add(3, 1, 10, `'rare':1,2`)
	r.add(4, 1, 40, `'rare':1`)
	r.add(5, 1, 10, `'rare':1 'common':2`)
	s := func(id int64) float64 { return r.seen[id].score }
	if !(s(1) > s(2)) {
		t.Errorf("rare word %v <= common word %v", s(1), s(2))
	}
	if !(s(3) > s(1) && s(3)-s(1) < s(1)) {
		t.Errorf("a repeat: %v against one match %v, want more but less than twice", s(3), s(1))
	}
	if !(s(4) < s(1)) {
		t.Errorf("a long fact %v >= a short one %v", s(4), s(1))
	}
	if !(s(5) > s(1)) {
		t.Errorf("two matched words %v <= one %v", s(5), s(1))
	}
	for id := int64(1); id <= 5; id++ {
		var bound float64
		for _, term := range r.terms {
			bound += term.bound()
		}
		if s(id) > bound {
			t.Errorf("fact %d scores %v, above the bound of all terms %v", id, s(id), bound)
		}
	}
	if got := r.top(2); len(got) != 2 || got[0].id != 3 || got[1].id != 5 {
		t.Errorf("top(2) = %v, want facts 3 and 5", got)
	}
}

// TestRecallAgreesWithBM25 compares recall with BM25 computed here, in Go,
// on every fact of a scope, for questions of rare and common words: the
// same facts in the same order whenever recall's page is settled by the
// rarest words' facts, and otherwise the same first results among the
// facts it read.
func TestRecallAgreesWithBM25(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	// Zipf-distributed words: a few in most facts, most in a few.
	vocab := make([]string, 400)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%03dx", i)
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 5)), 1.1, 1, uint64(len(vocab)-1))
	type fact struct {
		id      int64
		entity  string
		content string
		conf    float64
		age     time.Duration
	}
	var facts []fact
	people := []string{"Caroline", "Melanie", "Jon"}
	for i := 0; i < 1500; i++ {
		n := 3 + rng.IntN(12)
		words := make([]string, n)
		for j := range words {
			words[j] = vocab[zipf.Uint64()]
		}
		f := fact{entity: people[rng.IntN(len(people))], content: strings.Join(words, " "),
			conf: 0.3 + 0.7*rng.Float64(), age: time.Duration(rng.IntN(200*24)) * time.Hour}
		f.id = rf.insert(t, recallFact{entity: f.entity, content: f.content, confidence: f.conf, age: f.age})
		facts = append(facts, f)
	}
	// What the triggers keep, against the facts themselves.
	var n, total int64
	if err := rf.pool.QueryRow(ctx, `SELECT sum(facts)::bigint, sum(lexemes)::bigint FROM recall_terms WHERE scope = 'acme' AND lexeme = ''`).Scan(&n, &total); err != nil {
		t.Fatal(err)
	}
	var wantTotal int64
	if err := rf.pool.QueryRow(ctx, `SELECT sum(length(search))::bigint FROM entity_facts WHERE scope = 'acme' AND status = 'active'`).Scan(&wantTotal); err != nil {
		t.Fatal(err)
	}
	if n != int64(len(facts)) || total != wantTotal {
		t.Fatalf("recall_terms totals = %d facts, %d lexemes; want %d, %d", n, total, len(facts), wantTotal)
	}
	// The reference: every fact's lexemes and effective confidence, read
	// from the database, ranked in Go.
	type doc struct {
		id     int64
		conf   float64
		length int
		tf     map[string]int
	}
	rows, err := rf.pool.Query(ctx, `SELECT id, tenure_decayed(confidence, decay_from, decay_half_life, $1)::double precision,
		length(search), search::text FROM entity_facts WHERE scope = 'acme' AND status = 'active'`, rf.now)
	if err != nil {
		t.Fatal(err)
	}
	var docs []doc
	df := map[string]int{}
	for rows.Next() {
		var d doc
		var text string
		if err := rows.Scan(&d.id, &d.conf, &d.length, &text); err != nil {
			t.Fatal(err)
		}
		d.tf = tsvectorCounts(text)
		for l := range d.tf {
			df[l]++
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var sumLen int
	for _, d := range docs {
		sumLen += d.length
	}
	avg := float64(sumLen) / float64(len(docs))
	reference := func(lexemes []string, k int) []int64 {
		type scored struct {
			id    int64
			score float64
		}
		var all []scored
		for _, d := range docs {
			var rel float64
			for _, l := range lexemes {
				tf := float64(d.tf[l])
				if tf == 0 {
					continue
				}
				idf := math.Log(1 + (float64(len(docs))-float64(df[l])+0.5)/(float64(df[l])+0.5))
				rel += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(d.length)/avg))
			}
			if rel > 0 {
				all = append(all, scored{d.id, rel * d.conf})
			}
		}
		slices.SortFunc(all, func(a, b scored) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return int(b.id - a.id)
		})
		ids := make([]int64, 0, k)
		for _, s := range all[:min(k, len(all))] {
			ids = append(ids, s.id)
		}
		return ids
	}
	questions := []struct {
		query   string
		lexemes []string
	}{
		{"w350x", []string{"w350x"}},
		{"What about w200x and w300x?", []string{"w200x", "w300x"}},
		{"Did Caroline mention w120x?", []string{"carolin", "w120x"}},
		{"w001x w002x w250x w390x", []string{"w001x", "w002x", "w250x", "w390x"}},
		{"w030x w040x w050x w060x w070x w080x w090x", []string{"w030x", "w040x", "w050x", "w060x", "w070x", "w080x", "w090x"}},
	}
	for _, q := range questions {
		for _, k := range []int{1, 5, 10, 25} {
			got := resultIDs(rf.recall(t, RecallQuery{Scope: "acme", Query: q.query, Limit: k}))
			if want := reference(q.lexemes, k); !slices.Equal(got, want) {
				t.Errorf("Recall(%q, limit %d) = %v, want %v (BM25 of every fact)", q.query, k, got, want)
			}
		}
	}
	// A question of common words only, with fewer facts than it could
	// read: still every fact, so still exact.
	got := resultIDs(rf.recall(t, RecallQuery{Scope: "acme", Query: "w001x w000x"}))
	if want := reference([]string{"w001x", "w000x"}, 10); !slices.Equal(got, want) {
		t.Errorf("Recall(common words) = %v, want %v", got, want)
	}
}

// TestRecallNamesEntities shows that a fact's entity is among its words:
// a question naming a person finds what that person said although the
// fact's text does not name them, and lifts their facts above others'.
func TestRecallNamesEntities(t *testing.T) {
	rf := newRecallFixture(t)
	hers := rf.insert(t, recallFact{entity: "Caroline", content: "researched adoption agencies last week"})
	his := rf.insert(t, recallFact{entity: "Jon", content: "researched new bikes"})
	rf.insert(t, recallFact{entity: "Jon", content: "likes long walks"})
	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "What did Caroline research?"})
	if got := resultIDs(res); !slices.Equal(got, []int64{hers, his}) {
		t.Errorf("Recall(What did Caroline research?) = %v, want [%d %d]: hers first, then the other research", got, hers, his)
	}
	// The general entity names nothing.
	rf.insert(t, recallFact{entity: "general", content: "the office opens at nine"})
	if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "general"}); len(res) != 0 {
		t.Errorf("Recall(general) = %v, want nothing: the default entity is no word of its facts", resultIDs(res))
	}
}

// TestRecallTermsFollowFacts checks that recall_terms follows every change
// of a live fact: an insert, a correction of its text, an archive and a
// restore, a delete, and a fold, which changes no sum.
func TestRecallTermsFollowFacts(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	df := func(lexeme string) int64 {
		t.Helper()
		var n int64
		if err := rf.pool.QueryRow(ctx, `SELECT coalesce(sum(facts), 0)::bigint FROM recall_terms WHERE scope = 'acme' AND lexeme = $1`, lexeme).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	a := rf.insert(t, recallFact{content: "tea in the morning"})
	rf.insert(t, recallFact{content: "tea at noon"})
	if df("tea") != 2 || df("") != 2 || df("ann") != 2 {
		t.Fatalf("after two inserts: tea %d, facts %d, ann %d; want 2, 2, 2", df("tea"), df(""), df("ann"))
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := rf.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE entity_facts SET content = 'coffee in the morning' WHERE id = $1`, a)
	if df("tea") != 1 || df("coffe") != 1 || df("") != 2 {
		t.Errorf("after a correction: tea %d, coffe %d, facts %d; want 1, 1, 2", df("tea"), df("coffe"), df(""))
	}
	exec(`UPDATE entity_facts SET status = 'archived', archived_at = now() WHERE id = $1`, a)
	if df("coffe") != 0 || df("") != 1 {
		t.Errorf("after an archive: coffe %d, facts %d; want 0, 1", df("coffe"), df(""))
	}
	exec(`UPDATE entity_facts SET confidence = 0.5 WHERE id = $1`, a) // an archived fact's change
	exec(`UPDATE entity_facts SET status = 'active', archived_at = NULL WHERE id = $1`, a)
	if df("coffe") != 1 || df("") != 2 {
		t.Errorf("after a restore: coffe %d, facts %d; want 1, 2", df("coffe"), df(""))
	}
	if err := rf.s.FoldRecallTerms(ctx); err != nil {
		t.Fatal(err)
	}
	var rows, unfolded int
	if err := rf.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE NOT folded) FROM recall_terms WHERE scope = 'acme' AND lexeme IN ('', 'tea')`).Scan(&rows, &unfolded); err != nil {
		t.Fatal(err)
	}
	if rows != 2 || unfolded != 0 || df("tea") != 1 || df("") != 2 {
		t.Errorf("after a fold: %d rows (%d unfolded), tea %d, facts %d; want 2 rows, 0 unfolded, 1, 2", rows, unfolded, df("tea"), df(""))
	}
	exec(`DELETE FROM entity_facts WHERE id = $1`, a)
	if df("coffe") != 0 || df("") != 1 {
		t.Errorf("after a delete: coffe %d, facts %d; want 0, 1", df("coffe"), df(""))
	}
}

// TestRecallReadsCommonWordsAmongTheNewest shows the bound that keeps recall
// fast in a large scope: a word too common to read whole is looked for among
// the scope's newest recallRecent facts only, while a rare word of the same
// question is read wherever it is. Old facts that hold only a common word
// are therefore not recalled by it, however well they would rank; with a
// rare word of its own beside it, such a fact is, and ranks first.
func TestRecallReadsCommonWordsAmongTheNewest(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	insert := func(n int, content string) {
		t.Helper()
		if _, err := rf.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, confidence, confirmed_at, created_at, updated_at)
			SELECT 'acme', (SELECT id FROM entities WHERE scope = 'acme' AND name = 'Ann'), $3 || ' ' || i, 0.5, $1, $1, $1
			FROM generate_series(1, $2::integer) i`, rf.now, n, content); err != nil {
			t.Fatal(err)
		}
	}
	old := rf.insert(t, recallFact{content: "beta gamma", confidence: 1})
	// More old facts holding beta than recall reads whole, so beta is a
	// common word; then a window's worth of newer facts, ten of them
	// holding beta.
	insert(recallCandidates+200, "beta old filler")
	insert(recallRecent-10, "new filler")
	// Ten lines of their own words (lines differing only by a number are
	// one templated line, which recall shows once).
	if _, err := rf.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, confidence, confirmed_at, created_at, updated_at)
		SELECT 'acme', (SELECT id FROM entities WHERE scope = 'acme' AND name = 'Ann'), 'beta new filler ' || repeat('z', i), 0.5, $1, $1, $1
		FROM generate_series(1, 10) i`, rf.now); err != nil {
		t.Fatal(err)
	}
	var oldest int64 // the oldest fact in the window
	if err := rf.pool.QueryRow(ctx, `SELECT id FROM entity_facts WHERE scope = 'acme' AND status = 'active'
		ORDER BY id DESC OFFSET $1 LIMIT 1`, recallRecent-1).Scan(&oldest); err != nil {
		t.Fatal(err)
	}
	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "beta", Limit: 25})
	if len(res) != 10 {
		t.Errorf("Recall(beta) gave %d facts, want the 10 among the newest %d", len(res), recallRecent)
	}
	for _, r := range res {
		if r.Fact.ID < oldest {
			t.Errorf("Recall(beta) gave fact %d, older than the newest %d facts (from %d on)", r.Fact.ID, recallRecent, oldest)
		}
	}
	if got := resultIDs(rf.recall(t, RecallQuery{Scope: "acme", Query: "beta gamma", Limit: 3})); len(got) == 0 || got[0] != old {
		t.Errorf("Recall(beta gamma) = %v, want the old fact %d first (gamma is rare: read wherever it is)", got, old)
	}
}

// TestRecallShowsATemplatedLineOnce: lines of one entity that differ only
// by their numbers ("Reindex job 412 finished in 31 s") are one line
// repeated: recall shows the best of them once and fills the page with
// other facts.
func TestRecallShowsATemplatedLineOnce(t *testing.T) {
	rf := newRecallFixture(t)
	for i := range 30 {
		rf.insert(t, recallFact{entity: "search", content: fmt.Sprintf("Reindex job %d finished in %d s.", 400+i, 30+i),
			age: time.Duration(30-i) * time.Hour})
	}
	policy := rf.insert(t, recallFact{entity: "search", content: "A full reindex runs every Sunday night."})
	other := rf.insert(t, recallFact{entity: "billing", content: "Reindex job 7 finished in 12 s."})
	res := rf.recall(t, RecallQuery{Scope: "acme", Query: "When did the reindex job finish?", Limit: 5})
	jobs := 0
	var ids []int64
	for _, r := range res {
		ids = append(ids, r.Fact.ID)
		if r.Fact.Entity == "search" && strings.HasPrefix(r.Fact.Content, "Reindex job") {
			jobs++
		}
	}
	if jobs != 1 || !slices.Contains(ids, policy) || !slices.Contains(ids, other) {
		t.Errorf("Recall(reindex) = %v, want one of search's job lines, the policy %d and billing's line %d", contents(res), policy, other)
	}
}
