package classify

import (
	"regexp"
	"slices"
	"strings"
)

// This file names a classified fact's key after what the fact is about, so
// that the paraphrases of one fact share a key and supersession and merging
// (which pair facts by entity and key) find them:
//
//	"I work as a nurse", "I'm a nurse", "my job is nursing"     occupation
//	"I live in Denver", "I'm based in Denver", "I moved to ..." home_city
//	"works at Acme", "employed by Acme"                         employer
//	"replication lag is 4 s", "replication lag recovered"       replication_lag
//	"p99 latency is 180 ms", "p99 back under 120 ms"            p99_latency
//	"I like tea", "prefers coffee", "drinks a flat white"       drink
//	"we deploy on Thursdays", "deploys go out every Tuesday"    deploy_day
//	"works nights", "works from home on Mondays"                work_schedule
//
// A metric names its key whatever is said of it (a reading, a spike, a
// recovery): a state that resolves another keeps its key. Preferences name
// their topic (drink, theme, editor, seat, contact_method, browser) or else
// their object ("hates cilantro" and "loves cilantro": cilantro), never the
// bare verb, which would make every preference of an entity supersede the
// last. Decisions, moods and obligations keep the key their rule gave.
//
// The vocabulary, by category: identity: name, pronouns, born_in, birthday,
// allergy, native_language, origin, personality, diet, trait, occupation;
// observation: home_city, employer, timezone, email, phone, speaks, owns,
// uses (or the topic of what is used); state: availability, health,
// workload, location, progress, status, or a metric; metrics: lag,
// replication_lag, consumer_lag, latency, p50_latency ... p999_latency,
// cpu_usage, memory_usage, heap_usage, disk_usage, error_rate, queue_depth,
// throughput, load, uptime; routines: deploy_day, work_schedule, medication,
// exercise, standup, wake_time, bedtime, backup_schedule, drink, else
// routine; mood: mood.

// ------------------------------------------------------------ the rule

// A fact is archived only by a fact that states a new value of the same
// attribute. Two things keep it so:
//
//   - Generic keys (genericKeys) name a category or a catch-all, not an
//     attribute: two facts on "status" ("renewed the contract until 2027",
//     "the dashboard is slow today") are not two values of one thing. A fact
//     on a generic key never supersedes and is never superseded; the
//     supersession query is given GenericKeys.
//   - Only a bare statement (bare: one clause of at most bareWords words)
//     is filed as a mood or a state, and only a bare statement carries a
//     key that supersedes. A text that says more ("Hey Calvin, been ages! I
//     got picked for a car mod workshop, so excited") is what else it
//     states, often an observation; archiving it when one attribute changes
//     would lose the rest of what it says. Such a text keeps a key only
//     where facts accumulate (an observation's metric or topic) or where
//     the key is its own (a decision's): not a single-valued attribute
//     (home_city, employer, occupation: vocabulary.go), whose key
//     supersedes in any category.
//   - Save one case: a single sentence whose lead clause states a
//     single-valued attribute of its subject is about that attribute,
//     whatever follows ("I'm based in Osaka, so I'm on JST", "I'm the
//     finance lead at Bluefin Logistics, so this blocks our month-end
//     close", "I'm exhausted, it's been a long day"). Its subject must be
//     the speaker or someone named, not a relation ("My sister moved to
//     Seattle last month, so we all went out for dinner" states the
//     sister's city in passing). A mention anywhere else (a second clause,
//     a second sentence) names no key.
//   - An opener that says nothing ("Also,", "Honestly,", "Heads up,") is
//     no clause of its own: the lead clause comes after it ("Also, I moved
//     from Leeds to York last month, so please update the address").
//
// A bare status line may still be filed under status: the key is generic,
// so the line fades with its durability and replaces nothing. Mood is an
// attribute, an entity's mood of the moment, which the next bare mood
// replaces; a feeling about one thing has no key (moodKey).

