package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory/classify"
)

// This file finds who or what a sentence is about, for the extractor that
// attributes each candidate fact to an entity (extract.Rules). It reads the
// start of the sentence, the way a person does:
//
//	"I work nights", "Remind me to call the bank"   the speaker
//	"Jordan works nights", "Maya's birthday is ..."  Jordan, Maya
//	"billing-db replication lag is 4 s"              billing-db
//	"The api-gateway p99 latency is 180 ms"          api-gateway
//	"replication lag on billing-db back to 0.2 s"    billing-db
//	"My sister Maya lives in Porto"                  Maya
//	"My sister lives in Porto"                       the speaker's sister
//	"She is tired", "It recovered"                   whoever was named before
//	"We deploy on Thursdays"                         the group (the text's entity)
//	"The office wifi password is hunter2"            a thing (the text's entity)
//	"Lives in Austin"                                nobody said: a fragment
//
// Greetings and openers ("Hi,", "Thanks,", "By the way,", "Today,") are
// skipped. A capitalised first word is a name only when what follows reads
// as its predicate ("Jordan works", "Edmund is", "Priya hates"), since every
// sentence starts with a capital: "Lives in Austin" and "Feeling stressed"
// are fragments, not people called Lives and Feeling.

// UserEntity is the entity a text's "I", "me" and "my" are about when the
// caller names no speaker and the speaker does not introduce themselves.
const UserEntity = "user"

// SubjectKind says how a sentence names what it is about.
type SubjectKind int

// The kinds of subject.
const (
	SubjectNone        SubjectKind = iota // no subject: a fragment ("Lives in Austin")
	SubjectFirstPerson                    // I, me, my: the speaker
	SubjectRelation                       // "my sister": Name is the relation, of the speaker
	SubjectNamed                          // a person or a thing by name: Name
	SubjectUser                           // "the user", "User": the user the text is about
	SubjectPronoun                        // he, she, it, they: whoever was named before
	SubjectGroup                          // we, our team
	SubjectAddressee                      // you
	SubjectThing                          // a common noun phrase ("the office wifi")
)

var subjectKindNames = [...]string{"none", "first person", "relation", "named", "user", "pronoun", "group",
	"addressee", "thing"}

func (k SubjectKind) String() string {
	if k < 0 || int(k) >= len(subjectKindNames) {
		return "unknown"
	}
	return subjectKindNames[k]
}

// Subject is who or what a sentence is about.
type Subject struct {
	Kind SubjectKind
	// Name is the entity of SubjectNamed, in the writer's spelling, and the
	// relation of SubjectRelation ("sister").
	Name string
}

// maxSubjectWords bounds the words of a name and how far SubjectOf reads.
const (
	maxNameWords   = 4
	maxScanTokens  = 64
	maxSubjectName = 200
)

// subjectToken is a word of a sentence: its core without the punctuation
// around it, lowercased in lower, and the punctuation that followed it.
type subjectToken struct {
	core, lower string
	trail       string
}

// subjectTokens splits the start of s into words.
func subjectTokens(s string) []subjectToken { return tokensUpTo(s, maxScanTokens) }

