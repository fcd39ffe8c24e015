package classify

import (
	"regexp"
	"strings"
	"time"
)

var (
	// todayRe: a state that holds today only is ephemeral even when bounded.
	todayRe = regexp.MustCompile(`\b(?:today|tonight|this morning|this afternoon|this evening)\b`)
	// presentRe: a condition of this very moment; these read as present
	// even next to a past verb ("the deploy that started at 9 is still rolling out").
	presentRe = regexp.MustCompile(`\b(?:right now|at the moment|atm|as we speak|at present|currently|for the moment|just now|eta|in progress|underway|under way|ongoing|rolling out|on a call|on the phone|in a meeting|in meetings|on a break|afk|(?:is|are|'s|'re) (?:still |currently )?(?:down|offline|unreachable|unavailable|degraded|failing|flapping)|still (?:[a-z]+ing|pending|in progress|broken|blocked|open|out|away|sick|down)|(?:is|are|'s|'re|am|'m) (?:now |currently )?(?:deploying|syncing|migrating|rebuilding|restarting|rebooting|reindexing|indexing|backfilling|compiling|building|uploading|downloading|installing|updating|upgrading|loading|processing|recovering|investigating|debugging|driving|commuting|boarding|sleeping|eating|in transit))\b`)
	// boundedRe: a condition with an end in sight: short_term.
	boundedRe = regexp.MustCompile(`\b(?:this week|this weekend|this month|this quarter|this sprint|this season|next week|next few days|(?:the )?coming (?:days|weeks)|for the next|for another|for the rest of|for the time being|for now|temporarily|these days|lately|until|till|til|on vacation|on holidays?|on leave|on pto|pto|on sabbatical|parental leave|maternity leave|paternity leave|sick leave|out of (?:the )?office|ooo|off sick|off work|out sick|on (?:a )?(?:tight )?deadline|under (?:a )?(?:tight )?deadline|against (?:a|the) deadline|(?:is|are|am|'s|'re|'m|currently|still) (?:travell?ing|working on|busy with|dealing with|recovering from|blocked on|waiting (?:on|for))|has (?:a cold|the flu|covid)|(?:is|am|are|'s|'m|'re) (?:sick|ill|unwell|injured|pregnant))\b|^(?:travell?ing|working on|busy with|dealing with|recovering from|blocked on|waiting (?:on|for))\b`)
	// levelRe: a bare level, the reading of a metric named before ("still
	// 97%", "back to 40%", "down to 0.1%").
	levelRe = regexp.MustCompile(`\b(?:still|now|back to|down to|dropped to|fell to|rose to|climbed to|jumped to|now at|steady at|holding at|stuck at) (?:about |around |~)?\d[\d.,]*(?:%|\s?(?:ms|gb|mb|tb|k|rps|qps)\b)`)
	// forRe: "for two weeks", "for an hour".
	forRe = regexp.MustCompile(`\bfor (?:a|an|one|two|three|four|five|six|a few|a couple of|several|\d{1,3}) (minutes?|hours?|days?|weeks?)\b`)
	// readingRe: a metric reading or progress, as of now.
	readingRe = regexp.MustCompile(`\b(?:([a-z0-9]+) )?(lag|latency|load|cpu|memory usage|mem usage|disk usage|queue depth|queue length|queue size|backlog|error rate|throughput|utili[sz]ation|p50|p95|p99|response time|free space|disk space|heap|rps|qps)\b[^.;!?\d]{0,32}\d[\d.,]*(?: ?(?:%|[a-z]+\b))?|\b\d{1,3} ?% (?:done|complete|completed|through|finished|rolled out|deployed|migrated|synced|uploaded|of the way)\b|\b(?:at|reached) \d{1,3} ?%|\b(?:outage|went down|on fire|at lunch)\b`)
)

