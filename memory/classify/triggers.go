package classify

import "strings"

// flags records which families of words a text contains. Go's regexp has
// no DFA, so the rules' large patterns cost a few microseconds each; a text
// only runs the patterns whose trigger words it holds. Every alternative of a
// pattern contains at least one word of its family (the tests check this).
type flags uint32

const (
	fMood flags = 1 << iota
	fIdentity
	fWork // works, worked... (with fAs: "works as a")
	fAs
	fRole
	fDecided
	fAgreed
	fChoice
	fObligation
	fDate
	fRecur
	fPast
	fToday
	fPresent
	fBounded
	fReading
	fPreference
	fObservation
	fResolved // recovered, back to normal (states.go)
	fEvent    // finished, failed, created... (events.go)
	fFuture   // will, 'll, going to, plans to (obligations.go: commitments)
	fTaste    // coffee, tea, steak... taken some way (preferences.go)
	// Families of the date patterns, all within fDate.
	fDigit
	fMonth
	fWeekday
	fRelDay
	fUnit
	fPeriod
	fClockWord
)

// scan returns the trigger flags of the words of s.
func scan(s string) flags {
	var f flags
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j, digit, joined := i, false, false
		for j < len(s) && isWordByte(s[j]) {
			c := s[j]
			digit = digit || c >= '0' && c <= '9'
			joined = joined || c == '\'' || c == '-' || c >= 0x80
			j++
		}
		w := strings.Trim(s[i:j], "'-")
		if digit {
			f |= fDate | fReading | fDigit
		}
		f |= wordFlags(w)
		if isRole(w) {
			f |= fRole
		}
		if isEventWord(w) {
			f |= fEvent
		}
		if joined {
			// The patterns' \b sees a boundary at an apostrophe, a hyphen or a
			// non-ASCII byte ("stressed-out", "tired…"): score the parts too.
			for k := i; k < j; {
				for k < j && !isPartByte(s[k]) {
					k++
				}
				e := k
				for e < j && isPartByte(s[e]) {
					e++
				}
				if e > k {
					f |= wordFlags(s[k:e])
					if isRole(s[k:e]) {
						f |= fRole
					}
				}
				k = e
			}
		}
		i = j
	}
	return f
}

func isPartByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

