package classify

import (
	"regexp"
	"strings"
)

var preferenceRe = regexp.MustCompile(`\b(?:(prefers?|preferred|preferring|preferences? (?:is|are|for)|would rather|'d rather|(?:always|never|only) (?:uses|use|orders|order|picks|pick|chooses|choose|asks for|drinks|wears|books|flies|wants|reads|watches|listens to|goes for|sits))|(favou?rites?)|(likes|liked|i like|we like|they like|you like|really likes?|loves|i love|we love|they love|really loves?|absolutely loves?|enjoys|i enjoy|we enjoy|enjoyed|(?:is|am|are|'m|'re|'s) (?:a )?(?:big |huge )?fan of|fond of|an? (?:[a-z0-9]+ ){0,2}fan)|(dislikes?|disliked|hates|hated|(?:can't|cannot|can not) stand|loathes|detests|(?:doesn't|does not|don't|do not|didn't|never) (?:like|enjoy)|(?:is|am|are|'m|'re|'s) not (?:a )?(?:big )?fan of|not a fan of|no fan of))\b`)

var preferenceKeys = [...]string{"prefers", "favourite", "likes", "dislikes"}

func (t *text) preference() (Classification, bool) {
	m := t.findSub(fPreference, preferenceRe)
	if m == nil {
		return t.standingWish()
	}
	key := "prefers"
	for g := range preferenceKeys {
		if m[2+2*g] >= 0 {
			key = preferenceKeys[g]
			break
		}
	}
	return Classification{Durability: LongTerm, Category: CategoryPreference, Key: key,
		Reason: "preference " + t.quote(m[0], m[1])}, true
}

// preferenceObject is a key made of what a preference is about: "hates
// cilantro" and "loves cilantro" give cilantro, "a huge Arsenal fan" arsenal,
// "favourite colour is blue" favourite_colour.
func (t *text) preferenceObject() string {
	m := t.findSub(fPreference, preferenceRe)
	if m == nil {
		return ""
	}
	s, marker := t.norm, t.norm[m[0]:m[1]]
	if strings.HasSuffix(marker, "fan") && !strings.HasSuffix(marker, " fan of") {
		// "a huge Arsenal fan": the object sits between the article and "fan".
		var parts []string
		eachWord(marker, func(w string) bool {
			switch w {
			case "a", "an", "big", "huge", "massive", "great", "real", "true", "die-hard", "diehard", "lifelong", "fan":
			default:
				parts = append(parts, w)
			}
			return true
		})
		return slug(strings.Join(parts, "_"))
	}
	if next, _ := nextWord(s, m[1]); next == "your" {
		return "" // "I love your painting!" praises; it is no taste to keep
	}
	words := objectWords(s, m[1], 3)
	if strings.HasPrefix(marker, "favou") {
		if len(words) == 0 {
			return ""
		}
		return slug("favourite_" + words[0])
	}
	return slug(strings.Join(words, "_"))
}

// objectWords are up to n words of the object that starts at pos:
// leading articles, possessives and auxiliaries skipped, up to the first
// punctuation, conjunction or preposition ("on" and "of" may join words:
// put_on_hold, formula_1).
func objectWords(s string, pos, n int) []string {
	var out []string
	for i := pos; i < len(s) && len(out) < n; {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) || !isWordByte(s[i]) {
			break
		}
		w, e := nextWord(s, i)
		if e <= i {
			break
		}
		i = e
		w = strings.Trim(w, "'-")
		switch w {
		case "to", "be", "being", "the", "a", "an", "her", "his", "their", "my", "our", "your", "its", "some", "it",
			"them", "having", "getting", "more", "really", "very", "much", "just", "also", "always", "never", "only",
			"usually", "all", "any":
			if len(out) == 0 {
				continue
			}
			if w == "to" && len(out) == 1 && isMotion(out[0]) {
				out = out[:0] // "going to the coffee shop": the object is where
				continue
			}
			if w == "to" || w == "be" || w == "being" {
				return out
			}
			continue
		case "on", "of":
			if len(out) == 0 {
				continue
			}
			next, _ := nextWord(s, e)
			switch next {
			case "", "the", "a", "an", "my", "her", "his", "their", "our", "your":
				return out
			}
			out = append(out, w)
			continue
		case "and", "or", "but", "not", "because", "since", "over", "than", "instead", "rather", "when", "if", "while",
			"so", "for", "with", "by", "via", "at", "in", "during", "from", "after", "before", "as", "is", "are", "was",
			"were", "that", "which", "who", "unless", "until", "about", "like", "these", "days", "anymore", "too":
			if len(out) > 0 && (out[len(out)-1] == "on" || out[len(out)-1] == "of") {
				out = out[:len(out)-1]
			}
			return out
		}
		out = append(out, w)
	}
	if len(out) > 0 && (out[len(out)-1] == "on" || out[len(out)-1] == "of") {
		out = out[:len(out)-1]
	}
	return out
}

