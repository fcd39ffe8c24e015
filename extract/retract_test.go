package extract_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// retractions are the retraction candidates of text, by the rule-based
// extractor, and how many candidates it found in all.
func retractions(t *testing.T, text, speaker string) ([]extract.Candidate, int) {
	t.Helper()
	cands, err := extract.Rules{}.ExtractAs(context.Background(), text, "", speaker, time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var out []extract.Candidate
	for _, c := range cands {
		if c.Retraction {
			out = append(out, c)
		}
	}
	return out, len(cands)
}

// TestRulesRetraction: a negation becomes a retraction candidate,
// attributed like any other sentence, naming the attribute it denies and
// the value; a statement is no retraction.
func TestRulesRetraction(t *testing.T) {
	for _, tc := range []struct{ text, speaker, entity, key, denies string }{
		{"I no longer live in Berlin.", "", memory.UserEntity, "home_city", "Berlin"},
		{"I'm not vegetarian anymore.", "Grace", "Grace", "diet", "vegetarian"},
		{"I quit my job at Acme.", "", memory.UserEntity, "employer", "Acme"},
		{"Jordan no longer works at Acme.", "", "Jordan", "employer", "Acme"},
		{"I used to be a nurse.", "Sam", "Sam", "occupation", "nurse"},
		{"I stopped drinking coffee.", "", memory.UserEntity, "drink", "coffee"},
	} {
		got, _ := retractions(t, tc.text, tc.speaker)
		if len(got) != 1 {
			t.Errorf("%q: %d retractions, want 1: %+v", tc.text, len(got), got)
			continue
		}
		c := got[0]
		if c.Entity != tc.entity || c.Key != tc.key || c.Denies != tc.denies || c.Reason == "" {
			t.Errorf("%q: retraction {%s %s %q} (%s), want {%s %s %q}", tc.text, c.Entity, c.Key, c.Denies, c.Reason,
				tc.entity, tc.key, tc.denies)
		}
	}
	for _, text := range []string{"I live in Berlin.", "I'm not a nurse anymore, I'm a teacher.", "The VPN is no longer flaky."} {
		if got, _ := retractions(t, text, ""); len(got) != 0 {
			t.Errorf("%q: retractions %+v, want none", text, got)
		}
	}
}

// TestRulesRetractionBesideFacts: a text that states one value and denies
// another yields a fact and a retraction, each of its own sentence.
func TestRulesRetractionBesideFacts(t *testing.T) {
	got, all := retractions(t, "I live in Denver. I quit my job at Initech. Can you update my profile?", "Ana")
	if all != 2 || len(got) != 1 || got[0].Content != "I quit my job at Initech." || got[0].Denies != "Initech" {
		t.Errorf("candidates: %d, retractions %+v; want the Denver fact and the Initech retraction", all, got)
	}
}

// TestRetractionNode: stored, a retraction is a working row whose
// properties name the key and the value denied, which consolidation reads
// as a denial (memory/retract.go); a fact's row names no denial.
func TestRetractionNode(t *testing.T) {
	got, _ := retractions(t, "I no longer live in Berlin.", "")
	if len(got) != 1 {
		t.Fatalf("retractions = %+v, want 1", got)
	}
	n := got[0].Node(extract.ModeRules)
	if n.Properties["key"] != "home_city" || n.Properties["denies"] != "Berlin" || n.Properties["entity"] != memory.UserEntity {
		t.Errorf("node properties = %v, want key home_city, denies Berlin, entity user", n.Properties)
	}
	fact := extract.Candidate{Content: "I live in Berlin.", Entity: "user", Key: "home_city", Category: "observation",
		Durability: "long_term"}.Node(extract.ModeRules)
	if _, ok := fact.Properties["denies"]; ok {
		t.Errorf("a fact's row says it denies: %v", fact.Properties)
	}
}
