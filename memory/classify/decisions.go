package classify

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// decidedRe: phrases that state a decision whoever made it.
	decidedRe = regexp.MustCompile(`\b(?:(?:decided|decides|settled on|settled upon|opted (?:for|to|against)|standardi[sz]ed on|made (?:a|the) (?:final )?decision|final decision|the decision (?:is|was))\b(?: (?:to|on|upon|that|against)\b)?|decision:)`)
	// agreedRe: agreement, a decision when a group agreed.
	agreedRe = regexp.MustCompile(`\b(?:agreed|agree)\b(?: (?:to|on|upon|that)\b)?`)
	// choiceRe: a choice, a decision when a group made it and (for the
	// verbs of use) an alternative is named.
	choiceRe = regexp.MustCompile(`\b(?:chose|chosen|choose|picked|selected|going with|go with|went with|sticking with|stick with|stuck with|ruled out|adopted|switched|moved|migrated|(?:won't|will not|will never|never|don't|do not|let's not|lets not|let us not) (?:use|adopt|go with)|(?:won't|will not|(?:are|'re|is|'s|am|'m) not going to|(?:aren't|isn't) going to) (?:migrate|move|switch|rewrite|support|offer|upgrade|replace|build)|use|using|uses|from now on|going forward)\b`)
	// contrastRe: where an alternative is named.
	contrastRe = regexp.MustCompile(`(?:^|[ ,;(])(not|instead of|rather than|over|against|in place of)\b`)
	// fromToRe: "switched from npm to pnpm".
	fromToRe = regexp.MustCompile(`\bfrom ([^,.;!?]+?) to\b`)
	// reasonRe: where the reasoning starts.
	reasonRe = regexp.MustCompile(`(?:^|[ ,;(])(because of|because|since|as|so that|due to|given that|the reason (?:is|being)(?: that)?|reason:|reasoning:|rationale:|why:)(?: |$)`)
	// oneOffRe: a choice for today only ("we decided to get takeout tonight").
	oneOffRe = regexp.MustCompile(`\b(?:today|tonight|this (?:morning|afternoon|evening)|for (?:breakfast|brunch|lunch|dinner))\b`)
	// lastingRe: words that make a choice made today last ("from today on").
	lastingRe = regexp.MustCompile(`\b(?:from now on|going forward|from today|onwards?|for good|permanently|always|every)\b`)
	// ruleRe: what makes "we agreed that ..." a rule rather than an
	// opinion shared ("refunds over $100 need approval").
	ruleRe = regexp.MustCompile(`\b(?:will|would|shall|should|must|need|needs|require|requires|required|only|always|never|every|is to|are to|going to|gonna|can't|cannot|won't|don't|doesn't|from now on|going forward)\b|'ll\b`)
	// tripRe: where people go together ("went with Jake to the lake"), not
	// what was chosen ("going with Vercel to host the site").
	tripRe = regexp.MustCompile(`^[^,.;!?]{0,40}? to (?:the|a|an|my|our|his|her|their|some) `)
	// diagnosisRe: "ruled out" in a diagnosis, not a choice ("we ruled out
	// the network as the cause").
	diagnosisRe = regexp.MustCompile(`\b(?:cause|causes|culprit|fault|faulty|issue|problem|bug|leak|failure|regression|suspect|explanation|diagnosis|symptom)s?\b`)
)

func isCollective(w string, passive bool) bool {
	switch w {
	case "we", "we've", "we'll", "we're", "we'd", "let's", "lets", "our", "us", "team", "teams", "everyone", "everybody",
		"all", "both", "group", "committee", "board", "they", "they've", "they'll", "they're", "leads", "company", "org",
		"organisation", "organization", "project", "squad", "crew":
		return true
	case "was", "were", "been", "it's":
		return passive
	}
	return false
}

// isSpeaker reports whether w is the speaker alone.
func isSpeaker(w string) bool {
	switch w {
	case "i", "i've", "i'll", "i'm", "i'd":
		return true
	}
	return false
}

// decider tells who decides at pos, from the nearest of the few words
// before it that names someone: a group ("we", "the team", "Sam and I")
// or the speaker alone ("I"). Neither means a named person or no one.
func (t *text) decider(pos int, passive bool) (group, speaker bool) {
	var w [6]string
	n := wordsBefore(t.norm, pos, w[:])
	for i, x := range w[:n] {
		if isCollective(x, passive) {
			return true, false
		}
		if isSpeaker(x) {
			if i+1 < n && w[i+1] == "and" {
				return true, false // "Sam and I agreed"
			}
			return false, true
		}
	}
	return false, false
}

