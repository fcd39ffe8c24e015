package memory

import (
	"context"
	"sync"
	"time"
)

// Whether the query "a b" walks its cells or ranks every match.
//
// The walk settles a query only when ten facts score above 0.1, the bound
// of a fact holding each word once, which takes many matches: in the
// bench's Zipf scopes every pair with over 1,000 matches settled and most
// with fewer did not. A walk that does not settle costs a few milliseconds
// on top of ranking every match, which for a few hundred matches costs as
// much. So recall estimates the matches of a and b in the scope from the
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

// recallTermStatsSQL reads the statistics ANALYZE keeps of the terms
// index's tokens and of the facts' scopes. It is not a generated query:
// the statistics views are PostgreSQL's catalog, which the query compiler
// does not model.
const recallTermStatsSQL = `
SELECT coalesce((SELECT s.most_common_elems::text::text[] FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts_recall_terms_idx'), '{}'),
    coalesce((SELECT s.most_common_elem_freqs FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts_recall_terms_idx'), '{}')::real[],
    coalesce((SELECT c.reltuples FROM pg_class c WHERE c.oid = 'entity_facts_recall_terms_idx'::regclass), 0)::float8,
    coalesce((SELECT s.most_common_vals::text::text[] FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts' AND s.attname = 'scope'), '{}'),
    coalesce((SELECT s.most_common_freqs FROM pg_stats s
            WHERE s.schemaname = current_schema() AND s.tablename = 'entity_facts' AND s.attname = 'scope'), '{}')::real[]`

// recallStats is what recall knows of the tokens' frequencies.
type recallStats struct {
	read    time.Time
	entries float64            // entries of the terms index
	tokens  map[string]float64 // share of entries holding a token
	least   float64            // the least share listed: unlisted tokens have less
	scopes  map[string]float64 // share of facts in a scope
}

// recallStatsCache keeps the statistics between queries.
type recallStatsCache struct {
	mu    sync.Mutex
	stats *recallStats
}

// recallStats returns the statistics, read again when older than
// recallStatsTTL. The lock is not held while reading: at worst two queries
// read them at once.
func (s *Store) recallStats(ctx context.Context) (*recallStats, error) {
	c := &s.statsCache
	now := time.Now()
	c.mu.Lock()
	st := c.stats
	c.mu.Unlock()
	if st != nil && now.Sub(st.read) < recallStatsTTL {
		return st, nil
	}
	var tokens, scopes []string
	var tokenFreqs, scopeFreqs []float32
	st = &recallStats{read: now, tokens: map[string]float64{}, scopes: map[string]float64{}}
	if err := s.pool.QueryRow(ctx, recallTermStatsSQL).Scan(&tokens, &tokenFreqs, &st.entries, &scopes, &scopeFreqs); err != nil {
		return nil, err
	}
	// most_common_elem_freqs lists one share per token, then the least and
	// greatest of them and the share of empty entries.
	if len(tokenFreqs) >= len(tokens)+2 && len(tokens) > 0 {
		for i, t := range tokens {
			st.tokens[t] = float64(tokenFreqs[i])
		}
		st.least = float64(tokenFreqs[len(tokens)])
	}
	for i, sc := range scopes {
		if i < len(scopeFreqs) {
			st.scopes[sc] = float64(scopeFreqs[i])
		}
	}
	c.mu.Lock()
	c.stats = st
	c.mu.Unlock()
	return st, nil
}

// bothMatches estimates the matches of both a and b in scope, and reports
// false when there are no statistics to estimate from.
func (st *recallStats) bothMatches(a, b, scope string) (float64, bool) {
	if len(st.tokens) == 0 || st.entries <= 0 {
		return 0, false
	}
	share := func(token string) float64 {
		if f, ok := st.tokens[token]; ok {
			return f
		}
		return st.least / 2
	}
	fa, fb := share(a+" "+scope), share(b+" "+scope)
	// Without the scope's share, the rarer word's facts bound the matches.
	est := st.entries * min(fa, fb)
	if fs, ok := st.scopes[scope]; ok && fs > 0 {
		est = min(est, st.entries*fa*fb/fs)
	}
	return est, true
}

// walkBoth reports whether the query "a b" in scope should walk its cells.
// When the statistics cannot be read it walks, which is never wrong, only
// sometimes slower.
func (s *Store) walkBoth(ctx context.Context, a, b, scope string) bool {
	st, err := s.recallStats(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.logger.WarnContext(ctx, "recall: reading the token statistics", "err", err)
		}
		return true
	}
	est, ok := st.bothMatches(a, b, scope)
	return !ok || est >= float64(s.bothWalkMatches)
}
