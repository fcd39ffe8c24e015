package memory

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file is the offline, rule-based classifier: it puts a text on both axes
// (durability and category) without any network, deterministically.
//
// The rules run in a fixed order and the first that matches decides. Each
// rule's place in the order is a judgement about which mistake costs least:
//
//  1. empty text: nothing to classify, so the defaults (long_term observation).
//  2. decision (permanent): "decided", "settled on", "the decision is", a
//     group that "agreed", or a group's choice with a rejected alternative
//     ("we use pnpm, not npm", "going with X instead of Y"). It comes first
//     because a decision lost to another category gets reopened: "we decided
//     to meet every Monday" is a decision, not a routine. Negated or open
//     ("we haven't decided", "to be decided") it is not a decision.
//  3. mood (ephemeral): before everything else because moods must never
//     harden; a feeling taken for a trait breaks the product's promise, while
//     a trait taken for a mood only fades early.
//  4. identity (permanent): biography and lasting traits (born in, allergic
//     to, my name is, native language, is an introvert, is a software
//     engineer). A role held "this week" or "until March" is a state.
//  5. obligation (short_term): a duty (must, needs to, has to, promised,
//     remind me to, deadline, due) or an appointment or plan on a named date
//     ("present at the conference on May 15", "report by Jan 5"). A duty that
//     recurs and names no date ("must take medication daily") is a routine:
//     it has no deadline to decay after and should not fade. A lifted duty
//     ("doesn't need to") is not an obligation. Obligations come before
//     states so that "dentist appointment today" keeps its deadline.
//  6. state: a condition of the moment (right now, currently, at the moment,
//     still syncing, ETA, rolling out, a metric reading, progress) is
//     ephemeral; one with a bound (until Friday, this week, for the next two
//     weeks, on vacation, working on) is short_term; "today"/"tonight" make it
//     ephemeral even when bounded. A metric or a service that recovered,
//     resolved or is back to normal ("replication lag recovered", "p99 back
//     under 120 ms", "the incident is resolved") is an ephemeral state too,
//     on the key of the state it resolves (keys.go).
//  7. preference (long_term): prefers, likes, loves, enjoys, favourite, would
//     rather, always uses, a fan of, dislikes, hates (see below).
//  8. routine (long_term): every/each/daily/weekly/on Mondays/usually/always,
//     a work schedule ("works nights", "works from home"), or a clock time
//     with no date ("takes medication at 9am").
//  9. everything else: a long_term observation.
//
// Mood or preference. Feeling words (stressed, tired, frustrated, annoyed,
// excited...) and "feeling down/better" are moods in any person: "Priya
// sounded frustrated". Complaints of the moment are moods too: first-person
// venting ("I hate mornings", "I can't stand this", "ugh", "sick of") and
// hating a time of day or the moment in any person ("hates Mondays", "hates
// it when"). Stated tastes are preferences: "prefers dark mode", "likes",
// "loves", "I love dark mode", and third-person "hates" of anything else
// ("hates being put on hold"). A feeling described as a habit or a trait
// ("usually grumpy in the mornings", "an anxious person", "gets anxious
// before talks") is not a mood and is left to the later rules; "happy to
// help" is willingness, not a mood.
//
// Text that reads as past ("was down yesterday", "shipped on May 15") is not a
// state and not a dated obligation: it is a record of what happened.
//
// Once the rules have decided the axes, the key is named after what the fact
// is about (keys.go): home_city, employer, occupation, replication_lag,
// p99_latency, drink, deploy_day..., the same for the paraphrases of one
// fact, so that supersession and merging find their pairs.
//
// Matching works on a normalised copy of the text: lowercase, curly quotes
// and apostrophes made straight, dashes turned into commas, whitespace
// collapsed. Words match whole: "mood" does not match inside "moody" ("moody"
// is a mood word of its own) and "decided" not inside "undecided". Only the
// first classifyMaxBytes of a text are read, and each rule examines a bounded
// number of candidate matches, so the cost stays linear in the text.

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

// classifyMaxBytes bounds the work done on one text; a memory row that long
// is decided by its beginning.
const classifyMaxBytes = 16 << 10

// Classify classifies text as of now. It is deterministic and never fails.
// Dates without a year, weekdays and relative phrases ("tomorrow", "in two
// weeks") are read relative to now, in UTC.
func Classify(text string, now time.Time) Classification {
	t := clsNormalize(text)
	if t.norm == "" {
		return Classification{Durability: LongTerm, Category: CategoryObservation, Reason: "empty text"}
	}
	c := t.classify(now.UTC())
	c.Key = t.refineKey(c)
	return c
}

// classify runs the rules in order; Classify then names the key (keys.go).
func (t *clsText) classify(now time.Time) Classification {
	if c, ok := t.decision(); ok {
		return c
	}
	if c, ok := t.mood(); ok {
		return c
	}
	if c, ok := t.identity(); ok {
		return c
	}
	past := t.has(clsFPast) && clsPastRe.MatchString(t.norm)
	if c, ok := t.obligation(now, past); ok {
		return c
	}
	if c, ok := t.state(past); ok {
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

// clsMaxTries bounds how many matches of one pattern a rule examines, and
// clsWindow how far around a decision verb it looks for an alternative, so
// that a long text repeating a near miss costs linear time.
const (
	clsMaxTries = 32
	clsWindow   = 300
)

// clsText is a text prepared for matching: norm is the normalised copy and
// off maps each byte of norm to the byte of orig it came from, so that
// extracted phrases keep the writer's spelling and case.
type clsText struct {
	orig string
	norm string
	off  []int32 // len(norm)+1 entries

	flags    clsFlags
	dateDone bool // the date below has been looked for
	dateOK   bool
	date     clsDate
}

// find is re.FindStringIndex on the text when it holds a trigger of f.
func (t *clsText) find(f clsFlags, re *regexp.Regexp) []int {
	if !t.has(f) {
		return nil
	}
	return re.FindStringIndex(t.norm)
}

// findSub is re.FindStringSubmatchIndex on the text when it holds a trigger of f.
func (t *clsText) findSub(f clsFlags, re *regexp.Regexp) []int {
	if !t.has(f) {
		return nil
	}
	return re.FindStringSubmatchIndex(t.norm)
}

// has reports whether the text holds a trigger word of any of f's families.
func (t *clsText) has(f clsFlags) bool { return t.flags&f != 0 }

// findDate is clsFindDate, computed once per text.
func (t *clsText) findDate(now time.Time) (clsDate, bool) {
	if !t.has(clsFDate) {
		return clsDate{}, false
	}
	if !t.dateDone {
		t.date, t.dateOK = clsFindDate(t, now)
		t.dateDone = true
	}
	return t.date, t.dateOK
}

// clsNormalize lowercases s, straightens quotes, turns dashes into commas,
// drops invisible format characters and collapses whitespace.
func clsNormalize(s string) clsText {
	if len(s) > classifyMaxBytes {
		cut := classifyMaxBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	var b strings.Builder
	b.Grow(len(s))
	off := make([]int32, 0, len(s)+1)
	space := -1 // offset in s of a pending run of whitespace
	var buf [utf8.UTFMax]byte
	for i, r := range s {
		if r < utf8.RuneSelf {
			c := byte(r)
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c < 0x20 || c == 0x7f:
				if space < 0 {
					space = i
				}
				continue
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			case c == '`':
				c = '\''
			}
			if space >= 0 && b.Len() > 0 {
				b.WriteByte(' ')
				off = append(off, int32(space))
			}
			space = -1
			b.WriteByte(c)
			off = append(off, int32(i))
			continue
		}
		var rep string
		switch {
		case r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r):
			if space < 0 {
				space = i
			}
			continue
		case unicode.Is(unicode.Cf, r):
			continue // zero-width joiners, soft hyphens, direction marks
		case r == '\u2018' || r == '\u2019' || r == '\u201b' || r == '\u02bc' || r == '\u2032' || r == '\u00b4':
			rep = "'"
		case r == '\u201c' || r == '\u201d' || r == '\u201e' || r == '\u00ab' || r == '\u00bb':
			rep = `"`
		case r == '\u2012' || r == '\u2013' || r == '\u2014' || r == '\u2015':
			rep = ","
		default:
			n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
			rep = string(buf[:n])
		}
		if space >= 0 && b.Len() > 0 {
			b.WriteByte(' ')
			off = append(off, int32(space))
		}
		space = -1
		b.WriteString(rep)
		for range len(rep) {
			off = append(off, int32(i))
		}
	}
	off = append(off, int32(len(s)))
	if space >= 0 && len(off) > 1 {
		// The trailing whitespace was never written: end the text where it began.
		off[len(off)-1] = int32(space)
	}
	norm := b.String()
	return clsText{orig: s, norm: norm, off: off, flags: clsScan(norm)}
}

// span returns the original text behind norm[a:b], trimmed.
func (t *clsText) span(a, b int) string {
	if a < 0 {
		a = 0
	}
	if b > len(t.norm) {
		b = len(t.norm)
	}
	if a >= b {
		return ""
	}
	v := strings.TrimSpace(t.orig[t.off[a]:t.off[b]])
	if !utf8.ValidString(v) {
		// Extracted text is stored as PostgreSQL text, which refuses bad bytes.
		v = strings.ToValidUTF8(v, "\uFFFD")
	}
	return v
}

// quote is a matched phrase for a Reason, in the writer's spelling.
func (t *clsText) quote(a, b int) string {
	s := t.span(a, b)
	if len(s) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

func clsIsWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '\'' || c == '_' || c == '-' || c >= 0x80
}

func clsIsSentenceEnd(s string, i int) bool {
	switch s[i] {
	case '!', '?', ';', '\n':
		return true
	case '.':
		return i+1 == len(s) || s[i+1] == ' '
	}
	return false
}

// clsWordsBefore fills out with the words that precede pos in s, nearest
// first, without crossing the end of a sentence, and returns how many.
func clsWordsBefore(s string, pos int, out []string) int {
	n, i := 0, pos
	for n < len(out) {
		for i > 0 && !clsIsWordByte(s[i-1]) {
			if clsIsSentenceEnd(s, i-1) {
				return n
			}
			i--
		}
		if i == 0 {
			return n
		}
		j := i
		for j > 0 && (clsIsWordByte(s[j-1]) || j > 1 && j < i && s[j-1] == '.' && clsIsWordByte(s[j-2])) {
			j--
		}
		out[n] = strings.Trim(s[j:i], "'-")
		n++
		i = j
	}
	return n
}

// clsSentenceStart is where the sentence holding pos begins.
func clsSentenceStart(s string, pos int) int {
	for i := pos - 1; i >= 0; i-- {
		if clsIsSentenceEnd(s, i) {
			return i + 1
		}
	}
	return 0
}

// clsSentenceEnd is where the sentence holding pos ends.
func clsSentenceEnd(s string, pos int) int {
	for i := pos; i < len(s); i++ {
		if clsIsSentenceEnd(s, i) {
			return i
		}
	}
	return len(s)
}

// clsNextWord returns the word that starts at or after pos (skipping spaces
// only) and where it ends. A dot inside a word is kept ("3.13", "node.js").
func clsNextWord(s string, pos int) (string, int) {
	for pos < len(s) && s[pos] == ' ' {
		pos++
	}
	j := pos
	for j < len(s) && (clsIsWordByte(s[j]) || j > pos && s[j] == '.' && j+1 < len(s) && clsIsWordByte(s[j+1])) {
		j++
	}
	return s[pos:j], j
}

func clsIsNegation(w string) bool {
	switch w {
	case "not", "never", "no", "nothing", "nor", "cannot", "longer", "yet", "if", "whether", "undecided":
		return true
	}
	return strings.HasSuffix(w, "n't")
}

// clsSlug turns s into a key: lowercase ASCII letters and digits joined by
// single underscores, at most 64 bytes.
func clsSlug(s string) string {
	var b strings.Builder
	under := false
	for i := 0; i < len(s) && b.Len() < 64; i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteByte(c)
			continue
		}
		under = true
	}
	return strings.TrimRight(b.String(), "_")
}