// genericKeys are the keys that name a category or a catch-all rather than
// an attribute. A person has many allergies, traits, hobbies and tasks at
// once, so those are catch-alls too.
var genericKeys = map[string]bool{
	// states (mood is an attribute: an entity has one mood at a time)
	"status": true, "state": true, "states": true, "condition": true, "situation": true, "workload": true,
	// routines and preferences
	"routine": true, "routines": true, "habit": true, "habits": true, "schedule": true,
	"preference": true, "preferences": true, "prefers": true, "likes": true, "dislikes": true, "loves": true,
	"hates": true, "favourite": true, "favorite": true, "interest": true, "interests": true, "hobby": true,
	"hobbies": true,
	// identity
	"identity": true, "trait": true, "traits": true, "personality": true, "allergy": true,
	// obligations
	"obligation": true, "obligations": true, "deadline": true, "todo": true, "task": true, "tasks": true,
	"reminder": true,
	// observations and anything else
	"observation": true, "observations": true, "note": true, "notes": true, "general": true, "misc": true,
	"other": true, "info": true, "fact": true, "facts": true, "event": true, "events": true, "update": true,
	"updates": true, "news": true, "comment": true, "message": true, "summary": true, "detail": true,
	"details": true, "context": true, "uses": true, "owns": true, "speaks": true,
	"decision": true,
}

// IsGenericKey reports whether key names a category or a catch-all rather
// than an attribute (mood, status, routine, likes, obligation, note...): a
// fact on such a key never supersedes and is never superseded.
func IsGenericKey(key string) bool { return genericKeys[key] }

// GenericKeys lists the generic keys, sorted.
func GenericKeys() []string {
	out := make([]string, 0, len(genericKeys))
	for k := range genericKeys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// bareWords is the most words a bare statement has.
const bareWords = 12

// bare reports whether t is a bare statement: one sentence of at most
// bareWords words, not two clauses joined by a comma or a conjunction
// ("I'm so tired today, the baby kept us up all night" is two). Status
// lines are bare: "billing-db replication lag is 4 s", "I'm so tired
// today", "Incident INC-231 is ongoing, mitigation in progress".
func (t *text) bare() bool {
	if !t.bareDone {
		t.isBare, t.bareDone = t.scanBare(), true
	}
	return t.isBare
}

func (t *text) scanBare() bool {
	if strings.Contains(strings.TrimSpace(t.orig), "\n") {
		return false // lines of their own
	}
	s := t.norm
	words := 0
	joint, conj := false, false // a comma or a conjunction came last, after two words or more
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			if isSentenceEnd(s, i) && !t.abbreviation(i) && words > 0 && wordAfter(s, i+1) {
				return false // a second sentence
			}
			// A comma or a semicolon may join a second clause; a colon
			// rather explains what came before ("Dark mode, always: I
			// prefer it").
			if s[i] == ',' || s[i] == ';' {
				joint, conj = words >= 2, false
			}
			i++
			continue
		}
		w, e := nextWord(s, i)
		i = max(e, i+1)
		if w = strings.Trim(w, "'-"); w == "" {
			joint, conj = words >= 2, false // a dash standing alone
			continue
		}
		if joint && startsClause(w) && !(conj && w == "the") {
			// A second clause with its own subject; "and the team is
			// frustrated" goes on the thought before it.
			return false
		}
		joint = false
		if words++; words > bareWords {
			return false
		}
		switch w {
		case "and", "but", "so", "because", "cause", "since", "though", "although", "while", "whereas":
			joint, conj = words >= 3, true
		}
	}
	return true
}

// leadInRe: a speaker's label or an opener that says nothing, which make
// no clause of their own ("Dana: ...", "Also, I moved to York", "Yes, I'm
// on the Pro plan").
var leadInRe = regexp.MustCompile(`^(?:[^ ,:;.!?]+(?: [^ ,:;.!?]+)?: |(?:heads up|fyi|btw|by the way|also|anyway|anyways|honestly|actually|basically|so|well|oh|ah|ok|okay|yes|yeah|hi|hello|hey|quick update|update|just so you know|for the record|fwiw|ps|tbh|sorry|good news|bad news|fun fact|side note|one more thing)[,:] )+`)