// tokensUpTo splits s into words, up to max of them.
func tokensUpTo(s string, max int) []subjectToken {
	var out []subjectToken
	for _, f := range strings.Fields(s) {
		if len(out) == max {
			break
		}
		f = strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(f)
		core := strings.TrimLeftFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		end := strings.TrimRightFunc(core, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		trail := core[len(end):]
		core = end
		out = append(out, subjectToken{core: core, lower: strings.ToLower(core), trail: trail})
	}
	return out
}

// SubjectOf finds who or what sentence is about (see above). It never
// fails; a sentence it cannot read is SubjectNone.
func SubjectOf(sentence string) Subject {
	toks := subjectTokens(sentence)
	i := skipOpeners(toks)
	if i >= len(toks) {
		return Subject{}
	}
	sub := subjectAt(toks, i)
	if sub.Kind == SubjectNone || sub.Kind == SubjectThing {
		if name := metricHolder(toks[i:]); name != "" {
			return Subject{Kind: SubjectNamed, Name: name}
		}
		for _, t := range toks[i:] {
			if isFirstPerson(t.lower) || t.lower == "my" {
				return Subject{Kind: SubjectFirstPerson}
			}
		}
	}
	if sub.Kind == SubjectNamed && utf8.RuneCountInString(sub.Name) > maxSubjectName {
		return Subject{}
	}
	return sub
}

// skipOpeners returns the index of the first word after the greetings and
// openers that start toks.
func skipOpeners(toks []subjectToken) int {
	i := 0
	for i < len(toks) && toks[i].core == "" {
		i++ // bullets, dashes
	}
	for range 6 {
		if i >= len(toks) {
			return i
		}
		w := toks[i].lower
		switch {
		case w == "good" && i+1 < len(toks) && isDayPart(toks[i+1].lower):
			i += 2
		case w == "thank" && i+1 < len(toks) && toks[i+1].lower == "you":
			i += 2
		case w == "by" && i+2 < len(toks) && toks[i+1].lower == "the" && toks[i+2].lower == "way":
			i += 3
		case isGreeting(w):
			i++
		case isOpener(w) && strings.HasPrefix(toks[i].trail, ","):
			i++
		case isOpener(w) || isLeadingAdverbial(w):
			// "Today, I ...", "In Denver, I ...": a short phrase up to a comma.
			j := i
			for j < len(toks) && j < i+5 && !strings.HasPrefix(toks[j].trail, ",") {
				j++
			}
			if j < len(toks) && j < i+5 {
				i = j + 1
				continue
			}
			return i
		default:
			return i
		}
		// "Hi there", "Hi Claude," "Hey Jordan -": the one greeted.
		if i < len(toks) && (toks[i].lower == "there" || toks[i].lower == "all" || toks[i].lower == "again" || toks[i].lower == "everyone") {
			i++
		} else if i < len(toks) && isCapitalized(toks[i].core) && toks[i].trail != "" && !isFirstPerson(toks[i].lower) {
			i++
		}
	}
	return i
}

// subjectAt reads the subject that starts at toks[i].
func subjectAt(toks []subjectToken, i int) Subject {
	t := toks[i]
	w := t.lower
	if strings.HasPrefix(t.trail, ":") {
		return Subject{} // a label: "Mood: grumpy"
	}
	next := func(k int) (subjectToken, bool) {
		if k < len(toks) {
			return toks[k], true
		}
		return subjectToken{}, false
	}
	switch {
	case isFirstPerson(w):
		return Subject{Kind: SubjectFirstPerson}
	case w == "my":
		r := i + 1
		if k, ok := next(r); ok && relationLeads[k.lower] && k.trail == "" {
			r++ // "my new boss"
		}
		if rel, n := relationAt(toks, r); rel != "" {
			if name, _, _ := personName(toks, r+n); name != "" {
				return Subject{Kind: SubjectNamed, Name: name} // "My sister Maya lives in Porto"
			}
			return Subject{Kind: SubjectRelation, Name: rel}
		}
		return Subject{Kind: SubjectFirstPerson}
	case w == "our":
		// "Our CTO Priya Nair approved it": Priya Nair.
		if rel, n := relationAt(toks, i+1); rel != "" {
			if name, _, _ := personName(toks, i+1+n); name != "" {
				return Subject{Kind: SubjectNamed, Name: name}
			}
		}
		if n, ok := next(i + 1); ok {
			if isIdentifier(n.core) {
				return Subject{Kind: SubjectNamed, Name: possessiveBase(n.core)}
			}
			if name, _ := nameAt(toks, i+1); name != "" {
				return Subject{Kind: SubjectNamed, Name: name}
			}
		}
		return Subject{Kind: SubjectGroup}
	case isGroup(w):
		return Subject{Kind: SubjectGroup}
	case isAddressee(w):
		return Subject{Kind: SubjectAddressee}
	case isPronoun(w):
		return Subject{Kind: SubjectPronoun}
	case isDeterminer(w):
		n, ok := next(i + 1)
		if !ok {
			return Subject{Kind: SubjectThing}
		}
		if n.lower == "user" || n.lower == "user's" {
			return Subject{Kind: SubjectUser}
		}
		if isIdentifier(n.core) {
			return Subject{Kind: SubjectNamed, Name: possessiveBase(n.core)}
		}
		// After "the", a capital is a name's: "the Payments service".
		if name, end := nameAt(toks, i+1); name != "" {
			if k, ok := next(end); ok && isInfraNoun(k.lower) {
				return Subject{Kind: SubjectNamed, Name: name + " " + k.core}
			}
			return Subject{Kind: SubjectNamed, Name: name}
		}
		return Subject{Kind: SubjectThing}
	case w == "user" || w == "user's":
		return Subject{Kind: SubjectUser}
	case isIdentifier(t.core):
		if isCapitalized(t.core) && !strings.HasSuffix(t.lower, "'s") {
			// "GitHub Actions is flaky"
			if name, end := nameAt(toks, i); end > i+1 {
				return Subject{Kind: SubjectNamed, Name: possessiveBase(name)}
			}
		}
		return Subject{Kind: SubjectNamed, Name: possessiveBase(t.core)}
	}
	if n, ok := next(i + 1); ok && t.trail == "" && isIdentifier(n.core) && !isIdentifier(t.core) {
		return Subject{Kind: SubjectNamed, Name: possessiveBase(n.core)} // "Incident INC-231 is ongoing"
	}
	if !isCapitalized(t.core) || notName(w) {
		return Subject{}
	}
	name, end := nameAt(toks, i)
	if name == "" {
		return Subject{}
	}
	last := toks[end-1]
	if strings.HasSuffix(last.lower, "'s") {
		// "Maya's birthday", "Acme Robotics' data": a possession of Maya.
		// "Jordan's a nurse" reads the same way: about Jordan.
		return Subject{Kind: SubjectNamed, Name: possessiveBase(name)}
	}
	if strings.HasPrefix(last.trail, "'") {
		return Subject{Kind: SubjectNamed, Name: name} // "Acme Robotics' data"
	}
	if strings.HasPrefix(last.trail, ",") && appositiveRelation(toks, end) {
		return Subject{Kind: SubjectNamed, Name: name} // "Maria, my wife, loves jazz"
	}
	n, ok := next(end)
	switch {
	case !ok:
		return Subject{}
	case last.trail != "" && last.trail != "'":
		return Subject{} // "Jordan, ..." or "Decision:" : not the subject's place
	case isIdentifier(n.core):
		return Subject{Kind: SubjectNamed, Name: possessiveBase(n.core)} // "Incident INC-231 is ongoing"
	case isInfraNoun(n.lower):
		return Subject{Kind: SubjectNamed, Name: name + " " + n.core} // "Payments service p99 ..."
	case isPredicateStart(n.lower):
		return Subject{Kind: SubjectNamed, Name: name}
	}
	return Subject{}
}

// appositiveRelation reports whether toks[i:] is a relation of the speaker
// set off by commas and followed by a predicate, after a name: "Maria, my
// wife, loves jazz", "Dana Whitfield, our CTO, moved to Leeds".
func appositiveRelation(toks []subjectToken, i int) bool {
	if i >= len(toks) || toks[i].lower != "my" && toks[i].lower != "our" {
		return false
	}
	rel, n := relationAt(toks, i+1)
	end := i + 1 + n
	return rel != "" && end < len(toks) && strings.HasPrefix(toks[end-1].trail, ",") &&
		isPredicateStart(toks[end].lower)
}

// nameAt is the capitalised name that starts at toks[i] (at most
// maxNameWords words, in the writer's spelling) and the index after it; ""
// when toks[i] does not start one.
func nameAt(toks []subjectToken, i int) (string, int) {
	j := i
	for j < len(toks) && j < i+maxNameWords {
		t := toks[j]
		if !isCapitalized(t.core) || (j > i && notName(t.lower)) || isFirstPerson(t.lower) {
			break
		}
		j++
		if t.trail != "" {
			break // "Jordan," "Acme Robotics'"
		}
	}
	if j == i || notName(toks[i].lower) {
		return "", i
	}
	parts := make([]string, 0, j-i)
	for _, t := range toks[i:j] {
		parts = append(parts, t.core)
	}
	return strings.Join(parts, " "), j
}

// metricHolder finds what a metric belongs to when the sentence names it
// after the metric: "replication lag on billing-db", "disk usage on db-2".
// Only an identifier counts: "latency in Denver" names no system.
func metricHolder(toks []subjectToken) string {
	for k := 0; k+2 < len(toks); k++ {
		if !isMetricWord(toks[k].lower) || toks[k].trail != "" {
			continue
		}
		switch toks[k+1].lower {
		case "on", "of", "for", "in", "at", "from":
			if isIdentifier(toks[k+2].core) {
				return possessiveBase(toks[k+2].core)
			}
		}
	}
	return ""
}

// possessiveBase drops a possessive ending: "billing-db's" is billing-db.
func possessiveBase(s string) string {
	switch {
	case strings.HasSuffix(s, "'s"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s'"):
		return s[:len(s)-1]
	}
	return s
}

// isCapitalized reports whether s starts with an upper-case letter.
func isCapitalized(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// isIdentifier reports whether s reads as the name of a system rather than
// a word: billing-db, api-gateway, db-2, INC-231, node.js, auth_service,
// GitHub. Words with a hyphen (on-call, follow-up), units (4s, 180ms, 9am),
// percentiles (p99), quarters (Q3) and years are not.
func isIdentifier(s string) bool {
	s = possessiveBase(s)
	if len(s) < 2 || len(s) > maxSubjectName {
		return false
	}
	letters, digits, upper, lowerAfterUpper, innerUpper := 0, 0, 0, false, false
	for i, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
				if i > 0 && lowerAfterUpper {
					innerUpper = true
				}
			} else {
				lowerAfterUpper = true
			}
		case r == '_' || r == '-' || r == '.':
		default:
			return false // "24/7", "a+b"
		}
	}
	if letters == 0 {
		return false
	}
	low := strings.ToLower(s)
	if strings.Contains(s, "_") {
		return true
	}
	if i := strings.IndexByte(s, '.'); i > 0 && i < len(s)-1 && len(s) >= 4 {
		switch low {
		case "e.g", "i.e", "u.s", "u.k", "a.m", "p.m", "etc.":
			return false
		}
		return true
	}
	if digits > 0 {
		return !isMeasure(low)
	}
	if strings.Contains(s, "-") {
		for _, p := range strings.Split(low, "-") {
			if isInfraNoun(p) {
				return true
			}
		}
		return false
	}
	// CamelCase: GitHub, PostgreSQL, iOS, PagerDuty (not ALLCAPS, not Title).
	return innerUpper && upper < letters
}