// ---------------------------------------------------------------- decisions

var (
	// clsDecidedRe: phrases that state a decision whoever made it.
	clsDecidedRe = regexp.MustCompile(`\b(?:(?:decided|decides|settled on|settled upon|opted (?:for|to|against)|standardi[sz]ed on|made (?:a|the) (?:final )?decision|final decision|the decision (?:is|was))\b(?: (?:to|on|upon|that|against)\b)?|decision:)`)
	// clsAgreedRe: agreement, a decision when a group agreed.
	clsAgreedRe = regexp.MustCompile(`\b(?:agreed|agree)\b(?: (?:to|on|upon|that)\b)?`)
	// clsChoiceRe: a choice, a decision when a group made it and (for the
	// verbs of use) an alternative is named.
	clsChoiceRe = regexp.MustCompile(`\b(?:chose|chosen|choose|picked|selected|going with|go with|went with|sticking with|stick with|stuck with|ruled out|adopted|switched|moved|migrated|(?:won't|will not|will never|never|don't|do not) (?:use|adopt|go with)|use|using|uses|from now on|going forward)\b`)
	// clsContrastRe: where an alternative is named.
	clsContrastRe = regexp.MustCompile(`(?:^|[ ,;(])(not|instead of|rather than|over|against|in place of)\b`)
	// clsFromToRe: "switched from npm to pnpm".
	clsFromToRe = regexp.MustCompile(`\bfrom ([^,.;!?]+?) to\b`)
	// clsReasonRe: where the reasoning starts.
	clsReasonRe = regexp.MustCompile(`(?:^|[ ,;(])(because of|because|since|as|so that|due to|given that|the reason (?:is|being)(?: that)?|reason:|reasoning:|rationale:|why:)(?: |$)`)
)

func clsIsCollective(w string, passive bool) bool {
	switch w {
	case "we", "we've", "we'll", "we're", "we'd", "let's", "lets", "our", "us", "team", "teams", "everyone", "everybody",
		"all", "both", "group", "committee", "board", "they", "they've", "they'll", "they're", "leads", "company", "org",
		"organisation", "organization", "project", "squad", "crew", "i", "i've", "i'll", "i'm":
		return true
	case "was", "were", "been", "it's":
		return passive
	}
	return false
}

// collective reports whether one of the few words before pos names a group
// (or the speaker) as the one deciding.
func (t *clsText) collective(pos int, passive bool) bool {
	var w [6]string
	n := clsWordsBefore(t.norm, pos, w[:])
	for _, x := range w[:n] {
		if clsIsCollective(x, passive) {
			return true
		}
	}
	return false
}

// pending reports whether the decision word at pos is still to come: "to be
// decided", "will be agreed".
func (t *clsText) pending(pos int) bool {
	var w [1]string
	return clsWordsBefore(t.norm, pos, w[:]) == 1 && w[0] == "be"
}

func (t *clsText) negated(pos, words int) bool {
	var w [4]string
	n := clsWordsBefore(t.norm, pos, w[:min(words, len(w))])
	for _, x := range w[:n] {
		if clsIsNegation(x) {
			return true
		}
	}
	return false
}

func (t *clsText) decision() (Classification, bool) {
	s := t.norm
	start, end, found := -1, -1, false
	objectAt := -1 // the object of "we won't use X" is an alternative
	// Explicit decision phrases.
	for from, tries := 0, 0; t.has(clsFDecided) && from < len(s) && !found && tries < clsMaxTries; tries++ {
		loc := clsDecidedRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		switch next, _ := clsNextWord(s, b); next {
		case "nothing", "yet", "anything", "whether", "if":
			continue // "decided nothing yet"
		}
		if !t.negated(a, 3) && !t.pending(a) {
			start, end, found = a, b, true
		}
	}
	// Agreement by a group.
	for from, tries := 0, 0; t.has(clsFAgreed) && from < len(s) && !found && tries < clsMaxTries; tries++ {
		loc := clsAgreedRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		if !t.negated(a, 3) && !t.pending(a) && t.collective(a, true) {
			start, end, found = a, b, true
		}
	}
	// Choices by a group, with an alternative where the verb alone says little.
	for from, tries := 0, 0; t.has(clsFChoice) && from < len(s) && !found && tries < clsMaxTries; tries++ {
		loc := clsChoiceRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		verb := s[a:b]
		atStart := strings.TrimSpace(s[clsSentenceStart(s, a):a]) == ""
		sentStart, sentEnd := max(clsSentenceStart(s, a), a-clsWindow), min(clsSentenceEnd(s, b), b+clsWindow)
		rest := s[b:sentEnd]
		hasContrast := t.contrastIn(sentStart, sentEnd)
		switch {
		case verb == "use" || verb == "using" || verb == "uses":
			// "we use pnpm, not npm"; "use pnpm, not npm" as a house rule.
			found = hasContrast && (atStart && verb == "use" || t.collective(a, false)) && !t.negated(a, 2)
		case verb == "switched" || verb == "moved" || verb == "migrated":
			found = t.collective(a, false) && (clsFromToRe.MatchString(rest) || hasContrast)
		case verb == "from now on" || verb == "going forward":
			found = t.collective(a, false) || strings.Contains(s, "we ")
		case strings.HasPrefix(verb, "go with") || strings.HasPrefix(verb, "going with") || strings.HasPrefix(verb, "stick"):
			found = atStart || t.collective(a, false) || hasContrast
		default:
			found = t.collective(a, false) && !t.negated(a, 2)
			neg := strings.HasPrefix(verb, "won't ") || strings.HasPrefix(verb, "will ") ||
				strings.HasPrefix(verb, "never ") || strings.HasPrefix(verb, "don't ") || strings.HasPrefix(verb, "do not ")
			if found && neg {
				objectAt = b
			}
		}
		if found {
			start, end = a, b
		}
	}
	if !found {
		return Classification{}, false
	}
	c := Classification{Durability: Permanent, Category: CategoryDecision,
		Reason: "decision phrase " + t.quote(start, end)}
	chosen := ""
	c.Alternatives, chosen = t.alternatives(start, objectAt)
	if chosen == "" && len(c.Alternatives) > 0 && objectAt < 0 {
		chosen = t.objectAfter(end)
	}
	c.Reasoning = t.reasoning(start)
	if len(c.Alternatives) > 0 {
		parts := make([]string, 0, len(c.Alternatives)+1)
		if k := clsSlug(chosen); k != "" {
			parts = append(parts, k)
		}
		for _, a := range c.Alternatives {
			if k := clsSlug(a); k != "" {
				parts = append(parts, k)
			}
		}
		sort.Strings(parts)
		c.Key = clsSlug("choice_" + strings.Join(parts, "_"))
	} else if c.Key = t.decisionObject(end); c.Key == "" {
		// "We will use pnpm going forward": the object came first. A key
		// specific to the decision keeps its lock from covering others.
		c.Key = t.decisionObject(clsSentenceStart(t.norm, start))
	}
	if c.Key == "" {
		c.Key = "decision"
	}
	return c, true
}

// decisionObject is a key made of the first words after the decision phrase:
// "decided to meet every Monday" gives meet_every_monday.
func (t *clsText) decisionObject(pos int) string {
	s := t.norm
	stop := clsSentenceEnd(s, pos)
	var parts [4]string
	n := 0
	for i := pos; i < stop && n < len(parts); {
		if !clsIsWordByte(s[i]) {
			if s[i] != ' ' && n > 0 {
				break // punctuation ends the object
			}
			i++
			continue
		}
		w, j := clsNextWord(s, i)
		i = j
		switch w {
		case "to", "the", "a", "an":
			continue
		case "that", "on", "upon", "we", "we'll", "will", "should", "is", "was", "be", "i", "they":
			if n == 0 {
				continue
			}
		case "not":
			if n > 0 {
				i = stop
				continue
			}
		case "because", "since", "as", "so", "for", "instead", "rather", "over", "and", "but", "which", "after":
			i = stop
			continue
		}
		parts[n] = w
		n++
	}
	return clsSlug(strings.Join(parts[:n], "_"))
}

// contrastIn reports whether norm[a:b] names an alternative.
func (t *clsText) contrastIn(a, b int) bool {
	for from, tries := a, 0; from < b && tries < clsMaxTries; tries++ {
		loc := clsContrastRe.FindStringSubmatchIndex(t.norm[from:b])
		if loc == nil {
			return false
		}
		ma, mb := from+loc[2], from+loc[3]
		if t.altStart(ma, mb) >= 0 {
			return true
		}
		from = mb
	}
	return false
}

// altStart returns where the alternative named by the contrast word at
// norm[a:b] begins, or -1 when the word does not name one there ("do not
// reopen", "over the weekend", "against a deadline").
func (t *clsText) altStart(a, b int) int {
	s := t.norm
	word := s[a:b]
	var prev [1]string
	hasPrev := clsWordsBefore(s, a, prev[:]) == 1
	commaBefore := a > 0 && strings.HasSuffix(strings.TrimRight(s[:a], " "), ",")
	pos := b
	next, nextEnd := clsNextWord(s, pos)
	switch word {
	case "not":
		switch next {
		case "to", "use", "using", "go", "going", "adopt", "adopting", "switch", "switching":
			// "decided not to use npm": skip the verb and keep its object.
			for _, skip := range []string{"to", "use", "using", "go", "going", "with", "adopt", "adopting", "switch", "switching"} {
				if next == skip {
					pos = nextEnd
					next, nextEnd = clsNextWord(s, pos)
				}
			}
			if next == "" || pos == b+len(" to") && next != "" && s[b+1:pos] == "to" {
				return -1 // "decided not to reopen it": no alternative named
			}
		default:
			if !commaBefore && hasPrev {
				switch prev[0] {
				case "do", "does", "did", "to", "will", "would", "should", "could", "can", "must", "may", "might", "is",
					"are", "was", "were", "am", "be", "been", "have", "has", "had", "decided", "agreed", "why", "and", "or",
					"but", "it's", "that's", "i'm", "we're", "we", "i", "they", "it", "this", "that", "if", "whether", "still":
					return -1
				}
			}
		}
	case "over":
		if hasPrev {
			switch prev[0] {
			case "took", "take", "taking", "handed", "hand", "went", "all", "think", "thought", "talk", "talked",
				"discuss", "discussed", "mull", "mulled", "start", "started", "starting", "turn", "turned", "run", "ran",
				"left", "fall", "fell", "roll", "rolled", "pass", "passed", "is", "was", "are", "were", "it's", "get", "got",
				"be", "been", "agreed", "decided":
				return -1
			}
		}
		switch next {
		case "", "time", "night", "lunch", "dinner", "coffee", "there", "here", "email", "slack", "chat", "zoom", "phone",
			"again", "and", "budget", "capacity", "it", "them", "a":
			return -1
		case "the":
			after, _ := clsNextWord(s, nextEnd)
			switch after {
			case "weekend", "next", "past", "last", "holidays", "years", "summer", "winter", "phone", "course", "top", "limit", "line":
				return -1
			}
		}
		if next[0] >= '0' && next[0] <= '9' {
			return -1
		}
	case "against":
		if !hasPrev {
			return -1
		}
		switch prev[0] {
		case "decided", "decide", "opted", "voted", "chose", "recommended", "advised", "argued", "went", "ruled":
		default:
			return -1
		}
	default: // instead of, rather than, in place of
		switch next {
		case "using", "use", "going", "go":
			pos = nextEnd
			if w, e := clsNextWord(s, pos); w == "with" || w == "to" {
				pos = e
			}
		}
	}
	for pos < len(s) && s[pos] == ' ' {
		pos++
	}
	if pos >= len(s) || !clsIsWordByte(s[pos]) {
		return -1
	}
	return pos
}