// groupAfter reports whether a group is the subject of the clause that
// follows a decision phrase: "I decided we'd go with Stripe".
func (t *text) groupAfter(pos int) bool {
	w, e := nextWord(t.norm, pos)
	if w == "that" {
		w, e = nextWord(t.norm, e)
	}
	switch w {
	case "we", "we'll", "we're", "we'd", "we've", "let's", "everyone", "everybody":
		return true
	case "the", "our", "all":
		w, _ = nextWord(t.norm, e)
		return w == "team" || w == "teams" || w == "company" || w == "group" || w == "squad" || w == "crew"
	}
	return false
}

// hedged reports whether the decision at pos is only weighed, not made: a
// modal or a hedge just before it or its subject ("maybe we'll go with",
// "we should use", "if we switch", "how about we"), or a question ("should
// we go with Stripe"). For a choice verb (choice) intentions, attempts,
// advice and habits count too ("we want to go with", "let's try using",
// "I'd recommend sticking with", "we usually go with"); the subject ends
// the look back, so that "after we tried Redis we went with Memcached" is
// a choice made.
func (t *text) hedged(pos int, choice bool) bool {
	var w [4]string
	n := wordsBefore(t.norm, pos, w[:])
	last := n - 1
	for i := 0; i <= last; i++ {
		switch x := w[i]; x {
		case "maybe", "perhaps", "possibly", "probably", "might", "could", "should", "would", "can", "shall",
			"might've", "could've", "should've", "would've", "if", "whether", "unless", "wonder", "wondering":
			return true
		case "i'd", "we'd", "you'd", "they'd":
			if choice {
				return true // "I'd go with Postgres"; but "we'd decided"
			}
		case "consider", "considering", "think", "thinking", "suggest", "suggests", "suggested", "suggesting",
			"propose", "proposes", "proposed", "proposing", "recommend", "recommends", "recommended",
			"recommending", "need", "needs", "want", "wants", "wanna", "try", "trying", "tried", "tries", "testing",
			"tested", "experimenting", "experimented", "hope", "hoping", "usually", "normally", "typically",
			"generally", "often", "sometimes", "tend":
			if choice {
				return true
			}
		case "about":
			if choice && i+1 < n && (w[i+1] == "how" || w[i+1] == "what") {
				return true // "how about we go with"
			}
		default:
			if (isCollective(x, false) || isSpeaker(x) || isPerson(x)) && last > i+1 {
				last = i + 1 // the word before the subject is the last that hedges
			}
		}
	}
	return t.askedAt(pos)
}

// askedAt reports whether the sentence or clause holding pos asks rather
// than tells: it ends in "?", or it opens like a question ("should we",
// "did the team", "why did we"), question mark or not.
func (t *text) askedAt(pos int) bool {
	s := t.norm
	start, end := t.near(pos, pos)
	if end < len(s) && s[end] == '?' {
		return true
	}
	if (start == 0 || isSentenceEnd(s, start-1)) && opensQuestion(s, start) {
		return true
	}
	// "Hey team, should we go with Stripe"; "Sam: are we sticking with it"
	if c := strings.LastIndexAny(s[start:pos], ",:"); c >= 0 {
		return opensQuestion(s, start+c+1)
	}
	return false
}

// opensQuestion reports whether the clause starting at pos opens like a
// question.
func opensQuestion(s string, pos int) bool {
	first, e := nextWord(s, pos)
	second, _ := nextWord(s, e)
	switch first {
	case "what", "why", "how", "which", "when", "where", "who", "whose":
		return isAuxWord(second)
	}
	if !isAuxWord(first) {
		return false
	}
	switch second {
	case "we", "i", "you", "they", "he", "she", "it", "the", "our", "your", "their", "his", "her", "everyone",
		"everybody", "anyone", "anybody", "someone", "somebody", "there", "team":
		return true
	}
	return false
}

func isAuxWord(w string) bool {
	switch w {
	case "do", "does", "did", "is", "are", "was", "were", "am", "have", "has", "had", "can", "could", "should",
		"shall", "will", "would", "may", "might", "must":
		return true
	}
	return false
}