// isMeasure reports whether w, which holds a digit, is a quantity, a time, a
// percentile, a quarter or a year rather than a name.
func isMeasure(w string) bool {
	i := 0
	for i < len(w) && (w[i] >= '0' && w[i] <= '9' || w[i] == '.' || w[i] == ',') {
		i++
	}
	if i == len(w) {
		return true // 2026, 4.5
	}
	if i > 0 {
		// 4s, 180ms, 9am, 1st, 90%, 16gb, 2x, 3pm
		switch w[i:] {
		case "s", "ms", "us", "m", "h", "d", "w", "y", "x", "k", "am", "pm", "st", "nd", "rd", "th", "gb", "mb",
			"kb", "tb", "min", "mins", "hr", "hrs", "sec", "secs", "yo", "ish", "k/s":
			return true
		}
		return false
	}
	// p99, p99.9, q3, h1, v2
	if len(w) >= 2 && (w[0] == 'p' || w[0] == 'q' || w[0] == 'h' || w[0] == 'v') {
		for _, c := range w[1:] {
			if (c < '0' || c > '9') && c != '.' {
				return false
			}
		}
		return true
	}
	return w == "covid-19" || w == "5xx" || w == "4xx" || w == "2fa" || w == "b2b" || w == "b2c" || w == "1:1" ||
		w == "p2p" || w == "24h"
}