func clsIsAltStop(w string) bool {
	switch w {
	case "because", "since", "as", "so", "for", "which", "that", "who", "due", "but", "in", "on", "at", "when",
		"anymore", "again", "going", "from", "to", "with", "by", "this", "we", "i", "they", "it's", "is", "are", "was",
		"were", "will", "would", "until", "till", "after", "before", "per", "given", "now", "here", "there", "unless",
		"if", "though", "although", "while", "whereas", "yet", "any", "either", "anyway", "we'll", "we're":
		return true
	}
	return false
}

// alternatives extracts what was ruled out: the phrases after "not",
// "instead of", "rather than", "over", "against", "ruled out" and the
// "from" of "switched from X to Y". It also returns the chosen thing named
// just before the first contrast, if any, for the key.
func (t *clsText) alternatives(decisionAt, objectAt int) ([]string, string) {
	s := t.norm
	var out []string
	chosen := ""
	add := func(a, b int) {
		v := t.span(a, b)
		v = strings.Trim(v, " \"'()[]")
		if v == "" || len(out) >= 5 {
			return
		}
		if len(v) > 80 {
			cut := 80
			for cut > 0 && !utf8.RuneStart(v[cut]) {
				cut--
			}
			v = strings.TrimSpace(v[:cut])
		}
		switch strings.ToLower(v) {
		case "it", "that", "this", "them", "those", "these", "one", "the other", "others", "anything", "everything":
			return
		}
		for _, o := range out {
			if strings.EqualFold(o, v) {
				return
			}
		}
		out = append(out, v)
	}
	// phrase splits the noun phrase starting at pos into items on "or",
	// "and", "nor", "/" and adds them.
	phrase := func(pos int) {
		itemStart := pos
		words := 0
		i := pos
		for i < len(s) {
			c := s[i]
			if c == ' ' {
				i++
				continue
			}
			if c == '/' {
				add(itemStart, i)
				i++
				itemStart = i
				continue
			}
			if !clsIsWordByte(c) {
				break
			}
			w, e := clsNextWord(s, i)
			if w == "or" || w == "and" || w == "nor" {
				add(itemStart, i)
				itemStart = e
				words = 0
				i = e
				continue
			}
			if (w == "the" || w == "a" || w == "an") && itemStart == i {
				itemStart = e
				i = e
				continue
			}
			if clsIsAltStop(w) || words >= 8 {
				break
			}
			words++
			i = e
		}
		add(itemStart, i)
	}
	first := true
	for from, tries := 0, 0; from < len(s) && tries < clsMaxTries; tries++ {
		loc := clsContrastRe.FindStringSubmatchIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[2], from+loc[3]
		from = b
		p := t.altStart(a, b)
		if p < 0 {
			continue
		}
		if first && a > decisionAt {
			chosen = t.chosenBefore(a)
		}
		first = false
		phrase(p)
	}
	if loc := clsFromToRe.FindStringSubmatchIndex(s[decisionAt:]); loc != nil {
		phrase(decisionAt + loc[2])
		if chosen == "" {
			to := decisionAt + loc[1]
			chosen = s[to:t.phraseEnd(to)]
		}
	}
	if i := strings.Index(s, "ruled out "); i >= 0 {
		phrase(i + len("ruled out "))
	}
	if objectAt >= 0 && objectAt < len(s) {
		phrase(objectAt)
	}
	return out, chosen
}

// chosenBefore is the option named just before a contrast: "use pnpm, not
// npm" gives pnpm.
func (t *clsText) chosenBefore(pos int) string {
	var w [3]string
	n := clsWordsBefore(t.norm, pos, w[:])
	k := 0
	for ; k < n; k++ {
		if clsIsChosenStop(w[k], k == 0) {
			break
		}
	}
	if k == 0 {
		return ""
	}
	parts := make([]string, k)
	for i := range k {
		parts[k-1-i] = w[i]
	}
	return strings.Join(parts, " ")
}

// clsIsChosenStop reports whether w ends the chosen option when walking back
// from a contrast; the nearest word may be a verb-like name ("going with Go
// over Rust"), so only function words stop it.
func clsIsChosenStop(w string, nearest bool) bool {
	switch w {
	case "will", "would", "do", "does", "did", "never", "shall", "won't", "don't", "we", "i", "they", "our", "to",
		"is", "are", "be", "the", "a", "an", "decided", "agreed", "use", "using", "uses", "with", "on", "for",
		"opted", "chose", "picked", "selected", "decision", "was", "ruled", "it", "team":
		return true
	case "keep", "keeping", "choose", "prefer", "adopt", "adopted", "go", "going", "went", "stick", "sticking",
		"settled", "switch", "switched", "moved", "migrated", "standardized", "standardised":
		return !nearest
	}
	return false
}

// objectAfter is the thing chosen after a decision phrase: "decided to use
// pnpm" gives pnpm.
func (t *clsText) objectAfter(pos int) string {
	s := t.norm
	for pos < len(s) {
		w, e := clsNextWord(s, pos)
		switch w {
		case "to", "use", "using", "adopt", "keep", "go", "going", "with", "switch", "move", "stick", "sticking", "the", "a", "an", "on", "that", "we", "will":
			pos = e
			continue
		}
		break
	}
	for pos < len(s) && s[pos] == ' ' {
		pos++
	}
	return s[pos:t.phraseEnd(pos)]
}

// phraseEnd is where the option named at pos ends: at punctuation, a
// conjunction or a word that starts a new clause, after at most 8 words.
func (t *clsText) phraseEnd(pos int) int {
	s := t.norm
	i, end, words := pos, pos, 0
	for i < len(s) && words < 8 {
		if s[i] == ' ' {
			i++
			continue
		}
		if !clsIsWordByte(s[i]) {
			break
		}
		w, e := clsNextWord(s, i)
		if w == "or" || w == "and" || w == "nor" || clsIsAltStop(w) {
			break
		}
		words++
		i, end = e, e
	}
	return end
}

// reasoning is the clause after "because", "since", "as", "so that"... If the
// clause comes before the decision ("Because npm broke, we decided..."), it
// ends at the comma before the decision.
func (t *clsText) reasoning(decisionAt int) string {
	s := t.norm
	for from, tries := 0, 0; from < len(s) && tries < clsMaxTries; tries++ {
		loc := clsReasonRe.FindStringSubmatchIndex(s[from:])
		if loc == nil {
			return ""
		}
		ma, mb := from+loc[2], from+loc[3]
		from = mb
		next, _ := clsNextWord(s, mb)
		switch s[ma:mb] {
		case "since":
			if next == "the" || next == "a" || next == "our" || next == "its" || next == "their" {
				after, _ := clsNextWord(s, mb+len(next)+1)
				switch after {
				case "start", "beginning", "end", "launch", "last", "first", "early", "late", "days", "day", "move",
					"migration", "release", "outage", "incident", "summer", "winter", "spring", "fall", "autumn",
					"weekend", "morning", "year", "month", "week", "switch", "upgrade", "merger", "reorg", "kickoff":
					continue // "since the launch" is a time
				}
			} else if next == "" || next[0] >= '0' && next[0] <= '9' || clsIsTimeWord(next) {
				continue // "since 2024" is a time, not a reason
			}
		case "as":
			pronoun := false
			switch next {
			case "it", "it's", "they", "they're", "we", "we're", "he", "she", "this", "that", "there", "there's",
				"everyone", "nobody", "our", "the":
				pronoun = true
			}
			comma := ma > 0 && strings.HasSuffix(strings.TrimRight(s[:ma], " "), ",")
			if next == "the" && !comma {
				pronoun = false
			}
			switch next {
			case "well", "soon", "long", "of", "a", "an", "per", "part", "needed", "usual", "much", "far", "if", "though":
				continue
			}
			if !pronoun && !comma {
				continue
			}
		}
		a := mb
		b := clsSentenceEnd(s, a)
		if ma < decisionAt && decisionAt < b {
			if c := strings.LastIndexByte(s[a:decisionAt], ','); c >= 0 {
				b = a + c
			} else {
				b = decisionAt
			}
		}
		r := strings.TrimRight(t.span(a, b), " .,;:!?")
		if len(r) > 500 {
			cut := 500
			for cut > 0 && !utf8.RuneStart(r[cut]) {
				cut--
			}
			r = r[:cut]
		}
		if r != "" {
			return r
		}
	}
	return ""
}

func clsIsTimeWord(w string) bool {
	switch w {
	case "then", "last", "early", "late", "yesterday", "today", "january", "february", "march", "april", "may",
		"june", "july", "august", "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun",
		"jul", "aug", "sep", "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday", "friday",
		"saturday", "sunday", "q1", "q2", "q3", "q4", "forever", "ever", "before", "spring", "summer", "autumn",
		"fall", "winter", "launch", "v1", "v2", "morning", "noon", "midnight", "this", "that":
		return true
	}
	return false
}

// --------------------------------------------------------------------- mood