// leadIn is where the text begins after its opener (leadInRe).
func (t *text) leadIn() int {
	if m := leadInRe.FindStringIndex(t.norm); m != nil {
		return m[1]
	}
	return 0
}

// leadClause is the span of norm holding the first clause of a text of one
// sentence (after its opener): it ends where a comma, a semicolon or a
// conjunction opens a clause with a subject of its own ("I'm based in
// Osaka, so I'm on JST"). ok is false for a text of several sentences.
func (t *text) leadClause() (a, b int, ok bool) {
	if !t.oneSentence() {
		return 0, 0, false
	}
	s := t.norm
	a = t.leadIn()
	words := 0
	joint, conj := false, false
	for i := a; i < len(s); {
		if !isWordByte(s[i]) {
			if s[i] == ',' || s[i] == ';' {
				joint, conj = words >= 2, false
			}
			i++
			continue
		}
		w, e := nextWord(s, i)
		start := i
		i = max(e, i+1)
		if w = strings.Trim(w, "'-"); w == "" {
			continue
		}
		if joint && startsClause(w) && !(conj && w == "the") {
			return a, start, true
		}
		joint = false
		words++
		switch w {
		case "and", "but", "so", "because", "cause", "since", "though", "although", "while", "whereas":
			joint, conj = words >= 3, true
		}
	}
	return a, len(s), true
}

// leadStatement reports whether st, a statement of a single-valued
// attribute, is what a text that says more than a bare statement is about:
// it stands in the lead clause of a single sentence, whose subject is the
// speaker or someone named, not a relation or a thing ("my sister", "we",
// "the office").
func (t *text) leadStatement(st statement) bool {
	a, b, ok := t.leadClause()
	if !ok || st.a < a || st.a >= b {
		return false
	}
	w, e := nextWord(t.norm, a)
	switch w {
	case "we", "we're", "we've", "we'll", "they", "they're", "they've", "you", "you're", "it", "it's", "its",
		"this", "that", "that's", "there", "there's", "these", "those", "our", "their", "your", "the", "a", "an",
		"everyone", "everybody", "someone", "somebody", "nobody":
		return false
	case "my", "his", "her":
		next, _ := nextWord(t.norm, e+1)
		if isRole(next) || isRelation(next) {
			return false // "my sister moved to Seattle, so ..."
		}
	}
	return true
}

// isRelation reports whether w names someone by their relation to the
// speaker ("my sister", "her boss").
func isRelation(w string) bool {
	switch w {
	case "sister", "brother", "wife", "husband", "partner", "mum", "mom", "mother", "dad", "father", "son",
		"daughter", "kid", "kids", "child", "children", "boss", "friend", "colleague", "coworker", "boyfriend",
		"girlfriend", "parents", "family", "team", "cousin", "aunt", "uncle", "grandma", "grandpa", "neighbour",
		"neighbor", "roommate", "flatmate", "landlord", "fiance", "fiancee", "niece", "nephew", "sibling", "siblings":
		return true
	}
	return false
}

// wordAfter reports whether a word starts anywhere in s[i:].
func wordAfter(s string, i int) bool {
	for ; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80 {
			return true
		}
	}
	return false
}

// startsClause reports whether w, after a comma or a conjunction, opens a
// clause of its own: a subject pronoun or a possessive.
func startsClause(w string) bool {
	switch w {
	case "i", "i'm", "i've", "i'd", "i'll", "im", "ive", "we", "we're", "we've", "we'd", "we'll", "you", "you're",
		"you've", "he", "he's", "she", "she's", "they", "they're", "they've", "it", "it's", "that's", "there's",
		"this", "my", "our", "his", "her", "their", "your", "the":
		return true
	}
	return false
}