// isPredicateStart reports whether w can start what is said of a subject
// named just before it: a verb, an auxiliary or an adverb.
func isPredicateStart(w string) bool {
	switch w {
	case "is", "was", "are", "were", "am", "be", "been", "has", "had", "have", "will", "would", "can", "could",
		"should", "must", "may", "might", "shall", "does", "did", "do", "isn't", "wasn't", "aren't", "weren't",
		"hasn't", "hadn't", "haven't", "won't", "wouldn't", "can't", "cannot", "couldn't", "shouldn't", "doesn't",
		"didn't", "don't", "needs", "usually", "always", "never", "often", "also", "still", "just", "really", "now",
		"currently", "recently", "sometimes", "rarely", "generally", "typically", "mostly", "only", "already",
		"finally", "actually", "definitely", "probably", "normally", "seldom", "apparently", "no", "not", "went",
		"got", "took", "made", "said", "told", "left", "came", "began", "became", "met", "ran", "gave", "sent",
		"bought", "felt", "kept", "thought", "found", "knew", "wrote", "spoke", "won", "lost", "quit", "hit",
		"broke", "grew", "drove", "flew", "ate", "drank", "slept", "woke", "sat", "stood", "paid", "built", "heard",
		"hurt", "let", "put", "read", "set", "shut", "spent", "lent", "led", "held", "brought", "caught", "taught",
		"fell", "forgot", "wants", "back", "recovered", "returned":
		return true
	}
	if len(w) > 3 && strings.HasSuffix(w, "ed") {
		return true
	}
	return isVerbS(w)
}