// isMotion reports whether w is a verb of going somewhere, whose object is
// where ("going to the coffee shop").
func isMotion(w string) bool {
	switch w {
	case "going", "getting", "heading", "travelling", "traveling", "driving", "walking", "coming", "moving", "flying":
		return true
	}
	return false
}

// statedPrefRe: a preference put in words that say nothing else ("I'd
// prefer if you talked me through it on the phone").
var statedPrefRe = regexp.MustCompile(`\b(?:prefers?|preferred|preferring|would rather|'d rather|would prefer|'d prefer)\b`)

// statedPreference classifies a text that says "prefer" or "would
// rather": a preference, before the rules of states, so that what is
// preferred ("on the phone", "from home") is not read as where someone is.
func (t *text) statedPreference() (Classification, bool) {
	m := t.find(fPreference, statedPrefRe)
	if m == nil {
		return Classification{}, false
	}
	return Classification{Durability: LongTerm, Category: CategoryPreference, Key: "prefers",
		Reason: "preference " + t.quote(m[0], m[1])}, true
}

// ------------------------------------------------------------- dislikes

// dislikeRe: the speaker's dislike, said as venting ("I hate YAML").
var dislikeRe = regexp.MustCompile(`^(?:i|we) (?:really |just |absolutely |truly |honestly |kinda |seriously |so |still |also |totally )?(?:hate|can't stand|cannot stand|loathe|detest|despise) `)

// dislike classifies the speaker's dislike of a thing ("I hate YAML", "I
// can't stand cilantro"): a taste that lasts, a long_term preference keyed
// by what is disliked. Hating the moment, a time of day, a person or one's
// own lot ("I hate mornings", "I hate this", "I hate it when", "I hate my
// job", "I hate waiting") is venting, a mood (moods.go).
func (t *text) dislike() (Classification, bool) {
	if !t.has(fMood) {
		return Classification{}, false
	}
	m := dislikeRe.FindStringIndex(t.norm)
	if m == nil {
		return Classification{}, false
	}
	obj, e := nextWord(t.norm, m[1])
	if obj == "the" {
		obj, e = nextWord(t.norm, e) // "I hate the commute"
	}
	if obj == "" || momentWord(obj) || strings.HasSuffix(obj, "ing") {
		return Classification{}, false
	}
	words := objectWords(t.norm, m[1], 3)
	return Classification{Durability: LongTerm, Category: CategoryPreference, Key: slug(strings.Join(words, "_")),
		Reason: "dislike " + t.quote(m[0], e)}, true
}

// momentWord reports whether w, as what the speaker hates, makes the
// hating venting about the moment or about someone rather than a taste.
func momentWord(w string) bool {
	switch w {
	case "it", "this", "that", "these", "those", "when", "how", "what", "where", "my", "our", "your", "his",
		"her", "their", "him", "them", "you", "me", "myself", "us", "everyone", "everybody", "people", "everything",
		"today", "tonight", "mornings", "morning", "evenings", "nights", "mondays", "tuesdays", "wednesdays",
		"thursdays", "fridays", "saturdays", "sundays", "weekends", "early", "waking", "getting", "being", "weather",
		"rain", "traffic", "commute", "commuting", "life", "work", "school", "so", "to", "having", "a", "an", "all",
		"feeling":
		return true
	}
	return false
}

// ----------------------------------------------------------- standing wishes

