package classify

import (
	"strings"
	"time"
)

// Durability is how long a fact naturally persists; it sets its decay rate.
type Durability string

// The four durabilities, from slowest to fastest decay.
const (
	Permanent Durability = "permanent"
	LongTerm  Durability = "long_term"
	ShortTerm Durability = "short_term"
	Ephemeral Durability = "ephemeral"
)

// Label is the durability as people read it.
func (d Durability) Label() string {
	return strings.ReplaceAll(string(d), "_", "-")
}

// The categories the classifier assigns; a fact may carry any other
// lowercase slug, but these are the ones the rules know.
const (
	CategoryObservation = "observation"
	CategoryPreference  = "preference"
	CategoryIdentity    = "identity"
	CategoryMood        = "mood"
	CategoryDecision    = "decision"
	CategoryRoutine     = "routine"
	CategoryState       = "state"
	CategoryObligation  = "obligation"
)

// Classification is the classifier's verdict on one text.
type Classification struct {
	Durability   Durability
	Category     string
	Deadline     *time.Time // obligations only, when the text names a date
	Alternatives []string   // decisions only
	Reasoning    string     // decisions only: the "because ..." clause, if any
	// Key names what the fact is about, guessed from the text, the same for
	// its paraphrases (keys.go); may be "" (e.g. "mood", "home_city",
	// "occupation", "replication_lag", "deadline"); lowercase [a-z0-9_], at
	// most 64 characters.
	Key    string
	Reason string // why, for people
}

// maxBytes bounds the work done on one text; a memory row that long
// is decided by its beginning.
const maxBytes = 16 << 10

// Classify classifies text as of now. It is deterministic and never fails.
// Dates without a year, weekdays and relative phrases ("tomorrow", "in two
// weeks") are read relative to now, in UTC.
func Classify(text string, now time.Time) Classification {
	t := normalize(text)
	if t.norm == "" {
		return Classification{Durability: LongTerm, Category: CategoryObservation, Reason: "empty text"}
	}
	c := t.classify(now.UTC())
	c.Key = t.refineKey(c)
	return c
}

// classify runs the rules in order; Classify then names the key (keys.go).
func (t *text) classify(now time.Time) Classification {
	if c, ok := t.decision(); ok {
		return c
	}
	if c, ok := t.mood(); ok {
		return c
	}
	if c, ok := t.identity(); ok {
		return c
	}
	past := t.has(fPast) && pastRe.MatchString(t.norm)
	if c, ok := t.obligation(now, past); ok {
		return c
	}
	if c, ok := t.event(); ok {
		return c
	}
	if c, ok := t.state(now, past); ok {
		return c
	}
	if c, ok := t.resolved(past); ok {
		return c
	}
	if c, ok := t.preference(); ok {
		return c
	}
	if c, ok := t.routine(now, past); ok {
		return c
	}
	return t.observation()
}

// maxTries bounds how many matches of one pattern a rule examines, and
// window how far around a decision verb it looks for an alternative, so
// that a long text repeating a near miss costs linear time.
const (
	maxTries = 32
	window   = 300
)
