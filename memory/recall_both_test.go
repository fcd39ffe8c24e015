package memory

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// nearCount is A of the query a & b in a fact whose lexemes have the given
// positions: the pairs of positions of a and b at most one apart.
func nearCount(pa, pb []int) int {
	n := 0
	for _, p := range pa {
		for _, q := range pb {
			if p-q <= 1 && q-p <= 1 {
				n++
			}
		}
	}
	return n
}

// TestRecallNearTokens holds tenure_recall_repeats to the tokens recall asks
// for, on random vectors: a lexeme's steps, the band, and the level of L
// with the band for two lexemes (in byte order) that are near with one
// repeating, or that both repeat; vectors written as text can put two
// lexemes at one position, which counts as near.
func TestRecallNearTokens(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	lexemes := []string{"tea", "té", "zu", "a", "it's", "b\\c", "tee"}
	r := rand.New(rand.NewPCG(4, 4))
	for range 400 {
		positions := map[string][]int{}
		span := 3 + r.IntN(30)
		var vec []string
		for _, l := range lexemes {
			if r.IntN(3) == 0 {
				continue
			}
			n := 1 + r.IntN(min(span, 1+r.IntN(12)))
			ps := r.Perm(span)[:n]
			slices.Sort(ps)
			var text []string
			for _, p := range ps {
				positions[l] = append(positions[l], p+1)
				text = append(text, fmt.Sprint(p+1))
			}
			vec = append(vec, tsqueryOperand(l)+":"+strings.Join(text, ","))
		}
		conf := 0.01 + 0.99*r.Float64()
		var got string
		if err := rf.pool.QueryRow(ctx, `SELECT tenure_recall_repeats('acme', $1::tsvector, $2)::text`,
			strings.Join(vec, " "), conf).Scan(&got); err != nil {
			t.Fatal(err)
		}
		var band int
		if err := rf.pool.QueryRow(ctx, `SELECT ceil($1::float8 * 10)::int`, conf).Scan(&band); err != nil {
			t.Fatal(err)
		}
		want := []string{tsqueryOperand(fmt.Sprintf(" %d acme", band))}
		for x, px := range positions {
			for _, j := range recallSteps {
				if len(px) >= j {
					want = append(want, tsqueryOperand(fmt.Sprintf("%s %d acme", x, j)))
				}
			}
			for y, py := range positions {
				if x >= y {
					continue
				}
				a := nearCount(px, py)
				if (len(px) >= 2 || len(py) >= 2) && (a > 0 || len(px) >= 2 && len(py) >= 2) {
					if level := recallBothLevel(recallBothL(len(px), len(py), a)); level > 0 {
						want = append(want, tsqueryOperand(fmt.Sprintf("%s %s %d %d acme", x, y, level, band)))
					}
				}
			}
		}
		slices.Sort(want)
		if g := splitTSVector(got); !slices.Equal(g, want) {
			t.Fatalf("tenure_recall_repeats(%s) = %s, want %v", strings.Join(vec, " "), got, want)
		}
	}
}

