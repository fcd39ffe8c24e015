package memory

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// BM25's parameters: how quickly repeats of a word saturate (k1) and how
// much a fact's length counts (b), the usual values.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25Term is one lexeme of a question: how many live facts of the scope
// hold it and what a match of it weighs.
type bm25Term struct {
	lexeme string
	facts  int64
	idf    float64
	// of is the question's lexeme that the term stands for when expansion
	// added it (recall_expand.go), "" for a lexeme of the question.
	of string
}

// bound is the most the term can add to a fact's score: BM25's term weight
// tends to idf × (k1 + 1) as the word repeats in a short fact, and effective
// confidence is at most 1.
func (t bm25Term) bound() float64 { return t.idf * (bm25K1 + 1) }

// ranked is one fact recall scored. Its id is the fact's, or for a pending
// working row (which is not a fact yet) the negation of the row's id.
type ranked struct {
	id                     int64
	relevance, score, conf float64
}

// ranking scores the facts recall reads for one question.
type ranking struct {
	terms  []bm25Term // the rarest first
	index  map[string]int
	facts  float64 // live facts in the scope
	avgLen float64 // their mean length in lexemes
	seen   map[int64]ranked
	// expanded is set once a term stands for another (bm25Term.of).
	expanded bool
}

// newRanking makes the ranking of a question's lexemes, given how many live
// facts of the scope hold each, how many there are and how many lexemes
// they hold in all. The counts are kept by triggers and folded later, so a
// lexeme may seem to be in more facts than there are; it is then in all.
func newRanking(lexemes []string, lexemeFacts []int64, facts, lexemesTotal int64) *ranking {
	r := &ranking{index: make(map[string]int, len(lexemes)), seen: map[int64]ranked{}}
	r.facts = float64(max(facts, 1))
	r.avgLen = max(float64(lexemesTotal)/r.facts, 1)
	for i, l := range lexemes {
		df := min(float64(max(lexemeFacts[i], 0)), r.facts)
		r.terms = append(r.terms, bm25Term{
			lexeme: l, facts: int64(df),
			idf: math.Log(1 + (r.facts-df+0.5)/(df+0.5)),
		})
	}
	r.sortTerms()
	return r
}

// sortTerms orders the terms the rarest first and indexes them.
func (r *ranking) sortTerms() {
	slices.SortFunc(r.terms, func(a, b bm25Term) int {
		return cmp.Or(cmp.Compare(a.facts, b.facts), strings.Compare(a.lexeme, b.lexeme))
	})
	for i, t := range r.terms {
		r.index[t.lexeme] = i
	}
}

// split divides the terms into the rarest ones, which hold at most budget
// facts in all (possibly none), and the rest.
func (r *ranking) split(budget int64) (essential, rest []bm25Term) {
	var sum int64
	n := 0
	for n < len(r.terms) && sum+r.terms[n].facts <= budget {
		sum += r.terms[n].facts
		n++
	}
	return r.terms[:n], r.terms[n:]
}

// common returns terms without those in more than half the scope's facts,
// or terms whole when all of them are.
func (r *ranking) common(terms []bm25Term) []bm25Term {
	var out []bm25Term
	for _, t := range terms {
		if float64(t.facts) <= r.facts/2 {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return terms
	}
	return out
}

// add scores one fact read: its effective confidence, its length in
// lexemes and its search vector cut to the question's lexemes, as
// tsvector text. Of a question's lexeme and the terms that stand for it,
// only the best counts.
func (r *ranking) add(id int64, conf float64, length int, terms string) {
	if _, ok := r.seen[id]; ok {
		return
	}
	var rel float64
	var best map[string]float64
	norm := bm25K1 * (1 - bm25B + bm25B*float64(max(length, 1))/r.avgLen)
	for lexeme, tf := range tsvectorCounts(terms) {
		i, ok := r.index[lexeme]
		if !ok {
			continue
		}
		f := float64(tf)
		w := r.terms[i].idf * f * (bm25K1 + 1) / (f + norm)
		if !r.expanded {
			rel += w
			continue
		}
		if best == nil {
			best = map[string]float64{}
		}
		of := cmp.Or(r.terms[i].of, lexeme)
		best[of] = max(best[of], w)
	}
	for _, w := range best {
		rel += w
	}
	r.seen[id] = ranked{id: id, relevance: rel, score: rel * conf, conf: conf}
}

// settled reports whether the facts read so far give the first k exactly:
// there are k of them and the k-th scores at least what a fact holding only
// the unread terms can.
func (r *ranking) settled(k int, unread []bm25Term) bool {
	top := r.top(k)
	if len(top) < k {
		return false
	}
	var bound float64
	for _, t := range unread {
		bound += t.bound()
	}
	return top[k-1].score >= bound
}

// top returns the best k facts read, by score, then facts before pending
// rows, then the newest first.
func (r *ranking) top(k int) []ranked {
	all := make([]ranked, 0, len(r.seen))
	for _, c := range r.seen {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b ranked) int {
		if c := cmp.Compare(b.score, a.score); c != 0 || (a.id < 0) != (b.id < 0) {
			return cmp.Or(c, cmp.Compare(b.id, a.id))
		}
		return cmp.Compare(max(b.id, -b.id), max(a.id, -a.id))
	})
	return all[:min(k, len(all))]
}

// tsvectorCounts reads the text of a tsvector ('lexeme':1,4 'other':2)
// into how many positions each lexeme has (1 for a lexeme without
// positions). Lexemes are quoted, with ' doubled and \ escaping.
func tsvectorCounts(s string) map[string]int {
	out := map[string]int{}
	for i := 0; i < len(s); {
		if s[i] != '\'' {
			i++
			continue
		}
		var lex strings.Builder
		i++
		for i < len(s) {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				lex.WriteByte(s[i+1])
				i += 2
				continue
			}
			if c == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					lex.WriteByte('\'')
					i += 2
					continue
				}
				i++
				break
			}
			lex.WriteByte(c)
			i++
		}
		n := 1
		if i < len(s) && s[i] == ':' {
			end := strings.IndexByte(s[i:], ' ')
			if end < 0 {
				end = len(s) - i
			}
			n = strings.Count(s[i:i+end], ",") + 1
			i += end
		}
		out[lex.String()] = n
	}
	return out
}
