package classify

import (
	"regexp"
	"slices"
	"testing"
	"time"
)

// TestCanonicalKeys: every synonym reads as its concept's key, a canonical
// key reads as itself, a key outside the vocabulary is kept, and the
// vocabulary's keys are keys a fact may carry, none of them generic.
func TestCanonicalKeys(t *testing.T) {
	keyRe := regexp.MustCompile(`^[a-z0-9_.:-]{1,64}$`) // entity_facts_key_format
	for canonical, synonyms := range keyConcepts {
		if got := CanonicalKey(canonical); got != canonical {
			t.Errorf("CanonicalKey(%q) = %q, want itself", canonical, got)
		}
		if !keyRe.MatchString(canonical) || IsGenericKey(canonical) {
			t.Errorf("canonical key %q is not a key of its own (format or generic)", canonical)
		}
		for _, s := range synonyms {
			if got := CanonicalKey(s); got != canonical {
				t.Errorf("CanonicalKey(%q) = %q, want %q", s, got, canonical)
			}
			if _, ok := keyConcepts[s]; ok {
				t.Errorf("synonym %q is also a canonical key", s)
			}
			if IsGenericKey(s) {
				t.Errorf("synonym %q is a generic key", s)
			}
		}
	}
	for _, k := range []string{"employer", "company", "works_at", "employed_by"} {
		if got := CanonicalKey(k); got != "employer" {
			t.Errorf("CanonicalKey(%q) = %q, want employer", k, got)
		}
	}
	for _, k := range []string{"home_city", "lives_in", "city", "based_in"} {
		if got := CanonicalKey(k); got != "home_city" {
			t.Errorf("CanonicalKey(%q) = %q, want home_city", k, got)
		}
	}
	for _, k := range []string{"rma_policy", "replication_lag", "drink", "", "visited_city"} {
		if got := CanonicalKey(k); got != k {
			t.Errorf("CanonicalKey(%q) = %q, want it kept", k, got)
		}
	}
	single := SingleValuedKeys()
	if !slices.IsSorted(single) {
		t.Errorf("SingleValuedKeys() = %v, not sorted", single)
	}
	for _, k := range single {
		if IsGenericKey(k) || CanonicalKey(k) != k {
			t.Errorf("single-valued key %q is generic or a synonym", k)
		}
	}
}

// TestClassifiedKeysAreCanonical: the classifier names an attribute by its
// canonical key however the sentence puts it, and a text that says more
// than a bare statement keeps no single-valued key (it would replace the
// attribute's value on the strength of an aside).
func TestClassifiedKeysAreCanonical(t *testing.T) {
	for _, tc := range []struct{ text, key string }{
		{"I work at Globex.", "employer"},
		{"Dana works at Initech.", "employer"},
		{"I live in Leeds.", "home_city"},
		{"I moved to York.", "home_city"},
		{"Did I tell you I got a job at a bakery? I start next month and I'm thrilled.", ""},
		{"My sister moved to Seattle last month, so we all went out for dinner.", ""},
	} {
		if got := Classify(tc.text, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)).Key; got != tc.key {
			t.Errorf("Classify(%q).Key = %q, want %q", tc.text, got, tc.key)
		}
	}
}

// The keys the classifier names in text are the vocabulary's concepts, and
// the names writers give them read as those concepts.
func TestVocabularyNamesTheClassifiersKeys(t *testing.T) {
	for synonym, key := range map[string]string{
		"working_hours": "work_schedule", "shifts": "work_schedule", "nickname": "name", "full_name": "name",
		"subscription": "plan", "out_of_office": "availability", "current_location": "location",
		"preferred_contact": "contact_method", "meds": "medication", "workout": "exercise", "position": "occupation",
		"company_name": "employer", "cell_phone": "phone", "dietary_restrictions": "diet",
	} {
		if got := CanonicalKey(synonym); got != key {
			t.Errorf("CanonicalKey(%q) = %q, want %q", synonym, got, key)
		}
	}
	for _, a := range attributes {
		if _, ok := keyConcepts[a.key]; !ok {
			t.Errorf("the classifier names %q, which the vocabulary does not list", a.key)
		}
	}
}
