package extract

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/tenurehq/tenure/memory"
)

// This file holds the words the attributor reads a sentence's start with:
// which capitalised first words are English words rather than names, which
// words start a fragment (a sentence with no subject of its own), which are
// imperatives, and what a system's identifier looks like. The lists are
// compact: frequent words of the chats the extractor reads (support,
// coding, personal assistants, ops channels), not a dictionary.

// wordSet is a set of lowercase words.
func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// commonWords are frequent English words that start a sentence with a
// capital without naming anyone: prepositions, conjunctions, adverbs,
// demonstratives and the common nouns of work, home and operations talk.
var commonWords = wordSet(`for from to in on at by with without about into onto over under after before
	during since until till per via as than then thus hence instead besides despite although though while
	whereas unless whether either neither nor yet so but and or if because once
	that's this's there's here's what's it's that this these those there here
	again almost already also always anyway back down up off out never now often only still just soon
	later maybe perhaps probably quite rather really right sometimes somewhat together too very well
	production prod staging stage dev development rollout rollback release releases deploy deploys
	deployment deployments build builds test tests tests suite pipeline pipelines standup standups
	retro retros sprint sprints morale budget budgets backlog roadmap review reviews postmortem postmortems
	migration migrations backup backups certs cert certificates certificate tokens token sessions session
	keys key passwords password secrets secret logs log metrics metric alerts alert dashboards dashboard
	traffic latency errors error timeouts timeout outage outages incident incidents ticket tickets
	problem problems issue issues bug bugs fix fixes patch patches feature features refactor code tests
	queue queues cache caches index indexes indices disk disks memory cpu load requests request
	limits limit quota quotas rate rates pricing price prices plan plans invoice invoices billing payment
	payments refund refunds account accounts order orders shipping delivery support service services
	team teams management leadership everyone everybody someone somebody nobody anyone people staff
	customers customer users user clients client vendor vendors contract contracts meeting meetings
	interview interviews appointment appointments school work home family dinner lunch breakfast
	weather rent bills insurance doctor the a an my our your their his her its
	nothing everything something anything coffee tea music travel flight flights hotel trip
	kids baby dog cat car house apartment flat office weekend vacation holiday holidays
	morning evening tonight today tomorrow yesterday reminder update note notes heads summary
	warning status health monitoring oncall on-call escalation escalations`)

// demonstratives start a sentence about what the sentence before it was
// about: "That's way over budget", "This is ridiculous".
var demonstratives = wordSet(`that that's this this's these those which`)

// kinship are the relations written as a name: "Dad gets confused", "Mum
// called".
var kinship = wordSet(`dad mum mom mother father mama papa grandma grandpa granny nana grandmother grandfather`)

// groupNouns after "my" name the speaker's organisation, not a person:
// "my company switched to Microsoft 365".
var groupNouns = wordSet(`company employer firm team org organisation organization business studio startup
	agency office shop department dept practice lab school`)

// compoundHeads after a relation make it a thing of the speaker's: "my
// mother tongue", "my father's side".
var compoundHeads = wordSet(`tongue tongues language languages maiden land country figure`)

// techAcronyms are acronyms of common things rather than names: "the CLI
// ships as a binary", "CI on main is red", "Our DPO is ...".
var techAcronyms = wordSet(`api apis cli sdk ui ux db dns vpn ci cd sso saml csv pdf dr sla slas eta pr prs mr
	qa os vm vms cdn ssl tls mfa otp crm erp hr it ops sre dpo ceo cto cfo coo cio ciso vp pm pto ooo wfh
	eod kpi okr okrs rfc adr url urls ip cpu gpu ram ssd hdd iam acl jwt json yaml xml html css sql`)

// fragmentAdverbs start a fragment about the subject of the sentence
// before: "Still need to book the MOT", "Back to 40%".
var fragmentAdverbs = wordSet(`still just also back down up now already finally again never not no-longer
	currently recently mostly only probably definitely really actually then`)

// irregularPast are past-tense verbs that start a fragment: "Took you two
// days", "Spoke with Kwame".
var irregularPast = wordSet(`went got took made said told left came began became met ran gave sent bought
	felt kept thought found knew wrote spoke won lost quit hit broke grew drove flew ate drank slept woke sat
	stood paid built heard hurt put read set shut spent lent led held brought caught taught fell forgot
	did had was were saw chose rode rang sang swam threw`)

// imperatives are verbs that start an instruction: "Send all invoices to
// ...", "Never commit the .env file", "Add a test for the 429 path".
var imperatives = wordSet(`send add use keep make run deploy ship merge commit push pull roll revert restart
	set call email text remind tell book cancel move put stop start check fix update remove delete drop open
	close write read reply respond forward cc bill charge invoice charge store log note remember never always
	don't do avoid please try let's lets make give take pick choose switch`)

