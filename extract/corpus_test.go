package extract_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/memory/classify"
)

// The corpus (testdata/corpus) is conversation snippets of the project's
// own, in four domains: support chats, coding sessions, personal-assistant
// conversations and ops incident channels. Each snippet is labelled with
// what a careful reviewer expects a mature memory store to keep from it:
// every fact with its entity, its key (the concept's canonical key, or ""
// when none applies), both axes and a substring of the sentence that
// states it; and the substrings of sentences that must yield no fact
// (acknowledgements, instructions, questions, hypotheticals, sarcasm,
// negations). concepts.json groups the paraphrases of one attribute that
// must get one key. The labels say what should happen, not what the
// extractor does today: TestCorpus measures the distance.

// corpusDomains are the domains, one file each.
var corpusDomains = []string{"support", "coding", "personal", "ops"}

type corpusFact struct {
	Entity     string `json:"entity"`
	Key        string `json:"key"`
	Durability string `json:"durability"`
	Category   string `json:"category"`
	Contains   string `json:"contains"`
}

type corpusSnippet struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	// Speaker is who "I" is; Entity what the sentences that name no subject
	// are about ("we", "the build"), as a caller of the API would pass them.
	Speaker  string       `json:"speaker,omitempty"`
	Entity   string       `json:"entity,omitempty"`
	Text     string       `json:"text"`
	Facts    []corpusFact `json:"facts"`
	NotFacts []string     `json:"not_facts"`
}

type corpusConcept struct {
	Concept     string `json:"concept"`
	Key         string `json:"key"`
	Description string `json:"description"`
	Paraphrases []struct {
		ID       string `json:"id"`
		Contains string `json:"contains"`
	} `json:"paraphrases"`
}

type corpus struct {
	snippets []corpusSnippet
	concepts []corpusConcept
	// canonical are the keys the labels name: a candidate that puts one of
	// them on a fact labelled with no key claims an attribute it does not
	// state.
	canonical map[string]bool
}

// Minimums of the corpus's size.
const (
	minSnippetsPerDomain = 50
	minConcepts          = 13
	minSentences         = 2
	maxSentences         = 6
)

var knownCategories = []string{memory.CategoryObservation, memory.CategoryPreference, memory.CategoryIdentity,
	memory.CategoryMood, memory.CategoryDecision, memory.CategoryRoutine, memory.CategoryState, memory.CategoryObligation}