var (
	clsMoodWordRe = regexp.MustCompile(`\b(?:stressed(?: out)?|tired|exhausted|worn out|drained|angry|furious|livid|mad at|pissed(?: off)?|happy|sad|unhappy|frustrated|annoyed|irritated|irritable|upset|excited|thrilled|anxious|nervous|worried|bored|grumpy|cranky|moody|overwhelmed|depressed|lonely|disappointed|relieved|elated|cheerful|gloomy|miserable|impatient|fed up|burn(?:ed|t) out|sleepy|restless|jittery|ecstatic|delighted|glad|embarrassed|ashamed|jealous|hopeful|optimistic|pessimistic|heartbroken|homesick|scared|terrified|panicked|panicking|pumped|stoked|outraged|offended|insulted|sulking|sulky|cross with|in a huff|on edge)\b`)
	clsFeelRe     = regexp.MustCompile(`\b(?:feel|feels|feeling|felt|feelin)(?: (?:so|very|really|a bit|a little|a lot|kind of|kinda|sort of|pretty|quite|super|extremely|not|too|rather|slightly|somewhat|much|way|all|totally|completely|absolutely))* (?:good|bad|great|awful|terrible|better|worse|down|low|off|sick|ill|unwell|fine|ok|okay|blue|lousy|rough|crap|crappy|meh|amazing|fantastic|horrible|lost|stuck|unmotivated|motivated|productive|energetic|energi[sz]ed|lazy|guilty|ignored|unheard|undervalued|unappreciated|appreciated|valued|awesome|weird|strange|sluggish|foggy|wired|fried|emotional|hopeless|helpless|useless|left out|under the weather)\b`)
	// clsMoodPhraseRe: moods without a feeling word: "in a bad mood", "rough
	// day", "sick of", exclamations, first-person venting ("I hate ...") and
	// hating a time of day or the moment ("hates Mondays").
	clsMoodPhraseRe = regexp.MustCompile(`\bin an? (?:[a-z]+ )?mood\b|\bmood\b|\b(?:having|had|has had|'s had|'s been|'s having|is having|was having|been having|it's been|it was) an? (?:[a-z]+ )?(?:rough|bad|terrible|awful|long|great|good|horrible|tough|hard|crappy|shitty|lousy|stressful|amazing|fantastic|wonderful) (?:day|morning|week|night|afternoon|evening)\b|\bsick (?:and tired )?of\b|(?:^|[^a-z0-9_'])(?:ugh+|argh+|urgh+|sigh|yay+|woo+hoo+|hooray|grr+|ffs)\b|\bi (?:really |just |absolutely |so |truly |honestly |kinda |seriously )?(?:hate|can't stand|cannot stand|loathe|detest|despise)\b|\b(?:hates|hate|hated|hating|can't stand|cannot stand|loathes|loathe)\s+(?:the |these |those |early |cold |rainy |dark |long )?(?:mornings?|mondays?|early starts|waking up|getting up|this|it|that|today|tonight|the weather|weather|rain|traffic|the commute|commuting|when)\b`)
	// clsMoodAfterGuardRe: what after a feeling word makes it a trait or a
	// habit rather than a mood ("an anxious person", "grumpy every morning").
	clsMoodAfterGuardRe = regexp.MustCompile(`^(?: [a-z]+)?? (?:person|people|type|by nature|in general|whenever|every|each|most|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends)|in the mornings|in the evenings|at night)\b`)
)

func clsIsHabitWord(w string) bool {
	switch w {
	case "usually", "always", "often", "generally", "typically", "normally", "tends", "tend", "naturally", "easily",
		"gets", "get", "whenever", "frequently", "rarely", "never", "sometimes", "chronically", "constantly", "habitually":
		return true
	}
	return false
}

// habitual reports whether the feeling at norm[a:b] is described as a habit
// or trait rather than as a mood.
func (t *clsText) habitual(a, b int) bool {
	var w [3]string
	n := clsWordsBefore(t.norm, a, w[:])
	for _, x := range w[:n] {
		if clsIsHabitWord(x) {
			return true
		}
	}
	return clsMoodAfterGuardRe.MatchString(t.norm[b:])
}

func (t *clsText) mood() (Classification, bool) {
	s := t.norm
	if !t.has(clsFMood) {
		return Classification{}, false
	}
	mood := func(label string, a, b int) (Classification, bool) {
		return Classification{Durability: Ephemeral, Category: CategoryMood, Key: "mood",
			Reason: label + " " + t.quote(a, b)}, true
	}
	for from, tries := 0, 0; from < len(s) && tries < clsMaxTries; tries++ {
		loc := clsMoodPhraseRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		for a < b && !clsIsWordByte(s[a]) {
			a++ // the exclamation alternative starts on a separator
		}
		if !t.habitual(a, b) {
			return mood("mood phrase", a, b)
		}
	}
	for from, tries := 0, 0; from < len(s) && tries < clsMaxTries; tries++ {
		loc := clsFeelRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		if !t.habitual(a, b) {
			return mood("feeling", a, b)
		}
	}
	for from, tries := 0, 0; from < len(s) && tries < clsMaxTries; tries++ {
		loc := clsMoodWordRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		w := s[a:b]
		next, _ := clsNextWord(s, b)
		switch {
		case (w == "happy" || w == "glad") && (next == "to" || next == "hour"):
			continue // "happy to help" is willingness, not a mood
		case (w == "scared" || w == "terrified") && next == "of":
			continue // a fear of something is lasting
		case strings.HasPrefix(s[b:], "'s "):
			continue // a name: "Moody's rating"
		}
		if !t.habitual(a, b) {
			return mood("mood word", a, b)
		}
	}
	return Classification{}, false
}

// ----------------------------------------------------------------- identity

var (
	clsIdentityRe   = regexp.MustCompile(`\b(?:((?:my|his|her|their|your|user's|customer's|client's|legal|full|first|last|real|given|family|maiden) name is|name's|goes by)|(pronouns)|((?:was |were )?born (?:in|at)|birthplace|place of birth)|((?:was |were )?born on|birthday is|birthday:|date of birth|birth ?date|dob)|(allergic to|allerg(?:y|ies) to|(?:nut|peanut|penicillin|gluten|lactose|shellfish|food|drug|latex|pollen|bee|dairy|egg) allerg(?:y|ies)|has (?:an? )?(?:[a-z]+ )?allerg(?:y|ies))|(native (?:language|tongue|speaker)|mother tongue|first language|speaks [a-z]+ natively)|(originally from|grew up in|hails from|nationality|citizenship|citizen of|was raised in)|(introvert|extrovert|ambivert|introverted|extroverted|night owl|morning person|early bird|people person|perfectionist|workaholic)|((?:i'm|i am|is|are|'s|'re) (?:a |an |strict |strictly |lifelong )*(?:vegetarian|vegan|pescatarian|kosher|halal|lactose intolerant|gluten intolerant|coeliac|celiac))|((?:i'm|i am|is|are|'s|'re) (?:a |an )?(?:left-handed|right-handed|colou?r ?blind|deaf|blind|diabetic|autistic|dyslexic|bilingual|trilingual|multilingual))|((?:works|work|worked|working) as (?:an? |the )?[a-z]+|(?:job|occupation|profession) is (?:an? )?[a-z]+|for a living))\b`)
	clsIdentityKeys = [...]string{"name", "pronouns", "born_in", "birthday", "allergy", "native_language", "origin",
		"personality", "diet", "trait", "occupation"}
	// clsRoleRe: "is a software engineer", checked word by word by clsIsRole.
	clsRoleRe = regexp.MustCompile(`\b(?:i'm|i am|is|are|am|'s|'re) (?:also |now |still |actually |really |currently )?(?:an?|the) ([a-z][a-z-]*(?: [a-z][a-z-]*){0,3})`)
)

func clsIsRole(w string) bool {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		if clsIsRole(w[:len(w)-1]) {
			return true
		}
	}
	switch w {
	case "introvert", "extrovert", "ambivert", "engineer", "developer", "programmer", "designer", "manager",
		"director", "founder", "co-founder", "cofounder", "ceo", "cto", "cfo", "coo", "cio", "cmo", "vp", "president",
		"doctor", "physician", "surgeon", "nurse", "teacher", "professor", "lecturer", "student", "lawyer",
		"attorney", "accountant", "architect", "analyst", "scientist", "researcher", "consultant", "contractor",
		"freelancer", "writer", "author", "journalist", "editor", "photographer", "musician", "chef", "cook",
		"pilot", "veteran", "parent", "mother", "father", "mom", "mum", "dad", "grandmother", "grandfather",
		"grandparent", "citizen", "native", "electrician", "plumber", "mechanic", "farmer", "retiree",
		"entrepreneur", "sre", "devops", "recruiter", "salesperson", "marketer", "paramedic", "firefighter",
		"officer", "soldier", "midwife", "vet", "veterinarian", "barista", "waiter", "waitress", "driver",
		"person", "type", "hacker", "coder", "tester", "translator", "interpreter", "tutor", "coach":
		return true
	}
	if len(w) >= 6 && (strings.HasSuffix(w, "ist") || strings.HasSuffix(w, "ian")) {
		switch {
		case strings.HasSuffix(w, "list"), w == "assist", w == "insist", w == "persist", w == "consist",
			w == "resist", w == "median", w == "meridian", w == "exist", w == "subsist", w == "twist":
			return false
		}
		return true
	}
	return false
}

func (t *clsText) identity() (Classification, bool) {
	s := t.norm
	id := func(key string, a, b int) (Classification, bool) {
		return Classification{Durability: Permanent, Category: CategoryIdentity, Key: key,
			Reason: "identity phrase " + t.quote(a, b)}, true
	}
	if !t.has(clsFIdentity) && !(t.has(clsFWork) && t.has(clsFAs)) {
		// no biography, trait or "works as"
	} else if m := clsIdentityRe.FindStringSubmatchIndex(s); m != nil {
		for g := range clsIdentityKeys {
			if m[2+2*g] >= 0 {
				if clsIdentityKeys[g] == "occupation" {
					var last [1]string
					clsWordsBefore(s, m[1], last[:])
					switch last[0] {
					case "expected", "intended", "designed", "advertised", "charm", "well", "before", "usual",
						"normal", "such", "fast", "long", "far", "planned", "documented", "described", "promised":
						continue // "it works as expected"
					}
					if phrase := s[m[0]:m[1]]; strings.Contains(phrase, " is ") && !clsIsJob(last[0]) {
						continue // "my job is stressful" says how it is, not what it is
					}
				}
				return id(clsIdentityKeys[g], m[0], m[1])
			}
		}
	}
	for from, tries := 0, 0; t.has(clsFRole) && from < len(s) && tries < clsMaxTries; tries++ {
		m := clsRoleRe.FindStringSubmatchIndex(s[from:])
		if m == nil {
			break
		}
		a, wa, wb := from+m[0], from+m[2], from+m[3]
		from = wb
		for i := wa; i < wb; {
			w, e := clsNextWord(s, i)
			if e <= i {
				break
			}
			switch w {
			case "at", "in", "for", "of", "with", "and", "because", "the", "who", "that", "which", "on", "from", "to":
				i = wb
				continue
			}
			if clsIsRole(w) {
				if t.find(clsFBounded, clsBoundedRe) != nil || t.find(clsFToday, clsTodayRe) != nil ||
					t.find(clsFPresent, clsPresentRe) != nil {
					// "is the on-call engineer this week": a role for now is a state.
					return Classification{}, false
				}
				key := "occupation"
				if w == "person" || w == "type" || w == "introvert" || w == "extrovert" || w == "ambivert" {
					key = "personality"
				}
				return id(key, a, e)
			}
			i = e
		}
	}
	return Classification{}, false
}

// --------------------------------------------------------------- obligation

