package extract_test

import (
	"slices"
	"testing"

	"github.com/tenurehq/tenure/extract"
)

// TestRulesSkipNotFacts: of a snippet of conversation, only the sentences
// that state a fact become candidates; questions, acknowledgements,
// instructions, hypotheticals and sarcasm do not, and a negation becomes a
// retraction of the value it denies (denies: key=value), never a fact.
func TestRulesSkipNotFacts(t *testing.T) {
	tests := []struct {
		name, text, entity, speaker string
		want                        []want
	}{
		{"ops incident", "Incident closed. Do not reopen this. billing-db replication lag recovered.", "", "",
			[]want{{"billing-db", "replication_lag", "state", ""}}},
		{"hypothetical", "If I moved to Paris I'd learn French. I live in Lyon.", "", "",
			[]want{{"user", "home_city", "observation", "I live in Lyon."}}},
		{"sarcasm", "Oh great, another Monday on call. I just love being paged at 3am. I work nights.", "", "",
			[]want{{"user", "work_schedule", "routine", "I work nights."}}},
		{"request and thanks", "Can you summarise the thread. Thanks for the quick fix! Sam is the on-call engineer this week.", "", "",
			[]want{{"Sam", "on_call", "state", "Sam is the on-call engineer this week."}}},
		{"negation", "I don't live in Berlin anymore. I moved to Hamburg.", "", "",
			[]want{{"user", "home_city", "observation", "I moved to Hamburg."}}},
		{"support chat",
			"Customer: Hi, I can't log in since the update.\nAgent: Sorry about that! Could you clear your cache?\n" +
				"Customer: Ok, done. Still broken. I'm on the Pro plan, if that matters.\nCustomer: Thanks for the help!",
			"", "Dana",
			[]want{{"Dana", "status", "state", "I can't log in since the update."}, {"Dana", "status", "state", "Still broken."},
				{"Dana", "plan", "observation", "I'm on the Pro plan, if that matters."}}},
		{"coding session",
			"Please don't merge that PR yet. Maybe we should switch to pnpm. We decided to use Vitest instead of Jest. LGTM.",
			"Acme", "",
			[]want{{"Acme", "choice_jest_vitest", "decision", ""}}},
		{"personal assistant",
			"Remind me to renew the passport in two weeks. I'm thinking about moving to Lisbon. I'm not vegetarian anymore. " +
				"I'm allergic to shellfish.", "", "Jordan",
			[]want{{"Jordan", "deadline", "obligation", ""}, {"Jordan", "allergy", "identity", ""}}},
		{"a greeting does not hide the rest", "Hey Claude, can you check the deploy logs. Thanks, I'm based in Denver.", "", "",
			[]want{{"user", "home_city", "observation", "I'm based in Denver."}}},
		{"cheers and imperatives", "Congratulations! Roll back the last deploy. Add eggs to my grocery list. I'm vegan.", "", "",
			[]want{{"user", "diet", "identity", "I'm vegan."}}},
	}
	// The retractions each snippet makes (key=value denied), by name.
	retractions := map[string][]string{"negation": {"home_city=Berlin"}, "personal assistant": {"diet=vegetarian"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var facts []extract.Candidate
			var denies []string
			for _, c := range rulesExtract(t, tt.text, tt.entity, tt.speaker) {
				if c.Retraction {
					denies = append(denies, c.Key+"="+c.Denies)
					continue
				}
				facts = append(facts, c)
			}
			checkCandidates(t, tt.text, facts, tt.want)
			if !slices.Equal(denies, retractions[tt.name]) {
				t.Errorf("%q: retractions %q, want %q", tt.text, denies, retractions[tt.name])
			}
		})
	}
}

// TestRulesSentenceSplitting: a title before a name and a command line's
// package pattern end no sentence, so neither becomes a fragment of its own;
// a unit after a number still ends one.
func TestRulesSentenceSplitting(t *testing.T) {
	tests := []struct {
		text, entity string
		want         []string
	}{
		{"My dentist is Dr. Patel on Elm Street. I'm allergic to latex.", "",
			[]string{"My dentist is Dr. Patel on Elm Street.", "I'm allergic to latex."}},
		{"Our vet is Mrs. Okafor.", "", []string{"Our vet is Mrs. Okafor."}},
		{"api-gateway latency is 300 ms. It's back to normal.", "",
			[]string{"api-gateway latency is 300 ms.", "It's back to normal."}},
		{"go test ./... ok example.org/shop/cart 0.12s\ngo test ./... FAIL example.org/shop/pay 0.30s", "shop",
			[]string{"go test ./... ok example.org/shop/cart 0.12s", "go test ./... FAIL example.org/shop/pay 0.30s"}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range rulesExtract(t, tt.text, tt.entity, "") {
			got = append(got, c.Content)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: candidates %q, want %q", tt.text, got, tt.want)
		}
	}
}
