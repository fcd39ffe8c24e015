package bench

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// The conversation workload's first baseline is plain Okapi BM25 over the
// raw turn texts, written here so that it depends on nothing but the text:
//
//   - Tokens are the runs of letters and digits of the lowercased text; an
//     apostrophe ends a token ("don't" gives "don" and "t"), so contractions
//     fall apart into pieces the stopword list holds.
//   - Stopwords are the common English function words of the NLTK list
//     (bm25Stopwords), and tokens of one letter; digits are kept.
//   - Each remaining token is reduced by Porter's suffix-stripping stemmer
//     (M. F. Porter, "An algorithm for suffix stripping", 1980): plurals,
//     -ed and -ing, then the derivational suffixes (-ational, -ness, -ment,
//     ...), each step only when enough of a stem is left.
//   - A document's score for a query is the sum over the query's distinct
//     terms t of idf(t) × tf × (k1 + 1) / (tf + k1 × (1 − b + b × dl / avgdl)),
//     with k1 = 1.2, b = 0.75, dl the document's length in terms, avgdl the
//     mean length, and idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)) (never
//     negative). Ties rank the earlier document first.

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// BM25 is an index of a fixed list of documents.
type BM25 struct {
	n        int
	lengths  []int
	avgLen   float64
	postings map[string][]bm25Posting
}

type bm25Posting struct {
	doc, tf int
}

// NewBM25 indexes docs; a document's number in Search's answer is its index.
func NewBM25(docs []string) *BM25 {
	ix := &BM25{n: len(docs), lengths: make([]int, len(docs)), postings: map[string][]bm25Posting{}}
	total := 0
	for d, text := range docs {
		terms := Terms(text)
		ix.lengths[d] = len(terms)
		total += len(terms)
		counts := map[string]int{}
		var order []string
		for _, t := range terms {
			if counts[t] == 0 {
				order = append(order, t)
			}
			counts[t]++
		}
		for _, t := range order {
			ix.postings[t] = append(ix.postings[t], bm25Posting{doc: d, tf: counts[t]})
		}
	}
	if len(docs) > 0 {
		ix.avgLen = float64(total) / float64(len(docs))
	}
	return ix
}

// idf is the inverse document frequency of a term held by df documents.
func (ix *BM25) idf(df int) float64 {
	return math.Log(1 + (float64(ix.n)-float64(df)+0.5)/(float64(df)+0.5))
}

// Scores returns every document's score for query (0 for those holding none
// of its terms).
func (ix *BM25) Scores(query string) []float64 {
	scores := make([]float64, ix.n)
	seen := map[string]bool{}
	for _, t := range Terms(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		list := ix.postings[t]
		if len(list) == 0 {
			continue
		}
		idf := ix.idf(len(list))
		for _, p := range list {
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.lengths[p.doc])/ix.avgLen)
			scores[p.doc] += idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	return scores
}

// Search returns the k best documents for query, best first, leaving out
// those that hold none of its terms.
func (ix *BM25) Search(query string, k int) []int {
	scores := ix.Scores(query)
	var docs []int
	for d, s := range scores {
		if s > 0 {
			docs = append(docs, d)
		}
	}
	slices.SortStableFunc(docs, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return a - b
	})
	if len(docs) > k {
		docs = docs[:k]
	}
	return docs
}

// Tokens splits text into its lowercased runs of letters and digits.
func Tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Terms is what BM25 indexes of text: its tokens without stopwords and
// one-letter words, stemmed.
func Terms(text string) []string {
	var out []string
	for _, t := range Tokens(text) {
		if IsStopword(t) {
			continue
		}
		out = append(out, Stem(t))
	}
	return out
}

// IsStopword reports whether the lowercased token is left out of the index.
func IsStopword(t string) bool {
	if len([]rune(t)) < 2 && !unicode.IsDigit([]rune(t)[0]) {
		return true
	}
	return bm25Stopwords[t]
}