var (
	clsObligationRe = regexp.MustCompile(`\b(?:must(?:n't| not)?|needs to|need to|has to|have to|has got to|have got to|'ve got to|gotta|(?:is|are|am|was|were) supposed to|(?:is|are|am) expected to|promised|promises|committed to|commits to|owes|obliged to|obligated to|required to|remind (?:me|him|her|them|us)|reminder|don't forget|do not forget|remember to|deadline|overdue|due|rsvp|on the hook)\b`)
	// clsFutureRe: words that make a named date an appointment or a plan.
	clsFutureRe = regexp.MustCompile(`\b(?:will|'ll|shall|going to|plans? to|planning to|scheduled|is to|are to|should|appointment|appt|meeting|call with|call on|conference|presentation|present|presenting|interview|exam|flight|flying|demo|review|launch|release|renewal|renew|renews|expires|expiry|expiring|submit|send|deliver|pay|payment|file|ship|finish|complete|booked|reservation|event|party|wedding|hearing|court|surgery|checkup|check-up|call|callback|call back|meet|attend|prepare|book|buy|order|pick up|drop off|email|visit|sign|follow up|follow-up|reply|respond|collect|ends|ending)\b`)
	// clsRecurRe: recurrence, shared by obligations (a recurring duty is a
	// routine) and routines.
	clsRecurRe = regexp.MustCompile(`\b(?:every (?:single )?(?:other )?(?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year|quarter|sprint|hour|minute|monday|tuesday|wednesday|thursday|friday|saturday|sunday|summer|winter|spring|autumn|fall|season|\d+ (?:minutes|hours|days|weeks|months|years)|few (?:days|weeks|hours|months)|couple of (?:days|weeks))|each (?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year|quarter|sprint|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|daily|nightly|weekly|bi-?weekly|fortnightly|monthly|quarterly|yearly|annually|hourly|weekdays|weeknights|weekends|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|usually|typically|normally|generally|routinely|habitually|regularly|always|often|frequently|tends? to|whenever|every time|most (?:days|mornings|afternoons|evenings|nights|weekends|weeks)|(?:once|twice|three times|\d+ times|several times) (?:a|an|per|each|every) (?:day|week|month|year|hour)|in the mornings|in the evenings|at night|at weekends|on weekends|as a rule|habit|routine|ritual)\b`)
	clsPastRe  = regexp.MustCompile(`\b(?:was|were|did|had|ago|yesterday|last (?:week|month|year|night|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|quarter)|happened|shipped|released|launched|completed|finished|sent|paid|filed|submitted|delivered|presented|attended|joined|started|began|went|took|met|worked|lived|used to|earlier today|previously|formerly)\b`)
)

func (t *clsText) obligation(now time.Time, past bool) (Classification, bool) {
	s := t.norm
	ma, mb := -1, -1
	for from, tries := 0, 0; t.has(clsFObligation) && from < len(s) && tries < clsMaxTries; tries++ {
		loc := clsObligationRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		w := s[a:b]
		next, nextEnd := clsNextWord(s, b)
		switch {
		case w == "must" && (next == "have" || next == "'ve"):
			continue // "must have missed it" is a guess, not a duty
		case w == "due" && next == "to":
			if after, _ := clsNextWord(s, nextEnd); after != "be" {
				continue // "due to the outage" is a cause
			}
		case w == "deadline":
			var prev [3]string
			n := clsWordsBefore(s, a, prev[:])
			pressure := false
			for _, p := range prev[:n] {
				pressure = pressure || p == "on" || p == "under" || p == "against"
			}
			if pressure {
				continue // "working on a deadline" is a state of pressure
			}
		case strings.HasPrefix(w, "need") || strings.HasPrefix(w, "ha") || strings.HasSuffix(w, "supposed to") ||
			strings.HasSuffix(w, "expected to") || strings.HasSuffix(w, "required to") || strings.HasPrefix(w, "promis"):
			if t.negated(a, 2) {
				// "doesn't need to", "no longer has to": a duty lifted is not a
				// duty, and a date in the text is not its deadline either.
				return Classification{}, false
			}
		}
		ma, mb = a, b
		break
	}
	d, ok := t.findDate(now)
	if ma >= 0 {
		if !ok {
			if r := t.find(clsFRecur, clsRecurRe); r != nil {
				return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "routine",
					Reason: "recurring duty " + t.quote(r[0], r[1])}, true
			}
			return Classification{Durability: ShortTerm, Category: CategoryObligation, Key: "obligation",
				Reason: "obligation phrase " + t.quote(ma, mb) + ", no date"}, true
		}
		dl := d.t
		return Classification{Durability: ShortTerm, Category: CategoryObligation, Key: "deadline", Deadline: &dl,
			Reason: "obligation phrase " + t.quote(ma, mb) + ", date " + t.quote(d.start, d.end)}, true
	}
	if !ok || past || d.bound || d.clockOnly && !d.qualified {
		return Classification{}, false // a clock time alone is a habit's, not a deadline
	}
	if t.find(clsFRecur, clsRecurRe) != nil {
		return Classification{}, false // a recurring event is a routine
	}
	reason := ""
	switch {
	case d.qualified:
		reason = "deadline " + t.quote(d.qualStart, d.end)
	default:
		f := clsFutureRe.FindStringIndex(s)
		for f != nil && f[0] > 0 && s[f[0]-1] == '-' {
			// "on-call", "pre-release": part of a compound word
			next := clsFutureRe.FindStringIndex(s[f[1]:])
			if next == nil {
				f = nil
				break
			}
			f = []int{f[1] + next[0], f[1] + next[1]}
		}
		if f == nil {
			return Classification{}, false
		}
		reason = "planned " + t.quote(f[0], f[1]) + ", date " + t.quote(d.start, d.end)
	}
	dl := d.t
	return Classification{Durability: ShortTerm, Category: CategoryObligation, Key: "deadline", Deadline: &dl,
		Reason: reason}, true
}

// -------------------------------------------------------------------- state

var (
	// clsTodayRe: a state that holds today only is ephemeral even when bounded.
	clsTodayRe = regexp.MustCompile(`\b(?:today|tonight|this morning|this afternoon|this evening)\b`)
	// clsPresentRe: a condition of this very moment; these read as present
	// even next to a past verb ("the deploy that started at 9 is still rolling out").
	clsPresentRe = regexp.MustCompile(`\b(?:right now|at the moment|atm|as we speak|at present|currently|for the moment|just now|eta|in progress|underway|under way|ongoing|rolling out|on a call|on the phone|in a meeting|in meetings|on a break|afk|(?:is|are|'s|'re) (?:still |currently )?(?:down|offline|unreachable|unavailable|degraded|failing|flapping)|still (?:[a-z]+ing|pending|in progress|broken|blocked|open|out|away|sick|down)|(?:is|are|'s|'re|am|'m) (?:now |currently )?(?:deploying|syncing|migrating|rebuilding|restarting|rebooting|reindexing|indexing|backfilling|compiling|building|uploading|downloading|installing|updating|upgrading|loading|processing|recovering|investigating|debugging|driving|commuting|boarding|sleeping|eating|in transit))\b`)
	// clsBoundedRe: a condition with an end in sight: short_term.
	clsBoundedRe = regexp.MustCompile(`\b(?:this week|this weekend|this month|this quarter|this sprint|this season|next week|next few days|(?:the )?coming (?:days|weeks)|for the next|for another|for the rest of|for the time being|for now|temporarily|these days|lately|until|till|til|on vacation|on holidays?|on leave|on pto|pto|on sabbatical|parental leave|maternity leave|paternity leave|sick leave|out of (?:the )?office|ooo|off sick|off work|out sick|on (?:a )?(?:tight )?deadline|under (?:a )?(?:tight )?deadline|against (?:a|the) deadline|(?:is|are|am|'s|'re|'m|currently|still) (?:travell?ing|working on|busy with|dealing with|recovering from|blocked on|waiting (?:on|for))|has (?:a cold|the flu|covid)|(?:is|am|are|'s|'m|'re) (?:sick|ill|unwell|injured|pregnant))\b|^(?:travell?ing|working on|busy with|dealing with|recovering from|blocked on|waiting (?:on|for))\b`)
	// clsForRe: "for two weeks", "for an hour".
	clsForRe = regexp.MustCompile(`\bfor (?:a|an|one|two|three|four|five|six|a few|a couple of|several|\d{1,3}) (minutes?|hours?|days?|weeks?)\b`)
	// clsReadingRe: a metric reading or progress, as of now.
	clsReadingRe = regexp.MustCompile(`\b(?:([a-z0-9]+) )?(lag|latency|load|cpu|memory usage|mem usage|disk usage|queue depth|queue length|queue size|backlog|error rate|throughput|utili[sz]ation|p50|p95|p99|response time|free space|disk space|heap|rps|qps)\b[^.;!?\d]{0,20}\d[\d.,]*(?: ?(?:%|[a-z]+\b))?|\b\d{1,3} ?% (?:done|complete|completed|through|finished|rolled out|deployed|migrated|synced|uploaded|of the way)\b|\b(?:at|reached) \d{1,3} ?%|\b(?:outage|went down|on fire|at lunch)\b`)
)

// stateKey guesses the predicate of a state from its marker.
func (t *clsText) stateKey(marker string) string {
	switch {
	case strings.Contains(marker, "call"), strings.Contains(marker, "phone"), strings.Contains(marker, "meeting"),
		strings.Contains(marker, "vacation"), strings.Contains(marker, "holiday"), strings.Contains(marker, "leave"),
		strings.Contains(marker, "pto"), strings.Contains(marker, "office"), marker == "ooo", marker == "afk",
		strings.Contains(marker, "break"), strings.Contains(marker, "lunch"), strings.Contains(marker, "off work"),
		strings.Contains(marker, "sabbatical"), strings.Contains(marker, "travel"):
		return "availability"
	case strings.Contains(marker, "sick"), strings.Contains(marker, " ill"), strings.Contains(marker, "unwell"),
		strings.Contains(marker, "injured"), strings.Contains(marker, "cold"), strings.Contains(marker, "flu"),
		strings.Contains(marker, "covid"), strings.Contains(marker, "recovering from"), strings.Contains(marker, "pregnant"):
		return "health"
	case strings.Contains(marker, "deadline"), strings.Contains(marker, "working on"), strings.Contains(marker, "busy with"),
		strings.Contains(marker, "dealing with"), strings.Contains(marker, "blocked"), strings.Contains(marker, "waiting"):
		return "workload"
	case strings.Contains(marker, "%"):
		return "progress"
	}
	if loc := clsAvailabilityRe.FindStringIndex(t.norm); loc != nil {
		return "availability"
	}
	if loc := clsLocationRe.FindStringSubmatchIndex(t.norm); loc != nil {
		switch t.norm[loc[2]:loc[3]] {
		case "a", "an", "the", "progress", "meetings", "transit", "charge", "touch", "trouble", "town", "bed", "hospital":
		default:
			return "location"
		}
	}
	return "status"
}

var clsCopulaRe = regexp.MustCompile(`(?:^|\b)(?:is|are|am|'s|'m|'re|being|working|out|off|away|home|in|at|on)\b`)

var clsAvailabilityRe = regexp.MustCompile(`\b(?:on a call|on the phone|in a meeting|in meetings|on vacation|on holidays?|on leave|on pto|ooo|out of (?:the )?office|afk|on a break|at lunch|off work|on sabbatical|working from home|wfh)\b`)

var clsLocationRe = regexp.MustCompile(`\b(?:is|am|are|'s|'m|'re) (?:currently |now |still )?in ([a-z]+)`)