// abbreviation reports whether the dot at norm[i] ends an abbreviation ("Dr.",
// "St.", "a.m.") rather than a sentence.
func (t *text) abbreviation(i int) bool {
	if t.norm[i] != '.' {
		return false
	}
	var w [1]string
	if wordsBefore(t.norm, i, w[:]) == 0 {
		return false
	}
	switch x := w[0]; {
	case len(x) == 1:
		return true
	case x == "dr" || x == "mr" || x == "mrs" || x == "ms" || x == "st" || x == "vs" || x == "etc" ||
		x == "approx" || x == "inc" || x == "ltd" || x == "jr" || x == "sr" || strings.Contains(x, "."):
		return true
	}
	return false
}

// refineKey is the key of c, a classification of t: the attribute's key
// (attributeKey), kept on a text that says more than a bare statement only
// for decisions, for a leading feeling (a mood), for observations on an
// attribute that does not supersede, and for a single-valued attribute the
// text's lead clause states (leadStatement).
func (t *text) refineKey(c Classification) string {
	var sts []statement
	switch c.Category {
	case CategoryDecision, CategoryMood, CategoryObligation:
	default:
		sts = t.statements()
	}
	key := t.attributeKey(c, sts)
	if t.bare() {
		return key
	}
	switch {
	case c.Category == CategoryDecision, c.Category == CategoryMood:
		return key
	case c.Category == CategoryObservation && !IsGenericKey(key) && !IsSingleValued(key):
		return key
	case IsSingleValued(key):
		if st, ok := statedAt(sts, key); ok && t.leadStatement(st) {
			return key
		}
	}
	return ""
}

// attributeKey names what c, a classification of t, is about: the first
// attribute of the vocabulary the text states (sts, attributes.go) whose key may
// name a fact of c's category, else what the category's rule found (a
// metric, a topic, a preference's object). Decisions, moods and
// obligations keep the key their rule gave.
func (t *text) attributeKey(c Classification, sts []statement) string {
	switch c.Category {
	case CategoryDecision, CategoryMood, CategoryObligation:
		return c.Key
	case CategoryIdentity:
		if c.Key != "" {
			return CanonicalKey(c.Key)
		}
		if st, ok := stated(sts, c.Category); ok {
			return st.attr.key
		}
		return c.Key
	}
	if st, ok := stated(sts, c.Category); ok {
		return st.attr.key
	}
	switch c.Category {
	case CategoryState:
		if k := t.metricKey(); k != "" {
			return k
		}
		return c.Key
	case CategoryPreference:
		if k := t.topicKey(c.Category); k != "" {
			return k
		}
		if k := t.preferenceObject(); k != "" {
			return k
		}
		return c.Key
	case CategoryRoutine:
		if k := t.topicKey(c.Category); k != "" {
			return k
		}
		if k := t.metricKey(); k != "" {
			return k
		}
		return c.Key
	}
	// An observation. A key of the vocabulary in text its phrasings did not
	// find is no statement of it ("that works for me" is no employer).
	switch k := CanonicalKey(c.Key); {
	case c.Key == "", c.Key == "uses":
	case isAttributeKey(k):
		return ""
	default:
		return k
	}
	if k := t.metricKey(); k != "" {
		return k
	}
	if k := t.topicKey(c.Category); k != "" {
		return k
	}
	return c.Key
}

// --------------------------------------------------------------- metrics

// metricRe finds a metric; its groups name the key (metricKey).
var metricRe = regexp.MustCompile(`\b(?:(p99\.9|p999|p50|p75|p90|p95|p99|median)(?: latency| latencies| response times?)?|(replication|replica|repl|consumer|kafka|sync|ingest|ingestion) lag|(lag)|(latency|latencies|response times?)|(cpu)(?: usage| load| utili[sz]ation)?|(memory|mem|ram) (?:usage|utili[sz]ation|pressure)|(heap)(?: usage| size)?|(disk)(?: usage| space| utili[sz]ation)?|(free space)|(error rate|errors? per (?:second|minute)|5xx rate)|(queue (?:depth|length|size)|backlog|queue (?:is |has |was )?(?:drained|emptied|empty|cleared|backed up|backing up|growing|draining|piling up))|(throughput|rps|qps)|(load average)|(uptime))\b`)

