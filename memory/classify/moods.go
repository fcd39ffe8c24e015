package classify

import (
	"regexp"
	"strings"
)

var (
	moodWordRe = regexp.MustCompile(`\b(?:stressed(?: out)?|tired|exhausted|worn out|drained|angry|furious|livid|mad at|pissed(?: off)?|happy|sad|unhappy|frustrated|annoyed|irritated|irritable|upset|excited|thrilled|anxious|nervous|worried|bored|grumpy|cranky|moody|overwhelmed|depressed|lonely|disappointed|relieved|elated|cheerful|gloomy|miserable|impatient|fed up|burn(?:ed|t) out|sleepy|restless|jittery|ecstatic|delighted|glad|embarrassed|ashamed|jealous|hopeful|optimistic|pessimistic|heartbroken|homesick|scared|terrified|panicked|panicking|pumped|stoked|outraged|offended|insulted|sulking|sulky|cross with|in a huff|on edge)\b`)
	feelRe     = regexp.MustCompile(`\b(?:feel|feels|feeling|felt|feelin)(?: (?:so|very|really|a bit|a little|a lot|kind of|kinda|sort of|pretty|quite|super|extremely|not|too|rather|slightly|somewhat|much|way|all|totally|completely|absolutely))* (?:good|bad|great|awful|terrible|better|worse|down|low|off|sick|ill|unwell|fine|ok|okay|blue|lousy|rough|crap|crappy|meh|amazing|fantastic|horrible|lost|stuck|unmotivated|motivated|productive|energetic|energi[sz]ed|lazy|guilty|ignored|unheard|undervalued|unappreciated|appreciated|valued|awesome|weird|strange|sluggish|foggy|wired|fried|emotional|hopeless|helpless|useless|left out|under the weather)\b`)
	// moodPhraseRe: moods without a feeling word: "in a bad mood", "rough
	// day", "sick of", exclamations, first-person venting ("I hate ...") and
	// hating a time of day or the moment ("hates Mondays").
	moodPhraseRe = regexp.MustCompile(`\bin an? (?:[a-z]+ )?mood\b|\bmood\b|\b(?:having|had|has had|'s had|'s been|'s having|is having|was having|been having|it's been|it was) an? (?:[a-z]+ )?(?:rough|bad|terrible|awful|long|great|good|horrible|tough|hard|crappy|shitty|lousy|stressful|amazing|fantastic|wonderful) (?:day|morning|week|night|afternoon|evening)\b|\bsick (?:and tired )?of\b|(?:^|[^a-z0-9_'])(?:ugh+|argh+|urgh+|sigh|yay+|woo+hoo+|hooray|grr+|ffs)\b|\bi (?:really |just |absolutely |so |truly |honestly |kinda |seriously )?(?:hate|can't stand|cannot stand|loathe|detest|despise)\b|\b(?:this|that|it)(?: is|'s) (?:so |just |absolutely |totally |completely |really |honestly )?(?:ridiculous|absurd|unacceptable|insane|infuriating|maddening)\b|\bmorale(?:'s| is)(?: so| very| really| pretty| quite)? (?:low|high|down|up|great|terrible|bad|good|poor)\b|\b(?:hates|hate|hated|hating|can't stand|cannot stand|loathes|loathe)\s+(?:the |these |those |early |cold |rainy |dark |long )?(?:mornings?|mondays?|early starts|waking up|getting up|this|it|that|today|tonight|the weather|weather|rain|traffic|the commute|commuting|when)\b`)
	// moodAfterGuardRe: what after a feeling word makes it a trait or a
	// habit rather than a mood ("an anxious person", "grumpy every morning").
	// leadFeelingRe: a sentence that opens with the speaker's own feeling
	// ("I'm exhausted, it's been a long day", "I'm in a great mood, the sun
	// is out!"): the feeling is its main clause, what follows explains it.
	leadFeelingRe = regexp.MustCompile(`^(?:i'm|i am|im|we're|we are|i feel|i'm feeling|i am feeling|we're feeling|feeling)(?: (?:so|very|really|pretty|quite|super|a bit|a little|kind of|kinda|totally|completely|absolutely|utterly|just|honestly|seriously|incredibly|extremely|all))* `)
	// feelingEndRe: where the leading feeling's clause ends.
	feelingEndRe     = regexp.MustCompile(`^(?: (?:today|tonight|now|right now|this morning|this week|atm|rn|again|lol|tbh|honestly))?(?:$|[,;:!.]| and | but | because | since | after | with | that | about )`)
	moodAfterGuardRe = regexp.MustCompile(`^(?: [a-z]+)?? (?:person|people|type|by nature|in general|whenever|every|each|most|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends)|in the mornings|in the evenings|at night)\b`)
)

