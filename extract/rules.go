package extract

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory"
)

// Rules is the default Extractor: it splits a text into its speakers' turns
// and their sentences, attributes each sentence to an entity (see
// attribution.go) and classifies it with memory.Classify, with no network.
// Greetings and the assistant's and the system's turns are not facts and
// are skipped, and so are the sentences memory.NotFact finds state none:
// questions, acknowledgements ("Incident closed."), instructions ("Do not
// reopen this."), hypotheticals ("If I moved to Paris...") and sarcasm ("Oh
// great, another outage"). A negation ("I no longer live in Berlin")
// denies a value rather than stating one: it becomes a retraction
// candidate, attributed like any other, whose key is the attribute denied
// and Denies the value ("Berlin"); stored, it retires the facts that name
// the value (memory/retract.go). A negation whose value cannot be read is
// skipped. It never fails.
type Rules struct{}

// Name implements Extractor.
func (Rules) Name() string { return ModeRules }

// Extract implements Extractor: ExtractAs with no speaker named, so that
// "I" is the user (memory.UserEntity) unless the text says who speaks.
func (r Rules) Extract(ctx context.Context, text, entity string, now time.Time) ([]Candidate, error) {
	return r.ExtractAs(ctx, text, entity, "", now)
}

// ExtractAs implements SpeakerExtractor. entity, when not empty, is what
// the sentences that name no subject are about; speaker, when not empty, is
// who "I", "me" and "my" are.
func (Rules) ExtractAs(_ context.Context, text, entity, speaker string, now time.Time) ([]Candidate, error) {
	entity, speaker = strings.TrimSpace(entity), strings.TrimSpace(speaker)
	a := newAttributor(entity, speaker)
	var out []Candidate
	add := func(cs ...Candidate) {
		for _, c := range cs {
			if len(out) < maxCandidates {
				out = append(out, c)
			}
		}
	}
reading:
	for _, t := range turns(text, speaker) {
		if t.role == roleAssistant || t.role == roleSystem {
			continue // not facts about the user (see attribution.go)
		}
		a.prev = ""
		for _, s := range sentences(t.text) {
			if len(out) == maxCandidates {
				break reading
			}
			// The sentence as written decides whether it is a fact: the
			// greeting stripped below may be what gives sarcasm away ("Oh
			// great, another outage").
			raw := s
			s = stripGreeting(s)
			if isPleasantry(s) {
				continue
			}
			if name, rest, ok := introduction(s); ok {
				add(a.introductionCandidates(t, s, name, rest, now)...)
				continue
			}
			c := memory.Classify(s, now)
			kind, key := memory.NotFact(raw, c)
			value := ""
			if kind == memory.NotFactNegation && key != "" {
				key = memory.CanonicalKey(key)
				value = memory.DeniedValue(s, key)
			}
			if kind != "" && value == "" {
				continue
			}
			sub := memory.SubjectOf(s)
			e, why := a.attribute(t, sub)
			if value != "" {
				add(retraction(c, s, e, why, key, value))
				continue
			}
			if split := roleInPlace(s, e, why, sub.Kind == memory.SubjectFirstPerson); split != nil {
				add(split...)
				continue
			}
			add(a.keyState(classifiedWith(c, s, e, why)))
		}
	}
	out = alsoStated(out)
	// One person or thing, one name, however the text spells it (see
	// entities.go).
	return canonicalEntities(out, text, speaker, entity), nil
}

// alsoStated adds, after each candidate filed under a lasting attribute,
// one candidate for every other lasting attribute its sentence states ("I'm
// the finance lead at Bluefin Logistics": the employer beside the
// occupation), on the same entity and content, unless the snippet already
// has a candidate of that entity and key: one fact per attribute stated.
func alsoStated(cands []Candidate) []Candidate {
	type ek struct{ entity, key string }
	have := map[ek]bool{}
	for _, c := range cands {
		have[ek{c.Entity, c.Key}] = true
	}
	out := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		out = append(out, c)
		if c.Retraction || c.Key == "" {
			continue
		}
		for _, more := range memory.AlsoStated(c.Content, c.Key) {
			if k := (ek{c.Entity, more.Key}); !have[k] && len(out) < maxCandidates {
				have[k] = true
				out = append(out, Candidate{Content: c.Content, Entity: c.Entity, Key: more.Key, Category: more.Category,
					Durability: string(more.Durability), Reason: more.Reason + about(c.Entity, "as the fact beside it")})
			}
		}
	}
	return out
}

// introductionCandidates are the facts of a sentence in which t's speaker
// introduces themselves as name: what the rest of it says ("a nurse in
// Denver": an occupation and a home city; "and I work nights"), or else the
// name itself.
func (a *attributor) introductionCandidates(t turn, s, name, rest string, now time.Time) []Candidate {
	e := a.introduce(t, name)
	why := "the speaker, introduced as " + name
	var out []Candidate
	rest = strings.TrimFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",;:.!-–—", r) })
	for _, clause := range splitClauseRe.Split(rest, -1) {
		clause = strings.TrimSpace(clause)
		if clause == "" {
			continue
		}
		if memory.SubjectOf(clause).Kind == memory.SubjectFirstPerson {
			if split := roleInPlace(clause, e, why, true); split != nil {
				out = append(out, split...)
			} else {
				out = append(out, classified(clause, e, why, now))
			}
			continue
		}
		for _, f := range clauseFacts(clause, name, quote(s)) {
			out = append(out, f.candidate(e, why))
		}
	}
	if len(out) == 0 {
		out = append(out, Candidate{Content: s, Entity: e, Key: "name", Category: memory.CategoryIdentity,
			Durability: string(memory.Permanent), Reason: "introduction " + quote(s) + about(e, why)})
	}
	return out
}

