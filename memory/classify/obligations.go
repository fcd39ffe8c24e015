package classify

import (
	"regexp"
	"strings"
	"time"
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
	recurRe = regexp.MustCompile(`\b(?:every (?:single )?(?:other )?(?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year|quarter|sprint|hour|minute|monday|tuesday|wednesday|thursday|friday|saturday|sunday|summer|winter|spring|autumn|fall|season|\d+ (?:minutes|hours|days|weeks|months|years)|few (?:days|weeks|hours|months)|couple of (?:days|weeks))|each (?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year|quarter|sprint|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|daily|nightly|weekly|bi-?weekly|fortnightly|monthly|quarterly|yearly|annually|hourly|weekdays|weeknights|weekends|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|usually|typically|normally|generally|routinely|habitually|regularly|always|often|frequently|tends? to|whenever|every time|most (?:days|mornings|afternoons|evenings|nights|weekends|weeks)|(?:once|twice|three times|\d+ times|several times) (?:a|an|per|each|every) (?:day|week|month|year|hour)|in the mornings|in the evenings|at night|at weekends|on weekends|as a rule|habit|routine|ritual)\b`)
	pastRe  = regexp.MustCompile(`\b(?:was|were|did|had|ago|yesterday|last (?:week|month|year|night|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|quarter)|happened|shipped|released|launched|completed|finished|sent|paid|filed|submitted|delivered|presented|attended|joined|started|began|went|took|met|worked|lived|used to|earlier today|previously|formerly|renewed|complained|reported|mentioned|cancell?ed|upgraded|downgraded)\b`)
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
	if !ok || past || d.bound || d.clockOnly && !d.qualified && !clockEventRe.MatchString(s) {
		return Classification{}, false // a clock time alone is a habit's, not a deadline
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