// isVerbS reports whether w is the third person of a common verb: works,
// lives, hates, prefers, studies, goes.
func isVerbS(w string) bool {
	if !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || len(w) < 3 {
		return false
	}
	if commonVerbs[w[:len(w)-1]] {
		return true
	}
	if strings.HasSuffix(w, "es") && commonVerbs[w[:len(w)-2]] {
		return true
	}
	if strings.HasSuffix(w, "ies") && commonVerbs[w[:len(w)-3]+"y"] {
		return true
	}
	switch w {
	case "has", "does", "goes", "is", "was":
		return true
	}
	return false
}

// commonVerbs are verbs that start the predicate of a fact, in the base form.
var commonVerbs = func() map[string]bool {
	m := map[string]bool{}
	for _, v := range strings.Fields(`live work like love hate prefer need want take use own go run say think know
		get make see play read write eat drink sleep wake walk drive ride fly try buy pay send call speak teach watch
		miss finish enjoy visit attend join leave start stop keep help ask tell give feel seem look sound tend hope
		plan travel commute cook bake swim code manage lead rent study dislike detest loathe adore mind favour favor
		deploy ship release fail crash lag spike recover restart reboot host serve store handle process sync build
		test block depend wait stay move belong report own wear smoke vape exercise practise practice meditate
		jog cycle bike hike climb sing dance paint draw shoot listen prepare review approve reject expect remember
		forget believe understand agree decide choose pick order book schedule cancel postpone reschedule meet
		bring carry hold open close return arrive depart land board check respond reply answer email text message
		text ring phone need owe promise commit plan intend aim care worry suffer struggle cope deal hear ignore
		avoid include contain cover cost weigh measure take`) {
		m[v] = true
	}
	return m
}()

// notName reports whether w, capitalised at the start of a sentence, is a
// word rather than a name: a function word, an adverb, a verb, a day, a
// month, a weekday plural, a label.
func notName(w string) bool {
	if commonVerbs[w] || isVerbS(w) || stopNames[w] {
		return true
	}
	if len(w) >= 6 && strings.HasSuffix(w, "ing") {
		return true // "Feeling stressed", "Working on"
	}
	return false
}

