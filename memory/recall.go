package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/internal/pgplan"
	"github.com/tenurehq/tenure/queries"
)

// RecallQuery asks for the facts of one scope that answer a query.
type RecallQuery struct {
	Scope string // required
	// Query is a full-text query in web search syntax ("postgres -mysql",
	// "\"exact phrase\"", "a or b"); empty ranks by confidence alone.
	Query      string
	Category   string // optional: only facts of this category
	Durability string // optional: only facts of this durability
	Entity     string // optional: only facts about the entity with this name
	Limit      int    // default 10, at most 100
}

// RecallResult is one recalled fact and why it ranks where it does.
type RecallResult struct {
	// Fact carries EffectiveConfidence, the decayed confidence now.
	Fact Fact `json:"fact"`
	// Relevance is the text match's ts_rank_cd (1 when the query is empty).
	Relevance float64 `json:"relevance"`
	// Score is relevance × effective confidence, what results are ranked by.
	Score float64 `json:"score"`
	// Decision is set for facts of category decision: what was decided, the
	// alternatives considered and the reasoning.
	Decision *Decision `json:"decision,omitempty"`
}

// Limits of a recall.
const (
	defaultRecallLimit = 10
	maxRecallLimit     = 100
	maxRecallQuery     = 1000
)

// recallParams is a validated RecallQuery in the shape of the queries'
// parameters.
type recallParams struct {
	scope                        string
	query                        string
	entity, category, durability *string
	limit                        int32
}

func (rq RecallQuery) validate() (recallParams, error) {
	var p recallParams
	var err error
	if strings.TrimSpace(rq.Scope) == "" {
		return p, Invalidf("scope", "the scope is empty: recall reads one scope, named by 1 to 63 lowercase letters, digits, '_', '.', ':' or '-'")
	}
	if p.scope, err = ParseScope(rq.Scope); err != nil {
		return p, err
	}
	p.query = strings.TrimSpace(rq.Query)
	if n := utf8.RuneCountInString(p.query); n > maxRecallQuery {
		return p, Invalidf("query", "the query is %d characters long: at most %d are allowed", n, maxRecallQuery)
	}
	if c := strings.TrimSpace(rq.Category); c != "" {
		if _, err := ParseCategory(c); err != nil {
			return p, Invalidf("category", "invalid category %q: use a lowercase slug such as %s", c, strings.Join(SuggestedCategories(), ", "))
		}
		p.category = &c
	}
	if d := strings.TrimSpace(rq.Durability); d != "" {
		if _, err := ParseDurability(d); err != nil {
			return p, err
		}
		p.durability = &d
	}
	if e := strings.TrimSpace(rq.Entity); e != "" {
		if n := utf8.RuneCountInString(e); n > maxEntityName {
			return p, Invalidf("entity", "the entity name is %d characters long: at most %d are allowed", n, maxEntityName)
		}
		p.entity = &e
	}
	switch {
	case rq.Limit == 0:
		p.limit = defaultRecallLimit
	case rq.Limit < 0 || rq.Limit > maxRecallLimit:
		return p, Invalidf("limit", "limit %d is out of range: use 1 to %d (default %d)", rq.Limit, maxRecallLimit, defaultRecallLimit)
	default:
		p.limit = int32(rq.Limit)
	}
	return p, nil
}