// oneOff reports whether the sentence holding pos makes a choice for today
// only ("we decided to get takeout tonight"), which is no lasting decision
// unless it names an alternative or says it lasts.
func (t *text) oneOff(pos int, hasContrast bool) bool {
	if hasContrast {
		return false
	}
	a, b := t.near(pos, pos)
	sent := t.norm[a:b]
	return oneOffRe.MatchString(sent) && !lastingRe.MatchString(sent)
}

// near is the sentence holding norm[a:b], cut to at most window bytes
// either side of it, so that a long text repeating a match costs linear
// time.
func (t *text) near(a, b int) (start, end int) {
	s := t.norm
	lo, hi := max(0, a-window), min(len(s), b+window)
	start, end = lo, hi
	for i := a - 1; i >= lo; i-- {
		if isSentenceEnd(s, i) {
			start = i + 1
			break
		}
	}
	for i := b; i < hi; i++ {
		if isSentenceEnd(s, i) {
			end = i
			break
		}
	}
	return start, end
}

// companion reports whether the words after "go with" or "stick with"
// name company rather than an option: "went with my mom to the mall",
// "going with friends", "go with your gut", "going with the flow".
func (t *text) companion(pos int) bool {
	s := t.norm
	w, e := nextWord(s, pos)
	switch w {
	case "me", "him", "them", "us", "you", "everyone", "everybody", "someone", "somebody", "y'all":
		return true
	}
	for range 4 {
		switch w {
		case "the", "a", "an", "some", "few", "couple", "of", "two", "three", "my", "your", "our", "their", "his",
			"her", "best", "little", "big", "older", "younger", "old", "whole", "new", "dear", "other", "own":
			w, e = nextWord(s, e) // "my best friend"
			continue
		case "friend", "friends", "family", "kids", "kid", "children", "child", "baby", "parents", "mom", "mum",
			"dad", "mother", "father", "sister", "sisters", "brother", "brothers", "wife", "husband", "partner",
			"boyfriend", "girlfriend", "fiance", "fiancé", "fiancee", "fiancée", "daughter", "son", "grandma",
			"grandpa", "cousin", "cousins", "aunt", "uncle", "colleague", "colleagues", "coworker", "coworkers",
			"neighbour", "neighbours", "neighbor", "neighbors", "in-laws", "inlaws", "folks", "guys", "girls", "boys",
			"roommate", "roommates", "team", "gang", "class", "dog", "flow", "gut", "crowd", "instinct", "instincts",
			"heart":
			return true
		}
		return false
	}
	return false
}

// particle reports whether "up", "out" or "off" follows the verb that
// ends at pos within a few words, or "on" or "at" right after it: "picked
// up the kids", "picked us up", "picked on him".
func (t *text) particle(pos int) bool {
	for i := range 3 {
		w, e := nextWord(t.norm, pos)
		switch w {
		case "up", "out", "off":
			return true
		case "on", "at":
			return i == 0
		case "":
			return false
		}
		pos = e
	}
	return false
}

// operational reports whether what "switched" or "migrated" at pos moves is
// load in an incident, not a choice of tools: "we switched traffic from the
// primary to the replica".
func (t *text) operational(pos int) bool {
	s := t.norm
	for range 3 {
		w, e := nextWord(s, pos)
		switch w {
		case "the", "all", "over":
			pos = e
			continue
		case "traffic", "load", "reads", "writes", "requests", "queries", "connections", "jobs", "pods", "nodes",
			"replicas", "primary", "leader", "shards", "shard", "partitions", "workloads", "users", "customers",
			"sessions":
			return true
		}
		return false
	}
	return false
}

// action reports whether what was decided, after the decision phrase
// ending at pos, is an action taken once during an incident, which a
// decision to take it does not make lasting: "we decided to restart the
// pods", "the team decided to roll back".
func (t *text) action(pos int) bool {
	w, e := nextWord(t.norm, pos)
	if w == "to" {
		w, e = nextWord(t.norm, e)
	} else if !strings.HasSuffix(t.norm[:pos], " to") {
		return false
	}
	switch w {
	case "restart", "reboot", "revert", "redeploy", "retry", "rerun", "bounce", "flush", "purge", "drain", "kill",
		"failover", "rollback", "wait", "abort", "reindex", "resync", "hotfix":
		return true
	case "roll", "fail":
		next, ne := nextWord(t.norm, e)
		if next == "over" {
			// "fail over to us-east-2" names where traffic runs from now:
			// a choice of target; "fail over" alone is the act.
			to, _ := nextWord(t.norm, ne)
			return to != "to"
		}
		return next == "back"
	}
	return false
}

