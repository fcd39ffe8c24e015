package memory

import (
	"time"

	"github.com/tenurehq/tenure/memory/classify"
)

// The offline, rule-based classifier lives in package classify; these names
// keep it reachable as memory.Classify for the extractors and the store.

// Classification is the classifier's verdict on one text.
type Classification = classify.Classification

// Classify classifies text as of now. It is deterministic and never fails.
// Dates without a year, weekdays and relative phrases ("tomorrow", "in two
// weeks") are read relative to now, in UTC.
func Classify(text string, now time.Time) Classification { return classify.Classify(text, now) }

// Resolves reports whether text says that something recovered, was
// resolved or is back to normal ("It recovered at 10:05", "back to normal"):
// a state that resolves an earlier one, whose key it should keep.
func Resolves(text string) bool { return classify.Resolves(text) }

// NotFact reports whether text, which Classify classified as c, states no
// fact, and what it is instead: a question, an acknowledgement, an
// instruction, a hypothetical, sarcasm, or a negation, for which retracts
// is the key of the attribute it denies. It returns "" for a fact.
func NotFact(text string, c Classification) (kind, retracts string) { return classify.NotFact(text, c) }

// AlsoStated lists the lasting attributes a one-sentence text states
// besides key, the attribute its fact is filed under ("the finance lead at
// Bluefin Logistics": an employer beside the occupation), with their axes.
func AlsoStated(text, key string) []Classification { return classify.AlsoStated(text, key) }

// CanonicalKey is the canonical key of key's concept ("company" and
// "works_at" are "employer"); a key outside the vocabulary is returned as
// it is. Consolidation and the push's notes read every key through it.
func CanonicalKey(key string) string { return classify.CanonicalKey(key) }
