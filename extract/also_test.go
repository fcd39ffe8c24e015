package extract_test

import "testing"

// TestRulesOneCandidatePerAttribute: a sentence that states two lasting
// attributes ("the finance lead at Bluefin Logistics") gives one candidate
// for each, on the same entity; a passing routine beside an employer gives
// none of its own.
func TestRulesOneCandidatePerAttribute(t *testing.T) {
	text := "Customer: Hi, I'm the finance lead at Bluefin Logistics. I'm so tired today."
	checkCandidates(t, text, rulesExtract(t, text, "", "Dana Whitfield"), []want{
		{"Dana Whitfield", "occupation", "identity", "I'm the finance lead at Bluefin Logistics."},
		{"Dana Whitfield", "employer", "observation", "I'm the finance lead at Bluefin Logistics."},
		{"Dana Whitfield", "mood", "mood", "I'm so tired today."},
	})
	text = "My company, Maple Health, is letting me work remotely."
	checkCandidates(t, text, rulesExtract(t, text, "", "Aisha Khan"), []want{
		{"Aisha Khan", "employer", "observation", "My company, Maple Health, is letting me work remotely."},
	})
}