// metricKeys are the keys of metricRe's groups from the third on; the
// first two are named by their words.
var metricKeys = [...]string{"lag", "latency", "cpu_usage", "memory_usage", "heap_usage",
	"disk_usage", "disk_usage", "error_rate", "queue_depth", "throughput", "load", "uptime"}

// behindRe: how far something is behind ("the replica is 2 s behind",
// "the consumer is 40k messages behind").
var behindRe = regexp.MustCompile(`\b\d[\d.,]*(?:\s?[km]\b)?(?:\s?(?:s|ms|secs?|seconds?|mins?|minutes?|hours?|messages|events|records|offsets|commits|transactions|txns))? behind\b`)

// settingRe: a limit or a threshold set on a metric, which is no reading of
// it ("alert threshold on disk is 85%", "the latency budget is 200 ms").
var settingRe = regexp.MustCompile(`\b(?:threshold|thresholds|limit|limits|quota|budget|target|slo|sla|alerting at|alerts at|cap)\b`)

// camelRe: an alert's name in CamelCase ("HighMemoryUsage", "DiskSpaceLow").
var camelRe = regexp.MustCompile(`\b[A-Z][a-z]+(?:[A-Z][a-z]+|[A-Z]{2,}[a-z]*)+\b`)

// metricKey is the key of the first metric t names, or "": a reading, a
// lag behind ("replica is 2 s behind": replication_lag), a queue drained,
// or an alert's name ("HighMemoryUsage resolved": memory_usage); not a
// setting ("alert threshold on disk is 85%").
func (t *text) metricKey() string {
	if k := t.alertMetric(); k != "" {
		return k
	}
	if !t.has(fReading) {
		return ""
	}
	m := metricRe.FindStringSubmatchIndex(t.norm)
	if m == nil {
		return t.lagBehind()
	}
	s := t.norm
	if c := settingRe.FindStringIndex(s); c != nil && c[0] < m[1]+24 && c[1] > m[0]-40 {
		return "" // a threshold near the metric: a setting
	}
	switch {
	case m[2] >= 0:
		p := s[m[2]:m[3]]
		switch p {
		case "median":
			p = "p50"
		case "p99.9":
			p = "p999"
		}
		return p + "_latency"
	case m[4] >= 0:
		return lagKey(s[m[4]:m[5]])
	}
	for g := range metricKeys {
		if m[6+2*g] >= 0 {
			if metricKeys[g] == "lag" {
				if k := t.lagBehind(); k != "" {
					return k
				}
			}
			return metricKeys[g]
		}
	}
	return ""
}

// lagKey is the key of the lag of what q names ("replication", "kafka").
func lagKey(q string) string {
	switch q {
	case "replication", "replica", "repl", "standby", "follower":
		return "replication_lag"
	case "ingestion":
		return "ingest_lag"
	case "kafka":
		return "kafka_lag"
	}
	return q + "_lag"
}

// lagBehind is the key of a lag told as how far something is behind: a
// replica's (replication_lag), a consumer's (consumer_lag), or lag.
func (t *text) lagBehind() string {
	s := t.norm
	m := behindRe.FindStringIndex(s)
	if m == nil {
		return ""
	}
	key := "lag"
	eachWord(s[:m[0]], func(w string) bool {
		switch w {
		case "replica", "replicas", "replication", "standby", "follower", "secondary", "read-replica":
			key = "replication_lag"
		case "consumer", "consumers", "kafka":
			key = "consumer_lag"
		}
		return true
	})
	return key
}