// isBeOrGot reports whether w, just before a choice verb, makes it passive:
// "I got picked", "we were selected", "we're stuck with".
func isBeOrGot(w string) bool {
	switch w {
	case "got", "get", "gets", "getting", "was", "were", "is", "are", "am", "be", "been", "being", "i'm", "we're",
		"they're", "you're", "he's", "she's", "it's", "still":
		return true
	}
	return false
}

// isPerson reports whether w is a personal pronoun: "she was picked over
// Sam" is about a person, not a choice of tools.
func isPerson(w string) bool {
	switch w {
	case "i", "we", "you", "he", "she", "they", "who", "me", "him", "her", "us", "them":
		return true
	}
	return false
}

// isIntent reports whether w, before "to go with" or "to choose", makes it
// a choice: "we're going to go with Stripe", unlike "wine to go with
// dinner" or "we have to choose".
func isIntent(w string) bool {
	switch w {
	case "going", "decided", "agreed", "chose", "opted", "voted", "plan", "planning", "planned", "intend",
		"intending":
		return true
	}
	return false
}

// isPetOrChild reports whether w names what a family adopts: "we adopted a
// rescue dog" is no decision about a tool.
func isPetOrChild(w string) bool {
	switch w {
	case "dog", "dogs", "cat", "cats", "puppy", "puppies", "kitten", "kittens", "pup", "rescue", "baby", "child",
		"children", "kid", "kids", "son", "daughter", "boy", "girl", "pet", "pets", "bunny", "rabbit", "hamster",
		"horse", "parrot", "bird", "greyhound", "twins":
		return true
	}
	return false
}

// pending reports whether the decision word at pos is still to come: "to be
// decided", "will be agreed".
func (t *text) pending(pos int) bool {
	var w [1]string
	return wordsBefore(t.norm, pos, w[:]) == 1 && w[0] == "be"
}

func (t *text) negated(pos, words int) bool {
	var w [4]string
	n := wordsBefore(t.norm, pos, w[:min(words, len(w))])
	for _, x := range w[:n] {
		if isNegation(x) {
			return true
		}
	}
	return false
}

