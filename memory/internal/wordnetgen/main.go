// Command wordnetgen writes the related-word table recall expands questions
// with (memory/recall_synonyms.txt) from the data files of WordNet 3.0, as
// Debian's wordnet-base package installs them:
//
//	apt-get install wordnet-base
//	go generate ./memory/   # go run ./internal/wordnetgen -o recall_synonyms.txt
//
// It keeps single-word lemmas of nouns and verbs that SemCor's sense counts
// (cntlist.rev) show in use, and for each the other lemmas of its synsets,
// the most related first: P(L | W), the chance that a use of word W means a
// sense that L expresses too, weighed by how often L is the word used for
// that sense. Lemmas that make one lexeme (vacation, vacate) are mixed by
// how often each is used. Each related word comes with its irregular forms
// (verb.exc, noun.exc: bought for buy), and a word's own irregular forms
// (went for go) come first, marked "=". Every other single word that SemCor
// tags, of any part of speech, is listed alone, as a word spelled right.
// Every word is written as the lexeme PostgreSQL's english text-search
// configuration makes of it (to_tsvector('english', ...)), so the table is
// read against search vectors as it is: the words are stemmed by a private
// PostgreSQL cluster started for the run, or by the server at -database.
package main

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/pglocal"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "the folder of WordNet 3.0's data files (index.noun, data.noun, cntlist.rev, verb.exc, ...)")
	out := flag.String("o", "recall_synonyms.txt", "the table to write")
	database := flag.String("database", "", "a PostgreSQL URL to stem the words with; empty starts a private cluster")
	perWord := flag.Int("per-word", 6, "the most related words kept for a word")
	minShare := flag.Float64("min-share", 0.02, "the least P(related | word) kept")
	flag.Parse()
	if err := run(context.Background(), *dir, *out, *database, *perWord, *minShare); err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
}

// sense is one lemma of a synset.
type sense struct {
	lemma string // lowercase, as in index files
	count int    // SemCor's tag count of this sense of lemma
}

// synset is a set of synonyms of one part of speech.
type synset struct {
	pos    byte // n or v
	senses []sense
}

// lexicon is what the table is made from.
type lexicon struct {
	synsets map[string]*synset            // by pos and offset ("v02207206")
	senses  map[string][]string           // a lemma's synsets by pos+lemma, the most frequent first
	forms   map[string]map[string]bool    // pos+base → its irregular forms
	counts  map[string]int                // sense key → tag count
	related map[string]map[string]float64 // pos+lemma → related lemma → P
	known   map[string]bool               // the single-word lemmas SemCor tags, of any part of speech
}