func (t *clsText) state(past bool) (Classification, bool) {
	s := t.norm
	state := func(d Durability, label string, a, b int, key string) (Classification, bool) {
		return Classification{Durability: d, Category: CategoryState, Key: key, Reason: label + " " + t.quote(a, b)}, true
	}
	// A present-tense marker, skipping "currently lives in" (a long_term fact
	// that may change, not a condition of the moment).
	pa, pb := -1, -1
	for from, tries := 0, 0; t.has(clsFPresent) && from < len(s) && tries < clsMaxTries; tries++ {
		loc := clsPresentRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		if s[a:b] == "currently" {
			next, _ := clsNextWord(s, b)
			switch next {
			case "lives", "living", "based", "employed", "works", "resides", "uses", "using", "owns", "holds", "serves", "has":
				continue
			}
		}
		pa, pb = a, b
		break
	}
	// "today" makes a present condition ephemeral ("is working from home
	// today"), but not an event ("called today about billing").
	if loc := t.find(clsFToday, clsTodayRe); loc != nil && (pa >= 0 || !past && clsCopulaRe.MatchString(s)) {
		key := "status"
		if pa >= 0 {
			key = t.stateKey(s[pa:pb])
		} else if bl := t.find(clsFBounded, clsBoundedRe); bl != nil {
			key = t.stateKey(s[bl[0]:bl[1]])
		}
		return state(Ephemeral, "state for today", loc[0], loc[1], key)
	}
	if !past {
		if loc := t.find(clsFBounded, clsBoundedRe); loc != nil {
			return state(ShortTerm, "bounded state", loc[0], loc[1], t.stateKey(s[loc[0]:loc[1]]))
		}
		if m := t.findSub(clsFBounded, clsForRe); m != nil && !strings.Contains(s, "been ") &&
			!strings.Contains(s, "has ") && !strings.Contains(s, "have ") {
			unit := s[m[2]:m[3]]
			if strings.HasPrefix(unit, "minute") || strings.HasPrefix(unit, "hour") {
				return state(Ephemeral, "state for", m[0], m[1], "status")
			}
			return state(ShortTerm, "bounded state", m[0], m[1], "status")
		}
	}
	if pa >= 0 {
		return state(Ephemeral, "current state", pa, pb, t.stateKey(s[pa:pb]))
	}
	if !past {
		if m := t.findSub(clsFReading, clsReadingRe); m != nil {
			key := "status"
			switch {
			case m[4] >= 0:
				key = clsSlug(s[m[4]:m[5]])
				if m[2] >= 0 {
					switch q := s[m[2]:m[3]]; q {
					case "the", "a", "an", "is", "our", "my", "his", "her", "their", "its", "current", "avg", "average", "and", "of", "with", "high", "low":
					default:
						key = clsSlug(q + "_" + key)
					}
				}
			case strings.Contains(s[m[0]:m[1]], "%"):
				key = "progress"
			case strings.Contains(s[m[0]:m[1]], "lunch"):
				key = "availability"
			}
			return state(Ephemeral, "reading", m[0], m[1], key)
		}
	}
	return Classification{}, false
}

// --------------------------------------------------------------- preference

var clsPreferenceRe = regexp.MustCompile(`\b(?:(prefers?|preferred|preferring|preferences? (?:is|are|for)|would rather|'d rather|(?:always|never|only) (?:uses|use|orders|order|picks|pick|chooses|choose|asks for|drinks|wears|books|flies|wants|reads|watches|listens to|goes for|sits))|(favou?rites?)|(likes|liked|i like|we like|they like|you like|really likes?|loves|i love|we love|they love|really loves?|absolutely loves?|enjoys|i enjoy|we enjoy|enjoyed|(?:is|am|are|'m|'re|'s) (?:a )?(?:big |huge )?fan of|fond of|an? (?:[a-z0-9]+ ){0,2}fan)|(dislikes?|disliked|hates|hated|(?:can't|cannot|can not) stand|loathes|detests|(?:doesn't|does not|don't|do not|didn't|never) (?:like|enjoy)|(?:is|am|are|'m|'re|'s) not (?:a )?(?:big )?fan of|not a fan of|no fan of))\b`)

var clsPreferenceKeys = [...]string{"prefers", "favourite", "likes", "dislikes"}

func (t *clsText) preference() (Classification, bool) {
	m := t.findSub(clsFPreference, clsPreferenceRe)
	if m == nil {
		return Classification{}, false
	}
	key := "prefers"
	for g := range clsPreferenceKeys {
		if m[2+2*g] >= 0 {
			key = clsPreferenceKeys[g]
			break
		}
	}
	return Classification{Durability: LongTerm, Category: CategoryPreference, Key: key,
		Reason: "preference " + t.quote(m[0], m[1])}, true
}

// ------------------------------------------------------------------ routine

var clsAtClockRe = regexp.MustCompile(`\b(?:at|around|by) (?:\d{1,2}(?::\d{2})? ?(?:am\b|pm\b|a\.m\.|p\.m\.)|\d{1,2}:\d{2}\b|noon\b|midnight\b)`)

func (t *clsText) routine(now time.Time, past bool) (Classification, bool) {
	if loc := t.find(clsFRecur, clsRecurRe); loc != nil {
		return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "routine",
			Reason: "routine " + t.quote(loc[0], loc[1])}, true
	}
	if past {
		return Classification{}, false
	}
	if loc := t.find(clsFWork, clsWorkScheduleRe); loc != nil {
		return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "work_schedule",
			Reason: "work schedule " + t.quote(loc[0], loc[1])}, true
	}
	if loc := t.find(clsFDate, clsAtClockRe); loc != nil {
		if d, ok := t.findDate(now); ok && !d.clockOnly {
			return Classification{}, false // a dated appointment, not a habit
		}
		return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "routine",
			Reason: "time of day " + t.quote(loc[0], loc[1])}, true
	}
	return Classification{}, false
}

// -------------------------------------------------------------- observation

var clsObservationRe = regexp.MustCompile(`\b(?:(lives in|lives at|live in|live at|living in|based in|based out of|moved to|relocated to|resides in|reside in)|(works at|works for|work at|work for|working at|working for|employed at|employed by|job at)|(uses|use|is using|are using|am using|'m using)|(speaks|speak)|(time ?zone)|(e-?mail(?: address)? is)|(phone(?: number)? is)|(owns))\b`)

var clsObservationKeys = [...]string{"lives_in", "works_at", "uses", "speaks", "timezone", "email", "phone", "owns"}

func (t *clsText) observation() Classification {
	c := Classification{Durability: LongTerm, Category: CategoryObservation, Reason: "no rule matched: a general observation"}
	if m := t.findSub(clsFObservation, clsObservationRe); m != nil {
		for g := range clsObservationKeys {
			if m[2+2*g] >= 0 {
				c.Key = clsObservationKeys[g]
				c.Reason = "observation " + t.quote(m[0], m[1])
				break
			}
		}
	}
	return c
}

// -------------------------------------------------------------------- dates