// stateKey guesses the predicate of a state from its marker.
func (t *text) stateKey(marker string) string {
	switch {
	case strings.Contains(marker, "call"), strings.Contains(marker, "phone"), strings.Contains(marker, "meeting"),
		strings.Contains(marker, "vacation"), strings.Contains(marker, "holiday"), strings.Contains(marker, "leave"),
		strings.Contains(marker, "pto"), strings.Contains(marker, "office"), marker == "ooo", marker == "afk",
		strings.Contains(marker, "break"), strings.Contains(marker, "lunch"), strings.Contains(marker, "off work"),
		strings.Contains(marker, "sabbatical"), strings.Contains(marker, "travel"):
		return "availability"
	case strings.Contains(marker, "sick"), strings.Contains(marker, " ill"), strings.Contains(marker, "unwell"),
		strings.Contains(marker, "injured"), strings.Contains(marker, "cold"), strings.Contains(marker, "flu"),
		strings.Contains(marker, "covid"), strings.Contains(marker, "recovering from"), strings.Contains(marker, "pregnant"):
		return "health"
	case strings.Contains(marker, "deadline"), strings.Contains(marker, "working on"), strings.Contains(marker, "busy with"),
		strings.Contains(marker, "dealing with"), strings.Contains(marker, "blocked"), strings.Contains(marker, "waiting"):
		return "workload"
	case strings.Contains(marker, "%"):
		return "progress"
	}
	if loc := availabilityRe.FindStringIndex(t.norm); loc != nil {
		return "availability"
	}
	if loc := locationRe.FindStringSubmatchIndex(t.norm); loc != nil {
		switch t.norm[loc[2]:loc[3]] {
		case "a", "an", "the", "progress", "meetings", "transit", "charge", "touch", "trouble", "town", "bed", "hospital":
		default:
			return "location"
		}
	}
	return "status"
}

var copulaRe = regexp.MustCompile(`(?:^|\b)(?:is|are|am|'s|'m|'re|being|working|out|off|away|home|in|at|on)\b`)

var availabilityRe = regexp.MustCompile(`\b(?:on a call|on the phone|in a meeting|in meetings|on vacation|on holidays?|on leave|on pto|ooo|out of (?:the )?office|afk|on a break|at lunch|off work|on sabbatical|working from home|wfh)\b`)

var locationRe = regexp.MustCompile(`\b(?:is|am|are|'s|'m|'re) (?:currently |now |still )?in ([a-z]+)`)