// opsVerbs start a fragment that reports on a system: "Rolled back",
// "Restarted the pods", "Deployed to staging".
var opsVerbs = wordSet(`rolled deployed redeployed restarted rebooted reverted merged shipped released
	migrated scaled patched upgraded downgraded drained failed recovered resolved mitigated rotated purged
	flushed reindexed rebuilt resumed paused throttled provisioned decommissioned`)

// idNouns are nouns followed by the number that names one of them: "job
// 412", "ticket #48213", "Deploy 5521".
var idNouns = wordSet(`job jobs ticket tickets build builds run runs deploy deployment release incident case
	order issue pr mr task batch invoice request migration backup pipeline sprint change cr alert`)

// metricWords are readings of a system: "error rate on checkout", "p99 on
// search", "memory usage of the worker".
var metricWords = wordSet(`lag latency latencies p50 p90 p95 p99 p999 cpu memory disk usage rate depth
	throughput load traffic uptime utilization utilisation backlog rps qps errors saturation`)

// holderStop are words after "on" or "of" that name no system: "cpu on
// average", "latency of the order of".
var holderStop = wordSet(`average all the a an my our your this that it them us me top order both each
	every some most any peak median mobile desktop weekends weekdays monday tuesday wednesday thursday
	friday saturday sunday`)

// firstPersonWords are the words that make a sentence the speaker's.
var firstPersonWords = wordSet(`i i'm im i've i'd i'll me my myself mine`)

// isFirstPersonWord reports whether w, lowercase, is "I", "me" or "my".
func isFirstPersonWord(w string) bool { return firstPersonWords[w] }

// commonWord reports whether w, capitalised at the start of a sentence, is
// an English word rather than a name.
func commonWord(w string) bool {
	l := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"))
	if commonWords[l] || notIntroduced[l] || techAcronyms[l] || !memory.IsName(w) {
		return true
	}
	switch {
	case len(l) > 6 && (strings.HasSuffix(l, "tion") || strings.HasSuffix(l, "sion") ||
		strings.HasSuffix(l, "ment") || strings.HasSuffix(l, "ness")):
		return true
	case len(l) > 5 && strings.HasSuffix(l, "ity"):
		return true
	}
	return false
}

// pastTense reports whether w reads as a verb in the past tense.
func pastTense(w string) bool {
	return irregularPast[w] || opsVerbs[w] || len(w) > 4 && strings.HasSuffix(w, "ed")
}

// verbLike reports whether w, lowercase, starts a predicate rather than a
// noun phrase: a verb in the past tense or -ing form, an imperative or a
// fragment's adverb.
func verbLike(w string) bool {
	return pastTense(w) || fragmentAdverbs[w] || imperatives[w] || len(w) > 4 && strings.HasSuffix(w, "ing")
}

// isSystemID reports whether s reads as the identifier of a system rather
// than a word or a quantity: billing-db, search-03, ip-10-0-3-17, INC-2291,
// auth_service, node.js. Words with a hyphen (on-call, follow-up) and
// quantities (0.41s, 180ms, 97%, p99) are not.
func isSystemID(s string) bool {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "’s")
	if len(s) < 2 || len(s) > MaxEntity {
		return false
	}
	letters, digits, seps := 0, 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		case r == '-' || r == '_' || r == '.':
			seps++
		default:
			return false
		}
	}
	if letters == 0 || measureRe.MatchString(strings.ToLower(s)) {
		return false
	}
	switch {
	case strings.Contains(s, "_"):
		return true
	case digits > 0 && seps > 0:
		return true
	case digits > 0:
		return false // "v2", "4xx", "2fa": too short to tell
	case strings.Contains(s, "-"):
		return infraSuffixRe.MatchString(strings.ToLower(s))
	case strings.Contains(s, "."):
		i := strings.IndexByte(s, '.')
		return i > 0 && i < len(s)-1 && len(s) >= 4
	}
	return false
}

var (
	// measureRe is a quantity, a time, a percentile or a version.
	measureRe = regexp.MustCompile(`^(?:[\d.,:]+(?:s|ms|us|m|h|d|w|y|x|k|am|pm|st|nd|rd|th|gb|mb|kb|tb|min|mins|hr|hrs|sec|secs|ish|%)?|[pqhv]\d+(?:\.\d+)?|\d+[a-z]+\d*s?)$`)
	// infraSuffixRe: a hyphenated word that names a system by its kind.
	infraSuffixRe = regexp.MustCompile(`(?:^|-)(?:db|api|gateway|svc|service|server|srv|cluster|node|host|worker|workers|queue|cache|proxy|lb|web|app|backend|frontend|prod|staging|dev|replica|primary|shard|bucket|pipeline|runner|indexer|scheduler|cron|etl|broker|ingest|consumer|producer|auth|daemon|stack|infra|edge|storage|store|search|mq|stream|sync|repo|endpoint|job|jobs|tools|cli|sdk|ui|bot|engine|core|platform|agent)(?:-|$)`)
)