var (
	clsMonthPat   = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
	clsISODateRe  = regexp.MustCompile(`\b(\d{4})-(\d{1,2})-(\d{1,2})(?:[t ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(z|[+-]\d{2}(?::?\d{2})?)?)?\b`)
	clsMonthDayRe = regexp.MustCompile(`\b` + clsMonthPat + `\.? (\d{1,2})(?:st|nd|rd|th)?\b(?:,? (\d{4})\b)?`)
	clsDayMonthRe = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?` + clsMonthPat + `\b\.?(?:,? (\d{4})\b)?`)
	clsWeekdayRe  = regexp.MustCompile(`\b(?:(next|this|coming|on|by|before|until|till|due) )?(monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thu|friday|fri|saturday|sat|sunday|sun)\b`)
	clsRelDayRe   = regexp.MustCompile(`\b(?:(the day after tomorrow)|(tomorrow|tmrw|tmr)|(today|tonight|eod|end of (?:the )?day|this morning|this afternoon|this evening))\b`)
	clsInNRe      = regexp.MustCompile(`\b(?:in|within) (a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a few|several|\d{1,3}) (minutes?|hours?|days?|weeks?|months?|years?)\b`)
	clsPeriodRe   = regexp.MustCompile(`\b(?:(?:the )?end of (?:the )?(?:(this|next) )?(week|month|year|quarter)|eo(w|m|y|q)|(this|next) (week|weekend|month|year|quarter))\b`)
	clsClockRe    = regexp.MustCompile(`\b(\d{1,2})(?::(\d{2}))? ?(am\b|pm\b|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b|\b(noon|midday|midnight)\b`)
)

// clsDate is a date found in a text.
type clsDate struct {
	start, end int // in norm
	qualStart  int // start of the "by"/"due" before it, when qualified
	t          time.Time
	exact      bool // carries its own time of day
	qualified  bool // preceded by by/before/due/no later than
	bound      bool // preceded by until/till/through/from/after: a state's end, not a deadline
	clockOnly  bool // only a clock time was found; the day is today or tomorrow
}

func clsEndOfDay(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 23, 59, 59, 0, time.UTC)
}

func clsMonth(s string) time.Month {
	if len(s) < 3 {
		return 0
	}
	switch s[:3] {
	case "jan":
		return time.January
	case "feb":
		return time.February
	case "mar":
		return time.March
	case "apr":
		return time.April
	case "may":
		return time.May
	case "jun":
		return time.June
	case "jul":
		return time.July
	case "aug":
		return time.August
	case "sep":
		return time.September
	case "oct":
		return time.October
	case "nov":
		return time.November
	case "dec":
		return time.December
	}
	return 0
}

func clsWeekday(s string) time.Weekday {
	switch s[:2] {
	case "mo":
		return time.Monday
	case "tu":
		return time.Tuesday
	case "we":
		return time.Wednesday
	case "th":
		return time.Thursday
	case "fr":
		return time.Friday
	case "sa":
		return time.Saturday
	}
	return time.Sunday
}

func clsNumber(s string) int {
	switch s {
	case "a", "an", "one":
		return 1
	case "two", "a couple of":
		return 2
	case "three", "a few", "several":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	case "eleven":
		return 11
	case "twelve":
		return 12
	}
	n, _ := strconv.Atoi(s)
	return n
}

func clsAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// clsDayOf returns the end of day y-m-d when it exists (no February 30).
func clsDayOf(y int, m time.Month, d int) (time.Time, bool) {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := clsEndOfDay(y, m, d)
	return t, t.Day() == d && t.Month() == m
}

// clsNextDate is the next m-d on or after today.
func clsNextDate(today time.Time, m time.Month, d int) (time.Time, bool) {
	for y := today.Year(); y <= today.Year()+8; y++ {
		t, ok := clsDayOf(y, m, d)
		if ok && !t.Before(today) {
			return t, true
		}
	}
	return time.Time{}, false
}

// clsFindDate finds the deadline a text names, relative to now (UTC).
//
// It reads ISO dates with an optional time and offset (2026-12-31,
// 2026-12-31T15:00, 2026-12-31T15:00+02:00), "May 15", "May 15th, 2027",
// "15 May", weekdays ("on Friday", "next Monday"), "today", "tonight",
// "tomorrow", "the day after tomorrow", "in 3 days", "within two weeks",
// "end of week/month/quarter/year", "this/next week" and a clock time ("at
// 3pm", "by 17:30", "noon"). A date without a year is its next occurrence on
// or after today; a weekday is its next occurrence after today ("this Friday"
// said on a Friday is today); a week ends on its Friday. The deadline is the
// end of that day, 23:59:59 UTC, unless a time is given. A clock time alone is
// today, or tomorrow once it has passed. Impossible dates (Feb 30) are
// ignored. A date after "by", "before", "due" or "no later than" wins;
// otherwise the first date in the text. Dates after "every", "each", "last"
// or "since" are not deadlines, and one after "until", "till" or "from" is the
// end of a state rather than a deadline.
func clsFindDate(t *clsText, now time.Time) (clsDate, bool) {
	s := t.norm
	ny, nm, nd := now.Date()
	today := clsEndOfDay(ny, nm, nd)
	var found [12]clsDate
	n := 0
	add := func(a, b int, when time.Time, exact bool) {
		if n == len(found) {
			return
		}
		var prev [3]string
		k := clsWordsBefore(s, a, prev[:])
		c := clsDate{start: a, end: b, t: when, exact: exact, qualStart: a}
		if k > 1 && prev[0] == "other" && (prev[1] == "every" || prev[1] == "each") {
			return // "every other Thursday"
		}
		if k > 0 {
			switch prev[0] {
			case "every", "each", "last", "since", "past", "previous":
				return
			case "by", "before", "due", "deadline", "than":
				c.qualified = true
			case "until", "till", "til", "through", "thru", "from", "after", "between":
				c.bound = true
			}
			if c.qualified {
				// qualStart: include the qualifier in the reason.
				c.qualStart = strings.LastIndex(s[:a], prev[0])
			}
		}
		found[n] = c
		n++
	}
	all := func(f clsFlags, re *regexp.Regexp) [][]int {
		if t.flags&f != f {
			return nil
		}
		return re.FindAllStringSubmatchIndex(s, 4)
	}
	for _, m := range all(clsFDigit, clsISODateRe) {
		yy, mm, dd := clsAtoi(s[m[2]:m[3]]), time.Month(clsAtoi(s[m[4]:m[5]])), clsAtoi(s[m[6]:m[7]])
		when, ok := clsDayOf(yy, mm, dd)
		if !ok {
			continue
		}
		exact := false
		if m[8] >= 0 {
			h, mi, sec := clsAtoi(s[m[8]:m[9]]), clsAtoi(s[m[10]:m[11]]), 0
			if m[12] >= 0 {
				sec = clsAtoi(s[m[12]:m[13]])
			}
			if h > 23 || mi > 59 || sec > 59 {
				continue
			}
			when = time.Date(yy, mm, dd, h, mi, sec, 0, time.UTC)
			if m[14] >= 0 && s[m[14]:m[15]] != "z" {
				z := s[m[14]:m[15]]
				zh, zm := clsAtoi(z[1:3]), 0
				if rest := strings.TrimPrefix(z[3:], ":"); rest != "" {
					zm = clsAtoi(rest)
				}
				shift := time.Duration(zh)*time.Hour + time.Duration(zm)*time.Minute
				if z[0] == '+' {
					shift = -shift
				}
				when = when.Add(shift)
			}
			exact = true
		}
		add(m[0], m[1], when, exact)
	}
	// addDay adds a month and day match, in the year its group 3 names or
	// else on the next such date.
	addDay := func(m []int, mon time.Month, day int) {
		var when time.Time
		var ok bool
		if m[6] >= 0 {
			when, ok = clsDayOf(clsAtoi(s[m[6]:m[7]]), mon, day)
		} else {
			when, ok = clsNextDate(today, mon, day)
		}
		if ok {
			add(m[0], m[1], when, false)
		}
	}
	for _, m := range all(clsFMonth|clsFDigit, clsMonthDayRe) {
		addDay(m, clsMonth(s[m[2]:m[3]]), clsAtoi(s[m[4]:m[5]]))
	}
	for _, m := range all(clsFMonth|clsFDigit, clsDayMonthRe) {
		addDay(m, clsMonth(s[m[4]:m[5]]), clsAtoi(s[m[2]:m[3]]))
	}
	for _, m := range all(clsFWeekday, clsWeekdayRe) {
		qual, name := "", s[m[4]:m[5]]
		if m[2] >= 0 {
			qual = s[m[2]:m[3]]
		}
		if qual == "" && len(name) <= 4 && name != "tues" {
			continue // "sat", "sun", "wed" alone are other words
		}
		days := (int(clsWeekday(name)) - int(now.Weekday()) + 7) % 7
		if days == 0 && qual != "this" {
			days = 7 // a weekday names the next one, not today
		}
		a := m[0]
		if m[2] >= 0 && qual != "next" && qual != "this" && qual != "coming" {
			a = m[4] // let "by"/"until" be seen as the qualifier
		}
		add(a, m[1], today.AddDate(0, 0, days), false)
	}
	for _, m := range all(clsFRelDay, clsRelDayRe) {
		switch {
		case m[2] >= 0:
			add(m[0], m[1], today.AddDate(0, 0, 2), false)
		case m[4] >= 0:
			add(m[0], m[1], today.AddDate(0, 0, 1), false)
		default:
			add(m[0], m[1], today, false)
		}
	}
	for _, m := range all(clsFUnit, clsInNRe) {
		k := clsNumber(s[m[2]:m[3]])
		if k <= 0 || k > 1000 {
			continue
		}
		unit := strings.TrimSuffix(s[m[4]:m[5]], "s")
		switch unit {
		case "minute":
			add(m[0], m[1], now.Add(time.Duration(k)*time.Minute).Truncate(time.Second), true)
		case "hour":
			add(m[0], m[1], now.Add(time.Duration(k)*time.Hour).Truncate(time.Second), true)
		case "day":
			add(m[0], m[1], today.AddDate(0, 0, k), false)
		case "week":
			add(m[0], m[1], today.AddDate(0, 0, 7*k), false)
		case "month":
			add(m[0], m[1], clsAddMonths(today, k), false)
		case "year":
			add(m[0], m[1], clsAddMonths(today, 12*k), false)
		}
	}
	for _, mm := range all(clsFPeriod, clsPeriodRe) {
		which, unit := "this", ""
		switch {
		case mm[6] >= 0: // eow, eom...
			switch s[mm[6]:mm[7]] {
			case "w":
				unit = "week"
			case "m":
				unit = "month"
			case "y":
				unit = "year"
			default:
				unit = "quarter"
			}
		case mm[8] >= 0:
			which, unit = s[mm[8]:mm[9]], s[mm[10]:mm[11]]
		default:
			if mm[2] >= 0 {
				which = s[mm[2]:mm[3]]
			}
			unit = s[mm[4]:mm[5]]
		}
		when, ok := clsPeriodEnd(today, which, unit)
		if ok {
			add(mm[0], mm[1], when, false)
		}
	}
	clock := t.has(clsFDigit | clsFClockWord)
	if n == 0 && !clock {
		return clsDate{}, false
	}
	if n == 0 {
		// A clock time alone ("call back by 5pm") is today, or tomorrow once passed.
		if c := clsClockRe.FindStringSubmatchIndex(s); c != nil {
			if h, mi, ok := clsClock(s, c); ok {
				when := time.Date(ny, nm, nd, h, mi, 0, 0, time.UTC)
				if h == 23 && mi == 59 {
					when = today
				}
				if when.Before(now) {
					when = when.AddDate(0, 0, 1)
				}
				var prev [1]string
				q := clsWordsBefore(s, c[0], prev[:]) == 1 && (prev[0] == "by" || prev[0] == "before")
				qs := c[0]
				if q {
					qs = strings.LastIndex(s[:c[0]], prev[0])
				}
				return clsDate{start: c[0], end: c[1], qualStart: qs, t: when, exact: true, qualified: q, clockOnly: true}, true
			}
		}
		return clsDate{}, false
	}
	best := 0
	for i := range n {
		if found[i].qualified && (!found[best].qualified || found[i].start < found[best].start) {
			best = i
		} else if !found[best].qualified && found[i].start < found[best].start {
			best = i
		}
	}
	c := found[best]
	if !c.exact && clock {
		for from, tries := 0, 0; from < len(s) && tries < clsMaxTries; tries++ {
			cl := clsClockRe.FindStringSubmatchIndex(s[from:])
			if cl == nil {
				break
			}
			for i := range cl {
				if cl[i] >= 0 {
					cl[i] += from
				}
			}
			from = cl[1]
			if cl[0] >= c.start && cl[0] < c.end {
				continue // a part of the date itself
			}
			if h, mi, ok := clsClock(s, cl); ok {
				yy, mo, dd := c.t.Date()
				if h == 23 && mi == 59 {
					c.t = clsEndOfDay(yy, mo, dd)
				} else {
					c.t = time.Date(yy, mo, dd, h, mi, 0, 0, time.UTC)
				}
				break
			}
		}
	}
	return c, true
}

// clsAddMonths is the end of the day k months after day, on the last day of
// the target month when it is shorter (Jan 31 + 1 month is Feb 28).
func clsAddMonths(day time.Time, k int) time.Time {
	y, m, d := day.Date()
	first := time.Date(y, m+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
	last := clsEndOfDay(first.Year(), first.Month()+1, 0).Day()
	return clsEndOfDay(first.Year(), first.Month(), min(d, last))
}

// clsClock reads the clock time of a clsClockRe match.
func clsClock(s string, c []int) (h, mi int, ok bool) {
	switch {
	case c[12] >= 0:
		switch s[c[12]:c[13]] {
		case "noon", "midday":
			return 12, 0, true
		default:
			return 23, 59, true
		}
	case c[2] >= 0:
		h = clsAtoi(s[c[2]:c[3]])
		if c[4] >= 0 {
			mi = clsAtoi(s[c[4]:c[5]])
		}
		if h < 1 || h > 12 || mi > 59 {
			return 0, 0, false
		}
		pm := s[c[6]] == 'p'
		if h == 12 {
			h = 0
		}
		if pm {
			h += 12
		}
		return h, mi, true
	case c[8] >= 0:
		h, mi = clsAtoi(s[c[8]:c[9]]), clsAtoi(s[c[10]:c[11]])
		if h > 23 || mi > 59 {
			return 0, 0, false
		}
		return h, mi, true
	}
	return 0, 0, false
}

// clsPeriodEnd is the last day of this or next week (its Friday), weekend
// (its Sunday), month, quarter or year.
func clsPeriodEnd(today time.Time, which, unit string) (time.Time, bool) {
	y, m, _ := today.Date()
	next := which == "next"
	switch unit {
	case "week":
		days := (int(time.Friday) - int(today.Weekday()) + 7) % 7
		if next {
			days += 7
		}
		return today.AddDate(0, 0, days), true
	case "weekend":
		days := (int(time.Sunday) - int(today.Weekday()) + 7) % 7
		if next {
			days += 7
		}
		return today.AddDate(0, 0, days), true
	case "month":
		if next {
			m++
		}
		return clsEndOfDay(y, m+1, 0), true
	case "quarter":
		q := (int(m)-1)/3*3 + 3 // last month of this quarter
		if next {
			q += 3
		}
		return clsEndOfDay(y, time.Month(q)+1, 0), true
	case "year":
		if next {
			y++
		}
		return clsEndOfDay(y, time.December, 31), true
	}
	return time.Time{}, false
}

// ----------------------------------------------------------------- triggers

// clsFlags records which families of words a text contains. Go's regexp has
// no DFA, so the large patterns above cost a few microseconds each; a text
// only runs the patterns whose trigger words it holds. Every alternative of a
// pattern contains at least one word of its family (the tests check this).
type clsFlags uint32

const (
	clsFMood clsFlags = 1 << iota
	clsFIdentity
	clsFWork // works, worked... (with clsFAs: "works as a")
	clsFAs
	clsFRole
	clsFDecided
	clsFAgreed
	clsFChoice
	clsFObligation
	clsFDate
	clsFRecur
	clsFPast
	clsFToday
	clsFPresent
	clsFBounded
	clsFReading
	clsFPreference
	clsFObservation
	clsFResolved // recovered, back to normal (keys.go)
	// Families of the date patterns, all within clsFDate.
	clsFDigit
	clsFMonth
	clsFWeekday
	clsFRelDay
	clsFUnit
	clsFPeriod
	clsFClockWord
)

// clsScan returns the trigger flags of the words of s.
func clsScan(s string) clsFlags {
	var f clsFlags
	for i := 0; i < len(s); {
		if !clsIsWordByte(s[i]) {
			i++
			continue
		}
		j, digit, joined := i, false, false
		for j < len(s) && clsIsWordByte(s[j]) {
			c := s[j]
			digit = digit || c >= '0' && c <= '9'
			joined = joined || c == '\'' || c == '-' || c >= 0x80
			j++
		}
		w := strings.Trim(s[i:j], "'-")
		if digit {
			f |= clsFDate | clsFReading | clsFDigit
		}
		f |= clsWordFlags(w)
		if clsIsRole(w) {
			f |= clsFRole
		}
		if joined {
			// The patterns' \b sees a boundary at an apostrophe, a hyphen or a
			// non-ASCII byte ("stressed-out", "tired…"): score the parts too.
			for k := i; k < j; {
				for k < j && !clsIsPartByte(s[k]) {
					k++
				}
				e := k
				for e < j && clsIsPartByte(s[e]) {
					e++
				}
				if e > k {
					f |= clsWordFlags(s[k:e])
					if clsIsRole(s[k:e]) {
						f |= clsFRole
					}
				}
				k = e
			}
		}
		i = j
	}
	return f
}

func clsIsPartByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

func clsWordFlags(w string) clsFlags {
	switch w {
	// moods: feeling words, feel*, mood phrases
	case "stressed", "tired", "exhausted", "worn", "drained", "angry", "furious", "livid", "mad", "pissed", "happy",
		"sad", "unhappy", "frustrated", "annoyed", "irritated", "irritable", "upset", "excited", "thrilled", "anxious",
		"nervous", "worried", "bored", "grumpy", "cranky", "moody", "overwhelmed", "depressed", "lonely",
		"disappointed", "relieved", "elated", "cheerful", "gloomy", "miserable", "impatient", "fed", "burned", "burnt",
		"sleepy", "restless", "jittery", "ecstatic", "delighted", "glad", "embarrassed", "ashamed", "jealous",
		"hopeful", "optimistic", "pessimistic", "heartbroken", "homesick", "scared", "terrified", "panicked",
		"panicking", "pumped", "stoked", "outraged", "offended", "insulted", "sulking", "sulky", "cross", "huff", "edge",
		"feel", "feels", "feeling", "felt", "feelin", "mood", "hate", "hating", "loathe", "detest", "despise":
		return clsFMood
	case "hates", "hated", "stand", "loathes":
		return clsFMood | clsFPreference
	case "sick":
		return clsFMood | clsFBounded
	case "day":
		return clsFMood | clsFDate | clsFRelDay | clsFUnit
	case "week":
		return clsFMood | clsFDate | clsFBounded | clsFUnit | clsFPeriod
	case "night":
		return clsFMood | clsFRecur
	case "morning", "afternoon", "evening":
		return clsFMood | clsFDate | clsFToday | clsFRelDay
	// identity
	case "name", "name's", "goes", "pronouns", "born", "birthplace", "birth", "birthday", "birthdate", "dob",
		"allergic", "allergy", "allergies", "native", "tongue", "language", "natively", "originally", "grew", "hails",
		"nationality", "citizenship", "citizen", "raised", "introvert", "extrovert", "ambivert", "introverted",
		"extroverted", "owl", "person", "bird", "perfectionist", "workaholic", "vegetarian", "vegan", "pescatarian",
		"kosher", "halal", "intolerant", "coeliac", "celiac", "left-handed", "right-handed", "colorblind",
		"colourblind", "color", "colour", "deaf", "blind", "diabetic", "autistic", "dyslexic", "bilingual",
		"trilingual", "multilingual", "handed", "occupation", "profession":
		return clsFIdentity
	case "works", "work":
		return clsFWork | clsFObservation
	case "worked":
		return clsFWork | clsFObservation | clsFPast
	case "working":
		return clsFWork | clsFObservation | clsFBounded
	case "as":
		return clsFAs
	// decisions
	case "decided", "decides", "settled", "opted", "standardized", "standardised", "decision":
		return clsFDecided
	case "agreed", "agree":
		return clsFAgreed
	case "chose", "chosen", "choose", "picked", "selected", "go", "going", "sticking", "stick", "stuck", "ruled",
		"adopted", "switched", "migrated", "adopt", "forward":
		return clsFChoice
	case "use":
		return clsFChoice | clsFObservation
	case "went":
		return clsFChoice | clsFPast | clsFReading
	case "moved":
		return clsFChoice | clsFObservation
	case "using", "uses":
		return clsFChoice | clsFObservation
	case "now":
		return clsFChoice | clsFPresent
	// obligations
	case "must", "mustn't", "mustn", "needs", "need", "has", "have", "got", "gotta", "supposed", "expected", "promised",
		"promises", "committed", "commits", "owes", "obliged", "obligated", "required", "remind", "reminder",
		"forget", "remember", "overdue", "due", "rsvp", "hook":
		return clsFObligation
	case "deadline":
		return clsFObligation | clsFBounded
	// dates
	case "jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june", "jul", "july",
		"aug", "august", "sep", "sept", "september", "oct", "october", "nov", "november", "dec", "december":
		return clsFDate | clsFMonth
	case "monday", "mon", "tuesday", "tues", "tue", "wednesday", "wed", "thursday", "thurs", "thu", "friday", "fri",
		"saturday", "sat", "sunday", "sun":
		return clsFDate | clsFWeekday
	case "tomorrow", "tmrw", "tmr", "eod":
		return clsFDate | clsFRelDay
	case "eow", "eom", "eoy", "eoq":
		return clsFDate | clsFPeriod
	case "minute", "minutes", "hour", "hours", "weeks", "months", "years":
		return clsFDate | clsFUnit
	case "noon", "midday", "midnight":
		return clsFDate | clsFClockWord
	case "today", "tonight":
		return clsFDate | clsFToday | clsFRelDay
	case "days":
		return clsFDate | clsFBounded | clsFUnit
	case "weekend", "quarter":
		return clsFDate | clsFBounded | clsFPeriod
	case "month":
		return clsFDate | clsFBounded | clsFUnit | clsFPeriod
	case "year":
		return clsFDate | clsFUnit | clsFPeriod
	// routines
	case "every", "each", "daily", "nightly", "weekly", "biweekly", "bi-weekly", "fortnightly", "monthly",
		"quarterly", "yearly", "annually", "hourly", "weekdays", "weeknights", "weekends", "mondays", "tuesdays",
		"wednesdays", "thursdays", "fridays", "saturdays", "sundays", "usually", "typically", "normally", "generally",
		"routinely", "habitually", "regularly", "often", "frequently", "tends", "tend", "whenever", "most", "once",
		"twice", "times", "mornings", "evenings", "rule", "habit", "routine", "ritual":
		return clsFRecur
	case "always", "never", "only":
		return clsFRecur | clsFPreference
	// the past
	case "was", "were", "did", "had", "ago", "yesterday", "last", "happened", "shipped", "released", "launched",
		"completed", "finished", "sent", "paid", "filed", "submitted", "delivered", "presented", "attended", "joined",
		"started", "began", "took", "met", "lived", "used", "earlier", "previously", "formerly":
		return clsFPast
	// present and bounded states, readings
	case "moment", "atm", "present", "currently", "eta", "progress", "underway", "way", "ongoing",
		"rolling", "call", "meeting", "meetings", "break", "afk", "down", "offline", "unreachable",
		"unavailable", "degraded", "failing", "flapping", "still", "deploying", "syncing", "migrating", "rebuilding",
		"restarting", "rebooting", "reindexing", "indexing", "backfilling", "compiling", "building", "uploading",
		"downloading", "installing", "updating", "upgrading", "loading", "processing", "investigating", "debugging",
		"driving", "commuting", "boarding", "sleeping", "eating", "transit":
		return clsFPresent
	case "recovering":
		return clsFPresent | clsFBounded | clsFResolved
	case "speak":
		return clsFPresent | clsFObservation
	case "phone":
		return clsFPresent | clsFObservation
	case "sprint", "season", "next", "coming", "for", "temporarily", "lately", "until", "till", "til", "vacation",
		"holiday", "holidays", "leave", "pto", "sabbatical", "office", "ooo", "off", "out", "travelling", "traveling",
		"busy", "dealing", "blocked", "waiting", "cold", "flu", "covid", "ill", "unwell", "injured", "pregnant":
		return clsFBounded
	case "lag", "latency", "load", "cpu", "memory", "mem", "disk", "queue", "backlog", "error", "throughput",
		"utilization", "utilisation", "response", "free", "heap", "rps", "qps", "outage", "fire", "lunch", "ram",
		"uptime", "median", "errors", "latencies":
		return clsFReading
	// recoveries (keys.go)
	case "recovered", "resolved", "restored", "stabilized", "stabilised", "subsided", "mitigated", "cleared",
		"normalized", "normalised", "back", "again", "normal", "healthy", "green", "fine", "ok", "okay", "up",
		"online", "returned", "clear":
		return clsFResolved
	// preferences
	case "prefer", "prefers", "preferred", "preferring", "preference", "preferences", "rather", "favourite",
		"favorite", "favourites", "favorites", "likes", "liked", "like", "love", "loves", "enjoy", "enjoys", "enjoyed",
		"fan", "fond", "dislike", "dislikes", "disliked", "detests":
		return clsFPreference
	// observations
	case "lives", "live", "based", "resides", "reside", "relocated", "employed", "speaks", "timezone", "time",
		"email", "e-mail", "mail", "owns":
		return clsFObservation
	case "living", "job":
		return clsFObservation | clsFIdentity
	}
	for _, p := range [...]string{"ugh", "argh", "urgh", "grr", "yay", "woo", "sigh", "hooray", "ffs"} {
		if strings.HasPrefix(w, p) {
			return clsFMood
		}
	}
	return 0
}