var stopNames = func() map[string]bool {
	m := map[string]bool{}
	for _, v := range strings.Fields(`please remember remind note today tomorrow yesterday tonight now then there
		here this that these those what when where who why how which whose if because since as after before while
		until unless although though once so but and or also just still maybe perhaps probably definitely really
		very not no yes every each some many most all both any another other such nothing everything something
		anything everyone everybody someone somebody anyone anybody nobody none people team everyone folks guys
		usually currently recently honestly actually finally generally typically normally mostly lately only
		hopefully unfortunately fortunately apparently obviously clearly luckily sadly personally ideally eventually
		initially originally previously suddenly quickly slowly rarely barely hardly nearly early daily weekly
		monthly yearly nightly likely certainly surely totally completely absolutely seriously literally frankly
		simply especially exactly sometimes often always never again already soon later meanwhile otherwise
		monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
		saturdays sundays january february march april june july august september october november december
		mornings evenings nights weekends weekdays days weeks months years morning evening night weekend
		eta fyi todo asap ok okay pto ooo wfh eod eow am pm tldr imo imho btw ps nb rsvp faq afaik lol omg
		hi hello hey thanks thank dear good great cool nice sure yeah yep nope ugh oh wow well anyway
		mood decision deadline reason reasoning rationale update status summary reminder fact task issue
		problem question answer context goal result outcome tip warning error important incident alert ops
		customer client user users customers clients staff management leadership everyone's
		lag latency replication traffic load usage cpu memory disk uptime errors throughput backlog
		coffee tea weather work life home money time food`) {
		m[v] = true
	}
	return m
}()

func isFirstPerson(w string) bool {
	switch w {
	case "i", "i'm", "im", "i've", "i'd", "i'll", "me", "myself", "mine":
		return true
	}
	return false
}

func isGroup(w string) bool {
	switch w {
	case "we", "we're", "we've", "we'll", "we'd", "us", "let's", "lets", "ours", "ourselves":
		return true
	}
	return false
}

func isAddressee(w string) bool {
	switch w {
	case "you", "you're", "you've", "you'll", "you'd", "your", "yours", "yourself", "u", "ur":
		return true
	}
	return false
}

func isPronoun(w string) bool {
	switch w {
	case "he", "she", "they", "him", "her", "them", "his", "hers", "their", "theirs", "he's", "she's", "they're",
		"they've", "he'd", "she'd", "they'd", "he'll", "she'll", "they'll", "it", "it's", "its", "itself", "himself",
		"herself", "themselves":
		return true
	}
	return false
}

func isDeterminer(w string) bool {
	switch w {
	case "the", "a", "an", "this", "that", "these", "those", "some", "every", "each", "any", "no", "all", "another":
		return true
	}
	return false
}

func isGreeting(w string) bool {
	switch w {
	case "hi", "hello", "hey", "hiya", "heya", "howdy", "yo", "greetings", "thanks", "cheers", "ok", "okay", "oh",
		"um", "uh", "hmm", "well", "so", "and", "but", "also", "btw", "anyway", "anyways", "fyi", "ps", "yes", "yeah",
		"yep", "no", "nope", "sure", "alright", "right":
		return true
	}
	return false
}

// isOpener: words that start a phrase set off by a comma before the subject.
func isOpener(w string) bool {
	switch w {
	case "actually", "honestly", "basically", "personally", "generally", "usually", "normally", "currently",
		"recently", "lately", "today", "tonight", "yesterday", "tomorrow", "now", "also", "unfortunately",
		"fortunately", "luckily", "sadly", "apparently", "otherwise", "meanwhile", "however", "quick", "update",
		"note", "anyway", "besides":
		return true
	}
	return false
}

// isLeadingAdverbial: words that start a phrase of time or place ("On
// Fridays, ...", "In Denver, ...", "Since March, ...").
func isLeadingAdverbial(w string) bool {
	switch w {
	case "on", "in", "at", "every", "each", "since", "after", "before", "for", "from", "starting", "during", "this",
		"last", "next", "most", "as", "when", "while", "once", "until":
		return true
	}
	return false
}

func isDayPart(w string) bool {
	switch w {
	case "morning", "afternoon", "evening", "night", "day":
		return true
	}
	return false
}

// isRelation: who "my ..." can name.
func isRelation(w string) bool {
	switch w {
	case "sister", "brother", "wife", "husband", "partner", "boyfriend", "girlfriend", "fiance", "fiancee",
		"fiancé", "fiancée", "spouse", "mom", "mum", "mother", "dad", "father", "son", "daughter", "kid", "child",
		"baby", "friend", "boss", "manager", "colleague", "coworker", "co-worker", "cousin", "aunt", "uncle",
		"grandma", "grandpa", "grandmother", "grandfather", "niece", "nephew", "roommate", "flatmate",
		"neighbour", "neighbor", "dog", "cat", "doctor", "therapist", "landlord", "mentor", "teammate",
		"stepson", "stepdaughter", "stepmother", "stepfather":
		return true
	}
	return singleRelations[w] // a relation that names one person (relations.go)
}

