package extract

import (
	"strings"
	"testing"

	"github.com/tenurehq/tenure/memory/classify"
)

// A single-valued key the vocabulary gains is in the prompt at once, marked,
// even before a group of keyGroups lists it.
func TestKeyVocabularyTakesNewKeys(t *testing.T) {
	single := append(classify.SingleValuedKeys(), "shoe_size")
	got := keyVocabulary(single)
	if !strings.Contains(got, "\n- other: shoe_size*") {
		t.Errorf("a new single-valued key is not listed:\n%s", got)
	}
	if !strings.Contains(got, "employer* (not company, works_at)") {
		t.Errorf("employer is not listed with its synonyms:\n%s", got)
	}
	// Hints are for listed keys only: a hint left for a key no group
	// lists is stale.
	listed := map[string]bool{}
	for _, g := range keyGroups {
		for _, k := range g.keys {
			listed[k] = true
		}
	}
	for k := range keyHints {
		if !listed[k] {
			t.Errorf("keyHints holds %s, which no group lists", k)
		}
	}
}
