package classify

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

var (
	obligationRe = regexp.MustCompile(`\b(?:must(?:n't| not)?|needs to|need to|has to|have to|has got to|have got to|'ve got to|gotta|(?:is|are|am|was|were) supposed to|(?:is|are|am) expected to|promised|promises|committed to|commits to|owes|obliged to|obligated to|required to|remind (?:me|him|her|them|us)|reminder|don't forget|do not forget|remember to|deadline|overdue|due|rsvp|on the hook)\b`)
	// futureRe: words that make a named date an appointment or a plan.
	futureRe = regexp.MustCompile(`\b(?:will|'ll|shall|going to|plans? to|planning to|scheduled|is to|are to|should|appointment|appt|meeting|call with|call on|conference|presentation|present|presenting|interview|exam|flight|flying|demo|review|launch|release|renewal|renew|renews|expires|expiry|expiring|submit|send|deliver|pay|payment|file|ship|finish|complete|booked|reservation|event|party|wedding|hearing|court|surgery|checkup|check-up|call|callback|call back|meet|attend|prepare|book|buy|order|pick up|drop off|email|visit|sign|follow up|follow-up|reply|respond|collect|ends|ending|comes|come|coming|arrives|arrive|arriving|starts|start|starting|begins|begin|beginning|kicks off|goes live|go live|fly|flies|moving|bringing|meeting|heading|leaving|leaves|returning|returns|visiting|taking place|takes place)\b`)
	// clockEventRe: an event that a clock time alone dates, today or
	// tomorrow ("the interview is at 10am", "migration starts at 22:00"),
	// where a clock time alone is otherwise a habit's.
	clockEventRe = regexp.MustCompile(`\b(?:appointment|appt|interview|exam|flight|surgery|hearing|demo|migration|maintenance|cutover|launch|go-live|reservation|dinner|lunch|party|wedding|funeral|viewing|screening)\b`)
	// awayRe: someone out or away on a day to come ("I'm off tomorrow", "out
	// Friday for a dentist appointment", "I'll be late today"): a state of
	// availability, not an appointment.
	awayRe = regexp.MustCompile(`\b(?:is|am|are|'s|'m|'re|be) (?:out|off|away|late|ooo|out of (?:the )?office|unavailable|offline)\b`)
	// recurRe: recurrence, shared by obligations (a recurring duty is a
	// routine) and routines.
	recurRe = regexp.MustCompile(`\b(?:every (?:single )?(?:other )?(?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year|quarter|sprint|hour|minute|monday|tuesday|wednesday|thursday|friday|saturday|sunday|summer|winter|spring|autumn|fall|season|\d+ (?:seconds|minutes|hours|days|weeks|months|years)|few (?:days|weeks|hours|months)|couple of (?:days|weeks))|each (?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year|quarter|sprint|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|daily|nightly|weekly|bi-?weekly|fortnightly|monthly|quarterly|yearly|annually|hourly|weekdays|weeknights|weekends|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|usually|typically|normally|generally|routinely|habitually|regularly|always|often|frequently|tends? to|whenever|every time|most (?:days|mornings|afternoons|evenings|nights|weekends|weeks)|(?:once|twice|three times|\d+ times|several times) (?:a|an|per|each|every) (?:day|week|month|year|hour)|in the mornings|in the evenings|at night|at weekends|on weekends|as a rule|habit|routine|ritual)\b`)
	pastRe  = regexp.MustCompile(`\b(?:was|were|did|had|ago|yesterday|last (?:week|month|year|night|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|quarter)|happened|shipped|released|launched|completed|finished|sent|paid|filed|submitted|delivered|presented|attended|joined|started|began|went|took|met|worked|lived|used to|earlier today|previously|formerly|renewed|complained|reported|mentioned|cancell?ed|upgraded|downgraded|threatened|woke|emailed|bought|ordered|forgot|broke)\b`)
)