// TestRecallBothBound checks, on every match of queries "a b" of seeded
// facts, what the rungs of "a b" rest on: relevance at most 0.05 × L, L
// being S + min(A, S).
func TestRecallBothBound(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	seedRecallFacts(t, rf, "acme", 1500, 5)
	checked, reached := 0, 0
	for i, a := range recallWords {
		for _, b := range []string{recallWords[(i+1)%len(recallWords)], recallWords[(i+3)%len(recallWords)], recallWords[0]} {
			if a == b {
				continue
			}
			rows, err := rf.pool.Query(ctx, `
				SELECT f.id, ts_rank_cd(f.search, q)::double precision,
					(SELECT u.positions FROM unnest(f.search) u WHERE u.lexeme = (tsvector_to_array(to_tsvector('english', $1)))[1]),
					(SELECT u.positions FROM unnest(f.search) u WHERE u.lexeme = (tsvector_to_array(to_tsvector('english', $2)))[1])
				FROM websearch_to_tsquery('english', $1 || ' ' || $2) q, entity_facts f
				WHERE f.search @@ q`, a, b)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id int64
				var rel float64
				var pa, pb []int
				if err := rows.Scan(&id, &rel, &pa, &pb); err != nil {
					t.Fatal(err)
				}
				checked++
				l := recallBothL(len(pa), len(pb), nearCount(pa, pb))
				bound := recallCoverBound / 2 * float64(l)
				if rel > bound {
					t.Errorf("%s %s: fact %d has relevance %v over the bound %v (n_a %d, n_b %d, L %d)", a, b, id, rel, bound, len(pa), len(pb), l)
				}
				if rel > 0.05*float64(l)*(1-1e-4) {
					reached++
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if checked < 5000 || reached < 100 {
		t.Errorf("checked %d matches, %d at their bound: want many of both", checked, reached)
	}
}

// TestRecallBothCells checks the cells of "a b" against every L and band:
// a fact's token is in exactly one cell, whose bound is at least 0.05 × L
// times the band's confidence, and a fact with no token has L <= 2.
func TestRecallBothCells(t *testing.T) {
	cells := recallBothCells("tea", "cake", "acme")
	for l := 0; l <= 2*(2*recallMaxOccurrences-1); l++ {
		level := recallBothLevel(l)
		if level == 0 {
			if l > 2 {
				t.Fatalf("L %d has no level", l)
			}
			continue
		}
		for band := 0; band <= recallBands; band++ {
			token := tsqueryOperand(fmt.Sprintf("tea cake %d %d acme", level, band))
			other := tsqueryOperand(fmt.Sprintf("cake tea %d %d acme", level, band))
			in := 0
			for _, c := range cells {
				terms := strings.Split(c.tokens, " | ")
				if slices.Contains(terms, token) != slices.Contains(terms, other) {
					t.Fatalf("cell %s asks for one order of the lexemes only", c.tokens)
				}
				if slices.Contains(terms, token) {
					in++
					if bound := recallCoverBound / 2 * float64(l) * float64(band) / recallBands; c.bound < bound {
						t.Fatalf("L %d, band %d: in a cell of bound %v, under %v", l, band, c.bound, bound)
					}
				}
			}
			if in != 1 {
				t.Fatalf("L %d, band %d: in %d cells, want 1", l, band, in)
			}
		}
	}
	for i := 1; i < len(cells); i++ {
		if cells[i].bound > cells[i-1].bound {
			t.Fatalf("cell %d has bound %v over the one before (%v)", i, cells[i].bound, cells[i-1].bound)
		}
	}
}

// TestRecallRoutesBoth holds the query "a b" to its route: before ANALYZE it
// walks; after, two common words walk and a pair whose estimated matches
// fall short ranks every match at once; and "a or b" to its order: rungs
// first for common words, the facts with T >= 2 first for rare ones. The
// answer is the same either way.
func TestRecallRoutesBoth(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	seedRecallFacts(t, rf, "acme", 3000, 6)
	rf.s.bothWalkMatches = 100
	routes := func(text string) (walked, every bool) {
		before := len(rf.sent.stmts)
		q := RecallQuery{Scope: "acme", Query: text}
		rf.checkExact(t, q, rf.recall(t, q))
		return rf.sent.sentSince(before, "name: RecallWalk"), rf.sent.sentSince(before, "name: RecallEvery")
	}
	common, rare := "tea coffee", "printer recipe"
	if walked, _ := routes(rare); !walked {
		t.Errorf("Recall(%q) without statistics did not walk", rare)
	}
	if _, err := rf.pool.Exec(ctx, "ANALYZE entity_facts"); err != nil {
		t.Fatal(err)
	}
	rf.s.stats.Store(nil) // read the statistics again
	if walked, _ := routes(common); !walked {
		t.Errorf("Recall(%q) did not walk", common)
	}
	if walked, every := routes(rare); walked || !every {
		t.Errorf("Recall(%q): walked %v, ranked every match %v; want every match ranked at once", rare, walked, every)
	}
	st, err := rf.s.recallStats(ctx, rf.pool)
	if err != nil {
		t.Fatal(err)
	}
	var matches [2]int
	for i, text := range []string{common, rare} {
		if err := rf.pool.QueryRow(ctx, `SELECT count(*) FROM entity_facts WHERE scope = 'acme' AND status = 'active'
			AND search @@ websearch_to_tsquery('english', $1)`, text).Scan(&matches[i]); err != nil {
			t.Fatal(err)
		}
	}
	ec, _ := st.bothMatches("tea", "coffe", "acme")
	er, _ := st.bothMatches("printer", "recip", "acme")
	t.Logf("%q: %d matches, estimated %.0f; %q: %d, estimated %.0f", common, matches[0], ec, rare, matches[1], er)
	if ec < float64(matches[0])/3 || er > 3*float64(matches[1])+20 {
		t.Errorf("estimates %.0f and %.0f stray from %d and %d matches", ec, er, matches[0], matches[1])
	}

	// "a or b": the rungs first for common words, whose facts with T >= 2
	// are many; those facts first for rare ones.
	rf.s.pairsFirstFacts = 100
	for _, c := range []struct {
		text       string
		pairsFirst bool
	}{{"tea or coffee", false}, {"printer or recipe", true}} {
		before := len(rf.sent.stmts)
		q := RecallQuery{Scope: "acme", Query: c.text}
		rf.checkExact(t, q, rf.recall(t, q))
		walked, pairs := rf.sent.sentSince(before, "name: RecallWalk"), rf.sent.sentSince(before, "name: RecallPairs")
		if walked == c.pairsFirst || (c.pairsFirst && !pairs) {
			t.Errorf("Recall(%q): walked %v, read the facts with T >= 2 %v; want those facts first: %v", c.text, walked, pairs, c.pairsFirst)
		}
	}
}

// TestRecallRoutesWithoutStatistics holds the route to its fallback: when
// the statistics cannot be read (here the connection's search_path hides
// the recall indexes from the statistics query), "a b" walks and "a or b"
// walks first, both never wrong, and the failure is logged; it is not kept,
// so the next read on a sound connection routes by the statistics again.
func TestRecallRoutesWithoutStatistics(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	seedRecallFacts(t, rf, "acme", 3000, 6)
	if _, err := rf.pool.Exec(ctx, "ANALYZE entity_facts"); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	s := NewStore(rf.pool, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	s.bothWalkMatches, s.pairsFirstFacts = 100, 100
	parsed, err := s.q.RecallParse(ctx, "printer or recipe")
	if err != nil {
		t.Fatal(err)
	}
	tq, _ := parseTSQuery(parsed)
	a, b := tq.lexemes[0], tq.lexemes[1]

	conn, err := rf.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	broken := conn.Hijack()
	defer broken.Close(ctx)
	if _, err := broken.Exec(ctx, "SET search_path = pg_catalog"); err != nil {
		t.Fatal(err)
	}
	if !s.walkBoth(s.routeStats(ctx, broken), a, b, "acme") {
		t.Errorf("without statistics, %q and %q did not walk", a, b)
	}
	if s.pairsFirst(s.routeStats(ctx, broken), tq.lexemes, "acme") {
		t.Errorf("without statistics, %q or %q read its facts with T >= 2 before its rungs", a, b)
	}
	if n := strings.Count(logged.String(), "recall: reading the token statistics"); n != 2 {
		t.Errorf("%d warnings logged, want one for each route that could not read the statistics:\n%s", n, logged.String())
	}
	// The same rare words on a sound connection: ranked at once, and read
	// through their facts with T >= 2 first.
	if s.walkBoth(s.routeStats(ctx, rf.pool), a, b, "acme") {
		t.Errorf("with statistics, the rare %q and %q walked", a, b)
	}
	if !s.pairsFirst(s.routeStats(ctx, rf.pool), tq.lexemes, "acme") {
		t.Errorf("with statistics, %q or %q did not read its facts with T >= 2 first", a, b)
	}
}

// TestRecallReadsStatisticsOnce: a recall makes every choice on one read of
// the statistics, so when they cannot be read it logs the failure once and
// still answers as ranking every match would.
func TestRecallReadsStatisticsOnce(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	seedRecallFacts(t, rf, "acme", 3000, 6)
	if _, err := rf.pool.Exec(ctx, "ANALYZE entity_facts"); err != nil {
		t.Fatal(err)
	}
	// The statistics query names the terms index; recall's statements do not.
	if _, err := rf.pool.Exec(ctx, "ALTER INDEX entity_facts_recall_terms_idx RENAME TO recall_terms_elsewhere"); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	rf.s = NewStore(rf.pool, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil)), Now: func() time.Time { return rf.now }})
	for _, text := range []string{"printer or recipe", "tea or coffee", "tea coffee", "tea"} {
		before := strings.Count(logged.String(), "recall: reading the token statistics")
		q := RecallQuery{Scope: "acme", Query: text}
		rf.checkExact(t, q, rf.recall(t, q))
		if n := strings.Count(logged.String(), "recall: reading the token statistics") - before; n != 1 {
			t.Errorf("Recall(%q) logged %d failures to read the statistics, want 1:\n%s", text, n, logged.String())
		}
	}
}