var (
	// ruleOrderRe: a standing rule put as an order ("never commit the .env
	// file", "Please remember: always cc finance"), at the start of a
	// clause; the verb is checked by standingVerb.
	ruleOrderRe = regexp.MustCompile(`(?:^|[,;:] |\bplease )(?:please )?(?:(?:always|never|don't ever|do not ever) )([a-z]+)`)
	// askedRuleRe: a standing rule someone asked for ("He asked us never
	// to reset the SSO config", "she wants us to always cc her").
	askedRuleRe = regexp.MustCompile(`\b(?:asked|asks|told|tells|reminded|wants|wanted|would like|'d like|requested|requests|instructed|insists|insisted)(?: (?:us|me|you|them|him|her|everyone|everybody|the team|support|the agents?))?(?: to)? (?:never|always|not to|only)\b`)
	// lastingOrderRe: an order said to hold from now on ("From now on, send
	// all invoices to accounts@..."); its verb is the group.
	lastingOrderRe = regexp.MustCompile(`^(?:from now on|going forward|moving forward|in future|in the future|by default|henceforth),? (?:please )?([a-z]+)\b|^(?:please )?([a-z]+)\b.*\b(?:from now on|going forward|moving forward|in future|in the future|by default)\b`)
	// exclusiveRe: a thing used to the exclusion of others ("I use the iPad
	// app exclusively").
	exclusiveRe = regexp.MustCompile(`\b(?:uses?|using|buys?|drinks?|eats?|shops?|fly|flies|books?|orders?|reads?|wears?|listens? to|watch(?:es)?|pays?|contacts?|communicates?|works? (?:in|on|with))\b[^,.;!?]{0,40}\bexclusively\b|\bexclusively (?:uses?|using|buys?|drinks?|eats?|shops?|fly|flies|books?|orders?|reads?|wears?)\b`)
	// mannerRe: how someone takes a drink or a dish ("I drink my coffee
	// black", "takes her tea with lemon").
	mannerRe = regexp.MustCompile(`\b(?:drinks?|takes?|has|have|likes?|orders?|eats?) (?:my|his|her|their|our|your) (?:coffee|tea|espresso|latte|whisky|whiskey|martini|eggs|steak|burger|pizza|curry) (?:black|white|strong|weak|sweet|plain|neat|straight|with|without|no|rare|medium|well done|iced|hot|cold|decaf|extra|spicy|mild)\b`)
	// wantRe: what someone wants or needs, as a noun phrase ("Our legal
	// team wants 7 years", "Elena needs a ground-floor room").
	wantRe = regexp.MustCompile(`\b(?:wants|needs|requires|would like|'d like|insists on)\b`)
	// participleRe: a wish about a task under way ("wants the cache
	// migration prioritised"), short_term.
	participleRe = regexp.MustCompile(`^(?: [a-z0-9'-]+){0,5}? [a-z]{2,}ed\b`)
)

// standingWish classifies a standing rule or wish that names no taste
// word: an order that holds from now on ("never commit the .env file",
// "From now on, send all invoices to accounts@..."), one someone asked for
// ("asked us never to reset the SSO config"), a thing used exclusively, how
// someone takes a drink, and what someone named wants or needs ("Our legal
// team wants 7 years", "Elena needs a ground-floor room"). All are
// long_term preferences, but a wish about a task under way ("Ana wants the
// cache migration prioritised"), which is short_term. The speaker's own
// "I want" is a request of the moment, and "needs to" a duty
// (obligations.go).
func (t *text) standingWish() (Classification, bool) {
	s := t.norm
	pref := func(d Durability, label string, a, b int) (Classification, bool) {
		return Classification{Durability: d, Category: CategoryPreference, Key: "prefers",
			Reason: label + " " + t.quote(a, b)}, true
	}
	if t.has(fRecur | fPreference) {
		if m := ruleOrderRe.FindStringSubmatchIndex(s); m != nil && standingVerb(s[m[2]:m[3]]) {
			return pref(LongTerm, "standing rule", m[0], m[1])
		}
		if m := askedRuleRe.FindStringIndex(s); m != nil {
			return pref(LongTerm, "standing rule asked for", m[0], m[1])
		}
	}
	if !containsAny(s, "from now on", "forward", "future", "by default", "henceforth") {
		// no order said to last
	} else if m := lastingOrderRe.FindStringSubmatchIndex(s); m != nil {
		v := m[2]
		if v < 0 {
			v = m[4]
		}
		if verb, _ := nextWord(s, v); instructionVerbs[verb] {
			return pref(LongTerm, "standing order", m[0], m[1])
		}
	}
	if strings.Contains(s, "exclusively") {
		if m := exclusiveRe.FindStringIndex(s); m != nil {
			return pref(LongTerm, "exclusive use", m[0], m[1])
		}
	}
	if t.flags&fTaste != 0 {
		if m := mannerRe.FindStringIndex(s); m != nil {
			return pref(LongTerm, "how it is taken", m[0], m[1])
		}
	}
	if !containsAny(s, "want", "need", "require", "like", "insist", "ask") {
		return Classification{}, false
	}
	if m := wantRe.FindStringIndex(s); m != nil && m[0] < t.firstClauseEnd() && t.wisher(m[0]) {
		next, e := nextWord(s, m[1])
		switch next {
		case "", "to", "you", "me", "us", "him", "her", "them", "it", "help", "more", "time", "rest", "sleep", "space",
			"advice", "attention", "support":
			return Classification{}, false // "he needs time": a need of the moment
		case "a", "an", "some":
			switch after, _ := nextWord(s, e); after {
			case "break", "minute", "moment", "hand", "hug", "holiday", "vacation", "nap", "drink", "rest", "day",
				"second", "coffee", "word", "favour", "favor":
				return Classification{}, false // "he needs a break"
			}
		}
		d := LongTerm
		if participleRe.MatchString(s[m[1]:sentenceEnd(s, m[1])]) {
			d = ShortTerm
		}
		return pref(d, "wish", m[0], m[1])
	}
	return Classification{}, false
}

