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
// for decisions and for observations on an attribute.
func (t *text) refineKey(c Classification) string {
	key := t.attributeKey(c)
	if t.bare() {
		return key
	}
	switch {
	case c.Category == CategoryDecision:
		return key
	case c.Category == CategoryObservation && !IsGenericKey(key) && !IsSingleValued(key):
		return key
	}
	return ""
}

// attributeKey names what c, a classification of t, is about.
func (t *text) attributeKey(c Classification) string {
	switch c.Category {
	case CategoryDecision, CategoryMood, CategoryObligation, CategoryIdentity:
		return c.Key
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
	// An observation.
	switch c.Key {
	case "", "uses":
	default:
		return CanonicalKey(c.Key)
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
var metricRe = regexp.MustCompile(`\b(?:(p99\.9|p999|p50|p75|p90|p95|p99|median)(?: latency| latencies| response times?)?|(replication|replica|repl|consumer|kafka|sync|ingest|ingestion) lag|(lag)|(latency|latencies|response times?)|(cpu)(?: usage| load| utili[sz]ation)?|(memory|mem|ram) (?:usage|utili[sz]ation|pressure)|(heap)(?: usage| size)?|(disk)(?: usage| space| utili[sz]ation)?|(free space)|(error rate|errors? per (?:second|minute)|5xx rate)|(queue (?:depth|length|size)|backlog)|(throughput|rps|qps)|(load average)|(uptime))\b`)

// metricKeys are the keys of metricRe's groups from the third on; the
// first two are named by their words.
var metricKeys = [...]string{"lag", "latency", "cpu_usage", "memory_usage", "heap_usage",
	"disk_usage", "disk_usage", "error_rate", "queue_depth", "throughput", "load", "uptime"}

// metricKey is the key of the first metric t names, or "".
func (t *text) metricKey() string {
	if !t.has(fReading) {
		return ""
	}
	m := metricRe.FindStringSubmatchIndex(t.norm)
	if m == nil {
		return ""
	}
	s := t.norm
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
		switch q := s[m[4]:m[5]]; q {
		case "replication", "replica", "repl":
			return "replication_lag"
		case "ingestion":
			return "ingest_lag"
		default:
			return q + "_lag"
		}
	}
	for g := range metricKeys {
		if m[6+2*g] >= 0 {
			return metricKeys[g]
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

	"medication": "medication", "medications": "medication", "meds": "medication", "pills": "medication",
	"insulin": "medication", "inhaler": "medication", "vitamins": "medication",

	"gym": "exercise", "workout": "exercise", "workouts": "exercise", "yoga": "exercise", "pilates": "exercise",
	"jogging": "exercise", "jogs": "exercise", "swims": "exercise", "swimming": "exercise", "crossfit": "exercise",
	"exercise": "exercise", "exercises": "exercise",

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