// alertMetric is the key of a metric named by an alert in CamelCase
// ("HighMemoryUsage firing", "DiskSpaceLow resolved"), or "".
func (t *text) alertMetric() string {
	o := t.orig
	if len(o) > 512 {
		o = o[:512]
	}
	hump := false
	for i := 1; i < len(o) && !hump; i++ {
		hump = o[i] >= 'A' && o[i] <= 'Z' && o[i-1] >= 'a' && o[i-1] <= 'z'
	}
	if !hump {
		return ""
	}
	for _, name := range camelRe.FindAllString(o, 4) {
		var words []string
		start := 0
		for i := 1; i < len(name); i++ {
			if name[i] >= 'A' && name[i] <= 'Z' && (name[i-1] < 'A' || name[i-1] > 'Z' ||
				i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z') {
				words = append(words, name[start:i])
				start = i
			}
		}
		words = append(words, name[start:])
		phrase := strings.ToLower(strings.Join(words, " "))
		m := metricRe.FindStringSubmatchIndex(phrase)
		if m == nil || m[2] >= 0 || m[4] >= 0 {
			continue
		}
		for g := range metricKeys {
			if m[6+2*g] >= 0 {
				return metricKeys[g]
			}
		}
	}
	return ""
}

// ---------------------------------------------------------------- topics

// topicWords name the topic of a single word, by the categories it names
// a key in.
var topicWords = map[string]string{
	"coffee": "drink", "coffees": "drink", "tea": "drink", "teas": "drink", "espresso": "drink", "espressos": "drink",
	"latte": "drink", "lattes": "drink", "cappuccino": "drink", "cappuccinos": "drink", "americano": "drink",
	"macchiato": "drink", "mocha": "drink", "matcha": "drink", "chai": "drink", "decaf": "drink", "cocoa": "drink",
	"kombucha": "drink", "drink": "drink", "drinks": "drink", "beverage": "drink", "beverages": "drink",
	"soda": "drink", "juice": "drink", "beer": "drink", "beers": "drink", "wine": "drink", "whisky": "drink",
	"whiskey": "drink", "smoothie": "drink", "smoothies": "drink",

	"theme": "theme",

	"editor": "editor", "ide": "editor", "vim": "editor", "neovim": "editor", "nvim": "editor", "emacs": "editor",
	"vscode": "editor", "helix": "editor", "intellij": "editor",

	"aisle": "seat", "seat": "seat", "seats": "seat",

	"browser": "browser", "firefox": "browser", "chrome": "browser", "safari": "browser", "brave": "browser",

	"medication": "medication", "medications": "medication", "meds": "medication", "pill": "medication",
	"pills": "medication", "antibiotics": "medication", "prescription": "medication",
	"insulin": "medication", "inhaler": "medication", "vitamins": "medication",

	"gym": "exercise", "workout": "exercise", "workouts": "exercise", "yoga": "exercise", "pilates": "exercise",
	"jogging": "exercise", "jogs": "exercise", "swims": "exercise", "swimming": "exercise", "crossfit": "exercise",
	"exercise": "exercise", "exercises": "exercise", "cycling": "exercise", "hike": "exercise", "hikes": "exercise",
	"hiking": "exercise", "swim": "exercise",

	"standup": "standup", "stand-up": "standup", "standups": "standup", "stand-ups": "standup",

	"backup": "backup_schedule", "backups": "backup_schedule",
}

// topicPhrases name the topic of a phrase, checked before the words.
var topicPhrases = [...]struct{ phrase, key string }{
	{"dark mode", "theme"}, {"light mode", "theme"}, {"dark theme", "theme"}, {"light theme", "theme"},
	{"flat white", "drink"}, {"hot chocolate", "drink"},
	{"window seat", "seat"},
	{"vs code", "editor"}, {"sublime text", "editor"},
	{"wakes up", "wake_time"}, {"wake up", "wake_time"}, {"gets up", "wake_time"}, {"get up", "wake_time"},
	{"goes to bed", "bedtime"}, {"go to bed", "bedtime"}, {"bedtime", "bedtime"}, {"goes to sleep", "bedtime"},
	{"for a run", "exercise"}, {"go running", "exercise"}, {"goes running", "exercise"}, {"5k run", "exercise"},
	{"10k run", "exercise"}, {"a 5k", "exercise"}, {"a 10k", "exercise"},
	{"lift weights", "exercise"}, {"lifts weights", "exercise"},
}