// Recall returns the live facts of q.Scope that answer q, best first. With a
// query, facts match by PostgreSQL full-text search and rank by relevance
// times their effective confidence now, so a faded fact ranks below a
// confident one that matches as well; without one, they rank by effective
// confidence alone. Archived facts are left out, and so are facts past their
// forget_at, which decay is about to archive. Facts that record decisions
// come with their decision (reasoning, alternatives, lock).
//
// A query's result is the same as ranking every match (see recallRanked),
// read from one snapshot.
func (s *Store) Recall(ctx context.Context, q RecallQuery) ([]RecallResult, error) {
	p, err := q.validate()
	if err != nil {
		return nil, err
	}
	now := s.Now()
	var rows []queries.RecallSearchRow
	if p.query != "" {
		rows, err = s.recallRanked(ctx, p, now)
	} else {
		var ranked []queries.RecallByConfidenceRow
		ranked, err = s.q.RecallByConfidence(ctx, queries.RecallByConfidenceParams{
			Now: now, Scope: p.scope, Entity: p.entity, Category: p.category,
			Durability: p.durability, MaxRows: p.limit,
		})
		rows = make([]queries.RecallSearchRow, len(ranked))
		for i, r := range ranked {
			rows[i] = queries.RecallSearchRow(r)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	out := make([]RecallResult, len(rows))
	for i, r := range rows {
		out[i] = RecallResult{Fact: newFact(recallFactRow(r)), Relevance: r.Relevance, Score: r.Score}
		if out[i].Decision, err = recallDecision(r.Decision); err != nil {
			return nil, fmt.Errorf("recall: the decision of fact %d: %w", r.ID, err)
		}
	}
	return out, nil
}

// How recall finds the best matches of a query without scoring every one.
//
// The bound. ts_rank_cd (without normalization) adds one term per cover, a
// cover being a run of the fact's positions of query lexemes that satisfies
// the query. A term is the mean weight of the cover's positions divided by
// one plus its noise, so at most the heaviest weight, and the search column
// carries no weights: every position weighs 0.1 (weight D). Each cover
// starts at a later position than the one before and holds at least
// max(m, 1) positions, m being the fewest positions of the query's lexemes
// that satisfy it (0 when a negation alone may). So a fact in which the
// query's lexemes occur T times in all has relevance at most
// 0.1 × (T - max(m, 1) + 1), and cannot match when T < m. Effective
// confidence never exceeds the confidence, at most 1, so the score has the
// same bound.
//
// The indexes. entity_facts_recall_repeats_idx holds a token
// 'lexeme j scope' for each step j of recallSteps that the lexeme's count in
// a live fact reaches, and the fact's confidence band; effective confidence
// never exceeds the confidence, so a fact of band b scores at most b / 10 of
// its relevance bound. entity_facts_recall_terms_idx holds a token
// 'lexeme scope' for each lexeme of a live fact.
//
// The reading. A rung is a tsquery over repeats tokens that takes the facts
// whose T may reach a level and that no rung above took; a cell is the high
// rungs together (few facts), or the part of a low rung in some confidence
// bands. One statement reads
// the cells, the highest bound first, up to a number of rows, scores every
// fact it reads exactly, and returns the best ones whole: when it holds k
// facts and the k-th best score is above the bound of every cell it left
// unread and of the facts no rung takes, those are the answer. Otherwise a
// larger statement reads them again; once every cell is read (each lexeme at
// most once in what is left unread), a query of several lexemes reads the
// facts holding two of them, in the walk's snapshot (T <= 1 left unread).
// The query "a b" (both of two lexemes, m = 2) walks cells of its own, over
// tokens of the two lexemes together (see recallBothCells). Any other query
// with m >= 2, and any that none of this settles, ranks every match, found
// through the scope's tokens, or through entity_facts_scope_search_idx for
// the few queries the tokens cannot serve (a lexeme too long for a token,
// weights or prefixes, a negation that matches facts without the query's
// lexemes). Either way the result is that of ranking every match by score,
// then id, newest first, and it comes from one statement.

// recallSteps are the occurrence counts the repeats index has a token for;
// the same list is in tenure_recall_repeats (migration 00026).
var recallSteps = []int{2, 3, 4, 5, 6, 7, 8, 10, 12, 16}

const (
	// recallMaxOccurrences is the most positions a tsvector keeps for one
	// lexeme.
	recallMaxOccurrences = 256
	// recallMaxTokenLexeme is the longest lexeme, in UTF-8 bytes, that
	// surely has tokens: the indexes leave out lexemes over 1000 bytes in
	// the database's encoding, which takes at most 4 bytes for a character.
	recallMaxTokenLexeme = 250
	// recallCoverBound bounds one cover's term of ts_rank_cd: weight D
	// (0.1 as a float4), with room for the rounding of its sums and of the
	// float4 result.
	recallCoverBound = 0.1 * (1 + 1e-5)
	// recallMaxPairLexemes is the most lexemes whose pairs recall reads
	// (28 pairs); a query with more ranks every match once the rungs are
	// read.
	recallMaxPairLexemes = 8
)

// recallRung is one rung of recall's candidates: a tsquery over the repeats
// index's tokens, the most a fact that neither this rung nor one above it
// takes can score, and whether the next rung is read by confidence band.
type recallRung struct {
	tokens string
	upTo   string // the tsquery of this rung and every rung above it
	below  float64
	split  bool
}

// recallLadder is a query's rungs, the highest first, and the most a fact
// that no rung takes can score (-1 when such a fact cannot match).
type recallLadder struct {
	rungs []recallRung
	rest  float64
}

// recallRanked returns the best p.limit matches of p.query, ranked as
// RecallSearch ranks them, reading as few matches as it can. Each statement
// it sends either settles the query from the rows it read or is left aside,
// except a walk that the facts holding two lexemes once complete, read in
// the same snapshot (walkThenPairs): the answer is always as of one
// snapshot.
//
// A query that a single lexeme may satisfy (m <= 1) walks its rungs; then,
// for a query of several lexemes, it reads the facts holding two of them
// once (or, when the statistics say they are few, every fact with T >= 2
// before any rung). The query "a b" walks the cells of its two lexemes
// together. Any other query
// (a phrase, three words, a key), and any that this does not settle, ranks
// every match, found through the scope's tokens: such queries match few
// facts of a scope.
func (s *Store) recallRanked(ctx context.Context, p recallParams, now time.Time) ([]queries.RecallSearchRow, error) {
	// Recall's statements are planned once per connection: their plans do
	// not depend on the query (its tokens are read at run time), and
	// planning one took about as long as running it.
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	// Everything recall reads goes through this connection: a recall never
	// waits for a second one, which a busy pool may not have.
	db := pgplan.Generic{Conn: conn.Conn()}
	q := queries.New(db)
	text, err := q.RecallParse(ctx, p.query)
	if err != nil {
		return nil, err
	}
	tq, ok := parseTSQuery(text)
	if ok && len(tq.lexemes) == 0 {
		return []queries.RecallSearchRow{}, nil // only stop words: nothing matches
	}
	for _, l := range tq.lexemes {
		ok = ok && len(l) <= recallMaxTokenLexeme
	}
	if !ok {
		return recallSearch(ctx, q, p, now)
	}
	// The statistics are read once (or taken from the store's copy): every
	// choice below is made on them, and a failure is logged once.
	st := s.routeStats(ctx, db)
	r := recallRounds{q: q, p: p, now: now, tq: tq, facts: st.wholeRungs(p.scope)}
	switch a, b, both := tq.both(); {
	case tq.minLexemes <= 1 && s.pairsFirst(st, tq.lexemes, p.scope):
		// What these facts do not settle, the rungs cannot (see pairsFirst).
		if rows, done, err := r.pairs(ctx); done || err != nil {
			return rows, err
		}
	case tq.minLexemes <= 1:
		if rows, done, err := r.walkThenPairs(ctx, conn.Conn()); done || err != nil {
			return rows, err
		}
	case both:
		if !s.walkBoth(st, a, b, p.scope) {
			break
		}
		if rows, done, err := r.walk(ctx, recallBothCells(a, b, p.scope), recallCoverBound); done || err != nil {
			return rows, err
		}
	}
	return recallEvery(ctx, q, p, now, tq)
}

// recallEvery ranks every match, found through the scope's tokens when
// the query has some that every match holds, else through the search index.
func recallEvery(ctx context.Context, q *queries.Queries, p recallParams, now time.Time, tq tsQuery) ([]queries.RecallSearchRow, error) {
	scoped, ok := tq.scoped(p.scope)
	if !ok {
		return recallSearch(ctx, q, p, now)
	}
	rows, err := q.RecallEvery(ctx, queries.RecallEveryParams{
		Now: now, Query: p.query, Scoped: scoped, Scope: p.scope, Entity: p.entity,
		Category: p.category, Durability: p.durability, MaxRows: p.limit,
	})
	out := make([]queries.RecallSearchRow, len(rows))
	for i, r := range rows {
		out[i] = queries.RecallSearchRow(r)
	}
	return out, err
}

// recallSearch ranks every match, found through the search index: for the
// queries the tokens cannot serve.
func recallSearch(ctx context.Context, q *queries.Queries, p recallParams, now time.Time) ([]queries.RecallSearchRow, error) {
	return q.RecallSearch(ctx, queries.RecallSearchParams{
		Now: now, Query: p.query, Scope: p.scope, Entity: p.entity, Category: p.category,
		Durability: p.durability, MaxRows: p.limit,
	})
}

// recallRounds reads the candidates of a query before it ranks every match.
type recallRounds struct {
	// facts estimates the facts holding a token of the repeats index; nil
	// without statistics.
	facts func(token string) float64
	q     *queries.Queries
	p     recallParams
	now   time.Time
	tq    tsQuery
}

// recallCell is what recall reads at once: a tsquery over the repeats
// index's tokens (a rung, or the part of a rung in some confidence bands),
// and the most any of its facts can score.
type recallCell struct {
	tokens string
	bound  float64
}

// recallBands is the number of confidence bands: a fact of band b has
// confidence at most b / recallBands (the band token of
// tenure_recall_repeats). recallBandGroups are the groups of bands recall
// reads at once, each named by its highest band, the highest first.
const recallBands = 10

var recallBandGroups = [][]int{{10}, {9}, {8}, {7}, {6, 5, 4, 3, 2, 1, 0}}

// recallBandedT is the largest T of the rungs whose cells are split by
// band; rungs above it are few facts, read whole.
const recallBandedT = 6

// recallWholeFacts is the most facts, estimated from the statistics, that
// the rungs read whole may hold: below recallBandedT, a rung is read whole
// too while it and every rung above it are estimated to hold no more (see
// recallRungs). Each cell a walk reads costs a step, about as much as ranking
// a few dozen facts; a rung of a rare word in a confidence band is mostly
// empty.
const recallWholeFacts = 50

// cells returns the cells of the ladder's rungs of scope, the highest
// bound first.
func (l recallLadder) cells(scope string) []recallCell {
	// The rungs read whole, the highest ones, are one cell (each rung takes
	// what the one above left, so they are the facts of the last one's
	// condition): they hold few facts, and each cell a walk reads costs a
	// step of its own.
	whole := 1
	for whole < len(l.rungs) && !l.rungs[whole-1].split {
		whole++
	}
	cells := []recallCell{{tokens: "(" + l.rungs[whole-1].upTo + ")", bound: math.Inf(1)}}
	// The rungs below are read by confidence band.
	for i := whole; i < len(l.rungs); i++ {
		for _, bands := range recallBandGroups {
			inBands := anyBand(bands, func(band int) string { return tsqueryOperand(" " + strconv.Itoa(band) + " " + scope) })
			cells = append(cells, recallCell{tokens: "(" + l.rungs[i].tokens + ") & (" + inBands + ")",
				bound: l.rungs[i-1].below * float64(bands[0]) / recallBands})
		}
	}
	slices.SortStableFunc(cells, func(a, b recallCell) int { return cmp.Compare(b.bound, a.bound) })
	return cells
}

// anyBand returns the tsquery that holds when the token of any of bands
// does.
func anyBand(bands []int, token func(band int) string) string {
	terms := make([]string, len(bands))
	for i, band := range bands {
		terms[i] = token(band)
	}
	return strings.Join(terms, " | ")
}

// walk reads cells, the highest bound first, in one statement that stops as
// soon as the cells it read settle the query, rest being the most a fact
// that no cell takes can score (-1: it cannot match); it returns the answer
// and true if they did, else the best facts of every cell (it read them
// all) and false.
func (r *recallRounds) walk(ctx context.Context, cells []recallCell, rest float64) ([]queries.RecallSearchRow, bool, error) {
	tokens := make([]string, len(cells))
	// stops[i]: the most a fact left unread after cells 0..i can score.
	stops := make([]float64, len(cells))
	for i, c := range cells {
		tokens[i] = c.tokens
		stops[i] = rest
		if i+1 < len(cells) {
			stops[i] = max(rest, cells[i+1].bound)
		}
	}
	rows, err := r.q.RecallWalk(ctx, queries.RecallWalkParams{
		Now: r.now, Query: r.p.query, Stops: stops, BestRows: r.p.limit, Cells: tokens,
		Scope: r.p.scope, Entity: r.p.entity, Category: r.p.category, Durability: r.p.durability,
	})
	if err != nil || len(rows) == 0 {
		return nil, false, err
	}
	out := make([]queries.RecallSearchRow, 0, len(rows))
	for _, row := range rows {
		if row.ID != nil {
			out = append(out, candidateRow(queries.RecallPairsRow{
				ID: *row.ID, Relevance: row.Relevance, EffectiveConfidence: row.EffectiveConfidence, Score: row.Score,
				Scope: row.Scope, EntityID: row.EntityID, EntityName: row.EntityName, Key: row.Key,
				Content: row.Content, Durability: row.Durability, Category: row.Category,
				Confidence: row.Confidence, Importance: row.Importance, ConfirmedAt: row.ConfirmedAt,
				ExpiresAt: row.ExpiresAt, Deadline: row.Deadline, ForgetAt: row.ForgetAt,
				Status: row.Status, ArchivedAt: row.ArchivedAt, ArchiveReason: row.ArchiveReason,
				Source: row.Source, SourceNodeID: row.SourceNodeID, ExtractionCount: row.ExtractionCount,
				Version: row.Version, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt, Decision: row.Decision,
			}))
		}
	}
	return rankRows(out, int(r.p.limit)), rows[0].Settled, nil
}

// walkThenPairs walks the rungs of a query with m <= 1; when the walk does
// not settle and pairs may, it reads the facts holding two lexemes once and
// settles on both reads. Their answer comes from two statements, so they
// run in one read-only REPEATABLE READ transaction on conn: both see one
// snapshot, as every other answer of recall does. Its BEGIN travels with
// the walk and its COMMIT with the read of the pairs, so that only a walk
// that settles spends a round trip on it (the COMMIT).
func (r *recallRounds) walkThenPairs(ctx context.Context, conn *pgx.Conn) (rows []queries.RecallSearchRow, done bool, err error) {
	l := recallRungs(r.tq.lexemes, r.p.scope, r.tq.minLexemes, r.facts)
	if n := len(r.tq.lexemes); n < 2 || n > recallMaxPairLexemes {
		return r.walk(ctx, l.cells(r.p.scope), l.rest)
	}
	snap := pgplan.NewSnapshot(conn)
	defer func() { err = errors.Join(err, snap.End(ctx)) }()
	in := *r
	in.q = queries.New(snap)
	best, done, err := in.walk(ctx, l.cells(r.p.scope), l.rest)
	if done || err != nil {
		return best, done, err
	}
	// The walk read every fact holding a lexeme twice (its best are in
	// best); of the facts with T >= 2, those holding two lexemes once are
	// left.
	snap.Last()
	return in.settleOnPairs(ctx, nil, best)
}

// pairs reads every fact with T >= 2 (some lexeme twice, or two lexemes)
// of a query of 2 to recallMaxPairLexemes lexemes; it returns the answer
// and true if they settle the query, which leaves T <= 1 unread.
func (r *recallRounds) pairs(ctx context.Context) ([]queries.RecallSearchRow, bool, error) {
	twice := recallTwice(r.tq.lexemes, r.p.scope)
	return r.settleOnPairs(ctx, &twice, nil)
}

// recallTwice returns the tsquery, over the repeats index's tokens, of the
// facts of scope that hold one of lexemes at least twice.
func recallTwice(lexemes []string, scope string) string {
	var c recallCond
	for l := range lexemes {
		t := make(recallTerm, len(lexemes))
		t[l] = recallSteps[0]
		c = append(c, t)
	}
	return c.tsquery(lexemes, scope)
}

// settleOnPairs reads the facts holding two of the query's lexemes and,
// unless repeats is nil, those with the repeats tokens, and settles the
// query on them and on the facts read before (read: the best of every fact
// holding a lexeme twice, when repeats is nil).
func (r *recallRounds) settleOnPairs(ctx context.Context, repeats *string, read []queries.RecallSearchRow) ([]queries.RecallSearchRow, bool, error) {
	if n := len(r.tq.lexemes); n < 2 || n > recallMaxPairLexemes {
		return nil, false, nil
	}
	rows, err := r.q.RecallPairs(ctx, queries.RecallPairsParams{
		Now: r.now, Query: r.p.query, Repeats: repeats,
		Pairs: recallPairs(r.tq.lexemes, r.p.scope), Scope: r.p.scope, Entity: r.p.entity,
		Category: r.p.category, Durability: r.p.durability, BestRows: r.p.limit,
	})
	if err != nil {
		return nil, false, err
	}
	// Every fact left unread has T <= 1: it scores at most one cover's
	// term, and cannot match at all when m >= 2.
	k := int(r.p.limit)
	scores := make(map[int64]float64, len(rows)+len(read))
	var out []queries.RecallSearchRow
	for _, row := range read {
		scores[row.ID] = row.Score
		out = append(out, row)
	}
	for _, row := range rows {
		scores[row.ID] = row.Score
		if row.Scope != nil {
			out = append(out, candidateRow(row))
		}
	}
	unread := -1.0
	if r.tq.minLexemes <= 1 {
		unread = recallCoverBound
	}
	if unread >= 0 {
		if len(scores) < k {
			return nil, false, nil
		}
		// The k-th best must beat it strictly: a tie could go to a newer
		// fact left unread.
		if kth := slices.Sorted(maps.Values(scores))[len(scores)-k]; kth <= unread {
			return nil, false, nil
		}
	}
	return rankRows(out, k), true, nil
}

// rankRows returns the best k of rows in RecallSearch's order: score, then
// id, the highest first.
func rankRows(rows []queries.RecallSearchRow, k int) []queries.RecallSearchRow {
	seen := map[int64]bool{}
	out := rows[:0]
	for _, row := range rows {
		if !seen[row.ID] {
			seen[row.ID] = true
			out = append(out, row)
		}
	}
	slices.SortFunc(out, func(a, b queries.RecallSearchRow) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out[:min(k, len(out))]
}

// candidateRow is a candidate read whole.
func candidateRow(r queries.RecallPairsRow) queries.RecallSearchRow {
	return queries.RecallSearchRow{
		ID: r.ID, Scope: *r.Scope, EntityID: *r.EntityID, EntityName: *r.EntityName, Key: *r.Key,
		Content: *r.Content, Durability: *r.Durability, Category: *r.Category, Confidence: *r.Confidence,
		Importance: *r.Importance, ConfirmedAt: *r.ConfirmedAt, ExpiresAt: r.ExpiresAt, Deadline: r.Deadline,
		ForgetAt: r.ForgetAt, Status: *r.Status, ArchivedAt: r.ArchivedAt, ArchiveReason: r.ArchiveReason,
		Source: *r.Source, SourceNodeID: r.SourceNodeID, ExtractionCount: *r.ExtractionCount,
		Version: *r.Version, CreatedAt: *r.CreatedAt, UpdatedAt: *r.UpdatedAt,
		EffectiveConfidence: r.EffectiveConfidence, Relevance: r.Relevance, Score: r.Score, Decision: r.Decision,
	}
}

// recallRungs returns the rungs of a query's lexemes, from the facts where
// they occur most.
//
// A query of one lexeme a has a rung for each step j, down to 2: the facts
// where a occurs at least j times and fewer than the step above; below step
// j, T < j. A query of two lexemes has a rung for each level L of T down to
// 3: every fact with T >= L has a in some step's band [j, next step) and b at
// least L minus that band's top, or a at most once and b at least L - 1
// (counts between steps round down to a step, which only adds candidates).
// A query of n > 2 lexemes has a rung for each step j: the facts where some
// lexeme occurs at least j times; below it, T <= n × (j - 1).
//
// The rungs read whole are the highest ones, in one cell: those of T above
// recallBandedT and the next. Below, a rung is read by confidence band,
// unless facts (an estimate of the facts holding a token, nil without
// statistics) says that it and every rung above it hold at most
// recallWholeFacts facts: then it joins the cell read whole.
func recallRungs(lexemes []string, scope string, m int, facts func(token string) float64) recallLadder {
	var conds []recallCond
	var unread []int
	switch len(lexemes) {
	case 1:
		for i := len(recallSteps) - 1; i >= 0; i-- {
			j := recallSteps[i]
			conds = append(conds, recallCond{{j}})
			unread = append(unread, j-1)
		}
	case 2:
		for _, level := range recallPairLevels {
			conds = append(conds, recallLevelCond(level))
			unread = append(unread, level-1)
		}
	default:
		for i := len(recallSteps) - 1; i >= 0; i-- {
			j := recallSteps[i]
			var c recallCond
			for l := range lexemes {
				t := make(recallTerm, len(lexemes))
				t[l] = j
				c = append(c, t)
			}
			conds = append(conds, c)
			unread = append(unread, len(lexemes)*(j-1))
		}
	}
	// A fact with T positions of the query's lexemes scores at most this.
	bound := func(t int) float64 { return recallCoverBound * float64(max(0, t-max(m, 1)+1)) }
	l := recallLadder{rungs: make([]recallRung, len(conds)), rest: -1}
	upTo := 0.0 // the most facts conds[i+1] takes, estimated
	for i, c := range conds {
		split := unread[i] <= recallBandedT
		if facts != nil && split && i+1 < len(conds) {
			upTo = max(upTo, conds[i+1].facts(lexemes, scope, facts))
			split = upTo > recallWholeFacts
		}
		// Rung i is the facts of conds[i] that conds[i-1] (and so every
		// rung above) does not take.
		r := recallRung{upTo: c.tsquery(lexemes, scope), below: bound(unread[i]), split: split}
		r.tokens = r.upTo
		if i > 0 {
			r.tokens = "(" + r.upTo + ") & !(" + l.rungs[i-1].upTo + ")"
		}
		l.rungs[i] = r
	}
	if last := unread[len(unread)-1]; last >= m {
		l.rest = bound(last)
	}
	return l
}

// Both lexemes of a query "a b" (the tsquery 'a' & 'b', m = 2).
//
// A cover of 'a' & 'b' is two neighbouring positions, in position order, of
// different lexemes: each cover starts at a later position than the one
// before, and the positions between its two are of neither lexeme. So a
// fact holding a n_a times and b n_b times has at most
// S = min(n_a + n_b - 1, 2 × min(n_a, n_b)) covers. A cover's term is
// 0.1 / (1 + noise), the noise being one less than the distance of its two
// positions: 0.1 when they are at most one apart, else at most 0.05. With A
// the pairs of positions of a and b at most one apart (at least the covers
// of term 0.1), relevance is at most 0.05 × L, L = S + min(A, S).
//
// A fact in which one of a and b occurs once has S <= 2, and L <= 2 unless
// the two are near (A >= 1). So the repeats index holds, for each two
// lexemes x and y of a fact that are near with one of them repeating, or
// that both repeat, one token 'x y l b scope': x before y in byte order
// (recall asks for both orders), l the level of their L (the largest of
// recallBothLevels at most L, none when L < 3) and b the fact's confidence
// band. A cell of "a b" is a level's tokens in some bands; every fact that
// no cell takes has L <= 2, and relevance at most 0.1.

// recallBothLevels are the levels of L of the tokens of two lexemes, the
// highest first; the same list is in tenure_recall_repeats (migration
// 00026).
var recallBothLevels = []int{32, 24, 16, 12, 10, 8, 7, 6, 5, 4, 3}

// recallBothSplit is the highest level whose cells are split by band; the
// levels above it are few facts, read whole.
const recallBothSplit = 10

// recallMaxNearLexeme is the longest lexeme, in characters, that surely has
// tokens of two lexemes: the repeats index gives them to lexemes of at most
// 900 bytes.
const recallMaxNearLexeme = 225

// recallBothL returns L of a fact holding a n_a times and b n_b times, A of
// their pairs of positions at most one apart.
func recallBothL(na, nb, near int) int {
	if na == 0 || nb == 0 {
		return 0
	}
	s := min(na+nb-1, 2*min(na, nb))
	return s + min(near, s)
}

// recallBothLevel returns the level of L: the largest of recallBothLevels
// at most L, or 0 when L < 3.
func recallBothLevel(l int) int {
	for _, level := range recallBothLevels {
		if level <= l {
			return level
		}
	}
	return 0
}

// recallBothCells returns the cells of the query a & b in scope, the
// highest bound first.
func recallBothCells(a, b, scope string) []recallCell {
	token := func(level, band int) string {
		tail := " " + strconv.Itoa(level) + " " + strconv.Itoa(band) + " " + scope
		return tsqueryOperand(a+" "+b+tail) + " | " + tsqueryOperand(b+" "+a+tail)
	}
	var cells []recallCell
	for i, level := range recallBothLevels {
		// A fact of this level has L below the level above.
		top := math.Inf(1)
		if i > 0 {
			top = recallCoverBound / 2 * float64(recallBothLevels[i-1]-1)
		}
		groups := recallBandGroups
		if level > recallBothSplit {
			groups = [][]int{{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}}
		}
		for _, bands := range groups {
			tokens := anyBand(bands, func(band int) string { return token(level, band) })
			cells = append(cells, recallCell{tokens: tokens, bound: top * float64(bands[0]) / recallBands})
		}
	}
	slices.SortStableFunc(cells, func(a, b recallCell) int { return cmp.Compare(b.bound, a.bound) })
	return cells
}

// recallPairLevels are the levels of T of the rungs of a two-lexeme query.
var recallPairLevels = []int{16, 12, 10, 8, 7, 6, 5, 4, 3}

// recallTerm requires each lexeme (by index) to occur at least that step's
// number of times; 0 requires nothing.
type recallTerm []int

// recallCond is a disjunction of terms.
type recallCond []recallTerm

// recallStepBelow returns the largest step at most n, or 0 when n is below
// every step.
func recallStepBelow(n int) int {
	best := 0
	for _, j := range recallSteps {
		if j <= n {
			best = j
		}
	}
	return best
}

// recallLevelCond returns the facts of a two-lexeme query whose T may reach
// level (at least 3), as a disjunction over the bands of the first lexeme.
func recallLevelCond(level int) recallCond {
	var terms recallCond
	add := func(a, needB int) {
		if needB > recallMaxOccurrences {
			return // b cannot occur that often
		}
		b := 0
		if needB >= 2 {
			b = recallStepBelow(needB)
		}
		terms = append(terms, recallTerm{a, b})
	}
	// a at most once.
	add(0, level-1)
	for i, j := range recallSteps {
		top := recallMaxOccurrences
		if i+1 < len(recallSteps) {
			top = recallSteps[i+1] - 1
		}
		add(j, level-top)
	}
	// Keep the terms no other term implies.
	var out recallCond
	for i, t := range terms {
		implied := false
		for k, u := range terms {
			if k != i && u[0] <= t[0] && u[1] <= t[1] && (u[0] < t[0] || u[1] < t[1] || k < i) {
				implied = true
				break
			}
		}
		if !implied {
			out = append(out, t)
		}
	}
	return out
}

// facts bounds the facts c takes: for each term, the facts of its rarest
// token, by facts (an estimate of the facts holding a token).
func (c recallCond) facts(lexemes []string, scope string, facts func(token string) float64) float64 {
	total := 0.0
	for _, t := range c {
		least := math.Inf(1)
		for l, j := range t {
			if j > 0 {
				least = min(least, facts(lexemes[l]+" "+strconv.Itoa(j)+" "+scope))
			}
		}
		total += least
	}
	return total
}

// tsquery writes c over the repeats index's tokens.
func (c recallCond) tsquery(lexemes []string, scope string) string {
	var b strings.Builder
	for i, t := range c {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteByte('(')
		n := 0
		for l, j := range t {
			if j == 0 {
				continue
			}
			if n > 0 {
				b.WriteString(" & ")
			}
			b.WriteString(tsqueryOperand(lexemes[l] + " " + strconv.Itoa(j) + " " + scope))
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// recallPairs returns the tsquery, over the tokens of
// entity_facts_recall_terms_idx, of the facts of scope that hold two of
// lexemes.
func recallPairs(lexemes []string, scope string) string {
	var b strings.Builder
	for i := range lexemes {
		for j := i + 1; j < len(lexemes); j++ {
			if b.Len() > 0 {
				b.WriteString(" | ")
			}
			b.WriteString("(" + tsqueryOperand(lexemes[i]+" "+scope) + " & " + tsqueryOperand(lexemes[j]+" "+scope) + ")")
		}
	}
	return b.String()
}

// tsqueryOperand quotes s as a tsquery operand.
func tsqueryOperand(s string) string {
	return "'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(s) + "'"
}

// tsQuery is what recall needs to know of a parsed tsquery.
type tsQuery struct {
	lexemes []string // its distinct lexemes, negated ones too
	// minLexemes is m, the fewest positions of its lexemes that satisfy it:
	// 0 when a fact without them may match (through a negation).
	minLexemes int
	root       *tsqNode
}

// tsqNode is a node of a parsed tsquery: an operand (lexeme), or an
// operator ('!', '&', '|', or '<' for a phrase) over its children.
type tsqNode struct {
	op          byte
	lexeme      string
	left, right *tsqNode
}

// minLexemes returns the fewest positions of the query's lexemes that
// satisfy n, counting each operand as a distinct lexeme.
func (n *tsqNode) minLexemes() int {
	switch n.op {
	case 0:
		return 1
	case '!':
		return 0
	case '|':
		return min(n.left.minLexemes(), n.right.minLexemes())
	}
	return n.left.minLexemes() + n.right.minLexemes()
}

// scoped writes n as a tsquery over the tokens of
// entity_facts_recall_terms_idx for scope that every fact matching n has:
// each lexeme becomes the scope's token, a phrase becomes an AND (the tokens
// have no positions), and a negation is left out (it holds of facts that
// have the tokens too). It reports false when n holds of facts with none of
// its tokens (a negation alone, or beside an OR).
func (n *tsqNode) scoped(b *strings.Builder, scope string) bool {
	switch n.op {
	case 0:
		b.WriteString(tsqueryOperand(n.lexeme + " " + scope))
		return true
	case '!':
		return false
	case '|':
		var l, r strings.Builder
		if !n.left.scoped(&l, scope) || !n.right.scoped(&r, scope) {
			return false
		}
		b.WriteString("(" + l.String() + " | " + r.String() + ")")
		return true
	}
	var l, r strings.Builder
	lok, rok := n.left.scoped(&l, scope), n.right.scoped(&r, scope)
	switch {
	case lok && rok:
		b.WriteString("(" + l.String() + " & " + r.String() + ")")
	case lok:
		b.WriteString(l.String())
	case rok:
		b.WriteString(r.String())
	}
	return lok || rok
}

// both returns a and b when the query is 'a' & 'b' of two different
// lexemes short enough for the pair's tokens.
func (t tsQuery) both() (a, b string, ok bool) {
	n := t.root
	if n == nil || n.op != '&' || n.left.op != 0 || n.right.op != 0 || n.left.lexeme == n.right.lexeme {
		return "", "", false
	}
	a, b = n.left.lexeme, n.right.lexeme
	return a, b, utf8.RuneCountInString(a) <= recallMaxNearLexeme && utf8.RuneCountInString(b) <= recallMaxNearLexeme
}

// scoped returns the tsquery of the scope's tokens that every match of the
// query has (see tsqNode.scoped), or false when there is none.
func (t tsQuery) scoped(scope string) (string, bool) {
	if t.root == nil {
		return "", false
	}
	var b strings.Builder
	ok := t.root.scoped(&b, scope)
	return b.String(), ok
}

// parseTSQuery reads PostgreSQL's text form of a tsquery. It reports false
// for operands with weights or a prefix mark, and for text it cannot read.
func parseTSQuery(s string) (tsQuery, bool) {
	p := &tsqParser{s: s}
	var out tsQuery
	if p.skip(); p.i == len(s) {
		return out, true
	}
	root, ok := p.or()
	if !ok || p.i != len(s) {
		return tsQuery{}, false
	}
	out.root = root
	seen := map[string]bool{}
	dup := false
	for _, l := range p.lexemes {
		if seen[l] {
			dup = true
			continue
		}
		seen[l] = true
		out.lexemes = append(out.lexemes, l)
	}
	// With a lexeme named twice, one position may serve both places: count
	// no more than one.
	out.minLexemes = root.minLexemes()
	if dup {
		out.minLexemes = min(out.minLexemes, 1)
	}
	return out, true
}

// tsqParser parses by precedence, lowest first: | then & then <N> then !.
type tsqParser struct {
	s       string
	i       int
	lexemes []string
}

func (p *tsqParser) skip() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// binary reads operands of next joined by op.
func (p *tsqParser) binary(op byte, next func() (*tsqNode, bool)) (*tsqNode, bool) {
	n, ok := next()
	for ok && p.peek(string(op)) {
		if op == '<' {
			end := strings.IndexByte(p.s[p.i:], '>')
			if end < 0 {
				return nil, false
			}
			if dist := p.s[p.i+1 : p.i+end]; dist != "-" {
				if _, err := strconv.Atoi(dist); err != nil {
					return nil, false
				}
			}
			p.i += end + 1
		} else {
			p.i++
		}
		var r *tsqNode
		if r, ok = next(); ok {
			n = &tsqNode{op: op, left: n, right: r}
		}
	}
	return n, ok
}

func (p *tsqParser) or() (*tsqNode, bool)     { return p.binary('|', p.and) }
func (p *tsqParser) and() (*tsqNode, bool)    { return p.binary('&', p.phrase) }
func (p *tsqParser) phrase() (*tsqNode, bool) { return p.binary('<', p.unary) }

func (p *tsqParser) unary() (*tsqNode, bool) {
	switch {
	case p.peek("!"):
		p.i++
		n, ok := p.unary()
		return &tsqNode{op: '!', left: n}, ok
	case p.peek("("):
		p.i++
		n, ok := p.or()
		if !ok || !p.peek(")") {
			return nil, false
		}
		p.i++
		return n, true
	case p.peek("'"):
		return p.operand()
	}
	return nil, false
}

// operand reads a quoted lexeme, in which two quotes stand for one and a
// backslash escapes the next character.
func (p *tsqParser) operand() (*tsqNode, bool) {
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			b.WriteByte(p.s[p.i])
		case c == '\'' && p.i+1 < len(p.s) && p.s[p.i+1] == '\'':
			p.i++
			b.WriteByte('\'')
		case c == '\'':
			p.i++
			if p.i < len(p.s) && p.s[p.i] == ':' {
				return nil, false // weights or a prefix
			}
			p.lexemes = append(p.lexemes, b.String())
			return &tsqNode{lexeme: b.String()}, true
		default:
			b.WriteByte(c)
		}
	}
	return nil, false
}

// peek skips spaces and reports whether the text goes on with tok.
func (p *tsqParser) peek(tok string) bool {
	p.skip()
	return strings.HasPrefix(p.s[p.i:], tok)
}

// recallDecisionRow is the decision a recall statement returns with a fact
// of category decision: the decisions row as JSON (to_jsonb's snake_case
// keys), with its entity's name. It has decisionRow's fields in its order,
// so the conversion to it fails to compile if the two drift apart.
type recallDecisionRow struct {
	ID           int64      `json:"id"`
	FactID       int64      `json:"fact_id"`
	Scope        string     `json:"scope"`
	EntityID     int64      `json:"entity_id"`
	EntityName   string     `json:"entity_name"`
	Key          string     `json:"key"`
	Decision     string     `json:"decision"`
	Alternatives []string   `json:"alternatives"`
	Reasoning    string     `json:"reasoning"`
	DecidedBy    string     `json:"decided_by"`
	DecidedAt    time.Time  `json:"decided_at"`
	DoNotReopen  bool       `json:"do_not_reopen"`
	ReopenedAt   *time.Time `json:"reopened_at"`
	ReopenedBy   *string    `json:"reopened_by"`
	ReopenReason *string    `json:"reopen_reason"`
	Version      int32      `json:"version"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// recallDecision reads the decision column of a recall statement: nil for
// a fact that records none.
func recallDecision(raw json.RawMessage) (*Decision, error) {
	if raw == nil {
		return nil, nil
	}
	var r recallDecisionRow
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	// As pgx reads a timestamptz: in the process's local time.
	for _, t := range []*time.Time{&r.DecidedAt, r.ReopenedAt, &r.CreatedAt, &r.UpdatedAt} {
		if t != nil {
			*t = t.Local()
		}
	}
	d := newDecision(decisionRow(r))
	return &d, nil
}

func recallFactRow(r queries.RecallSearchRow) factRow {
	return factRow{
		ID: r.ID, Scope: r.Scope, EntityID: r.EntityID, EntityName: r.EntityName, Key: r.Key,
		Content: r.Content, Durability: r.Durability, Category: r.Category, Confidence: r.Confidence,
		Importance: r.Importance, ConfirmedAt: r.ConfirmedAt, ExpiresAt: r.ExpiresAt,
		Deadline: r.Deadline, ForgetAt: r.ForgetAt, Status: r.Status, ArchivedAt: r.ArchivedAt,
		ArchiveReason: r.ArchiveReason, Source: r.Source, SourceNodeID: r.SourceNodeID,
		ExtractionCount: r.ExtractionCount, Version: r.Version, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, EffectiveConfidence: r.EffectiveConfidence,
	}
}