func (t *text) decision() (Classification, bool) {
	s := t.norm
	start, end, found := -1, -1, false
	objectAt := -1 // the object of "we won't use X" is an alternative
	// Explicit decision phrases, by anyone but the speaker alone: "I
	// decided to take a nap" is a personal choice unless it names an
	// alternative or the group it binds ("I decided we'd use pnpm").
	for from, tries := 0, 0; t.has(fDecided) && from < len(s) && !found && tries < maxTries; tries++ {
		loc := decidedRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		switch next, _ := nextWord(s, b); next {
		case "nothing", "yet", "anything", "whether", "if":
			continue // "decided nothing yet"
		case "this", "it", "so", "these":
			continue // "Lina decided this at the retro": who decided, no choice
		case "", "at", "in", "on", "yesterday", "today", "last", "during", "after", "before", "with", "without", "for", "by":
			if strings.HasSuffix(s[a:b], " that") || strings.HasSuffix(s[a:b], " on") {
				continue // "we decided that at the retro"
			}
		}
		if t.negated(a, 3) || t.pending(a) || t.action(b) || t.hedged(a, false) {
			continue
		}
		hasContrast := t.contrastIn(t.near(a, b))
		if _, speaker := t.decider(a, false); speaker && !hasContrast && !t.groupAfter(b) && !t.lastingReason(a) {
			continue
		}
		if t.oneOff(a, hasContrast) {
			continue
		}
		start, end, found = a, b, true
	}
	// Agreement by a group: "we agreed to", not "I agree with you".
	for from, tries := 0, 0; t.has(fAgreed) && from < len(s) && !found && tries < maxTries; tries++ {
		loc := agreedRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		if group, _ := t.decider(a, true); !group || t.negated(a, 3) || t.pending(a) {
			continue
		}
		phrase := s[a:b]
		if next, _ := nextWord(s, b); phrase == "agree" || phrase == "agree that" || next == "disagree" {
			continue // "we agree": an opinion shared, not a decision
		}
		_, hi := t.near(a, b)
		if (phrase == "agreed" || phrase == "agreed that") && !strings.HasPrefix(s[b:], ":") && !ruleRe.MatchString(s[b:hi]) &&
			!(t.contrastIn(a, hi) && !pastClauseRe.MatchString(s[b:hi])) {
			continue // "we all agreed it was a great trip"; not "the team agreed: no deploys on Fridays"
		}
		if t.hedged(a, !strings.HasPrefix(phrase, "agreed")) || t.oneOff(a, false) {
			continue // "we need to agree on a naming scheme"
		}
		start, end, found = a, b, true
	}
	// Choices by a group, with an alternative where the verb alone says
	// little. The speaker alone chooses for others only against a named
	// alternative ("I'm going with Postgres over MySQL").
	for from, tries := 0, 0; t.has(fChoice) && from < len(s) && !found && tries < maxTries; tries++ {
		loc := choiceRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		verb := s[a:b]
		atStart := strings.TrimSpace(s[sentenceStart(s, a):a]) == ""
		sentStart, sentEnd := max(sentenceStart(s, a), a-window), min(sentenceEnd(s, b), b+window)
		rest := s[b:sentEnd]
		hasContrast := t.contrastIn(sentStart, sentEnd)
		group, speaker := t.decider(a, false)
		var prev [2]string
		np := wordsBefore(s, a, prev[:])
		neg := strings.HasPrefix(verb, "won't ") || strings.HasPrefix(verb, "will ") ||
			strings.HasPrefix(verb, "never ") || strings.HasPrefix(verb, "don't ") || strings.HasPrefix(verb, "do not ") ||
			strings.Contains(verb, " not ") || strings.Contains(verb, "n't going to")
		if strings.HasPrefix(verb, "let") {
			group = true // "let's not use ORMs": the group speaks
		}
		switch {
		case verb == "use" || verb == "using" || verb == "uses":
			// "we use pnpm, not npm"; "use pnpm, not npm" as a house rule,
			// and so is "use mutexes for the cache from now on".
			imperative := verb == "use" && (atStart || lastingLeadRe.MatchString(s[sentStart:a]))
			found = (hasContrast && (imperative || group || speaker) ||
				imperative && lastingRe.MatchString(s[sentStart:sentEnd])) && !t.negated(a, 2)
		case verb == "switched" || verb == "migrated":
			if t.operational(b) {
				continue // "we switched traffic from the primary to the replica"
			}
			found = group && (fromToRe.MatchString(rest) || hasContrast) || speaker && hasContrast
		case verb == "moved":
			// "We moved from Leeds to York" tells where, not what was ruled
			// out: only an alternative makes a move a decision.
			found = (group || speaker) && hasContrast
		case verb == "from now on" || verb == "going forward":
			after := b
			for after < len(s) && (s[after] == ' ' || s[after] == ',' || s[after] == ':') {
				after++
			}
			found = group || t.groupAfter(after) || strings.Contains(s, "we ") // "going forward, we'll ..."
			// "From now on all schema migrations run through the migrate
			// job, never by hand": a rule on things, not the speaker's
			// habit ("from now on I'm going to the gym") nor an order
			// ("from now on, send the invoices to ...": preferences.go).
			switch subject, _ := nextWord(s, after); {
			case found, isSpeaker(subject), isPerson(subject), instructionVerbs[subject], subject == "please",
				subject == "it", subject == "there", subject == "":
			default:
				found = ruleStatementRe.MatchString(s[after:sentEnd]) || t.contrastIn(after, sentEnd)
			}
		case strings.HasSuffix(verb, " with") && !neg:
			if verb == "stuck with" && np > 0 && isBeOrGot(prev[0]) {
				continue // "we're stuck with Oracle": no choice at all
			}
			trip := verb != "stuck with" && !strings.HasPrefix(verb, "stick") && tripRe.MatchString(rest[:min(len(rest), 64)])
			if trip || t.companion(b) {
				continue // "went with Jake and Amy to the lake", "going with friends"
			}
			if np == 2 && prev[0] == "to" && !isIntent(prev[1]) {
				continue // "wine to go with dinner"
			}
			if next, _ := nextWord(s, b); atStart && next == "it" {
				continue // "Stick with it": encouragement
			}
			found = atStart || group || hasContrast
			if verb == "went with" {
				// "We went with the cheaper hotel" reports what was bought
				// or done; a choice it is beside an alternative, a lasting
				// reason ("went with Postgres because we need transactions")
				// or, for a group, the end it serves ("we went with the
				// staged rollout for the kernel patch"). The addressee's
				// thing chosen ("we went with your competitor") is a
				// customer's news, not the scope's decision.
				next, _ := nextWord(s, b)
				we := np > 0 && (prev[0] == "we" || prev[0] == "we've")
				found = hasContrast || (group || t.named(t.chosenAt(b))) && t.lastingReason(a) ||
					we && next != "your" && purposeRe.MatchString(rest) && !disclaimRe.MatchString(rest)
			}
		default:
			if np > 0 && isBeOrGot(prev[0]) {
				// "I got picked for the workshop": chosen, not choosing. A
				// thing chosen over another is a decision, whoever made it:
				// "Postgres was chosen over MySQL".
				found = np == 2 && hasContrast && !isBeOrGot(prev[1]) && !isSpeaker(prev[1]) && !isPerson(prev[1])
				break
			}
			if np == 2 && prev[0] == "to" && !isIntent(prev[1]) {
				continue // "we have to choose between them", "we get to pick"
			}
			next, nextEnd := nextWord(s, b)
			switch {
			case verb == "picked" && t.particle(b):
				continue // "picked up the kids", "picked us up"
			case verb == "adopted":
				if next == "a" || next == "an" || next == "two" || next == "our" || next == "my" || next == "the" {
					next, nextEnd = nextWord(s, nextEnd)
				}
				if after, _ := nextWord(s, nextEnd); isPetOrChild(next) || isPetOrChild(after) {
					continue // "we adopted a rescue dog"
				}
			case verb == "ruled out" && diagnosisRe.MatchString(s[sentStart:sentEnd]):
				continue // "we ruled out the network as the cause"
			}
			if after, _ := nextWord(s, nextEnd); !neg && !hasContrast && isPronounObject(next, after) {
				continue // "the team picked it": who chose, not what
			}
			// The speaker's own choice is a decision beside an alternative,
			// or when it names what was chosen (a tool, a vendor, a place:
			// "I picked Go for the CLI") and a reason that lasts; "I chose
			// the blue one because it matches my shoes" is a purchase.
			found = (group || speaker && (hasContrast || t.named(t.chosenAt(b)) && t.lastingReason(a))) &&
				!t.negated(a, 2)
			if found && neg {
				objectAt = b
			}
		}
		if found && (t.hedged(a, true) || t.oneOff(a, hasContrast)) {
			found, objectAt = false, -1
		}
		if found {
			start, end = a, b
		}
	}
	if !found && t.has(fChoice) && containsAny(s, "stay", "remain") {
		// "For now it stays in Go": the status quo kept, by whoever speaks.
		if m := statusQuoRe.FindStringSubmatchIndex(s); m != nil && t.named(m[2]) && !t.companion(m[2]-1) &&
			!t.hedged(m[0], true) && settledRe.MatchString(s[sentenceStart(s, m[0]):sentenceEnd(s, m[1])]) {
			start, end, found = m[0], m[1], true
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
		if k := slug(chosen); k != "" {
			parts = append(parts, k)
		}
		for _, a := range c.Alternatives {
			if k := slug(a); k != "" {
				parts = append(parts, k)
			}
		}
		sort.Strings(parts)
		c.Key = slug("choice_" + strings.Join(parts, "_"))
	} else if c.Key = t.decisionObject(end); c.Key == "" {
		// "We will use pnpm going forward": the object came first. A key
		// specific to the decision keeps its lock from covering others.
		c.Key = t.decisionObject(sentenceStart(t.norm, start))
	}
	if c.Key == "" {
		c.Key = "decision"
	}
	return c, true
}

// decisionObject is a key made of the first words after the decision phrase:
// "decided to meet every Monday" gives meet_every_monday.
func (t *text) decisionObject(pos int) string {
	s := t.norm
	stop := sentenceEnd(s, pos)
	var parts [4]string
	n := 0
	for i := pos; i < stop && n < len(parts); {
		if !isWordByte(s[i]) {
			if s[i] != ' ' && n > 0 {
				break // punctuation ends the object
			}
			i++
			continue
		}
		w, j := nextWord(s, i)
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
		case "because", "since", "as", "so", "for", "instead", "rather", "over", "and", "but", "which", "after", "from":
			i = stop
			continue
		}
		parts[n] = w
		n++
	}
	return slug(strings.Join(parts[:n], "_"))
}

