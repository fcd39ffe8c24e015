package mcpserver

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory"
)

// Candidate is a fact extraction found in a text, classified on both axes,
// before it is written: written, it becomes a working row whose properties
// guide consolidation, so it passes the same gates as any other row.
type Candidate struct {
	Content    string            `json:"content" jsonschema:"the sentence the fact comes from"`
	Entity     string            `json:"entity,omitempty" jsonschema:"who or what the fact is about, when known"`
	Key        string            `json:"key,omitempty" jsonschema:"a short predicate such as lives_in"`
	Category   string            `json:"category" jsonschema:"observation, preference, identity, mood, decision, routine, state or obligation"`
	Durability memory.Durability `json:"durability" jsonschema:"how long the fact naturally persists: permanent, long_term, short_term or ephemeral"`
	Deadline   *time.Time        `json:"deadline,omitempty" jsonschema:"for obligations that name a date"`
	// Alternatives and Reasoning are set for decisions.
	Alternatives []string `json:"alternatives,omitempty" jsonschema:"for decisions: the options rejected"`
	Reasoning    string   `json:"reasoning,omitempty" jsonschema:"for decisions: why"`
	Reason       string   `json:"reason" jsonschema:"why the classifier chose these axes"`
}

// Extractor turns text into candidate facts. entity, when not empty, is who
// or what the text is about; now reads relative dates ("tomorrow").
type Extractor interface {
	// Name names the extractor in the metadata of the rows it writes.
	Name() string
	Extract(ctx context.Context, text, entity string, now time.Time) ([]Candidate, error)
}

// OfflineExtractor is the default Extractor: it splits a text into
// sentences and classifies each with memory.Classify, with no network.
// Questions are not facts and are skipped.
type OfflineExtractor struct{}

// maxCandidates bounds what one text yields.
const maxCandidates = 200

// Name implements Extractor.
func (OfflineExtractor) Name() string { return "offline" }

// Extract implements Extractor.
func (OfflineExtractor) Extract(_ context.Context, text, entity string, now time.Time) ([]Candidate, error) {
	var out []Candidate
	for _, s := range sentences(text) {
		if len(out) == maxCandidates {
			break
		}
		c := memory.Classify(s, now)
		out = append(out, Candidate{
			Content: s, Entity: entity, Key: c.Key, Category: c.Category, Durability: c.Durability,
			Deadline: c.Deadline, Alternatives: c.Alternatives, Reasoning: c.Reasoning, Reason: c.Reason,
		})
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

// node is the working row that carries c into consolidation: the axes ride
// in the properties consolidation reads (entity, key, category,
// fact_durability, deadline, alternatives, reasoning).
func (c Candidate) node(extractor string) memory.NewNode {
	props := map[string]any{"category": c.Category, "fact_durability": string(c.Durability)}
	if c.Entity != "" {
		props["entity"] = c.Entity
	}
	if c.Key != "" {
		props["key"] = c.Key
	}
	if c.Deadline != nil {
		props["deadline"] = c.Deadline.UTC().Format(time.RFC3339)
	}
	if len(c.Alternatives) > 0 {
		props["alternatives"] = c.Alternatives
	}
	if c.Reasoning != "" {
		props["reasoning"] = c.Reasoning
	}
	return memory.NewNode{
		Content:    c.Content,
		Metadata:   map[string]any{"extracted_by": extractor, "reason": c.Reason},
		Properties: props,
	}
}