func (t *text) obligation(now time.Time, past bool) (Classification, bool) {
	s := t.norm
	ma, mb := -1, -1
	for from, tries := 0, 0; t.has(fObligation) && from < len(s) && tries < maxTries; tries++ {
		loc := obligationRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		w := s[a:b]
		next, nextEnd := nextWord(s, b)
		switch {
		case w == "must" && (next == "have" || next == "'ve"):
			continue // "must have missed it" is a guess, not a duty
		case w == "due" && next == "to":
			if after, _ := nextWord(s, nextEnd); after != "be" {
				continue // "due to the outage" is a cause
			}
		case w == "deadline":
			var prev [3]string
			n := wordsBefore(s, a, prev[:])
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
	if ma < 0 && !pastClauseRe.MatchString(s) && t.has(fObligation) && strings.Contains(s, "need") {
		// "We need the data processing agreement signed before our audit
		// on March 20": a need with a date or a thing to get done is a duty.
		if m := needRe.FindStringSubmatchIndex(s); m != nil && !t.negated(m[0], 2) &&
			(ok && !d.bound || participleRe.MatchString(s[m[1]:sentenceEnd(s, m[1])])) {
			ma, mb = m[2], m[3]
		}
	}
	if ma >= 0 {
		if !ok {
			if r := t.find(fRecur, recurRe); r != nil {
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
	if !past {
		if c, ok := t.commitment(now); ok {
			return c, true
		}
	}
	if !ok || past || d.bound || d.clockOnly && !d.qualified && !clockEventRe.MatchString(s) {
		return Classification{}, false // a clock time alone is a habit's, not a deadline
	}
	if d.clockOnly && (strings.HasPrefix(s, "please don't") || strings.HasPrefix(s, "don't") ||
		strings.HasPrefix(s, "never") || t.has(fWork) && workScheduleRe.MatchString(s)) {
		return Classification{}, false // "Please don't call me before 10am, I work nights": a standing wish
	}
	if !d.qualified && awayRe.MatchString(s) {
		return Classification{}, false // out on a day: a state (states.go)
	}
	if t.find(fRecur, recurRe) != nil {
		return Classification{}, false // a recurring event is a routine
	}
	reason := ""
	switch {
	case d.qualified:
		reason = "deadline " + t.quote(d.qualStart, d.end)
	default:
		f := futureRe.FindStringIndex(s)
		for f != nil && (f[0] > 0 && s[f[0]-1] == '-' || s[f[0]:f[1]] == "call" && strings.HasSuffix(s[:f[0]], "on ")) {
			// "on-call", "pre-release": part of a compound word; "on call"
			// is a duty roster's state, not a call to make
			next := futureRe.FindStringIndex(s[f[1]:])
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

var (
	// needRe: a need of the speaker's or of a group's, which is a duty when
	// it names a date or a thing to get done ("We need the agreement
	// signed"); "needs to" is obligationRe's.
	needRe = regexp.MustCompile(`\b(?:i|we|you|they|he|she|[a-z]+) (?:still |really |urgently |also )?(needs?) (?:the|a|an|this|that|our|my|his|her|their|your|it|them|these|those|all)\b`)
	// commitRe: a commitment told in the future ("Sam will post updates",
	// "We'll revisit next sprint", "I'm going to file the claim"); group 1
	// is the verb.
	commitRe = regexp.MustCompile(`(?:\b(?:will|shall|(?:is|are|am) going to|plans? to|planning to|intends? to)|'ll|(?:'s|'re|'m) going to) (?:also |then |first |personally |definitely |still |try to |be sure to |make sure to )?([a-z]+)\b`)
	// planRe: a plan told in the present progressive with an occasion
	// ("I'm meeting Giulia for lunch", "we're having dinner with the
	// Garcias").
	planRe = regexp.MustCompile(`\b(?:i'm|i am|we're|we are|is|are|'s|'re) (?:meeting|seeing|having (?:lunch|dinner|breakfast|brunch|coffee|drinks)|grabbing (?:lunch|dinner|coffee|drinks)|taking [a-z]+ (?:out )?(?:to|for))\b[^,.;!?]{0,40}\b(?:for|over|at|to) (?:a |an |the )?(?:lunch|dinner|breakfast|brunch|coffee|drinks|a drink|the movies|the game|the concert|the show)\b|\b(?:i'm|i am|we're|we are|is|are|'s|'re) having (?:lunch|dinner|breakfast|brunch|coffee|drinks) with\b`)
	// hedgeWordRe: what makes a commitment a guess.
	hedgeWordRe = regexp.MustCompile(`\b(?:maybe|perhaps|probably|possibly|might|may|hopefully|if|unless|i think|i guess|i hope|i suppose|not sure|whether)\b`)
)

// commitment classifies a commitment or a plan a person states without a
// duty word: the future of an action ("Sam will post updates every 30
// minutes", "Kenji will lead the on-call rotation review", "She'll shadow
// on-call for two weeks", "We'll revisit next sprint") or a plan in the
// present progressive with an occasion ("I'm meeting Giulia for lunch"): a
// short_term obligation, with the date it names as its deadline. A
// prediction has a thing for subject ("the build will take an hour"), a
// state a verb of being ("I'll be late": states.go), a hedge makes a
// guess ("I'll probably go"), and a duty held now ("Maria will cover his
// shift") is the duty's state (states.go); none is a commitment. A
// recurring commitment is a routine, unless it recurs within hours, which
// is a duty for an incident ("post updates every 30 minutes").
func (t *text) commitment(now time.Time) (Classification, bool) {
	s := t.norm
	found, a, b := false, -1, -1
	for from, tries := 0, 0; t.has(fFuture) && from < len(s) && tries < maxTries; tries++ {
		m := commitRe.FindStringSubmatchIndex(s[from:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += from
			}
		}
		from = m[1]
		verb := s[m[2]:m[3]]
		if dutyVerb(verb) && t.bare() {
			// "Maria will cover his shift": the duty she holds then.
			if c, ok := t.duty(); ok {
				return c, true
			}
		}
		if !commitVerb(verb) || !t.committer(m[0]) {
			continue
		}
		found, a, b = true, m[0], m[1]
		for a < b && !isWordByte(s[a]) {
			a++
		}
		break
	}
	label := "commitment"
	if !found {
		var m []int
		if containsAny(s, "meeting", "seeing", "having", "grabbing", "taking") {
			m = planRe.FindStringIndex(s)
		}
		if m == nil {
			return Classification{}, false
		}
		found, a, b, label = true, m[0], m[1], "plan"
	}
	if hedgeWordRe.MatchString(s) {
		return Classification{}, false // "I'll probably go": a guess
	}
	if r := t.find(fRecur, recurRe); r != nil && !shortRecurRe.MatchString(s[r[0]:]) {
		return Classification{}, false // "I'll call mum every Sunday": a routine
	}
	c := Classification{Durability: ShortTerm, Category: CategoryObligation, Key: "obligation",
		Reason: label + " " + t.quote(a, b)}
	if d, ok := t.findDate(now); ok && !d.bound && !d.t.Before(now) {
		dl := d.t
		c.Deadline, c.Key = &dl, "deadline"
		c.Reason += ", date " + t.quote(d.start, d.end)
	}
	return c, true
}

// shortRecurRe: a recurrence within hours, a duty's for an incident.
var shortRecurRe = regexp.MustCompile(`^every (?:\d+|few|couple of|other|single)? ?(?:minutes?|hours?|half hour)\b|^hourly\b`)

// dutyVerb reports whether w, after "will", takes on a duty held for a
// while (states.go: duty): the pager, a shift, a role.
func dutyVerb(w string) bool {
	switch w {
	case "cover", "take", "hold", "carry", "pick", "grab", "swap", "handle", "own", "lead", "coordinate":
		return true
	}
	return false
}

// commitVerb reports whether w, after "will", is an action someone commits
// to rather than a state, a feeling or a guess.
func commitVerb(w string) bool {
	switch w {
	case "be", "have", "need", "want", "like", "love", "hate", "see", "know", "feel", "think", "miss", "lose",
		"fail", "forget", "probably", "likely", "not", "never", "always", "also", "still", "just", "surely",
		"definitely", "happen", "get", "take", "make", "keep", "stay", "remain", "go", "come", "work", "depend",
		"cost", "last", "break", "rain", "snow", "mean", "help", "let", "find", "hear", "wait", "become", "seem",
		"look", "sound", "do", "say", "tell", "ask", "appreciate", "understand", "agree", "bet", "manage", "try",
		"remember", "note", "bear", "consider":
		return false
	}
	return len(w) > 1
}

// committer reports whether the words before the "will" at pos name the
// person or the group who commits: a pronoun, a contraction ("she'll"), a
// name (capitalised where written) or a word for people. "It will rain"
// and "The build will take an hour" name things; "you'll get an email"
// tells what the reader will get.
func (t *text) committer(pos int) bool {
	s := t.norm
	if pos > 0 && isWordByte(s[pos-1]) {
		// "she'll": the subject is the word the contraction ends.
		j := pos
		for j > 0 && isWordByte(s[j-1]) {
			j--
		}
		switch s[j:pos] {
		case "i", "we", "he", "she", "they":
			return true
		}
		return false
	}
	var w [1]string
	if wordsBefore(s, pos, w[:]) == 0 {
		return false
	}
	switch w[0] {
	case "i", "we", "he", "she", "they", "i'm", "we're", "he's", "she's", "they're":
		return true
	case "it", "this", "that", "there", "you", "which", "what", "who":
		return false
	}
	return isPeopleWord(w[0]) || t.nameBefore(pos, w[0])
}

// nameBefore reports whether w, the word just before pos, is a name:
// capitalised where written, and no pronoun or determiner that a sentence
// opens with ("Sam will", "Elena needs", but not "Everything will").
func (t *text) nameBefore(pos int, w string) bool {
	at := strings.LastIndex(t.norm[:pos], w)
	if at < 0 || at >= len(t.norm) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t.orig[t.off[at]:])
	if !unicode.IsUpper(r) {
		return false
	}
	if at > 0 && !isSentenceEnd(t.norm, max(0, at-2)) && t.norm[max(0, at-2)] != ':' {
		return true // capitalised inside a sentence: a name
	}
	switch w {
	case "it", "this", "that", "there", "these", "those", "everything", "nothing", "something", "anything",
		"which", "what", "who", "all", "some", "most", "many", "none", "each", "both", "either", "neither", "the",
		"a", "an", "our", "my", "your", "their", "his", "her", "its", "no", "one", "another", "other", "such":
		return false
	}
	return true
}