// clauseJointRe: where a second clause begins.
var clauseJointRe = regexp.MustCompile(`[,;] (?:and|but|so|while|whereas) |; `)

// containsAny reports whether s holds any of subs.
func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// standingVerb reports whether w, after "always" or "never" at the start
// of a clause, is an order's bare verb ("never commit", "always cc"), not
// a fragment's ("never been", "always late", "always runs").
func standingVerb(w string) bool {
	switch w {
	case "be", "been", "being", "was", "were", "is", "are", "had", "have", "has", "mind", "the", "a", "an", "my",
		"your", "our", "his", "her", "their", "so", "on", "in", "at", "with", "for", "to", "too", "this", "that",
		"it", "there", "here", "late", "early", "happy", "sure", "right", "wrong", "true", "fun", "nice", "good",
		"bad", "fine", "ok", "okay", "again", "ever", "once", "more", "less", "enough", "same", "busy", "available",
		"free", "around", "home", "online", "i", "we", "you", "he", "she", "they", "did", "do", "does", "will",
		"would", "can", "could", "should":
		return false
	}
	if strings.HasSuffix(w, "ss") {
		return true // "always discuss"
	}
	return !strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "ing") &&
		!strings.HasSuffix(w, "ly")
}

// wisher reports whether the words before pos name a person or a group who
// wants or needs something: a pronoun other than the speaker's, a name
// (capitalised where written), or a word for people ("Our legal team
// wants", "The customer needs"). "The server needs a reboot" names a thing.
func (t *text) wisher(pos int) bool {
	var w [1]string
	if wordsBefore(t.norm, pos, w[:]) == 0 {
		return false
	}
	switch x := w[0]; x {
	case "he", "she", "they", "we", "everyone", "everybody", "nobody":
		return true
	case "i", "you", "it", "this", "that", "which", "who":
		return false
	default:
		if isPeopleWord(x) {
			return true
		}
	}
	return t.nameBefore(pos, w[0])
}

// isPeopleWord reports whether w names people by their role or their tie
// to the speaker.
func isPeopleWord(w string) bool {
	switch strings.TrimSuffix(w, "s") {
	case "team", "customer", "client", "user", "member", "legal", "finance", "accounting", "procurement", "manager",
		"boss", "lead", "director", "owner", "partner", "wife", "husband", "mum", "mom", "dad", "mother", "father",
		"son", "daughter", "sister", "brother", "kid", "child", "parent", "friend", "colleague", "buyer", "tenant",
		"landlord", "guest", "patient", "doctor", "vendor", "supplier", "auditor", "board", "ceo", "cto", "cfo",
		"department", "office", "hr", "security", "compliance", "ops", "support", "management", "leadership",
		"stakeholder", "product", "design", "marketing", "sales", "engineering", "grandma", "grandpa", "baby",
		"boyfriend", "girlfriend", "fiance", "fiancee", "company", "studio", "shop", "business", "firm":
		return true
	}
	return false
}