// roleInPlace splits a sentence that gives a role and where it is held
// ("I'm a nurse in Denver", "Edmund is an engineer at Acme") into its
// facts, or returns nil. firstPerson says the sentence's subject is "I".
func roleInPlace(s, entity, why string, firstPerson bool) []Candidate {
	m := roleInPlaceRe.FindStringSubmatch(s)
	if m == nil || entity == "" {
		return nil
	}
	subject := entity
	if firstPerson {
		subject = "I"
	}
	facts := clauseFacts(m[2], subject, quote(s))
	if len(facts) < 2 {
		return nil
	}
	out := make([]Candidate, len(facts))
	for i, f := range facts {
		out[i] = f.candidate(entity, why)
	}
	return out
}

// candidate is the Candidate of f about entity.
func (f fact) candidate(entity, why string) Candidate {
	return clamp(Candidate{Content: f.content, Entity: entity, Key: f.key, Category: f.category,
		Durability: string(f.durability), Reason: f.reason + about(entity, why)})
}

// classified is the Candidate of sentence s about entity, classified by
// memory.Classify.
func classified(s, entity, why string, now time.Time) Candidate {
	return classifiedWith(memory.Classify(s, now), s, entity, why)
}

// classifiedWith is the Candidate of sentence s about entity, which
// memory.Classify classified as c.
func classifiedWith(c memory.Classification, s, entity, why string) Candidate {
	return clamp(Candidate{
		Content: s, Entity: entity, Key: c.Key, Category: c.Category, Durability: string(c.Durability),
		Deadline: c.Deadline, Alternatives: c.Alternatives, Reasoning: c.Reasoning, Reason: c.Reason + about(entity, why),
	})
}

// retraction is the candidate of sentence s, which memory.Classify
// classified as c and which denies value of key about entity: stored, it
// retires the entity's facts on key that name value.
func retraction(c memory.Classification, s, entity, why, key, value string) Candidate {
	return clamp(Candidate{
		Content: s, Entity: entity, Key: key, Category: c.Category, Durability: string(c.Durability),
		Retraction: true, Denies: value,
		Reason: fmt.Sprintf("a negation: denies %s %s, so it retires the facts that name it rather than stating a fact",
			key, strconv.Quote(value)) + about(entity, why),
	})
}

// quote is s quoted for a reason, at most 60 characters of it.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:60]) + "…"
	}
	return strconv.Quote(s)
}

// sentences splits text at line breaks and at '.', '!' or '?' followed by
// white space, keeping the punctuation; it drops questions and fragments
// without a letter. A period that ends a title ("Dr. Alvarez"), an
// abbreviation read mid-sentence ("e.g. Go"), or a path or package pattern
// of a command line ("go test ./... ok") ends no sentence.
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
			if r == '.' && !periodEndsSentence(line[start:i+1], strings.TrimLeftFunc(line[i+1:], unicode.IsSpace)) {
				continue
			}
			keep(line[start : i+1])
			start = i + 1
		}
		keep(line[start:])
	}
	return out
}

// titles are the abbreviations that stand before a name: the period after
// them ends no sentence when a capitalised word follows ("Dr. Alvarez").
var titles = map[string]bool{"dr": true, "mr": true, "mrs": true, "ms": true, "mx": true, "prof": true,
	"rev": true, "sgt": true, "capt": true, "lt": true, "gen": true}

// midSentence are the abbreviations that are read on: "e.g. Go", "vs. Rust".
var midSentence = map[string]bool{"e.g": true, "i.e": true, "eg": true, "ie": true, "vs": true, "cf": true,
	"approx": true, "incl": true, "esp": true}

// periodEndsSentence reports whether the period that ends before, followed
// by white space and then next, ends a sentence. A title before a
// capitalised word, an abbreviation read on, and a word of a command line
// ("./...", "../cmd.") do not.
func periodEndsSentence(before, next string) bool {
	word := before[strings.LastIndexFunc(before, unicode.IsSpace)+1:]
	if strings.HasPrefix(word, "./") || strings.HasPrefix(word, "../") || strings.Contains(word, "/.") {
		return false // a path or package pattern: "go test ./..."
	}
	bare := strings.ToLower(strings.TrimLeft(strings.TrimRight(word, "."), "(\"'"))
	if next == "" {
		return true
	}
	if midSentence[bare] {
		return false
	}
	first, _ := utf8.DecodeRuneInString(next)
	if !titles[bare] || !unicode.IsUpper(first) {
		return true
	}
	// "300 ms. It's back": after a number, "ms" is a unit.
	rest := strings.TrimRightFunc(before[:len(before)-len(word)], unicode.IsSpace)
	prev := rest[strings.LastIndexFunc(rest, unicode.IsSpace)+1:]
	return strings.ContainsFunc(prev, unicode.IsDigit)
}