// loadCorpus reads the corpus and fails the test on any malformed entry.
func loadCorpus(t *testing.T) corpus {
	t.Helper()
	dir := filepath.Join("testdata", "corpus")
	c := corpus{canonical: map[string]bool{}}
	ids := map[string]*corpusSnippet{}
	for _, domain := range corpusDomains {
		f, err := os.Open(filepath.Join(dir, domain+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		n := 0
		for line := 1; sc.Scan(); line++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var s corpusSnippet
			dec := json.NewDecoder(strings.NewReader(sc.Text()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&s); err != nil {
				t.Fatalf("%s.jsonl:%d: %v", domain, line, err)
			}
			checkSnippet(t, domain, s)
			if ids[s.ID] != nil {
				t.Errorf("%s: the id is used twice", s.ID)
			}
			c.snippets = append(c.snippets, s)
			ids[s.ID] = &c.snippets[len(c.snippets)-1]
			n++
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if n < minSnippetsPerDomain {
			t.Errorf("domain %s has %d snippets, want at least %d", domain, n, minSnippetsPerDomain)
		}
	}
	// ids points into c.snippets, which no longer grows.
	for i := range c.snippets {
		ids[c.snippets[i].ID] = &c.snippets[i]
		for _, f := range c.snippets[i].Facts {
			if f.Key != "" {
				c.canonical[f.Key] = true
			}
		}
	}

	raw, err := os.ReadFile(filepath.Join(dir, "concepts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cs struct {
		Concepts []corpusConcept `json:"concepts"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cs); err != nil {
		t.Fatalf("concepts.json: %v", err)
	}
	c.concepts = cs.Concepts
	if len(c.concepts) < minConcepts {
		t.Errorf("concepts.json has %d concepts, want at least %d", len(c.concepts), minConcepts)
	}
	keys := map[string]bool{}
	for _, k := range c.concepts {
		if keys[k.Key] || k.Key == "" {
			t.Errorf("concept %q: key %q is empty or used by another concept", k.Concept, k.Key)
		}
		keys[k.Key] = true
		c.canonical[k.Key] = true
		if len(k.Paraphrases) < 2 {
			t.Errorf("concept %q has %d paraphrases, want several", k.Concept, len(k.Paraphrases))
		}
		for _, p := range k.Paraphrases {
			s := ids[p.ID]
			if s == nil {
				t.Errorf("concept %q: no snippet %s", k.Concept, p.ID)
				continue
			}
			i := slices.IndexFunc(s.Facts, func(f corpusFact) bool { return f.Contains == p.Contains })
			if i < 0 || s.Facts[i].Key != k.Key {
				t.Errorf("concept %q: snippet %s has no fact %q labelled with key %s", k.Concept, p.ID, p.Contains, k.Key)
			}
		}
	}
	return c
}

// checkSnippet checks one snippet of domain's file.
func checkSnippet(t *testing.T, domain string, s corpusSnippet) {
	t.Helper()
	if s.ID == "" || s.Domain != domain {
		t.Errorf("%s.jsonl: snippet %q has domain %q, want an id and domain %s", domain, s.ID, s.Domain, domain)
	}
	if n := countSentences(s.Text); n < minSentences || n > maxSentences {
		t.Errorf("%s: %d sentences, want %d to %d", s.ID, n, minSentences, maxSentences)
	}
	lower := strings.ToLower(s.Text)
	for _, f := range s.Facts {
		if f.Contains == "" || !strings.Contains(lower, strings.ToLower(f.Contains)) {
			t.Errorf("%s: fact %q does not occur in the text", s.ID, f.Contains)
		}
		if strings.TrimSpace(f.Entity) == "" {
			t.Errorf("%s: fact %q names no entity", s.ID, f.Contains)
		}
		d, err := memory.ParseDurability(f.Durability)
		if err != nil {
			t.Errorf("%s: fact %q: %v", s.ID, f.Contains, err)
		}
		if !slices.Contains(knownCategories, f.Category) {
			t.Errorf("%s: fact %q: category %q is none of %v", s.ID, f.Contains, f.Category, knownCategories)
		}
		if err == nil && memory.ClampDurability(f.Category, d) != d {
			t.Errorf("%s: fact %q: a %s is never %s", s.ID, f.Contains, f.Category, d)
		}
		if _, err := memory.ParseKey(f.Key); err != nil {
			t.Errorf("%s: fact %q: %v", s.ID, f.Contains, err)
		}
	}
	for _, nf := range s.NotFacts {
		if nf == "" || !strings.Contains(lower, strings.ToLower(nf)) {
			t.Errorf("%s: not-fact %q does not occur in the text", s.ID, nf)
		}
		for _, f := range s.Facts {
			if strings.Contains(strings.ToLower(f.Contains), strings.ToLower(nf)) ||
				strings.Contains(strings.ToLower(nf), strings.ToLower(f.Contains)) {
				t.Errorf("%s: %q is both a fact and a not-fact", s.ID, nf)
			}
		}
	}
}

// countSentences counts the sentences of a snippet: its lines, split after
// '.', '!' or '?' followed by a space.
func countSentences(text string) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		for _, part := range strings.FieldsFunc(strings.NewReplacer(". ", ".\x00", "! ", "!\x00", "? ", "?\x00").Replace(line),
			func(r rune) bool { return r == 0 }) {
			if strings.ContainsFunc(part, func(r rune) bool { return r >= 'A' && r <= 'z' }) {
				n++
			}
		}
	}
	return n
}

// corpusScore is what an extractor achieved on a set of snippets.
type corpusScore struct {
	snippets, facts, found                  int
	durability, category, both, entity, key int
	falseFacts                              int
	notFacts, notFactsKept                  int
	errors                                  int
	// concepts with one key, of all concepts (overall only)
	conceptsOneKey, concepts int
}

func (s *corpusScore) add(o corpusScore) {
	s.snippets += o.snippets
	s.facts += o.facts
	s.found += o.found
	s.durability += o.durability
	s.category += o.category
	s.both += o.both
	s.entity += o.entity
	s.key += o.key
	s.falseFacts += o.falseFacts
	s.notFacts += o.notFacts
	s.notFactsKept += o.notFactsKept
	s.errors += o.errors
}

// pct is n of s.facts, in percent.
func (s corpusScore) pct(n int) float64 {
	if s.facts == 0 {
		return 0
	}
	return 100 * float64(n) / float64(s.facts)
}

// foldEntity is an entity's name for comparison: lowercase, white space
// collapsed.
func foldEntity(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// matchedKey records the key a candidate gave the fact (snippet id,
// contains), for the concepts.
type factRef struct{ id, contains string }

// scoreSnippet scores one snippet's candidates against its labels; keys
// collects the key of each matched fact.
func (c corpus) scoreSnippet(s corpusSnippet, cands []extract.Candidate, keys map[factRef]string, misses *[]string) corpusScore {
	sc := corpusScore{snippets: 1, facts: len(s.Facts), notFacts: len(s.NotFacts)}
	// A retraction ("I no longer live in Berlin") files no fact: it retires
	// the value it denies. It is what a negation should become, neither a
	// fact found nor a not-fact kept.
	cands = slices.DeleteFunc(slices.Clone(cands), func(c extract.Candidate) bool { return c.Retraction })
	used := make([]bool, len(cands))
	for _, f := range s.Facts {
		want := strings.ToLower(f.Contains)
		best, bestScore := -1, -1
		for i, cand := range cands {
			if used[i] || !strings.Contains(strings.ToLower(cand.Content), want) {
				continue
			}
			score := 0
			if c.keyRight(f, cand.Key) {
				score += 4
			}
			if cand.Category == f.Category {
				score += 2
			}
			if cand.Durability == f.Durability {
				score++
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			*misses = append(*misses, fmt.Sprintf("%s: missed %q (%s %s %s %s)", s.ID, f.Contains, f.Entity, f.Key, f.Category, f.Durability))
			continue
		}
		used[best] = true
		cand := cands[best]
		keys[factRef{s.ID, f.Contains}] = cand.Key
		sc.found++
		d, cat := cand.Durability == f.Durability, cand.Category == f.Category
		e, k := foldEntity(cand.Entity) == foldEntity(f.Entity), c.keyRight(f, cand.Key)
		sc.durability += b2i(d)
		sc.category += b2i(cat)
		sc.both += b2i(d && cat)
		sc.entity += b2i(e)
		sc.key += b2i(k)
		if !d || !cat || !e || !k {
			*misses = append(*misses, fmt.Sprintf("%s: %q got {%s %s %s %s}, want {%s %s %s %s}", s.ID, f.Contains,
				cand.Entity, cand.Key, cand.Category, cand.Durability, f.Entity, f.Key, f.Category, f.Durability))
		}
	}
	kept := make([]bool, len(s.NotFacts))
	for i, cand := range cands {
		if used[i] {
			continue
		}
		content := strings.ToLower(cand.Content)
		notFact := false
		bare := strings.Trim(content, " .!?")
		for j, nf := range s.NotFacts {
			// The extractor may have stripped a greeting off the sentence
			// ("Thanks a lot, that's perfect!"): either holds the other.
			if nf := strings.ToLower(nf); strings.Contains(content, nf) || bare != "" && strings.Contains(nf, bare) {
				kept[j], notFact = true, true
			}
		}
		if !notFact {
			sc.falseFacts++
			*misses = append(*misses, fmt.Sprintf("%s: false fact %q {%s %s %s %s}", s.ID, cand.Content,
				cand.Entity, cand.Key, cand.Category, cand.Durability))
		} else {
			*misses = append(*misses, fmt.Sprintf("%s: not-fact kept %q {%s %s %s}", s.ID, cand.Content,
				cand.Key, cand.Category, cand.Durability))
		}
	}
	for _, k := range kept {
		sc.notFactsKept += b2i(k)
	}
	return sc
}

// keyRight reports whether a candidate's key is right for f: the label's
// key; for a fact labelled with none, no key, a generic one (status,
// deadline...) or a key of its own (a decision's topic), but not the key of
// an attribute the fact does not state.
func (c corpus) keyRight(f corpusFact, key string) bool {
	if f.Key != "" {
		return key == f.Key
	}
	return key == "" || classify.IsGenericKey(key) || !c.canonical[key]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runCorpus extracts every snippet with e and scores it, per domain and
// overall (the last row).
func (c corpus) runCorpus(t *testing.T, e extract.Extractor) (map[string]corpusScore, corpusScore, []string, []string) {
	t.Helper()
	byDomain := map[string]corpusScore{}
	keys := map[factRef]string{}
	var misses []string
	for _, s := range c.snippets {
		cands, err := extract.ExtractFor(context.Background(), e, s.Text, s.Entity, s.Speaker, testNow)
		if err != nil {
			t.Logf("%s: %s extraction failed: %v", s.ID, e.Name(), err)
			d := byDomain[s.Domain]
			d.add(corpusScore{snippets: 1, facts: len(s.Facts), notFacts: len(s.NotFacts), errors: 1})
			byDomain[s.Domain] = d
			continue
		}
		d := byDomain[s.Domain]
		d.add(c.scoreSnippet(s, cands, keys, &misses))
		byDomain[s.Domain] = d
	}
	var all corpusScore
	for _, d := range corpusDomains {
		all.add(byDomain[d])
	}
	var conceptLines []string
	all.concepts = len(c.concepts)
	for _, k := range c.concepts {
		var got []string
		one := true
		for _, p := range k.Paraphrases {
			key, ok := keys[factRef{p.ID, p.Contains}]
			if !ok {
				key, one = "(missed)", false
			}
			got = append(got, key)
		}
		if one {
			for _, key := range got {
				one = one && key != "" && key == got[0]
			}
		}
		all.conceptsOneKey += b2i(one)
		conceptLines = append(conceptLines, fmt.Sprintf("%-18s %-5v %s", k.Concept, one, strings.Join(got, ", ")))
	}
	return byDomain, all, misses, conceptLines
}

// corpusTable is the Markdown table of the scores, ready for QUALITY.md.
func (c corpus) corpusTable(mode string, byDomain map[string]corpusScore, all corpusScore) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Extractor %s on the corpus (%d snippets, %d expected facts, %d not-facts):\n\n",
		mode, all.snippets, all.facts, all.notFacts)
	b.WriteString("| domain | snippets | facts | found | durability right | category right | both right | entity right | key right | false facts | not-facts kept |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	row := func(name string, s corpusScore) {
		fmt.Fprintf(&b, "| %s | %d | %d | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %d | %d of %d |\n",
			name, s.snippets, s.facts, s.pct(s.found), s.pct(s.durability), s.pct(s.category), s.pct(s.both),
			s.pct(s.entity), s.pct(s.key), s.falseFacts, s.notFactsKept, s.notFacts)
	}
	for _, d := range corpusDomains {
		row(d, byDomain[d])
	}
	row("**all**", all)
	fmt.Fprintf(&b, "\nConcepts filed under one key across their paraphrases: %d of %d.\n", all.conceptsOneKey, all.concepts)
	if all.errors > 0 {
		fmt.Fprintf(&b, "Snippets whose extraction failed: %d.\n", all.errors)
	}
	return b.String()
}

// report logs the table and the details, and appends the table to the
// file TENURE_CORPUS_REPORT names, when set.
func report(t *testing.T, table string, misses, concepts []string) {
	t.Helper()
	t.Log("\n" + table)
	if testing.Verbose() {
		t.Log("concepts (one key, keys of the paraphrases):\n" + strings.Join(concepts, "\n"))
		t.Log("differences from the labels:\n" + strings.Join(misses, "\n"))
	}
	if path := os.Getenv("TENURE_CORPUS_REPORT"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Errorf("corpus report: %v", err)
			return
		}
		defer f.Close()
		fmt.Fprintf(f, "%s\n", table)
	}
}

// corpusFloors are the rule-based extractor's scores on the corpus as
// measured when the corpus was written, each set just below the figure it
// reached then. They are a guard against regressions, not goals: the
// goals (both axes and entity at least 90%, one key for 11 of 13 concepts,
// no false facts, no not-fact kept) are far above some of them. Raise a
// floor when the extractor improves; never lower one to make a change pass
// without saying why.
var corpusFloors = struct {
	found, durability, category, both, entity, key float64 // percent of the expected facts
	conceptsOneKey                                 int
	falseFacts, notFactsKept                       int // ceilings
}{
	// measured when the corpus was written: found 93%, durability 64%,
	// category 62%, both 61%, entity 70%, key 72%; 4 concepts of 16 under
	// one key; 5 false facts; 72 not-facts of 195 kept. Raised after the
	// not-fact, entity and classifier rules: found 93%, durability 75%,
	// category 73%, both 72%, entity 91%, key 73%; 4 concepts; 0 false
	// facts; 19 not-facts kept. Raised again after the attribute table, the
	// conversation rules (faults, roles held for now, commitments, the
	// decision line) and retractions: found 94%, durability 92%, category
	// 92%, both 92%, entity 92%, key 92%; 11 concepts; 0 false facts; 5
	// not-facts kept. Raised after a sentence's other lasting attributes
	// became candidates of their own (AlsoStated): found 96%, durability
	// 94%, category 94%, both 93%, entity 94%, key 94%; 12 concepts.
	found: 94, durability: 92, category: 92, both: 91, entity: 92, key: 92,
	conceptsOneKey: 12,
	falseFacts:     0, notFactsKept: 7,
}

// TestCorpus scores the rule-based extractor on the corpus, per domain and
// overall, and logs the table (go test -run TestCorpus -v ./extract/). With
// TENURE_LLM_URL and TENURE_LLM_MODEL set (and TENURE_LLM_KEY when the
// endpoint needs one) it scores the LLM extractor on the same corpus too;
// without them only that part is skipped.
func TestCorpus(t *testing.T) {
	c := loadCorpus(t)
	if t.Failed() {
		t.FailNow()
	}

	t.Run("rules", func(t *testing.T) {
		byDomain, all, misses, concepts := c.runCorpus(t, extract.Rules{})
		report(t, c.corpusTable(extract.ModeRules, byDomain, all), misses, concepts)
		f := corpusFloors
		for _, m := range []struct {
			name       string
			got, floor float64
		}{
			{"found", all.pct(all.found), f.found},
			{"durability right", all.pct(all.durability), f.durability},
			{"category right", all.pct(all.category), f.category},
			{"both right", all.pct(all.both), f.both},
			{"entity right", all.pct(all.entity), f.entity},
			{"key right", all.pct(all.key), f.key},
		} {
			if m.got < m.floor {
				t.Errorf("%s: %.1f%% of the corpus's facts, below the floor of %.0f%%", m.name, m.got, m.floor)
			}
		}
		if all.conceptsOneKey < f.conceptsOneKey {
			t.Errorf("concepts with one key: %d, below the floor of %d", all.conceptsOneKey, f.conceptsOneKey)
		}
		if all.falseFacts > f.falseFacts {
			t.Errorf("false facts: %d, above the ceiling of %d", all.falseFacts, f.falseFacts)
		}
		if all.notFactsKept > f.notFactsKept {
			t.Errorf("not-facts kept: %d, above the ceiling of %d", all.notFactsKept, f.notFactsKept)
		}
		if all.errors > 0 {
			t.Errorf("the rule-based extractor failed on %d snippets; it never fails", all.errors)
		}
	})

	// The LLM mode is scored only against an endpoint someone configured:
	// a model is not part of the test suite's machine, so without one the
	// subtest is not run at all (nothing is skipped).
	cfg := extract.Config{URL: os.Getenv("TENURE_LLM_URL"), Model: os.Getenv("TENURE_LLM_MODEL"),
		Key: os.Getenv("TENURE_LLM_KEY"), Timeout: time.Minute}
	if !cfg.Configured() {
		t.Log("mode llm not scored: set TENURE_LLM_URL and TENURE_LLM_MODEL to score it on the corpus")
		return
	}
	t.Run("llm", func(t *testing.T) {
		l, err := extract.NewLLM(cfg)
		if err != nil {
			t.Fatal(err)
		}
		byDomain, all, misses, concepts := c.runCorpus(t, l)
		report(t, c.corpusTable(extract.ModeLLM, byDomain, all), misses, concepts)
		// A model's answers vary between models and versions: the scores are
		// reported, not held to floors; only an endpoint that fails every
		// snippet fails the test.
		if all.errors == all.snippets {
			t.Errorf("the LLM endpoint failed on every snippet")
		}
	})
}