// contactRe: how someone wants to be reached (preferences only).
var contactRe = regexp.MustCompile(`\b(?:contact(?:ed)?|reach(?:ed)?|phone calls?|calls|text messages|texts|sms|voicemails?|(?:by|via|over|through) (?:e-?mail|phone|text|slack|sms|whatsapp|signal|telegram))\b`)

// timezoneRe: a time zone (observations).
var timezoneRe = regexp.MustCompile(`\b(?:time ?zone|(?:utc|gmt) ?[+-] ?\d{1,2}(?::?\d{2})?|(?:pacific|eastern|central|mountain|atlantic) (?:standard |daylight )?time|(?:pst|pdt|est|edt|cst|cdt|mst|mdt|cet|cest|eet|eest|wet|bst|jst|aest|aedt|nzst|nzdt|sgt|hkt))\b`)

// deployRe and weekdayWordRe: the day deploys or releases go out.
var (
	deployRe      = regexp.MustCompile(`\b(?:deploy|deploys|deployed|deploying|deployment|deployments|release|releases|releasing|ship|ships|shipping|rollout|rollouts|roll out|go live|goes live)\b`)
	weekdayWordRe = regexp.MustCompile(`\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bweekdays?\b`)
	// workScheduleRe: when or where someone works, as a habit.
	workScheduleRe = regexp.MustCompile(`\b(?:works?|working) (?:the )?(?:nights|night shifts?|nightshifts?|days|day shifts?|evenings|weekends|mornings|early shifts?|late shifts?|shifts|nine to five|9 to 5|9-5|from home|remotely|remote|part[- ]time|full[- ]time|overtime)\b`)
)

// drinkPlaceRe: a drink's word that names a place or a thing ("the coffee
// shop downtown", "a wine tasting"), not what someone drinks.
var drinkPlaceRe = regexp.MustCompile(`\b(?:coffee|tea|wine|beer|juice|cocktail)s? (?:shops?|houses?|places?|tables?|breaks?|machines?|makers?|bars?|tastings?|festivals?|clubs?|part(?:y|ies)|mugs?|stains?|time)\b`)

// topicKey is the topic of t for a fact of category, or "".
func (t *text) topicKey(category string) string {
	s := t.norm
	if category == CategoryObservation {
		if timezoneRe.MatchString(s) {
			return "timezone"
		}
	}
	// A weekday makes a date or a recurrence: the deploy day needs one.
	deployDay := t.has(fDate|fRecur) && weekdayWordRe.MatchString(s) && deployRe.MatchString(s)
	if category != CategoryPreference {
		if t.has(fWork) && workScheduleRe.MatchString(s) {
			return "work_schedule"
		}
		if deployDay {
			return "deploy_day"
		}
	} else {
		if deployDay {
			return "deploy_day"
		}
		if contactRe.MatchString(s) {
			return "contact_method"
		}
	}
	for _, p := range topicPhrases {
		if hasPhrase(s, p.phrase) {
			return p.key
		}
	}
	key := ""
	eachWord(drinkPlaceRe.ReplaceAllString(s, " "), func(w string) bool {
		if k, ok := topicWords[w]; ok {
			switch {
			case category == CategoryPreference && (k == "medication" || k == "backup_schedule" || k == "standup"):
			case category == CategoryObservation && k != "drink" && k != "editor" && k != "browser":
			default:
				key = k
				return false
			}
		}
		return true
	})
	return key
}
