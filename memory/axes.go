// Package memory is Tenure's domain: the two axes of a fact (durability and
// category), the durability marker of working rows, decay, decisions and
// consolidation. It knows PostgreSQL through the generated queries and nothing
// of HTTP or HTML.
package memory

import (
	"regexp"

	"github.com/tenurehq/tenure/memory/classify"
)

// Durability is how long a fact naturally persists; it sets its decay rate.
// It is defined by the classifier, which assigns it (package classify).
type Durability = classify.Durability

// The four durabilities, from slowest to fastest decay.
const (
	Permanent = classify.Permanent
	LongTerm  = classify.LongTerm
	ShortTerm = classify.ShortTerm
	Ephemeral = classify.Ephemeral
)

// Durabilities lists every durability in order of decreasing persistence.
func Durabilities() []Durability {
	return []Durability{Permanent, LongTerm, ShortTerm, Ephemeral}
}

// ParseDurability validates s; the empty string is refused too, so callers
// decide on defaults explicitly.
func ParseDurability(s string) (Durability, error) {
	for _, d := range Durabilities() {
		if string(d) == s {
			return d, nil
		}
	}
	return "", Invalidf("durability", "unknown durability %q: allowed values are permanent, long_term, short_term, ephemeral", s)
}

// Suggested categories; any lowercase slug is accepted.
const (
	CategoryObservation = classify.CategoryObservation
	CategoryPreference  = classify.CategoryPreference
	CategoryIdentity    = classify.CategoryIdentity
	CategoryMood        = classify.CategoryMood
	CategoryDecision    = classify.CategoryDecision
	CategoryRoutine     = classify.CategoryRoutine
	CategoryState       = classify.CategoryState
	CategoryObligation  = classify.CategoryObligation
)

// SuggestedCategories lists the categories the product knows by name.
func SuggestedCategories() []string {
	return []string{
		CategoryObservation, CategoryPreference, CategoryIdentity, CategoryMood,
		CategoryDecision, CategoryRoutine, CategoryState, CategoryObligation,
	}
}

var categoryPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// ParseCategory validates a category slug: a lowercase letter, then up to 39
// lowercase letters, digits or underscores.
func ParseCategory(s string) (string, error) {
	if !categoryPattern.MatchString(s) {
		return "", Invalidf("category", "invalid category %q: use a lowercase slug of letters, digits and underscores starting with a letter, at most 40 characters (for example observation, preference, mood)", s)
	}
	return s, nil
}

// Status is whether a fact is live or archived (never deleted).
type Status string

// The two statuses.
const (
	StatusActive   Status = "active"
	StatusArchived Status = "archived"
)

// ParseStatus validates s.
func ParseStatus(s string) (Status, error) {
	switch Status(s) {
	case StatusActive, StatusArchived:
		return Status(s), nil
	}
	return "", Invalidf("status", "unknown status %q: allowed values are active, archived", s)
}

var scopePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_.:-]{0,62}$`)

// ParseScope validates a scope name.
func ParseScope(s string) (string, error) {
	if !scopePattern.MatchString(s) {
		return "", Invalidf("scope", "invalid scope %q: use 1 to 63 lowercase letters, digits, '_', '.', ':' or '-', starting with a letter or digit", s)
	}
	return s, nil
}

var factKeyPattern = regexp.MustCompile(`^[a-z0-9_.:-]{0,64}$`)

// ParseKey validates a fact's key, the short predicate such as lives_in; the
// empty key is allowed.
func ParseKey(s string) (string, error) {
	if !factKeyPattern.MatchString(s) {
		return "", Invalidf("key", "invalid key %q: use up to 64 lowercase letters, digits, '_', '.', ':' or '-' (for example lives_in)", s)
	}
	return s, nil
}