func isHabitWord(w string) bool {
	switch w {
	case "usually", "always", "often", "generally", "typically", "normally", "tends", "tend", "naturally", "easily",
		"gets", "get", "whenever", "frequently", "rarely", "never", "sometimes", "chronically", "constantly", "habitually":
		return true
	}
	return false
}

// habitual reports whether the feeling at norm[a:b] is described as a habit
// or trait rather than as a mood.
func (t *text) habitual(a, b int) bool {
	var w [3]string
	n := wordsBefore(t.norm, a, w[:])
	for _, x := range w[:n] {
		if isHabitWord(x) {
			return true
		}
	}
	return moodAfterGuardRe.MatchString(t.norm[b:])
}

// mood classifies a bare statement of a feeling. A text that says more
// ("Hey Calvin, been ages! I got picked for a car mod workshop, so
// excited") mentions a feeling in passing: it is what else it states.
func (t *text) mood() (Classification, bool) {
	s := t.norm
	if !t.has(fMood) {
		return Classification{}, false
	}
	if !t.bare() {
		return t.leadingFeeling()
	}
	mood := func(label string, a, b int) (Classification, bool) {
		return Classification{Durability: Ephemeral, Category: CategoryMood, Key: t.moodKey(a, b),
			Reason: label + " " + t.quote(a, b)}, true
	}
	for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
		loc := moodPhraseRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		for a < b && !isWordByte(s[a]) {
			a++ // the exclamation alternative starts on a separator
		}
		if !t.habitual(a, b) {
			return mood("mood phrase", a, b)
		}
	}
	for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
		loc := feelRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		if !t.habitual(a, b) {
			return mood("feeling", a, b)
		}
	}
	for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
		loc := moodWordRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		w := s[a:b]
		next, _ := nextWord(s, b)
		switch {
		case (w == "drained" || w == "exhausted") && !t.feltBy(a):
			continue // "queue drained", "retries exhausted": a thing used up
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

// moodKey is the key of a mood whose phrase is norm[a:b]: mood, the
// entity's mood of the moment, whatever the feeling and whatever it is
// about ("I'm so tired today", "Mood: grumpy", "I'm stressed about the
// move", "furious with the airline", "The team is frustrated"): the next
// mood of the entity replaces it. None when the feeling is not the
// entity's: someone else's, named by a possessive or addressed ("glad
// you're feeling better", "my sister is so stressed", which is the
// sister's), or asked about ("are you nervous?"); and none when the text
// states something besides the feeling that the next mood must not archive:
// an occasion ahead ("so excited for the cooking class next weekend"), or
// an event after an interjection ("Ugh, the build broke again").
func (t *text) moodKey(a, b int) string {
	if strings.HasSuffix(strings.TrimRight(t.norm, " !.\"'"), "?") {
		return ""
	}
	if occasionAheadRe.MatchString(t.norm[b:]) {
		return ""
	}
	if rest := t.norm[b:]; interjectionRe.MatchString(t.norm[a:b]) && countWords(rest) >= 3 &&
		!moodWordRe.MatchString(rest) && !feelRe.MatchString(rest) {
		return ""
	}
	var before [4]string
	n := wordsBefore(t.norm, a, before[:])
	for i, w := range before[:n] {
		switch w {
		case "you", "you're", "youre", "your", "u", "ur":
			return ""
		case "my", "his", "her", "our", "their":
			// "my sister is so stressed"; but "my mood is great".
			next, _ := nextWord(t.norm, a)
			if i > 0 {
				next = before[i-1]
			}
			if next != "mood" && next != "morale" {
				return ""
			}
		}
	}
	return "mood"
}

// feltBy reports whether the word at norm[a] is said of someone who feels
// it: it opens the text, or follows a form of be, feel, look or seem, or an
// intensifier ("I'm drained", "feeling exhausted", "so drained"), rather
// than a noun ("queue drained", "retries exhausted").
func (t *text) feltBy(a int) bool {
	var w [1]string
	if wordsBefore(t.norm, a, w[:]) == 0 {
		return true
	}
	switch p := w[0]; p {
	case "i'm", "im", "am", "is", "are", "was", "were", "be", "been", "being", "we're", "you're", "he's", "she's",
		"they're", "feel", "feels", "feeling", "felt", "look", "looks", "looked", "seem", "seems", "seemed",
		"sound", "sounds", "sounded", "get", "gets", "got", "getting", "so", "very", "really", "totally",
		"completely", "utterly", "absolutely", "pretty", "quite", "super", "extremely", "just", "too", "bit",
		"kinda", "emotionally", "physically", "mentally", "all", "and", "but", "still", "ugh":
		return true
	}
	return false
}

// leadingFeeling classifies a text that says more than a bare statement
// but opens with the speaker's feeling as its main clause ("I'm exhausted,
// it's been a long day"), in one sentence: a mood, which must not harden into an
// observation. What follows explains the feeling: the text is the
// speaker's mood of the moment, and keeps its key.
func (t *text) leadingFeeling() (Classification, bool) {
	s := t.norm
	if !t.oneSentence() {
		return Classification{}, false // a longer text is never a mood
	}
	lead := leadFeelingRe.FindStringIndex(s)
	if lead == nil {
		return Classification{}, false
	}
	a := lead[1]
	rest := s[a:]
	var b int
	if loc := moodWordRe.FindStringIndex(rest); loc != nil && loc[0] == 0 {
		b = a + loc[1]
		w := s[a:b]
		if next, _ := nextWord(s, b); (w == "happy" || w == "glad") && (next == "to" || next == "hour") ||
			(w == "scared" || w == "terrified") && next == "of" {
			return Classification{}, false
		}
	} else if strings.HasPrefix(rest, "in a") || strings.HasPrefix(rest, "in an") {
		m := moodPhraseRe.FindStringIndex(rest)
		if m == nil || m[0] != 0 {
			return Classification{}, false
		}
		b = a + m[1]
	} else {
		return Classification{}, false
	}
	if t.habitual(a, b) || !feelingEndRe.MatchString(s[b:]) {
		return Classification{}, false
	}
	return Classification{Durability: Ephemeral, Category: CategoryMood, Key: "mood",
		Reason: "opens with a feeling " + t.quote(a, b)}, true
}

// oneSentence reports whether the text is a single sentence of at most
// twice a bare statement's words, on one line.
func (t *text) oneSentence() bool {
	if strings.Contains(strings.TrimSpace(t.orig), "\n") {
		return false
	}
	s, words := t.norm, 0
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			if isSentenceEnd(s, i) && !t.abbreviation(i) && wordAfter(s, i+1) {
				return false
			}
			i++
			continue
		}
		_, e := nextWord(s, i)
		i = max(e, i+1)
		if words++; words > 2*bareWords {
			return false
		}
	}
	return true
}

var (
	// occasionAheadRe: what a feeling looks forward to, with when it comes.
	occasionAheadRe = regexp.MustCompile(`\b(?:for|about|to see|to go|before)\b.*\b(?:next|tomorrow|tonight|` +
		`this (?:weekend|week|month|summer|spring|autumn|fall|winter|year)|in (?:the )?(?:spring|summer|autumn|fall|winter)|` +
		`in (?:a|an|two|three|a couple of|a few) (?:days?|weeks?|months?)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b`)
	// interjectionRe: a mood phrase that is only an interjection.
	interjectionRe = regexp.MustCompile(`^(?:ugh+|argh+|yay+|woo+hoo+|phew|meh|oof|sigh|yikes|ouch|ugh,?)\W*$`)
)