func run(ctx context.Context, dir, out, database string, perWord int, minShare float64) error {
	lx := &lexicon{synsets: map[string]*synset{}, senses: map[string][]string{}, forms: map[string]map[string]bool{},
		counts: map[string]int{}, known: map[string]bool{}}
	if err := lx.readCounts(filepath.Join(dir, "cntlist.rev")); err != nil {
		return err
	}
	for _, p := range []struct {
		pos  byte
		name string
	}{{'n', "noun"}, {'v', "verb"}} {
		if err := lx.readData(filepath.Join(dir, "data."+p.name), p.pos); err != nil {
			return err
		}
		if err := lx.readIndex(filepath.Join(dir, "index."+p.name), p.pos); err != nil {
			return err
		}
		if err := lx.readExceptions(filepath.Join(dir, p.name+".exc"), p.pos); err != nil {
			return err
		}
	}
	lx.relate()

	// Every word the table names, to stem: the common lemmas of nouns and
	// verbs, their related lemmas and irregular forms, and the known words
	// (every single-word lemma SemCor tags, of any part of speech).
	words := map[string]bool{}
	for key := range lx.senses {
		if lx.common(key[0], key[1:]) {
			words[key[1:]] = true
		}
	}
	for _, rel := range lx.related {
		for l := range rel {
			words[l] = true
		}
	}
	for key, fs := range lx.forms {
		words[key[1:]] = true
		for f := range fs {
			words[f] = true
		}
	}
	for k := range lx.known {
		words[k] = true
	}
	stems, err := stem(ctx, database, slices.Sorted(maps.Keys(words)))
	if err != nil {
		return err
	}

	// The lemmas each lexeme stands for: a lemma's own lexeme and those of
	// its irregular forms (went stands for go), each weighed by how often
	// SemCor uses the lemma, so that of two lemmas with one lexeme
	// (vacation and vacate make vacat) the common one's related words come
	// first.
	type source struct {
		pos    byte
		lemma  string
		weight float64
	}
	sources := map[string][]source{}
	for key := range lx.senses {
		pos, lemma := key[0], key[1:]
		s := stems[lemma]
		if s == "" || !lx.common(pos, lemma) {
			continue
		}
		u := float64(lx.uses(pos, lemma)) + 0.5
		sources[s] = append(sources[s], source{pos, lemma, u})
		for _, f := range lx.formsOf(pos, lemma, stems) {
			sources[f] = append(sources[f], source{pos, lemma, u})
		}
	}

	// The table: by lexeme, the lexemes of the lemmas it stands for (their
	// own forms), and the related lemmas, each with its forms, the most
	// related first: P(L | lexeme), the sum over its lemmas W of P(W |
	// lexeme) × P(L | W).
	type group struct {
		lexemes []string
		share   float64
	}
	type entry struct {
		same   map[string]bool
		groups map[string]*group // by the related lemma's lexeme
	}
	table := map[string]*entry{}
	for key, srcs := range sources {
		e := &entry{same: map[string]bool{}, groups: map[string]*group{}}
		// In a fixed order, so that the sums, and so the table, are the
		// same at every run.
		slices.SortFunc(srcs, func(a, b source) int {
			return cmp.Or(cmp.Compare(a.pos, b.pos), strings.Compare(a.lemma, b.lemma))
		})
		var total float64
		for _, src := range srcs {
			total += src.weight
		}
		for _, src := range srcs {
			for _, f := range append([]string{stems[src.lemma]}, lx.formsOf(src.pos, src.lemma, stems)...) {
				if f != key {
					e.same[f] = true
				}
			}
			rel := lx.related[string(src.pos)+src.lemma]
			for _, l := range slices.Sorted(maps.Keys(rel)) {
				p := rel[l]
				st := stems[l]
				if st == "" || st == key || e.same[st] {
					continue
				}
				g := e.groups[st]
				if g == nil {
					g = &group{lexemes: []string{st}}
					e.groups[st] = g
				}
				g.share += src.weight / total * p
				for _, f := range lx.formsOf(src.pos, l, stems) {
					if f != key && !e.same[f] && !slices.Contains(g.lexemes, f) {
						g.lexemes = append(g.lexemes, f)
					}
				}
			}
		}
		for st, g := range e.groups {
			if g.share < minShare {
				delete(e.groups, st)
			}
		}
		table[key] = e
	}

	// The known words without related words or forms.
	for k := range lx.known {
		if st := stems[k]; st != "" && table[st] == nil {
			table[st] = &entry{same: map[string]bool{}, groups: map[string]*group{}}
		}
	}

	var b strings.Builder
	b.WriteString(header)
	keys := slices.Sorted(maps.Keys(table))
	lines := 0
	for _, k := range keys {
		e := table[k]
		delete(e.same, k)
		for s := range e.same {
			delete(e.groups, s)
		}
		groups := slices.Collect(maps.Values(e.groups))
		slices.SortFunc(groups, func(a, b *group) int {
			return cmp.Or(cmp.Compare(b.share, a.share), strings.Compare(a.lexemes[0], b.lexemes[0]))
		})
		groups = groups[:min(perWord, len(groups))]
		b.WriteString(k)
		if len(e.same) == 0 && len(groups) == 0 {
			b.WriteByte('\n')
			lines++
			continue
		}
		b.WriteByte('\t')
		var parts []string
		if len(e.same) > 0 {
			parts = append(parts, "="+strings.Join(slices.Sorted(maps.Keys(e.same)), ","))
		}
		for _, g := range groups {
			parts = append(parts, strings.Join(g.lexemes, ","))
		}
		b.WriteString(strings.Join(parts, " "))
		b.WriteByte('\n')
		lines++
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wordnetgen: %d words, %d bytes, in %s\n", lines, b.Len(), out)
	return nil
}

// formsOf returns the lexemes of a lemma's irregular forms but its own.
func (lx *lexicon) formsOf(pos byte, lemma string, stems map[string]string) []string {
	var out []string
	for f := range lx.forms[string(pos)+lemma] {
		if s := stems[f]; s != "" && s != stems[lemma] && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// readCounts reads cntlist.rev: sense key, sense number, tag count.
func (lx *lexicon) readCounts(path string) error {
	return eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) != 3 {
			return fmt.Errorf("%s: %q: want a sense key, a sense number and a count", path, line)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("%s: %q: %w", path, line, err)
		}
		lx.counts[f[0]] = n
		if lemma, _, _ := strings.Cut(f[0], "%"); n > 0 && single(lemma) {
			lx.known[lemma] = true
		}
		return nil
	})
}