// isInfraNoun: words that make a hyphenated word or a capitalised name the
// name of a system (billing-db, api-gateway, "Payments service").
func isInfraNoun(w string) bool {
	switch w {
	case "db", "database", "api", "gateway", "svc", "service", "server", "srv", "cluster", "node", "host",
		"worker", "workers", "queue", "cache", "redis", "proxy", "lb", "web", "app", "backend", "frontend", "prod",
		"production", "staging", "stg", "dev", "qa", "replica", "primary", "shard", "bucket", "pipeline", "runner",
		"indexer", "scheduler", "cron", "etl", "broker", "kafka", "pg", "postgres", "mysql", "mongo", "elastic",
		"es", "k8s", "vm", "router", "vpn", "dns", "cdn", "bot", "ui", "ingest", "ingester", "consumer",
		"producer", "auth", "lambda", "daemon", "stack", "infra", "rds", "grpc", "edge", "storage", "store",
		"search", "mq", "rabbitmq", "nginx", "ingress", "etcd", "batch", "stream", "sync", "service's", "services",
		"apis", "repo", "endpoint", "microservice", "job", "jobs", "mesh", "warehouse", "lake", "cron-job":
		return true
	}
	return false
}

func isMetricWord(w string) bool {
	switch w {
	case "lag", "latency", "latencies", "p50", "p90", "p95", "p99", "p999", "cpu", "memory", "disk", "usage",
		"error", "errors", "rate", "depth", "queue", "throughput", "load", "traffic", "uptime", "status", "health",
		"utilization", "utilisation", "space", "time", "times", "backlog", "rps", "qps":
		return true
	}
	return false
}

// IsName reports whether word, capitalised, can be a person's or a thing's
// name rather than an English word that starts a sentence ("Jordan", not
// "Feeling", "Today" or "Customer").
func IsName(word string) bool {
	w := strings.ToLower(word)
	return isCapitalized(word) && !notName(w) && !isFirstPerson(w) && !isPronoun(w) && !isGroup(w) &&
		!isAddressee(w) && !isDeterminer(w) && !isGreeting(w)
}

// IsRole reports whether word names a role or an occupation ("nurse",
// "engineer", "pharmacist"), as the classifier reads "is a nurse".
func IsRole(word string) bool { return classify.IsRole(word) }

// LeadingWord is the first word of a sentence whose subject SubjectOf
// cannot tell, when it is a plain lower-case word: a name written in lower
// case, followed by a verb ("jun renewed the pager contract"), not a word
// that is no name (notName). Consolidation reads it as an
// entity when it is another spelling of one the scope knows (entities.go),
// and ignores it otherwise. It returns "" for any other sentence.
func LeadingWord(sentence string) string {
	toks := subjectTokens(sentence)
	i := skipOpeners(toks)
	if i >= len(toks) || subjectAt(toks, i).Kind != SubjectNone {
		return ""
	}
	w := toks[i].core
	if utf8.RuneCountInString(w) < 2 || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLower(r) }) >= 0 ||
		notName(w) || i+1 >= len(toks) || !predicateStart(toks[i+1].lower) {
		return ""
	}
	return w
}

// predicateStart reports whether w may start a sentence's predicate: a verb
// in the base form, with an s, or in the past ("renewed", "paid").
func predicateStart(w string) bool {
	return commonVerbs[w] || isVerbS(w) || strings.HasSuffix(w, "ed") || pastForms[w]
}

// pastForms are irregular past tenses that start a predicate.
var pastForms = map[string]bool{"paid": true, "went": true, "got": true, "took": true, "made": true, "said": true,
	"told": true, "left": true, "came": true, "began": true, "became": true, "met": true, "ran": true, "gave": true,
	"sent": true, "bought": true, "sold": true, "found": true, "wrote": true, "drove": true, "flew": true, "won": true,
	"lost": true, "kept": true, "held": true, "built": true, "brought": true, "thought": true, "chose": true, "did": true,
	"had": true, "was": true, "is": true, "has": true, "will": true, "can": true, "must": true, "should": true}