// contrastIn reports whether norm[a:b] names an alternative.
func (t *text) contrastIn(a, b int) bool {
	for from, tries := a, 0; from < b && tries < maxTries; tries++ {
		loc := contrastRe.FindStringSubmatchIndex(t.norm[from:b])
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
func (t *text) altStart(a, b int) int {
	s := t.norm
	word := s[a:b]
	var prev [1]string
	hasPrev := wordsBefore(s, a, prev[:]) == 1
	commaBefore := a > 0 && strings.HasSuffix(strings.TrimRight(s[:a], " "), ",")
	pos := b
	next, nextEnd := nextWord(s, pos)
	switch word {
	case "not":
		switch next {
		case "to", "use", "using", "go", "going", "adopt", "adopting", "switch", "switching":
			// "decided not to use npm": skip the verb and keep its object.
			for _, skip := range []string{"to", "use", "using", "go", "going", "with", "adopt", "adopting", "switch", "switching"} {
				if next == skip {
					pos = nextEnd
					next, nextEnd = nextWord(s, pos)
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
			after, _ := nextWord(s, nextEnd)
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
			if w, e := nextWord(s, pos); w == "with" || w == "to" {
				pos = e
			}
		}
	}
	for pos < len(s) && s[pos] == ' ' {
		pos++
	}
	if pos >= len(s) || !isWordByte(s[pos]) {
		return -1
	}
	return pos
}

func isAltStop(w string) bool {
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
func (t *text) alternatives(decisionAt, objectAt int) ([]string, string) {
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
			if !isWordByte(c) {
				break
			}
			w, e := nextWord(s, i)
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
			if isAltStop(w) || words >= 8 {
				break
			}
			words++
			i = e
		}
		add(itemStart, i)
	}
	first := true
	for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
		loc := contrastRe.FindStringSubmatchIndex(s[from:])
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
	if loc := fromToRe.FindStringSubmatchIndex(s[decisionAt:]); loc != nil {
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
func (t *text) chosenBefore(pos int) string {
	var w [3]string
	n := wordsBefore(t.norm, pos, w[:])
	k := 0
	for ; k < n; k++ {
		if isChosenStop(w[k], k == 0) {
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

// isChosenStop reports whether w ends the chosen option when walking back
// from a contrast; the nearest word may be a verb-like name ("going with Go
// over Rust"), so only function words stop it.
func isChosenStop(w string, nearest bool) bool {
	switch w {
	case "will", "would", "do", "does", "did", "never", "shall", "won't", "don't", "we", "i", "they", "our", "to",
		"is", "are", "be", "the", "a", "an", "decided", "agreed", "use", "using", "uses", "with", "on", "for",
		"opted", "chose", "picked", "selected", "decision", "was", "ruled", "it", "team", "we're", "we'll", "we've",
		"i'm", "i'll", "they're", "let's", "not":
		return true
	case "keep", "keeping", "choose", "prefer", "adopt", "adopted", "go", "going", "went", "stick", "sticking",
		"settled", "switch", "switched", "moved", "migrated", "standardized", "standardised":
		return !nearest
	}
	return false
}

// objectAfter is the thing chosen after a decision phrase: "decided to use
// pnpm" gives pnpm.
func (t *text) objectAfter(pos int) string {
	s := t.norm
	for pos < len(s) {
		w, e := nextWord(s, pos)
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
func (t *text) phraseEnd(pos int) int {
	s := t.norm
	i, end, words := pos, pos, 0
	for i < len(s) && words < 8 {
		if s[i] == ' ' {
			i++
			continue
		}
		if !isWordByte(s[i]) {
			break
		}
		w, e := nextWord(s, i)
		if w == "or" || w == "and" || w == "nor" || isAltStop(w) {
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
func (t *text) reasoning(decisionAt int) string {
	s := t.norm
	for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
		loc := reasonRe.FindStringSubmatchIndex(s[from:])
		if loc == nil {
			return ""
		}
		ma, mb := from+loc[2], from+loc[3]
		from = mb
		next, _ := nextWord(s, mb)
		switch s[ma:mb] {
		case "since":
			if next == "the" || next == "a" || next == "our" || next == "its" || next == "their" {
				after, _ := nextWord(s, mb+len(next)+1)
				switch after {
				case "start", "beginning", "end", "launch", "last", "first", "early", "late", "days", "day", "move",
					"migration", "release", "outage", "incident", "summer", "winter", "spring", "fall", "autumn",
					"weekend", "morning", "year", "month", "week", "switch", "upgrade", "merger", "reorg", "kickoff":
					continue // "since the launch" is a time
				}
			} else if next == "" || next[0] >= '0' && next[0] <= '9' || isTimeWord(next) {
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
		b := sentenceEnd(s, a)
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

func isTimeWord(w string) bool {
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

// ruleStatementRe: what makes a statement on things a rule ("all schema
// migrations run through the migrate job, never by hand"), not a forecast
// ("the weather will improve").
var ruleStatementRe = regexp.MustCompile(`\b(?:must|need|needs|only|always|never|every|all|no|none|should|shall|require|requires|required|can't|cannot|don't|doesn't|is to|are to|goes? through|runs? through)\b`)

// purposeRe: the end a choice serves ("for the kernel patch").
var purposeRe = regexp.MustCompile(`^ [^,.;!?]{1,40}? for (?:the |our |this |all |every |each |new )?(?:[a-z0-9-]+ ){0,2}(?:service|app|patch|release|project|repo|api|cli|site|stack|cluster|database|db|build|pipeline|deploy|deployment|rollout|migration|backend|frontend|dashboard|infra|infrastructure|kernel|fleet|launch|feature|integration|upgrade|product|platform|sdk|library|schema)s?\b`)

// disclaimRe: a choice said to mean nothing ("no real reason", "nothing
// special about it").
var disclaimRe = regexp.MustCompile(`\b(?:no (?:real |particular |special |good )?reason|nothing special|for no reason|no big deal|just because|arbitrarily|at random)\b`)

// lastingLeadRe: what may stand before an order that sets a house rule
// ("From now on, use ...", "Please use ...").
var lastingLeadRe = regexp.MustCompile(`^(?:(?:from now on|going forward|moving forward|in future|please|and|so|also)[,:]? ?)+$`)

// pastClauseRe: a clause told in the past, which describes what happened
// rather than what holds.
var pastClauseRe = regexp.MustCompile(`\b(?:was|were|had|did|wasn't|weren't|didn't|hadn't)\b`)

// lastingReason reports whether the decision at pos gives a reason that
// holds now ("I picked Go for the CLI because the team already knows
// it"): a choice weighed for what lasts, which makes even the speaker's
// own choice a decision. A reason told in the past ("because it was
// raining") or a passing feeling or state ("because I'm tired") explains
// a one-off.
func (t *text) lastingReason(pos int) bool {
	r := t.reasoning(pos)
	if r == "" || pastClauseRe.MatchString(strings.ToLower(r)) {
		return false
	}
	switch Classify(r, noFactNow).Category {
	case CategoryMood, CategoryState:
		return false
	}
	return true
}

// chosenAt is where the thing chosen after a choice verb ending at pos
// starts, past an article ("picked the Go CLI"): -1 when none.
func (t *text) chosenAt(pos int) int {
	s := t.norm
	for pos < len(s) && s[pos] == ' ' {
		pos++
	}
	if w, e := nextWord(s, pos); w == "the" || w == "a" || w == "an" {
		pos = e
		for pos < len(s) && s[pos] == ' ' {
			pos++
		}
	}
	if pos >= len(s) || !isWordByte(s[pos]) {
		return -1
	}
	return pos
}

// isPronounObject reports whether w, as what was chosen, names nothing:
// "picked it", "decided this at the retro", but not "chose those numbers".
func isPronounObject(w, after string) bool {
	switch w {
	case "it", "them", "so":
		return true
	case "this", "that", "these", "those", "one":
		switch after {
		case "", "at", "in", "on", "for", "after", "before", "with", "without", "during", "and", "but", "because",
			"since", "yesterday", "today", "last", "then", "too", "again", "i", "we", "so":
			return true
		}
	}
	return false
}

// statusQuoRe: a thing kept as it is after a choice was weighed ("For now
// it stays in Go", "so the parser remains on Postgres"); group 1 is what
// it stays with, and settledRe must say the weighing is over: "The file
// stays in S3 for 30 days" tells how long, not what was chosen.
var (
	statusQuoRe = regexp.MustCompile(`\b(?:it|this|that|the [a-z0-9-]+) (?:stays|remains|will stay|will remain|is staying) (?:in|on|with) ([a-z0-9][a-z0-9.+#-]*)`)
	settledRe   = regexp.MustCompile(`^(?:so|then|ok|okay|fine|anyway)\b|\b(?:for now|for the time being|after all|as is|as it is|instead)\b|\b(?:then|anyway)[.!]*$`)
)

// named reports whether the word at norm[pos] is a name, capitalised where
// written ("Go", "Postgres"), and no person's: a thing kept with "my Mum"
// is no choice of tools.
func (t *text) named(pos int) bool {
	if pos <= 0 || pos >= len(t.norm) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t.orig[t.off[pos]:])
	return unicode.IsUpper(r)
}