// readData reads the synsets of one part of speech: offset, lexicographer
// file, type, the words (each with its lex id), then pointers and a gloss.
func (lx *lexicon) readData(path string, pos byte) error {
	ssType := map[byte]string{'n': "1", 'v': "2"}[pos]
	return eachLine(path, func(line string) error {
		if strings.HasPrefix(line, "  ") {
			return nil // the licence
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return fmt.Errorf("%s: %q: too short", path, line)
		}
		n, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil || len(f) < 4+2*int(n) {
			return fmt.Errorf("%s: %q: bad word count", path, line)
		}
		s := &synset{pos: pos}
		for i := 0; i < int(n); i++ {
			word, id := f[4+2*i], f[5+2*i]
			lexID, err := strconv.ParseInt(id, 16, 32)
			if err != nil {
				return fmt.Errorf("%s: %q: bad lex id %q", path, line, id)
			}
			lemma := strings.ToLower(word)
			if lemma != word {
				// A proper noun (Maya, Jon): never a synonym of a common
				// word.
				continue
			}
			key := fmt.Sprintf("%s%%%s:%s:%02d::", lemma, ssType, f[1], lexID)
			s.senses = append(s.senses, sense{lemma: lemma, count: lx.counts[key]})
		}
		lx.synsets[string(pos)+f[0]] = s
		return nil
	})
}

// readIndex reads which synsets hold each lemma, the most frequent first.
func (lx *lexicon) readIndex(path string, pos byte) error {
	return eachLine(path, func(line string) error {
		if strings.HasPrefix(line, "  ") {
			return nil
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return fmt.Errorf("%s: %q: too short", path, line)
		}
		synsets, err := strconv.Atoi(f[2])
		if err != nil || len(f) < 6+synsets {
			return fmt.Errorf("%s: %q: bad synset count", path, line)
		}
		for _, off := range f[len(f)-synsets:] {
			lx.senses[string(pos)+f[0]] = append(lx.senses[string(pos)+f[0]], string(pos)+off)
		}
		return nil
	})
}

// readExceptions reads an exception list: an irregular form, then its
// bases.
func (lx *lexicon) readExceptions(path string, pos byte) error {
	return eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) < 2 {
			return nil
		}
		for _, base := range f[1:] {
			k := string(pos) + base
			if lx.forms[k] == nil {
				lx.forms[k] = map[string]bool{}
			}
			lx.forms[k][f[0]] = true
		}
		return nil
	})
}

