package extract

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory"
)

// Rules is the default Extractor: it splits a text into sentences and
// classifies each with memory.Classify, with no network. Questions are not
// facts and are skipped. It never fails.
type Rules struct{}

// Name implements Extractor.
func (Rules) Name() string { return ModeRules }

// Extract implements Extractor.
func (Rules) Extract(_ context.Context, text, entity string, now time.Time) ([]Candidate, error) {
	var out []Candidate
	for _, s := range sentences(text) {
		if len(out) == maxCandidates {
			break
		}
		c := memory.Classify(s, now)
		out = append(out, clamp(Candidate{
			Content: s, Entity: entity, Key: c.Key, Category: c.Category, Durability: string(c.Durability),
			Deadline: c.Deadline, Alternatives: c.Alternatives, Reasoning: c.Reasoning, Reason: c.Reason,
		}))
	}
	return out, nil
}

// sentences splits text at line breaks and at '.', '!' or '?' followed by
// white space, keeping the punctuation; it drops questions and fragments
// without a letter.
func sentences(text string) []string {
	var out []string
	keep := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" || strings.HasSuffix(s, "?") || !strings.ContainsFunc(s, unicode.IsLetter) {
			return
		}
		out = append(out, s)
	}
	for _, line := range strings.Split(text, "\n") {
		start := 0
		for i, r := range line {
			if r != '.' && r != '!' && r != '?' {
				continue
			}
			next, _ := utf8.DecodeRuneInString(line[i+1:])
			if i+1 < len(line) && !unicode.IsSpace(next) {
				continue
			}
			keep(line[start : i+1])
			start = i + 1
		}
		keep(line[start:])
	}
	return out
}
