package memory

import (
	"context"
	"time"

	"github.com/tenurehq/tenure/queries"
)

// Whether the query "a b" walks its cells or ranks every match.
//
// The walk settles a query only when ten facts score above 0.1, the bound
// of a fact holding each word once, which takes many matches: among the
// bench's first 150 two-word Zipf queries, every pair with over 1,000
// matches settled, and every pair that could not had fewer. A walk that
// does not settle costs a few milliseconds on top of ranking every match,
// which for a few hundred matches costs as much. So recall estimates the matches of a and b in the scope from the
// statistics of the last ANALYZE (the share of the terms index's entries
// holding 'a scope' and 'b scope', and the scope's share of the facts, as
// if the two words were independent) and walks only when the estimate
// reaches recallBothWalkMatches. A word missing from the most common tokens
// is rarer than the least common listed, and counts as half as common (a
// pair of a very common word with one just below the list may then rank a
// thousand or so matches at once, about as costly as the walk). Without
// statistics (a new database) it walks. Either way the answer is the same;
// only its cost differs.

// recallBothWalkMatches is the estimated number of matches from which the
// query "a b" walks its cells.
const recallBothWalkMatches = 1000

// recallStatsTTL is how long recall keeps the statistics it read.
const recallStatsTTL = 5 * time.Minute

// recallTermStatsSQL reads the statistics ANALYZE keeps of the tokens of
// the terms and repeats indexes and of the facts' scopes (reltuples is -1
// before the first VACUUM or ANALYZE: no statistics). It is not a generated
// query: the statistics views are PostgreSQL's catalog, which the query
// compiler does not model.
const recallTermStatsSQL = `
SELECT coalesce((SELECT s.most_common_elems::text::text[] FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts_recall_terms_idx'), '{}'),
    coalesce((SELECT s.most_common_elem_freqs FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts_recall_terms_idx'), '{}')::real[],
    coalesce((SELECT c.reltuples FROM pg_class c WHERE c.oid = 'entity_facts_recall_terms_idx'::regclass), 0)::float8,
    coalesce((SELECT s.most_common_vals::text::text[] FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts' AND s.attname = 'scope'), '{}'),
    coalesce((SELECT s.most_common_freqs FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts' AND s.attname = 'scope'), '{}')::real[],
    coalesce((SELECT s.most_common_elems::text::text[] FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts_recall_repeats_idx'), '{}'),
    coalesce((SELECT s.most_common_elem_freqs FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts_recall_repeats_idx'), '{}')::real[],
    coalesce((SELECT c.reltuples FROM pg_class c WHERE c.oid = 'entity_facts_recall_repeats_idx'::regclass), 0)::float8`

// recallStats is what recall knows of the tokens' frequencies.
type recallStats struct {
	read    time.Time
	terms   recallTokenStats   // of the terms index
	repeats recallTokenStats   // of the repeats index
	scopes  map[string]float64 // share of facts in a scope
}

// recallTokenStats are the most common tokens of one index.
type recallTokenStats struct {
	entries float64            // entries of the index
	share   map[string]float64 // share of entries holding a token
	least   float64            // the least share listed: unlisted tokens have less
}

// set reads ANALYZE's most_common_elems and most_common_elem_freqs: one
// share per token, then the least and greatest of them and the share of
// empty entries.
func (t *recallTokenStats) set(tokens []string, freqs []float32, entries float64) {
	t.entries, t.share = entries, map[string]float64{}
	if len(freqs) >= len(tokens)+2 && len(tokens) > 0 {
		for i, tok := range tokens {
			t.share[tok] = float64(freqs[i])
		}
		t.least = float64(freqs[len(tokens)])
	}
}

// facts estimates the entries holding token, and reports false when there
// are no statistics. A token not listed counts as half the least listed.
func (t *recallTokenStats) facts(token string) (float64, bool) {
	if len(t.share) == 0 || t.entries <= 0 {
		return 0, false
	}
	if f, ok := t.share[token]; ok {
		return t.entries * f, true
	}
	return t.entries * t.least / 2, true
}

// wholeRungs returns what recallRungs estimates a rung's facts by, or nil
// (every rung below recallBandedT read by band) without statistics or for a
// scope they do not list: one written since the last ANALYZE has all its
// tokens missing from them, whatever its size.
func (st *recallStats) wholeRungs(scope string) func(token string) float64 {
	if st == nil || len(st.repeats.share) == 0 || st.scopes[scope] <= 0 {
		return nil
	}
	return st.repeats.listed
}

