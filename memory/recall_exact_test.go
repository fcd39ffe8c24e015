package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// recallWords is the test vocabulary, the most frequent first.
var recallWords = strings.Fields(`tea coffee berlin deploy budget piano garden invoice
lisbon react python meeting travel kyoto novel winter dentist salary hotel tokyo
lunch guitar podcast insurance mortgage seattle espresso laptop printer recipe`)

// seedRecallFacts writes n facts to scope (and its entities Ann, Bob, Cy)
// with words drawn by Zipf's law, so that the first words are in most facts
// and often several times in one: every durability and suggested category,
// confidences from below the archive floor to 1, ages up to 400 days,
// obligations with deadlines before and after now, one in ten archived.
func seedRecallFacts(t *testing.T, rf *recallFixture, scope string, n int, seed uint64) {
	t.Helper()
	ctx := context.Background()
	var entities []int64
	for _, name := range []string{"Ann", "Bob", "Cy"} {
		var id int64
		if err := rf.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ($1, $2)
			ON CONFLICT (scope, name) DO UPDATE SET name = excluded.name RETURNING id`, scope, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		entities = append(entities, id)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	zipf := rand.NewZipf(r, 1.2, 1, uint64(len(recallWords)-1))
	durs := Durabilities()
	cats := SuggestedCategories()
	rows := make([][]any, 0, n)
	for i := range n {
		words := make([]string, 3+r.IntN(18))
		for j := range words {
			words[j] = recallWords[zipf.Uint64()]
		}
		switch i % 97 {
		case 0: // a long fact: one word many times
			for range 20 + r.IntN(30) {
				words = append(words, recallWords[r.IntN(5)])
			}
		case 1: // more positions than a tsvector keeps for one lexeme
			for range 300 {
				words = append(words, "kyoto")
			}
		}
		key := ""
		if r.IntN(3) == 0 {
			key = fmt.Sprintf("k_%d", i)
		}
		cat := cats[r.IntN(len(cats))]
		var deadline *time.Time
		if cat == CategoryObligation {
			d := rf.now.Add(time.Duration(r.IntN(40*24)-20*24) * time.Hour)
			deadline = &d
		}
		status := "active"
		var archivedAt *time.Time
		if r.IntN(10) == 0 {
			status, archivedAt = "archived", &rf.now
		}
		confirmed := rf.now.Add(-time.Duration(r.Int64N(int64(400 * 24 * time.Hour))))
		rows = append(rows, []any{scope, entities[r.IntN(len(entities))], key, strings.Join(words, " "),
			string(durs[r.IntN(len(durs))]), cat, 0.05 + 0.95*r.Float64(), 0.5, confirmed, deadline, status,
			archivedAt, confirmed, confirmed})
	}
	if _, err := rf.pool.CopyFrom(ctx, pgx.Identifier{"entity_facts"}, []string{"scope", "entity_id", "key",
		"content", "durability", "category", "confidence", "importance", "confirmed_at", "deadline", "status",
		"archived_at", "created_at", "updated_at"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
}

// recallQueries are the queries the exactness tests ask: single words from
// the most to the least frequent, both-words, either-word, phrases,
// negations, keys, stop words and odd lexemes.
func recallQueries() []string {
	var qs []string
	for i, w := range recallWords {
		qs = append(qs, w)
		next := recallWords[(i+1)%len(recallWords)]
		far := recallWords[(i+7)%len(recallWords)]
		qs = append(qs, w+" or "+next, w+" "+next, w+" or "+far+" or "+next, `"`+w+" "+next+`"`, w+" -"+next)
	}
	return append(qs, "-tea", "tea or -coffee", "tea tea", "kyoto", "k_7", "k_100 or k_200", "the",
		"o'reilly tea", `back\slash`, strings.Repeat("x", 300)+" or tea", "berlin or lisbon or kyoto or tokyo or seattle",
		"a b c d e f g h i j tea")
}

// TestRecallAgreesWithFullRanking holds recall to the ranking of every
// match: the same facts in the same order with the same relevance and score,
// whatever the query, filters and limit, before and after writes that move
// facts in and out of the indexes.
func TestRecallAgreesWithFullRanking(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	seedRecallFacts(t, rf, "acme", 3000, 1)
	seedRecallFacts(t, rf, "other", 500, 2)
	if _, err := rf.pool.Exec(ctx, "ANALYZE entity_facts"); err != nil {
		t.Fatal(err)
	}
	// "a b" walks, and "a or b" reads its rungs first, whatever their
	// matches; after the writes below, both are routed by the statistics.
	rf.s.bothWalkMatches, rf.s.pairsFirstFacts = 0, 0
	settled, bothSettled, twoOnce := 0, 0, 0
	wholeBelow, banded := 0, 0 // walks of rungs that read rungs below recallBandedT whole, and that did not
	check := func(t *testing.T) {
		for _, text := range recallQueries() {
			for _, q := range []RecallQuery{
				{Scope: "acme", Query: text},
				{Scope: "acme", Query: text, Limit: 1},
				{Scope: "acme", Query: text, Limit: 100},
				{Scope: "acme", Query: text, Durability: string(LongTerm)},
				{Scope: "acme", Query: text, Category: CategoryObservation, Limit: 5},
				{Scope: "acme", Query: text, Entity: "Bob"},
			} {
				before := len(rf.sent.stmts)
				got := rf.recall(t, q)
				if !rf.sent.sentSince(before, "name: RecallEvery") && !rf.sent.sentSince(before, "name: RecallSearch") &&
					(rf.sent.sentSince(before, "name: RecallWalk") || rf.sent.sentSince(before, "name: RecallPairs")) {
					settled++
					if w := strings.Fields(text); len(w) == 2 && w[0] != w[1] && !strings.ContainsAny(text, `"-`) {
						bothSettled++ // "a b", on the pair's tokens
					}
					if rf.sent.sentSince(before, "name: RecallWalk") && rf.sent.readTwoOnceSince(before) {
						twoOnce++ // a walk that did not settle, then the facts holding two lexemes once
					}
				}
				for _, cells := range rf.sent.walkCellsSince(before) {
					text, err := queries.New(rf.pool).RecallParse(ctx, q.Query)
					if err != nil {
						t.Fatal(err)
					}
					tq, _ := parseTSQuery(text)
					if _, _, both := tq.both(); both && tq.minLexemes == 2 {
						continue // the cells of "a b"
					}
					if len(cells) < len(recallRungs(tq.lexemes, q.Scope, tq.minLexemes, nil).cells(q.Scope)) {
						wholeBelow++
					} else {
						banded++
					}
				}
				rf.checkExact(t, q, got)
			}
		}
	}
	check(t)
	t.Logf("%d walks read rungs below T %d whole, %d by band", wholeBelow, recallBandedT, banded)
	if wholeBelow < 50 || banded < 50 {
		t.Errorf("%d walks read rungs below T %d whole and %d by band, want many of each (the rare words' and the common words')",
			wholeBelow, recallBandedT, banded)
	}
	t.Logf("%d recalls settled on the rungs or the pairs", settled)
	if settled < 100 {
		t.Errorf("%d recalls settled on the repeats alone, want most of the single words and either-words", settled)
	}
	t.Logf("%d recalls settled on the facts holding two lexemes once after their walk", twoOnce)
	if twoOnce < 50 {
		t.Errorf("%d recalls settled on the facts holding two lexemes once after their walk, want the either-words whose walk cannot settle (184 when written)", twoOnce)
	}
	t.Logf("%d recalls of both of two words settled on the pair's tokens", bothSettled)
	if bothSettled < 15 {
		t.Errorf("%d recalls of both of two words settled on the pair's tokens, want those of the common words (23 of 180 when written)", bothSettled)
	}

	// Writers change facts with plain statements (an edit, archiving,
	// reinforcement, a restore, a move between scopes): the indexes follow.
	for _, w := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE entity_facts SET content = content || ' tea tea tea tea tea tea tea', version = version + 1
		  WHERE scope = 'acme' AND id % 13 = 0`, nil},
		{`UPDATE entity_facts SET status = 'archived', archived_at = $1, archive_reason = 'test'
		  WHERE scope = 'acme' AND status = 'active' AND id % 11 = 0`, []any{rf.now}},
		{`UPDATE entity_facts SET confidence = 1, confirmed_at = $1 WHERE scope = 'acme' AND id % 17 = 0`, []any{rf.now}},
		{`UPDATE entity_facts SET status = 'active', archived_at = NULL, archive_reason = NULL
		  WHERE scope = 'acme' AND status = 'archived' AND id % 5 = 0`, nil},
		{`UPDATE entity_facts SET scope = 'acme', entity_id = (SELECT id FROM entities WHERE scope = 'acme' AND name = 'Cy')
		  WHERE scope = 'other' AND id % 3 = 0`, nil},
	} {
		if _, err := rf.pool.Exec(ctx, w.sql, w.args...); err != nil {
			t.Fatalf("%s: %v", w.sql, err)
		}
	}
	rf.s.bothWalkMatches, rf.s.pairsFirstFacts = recallBothWalkMatches, recallPairsFirstFacts
	check(t)
}

// TestRecallWalkAndPairsShareASnapshot holds the two statements of a walk
// that the facts holding two lexemes once complete to one snapshot: a fact
// of the answer that only the second statement reads is archived just
// before that statement is sent, and the answer is still the one ranking
// every match gave before the write.
func TestRecallWalkAndPairsShareASnapshot(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	seedRecallFacts(t, rf, "acme", 3000, 1)
	rf.s.pairsFirstFacts = 0 // walk first, whatever the statistics say
	tried := 0
	for _, text := range recallQueries() {
		if !strings.Contains(text, " or ") {
			continue
		}
		q := RecallQuery{Scope: "acme", Query: text}
		before := len(rf.sent.stmts)
		want := rf.recall(t, q)
		if !rf.sent.sentSince(before, "name: RecallWalk") || !rf.sent.readTwoOnceSince(before) {
			continue // settled by its walk, or by something else
		}
		// A fact of the answer that holds no lexeme of the query twice:
		// only the second statement reads it.
		parsed, err := rf.s.q.RecallParse(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		tq, _ := parseTSQuery(parsed)
		victim := int64(0)
		for _, r := range want {
			var holdsTwice bool
			if err := rf.pool.QueryRow(ctx, `SELECT strpos(search::text, ',') > 0
				AND tenure_recall_repeats(scope, search, confidence) @@ $2::tsquery FROM entity_facts WHERE id = $1`,
				r.Fact.ID, recallTwice(tq.lexemes, "acme")).Scan(&holdsTwice); err != nil {
				t.Fatal(err)
			}
			if !holdsTwice {
				victim = r.Fact.ID
				break
			}
		}
		if victim == 0 {
			continue
		}
		tried++
		var archived bool
		rf.sent.mu.Lock()
		rf.sent.beforeBatch = func(sql string) {
			if archived || !strings.Contains(sql, "name: RecallPairs") {
				return
			}
			archived = true
			if _, err := rf.pool.Exec(ctx, `UPDATE entity_facts SET status = 'archived', archived_at = $2,
				archive_reason = 'test' WHERE id = $1`, victim, rf.now); err != nil {
				t.Error(err)
			}
		}
		lone := len(rf.sent.lone)
		rf.sent.mu.Unlock()
		got := rf.recall(t, q)
		rf.sent.mu.Lock()
		rf.sent.beforeBatch = nil
		// The transaction's BEGIN and COMMIT travel with its statements.
		for _, sql := range rf.sent.lone[lone:] {
			if f := strings.Fields(strings.ToLower(sql)); len(f) > 0 && (f[0] == "begin" || f[0] == "commit") {
				t.Errorf("Recall(%q) sent %q on its own", text, sql)
			}
		}
		rf.sent.mu.Unlock()
		if !archived {
			t.Fatalf("Recall(%q) did not read the facts holding two lexemes once the second time", text)
		}
		if !slices.Equal(resultIDs(got), resultIDs(want)) {
			t.Errorf("Recall(%q) with fact %d archived between its statements = %v, want the answer of one snapshot %v",
				text, victim, resultIDs(got), resultIDs(want))
		}
		// Restored for the next query.
		if _, err := rf.pool.Exec(ctx, `UPDATE entity_facts SET status = 'active', archived_at = NULL,
			archive_reason = NULL WHERE id = $1`, victim); err != nil {
			t.Fatal(err)
		}
		if tried == 5 {
			break
		}
	}
	if tried == 0 {
		t.Fatal("no either-words query settled on the facts holding two lexemes once after its walk")
	}
}

// checkExact holds got, the answer of Recall(q), to ranking every match: the
// same facts in the same order with the same relevance and score.
func (rf *recallFixture) checkExact(t *testing.T, q RecallQuery, got []RecallResult) {
	t.Helper()
	p, err := q.validate()
	if err != nil {
		t.Fatal(err)
	}
	want, err := recallSearch(context.Background(), rf.s.q, p, rf.now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("Recall(%+v) = %d results, ranking every match gives %d", q, len(got), len(want))
	}
	for i := range want {
		g := got[i]
		if g.Fact.ID != want[i].ID || g.Score != want[i].Score || g.Relevance != want[i].Relevance ||
			g.Fact.EffectiveConfidence != want[i].EffectiveConfidence {
			t.Fatalf("Recall(%+v) result %d = fact %d (relevance %v, score %v), ranking every match gives fact %d (%v, %v)",
				q, i, g.Fact.ID, g.Relevance, g.Score, want[i].ID, want[i].Relevance, want[i].Score)
		}
	}
}

// sentSince reports whether a statement containing marker was sent after the
// first n.
func (r *sqlRecorder) sentSince(n int, marker string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.stmts[n:] {
		if strings.Contains(s.SQL, marker) {
			return true
		}
	}
	return false
}

// readTwoOnceSince reports whether RecallPairs was sent after the first n
// statements without its repeats (only the facts holding two lexemes).
func (r *sqlRecorder) readTwoOnceSince(n int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.stmts[n:] {
		if strings.Contains(s.SQL, "name: RecallPairs") && len(s.Args) > 2 && s.Args[2] == (*string)(nil) {
			return true
		}
	}
	return false
}

// walkCellsSince returns the cells of each walk sent after the first n
// statements.
func (r *sqlRecorder) walkCellsSince(n int) [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]string
	for _, s := range r.stmts[n:] {
		if strings.Contains(s.SQL, "name: RecallWalk") && len(s.Args) > 4 {
			if cells, ok := s.Args[4].([]string); ok {
				out = append(out, cells)
			}
		}
	}
	return out
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

// TestRecallRelevanceBound checks, on every match of every test query, what
// recall's early stop rests on: a match holds at least m positions of the
// query's lexemes, and its ts_rank_cd is at most 0.1 × (T - max(m, 1) + 1)
// for T positions of them.
func TestRecallRelevanceBound(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	seedRecallFacts(t, rf, "acme", 1500, 3)
	checked := 0
	for _, text := range recallQueries() {
		parsed, err := rf.s.q.RecallParse(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		tq, ok := parseTSQuery(parsed)
		if !ok {
			t.Fatalf("parseTSQuery(%q) failed", parsed)
		}
		rows, err := rf.pool.Query(ctx, `
			SELECT f.id, ts_rank_cd(f.search, q)::double precision,
				(SELECT coalesce(sum(cardinality(u.positions)), 0)::int FROM unnest(f.search) u WHERE u.lexeme = ANY($2))
			FROM websearch_to_tsquery('english', $1) q, entity_facts f
			WHERE f.search @@ q`, text, tq.lexemes)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var rel float64
			var n int
			if err := rows.Scan(&id, &rel, &n); err != nil {
				t.Fatal(err)
			}
			checked++
			if n < tq.minLexemes {
				t.Errorf("query %q (%s): fact %d matches with %d positions of its lexemes, m = %d", text, parsed, id, n, tq.minLexemes)
			}
			if bound := recallCoverBound * float64(n-max(tq.minLexemes, 1)+1); rel > bound {
				t.Errorf("query %q (%s): fact %d has relevance %v over the bound %v (T = %d, m = %d)",
					text, parsed, id, rel, bound, n, tq.minLexemes)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if checked < 10000 {
		t.Errorf("checked %d matches, want the test queries to match many facts", checked)
	}
}

// TestRecallTokensMatchIndex holds the tokens recall asks for to those the
// index functions write.
func TestRecallTokensMatchIndex(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	var repeats, terms string
	// 20 positions of "tea", 3 of "it's", 1 of "coffee".
	v := "'tea':1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 'coffee':21 'it''s':22,23,24"
	if err := rf.pool.QueryRow(ctx, `SELECT tenure_recall_repeats('acme', $1::tsvector, 0.71)::text,
		tenure_recall_terms('acme', $1::tsvector)::text`, v).Scan(&repeats, &terms); err != nil {
		t.Fatal(err)
	}
	// Two lexemes: coffee is next to tea's last position and to it's first
	// (S = 2, A = 1: L = 3 each); it's and tea both repeat (S = 6, A = 0).
	want := []string{tsqueryOperand(" 8 acme"), tsqueryOperand("coffee tea 3 8 acme"), tsqueryOperand("coffee it's 3 8 acme"),
		tsqueryOperand("it's tea 6 8 acme")} // confidence 0.71: band 8
	for _, j := range recallSteps {
		want = append(want, tsqueryOperand(fmt.Sprintf("tea %d acme", j)))
		if j <= 3 {
			want = append(want, tsqueryOperand(fmt.Sprintf("it's %d acme", j)))
		}
	}
	slices.Sort(want)
	if got := splitTSVector(repeats); !slices.Equal(got, want) {
		t.Errorf("tenure_recall_repeats = %s, want the tokens %v", repeats, want)
	}
	if got, want := splitTSVector(terms), []string{"'coffee acme'", "'it''s acme'", "'tea acme'"}; !slices.Equal(got, want) {
		t.Errorf("tenure_recall_terms = %s, want %v", terms, want)
	}
	// A fact whose lexemes are too long for a token (over 1000 bytes, in a
	// text over 1900) is written all the same, with the tokens of the others.
	long := strings.Repeat("z", 1950)
	if err := rf.pool.QueryRow(ctx, `SELECT tenure_recall_terms('acme', to_tsvector('simple', $1))::text,
		tenure_recall_repeats('acme', to_tsvector('simple', $1), 1)::text`, long+" "+long+" tea tea").Scan(&terms, &repeats); err != nil {
		t.Fatal(err)
	}
	if terms != "'tea acme'" || repeats != "' 10 acme' 'tea 2 acme'" {
		t.Errorf("with a long lexeme: terms %s, repeats %s; want only tea's tokens", terms, repeats)
	}
	for _, n := range []int{990, 1890, 2040} {
		word := strings.Repeat("y", n)
		rf.insert(t, recallFact{content: word + " " + word + " tea tea"})
		rf.insert(t, recallFact{key: "long", content: strings.Repeat(word+" ", 3) + "tea"})
	}
	if res := rf.recall(t, RecallQuery{Scope: "acme", Query: "tea"}); len(res) != 6 {
		t.Errorf("Recall(tea) = %d results, want the 6 facts with long words", len(res))
	}
	if res := rf.recall(t, RecallQuery{Scope: "acme", Query: strings.Repeat("y", 990)}); len(res) != 2 {
		t.Errorf("Recall(a long word) = %d results, want 2", len(res))
	}
}

// splitTSVector returns the quoted lexemes of a tsvector's text, sorted.
func splitTSVector(s string) []string {
	var out []string
	for rest := s; rest != ""; {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" || rest[0] != '\'' {
			break
		}
		i := 1
		for i < len(rest) {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i += 2
					continue
				}
				break
			}
			i++
		}
		out = append(out, rest[:i+1])
		rest = rest[i+1:]
	}
	slices.Sort(out)
	return out
}

func TestParseTSQuery(t *testing.T) {
	tests := []struct {
		text    string
		lexemes []string
		m       int
		scoped  string // "" when no tokens serve
	}{
		{"", nil, 0, ""},
		{"'tea'", []string{"tea"}, 1, "'tea s'"},
		{"'hotel' & 'invoic'", []string{"hotel", "invoic"}, 2, "('hotel s' & 'invoic s')"},
		{"'budget' | 'invoic'", []string{"budget", "invoic"}, 1, "('budget s' | 'invoic s')"},
		{"'green' <-> 'tea' & !'bob'", []string{"green", "tea", "bob"}, 2, "('green s' & 'tea s')"},
		{"'k' <-> '123'", []string{"k", "123"}, 2, "('k s' & '123 s')"},
		{"'b' <-> 'c' | 'd'", []string{"b", "c", "d"}, 1, "(('b s' & 'c s') | 'd s')"},
		{"!'b' & !'c' | 'd'", []string{"b", "c", "d"}, 0, ""},
		{"'x' | !'y'", []string{"x", "y"}, 0, ""},
		{"!'x' & 'y'", []string{"x", "y"}, 1, "'y s'"},
		{"'tea' & 'tea'", []string{"tea"}, 1, "('tea s' & 'tea s')"},
		{"'state-of-the-art' <-> 'state' <3> 'art'", []string{"state-of-the-art", "state", "art"}, 3,
			"(('state-of-the-art s' & 'state s') & 'art s')"},
		{"( 'a' | 'b' ) & 'c'", []string{"a", "b", "c"}, 2, "(('a s' | 'b s') & 'c s')"},
		{`'it''s' & 'a\\b'`, []string{"it's", `a\b`}, 2, `('it''s s' & 'a\\b s')`},
	}
	for _, tt := range tests {
		q, ok := parseTSQuery(tt.text)
		if !ok {
			t.Errorf("parseTSQuery(%q) failed", tt.text)
			continue
		}
		scoped, sok := q.scoped("s")
		if !sok {
			scoped = ""
		}
		if !slices.Equal(q.lexemes, tt.lexemes) || q.minLexemes != tt.m || scoped != tt.scoped {
			t.Errorf("parseTSQuery(%q) = lexemes %q, m %d, scoped %q; want %q, %d, %q",
				tt.text, q.lexemes, q.minLexemes, scoped, tt.lexemes, tt.m, tt.scoped)
		}
	}
	for _, bad := range []string{"'a':*", "'a':AB & 'b'", "'a' &", "('a'", "'a", "'a' <x> 'b'"} {
		if _, ok := parseTSQuery(bad); ok {
			t.Errorf("parseTSQuery(%q) succeeded, want it refused", bad)
		}
	}
}

// TestRecallRungsCoverLevels checks the two-lexeme rungs against every pair
// of occurrence counts: a fact is taken by the first rung whose level its
// T reaches, or by an earlier one, never by a later one.
func TestRecallRungsCoverLevels(t *testing.T) {
	has := func(tokens map[string]bool, term recallTerm) bool {
		for l, j := range term {
			if j > 0 && !tokens[fmt.Sprintf("%d %d", l, j)] {
				return false
			}
		}
		return true
	}
	for a := 0; a <= 40; a++ {
		for b := 0; b <= 40; b++ {
			tokens := map[string]bool{}
			for _, j := range recallSteps {
				if a >= j {
					tokens[fmt.Sprintf("0 %d", j)] = true
				}
				if b >= j {
					tokens[fmt.Sprintf("1 %d", j)] = true
				}
			}
			taken := -1
			for i, level := range recallPairLevels {
				for _, term := range recallLevelCond(level) {
					if has(tokens, term) && taken < 0 {
						taken = i
					}
				}
			}
			for i, level := range recallPairLevels {
				if a+b >= level && (taken < 0 || taken > i) {
					t.Fatalf("a = %d, b = %d (T = %d) reaches level %d but no rung up to it takes it (taken by %d)", a, b, a+b, level, taken)
				}
			}
		}
	}
}