// bm25Stopwords is NLTK's English stopword list.
var bm25Stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves what which who whom
this that these those am is are was were be been being have has had having do does did doing a an the and
but if or because as until while of at by for with about against between into through during before after
above below to from up down in out on off over under again further then once here there when where why how
all any both each few more most other some such no nor not only own same so than too very s t can will just
don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan
shouldn wasn weren won wouldn`) {
		m[w] = true
	}
	return m
}()

// Stem reduces a lowercased word by Porter's algorithm. Words of one or two
// letters and words holding anything but the letters a to z are kept as
// they are.
func Stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	b := []byte(w)
	b = porterStep1ab(b)
	b = porterStep1c(b)
	b = porterSuffixes(b, porterStep2, 0)
	b = porterSuffixes(b, porterStep3, 0)
	b = porterStep4(b)
	b = porterStep5(b)
	return string(b)
}

// consonant reports whether b[i] is a consonant in Porter's sense: not a
// vowel, and a y only after a vowel (or first).
func consonant(b []byte, i int) bool {
	switch b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !consonant(b, i-1)
	}
	return true
}

// measure is m of the stem b: the number of vowel-consonant sequences.
func measure(b []byte) int {
	m, i := 0, 0
	for i < len(b) && consonant(b, i) {
		i++
	}
	for i < len(b) {
		for i < len(b) && !consonant(b, i) {
			i++
		}
		if i == len(b) {
			break
		}
		for i < len(b) && consonant(b, i) {
			i++
		}
		m++
	}
	return m
}

func hasVowel(b []byte) bool {
	for i := range b {
		if !consonant(b, i) {
			return true
		}
	}
	return false
}

func doubleConsonant(b []byte) bool {
	n := len(b)
	return n >= 2 && b[n-1] == b[n-2] && consonant(b, n-1)
}

// cvc: the stem ends consonant-vowel-consonant, the last not w, x or y.
func cvc(b []byte) bool {
	n := len(b)
	if n < 3 || !consonant(b, n-1) || consonant(b, n-2) || !consonant(b, n-3) {
		return false
	}
	switch b[n-1] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

func hasSuffix(b []byte, s string) bool { return strings.HasSuffix(string(b), s) }

func replaceSuffix(b []byte, s, r string) []byte {
	return append(b[:len(b)-len(s)], r...)
}

func porterStep1ab(b []byte) []byte {
	switch {
	case hasSuffix(b, "sses"):
		b = b[:len(b)-2]
	case hasSuffix(b, "ies"):
		b = b[:len(b)-2]
	case hasSuffix(b, "ss"):
	case hasSuffix(b, "s"):
		b = b[:len(b)-1]
	}
	if hasSuffix(b, "eed") {
		if measure(b[:len(b)-3]) > 0 {
			b = b[:len(b)-1]
		}
		return b
	}
	var cut bool
	for _, s := range []string{"ed", "ing"} {
		if hasSuffix(b, s) && hasVowel(b[:len(b)-len(s)]) {
			b, cut = b[:len(b)-len(s)], true
			break
		}
	}
	if !cut {
		return b
	}
	switch {
	case hasSuffix(b, "at"), hasSuffix(b, "bl"), hasSuffix(b, "iz"):
		return append(b, 'e')
	case doubleConsonant(b):
		switch b[len(b)-1] {
		case 'l', 's', 'z':
			return b
		}
		return b[:len(b)-1]
	case measure(b) == 1 && cvc(b):
		return append(b, 'e')
	}
	return b
}

func porterStep1c(b []byte) []byte {
	if hasSuffix(b, "y") && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	return b
}

var porterStep2 = [][2]string{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"abli", "able"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
	{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
}

var porterStep3 = [][2]string{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

// porterSuffixes replaces the longest listed suffix of b when the stem
// before it has a measure above min.
func porterSuffixes(b []byte, list [][2]string, min int) []byte {
	best := -1
	for i, p := range list {
		if hasSuffix(b, p[0]) && (best < 0 || len(p[0]) > len(list[best][0])) {
			best = i
		}
	}
	if best >= 0 && measure(b[:len(b)-len(list[best][0])]) > min {
		return replaceSuffix(b, list[best][0], list[best][1])
	}
	return b
}

var porterStep4List = []string{"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"}

func porterStep4(b []byte) []byte {
	best := ""
	for _, s := range porterStep4List {
		if hasSuffix(b, s) && len(s) > len(best) {
			best = s
		}
	}
	if best == "" {
		return b
	}
	stem := b[:len(b)-len(best)]
	if measure(stem) <= 1 {
		return b
	}
	if best == "ion" && (len(stem) == 0 || (stem[len(stem)-1] != 's' && stem[len(stem)-1] != 't')) {
		return b
	}
	return stem
}

func porterStep5(b []byte) []byte {
	if hasSuffix(b, "e") {
		stem := b[:len(b)-1]
		if m := measure(stem); m > 1 || (m == 1 && !cvc(stem)) {
			b = stem
		}
	}
	if hasSuffix(b, "ll") && measure(b) > 1 {
		b = b[:len(b)-1]
	}
	return b
}
