package classify

import (
	"regexp"
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
	if c.Reason != noRule {
		return c
	}
	// A lead-in that says nothing of its own ("Heads up, I'm sick today",
	// "Agent notes: customer reports duplicate charges") hides the
	// statement from the rules that read a bare one: the statement after it
	// decides, when a rule reads it.
	if rest, ok := t.afterLead(); ok {
		r := normalize(rest)
		// The statement after a lead-in is a mood or a state only when it
		// is bare: a turn that says more stays what else it states.
		if rc := r.classify(now.UTC()); rc.Reason != noRule &&
			(r.bare() || rc.Category != CategoryMood && rc.Category != CategoryState) {
			rc.Key = r.refineKey(rc)
			return rc
		}
	}
	return c
}

// noRule is the Reason of a text no rule matched.
const noRule = "no rule matched: a general observation"

// classify runs the rules in order; Classify then names the key (keys.go).
//
// Conversation text states most facts without the words of the rules in
// doc.go, and each rule reads its class by the shape of the sentence:
//
//   - a fault or a problem (states.go: trouble): "I can't export
//     invoices", "keeps crashing", "customers see timeouts", "way over
//     budget", a test runner's FAIL line; short_term while under way,
//     ephemeral for now. A fault explained ("fails because the clock is
//     off") is a state with no key, as a feeling explained is a mood.
//   - a duty or a role held for a while (states.go: duty): "Rahul has her
//     pager", "taking over as IC", "Marta is my backup"; short_term.
//   - a commitment or a plan (obligations.go: commitment): "Sam will post
//     updates", "I'm meeting Giulia for lunch", a need with a date or a
//     thing to get done; short_term, dated when a date is named ("in
//     September", "by the 10th": dates.go).
//   - a standing rule or wish (preferences.go: standingWish): "never commit
//     the .env file", "From now on, send invoices to ...", "Our legal team
//     wants 7 years", and the speaker's dislike of a thing ("I hate YAML");
//     long_term.
//   - a one-off errand or mishap and a case's reference (observations.go):
//     "Paid the water bill", "They lost my bag"; short_term observations.
//
// Decisions keep their line (doc.go, rule 2), with these readings: the
// speaker's own choice is a decision when it names what was chosen and a
// reason that lasts ("I picked Go for the CLI because the team knows
// it"); a past "went with" is one only beside an alternative, a lasting
// reason or the end a group's choice serves ("went with the staged rollout
// for the kernel patch"), not a purchase ("went with the cheaper hotel")
// nor a customer's news ("went with your competitor"); "decided this"
// names who decided, not what.
func (t *text) classify(now time.Time) Classification {
	if c, ok := t.decision(); ok {
		return c
	}
	// A dislike of a thing is a taste, though said as venting ("I hate
	// YAML"); hating the moment stays a mood ("I hate mornings").
	if c, ok := t.dislike(); ok {
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
	// "I'd prefer if you talked me through it on the phone" states a
	// taste, not where anyone is.
	if c, ok := t.statedPreference(); ok {
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

// leadRe is a lead-in before the statement of a sentence: a label or an
// aside of at most five words that ends in a colon or a comma ("Heads
// up,", "Sam here,", "Agent notes:", "For the record,", "Not our fault,
// but").
var leadRe = regexp.MustCompile(`^((?:[^ ,:;.!?]+ ){0,4}[^ ,:;.!?]+)(?:,|:) +(?:(?:but|and|so|also|anyway|though) )?`)

// afterLead returns the statement after t's lead-in (leadRe), in the
// writer's spelling, or false. A lead-in that sets a condition or a time
// ("If it fails,", "Yesterday,", "Until Friday,") or decides ("Decision:")
// is part of the statement, and so is one that already reads as a clause
// of its own ("I'm exhausted,").
func (t *text) afterLead() (string, bool) {
	m := leadRe.FindStringSubmatchIndex(t.norm)
	if m == nil || m[1] >= len(t.norm) {
		return "", false
	}
	lead := t.norm[m[2]:m[3]]
	first, _ := nextWord(lead, 0)
	switch first {
	case "if", "when", "whenever", "unless", "once", "after", "before", "while", "until", "till", "since",
		"because", "although", "though", "as", "even", "whether", "in", "on", "at", "by", "during", "for":
		// "For the record," and "In short," are asides; "For two weeks," and
		// "In March," set a time.
		if !asideLead(lead) {
			return "", false
		}
	}
	if startsClause(first) && first != "the" && first != "my" && first != "our" && first != "this" {
		return "", false // "I'm exhausted, ...": a clause of its own
	}
	if lead != "never mind" && scan(lead)&(fDate|fPast|fRecur|fBounded|fToday|fDecided|fAgreed|fObligation|fMood) != 0 {
		return "", false
	}
	return t.span(m[1], len(t.norm)), true
}

// asideLead reports whether lead, which opens with a preposition, is an
// aside that frames what follows rather than a time or a place.
func asideLead(lead string) bool {
	switch lead {
	case "for the record", "for what it's worth", "for context", "for reference", "for info", "for your info",
		"in short", "in any case", "in other news", "in the meantime", "by the way", "on a side note",
		"as a heads up", "as an fyi", "as an update", "on another note", "in fact", "for the notes":
		return true
	}
	return false
}

// maxTries bounds how many matches of one pattern a rule examines, and
// window how far around a decision verb it looks for an alternative, so
// that a long text repeating a near miss costs linear time.
const (
	maxTries = 32
	window   = 300
)
