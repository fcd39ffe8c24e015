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

// state classifies a status line: a bare statement of a condition, a duty
// held for a while (duty) or a fault (trouble). A text that says more is
// what else it states, but for a state explained by its cause or its
// consequence (explainedState).
func (t *text) state(now time.Time, past bool) (Classification, bool) {
	s := t.norm
	if !t.bare() {
		return t.explainedState(now)
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
			if t.find(fRecur, recurRe) != nil {
				continue // "the probe currently hits /healthz every 10 seconds": a setting, not a moment
			}
		}
		if s[a:b] == "just now" && past {
			continue // "paid it just now": a moment ago, done
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
				if t.find(fToday, todayRe) != nil || d.clockOnly {
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
	if c, ok := t.duty(); ok {
		return c, true
	}
	return t.trouble(past)
}

// ----------------------------------------------------------------- duties

// dutyRe: a duty or a role someone holds for a while, not for life: the
// pager and the on-call shift (group 1), a role for an incident or a
// stand-in (2), a task being handled (3), a ticket or a task taken on (4).
var dutyRe = regexp.MustCompile(`\b(?:` +
	`((?:shadow(?:s|ing|ed)? )?on[- ]call\b|(?:has|have|got|holds?|holding|took|takes?|taken|taking|carr(?:y|ies|ying)) (?:the|her|his|my|their|our|your) pager|` +
	`(?:cover(?:s|ing|ed)?|tak(?:e|es|ing)|took|pick(?:s|ing|ed)?(?: up)?|grab(?:s|bing|bed)?|swap(?:s|ping|ped)?) (?:the |his |her |my |their |a |an |your |this |that |tonight's |today's |tomorrow's )?(?:[a-z0-9]+ )?(?:shift|pager|rotation)|` +
	`(?:took|tak(?:e|es|ing)) over)|` +
	`((?:is|am|are|'s|'m|'re) (?:now |currently |also |still )?(?:the |my |our |his |her |their |your |a |an )?(?:acting |interim |temporary )?(?:incident commander|ic|incident lead|comms lead|communications lead|scribe|point person|point of contact|backup|secondary|primary|deputy|stand-in|liaison|first responder|cover)\b)|` +
	`((?:is|am|are|'s|'m|'re) (?:now |currently |also |still )?(?:handling|covering|coordinating|owning|leading|fielding|triaging|running point on|looking after|taking care of|in charge of) |(?:is|am|are|'s|'m|'re) (?:now |currently |also |still )?(?:on point|on duty|on shift|on the rota)\b)|` +
	`((?:picked up|took|grabbed|claimed|got assigned|was assigned|been assigned|assigned myself|self-assigned) (?:the |a |an |this |that |my |our )?(?:[a-z0-9-]+ ){0,3}(?:ticket|task|issue|bug|story|card|item|pr|review|incident|case|escalation)s?\b)` +
	`)`)

// duty classifies a bare statement of a duty or a role held for a while
// ("I'm on call this week", "Rahul has her pager", "taking over as IC",
// "I'm the incident commander for INC-2291", "Marta is my backup", "Lena is
// handling comms", "I picked up the Terraform ticket"): a short_term state,
// ephemeral when it holds today only. A ticket taken on stays short_term
// though taken this morning: it is held until done. Shadowing on call is
// training, a plan rather than the pager (obligations.go).
func (t *text) duty() (Classification, bool) {
	s := t.norm
	if pastTimeRe.MatchString(s) {
		return Classification{}, false // "took over last year": a record
	}
	var m []int
	for _, x := range dutyRe.FindAllStringSubmatchIndex(s, 4) {
		// "I'm not on call anymore, Jun took over": the duty denied is
		// none, the one taken over is.
		if t.negated(x[0], 2) || strings.HasPrefix(s[x[0]:x[1]], "shadow") {
			continue
		}
		next, _ := nextWord(s, x[1])
		if strings.HasSuffix(s[x[0]:x[1]], "call") && onCallThing(next) {
			continue // "the on-call rotation review" is a thing, not a duty
		}
		if strings.HasSuffix(s[x[0]:x[1]], " over") && next != "as" && next != "from" && next != "for" &&
			!onCallWordRe.MatchString(s) {
			continue // "the new CEO took over": a role, not a duty held for now
		}
		m = x
		break
	}
	if m == nil {
		return Classification{}, false
	}
	key, label := "status", "duty"
	switch {
	case m[2] >= 0:
		label = "on call"
	case m[4] >= 0:
		label = "role for now"
	case m[8] >= 0:
		label = "task taken on"
	}
	if onCallDutyRe.MatchString(s) {
		key = "on_call" // the pager's holder: "taking over as IC" is a role, not the pager
	}
	d := ShortTerm
	if m[8] < 0 && t.find(fToday, todayRe) != nil {
		d = Ephemeral
	}
	return Classification{Durability: d, Category: CategoryState, Key: key,
		Reason: label + " " + t.quote(m[0], m[1])}, true
}

// onCallDutyRe: the words of the on-call duty itself.
var onCallDutyRe = regexp.MustCompile(`\b(?:on[- ]call|pager|shift|rotation)\b`)

// onCallWordRe: the words of an on-call duty or an incident, which make
// taking over a stand-in's turn.
var onCallWordRe = regexp.MustCompile(`\b(?:on[- ]call|pager|shift|rotation|incident|inc-\d+|ic|escalations?|outage)\b`)

// onCallThing reports whether w, after "on-call", makes it a thing's name
// rather than a duty ("the on-call rotation", "on-call handover"): a
// duty's "on call" ends its phrase or goes on to when or for whom it
// holds ("on call this week", "on call for the hospital").
func onCallThing(w string) bool {
	switch w {
	case "", "this", "next", "until", "till", "til", "for", "today", "tonight", "tomorrow", "on", "over", "at",
		"again", "now", "from", "starting", "all", "right", "so", "and", "but", "through", "during", "anymore",
		"as", "with", "in", "while", "then", "too", "instead", "either", "yet", "since", "every", "each":
		return false
	}
	return true
}

// --------------------------------------------------------------- troubles

var (
	// faultRe: a fault or a problem of the moment or under way. Group 1
	// is a problem that lasts until fixed: an inability ("I can't export
	// invoices"), a fault that persists or recurs ("keeps crashing",
	// "doesn't load", "still shows 10"), a loss ("has dropped my events")
	// or a problem reported ("reports duplicate charges"). Group 2 is a
	// fault seen now ("customers see timeouts", "is timing out", "is
	// broken", "way over budget", "FAILS").
	faultRe = regexp.MustCompile(`\b(?:(` +
		`(?:can't|cannot|can not|unable to|not able to)(?: even| still| actually)? (?:log ?in|login|sign ?in|sign on|access|open|load|export|import|upload|download|save|print|sync|connect|reach|see|find|view|pay|check ?out|install|update|test|deploy|send|receive|reset|change|add|remove|delete|edit|book|cancel|use|run|start|boot|build|merge|push|pull|play|stream|submit|verify|get (?:in|into|past|through)|transfer|withdraw|top up|scan|click|select|upgrade|downgrade|unsubscribe|renew|activate|register|log out|logout)|` +
		`(?:doesn't|does not|don't|do not|won't|will not|isn't|is not|aren't|are not|stopped|keeps?|kept) (?:work|working|load|loading|open|opening|start|starting|sync|syncing|connect|connecting|respond|responding|boot|booting|save|saving|print|printing|update|updating|send|sending|charge|charging|show up|showing up)\b(?: (?:at|for|as|in|with|on|from|here|there|anymore|any|remotely|weekends|nights|late|early|full|part|out))?|` +
		`keeps? (?:on )?(?:crashing|failing|freezing|timing out|dropping|disconnecting|logging (?:me|us|him|her|them) out|erroring|hanging|restarting|rebooting|breaking|losing|duplicating|double[- ]charging|charging|rejecting|bouncing|flapping|stalling|glitching|locking (?:me|us|him|her|them) out|getting (?:logged|kicked|signed|locked) out|getting (?:declined|rejected|blocked|flagged|bounced|dropped|deleted|lost|stuck|disconnected|errors|timeouts|charged twice|double[- ]charged))|` +
		`never (?:arrives?|loads?|shows? up|comes? through|gets? delivered|syncs?|finish(?:es)?|completes?|goes? through)|` +
		`still (?:show|say|list|display|charge|read|fail|crash|return|reject)(?:s|es)?|still times out|still time out|` +
		`(?:has|have|'s|'ve) (?:dropped|lost|deleted|duplicated|wiped|erased|corrupted|double[- ]charged|charged (?:me|us|them|him|her) twice|stopped working|logged (?:me|us|him|her|them) out|locked (?:me|us|him|her|them) out)|` +
		`(?:reports|reporting|complains of|complaining of|complains about|complaining about|experiencing|experiences|having|has|have) (?:an? |the |some |intermittent |occasional |random |lots of |many |more |constant |frequent |duplicate |double |repeated |recurring |login |sync |payment |billing |connection )*(?:errors?|timeouts?|[45]\d\ds|5xxs?|crash(?:es)?|outages?|failures?|charges|issues|problems|trouble|bugs?|glitch(?:es)?|downtime|delays|disconnects|disconnections)` +
		`)|(` +
		`(?:is|are|'s|'re|has been|have been|'s been|'ve been) (?:still |now |currently |again |all )?(?:crashing|failing|freezing|timing out|hanging|erroring|lagging|stalling|throwing errors|returning (?:errors|[45]\d\ds?)|stuck|broken|missing|delayed|cancell?ed|slow|unresponsive|frozen|corrupted|off by|out of sync|(?:way |well |far |slightly )?over (?:budget|quota|the limit|capacity))|` +
		`(?:way|well|far) over (?:budget|quota|the limit)|out of (?:memory|disk|disk space|space|stock|quota|credits)|` +
		`(?:seeing|sees|see|getting|gets|get|hitting|hits) (?:an? |the |some |intermittent |occasional |random |lots of |many |more |constant |frequent |repeated |elevated |high |higher |increased |spikes? (?:in|of) |a surge (?:in|of) )*(?:errors?|error rates?|timeouts?|[45]\d\ds?|5xxs?|crash(?:es)?|failures?|latency|packet loss|dropped connections)|` +
		`(?:ci|the build|builds|the pipeline|pipelines|the tests|tests|main|master|the suite) (?:is|are) (?:still )?(?:red|failing)|` +
		`(?:is|are|'s|'re) (?:still )?(?:showing|throwing|logging|reporting) (?:errors?|gaps|warnings|exceptions|[45]\d\ds?|timeouts?)|` +
		`(?:fails|crashes|freezes|hangs|times out|errors out)` +
		`)|((?:has been|'s been|have been|'ve been|been) (?:open|pending|unanswered|unassigned|waiting|stuck|unresolved) for)` +
		`)\b`)
	// lastingFaultRe: words that make a fault of the moment one under
	// way: it persists or recurs.
	lastingFaultRe = regexp.MustCompile(`\b(?:still|since|lately|recently|keeps?|kept|every time|each time|again and again|(?:second|third|fourth|fifth|sixth|\d+(?:st|nd|rd|th)) time|for (?:days|weeks|months|a week|a month|\d+ (?:days|weeks|months))|(?:days|weeks) now)\b`)
	// nowFaultRe: words that make a fault one of this moment.
	nowFaultRe = regexp.MustCompile(`\b(?:all (?:morning|day|afternoon|evening|night)|this hour|right now|now|at the moment|atm|currently|for (?:the (?:last|past) )?(?:an? |\d+ |a few |several )?(?:minutes?|hours?))\b|\b\d{1,2}(?::\d{2})? ?(?:am|pm)\b|\b\d{1,2}:\d{2}\b`)
)

// trouble classifies a bare statement of a fault or a problem someone or
// something has now: a state. A problem that lasts until it is fixed (an
// inability, a fault that persists or recurs, one reported) is
// short_term; a fault seen now is ephemeral. A time of this moment ("all
// morning", "right now", "for 47 hours", today) makes either ephemeral;
// one of persistence ("since Tuesday", "still", "for the fourth time")
// short_term. A ticket open for hours is a reading of its age, ephemeral.
// A condition ("if the job fails") or a denial ("it no longer crashes")
// states no fault.
func (t *text) trouble(past bool) (Classification, bool) {
	s := t.norm
	if past && !t.participlesOnly() {
		return Classification{}, false // "Globex complained the dashboard is slow": a record
	}
	if m := pastTimeRe.FindStringIndex(s); m != nil && !sinceRe.MatchString(s[:m[0]]) {
		return Classification{}, false // "the sync was failing yesterday"; but "since yesterday" is under way
	}
	if r := t.find(fRecur, recurRe); r != nil && !recurringFaultRe.MatchString(s[r[0]:r[1]]) {
		return Classification{}, false // "the build fails on Mondays": a habit (routines.go)
	}
	m := faultRe.FindStringSubmatchIndex(s)
	if m == nil {
		return Classification{}, false
	}
	head := s[:m[0]]
	if conditionalHeadRe.MatchString(head) || pastClauseRe.MatchString(s) {
		// "if the job fails": a rule; "the sync was failing yesterday": a
		// record. A participle is no past: "my train is cancelled".
		return Classification{}, false
	}
	if m[2] < 0 && t.negated(m[0], 2) {
		return Classification{}, false // "it no longer crashes", "it isn't slow"
	}
	match := s[m[0]:m[1]]
	next, _ := nextWord(s, m[1])
	switch {
	case m[1] < len(s) && s[m[1]] == '-':
		return Classification{}, false // "broken-hearted"
	case strings.HasSuffix(match, "fails") && next == "to":
		return Classification{}, false // "the report fails to mention": an omission, not a fault
	case strings.HasSuffix(match, "missing") && next != "" && !missingTail(next):
		return Classification{}, false // "the kids are missing their dad"
	}
	if m[2] >= 0 {
		var w [1]string
		n := wordsBefore(s, m[0], w[:])
		switch {
		case strings.HasPrefix(match, "can") && n == 1 && w[0] == "you":
			return Classification{}, false // "you can't use a VPN here": a rule for anyone
		case strings.HasPrefix(match, "do") && (n == 0 || w[0] == "please" || w[0] == "just"):
			return Classification{}, false // "Don't send me links": an order, no subject
		}
	}
	if m[2] >= 0 && strings.Contains(s[m[0]:m[1]], "work") {
		// "it doesn't work" is a fault; "I don't work at Globex" and "she
		// doesn't work weekends" tell where or when someone works.
		if last, _ := lastWord(s[m[0]:m[1]]); last != "work" && last != "working" {
			return Classification{}, false
		}
		var w [1]string
		if wordsBefore(s, m[0], w[:]) == 1 && (isPerson(w[0]) || isPersonWord(w[0])) {
			return Classification{}, false
		}
	}
	if m[6] >= 0 {
		// "has been open for 47 hours": only a ticket, a case or the like.
		var before [6]string
		n := wordsBefore(s, m[0], before[:])
		thing := false
		for _, w := range before[:n] {
			thing = thing || isJobNoun(w) || isIdentifier(w) || strings.HasPrefix(w, "#") ||
				w == "case" || w == "request" || w == "order" || w == "claim" || w == "refund" || w == "bug"
		}
		if !thing {
			return Classification{}, false
		}
	}
	d := Ephemeral
	if m[2] >= 0 {
		d = ShortTerm
	}
	switch {
	case t.find(fToday, todayRe) != nil || nowFaultRe.MatchString(s):
		d = Ephemeral
	case lastingFaultRe.MatchString(s):
		d = ShortTerm
	}
	if m[6] >= 0 {
		d = Ephemeral
	}
	return Classification{Durability: d, Category: CategoryState, Key: "status",
		Reason: "trouble " + t.quote(m[0], m[1])}, true
}

// causeRe: where a sentence goes on to the cause or the consequence of
// what it opens with.
var causeRe = regexp.MustCompile(` (?:because|due to)(?: |$)|, so `)

// explainedState classifies a sentence that opens with a state as its main
// clause and goes on to its cause or its consequence ("The recon package
// fails because the fixture clock is off by an hour", "I'm on call for the
// hospital this weekend, so I might not answer"): a state, as a feeling
// explained is a mood (moods.go), but with no key, since it says more than
// the state. The opening clause must be bare, and what follows one clause.
func (t *text) explainedState(now time.Time) (Classification, bool) {
	if !t.oneSentence() {
		return Classification{}, false
	}
	m := causeRe.FindStringIndex(t.norm)
	if m == nil || m[0] == 0 {
		return Classification{}, false
	}
	head := normalize(t.span(0, m[0]))
	if !head.bare() || clauseJointRe.MatchString(t.norm[m[1]:]) {
		return Classification{}, false // the cause goes on to a clause of its own
	}
	c := head.classify(now)
	if c.Category != CategoryState {
		return Classification{}, false
	}
	c.Key, c.Reason = "", c.Reason+", explained"
	return c, true
}

// lastWord is the last word of s and where it starts.
func lastWord(s string) (string, int) {
	s = strings.TrimRight(s, " ")
	i := strings.LastIndexByte(s, ' ')
	return s[i+1:], i + 1
}

// missingTail reports whether w, after "is missing", keeps it a thing
// gone ("the invoice is missing from the export"), not a person missing
// someone.
func missingTail(w string) bool {
	switch w {
	case "from", "in", "on", "since", "again", "for", "now", "today", "entirely", "completely":
		return true
	}
	return false
}

// sinceRe: "since" just before a past time, which makes it the start of
// what is under way ("since yesterday", "since last Tuesday").
var sinceRe = regexp.MustCompile(`\bsince(?: the)?\s*$`)

// participlesOnly reports whether every past form of the text is a
// participle after a form of be or have ("my train is cancelled", "the
// sync has been cancelled"), which tells no past.
func (t *text) participlesOnly() bool {
	s := t.norm
	for _, m := range pastRe.FindAllStringIndex(s, maxTries) {
		var w [2]string
		n := wordsBefore(s, m[0], w[:])
		aux := false
		for _, x := range w[:n] {
			switch x {
			case "since":
				aux = true // "since last Tuesday": when it began
			case "is", "are", "am", "'s", "'re", "'m", "been", "be", "get", "gets", "got", "it's", "i'm", "we're",
				"they're", "he's", "she's", "that's", "being", "has", "have", "'ve":
				aux = true
			}
		}
		if !aux {
			return false
		}
	}
	return true
}

// recurringFaultRe: a recurrence that makes a fault one under way ("keeps
// crashing every time I open it"), not a habit.
var recurringFaultRe = regexp.MustCompile(`^(?:every time|each time|again|often|frequently|constantly)$`)

// conditionalHeadRe: the words before a fault that make it a condition or
// a rule rather than a fault ("if the job fails", "whenever it crashes").
var conditionalHeadRe = regexp.MustCompile(`\b(?:if|when|whenever|unless|once|in case|so that|otherwise|what if|until)\b`)

// ------------------------------------------------------------ recoveries

// resolvedRe: something recovered or is back to normal.
var resolvedRe = regexp.MustCompile(`\b(?:(recovered|recovering|resolved|restored|stabili[sz]ed|subsided|mitigated|cleared|normali[sz]ed)|back (?:to normal|to green|to \d|under|below|within|down|up|online|in range)|(?:is|are|'s|'re) (?:now )?(?:normal|healthy|green|fine|ok|okay)|(?:up|online|healthy|normal|green|fine|ok|okay) again|returned to normal|all clear|((?:problem|issue|bug|error|it|that|this|everything|all) (?:is |'s |was |got |has been |'s been )?(?:now )?(?:solved|fixed|sorted)|(?:works|working) (?:again|now|fine now|properly now)|(?:is|are|'s|'re) (?:back to )?normal (?:now|again)|(?:it|that|this|everything|all|things)(?: is|'s) (?:all )?(?:fine|ok|okay|good|working|better) (?:now|again)))\b`)

// conditionRe: how a metric is doing, when the text names one.
var conditionRe = regexp.MustCompile(`\b(?:high|higher|elevated|spiking|spiked|spikes|climbing|rising|growing|increasing|dropping|falling|low|critical|degraded|through the roof|off the charts|full|maxed out|saturated|pegged)\b`)

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
		// is well again: "I'm fine" is no state of a system, but "it's
		// fine now", "it works again" and "problem solved" are.
		switch w := s[m[0]:m[1]]; {
		case m[4] >= 0:
			key = "status"
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