// single reports whether a lemma is one plain word.
func single(lemma string) bool {
	if len(lemma) < 2 {
		return false
	}
	for _, r := range lemma {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// uses is how often SemCor tags a lemma in a synset, over all its senses.
func (lx *lexicon) uses(pos byte, lemma string) int {
	n := 0
	for _, off := range lx.senses[string(pos)+lemma] {
		for _, s := range lx.synsets[off].senses {
			if s.lemma == lemma {
				n += s.count
			}
		}
	}
	return n
}

// common reports whether a lemma is a plain word SemCor shows in use.
func (lx *lexicon) common(pos byte, lemma string) bool {
	return single(lemma) && lx.uses(pos, lemma) > 0
}

// relate computes, for every common lemma W, P(L | W) for the other common
// lemmas L of its synsets: the sum over W's senses S of P(S | W) × P(L |
// S), each estimated from tag counts plus one half.
func (lx *lexicon) relate() {
	lx.related = map[string]map[string]float64{}
	for key, offs := range lx.senses {
		pos, lemma := key[0], key[1:]
		if !lx.common(pos, lemma) {
			continue
		}
		var total float64
		own := make([]float64, len(offs))
		for i, off := range offs {
			for _, s := range lx.synsets[off].senses {
				if s.lemma == lemma {
					own[i] = float64(s.count) + 0.5
				}
			}
			total += own[i]
		}
		rel := map[string]float64{}
		for i, off := range offs {
			ss := lx.synsets[off]
			var sum float64
			for _, s := range ss.senses {
				sum += float64(s.count) + 0.5
			}
			for _, s := range ss.senses {
				// The synonym must be used in this sense, and be a plain
				// common word.
				if s.lemma == lemma || s.count == 0 || !single(s.lemma) {
					continue
				}
				rel[s.lemma] += own[i] / total * (float64(s.count) + 0.5) / sum
			}
		}
		if len(rel) > 0 {
			lx.related[key] = rel
		}
	}
}

// stem returns the lexeme to_tsvector('english', w) makes of each word w
// that it makes exactly one of ("" for a stop word).
func stem(ctx context.Context, database string, words []string) (map[string]string, error) {
	if database == "" {
		dir, err := os.MkdirTemp("", "wordnetgen-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		// The server may run as another user, who must enter the folder.
		if err := os.Chmod(dir, 0o755); err != nil {
			return nil, err
		}
		cluster, err := pglocal.Start(ctx, pglocal.Options{DataDir: dir + "/pg", Ephemeral: true,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			return nil, err
		}
		defer cluster.Stop(context.WithoutCancel(ctx))
		database = cluster.URL()
	}
	conn, err := pgx.Connect(ctx, database)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT w, coalesce((
		SELECT min(l) FROM unnest(tsvector_to_array(to_tsvector('english', w))) l
		HAVING count(*) = 1), '')
	FROM unnest($1::text[]) w`, words)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for rows.Next() {
		var w, s string
		if err := rows.Scan(&w, &s); err != nil {
			return nil, err
		}
		out[w] = s
	}
	return out, rows.Err()
}

func eachLine(path string, do func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if err := do(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// header opens the table: what it is, how it is read, and WordNet's
// licence, which asks that its notice go with every copy.
const header = `# Related words for recall's query expansion (memory/recall_expand.go),
# generated by memory/internal/wordnetgen from WordNet 3.0; do not edit.
#
# One line a word: its lexeme (as to_tsvector('english', ...) makes it), a
# tab, then groups separated by spaces, the most related first. A group
# starting with "=" holds the word's own irregular forms (went for go, go
# for went); every other group is a related word, then its irregular forms,
# separated by commas. A lexeme alone is a word WordNet knows that has
# neither: recall does not read it as a misspelling.
#
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
#
# WordNet Release 3.0 license: Permission to use, copy, modify and
# distribute this software and database and its documentation for any
# purpose and without fee or royalty is hereby granted, provided that you
# agree to comply with the following copyright notice and statements,
# including the disclaimer, and that the same appear on ALL copies of the
# software, database and documentation, including modifications that you
# make for internal use or for distribution.
#
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY
# MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF
# EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO
# REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS FOR ANY
# PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR
# DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS,
# TRADEMARKS OR OTHER RIGHTS.
#
# The name of Princeton University or Princeton may not be used in
# advertising or publicity pertaining to distribution of the software
# and/or database. Title to copyright in this software, database and any
# associated documentation shall at all times remain with Princeton
# University and LICENSEE agrees to preserve same.
`