func wordFlags(w string) flags {
	switch w {
	// moods: feeling words, feel*, mood phrases
	case "stressed", "tired", "exhausted", "worn", "drained", "angry", "furious", "livid", "mad", "pissed", "happy",
		"sad", "unhappy", "frustrated", "annoyed", "irritated", "irritable", "upset", "excited", "thrilled", "anxious",
		"nervous", "worried", "bored", "grumpy", "cranky", "moody", "overwhelmed", "depressed", "lonely",
		"disappointed", "relieved", "elated", "cheerful", "gloomy", "miserable", "impatient", "fed", "burned", "burnt",
		"sleepy", "restless", "jittery", "ecstatic", "delighted", "glad", "embarrassed", "ashamed", "jealous",
		"hopeful", "optimistic", "pessimistic", "heartbroken", "homesick", "scared", "terrified", "panicked",
		"panicking", "pumped", "stoked", "outraged", "offended", "insulted", "sulking", "sulky", "cross", "huff", "edge",
		"feel", "feels", "feeling", "felt", "feelin", "mood", "morale", "ridiculous", "absurd", "unacceptable", "insane",
		"infuriating", "maddening", "hate", "hating", "loathe", "detest", "despise":
		return fMood
	case "hates", "hated", "stand", "loathes":
		return fMood | fPreference
	case "sick":
		return fMood | fBounded
	case "day":
		return fMood | fDate | fRelDay | fUnit
	case "week":
		return fMood | fDate | fBounded | fUnit | fPeriod
	case "night":
		return fMood | fRecur
	case "morning", "afternoon", "evening":
		return fMood | fDate | fToday | fRelDay
	// identity
	case "name", "name's", "goes", "pronouns", "born", "birthplace", "birth", "birthday", "birthdate", "dob",
		"allergic", "allergy", "allergies", "native", "tongue", "language", "natively", "originally", "grew", "hails",
		"nationality", "citizenship", "citizen", "raised", "introvert", "extrovert", "ambivert", "introverted",
		"extroverted", "owl", "person", "bird", "perfectionist", "workaholic", "vegetarian", "vegan", "pescatarian",
		"kosher", "halal", "intolerant", "coeliac", "celiac", "left-handed", "right-handed", "colorblind",
		"colourblind", "color", "colour", "deaf", "blind", "diabetic", "autistic", "dyslexic", "bilingual",
		"trilingual", "multilingual", "handed", "occupation", "profession":
		return fIdentity
	case "work":
		return fWork | fObservation
	case "works":
		return fWork | fObservation | fResolved
	case "worked":
		return fWork | fObservation | fPast
	case "working":
		return fWork | fObservation | fBounded | fResolved
	case "as":
		return fAs
	// decisions
	case "decided", "decides", "settled", "opted", "standardized", "standardised", "decision":
		return fDecided
	case "agreed", "agree":
		return fAgreed
	case "will", "shall", "ll", "plan", "plans", "planning", "intend", "intends":
		return fFuture
	case "coffee", "tea", "espresso", "latte", "whisky", "whiskey", "martini", "eggs", "steak", "burger", "pizza",
		"curry":
		return fTaste
	case "going":
		return fChoice | fFuture
	case "chose", "chosen", "choose", "selected", "go", "sticking", "stick", "stuck", "ruled",
		"adopted", "switched", "migrated", "adopt", "forward", "stays", "remains", "stay", "remain", "staying",
		"migrate", "move", "switch", "rewrite", "support", "offer", "upgrade", "replace", "build":
		return fChoice
	case "picked":
		return fChoice | fPast
	case "use":
		return fChoice | fObservation
	case "went":
		return fChoice | fPast | fReading
	case "moved":
		return fChoice | fObservation
	case "using", "uses":
		return fChoice | fObservation
	case "now":
		return fChoice | fPresent
	// obligations
	case "must", "mustn't", "mustn", "needs", "need", "has", "have", "got", "gotta", "supposed", "expected", "promised",
		"promises", "committed", "commits", "owes", "obliged", "obligated", "required", "remind", "reminder",
		"forget", "remember", "overdue", "due", "rsvp", "hook":
		return fObligation
	case "deadline":
		return fObligation | fBounded
	// dates
	case "jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june", "jul", "july",
		"aug", "august", "sep", "sept", "september", "oct", "october", "nov", "november", "dec", "december":
		return fDate | fMonth
	case "monday", "mon", "tuesday", "tues", "tue", "wednesday", "wed", "thursday", "thurs", "thu", "friday", "fri",
		"saturday", "sat", "sunday", "sun":
		return fDate | fWeekday
	case "tomorrow", "tmrw", "tmr", "eod":
		return fDate | fRelDay
	case "eow", "eom", "eoy", "eoq":
		return fDate | fPeriod
	case "minute", "minutes", "hour", "hours", "weeks", "months", "years":
		return fDate | fUnit
	case "noon", "midday", "midnight":
		return fDate | fClockWord
	case "today", "tonight":
		return fDate | fToday | fRelDay
	case "days":
		return fDate | fBounded | fUnit
	case "weekend", "quarter":
		return fDate | fBounded | fPeriod
	case "month":
		return fDate | fBounded | fUnit | fPeriod
	case "year":
		return fDate | fUnit | fPeriod
	// routines
	case "every", "each", "daily", "nightly", "weekly", "biweekly", "bi-weekly", "fortnightly", "monthly",
		"quarterly", "yearly", "annually", "hourly", "weekdays", "weeknights", "weekends", "mondays", "tuesdays",
		"wednesdays", "thursdays", "fridays", "saturdays", "sundays", "usually", "typically", "normally", "generally",
		"routinely", "habitually", "regularly", "often", "frequently", "tends", "tend", "whenever", "most", "once",
		"twice", "times", "mornings", "evenings", "rule", "habit", "routine", "ritual":
		return fRecur
	case "always", "never", "only":
		return fRecur | fPreference
	// the past
	case "was", "were", "did", "had", "ago", "yesterday", "last", "happened", "shipped", "released", "launched",
		"completed", "finished", "sent", "paid", "filed", "submitted", "delivered", "presented", "attended", "joined",
		"started", "began", "took", "met", "lived", "used", "earlier", "previously", "formerly", "renewed", "complained",
		"reported", "mentioned", "cancelled", "canceled", "upgraded", "downgraded", "bought", "ordered", "booked",
		"posted", "mailed", "signed", "collected", "topped", "transferred", "dropped", "lost", "broke", "forgot",
		"damaged", "misplaced", "stole", "delayed", "overbooked", "threatened", "woke", "emailed", "wrote", "noticed",
		"saw", "found":
		return fPast
	case "asked", "told", "reminded", "requested", "instructed", "insisted":
		return fPast | fPreference
	// present and bounded states, readings
	case "moment", "atm", "present", "currently", "eta", "progress", "underway", "way", "ongoing",
		"rolling", "call", "meeting", "meetings", "break", "afk", "down", "offline", "unreachable",
		"unavailable", "degraded", "failing", "flapping", "still", "deploying", "syncing", "migrating", "rebuilding",
		"restarting", "rebooting", "reindexing", "indexing", "backfilling", "compiling", "building", "uploading",
		"downloading", "installing", "updating", "upgrading", "loading", "processing", "investigating", "debugging",
		"driving", "commuting", "boarding", "sleeping", "eating", "transit":
		return fPresent
	case "recovering":
		return fPresent | fBounded | fResolved
	case "speak":
		return fPresent | fObservation
	case "phone":
		return fPresent | fObservation
	case "sprint", "season", "next", "coming", "for", "temporarily", "lately", "until", "till", "til", "vacation",
		"holiday", "holidays", "leave", "pto", "sabbatical", "office", "ooo", "off", "out", "travelling", "traveling",
		"busy", "dealing", "blocked", "waiting", "cold", "flu", "covid", "ill", "unwell", "injured", "pregnant":
		return fBounded
	case "lag", "latency", "load", "cpu", "memory", "mem", "disk", "queue", "backlog", "error", "throughput",
		"utilization", "utilisation", "response", "free", "heap", "rps", "qps", "outage", "fire", "lunch", "ram",
		"uptime", "median", "errors", "latencies":
		return fReading
	// recoveries (states.go)
	case "recovered", "resolved", "restored", "stabilized", "stabilised", "subsided", "mitigated", "cleared",
		"normalized", "normalised", "back", "again", "normal", "healthy", "green", "fine", "ok", "okay", "up",
		"online", "clear", "solved", "fixed", "sorted", "better", "good":
		return fResolved
	case "returned":
		return fResolved | fPast
	// preferences
	case "prefer", "prefers", "preferred", "preferring", "preference", "preferences", "rather", "favourite",
		"favorite", "favourites", "favorites", "likes", "liked", "like", "love", "loves", "enjoy", "enjoys", "enjoyed",
		"fan", "fond", "dislike", "dislikes", "disliked", "detests", "wants", "wanted", "exclusively", "asks", "tells",
		"requests", "insists", "ever":
		return fPreference
	// observations
	case "lives", "live", "based", "resides", "reside", "relocated", "employed", "speaks", "timezone", "time",
		"email", "e-mail", "mail", "owns":
		return fObservation
	case "living", "job":
		return fObservation | fIdentity
	}
	for _, p := range [...]string{"ugh", "argh", "urgh", "grr", "yay", "woo", "sigh", "hooray", "ffs"} {
		if strings.HasPrefix(w, p) {
			return fMood
		}
	}
	return 0
}