// listed estimates the entries holding token when the statistics list it,
// and counts 0 otherwise: a token they do not list is rarer than the least
// they do (for the repeats index, about 70 facts of a million: its
// statistics target is 300, see migration 00027).
func (t *recallTokenStats) listed(token string) float64 {
	if f, ok := t.share[token]; ok {
		return t.entries * f
	}
	return 0
}

// recallStats returns the statistics, read again when older than
// recallStatsTTL (at worst, two queries read them at once).
func (s *Store) recallStats(ctx context.Context, db queries.DBTX) (*recallStats, error) {
	now := time.Now()
	st := s.stats.Load()
	if st != nil && now.Sub(st.read) < recallStatsTTL {
		return st, nil
	}
	var terms, scopes, repeats []string
	var termFreqs, scopeFreqs, repeatFreqs []float32
	var termEntries, repeatEntries float64
	st = &recallStats{read: now, scopes: map[string]float64{}}
	if err := db.QueryRow(ctx, recallTermStatsSQL).Scan(&terms, &termFreqs, &termEntries, &scopes, &scopeFreqs,
		&repeats, &repeatFreqs, &repeatEntries); err != nil {
		return nil, err
	}
	st.terms.set(terms, termFreqs, termEntries)
	st.repeats.set(repeats, repeatFreqs, repeatEntries)
	for i, sc := range scopes {
		if i < len(scopeFreqs) {
			st.scopes[sc] = float64(scopeFreqs[i])
		}
	}
	s.stats.Store(st)
	return st, nil
}

// bothMatches estimates the matches of both a and b in scope, and reports
// false when there are no statistics to estimate from.
func (st *recallStats) bothMatches(a, b, scope string) (float64, bool) {
	na, ok := st.terms.facts(a + " " + scope)
	if !ok {
		return 0, false
	}
	nb, _ := st.terms.facts(b + " " + scope)
	// Without the scope's share, the rarer word's facts bound the matches.
	est := min(na, nb)
	if fs, ok := st.scopes[scope]; ok && fs > 0 && st.terms.entries > 0 {
		est = min(est, na*nb/(fs*st.terms.entries))
	}
	return est, true
}

// routeStats returns the statistics recall routes by, or nil when they
// cannot be read: the route then takes the way that is never wrong, only
// sometimes slower, and the failure is logged.
func (s *Store) routeStats(ctx context.Context, db queries.DBTX) *recallStats {
	st, err := s.recallStats(ctx, db)
	if err != nil {
		if ctx.Err() == nil {
			s.logger.WarnContext(ctx, "recall: reading the token statistics", "err", err)
		}
		return nil
	}
	return st
}

// walkBoth reports whether the query "a b" in scope should walk its cells
// (it does without statistics: st nil).
func (s *Store) walkBoth(st *recallStats, a, b, scope string) bool {
	if st == nil {
		return true
	}
	est, ok := st.bothMatches(a, b, scope)
	return !ok || est >= float64(s.bothWalkMatches)
}

// Whether a query of several lexemes that one lexeme satisfies ("a or b")
// reads every fact with T >= 2 before its rungs.
//
// The rungs settle such a query when its 10th best beats 0.2 (the bound of
// T <= 2); when it does not, the walk's cost is added to reading every fact
// with T >= 2, which settles when the 10th best beats 0.1. For words whose
// facts with T >= 2 are few, reading those first costs less than the walk,
// and a walk after them could not settle what they did not (its bound is
// higher). For common words they are tens of thousands, and the walk comes
// first. Recall estimates them from the same statistics: each lexeme's facts
// holding it twice (the repeats index's 'lexeme 2 scope'), and each two
// lexemes' facts holding both.

// recallPairsFirstFacts is the estimated number of facts with T >= 2 below
// which they are read before the rungs.
const recallPairsFirstFacts = 400

// pairsFirst reports whether the query's facts with T >= 2 should be read
// before its rungs (never without statistics: st nil).
func (s *Store) pairsFirst(st *recallStats, lexemes []string, scope string) bool {
	if st == nil || len(lexemes) < 2 || len(lexemes) > recallMaxPairLexemes {
		return false
	}
	est := 0.0
	for i, l := range lexemes {
		n, ok := st.repeats.facts(l + " 2 " + scope)
		if !ok {
			return false
		}
		est += n
		for _, m := range lexemes[i+1:] {
			both, ok := st.bothMatches(l, m, scope)
			if !ok {
				return false
			}
			est += both
		}
	}
	return est < float64(s.pairsFirstFacts)
}