// state classifies a status line: a bare statement of a condition. A text
// that says more is what else it states.
func (t *text) state(now time.Time, past bool) (Classification, bool) {
	s := t.norm
	if !t.bare() {
		return Classification{}, false
	}
	state := func(d Durability, label string, a, b int, key string) (Classification, bool) {
		return Classification{Durability: d, Category: CategoryState, Key: key, Reason: label + " " + t.quote(a, b)}, true
	}
	// A present-tense marker, skipping "currently lives in" (a long_term fact
	// that may change, not a condition of the moment).
	pa, pb := -1, -1
	for from, tries := 0, 0; t.has(fPresent) && from < len(s) && tries < maxTries; tries++ {
		loc := presentRe.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		a, b := from+loc[0], from+loc[1]
		from = b
		if s[a:b] == "currently" {
			next, _ := nextWord(s, b)
			switch next {
			case "lives", "living", "based", "employed", "works", "resides", "uses", "using", "owns", "holds", "serves", "has":
				continue
			}
		}
		pa, pb = a, b
		break
	}
	// "today" makes a present condition ephemeral ("is working from home
	// today"), but not an event ("called today about billing").
	if loc := t.find(fToday, todayRe); loc != nil && (pa >= 0 || !past && copulaRe.MatchString(s)) {
		key := "status"
		if pa >= 0 {
			key = t.stateKey(s[pa:pb])
		} else if bl := t.find(fBounded, boundedRe); bl != nil {
			key = t.stateKey(s[bl[0]:bl[1]])
		}
		return state(Ephemeral, "state for today", loc[0], loc[1], key)
	}
	// Out, off or away on a day to come: short_term ("I'm off tomorrow");
	// today it is covered above.
	if !past && t.has(fDate) && (t.has(fBounded|fPresent) || strings.Contains(s, "away") || strings.Contains(s, "late")) {
		if loc := awayRe.FindStringIndex(s); loc != nil {
			if d, ok := t.findDate(now); ok && !d.bound && !d.qualified && d.t.After(now) {
				if t.find(fToday, todayRe) != nil {
					return state(Ephemeral, "away today", loc[0], loc[1], "availability")
				}
				return state(ShortTerm, "away", loc[0], loc[1], "availability")
			}
		}
	}
	if !past {
		if loc := t.find(fBounded, boundedRe); loc != nil {
			return state(ShortTerm, "bounded state", loc[0], loc[1], t.stateKey(s[loc[0]:loc[1]]))
		}
		if m := t.findSub(fBounded, forRe); m != nil && !strings.Contains(s, "been ") &&
			!strings.Contains(s, "has ") && !strings.Contains(s, "have ") {
			unit := s[m[2]:m[3]]
			if strings.HasPrefix(unit, "minute") || strings.HasPrefix(unit, "hour") {
				return state(Ephemeral, "state for", m[0], m[1], "status")
			}
			return state(ShortTerm, "bounded state", m[0], m[1], "status")
		}
	}
	if pa >= 0 {
		return state(Ephemeral, "current state", pa, pb, t.stateKey(s[pa:pb]))
	}
	if !past {
		if m := t.findSub(fReading, readingRe); m != nil {
			key := "status"
			switch {
			case m[4] >= 0:
				key = slug(s[m[4]:m[5]])
				if m[2] >= 0 {
					switch q := s[m[2]:m[3]]; q {
					case "the", "a", "an", "is", "our", "my", "his", "her", "their", "its", "current", "avg", "average", "and", "of", "with", "high", "low":
					default:
						key = slug(q + "_" + key)
					}
				}
			case strings.Contains(s[m[0]:m[1]], "%"):
				key = "progress"
			case strings.Contains(s[m[0]:m[1]], "lunch"):
				key = "availability"
			}
			return state(Ephemeral, "reading", m[0], m[1], key)
		}
		if m := t.find(fDigit, levelRe); m != nil {
			return state(Ephemeral, "level", m[0], m[1], "status")
		}
	}
	return Classification{}, false
}

// ------------------------------------------------------------ recoveries

// resolvedRe: something recovered or is back to normal.
var resolvedRe = regexp.MustCompile(`\b(?:(recovered|recovering|resolved|restored|stabili[sz]ed|subsided|mitigated|cleared|normali[sz]ed)|back (?:to normal|to green|to \d|under|below|within|down|up|online|in range)|(?:is|are|'s|'re) (?:now )?(?:normal|healthy|green|fine|ok|okay)|(?:up|online|healthy|normal|green|fine|ok|okay) again|returned to normal|all clear)\b`)

// conditionRe: how a metric is doing, when the text names one.
var conditionRe = regexp.MustCompile(`\b(?:high|higher|elevated|spiking|spiked|spikes|climbing|rising|growing|increasing|dropping|falling|low|critical|degraded|through the roof|off the charts)\b`)

// resolved classifies a metric or a service that recovered, is back to
// normal, or (for a metric) is high or spiking, with no reading to say so:
// an ephemeral state on the key of the state it resolves (the metric's, or
// status; health for a person who recovered from an illness). What is told
// as past ("was resolved yesterday") is a record, not a state, and so is a
// text that says more than a bare statement.
func (t *text) resolved(past bool) (Classification, bool) {
	if past || !t.bare() {
		return Classification{}, false
	}
	s := t.norm
	key := t.metricKey()
	m := t.findSub(fResolved, resolvedRe)
	if m == nil && key != "" {
		if loc := conditionRe.FindStringIndex(s); loc != nil {
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

// Resolves reports whether text says that something recovered, was
// resolved or is back to normal ("It recovered at 10:05", "back to normal"):
// a state that resolves an earlier one, whose key it should keep. The
// classifier gives such a text its metric's key when it names one, and
// status otherwise; an extractor that knows the earlier state of the same
// entity can keep that state's key instead.
func Resolves(text string) bool {
	t := normalize(text)
	return t.findSub(fResolved, resolvedRe) != nil
}
