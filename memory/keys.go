package memory

import (
	"regexp"
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

// refineKey is the key of c, a classification of t.
func (t *clsText) refineKey(c Classification) string {
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
	case "lives_in":
		return "home_city"
	case "works_at":
		return "employer"
	case "", "uses":
	default:
		return c.Key
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

// clsMetricRe finds a metric; its groups name the key (clsMetricKey).
var clsMetricRe = regexp.MustCompile(`\b(?:(p99\.9|p999|p50|p75|p90|p95|p99|median)(?: latency| latencies| response times?)?|(replication|replica|repl|consumer|kafka|sync|ingest|ingestion) lag|(lag)|(latency|latencies|response times?)|(cpu)(?: usage| load| utili[sz]ation)?|(memory|mem|ram) (?:usage|utili[sz]ation|pressure)|(heap)(?: usage| size)?|(disk)(?: usage| space| utili[sz]ation)?|(free space)|(error rate|errors? per (?:second|minute)|5xx rate)|(queue (?:depth|length|size)|backlog)|(throughput|rps|qps)|(load average)|(uptime))\b`)

// clsMetricKeys are the keys of clsMetricRe's groups from the third on; the
// first two are named by their words.
var clsMetricKeys = [...]string{"lag", "latency", "cpu_usage", "memory_usage", "heap_usage",
	"disk_usage", "disk_usage", "error_rate", "queue_depth", "throughput", "load", "uptime"}

// metricKey is the key of the first metric t names, or "".
func (t *clsText) metricKey() string {
	if !t.has(clsFReading) {
		return ""
	}
	m := clsMetricRe.FindStringSubmatchIndex(t.norm)
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
	for g := range clsMetricKeys {
		if m[6+2*g] >= 0 {
			return clsMetricKeys[g]
		}
	}
	return ""
}

// ------------------------------------------------------------ recoveries

// clsResolvedRe: something recovered or is back to normal.
var clsResolvedRe = regexp.MustCompile(`\b(?:(recovered|recovering|resolved|restored|stabili[sz]ed|subsided|mitigated|cleared|normali[sz]ed)|back (?:to normal|to green|to \d|under|below|within|down|up|online|in range)|(?:is|are|'s|'re) (?:now )?(?:normal|healthy|green|fine|ok|okay)|(?:up|online|healthy|normal|green|fine|ok|okay) again|returned to normal|all clear)\b`)

// clsConditionRe: how a metric is doing, when the text names one.
var clsConditionRe = regexp.MustCompile(`\b(?:high|higher|elevated|spiking|spiked|spikes|climbing|rising|growing|increasing|dropping|falling|low|critical|degraded|through the roof|off the charts)\b`)

// resolved classifies a metric or a service that recovered, is back to
// normal, or (for a metric) is high or spiking, with no reading to say so:
// an ephemeral state on the key of the state it resolves (the metric's, or
// status; health for a person who recovered from an illness). What is told
// as past ("was resolved yesterday") is a record, not a state.
func (t *clsText) resolved(past bool) (Classification, bool) {
	if past {
		return Classification{}, false
	}
	s := t.norm
	key := t.metricKey()
	m := t.findSub(clsFResolved, clsResolvedRe)
	if m == nil && key != "" {
		if loc := clsConditionRe.FindStringIndex(s); loc != nil {
			return Classification{Durability: Ephemeral, Category: CategoryState, Key: key,
				Reason: "metric condition " + t.quote(loc[0], loc[1])}, true
		}
	}
	if m == nil {
		return Classification{}, false
	}
	label := "recovered"
	if key == "" {
		// Without a metric, only a word that says a service or an incident
		// is well again: "I'm fine" is no state of a system.
		switch w := s[m[0]:m[1]]; {
		case w == "recovered" && strings.HasPrefix(s[m[1]:], " from"):
			key, label = "health", "recovered from"
		case w == "recovered", w == "resolved", w == "restored", w == "mitigated", w == "back up",
			w == "back online", w == "up again", w == "online again", w == "all clear", w == "back to normal",
			w == "returned to normal":
			key = "status"
		default:
			return Classification{}, false
		}
	}
	return Classification{Durability: Ephemeral, Category: CategoryState, Key: key,
		Reason: label + " " + t.quote(m[0], m[1])}, true
}

// ---------------------------------------------------------------- topics

// clsTopicWords name the topic of a single word, by the categories it names
// a key in.
var clsTopicWords = map[string]string{
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

// clsTopicPhrases name the topic of a phrase, checked before the words.
var clsTopicPhrases = [...]struct{ phrase, key string }{
	{"dark mode", "theme"}, {"light mode", "theme"}, {"dark theme", "theme"}, {"light theme", "theme"},
	{"flat white", "drink"}, {"hot chocolate", "drink"},
	{"window seat", "seat"},
	{"vs code", "editor"}, {"sublime text", "editor"},
	{"wakes up", "wake_time"}, {"wake up", "wake_time"}, {"gets up", "wake_time"}, {"get up", "wake_time"},
	{"goes to bed", "bedtime"}, {"go to bed", "bedtime"}, {"bedtime", "bedtime"}, {"goes to sleep", "bedtime"},
}

// clsContactRe: how someone wants to be reached (preferences only).
var clsContactRe = regexp.MustCompile(`\b(?:contact(?:ed)?|reach(?:ed)?|phone calls?|calls|text messages|texts|sms|voicemails?|(?:by|via|over|through) (?:e-?mail|phone|text|slack|sms|whatsapp|signal|telegram))\b`)

// clsTimezoneRe: a time zone (observations).
var clsTimezoneRe = regexp.MustCompile(`\b(?:time ?zone|(?:utc|gmt) ?[+-] ?\d{1,2}(?::?\d{2})?|(?:pacific|eastern|central|mountain|atlantic) (?:standard |daylight )?time|(?:pst|pdt|est|edt|cst|cdt|mst|mdt|cet|cest|eet|eest|wet|bst|jst|aest|aedt|nzst|nzdt|sgt|hkt))\b`)

// clsDeployRe and clsWeekdayWordRe: the day deploys or releases go out.
var (
	clsDeployRe      = regexp.MustCompile(`\b(?:deploy|deploys|deployed|deploying|deployment|deployments|release|releases|releasing|ship|ships|shipping|rollout|rollouts|roll out|go live|goes live)\b`)
	clsWeekdayWordRe = regexp.MustCompile(`\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bweekdays?\b`)
	// clsWorkScheduleRe: when or where someone works, as a habit.
	clsWorkScheduleRe = regexp.MustCompile(`\b(?:works?|working) (?:the )?(?:nights|night shifts?|nightshifts?|days|day shifts?|evenings|weekends|mornings|early shifts?|late shifts?|shifts|nine to five|9 to 5|9-5|from home|remotely|remote|part[- ]time|full[- ]time|overtime)\b`)
)

// topicKey is the topic of t for a fact of category, or "".
func (t *clsText) topicKey(category string) string {
	s := t.norm
	if category == CategoryObservation {
		if clsTimezoneRe.MatchString(s) {
			return "timezone"
		}
	}
	// A weekday makes a date or a recurrence: the deploy day needs one.
	deployDay := t.has(clsFDate|clsFRecur) && clsWeekdayWordRe.MatchString(s) && clsDeployRe.MatchString(s)
	if category != CategoryPreference {
		if t.has(clsFWork) && clsWorkScheduleRe.MatchString(s) {
			return "work_schedule"
		}
		if deployDay {
			return "deploy_day"
		}
	} else {
		if deployDay {
			return "deploy_day"
		}
		if clsContactRe.MatchString(s) {
			return "contact_method"
		}
	}
	for _, p := range clsTopicPhrases {
		if clsHasPhrase(s, p.phrase) {
			return p.key
		}
	}
	key := ""
	clsEachWord(s, func(w string) bool {
		if k, ok := clsTopicWords[w]; ok {
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

// clsHasPhrase reports whether s holds phrase as whole words.
func clsHasPhrase(s, phrase string) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], phrase)
		if i < 0 {
			return false
		}
		a, b := from+i, from+i+len(phrase)
		if (a == 0 || !clsIsWordByte(s[a-1])) && (b == len(s) || !clsIsWordByte(s[b])) {
			return true
		}
		from = a + 1
	}
	return false
}

// clsEachWord calls f with each word of s, trimmed of quotes and dashes,
// until f returns false.
func clsEachWord(s string, f func(string) bool) {
	for i := 0; i < len(s); {
		if !clsIsWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && clsIsWordByte(s[j]) {
			j++
		}
		if w := strings.Trim(s[i:j], "'-"); w != "" {
			w = strings.TrimSuffix(w, "'s")
			if !f(w) {
				return
			}
		}
		i = j
	}
}

// ----------------------------------------------------------- preferences

// preferenceObject is a key made of what a preference is about: "hates
// cilantro" and "loves cilantro" give cilantro, "a huge Arsenal fan" arsenal,
// "favourite colour is blue" favourite_colour.
func (t *clsText) preferenceObject() string {
	m := t.findSub(clsFPreference, clsPreferenceRe)
	if m == nil {
		return ""
	}
	s, marker := t.norm, t.norm[m[0]:m[1]]
	if strings.HasSuffix(marker, "fan") && !strings.HasSuffix(marker, " fan of") {
		// "a huge Arsenal fan": the object sits between the article and "fan".
		var parts []string
		clsEachWord(marker, func(w string) bool {
			switch w {
			case "a", "an", "big", "huge", "massive", "great", "real", "true", "die-hard", "diehard", "lifelong", "fan":
			default:
				parts = append(parts, w)
			}
			return true
		})
		return clsSlug(strings.Join(parts, "_"))
	}
	words := clsObjectWords(s, m[1], 3)
	if strings.HasPrefix(marker, "favou") {
		if len(words) == 0 {
			return ""
		}
		return clsSlug("favourite_" + words[0])
	}
	return clsSlug(strings.Join(words, "_"))
}

// clsObjectWords are up to n words of the object that starts at pos:
// leading articles, possessives and auxiliaries skipped, up to the first
// punctuation, conjunction or preposition ("on" and "of" may join words:
// put_on_hold, formula_1).
func clsObjectWords(s string, pos, n int) []string {
	var out []string
	for i := pos; i < len(s) && len(out) < n; {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) || !clsIsWordByte(s[i]) {
			break
		}
		w, e := clsNextWord(s, i)
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
			if w == "to" || w == "be" || w == "being" {
				return out
			}
			continue
		case "on", "of":
			if len(out) == 0 {
				continue
			}
			next, _ := clsNextWord(s, e)
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

// clsIsJob reports whether w, after "my job is", names an occupation:
// a role ("a nurse") or a trade ("nursing", "accounting"), not how the job
// is ("boring", "stressful").
func clsIsJob(w string) bool {
	if clsIsRole(w) {
		return true
	}
	if !strings.HasSuffix(w, "ing") || len(w) < 6 {
		return false
	}
	switch w {
	case "boring", "exhausting", "demanding", "draining", "amazing", "interesting", "annoying", "tiring",
		"rewarding", "challenging", "killing", "frustrating", "stressing", "relaxing", "fulfilling", "satisfying",
		"disappointing", "depressing", "overwhelming", "confusing", "changing", "ending", "going", "starting",
		"paying", "something", "nothing", "everything", "working", "growing", "looking", "waiting", "moving":
		return false
	}
	return true
}

// Resolves reports whether text says that something recovered, was
// resolved or is back to normal ("It recovered at 10:05", "back to normal"):
// a state that resolves an earlier one, whose key it should keep. The
// classifier gives such a text its metric's key when it names one, and
// status otherwise; an extractor that knows the earlier state of the same
// entity can keep that state's key instead.
func Resolves(text string) bool {
	t := clsNormalize(text)
	return t.findSub(clsFResolved, clsResolvedRe) != nil
}
