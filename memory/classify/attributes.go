package classify

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the attribute vocabulary at work in text: for each attribute
// a fact can state, the phrasings that state it, so that every paraphrase
// of the attribute is named by its one key (vocabulary.go) wherever in the
// sentence it stands:
//
//	occupation    "I'm the finance lead", "head of IT", "I teach chemistry",
//	              "manages procurement", "freelancing as a UX designer",
//	              "I'm retired", "Ravi Menon, 34, software architect"
//	employer      "works at Acme", "joined Kettle Labs", "I'm at Halcyon
//	              Studios now", "Kwame Asante from Brightpath Schools"
//	home_city     "based in Osaka", "moved from Leeds to York", "Denver,
//	              where I live now", "I live alone in a studio in Glasgow"
//	timezone      "on JST", "timezone is CET", "UTC+9", "on Pacific time"
//	plan          "on the Pro plan", "Enterprise tier", "current plan is
//	              Starter", "downgraded to Free"
//	email, phone  "It's olivia@example.com", "my number changed to ..."
//	name          "call me Ravi", "Ethan Brooks is my name", "Anna, not Ania"
//	diet          "vegan", "doesn't eat pork", "I eat fish now"
//	work_schedule "work nights", "work 8 to 4", "24-hour shifts", "off on
//	              Wednesdays", "code late at night"
//	contact_method "I'd rather not use email", "talk me through it on the phone"
//	on_call       "on call this week", "has her pager", "cover his shift",
//	              "escalations go to me"
//	availability  "travelling until March 12", "out until Wednesday"
//	location      "working from Lisbon this month"
//	health        "I'm sick today", "blood pressure is normal now"
//
// A phrasing is a pattern and a check of what it found: the place after
// "moved to" is capitalised and no plan, team or product ("moved to the
// Business plan" is a plan); an employer after "at" is an organisation
// ("Hanbit Games", not "the airport"); a role is a role noun, or a noun and
// a role head ("tech lead", "IT admin", "head of operations"); a time zone
// abbreviation after a clock time is part of a time ("22:00 UTC"). What the
// checks refuse is as much the vocabulary as what they accept: a false key
// archives a true fact (keys.go).
//
// The key names the attribute; each attribute also says the axes its
// statements take (an occupation is an identity, permanent; an employer an
// observation, long_term; being on call a state), which the classifier
// gives a statement no earlier rule filed (claim).

// An attribute is one thing a fact can state about its entity.
type attribute struct {
	key        string
	category   string
	durability Durability
	// state: the attribute may be told as a condition of the moment (on
	// call, away, somewhere, unwell; "my timezone is WET until April"): a
	// state names it too.
	state     bool
	phrasings []phrasing
}

// A phrasing is one way of stating an attribute: a pattern and a check of
// each match. It is tried only on a text holding one of its trigger words
// (or, with flags, a trigger of those families): every alternative of the
// pattern holds one (the tests check this).
type phrasing struct {
	words []string
	flags flags
	// needs are words one of which the text must also hold ("prefer" for a
	// channel to be a contact method).
	needs []string
	re    *regexp.Regexp
	check func(t *text, m []int) bool
}

// A statement is where a text states an attribute.
type statement struct {
	attr *attribute
	a, b int // norm[a:b]
}

// ------------------------------------------------------------- phrasings

var (
	// copular roles: "is the IT admin", "I'm a nurse", "is their head of
	// IT" (roleRe, identity.go) and a role in apposition to a name: "Ravi
	// Menon, 34, software architect", "I'm Yara Haddad, ML engineer".
	appositiveRe = regexp.MustCompile(`^(?:i'm |i am |this is )?[^,]{2,40}, (?:\d{1,3}, )?(?:(the|an?|our|their) )?([a-z][a-z-]*(?: [a-z][a-z-]*){0,4})`)
	// trades: "I teach chemistry", "teaches at a high school".
	teachRe = regexp.MustCompile(`\b(?:teach|teaches|lecture|lectures|tutor|tutors) [a-z]+`)
	// a business run: "I manage a dairy farm", "runs a small flower shop".
	businessRe = regexp.MustCompile(`\b(?:manage|manages|run|runs|own|owns|operate|operates) (?:(?:an?|the|my|his|her|their|two|three|several|\d+) )?(?:[a-z-]+ ){0,2}(?:farm|farms|shop|shops|store|stores|restaurant|restaurants|cafe|café|bakery|bar|pub|salon|clinic|practice|firm|agency|studio|business|businesses|company|startup|hotel|gym|nursery|boutique|garage|workshop|warehouse|brewery|winery|vineyard|ranch|charity|nonprofit|consultancy|franchise|team|teams|department|division|branch|lab)\b`)
	// a function held: "manages procurement", "heads marketing", "I work
	// in IT", "she's in sales".
	functionRe = regexp.MustCompile(`\b(?:manage|manages|head|heads|lead|leads|run|runs|oversee|oversees|handle|handles|work in|works in|working in|i'm in|i am in|is in|'s in) (?:the )?(procurement|purchasing|operations|ops|marketing|sales|finance|accounting|hr|human resources|engineering|logistics|it|security|infrastructure|payroll|recruiting|recruitment|talent|compliance|legal|design|product|research|partnerships|communications|customer success|customer support|support|facilities|growth|analytics|data science|qa|admissions|fundraising|strategy|healthcare|retail|hospitality|education|publishing|consulting|real estate|insurance|banking|construction|nursing|medicine|law|journalism|tech|software)\b`)
	// software maintained: "I maintain the Python SDK".
	maintainRe = regexp.MustCompile(`\b(?:maintain|maintains) (?:(?:the|a|an|our|several|\d+) )?(?:[a-z0-9.+#-]+ ){0,2}(?:sdk|sdks|library|libraries|package|packages|project|projects|repo|repos|repository|framework|codebase|plugin|plugins|client|clients|cli|toolkit|driver|drivers|module|modules|bindings|extension|extensions)\b`)
	// a role taken or held: "freelancing as a UX designer", "joined ... as
	// CTO", "works as a nurse".
	asRoleRe = regexp.MustCompile(`\bas (?:(an?|the|their|our|its) )?([a-z][a-z-]*(?: [a-z][a-z-]*){0,3})`)
	// "my job is nursing".
	jobIsRe = regexp.MustCompile(`\b(?:job|occupation|profession) is (?:an? )?([a-z]+)`)
	// no work: "I'm retired", "is unemployed".
	notWorkingRe = regexp.MustCompile(`\b(?:(?:i'm|i am|im|is|are|'s|'re|am|now|recently|just|happily|semi|semi-) (?:retired|unemployed|self-employed|jobless|between jobs)|i retired)\b`)

	// employer: "works at Acme", "employed by Acme", "job at Deloitte".
	workAtRe = regexp.MustCompile(`\b(?:work|works|worked|working|employed|job|position|internship) (?:at|for|by) `)
	// "joined Kettle Labs", "joined a startup called Fernweh".
	joinedRe = regexp.MustCompile(`\b(?:joined|have joined|has joined) (?:(?:an?|the) (?:[a-z-]+ )?(?:startup|company|firm|agency|studio|bank|lab|consultancy|nonprofit|charity|business) (?:called|named) )?`)
	// "at Hanbit Games", "from Brightpath Schools", "with Nordic Air".
	orgPrepRe = regexp.MustCompile(`\b(?:at|from|with) `)
	// "my company, Maple Health,", "her employer is Acme".
	myCompanyRe = regexp.MustCompile(`\b(?:my|his|her|their) (?:company|employer|firm|workplace|organi[sz]ation)(?:,| is| was) `)

	// home city: "lives in Denver", "I live alone in a studio in Glasgow".
	liveRe = regexp.MustCompile(`\b(?:live|lives|living|reside|resides|residing)\b`)
	// "based in Osaka", "based out of Lyon".
	basedRe = regexp.MustCompile(`\b(?:based|headquartered) (?:in|out of) `)
	// "moved to Berlin", "moved from Leeds to York", "relocated to Seoul".
	movedRe = regexp.MustCompile(`\b(?:moved|relocated) (?:back |recently |house |home )?(?:to|from) `)
	// "Denver, where I live now".
	whereLiveRe = regexp.MustCompile(`\bwhere (?:i|we|he|she|they) (?:now |currently |still )?(?:live|lives|reside|resides|am based|'m based|'re based|are based|is based)\b`)

	// time zones: "timezone is CET", "UTC+9", "Pacific time", "on JST".
	timezoneWordRe = regexp.MustCompile(`\btime ?zone\b`)
	utcOffsetRe    = regexp.MustCompile(`\b(?:utc|gmt) ?[+-] ?\d{1,2}(?::?\d{2})?\b`)
	zoneNameRe     = regexp.MustCompile(`\b(?:(?:pacific|eastern|central|mountain|atlantic|alaska|hawaii|central european|eastern european|western european|british summer|greenwich mean|india|japan|korea|china|singapore|australian eastern|australian western|new zealand|moscow|gulf) (?:standard |daylight |summer )?time|on [a-z]+(?: [a-z]+)? time)\b`)
	zoneAbbrRe     = regexp.MustCompile(`\b(?:pst|pdt|pt|est|edt|et|cst|cdt|ct|mst|mdt|mt|akst|akdt|hst|cet|cest|eet|eest|wet|west|bst|gmt|utc|ist|jst|kst|hkt|sgt|pht|ict|wib|aest|aedt|acst|acdt|awst|nzst|nzdt|msk|brt|clt|pkt|npt|sast|cat|eat|wat)\b`)

	// plans: "on the Pro plan", "Enterprise tier", "plan is Starter",
	// "downgraded to Free".
	planNounRe  = regexp.MustCompile(`\b([a-z]+) (?:plan|tier|subscription|edition)\b`)
	planIsRe    = regexp.MustCompile(`\b(?:plan|tier|subscription) (?:is|was|:) (?:now |still |currently )?(?:the |on )?([a-z]+)`)
	planMoveRe  = regexp.MustCompile(`\b(?:upgraded|downgraded|switched|moved|changed|upgrade|downgrade) (?:us |our account |my account |the account |back )?(?:to|from|onto) (?:the )?([a-z]+)`)
	emailAddrRe = regexp.MustCompile(`[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}`)
	emailIsRe   = regexp.MustCompile(`\be-?mail(?: address)? (?:is|was|changed to|is now|:)`)
	phoneIsRe   = regexp.MustCompile(`\b(?:phone|mobile|cell|number|telephone)(?: number)? (?:is|was|changed to|is now|:)`)

	// names: "call me Ravi", "Ethan Brooks is my name", "Anna, not Ania".
	nameIsRe     = regexp.MustCompile(`\b(?:(?:my|his|her|their|your|user's|customer's|client's|legal|full|first|last|real|given|family|maiden) name is|name's|goes by)\b`)
	callMeRe     = regexp.MustCompile(`\bcalls? me ([a-z][a-z'-]*)`)
	isMyNameRe   = regexp.MustCompile(`\bis (?:my|his|her|their) (?:full |first |last |real |legal |given |preferred |middle |maiden )?name\b`)
	notSpelledRe = regexp.MustCompile(`^(?:it's |its |it is )?([a-z]+), not ([a-z]+)\b`)

	// diets: "vegan", "doesn't eat pork", "I eat fish now", "on a keto diet".
	dietWordRe = regexp.MustCompile(`\b(?:i'm|i am|is|are|'s|'re) (?:a |an |strict |strictly |lifelong |now |still )*(?:vegetarian|vegan|pescatarian|kosher|halal|lactose intolerant|gluten intolerant|coeliac|celiac|lactose-intolerant|gluten-free|dairy-free|plant-based)\b`)
	dietEatRe  = regexp.MustCompile(`\b(?:(?:(?:don't|doesn't|do not|does not|never|no longer|can't|cannot|only|mostly|just) eats?|eats? only) (?:any |red |raw )?` + dietFoods + `|eats? (?:red |raw )?` + dietFoods + ` (?:now|again|these days|nowadays))\b`)
	dietOnRe   = regexp.MustCompile(`\b(?:on|following|follows|follow|keeps?) (?:an? |the )?(?:strict )?(?:keto|ketogenic|paleo|low-carb|low carb|gluten-free|dairy-free|plant-based|vegan|vegetarian|mediterranean|carnivore|low-fodmap|kosher)(?: diet)?\b`)

	// work schedules: "works nights" (workScheduleRe), "work 8 to 4",
	// "24-hour shifts", "off on Wednesdays", "code late at night".
	workHoursRe = regexp.MustCompile(`\b(?:work|works|working) (?:from )?\d{1,2}(?::\d{2})? ?(?:am|pm)? ?(?:to|till|until|-|,) ?\d{1,2}(?::\d{2})? ?(?:am|pm)?\b`)
	shiftsRe    = regexp.MustCompile(`\b(?:work|works|working|do|does|doing|pull|pulls|on) (?:the |mostly |only )?(?:\d{1,2}-hour|\d{1,2} hour|twelve-hour|night|day|early|late|double|split|evening|morning|weekend|rotating|long) shifts?\b`)
	offDaysRe   = regexp.MustCompile(`\b(?:is|am|'m|are|'re|'s) (?:usually |always |normally )?off (?:on )?(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends)\b`)
	atNightRe   = regexp.MustCompile(`\b(?:code|codes|coding|program|programs|work|works|study|studies) (?:best |mostly |usually )?(?:late )?at night\b`)

	// contact methods, with a wish: "I'd rather not use email", "talked me
	// through it on the phone".
	channelRe = regexp.MustCompile(`\b(?:(?:by|via|over|through|on) (?:the )?(?:e-?mail|phone|text|sms|slack|whatsapp|signal|telegram|teams|chat)|(?:use|using|send|sending) (?:e-?mail|sms|texts|whatsapp|slack|the phone)|phone calls?|text messages|texts|sms|e-?mails|calls)\b`)

	// on call: "on call this week", "has her pager", "cover his shift",
	// "escalations go to me", "picked the PagerDuty shift".
	onCallRe    = regexp.MustCompile(`\b(?:(?:is|am|'m|are|'re|be|being|been|'s) (?:the |still |currently |now |also )?(?:primary |secondary |backup )?on[- ]?call|on[- ]?call (?:engineer|person|sre|doctor|nurse|dev|developer|lead) (?:this|next|for|until|today|tonight|tomorrow))\b`)
	pagerRe     = regexp.MustCompile(`\b(?:has|have|holds?|holding|carr(?:y|ies|ying)|got|takes?|took|taking|wears?) (?:the |her |his |my |their |our )?(?:pager|on-call phone|on-call pager)\b`)
	coverRe     = regexp.MustCompile(`\bcover(?:s|ing|ed)? (?:for )?(?:his|her|my|their|your|the|this|someone's|[a-z]+'s) (?:on-call |pager |night |weekend )?(?:shift|rotation|pager|on-call)\b`)
	pagerDutyRe = regexp.MustCompile(`\b(?:picked|picked up|took|take|takes|taking|have|has|got|doing|covering|cover|on) (?:the |my |his |her |a |this week's |tonight's )?(?:pagerduty|on-call|oncall|pager) (?:shift|rotation|duty|week)\b`)
	escalateRe  = regexp.MustCompile(`\b(?:escalations?|pages) (?:go|goes|are going|will go|route|routes|are routed|get routed) to\b`)

	// away: "travelling until March 12", "is out until Wednesday", "on leave".
	awayStateRe = regexp.MustCompile(`\b(?:(?:be|is|am|'m|are|'re) (?:still |currently )?travell?ing|on (?:vacation|holidays?|leave|pto|sabbatical|parental leave|maternity leave|paternity leave)|out of (?:the )?office|ooo|off work|(?:is|am|'m|are|'re|be) (?:out|away|off) (?:until|till|today|tomorrow|this|next|for|on|from|sick))\b`)
	// somewhere for now: "working from Lisbon this month".
	workingFromRe = regexp.MustCompile(`\b(?:working|staying|living) (?:from|in|out of) `)
	// unwell: "I'm sick today", "blood pressure is normal now".
	healthRe = regexp.MustCompile(`\b(?:(?:is|am|'m|are|'re|be|been|feeling|off|out|call in|called in) (?:still |really |so |quite |a bit )?(?:sick|ill|unwell|poorly)|(?:has|have|got|caught) (?:a |the )?(?:cold|flu|covid|fever|migraine|stomach bug|chest infection)|(?:in|out of) (?:the )?hospital|hospitali[sz]ed|blood pressure|blood sugar|cholesterol|heart rate)\b`)
)

// attributes is the vocabulary in text, in the order a tie is settled.
var attributes = []*attribute{
	{key: "occupation", category: CategoryIdentity, durability: Permanent, phrasings: []phrasing{
		{flags: fRole, words: roleHeadWords, re: roleRe, check: copularRole},
		{flags: fRole, words: roleHeadWords, re: appositiveRe, check: appositiveRole},
		{words: []string{"teach", "teaches", "lecture", "lectures", "tutor", "tutors"}, re: teachRe, check: teaches},
		{words: []string{"manage", "manages", "run", "runs", "own", "owns", "operate", "operates"}, re: businessRe,
			check: personBefore},
		{words: functionWords, re: functionRe, check: heldFunction},
		{words: []string{"maintain", "maintains"}, re: maintainRe, check: personBefore},
		{words: []string{"as"}, re: asRoleRe, check: roleTakenAs},
		{words: []string{"job", "occupation", "profession"}, re: jobIsRe, check: jobIs},
		{words: []string{"retired", "unemployed", "self-employed", "employed", "jobless", "jobs"}, re: notWorkingRe,
			check: personBefore},
	}},
	{key: "employer", category: CategoryObservation, durability: LongTerm, phrasings: []phrasing{
		{words: []string{"work", "works", "worked", "working", "employed", "job", "position", "internship"},
			re: workAtRe, check: worksAt},
		{words: []string{"joined"}, re: joinedRe, check: joinedOrg},
		{words: []string{"at", "from", "with"}, re: orgPrepRe, check: orgAfterPerson},
		{words: []string{"company", "employer", "firm", "workplace", "organisation", "organization"}, re: myCompanyRe,
			check: orgAfter},
	}},
	{key: "home_city", category: CategoryObservation, durability: LongTerm, phrasings: []phrasing{
		{words: []string{"live", "lives", "living", "reside", "resides", "residing"}, re: liveRe, check: livesIn},
		{words: []string{"based", "headquartered"}, re: basedRe, check: placeAfter},
		{words: []string{"moved", "relocated"}, re: movedRe, check: movedPlace},
		{words: []string{"where"}, re: whereLiveRe, check: nil},
	}},
	{key: "timezone", category: CategoryObservation, durability: LongTerm, state: true, phrasings: []phrasing{
		{words: []string{"timezone", "zone"}, re: timezoneWordRe},
		{words: []string{"utc", "gmt"}, re: utcOffsetRe, check: notClockTime},
		{words: []string{"time"}, re: zoneNameRe, check: zoneName},
		{words: zoneAbbreviations, re: zoneAbbrRe, check: zoneAbbr},
	}},
	{key: "plan", category: CategoryObservation, durability: LongTerm, phrasings: []phrasing{
		{words: []string{"plan", "tier", "subscription", "edition"}, re: planNounRe, check: planNamed},
		{words: []string{"plan", "tier", "subscription"}, re: planIsRe, check: planWordAt},
		{words: []string{"upgraded", "downgraded", "switched", "moved", "changed", "upgrade", "downgrade"},
			re: planMoveRe, check: planWordAt},
	}},
	{key: "email", category: CategoryObservation, durability: LongTerm, phrasings: []phrasing{
		{words: []string{"email", "e-mail", "mail"}, re: emailIsRe},
		{words: []string{"@"}, re: emailAddrRe, check: emailGiven},
	}},
	{key: "phone", category: CategoryObservation, durability: LongTerm, phrasings: []phrasing{
		{words: []string{"phone", "mobile", "cell", "number", "telephone"}, re: phoneIsRe, check: phoneGiven},
	}},
	{key: "name", category: CategoryIdentity, durability: Permanent, phrasings: []phrasing{
		{words: []string{"name", "name's", "goes"}, re: nameIsRe},
		{words: []string{"call", "calls"}, re: callMeRe, check: calledBy},
		{words: []string{"name"}, re: isMyNameRe, check: ownName},
		{words: []string{"not"}, re: notSpelledRe, check: respelled},
	}},
	{key: "diet", category: CategoryIdentity, durability: Permanent, phrasings: []phrasing{
		{flags: fIdentity, words: []string{"gluten", "dairy", "plant"}, re: dietWordRe},
		{words: []string{"eat", "eats"}, re: dietEatRe},
		{words: []string{"diet", "keto", "ketogenic", "paleo", "carb", "gluten", "dairy", "plant", "vegan",
			"vegetarian", "mediterranean", "carnivore", "fodmap", "kosher"}, re: dietOnRe, check: dietFollowed},
	}},
	{key: "work_schedule", category: CategoryRoutine, durability: LongTerm, phrasings: []phrasing{
		{flags: fWork, re: workScheduleRe},
		{flags: fWork, re: workHoursRe},
		{words: []string{"shift", "shifts"}, re: shiftsRe},
		{words: []string{"off"}, re: offDaysRe},
		{words: []string{"night"}, re: atNightRe},
	}},
	{key: "contact_method", category: CategoryPreference, durability: LongTerm, phrasings: []phrasing{
		{words: contactWords, needs: wishWords, re: channelRe},
	}},
	{key: "on_call", category: CategoryState, durability: ShortTerm, state: true, phrasings: []phrasing{
		{words: []string{"call", "on-call", "oncall"}, re: onCallRe},
		{words: []string{"pager", "call"}, re: pagerRe},
		{words: []string{"cover", "covers", "covering", "covered"}, re: coverRe},
		{words: []string{"pagerduty", "on-call", "oncall", "pager"}, re: pagerDutyRe},
		{words: []string{"escalation", "escalations", "pages"}, re: escalateRe},
	}},
	{key: "availability", category: CategoryState, durability: ShortTerm, state: true, phrasings: []phrasing{
		{words: []string{"travelling", "traveling", "vacation", "holiday", "holidays", "leave", "pto", "sabbatical",
			"office", "ooo", "off", "out", "away"}, re: awayStateRe},
	}},
	{key: "location", category: CategoryState, durability: ShortTerm, state: true, phrasings: []phrasing{
		{words: []string{"working", "staying", "living"}, re: workingFromRe, check: placeAfter},
	}},
	{key: "health", category: CategoryState, durability: ShortTerm, state: true, phrasings: []phrasing{
		{words: []string{"sick", "ill", "unwell", "poorly", "cold", "flu", "covid", "fever", "migraine", "bug",
			"infection", "hospital", "hospitalized", "hospitalised", "pressure", "sugar", "cholesterol", "rate"},
			re: healthRe},
	}},
}

// roleHeadWords trigger the role phrasings beside the role nouns (fRole).
var roleHeadWords = []string{"lead", "admin", "head", "rep", "representative", "vp", "chief"}

// functionWords trigger functionRe: the functions and trades it names.
var functionWords = []string{"procurement", "purchasing", "operations", "ops", "marketing", "sales", "finance",
	"accounting", "hr", "human", "engineering", "logistics", "it", "security", "infrastructure", "payroll",
	"recruiting", "recruitment", "talent", "compliance", "legal", "design", "product", "research", "partnerships",
	"communications", "customer", "support", "facilities", "growth", "analytics", "data", "qa", "admissions",
	"fundraising", "strategy", "healthcare", "retail", "hospitality", "education", "publishing", "consulting", "real",
	"insurance", "banking", "construction", "nursing", "medicine", "law", "journalism", "tech", "software"}

// zoneAbbreviations trigger zoneAbbrRe.
var zoneAbbreviations = []string{"pst", "pdt", "pt", "est", "edt", "et", "cst", "cdt", "ct", "mst", "mdt", "mt",
	"akst", "akdt", "hst", "cet", "cest", "eet", "eest", "wet", "west", "bst", "gmt", "utc", "ist", "jst", "kst",
	"hkt", "sgt", "pht", "ict", "wib", "aest", "aedt", "acst", "acdt", "awst", "nzst", "nzdt", "msk", "brt", "clt",
	"pkt", "npt", "sast", "cat", "eat", "wat"}

// wishWords say how someone wants to be reached: a channel named beside
// none is no contact method ("the customer called twice").
var wishWords = []string{"prefer", "prefers", "preferred", "preferring", "rather", "best way to reach",
	"like to be", "want to be", "wants to be"}

// contactWords trigger channelRe.
var contactWords = []string{"by", "via", "over", "through", "on", "use", "using", "send", "sending", "calls",
	"call", "texts", "text", "sms", "emails", "mails", "messages"}

// phrasingIndex maps each trigger word to the phrasings it triggers: one
// bit per phrasing of each attribute.
var phrasingIndex = map[string]triggerSet{}

// triggerSet holds one bit per phrasing (bit j of entry i: attributes[i]'s
// phrasing j).
type triggerSet [maxAttributes]uint16

// maxAttributes bounds the vocabulary's attributes; each has at most 16
// phrasings.
const maxAttributes = 24

// flagged lists the phrasings triggered by a family of words (flags).
var flagged []struct {
	i, j int
	f    flags
}

func init() {
	if len(attributes) > maxAttributes {
		panic("classify: too many attributes")
	}
	for i, a := range attributes {
		if len(a.phrasings) > 16 {
			panic("classify: too many phrasings of " + a.key)
		}
		for j, p := range a.phrasings {
			for _, w := range p.words {
				set := phrasingIndex[w]
				set[i] |= 1 << j
				phrasingIndex[w] = set
			}
			if p.flags != 0 {
				flagged = append(flagged, struct {
					i, j int
					f    flags
				}{i, j, p.flags})
			}
		}
	}
}

// triggered is the set of phrasings whose trigger words t holds.
func (t *text) triggered() triggerSet {
	var run triggerSet
	add := func(w string) {
		if set, ok := phrasingIndex[w]; ok {
			for i := range run {
				run[i] |= set[i]
			}
		}
	}
	scanWords(t.norm, func(_ int, w string) bool {
		add(w)
		// The patterns' \b sees a boundary at an apostrophe, a hyphen or a
		// non-ASCII byte ("on-call", "lives…"): the parts count too.
		for k := 0; k < len(w); k++ {
			if isPartByte(w[k]) {
				continue
			}
			for a := 0; a < len(w); {
				for a < len(w) && !isPartByte(w[a]) {
					a++
				}
				b := a
				for b < len(w) && isPartByte(w[b]) {
					b++
				}
				if b > a {
					add(w[a:b])
				}
				a = b
			}
			break
		}
		return true
	})
	if strings.IndexByte(t.norm, '@') >= 0 {
		add("@")
	}
	for _, f := range flagged {
		if t.has(f.f) {
			run[f.i] |= 1 << f.j
		}
	}
	return run
}

// statements lists the attributes t states, each at its first statement,
// in the order they are stated. A question states none.
func (t *text) statements() []statement {
	s := t.norm
	if s == "" || strings.HasSuffix(strings.TrimRight(s, " !.\"'"), "?") {
		return nil
	}
	run := t.triggered()
	var out []statement
	for i, a := range attributes {
		for j, p := range a.phrasings {
			if run[i]&(1<<j) != 0 {
				out = t.findStatement(out, a, p)
			}
		}
	}
	slices.SortStableFunc(out, func(x, y statement) int { return x.a - y.a })
	return out
}

// findStatement adds to out the first statement of a by the phrasing p in
// t, unless out holds an earlier one.
func (t *text) findStatement(out []statement, a *attribute, p phrasing) []statement {
	s := t.norm
	if len(p.needs) > 0 && !slices.ContainsFunc(p.needs, func(w string) bool { return hasPhrase(s, w) }) {
		return out
	}
	for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
		// Find the match, then its groups within it and a byte either side
		// (what \b looks at): a long text costs one scan without groups.
		loc := p.re.FindStringIndex(s[from:])
		if loc == nil {
			return out
		}
		at, end := from+loc[0], from+loc[1]
		ctx := max(at-1, 0)
		m := p.re.FindStringSubmatchIndex(s[ctx:min(end+1, len(s))])
		if m == nil || m[0]+ctx != at {
			m = p.re.FindStringSubmatchIndex(s[from:]) // the slow way, seldom
			ctx = from
		}
		if m == nil {
			return out
		}
		for x := range m {
			if m[x] >= 0 {
				m[x] += ctx
			}
		}
		from = max(m[1], m[0]+1)
		if p.check != nil && !p.check(t, m) || t.wishedFor(a, m[0]) {
			continue
		}
		if k := slices.IndexFunc(out, func(st statement) bool { return st.attr == a }); k < 0 {
			out = append(out, statement{attr: a, a: m[0], b: m[1]})
		} else if m[0] < out[k].a {
			out[k].a, out[k].b = m[0], m[1]
		}
		return out
	}
	return out
}

// stated is the first attribute of sts (a text's statements) whose key may name a fact of
// category ("" for any), or false. A state names only a condition of the
// moment ("on call", "away", a temporary time zone), never a lasting
// attribute ("I'm a contractor here until June" has no occupation); an
// identity, a routine or a preference names no condition of the moment
// ("I love travelling" is no availability); an observation may name either
// ("I'm on call this week, so keep the PRs small").
func stated(sts []statement, category string) (statement, bool) {
	for _, st := range sts {
		switch category {
		case CategoryState:
			if !st.attr.state {
				continue
			}
		case CategoryIdentity, CategoryRoutine, CategoryPreference:
			if st.attr.category == CategoryState {
				continue
			}
		}
		return st, true
	}
	return statement{}, false
}

// statedAt is the first statement of the attribute key among sts, or false.
func statedAt(sts []statement, key string) (statement, bool) {
	for _, st := range sts {
		if st.attr.key == key {
			return st, true
		}
	}
	return statement{}, false
}

// isAttributeKey reports whether key is an attribute of the vocabulary in
// text, whose statements the phrasings find.
func isAttributeKey(key string) bool {
	return slices.ContainsFunc(attributes, func(a *attribute) bool { return a.key == key })
}

// dietFoods are what a diet leaves out or keeps to.
const dietFoods = `(?:meat|pork|beef|fish|seafood|shellfish|dairy|eggs|gluten|chicken|poultry|lamb|animal products|halal|kosher|plant-based)`

// wishedFor reports whether the statement of a at norm[pos] is an
// intention, a wish, a condition or the future rather than what holds: its
// clause says so before it ("I want to live in Berlin", "if I moved to
// Lisbon", "I'll join Acme"). A condition of the moment may be told ahead
// ("Maria will cover his shift"); a preference is a wish.
func (t *text) wishedFor(a *attribute, pos int) bool {
	if a.category == CategoryPreference {
		return false
	}
	c, _ := clauseAround(t.norm, pos)
	before := t.norm[c:pos]
	return intendedRe.MatchString(before) || a.category != CategoryState && willRe.MatchString(before)
}

// ----------------------------------------------------------------- claim

// claim classifies a text that states an attribute no earlier rule filed,
// on the axes its key implies: "I teach chemistry" is an identity,
// permanent; "I'm on the Pro plan" an observation, long_term; "Rahul has
// her pager" a state, short_term. The statement must be the text's own:
// the whole of a bare statement, or the lead clause of one sentence (as
// for the key, keys.go), told as holding (no "will", "want to", "if",
// "moving to"). A condition of the moment is claimed only in a bare
// statement that no time bounds (those are the state rule's).
func (t *text) claim() (Classification, bool) {
	st, ok := stated(t.statements(), "")
	if !ok {
		return Classification{}, false
	}
	a := st.attr
	bare := t.bare()
	switch {
	case a.category == CategoryState:
		if !bare || t.intended(false) || t.find(fBounded, boundedRe) != nil || t.find(fToday, todayRe) != nil ||
			t.find(fPresent, presentRe) != nil {
			return Classification{}, false
		}
	case a.category == CategoryRoutine:
		if !bare || t.intended(true) || t.find(fBounded, boundedRe) != nil || t.find(fToday, todayRe) != nil ||
			t.find(fPresent, presentRe) != nil {
			return Classification{}, false // "is working from home today": a state
		}
	default:
		if !bare && !t.leadStatement(st) {
			return Classification{}, false
		}
		if a.category != CategoryPreference && t.intended(true) {
			return Classification{}, false
		}
		if a.state && (t.find(fBounded, boundedRe) != nil || t.find(fToday, todayRe) != nil) {
			return Classification{}, false // "my timezone is WET until April": a state
		}
		if a.category == CategoryObservation && t.observedAs(a.key) {
			return Classification{}, false // the observation rule files it, as it always has
		}
	}
	return Classification{Durability: a.durability, Category: a.category, Key: a.key,
		Reason: strings.ReplaceAll(a.key, "_", " ") + " " + t.quote(st.a, st.b)}, true
}

// observedAs reports whether the observation rule's phrases name key in t
// ("lives in", "works at", "timezone").
func (t *text) observedAs(key string) bool {
	m := t.findSub(fObservation, observationRe)
	if m == nil {
		return false
	}
	for g := range observationKeys {
		if m[2+2*g] >= 0 {
			return CanonicalKey(observationKeys[g]) == key
		}
	}
	return false
}

// intendedRe: a statement of what will be or is wished, not of what holds.
var intendedRe = regexp.MustCompile(`\b(?:if|unless|would|'d like|might|could|should|must|going to|gonna|about to|need to|needs to|have to|has to|want to|wants to|wanted to|hope to|hoping to|plan to|plans to|planning to|thinking of|thinking about|considering|remind me|remember to|don't forget|make sure)\b|\b(?:moving|relocating|switching|upgrading|downgrading|joining|starting|leaving|transferring|changing) (?:to|from|at|over)\b`)

// willRe: the future.
var willRe = regexp.MustCompile(`\b(?:will|'ll|won't|shall)\b`)

// intended reports whether t tells an intention, a wish, a condition or
// (with future) the future rather than what holds.
func (t *text) intended(future bool) bool {
	return intendedRe.MatchString(t.norm) || future && willRe.MatchString(t.norm)
}

// ---------------------------------------------------------------- checks

// wordSpan returns the word at or after norm[i] (skipping spaces) and its
// span.
func wordSpan(s string, i int) (w string, a, b int) {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	w, b = nextWord(s, i)
	return w, i, b
}

// upperAt reports whether the writer capitalised the letter behind
// norm[i]. In a text written without capitals ("i live in leeds"), where
// case says nothing, every word may be a name.
func (t *text) upperAt(i int) bool {
	if i < 0 || i >= len(t.norm) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t.orig[t.off[i]:])
	return unicode.IsUpper(r) || unicode.IsLetter(r) && t.caseless()
}

// caseless reports whether the text has no capital letter at all.
func (t *text) caseless() bool {
	return strings.IndexFunc(t.orig, unicode.IsUpper) < 0
}

// isNameStop reports whether w, in a text without capitals, ends a name
// read from it ("acme as a contractor" is Acme).
func isNameStop(w string) bool {
	switch w {
	case "a", "an", "the", "as", "at", "in", "on", "for", "from", "to", "with", "and", "or", "but", "now", "since",
		"last", "next", "this", "that", "because", "so", "is", "are", "was", "were", "anymore", "any", "again",
		"until", "till", "by", "of", "my", "our", "his", "her", "their", "too", "already", "today", "yesterday",
		"ago", "recently", "just", "then", "when", "where", "which", "who", "after", "before":
		return true
	}
	return false
}

// capsAt reads the capitalised words from norm[i] on, at most n of them
// ("Kettle Labs", "New York"), and returns them and where they end; none
// when the word at i is not capitalised or is "I".
func (t *text) capsAt(i, n int) ([]string, int) {
	s := t.norm
	var words []string
	end := i
	for len(words) < n {
		w, a, b := wordSpan(s, end)
		w = strings.Trim(w, "'-.")
		if w == "" || !t.upperAt(a) || w == "i" || strings.HasPrefix(w, "i'") || isNameStop(w) && t.caseless() {
			break
		}
		words = append(words, strings.TrimSuffix(w, "'s"))
		end = b
		if b < len(s) && s[b] != ' ' {
			break // a comma or a full stop ends the name
		}
	}
	return words, end
}

// isCalendarWord reports whether w names a day or a month, capitalised but
// no name of a place, a person or an organisation.
func isCalendarWord(w string) bool {
	switch w {
	case "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
		"march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
		"mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays", "today", "tomorrow",
		"christmas", "easter", "q1", "q2", "q3", "q4", "asap", "eod":
		return true
	}
	return false
}

// isOrgWord reports whether w ends an organisation's name ("Kettle Labs",
// "Halcyon Studios", "Nordic Air").
func isOrgWord(w string) bool {
	switch w {
	case "labs", "lab", "studios", "studio", "health", "healthcare", "games", "logistics", "legal", "rail",
		"foods", "food", "schools", "school", "air", "airlines", "airways", "inc", "ltd", "llc", "gmbh", "plc", "corp",
		"corporation", "co", "company", "group", "bank", "systems", "technologies", "tech", "analytics", "software",
		"media", "partners", "capital", "consulting", "solutions", "dental", "traders", "apps", "bakery", "florists",
		"robotics", "industries", "holdings", "ventures", "networks", "security", "insurance", "pharma",
		"pharmaceuticals", "motors", "university", "college", "institute", "agency", "foundation", "press",
		"records", "entertainment", "energy", "retail", "financial", "finance", "telecom", "digital",
		"interactive", "works", "design", "architects", "associates", "clinic", "hospital", "academy", "trust",
		"council", "ministry", "bakeries", "brewing", "publishing", "cloud", "data", "ai", "labs.", "sa", "ag", "bv",
		"ab", "oy", "as", "pty", "limited", "llp":
		return true
	}
	return false
}

// notPlaceWord reports whether w, after a capitalised name, makes it
// something other than a place: a plan, a team, a product, a version.
func notPlaceWord(w string) bool {
	switch w {
	case "plan", "plans", "tier", "team", "teams", "office", "account", "version", "release", "channel", "repo",
		"branch", "cluster", "server", "servers", "region", "platform", "stack", "api", "app", "edition", "package",
		"subscription", "license", "licence", "project", "workspace", "database", "db", "instance", "model":
		return true
	}
	return false
}

// notPlace reports whether the capitalised words name a tool, a platform or
// a service rather than a place: what a team moves to ("moved to
// Kubernetes"), not where a person lives.
func notPlace(words []string) bool {
	for _, w := range words {
		if isCalendarWord(w) || isOrgWord(w) {
			return true
		}
		switch w {
		case "kubernetes", "k8s", "postgres", "postgresql", "mysql", "mongodb", "redis", "kafka", "github", "gitlab",
			"bitbucket", "aws", "gcp", "azure", "heroku", "vercel", "netlify", "terraform", "docker", "linux",
			"windows", "mac", "macos", "ios", "android", "python", "go", "golang", "rust", "java", "typescript",
			"javascript", "node", "react", "vue", "slack", "teams", "zoom", "jira", "notion", "linear", "asana",
			"trello", "confluence", "figma", "google", "microsoft", "apple", "amazon", "salesforce", "hubspot",
			"zendesk", "stripe", "shopify", "okta", "pagerduty", "datadog", "grafana", "prometheus", "sentry",
			"jenkins", "circleci", "bazel", "gradle", "maven", "npm", "pnpm", "yarn", "envoy", "nginx", "airflow",
			"snowflake", "bigquery", "redshift", "outlook", "gmail", "whatsapp", "signal", "telegram", "discord",
			"pro", "free", "enterprise", "business", "premium", "starter", "basic", "standard", "plus", "scale", "v1",
			"v2", "v3":
			return true
		}
	}
	return false
}

// placeAt reads a place named from norm[i] on ("Berlin", "the Netherlands",
// "New York"): its end, or false.
func (t *text) placeAt(i int) (int, bool) {
	s := t.norm
	if w, _, b := wordSpan(s, i); w == "the" {
		i = b
	}
	words, end := t.capsAt(i, 3)
	if len(words) == 0 || notPlace(words) || slices.ContainsFunc(words, notPlaceWord) {
		return 0, false
	}
	if next, _, _ := wordSpan(s, end); notPlaceWord(next) || next != "" && next[0] >= '0' && next[0] <= '9' {
		return 0, false // "the Business plan", "Postgres 16"
	}
	return end, true
}

// placeAfter: a place follows the match ("based in Osaka").
func placeAfter(t *text, m []int) bool {
	_, ok := t.placeAt(m[1])
	return ok
}

// movedPlace: "moved to Berlin", "moved from Leeds to York", not "moved to
// the Business plan" or "moved to Kubernetes"; said of a person, not of a
// thing ("the meeting moved to Friday").
func movedPlace(t *text, m []int) bool {
	if !personSubject(t, m[0]) {
		return false
	}
	return placeAfter(t, m)
}

// livesIn: a person lives in a place: "lives in Denver", "live in a small
// village", "I live alone in a studio in Glasgow", "lives just outside
// Porto"; not "went live in March".
func livesIn(t *text, m []int) bool {
	if !personSubject(t, m[0]) {
		return false
	}
	s := t.norm
	i := m[1]
	for n := 0; n < 6; n++ {
		w, _, b := wordSpan(s, i)
		switch w {
		case "in", "at", "outside", "near":
			if _, ok := t.placeAt(b); ok {
				return true
			}
			if next, _, _ := wordSpan(s, b); n == 0 && (next == "a" || next == "an") {
				return true // "lives in a van"
			}
		case "", "with", "for", "on", "and", "but", "because", "since", "to", "from", "like", "off", "up":
			return false
		}
		if b < len(s) && s[b] != ' ' {
			return false // the clause ends
		}
		i = b
	}
	return false
}

// wordBefore is the word right before norm[i] and where it starts, or ""
// when a punctuation mark or the start of the text comes first.
func (t *text) wordBefore(i int) (string, int) {
	s := t.norm
	for i > 0 && s[i-1] == ' ' {
		i--
	}
	j := i
	for j > 0 && isWordByte(s[j-1]) {
		j--
	}
	return s[j:i], j
}

// personSubject reports whether the words before norm[i] make a person the
// subject of what follows: a pronoun, a name, a relation ("my sister"), or
// nothing (the writer: "Moved to Berlin in January"); not a thing ("the
// meeting moved to Friday", "the feature went live").
func personSubject(t *text, i int) bool {
	for n := 0; n < 3; n++ {
		w, a := t.wordBefore(i)
		switch w {
		case "":
			return true
		case "just", "recently", "also", "finally", "now", "then", "already", "actually", "have", "has", "had",
			"currently", "still", "only", "mostly", "really", "even", "officially", "usually", "happily", "never",
			"always", "since", "do", "does", "did", "don't", "doesn't", "didn't", "will", "won't", "can", "can't",
			"no", "longer", "not", "used", "to", "definitely", "certainly", "indeed", "both", "all", "sometimes",
			"often":
			i = a
			continue
		case "i", "i'm", "im", "he", "she", "they", "we", "he's", "she's", "they're", "we're", "i've", "we've",
			"they've", "who", "me", "us", "family", "parents", "wife", "husband", "partner", "sister", "brother", "mum",
			"mom", "dad", "son", "daughter", "boyfriend", "girlfriend", "friend", "kids", "children":
			return true
		}
		return t.upperAt(a) && !isCalendarWord(w) && !t.acronymAt(a, w)
	}
	return false
}

// acronymAt reports whether w, at norm[a], is written in capitals ("API",
// "CI"): a thing's name, not a person's.
func (t *text) acronymAt(a int, w string) bool {
	if len(w) < 2 || t.caseless() {
		return false
	}
	o := t.orig[t.off[a]:]
	for i := 0; i < len(w) && i < len(o); i++ {
		if c := o[i]; c >= 'a' && c <= 'z' {
			return false
		}
	}
	return true
}

// personBefore: a person does what the match says ("I manage a dairy
// farm", "Hiroshi manages procurement"), not a team ("we run two shops"),
// and does it, not wishes to ("happy to manage the team").
func personBefore(t *text, m []int) bool {
	switch w, _ := t.wordBefore(m[0]); w {
	case "we", "we've", "we're", "they", "they're", "you", "it", "to":
		return false
	}
	return personSubject(t, m[0])
}

// teaches: "I teach chemistry", not "teach me".
func teaches(t *text, m []int) bool {
	_, _, b := wordSpan(t.norm, m[0])
	switch obj, _, _ := wordSpan(t.norm, b); obj {
	case "me", "us", "you", "him", "her", "them", "it", "myself", "yourself", "this", "that", "people", "my", "our",
		"your", "his", "their", "how", "what":
		return false
	}
	return personBefore(t, m)
}

// heldFunction: "manages procurement", "I work in IT", "she's in sales";
// "it" only as IT, and the function must end the phrase ("handles support
// tickets" names a task, "the bug is in security" a thing).
func heldFunction(t *text, m []int) bool {
	if t.norm[m[2]:m[3]] == "it" && !t.upperAt(m[2]) {
		return false
	}
	switch next, _, _ := wordSpan(t.norm, m[1]); next {
	case "", "at", "for", "in", "and", "with", "from", "on", "full-time", "part-time", "now", "there", "here":
	default:
		if m[1] < len(t.norm) && t.norm[m[1]] == ' ' {
			return false
		}
	}
	return personBefore(t, m)
}

// roleKind is what a phrase after "is a" names.
type roleKind int

const (
	notRole roleKind = iota
	occupationRole
	personalityRole
	relationRole
)

// isRoleHead reports whether w names a role when a noun precedes it ("tech
// lead", "IT admin", "sales rep") but not alone ("the lead").
func isRoleHead(w string) bool {
	switch w {
	case "lead", "leads", "admin", "admins", "rep", "reps", "representative":
		return true
	}
	return false
}

// isModifier reports whether w, before a role head, qualifies it rather than
// naming a trade ("the new lead", "the only admin").
func isModifier(w string) bool {
	switch w {
	case "", "a", "an", "the", "new", "only", "former", "old", "acting", "interim", "current", "main", "real",
		"great", "good", "best", "sole", "official", "my", "our", "their", "his", "her", "your", "its", "this",
		"that", "de", "facto", "overall", "temporary":
		return true
	}
	return false
}

// rolePhrase reads the role named from norm[a:b] on ("software engineer",
// "tech lead", "head of operations", "great dad"): its kind, where it ends
// and how many words it took.
func rolePhrase(s string, a, b int) (roleKind, int, int) {
	prev, n := "", 0
	for i := a; i < b; {
		w, e := nextWord(s, i)
		if e <= i {
			break
		}
		switch w {
		case "at", "in", "for", "with", "and", "because", "the", "who", "that", "which", "on", "from", "to", "by",
			"since", "so", "but", "or", "of", "here", "there", "now", "this", "next":
			if w == "of" && (prev == "head" || prev == "vp" || prev == "director" || prev == "chief") {
				fn, fe := nextWord(s, e)
				if fn != "" && fn != "the" && fn != "a" {
					return occupationRole, fe, n + 2
				}
			}
			return notRole, 0, n
		}
		n++
		if isRole(w) {
			switch w {
			case "person", "type", "introvert", "extrovert", "ambivert":
				return personalityRole, e, n
			case "parent", "parents", "mother", "father", "mom", "mum", "dad", "grandmother", "grandfather",
				"grandparent", "grandparents", "moms", "mums", "dads", "mothers", "fathers":
				return relationRole, e, n
			}
			return occupationRole, e, n
		}
		if isRoleHead(w) && !isModifier(prev) {
			return occupationRole, e, n
		}
		prev = w
		i = e
	}
	return notRole, 0, n
}

// clauseAround is the clause of norm holding pos: from the comma, semicolon
// or sentence end before it to the one after.
func clauseAround(s string, pos int) (int, int) {
	a := pos
	for a > 0 && s[a-1] != ',' && s[a-1] != ';' && !isSentenceEnd(s, a-1) {
		a--
	}
	b := pos
	for b < len(s) && s[b] != ',' && s[b] != ';' && !isSentenceEnd(s, b) {
		b++
	}
	return a, b
}

// roleForNow reports whether the clause around pos bounds the role it
// names in time ("is the on-call engineer this week", "I'm a contractor here
// until June"): a role for now is a state.
func roleForNow(s string, pos int) bool {
	a, b := clauseAround(s, pos)
	c := s[a:b]
	return boundedRe.MatchString(c) || todayRe.MatchString(c) || presentRe.MatchString(c)
}

// copularRole: "is the IT admin", "I'm a nurse", "is their head of IT";
// "is her manager" is a relation, not a role of the subject.
func copularRole(t *text, m []int) bool {
	kind, _, n := rolePhrase(t.norm, m[4], m[5])
	if kind != occupationRole || roleForNow(t.norm, m[0]) {
		return false
	}
	switch t.norm[m[2]:m[3]] {
	case "their", "our", "his", "her", "my", "your":
		return n >= 2
	}
	return true
}

// appositiveRole: "Ravi Menon, 34, software architect", "Mateo Ruiz, staff
// engineer, Montevideo": a name, then a role and nothing else in its clause.
func appositiveRole(t *text, m []int) bool {
	s := t.norm
	comma := strings.IndexByte(s[m[0]:m[1]], ',') + m[0]
	start := m[0]
	for _, p := range [...]string{"i'm ", "i am ", "this is "} {
		if strings.HasPrefix(s[start:], p) {
			start += len(p)
			break
		}
	}
	// Before the comma, a name: "Ravi Menon", "I'm Yara Haddad".
	for i := start; i < comma; {
		w, a, b := wordSpan(s, i)
		if w == "" || b > comma {
			break
		}
		if !t.upperAt(a) || isCalendarWord(w) {
			return false
		}
		i = b
	}
	kind, end, _ := rolePhrase(s, m[4], m[5])
	if kind != occupationRole || roleForNow(s, m[4]) {
		return false
	}
	next, _, _ := wordSpan(s, end)
	switch next {
	case "", "at", "in", "for", "with", "from", "based":
		return true
	}
	return end < len(s) && s[end] != ' '
}

// roleTakenAs: "freelancing as a UX designer", "joined Fernweh as CTO",
// "works as a nurse": a role after a verb of work.
func roleTakenAs(t *text, m []int) bool {
	kind, _, _ := rolePhrase(t.norm, m[4], m[5])
	if kind != occupationRole {
		return false
	}
	a, _ := clauseAround(t.norm, m[0])
	found := false
	scanWords(t.norm[a:m[0]], func(_ int, w string) bool {
		switch w {
		case "work", "works", "worked", "working", "freelance", "freelances", "freelancing", "employed", "hired",
			"joined", "join", "started", "serve", "serves", "serving", "served", "promoted", "contracting", "consulting",
			"moonlighting", "job", "career":
			found = true
		}
		return !found
	})
	return found && !roleForNow(t.norm, m[0])
}

// jobIs: "my job is nursing", not "my job is stressful".
func jobIs(t *text, m []int) bool { return isJob(t.norm[m[2]:m[3]]) }

// worksAt: "works at Acme", "employed by the BBC", "a job at a bakery", not
// "works for me" or "work at night".
func worksAt(t *text, m []int) bool {
	s := t.norm
	switch v, _, _ := wordSpan(s, m[0]); v {
	case "job", "position", "internship":
	default:
		if !personSubject(t, m[0]) {
			return false // "that works for me", "the API works for Acme"
		}
	}
	w, a, b := wordSpan(s, m[1])
	switch w {
	case "a", "an":
		for n, i := 0, b; n < 3; n++ {
			x, _, e := wordSpan(s, i)
			switch x {
			case "bank", "startup", "company", "firm", "agency", "studio", "hospital", "school", "university",
				"bakery", "restaurant", "cafe", "shop", "store", "nonprofit", "charity", "consultancy", "clinic",
				"factory", "warehouse", "hotel", "newspaper", "magazine", "lab", "supermarket", "pharmacy",
				"library", "museum", "airline", "council":
				return true
			}
			i = e
		}
		return false
	case "the":
		words, _ := t.capsAt(b, 3)
		return len(words) > 0 && !isCalendarWord(words[0])
	}
	words, _ := t.capsAt(a, 3)
	return len(words) > 0 && !isCalendarWord(words[0])
}

// orgAt reports whether an organisation is named from norm[i] on: its end.
// Without a role or a verb to say so, only a name ending in an
// organisation's word ("Hanbit Games", "Maison Verte" after a role).
func (t *text) orgAt(i int, anyName bool) (int, bool) {
	words, end := t.capsAt(i, 4)
	if len(words) == 0 || isCalendarWord(words[0]) {
		return 0, false
	}
	if anyName || isOrgWord(words[len(words)-1]) {
		return end, true
	}
	return 0, false
}

// joinedOrg: "joined Kettle Labs", "joined a startup called Fernweh", not
// "joined the call" or "joined Slack".
func joinedOrg(t *text, m []int) bool {
	if !personSubject(t, m[0]) {
		return false
	}
	words, end := t.capsAt(m[1], 4)
	if len(words) == 0 || isCalendarWord(words[0]) || notPlace(words) && !isOrgWord(words[len(words)-1]) {
		return false
	}
	next, _, _ := wordSpan(t.norm, end)
	switch next {
	case "channel", "call", "meeting", "workspace", "server", "group", "chat", "thread", "team", "huddle":
		return false
	}
	return true
}

// orgAfterPerson: an employer after a person or a role: "Mina Kang at
// Hanbit Games", "I'm at Halcyon Studios now", "Kwame Asante from
// Brightpath Schools", "the finance lead at Bluefin Logistics", "a pilot
// with Nordic Air".
func orgAfterPerson(t *text, m []int) bool {
	prep := strings.TrimSpace(t.norm[m[0]:m[1]])
	before, at := t.wordBefore(m[0])
	prev, _ := t.wordBefore(at)
	switch {
	case before == "":
		return false
	case isRole(before) || isRoleHead(before) && !isModifier(prev):
		_, ok := t.orgAt(m[1], true)
		return ok
	case prep == "with":
		return false
	case prep == "at" && (before == "i'm" || before == "im" || before == "he's" || before == "she's"):
	case t.upperAt(at) && !isCalendarWord(before) && before != "i":
	default:
		return false
	}
	_, ok := t.orgAt(m[1], false)
	return ok
}

// orgAfter: a name follows ("my company, Maple Health").
func orgAfter(t *text, m []int) bool {
	_, ok := t.orgAt(m[1], true)
	return ok
}

// clockBefore reports whether a clock time ends right before norm[i]
// ("22:00 UTC", "9am PST"): the zone is part of a time, not said of anyone.
func clockBefore(s string, i int) bool {
	var w [1]string
	if wordsBefore(s, i, w[:]) == 0 {
		return false
	}
	x := w[0]
	return strings.ContainsAny(x, "0123456789") || x == "noon" || x == "midnight" || x == "am" || x == "pm"
}

// notClockTime: "UTC+9", not "22:00 UTC+1".
func notClockTime(t *text, m []int) bool { return !clockBefore(t.norm, m[0]) }

// zoneName: "Pacific time", "on London time", not "on time" or "on my own
// time".
func zoneName(t *text, m []int) bool {
	s := t.norm
	if !strings.HasPrefix(s[m[0]:], "on ") {
		return true
	}
	_, a, _ := wordSpan(s, m[0]+3)
	return t.upperAt(a)
}

// zoneAbbr: a time zone's abbreviation said of someone: "I'm on JST", "my
// timezone is CET", "I'm in Seoul, KST"; not part of a time ("migration
// starts at 22:00 UTC") nor a word ("west", "eat") written in lowercase.
func zoneAbbr(t *text, m []int) bool {
	s := t.norm
	if clockBefore(s, m[0]) {
		return false
	}
	if !t.upperAt(m[0]) || !t.upperAt(m[1]-1) {
		return false
	}
	var w [2]string
	n := wordsBefore(s, m[0], w[:])
	switch {
	case n == 0:
		return true
	case w[0] == "on", w[0] == "is", w[0] == "timezone", w[0] == "zone", w[0] == "tz", w[0] == "in" && n == 2 &&
		(w[1] == "i'm" || w[1] == "am" || w[1] == "works" || w[1] == "work"):
		return true
	}
	// After a comma or in parentheses: "Seoul, KST", "Berlin (CET)".
	p := m[0] - 1
	for p >= 0 && s[p] == ' ' {
		p--
	}
	return p >= 0 && (s[p] == ',' || s[p] == '(')
}

// isPlanWord reports whether w names a plan or a tier.
func isPlanWord(w string) bool {
	switch w {
	case "free", "pro", "premium", "business", "enterprise", "team", "teams", "starter", "basic", "standard", "plus",
		"growth", "scale", "essentials", "professional", "personal", "family", "student", "trial", "hobby",
		"startup", "unlimited", "lite", "ultimate", "advanced", "elite", "gold", "silver", "platinum", "bronze",
		"developer":
		return true
	}
	return false
}

// planNamed: "the Pro plan", "Enterprise tier", "on the business plan";
// not "a business plan" (a document) or "meal plan".
func planNamed(t *text, m []int) bool {
	w := t.norm[m[2]:m[3]]
	if !isPlanWord(w) {
		return false
	}
	if t.upperAt(m[2]) {
		return true
	}
	var b [2]string
	n := wordsBefore(t.norm, m[2], b[:])
	x := ""
	if n > 0 {
		x = b[0]
		if (x == "the" || x == "our" || x == "my" || x == "their") && n == 2 {
			x = b[1]
		}
	}
	switch x {
	case "on", "to", "onto", "from", "current", "off":
		return true
	}
	return false
}

// planWordAt: group 1 names a plan ("current plan is Starter",
// "downgraded to Free").
func planWordAt(t *text, m []int) bool {
	if !isPlanWord(t.norm[m[2]:m[3]]) {
		return false
	}
	next, _, _ := wordSpan(t.norm, m[3])
	return !notPlaceWord(next) || next == "plan" || next == "tier" || next == "edition" || next == "subscription"
}

// emailGiven: an address said to be someone's: "It's olivia@example.com",
// "my email is ...", "ana@example.com is my new address"; not an address
// to send something to ("send all invoices to accounts@...").
func emailGiven(t *text, m []int) bool {
	s := t.norm
	a, b := clauseAround(s, m[0])
	before := strings.TrimSpace(s[a:m[0]])
	switch {
	case before == "" && strings.HasPrefix(strings.TrimSpace(s[m[1]:b]), "is my"),
		before == "it's", before == "its", before == "it is", before == "that's", before == "mine is",
		strings.HasSuffix(before, " is"), strings.HasSuffix(before, " is now"), strings.HasSuffix(before, ":"),
		strings.HasSuffix(before, "changed to"), strings.HasSuffix(before, "reach me at"),
		strings.HasSuffix(before, "contact me at"):
		return !strings.Contains(before, "send") && !strings.Contains(before, "forward")
	}
	return false
}

// phoneGiven: a number follows ("my phone number changed to +44 7700
// 900412").
func phoneGiven(t *text, m []int) bool {
	s := t.norm
	i := m[1]
	for i < len(s) && (s[i] == ' ' || s[i] == '+' || s[i] == '(') {
		i++
	}
	digits := 0
	for ; i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == ' ' || s[i] == '-' || s[i] == '(' || s[i] == ')'); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			digits++
		}
	}
	return digits >= 6
}

// calledBy: "call me Ravi", "everyone calls me Em"; not "call me Monday".
func calledBy(t *text, m []int) bool {
	w := t.norm[m[2]:m[3]]
	return t.upperAt(m[2]) && !isCalendarWord(w) && w != "asap"
}

// ownName: "Ethan Brooks is my name", not "jpark is my name on Slack" (a
// handle).
func ownName(t *text, m []int) bool {
	next, _, _ := wordSpan(t.norm, m[1])
	switch next {
	case "on", "in", "at", "for":
		return false
	}
	return true
}

// respelled: "Anna, not Ania": a name corrected, two capitalised spellings
// a letter or two apart.
func respelled(t *text, m []int) bool {
	x, y := t.norm[m[2]:m[3]], t.norm[m[4]:m[5]]
	if !t.upperAt(m[2]) || !t.upperAt(m[4]) || len(x) < 3 || len(y) < 3 || isCalendarWord(x) || isCalendarWord(y) {
		return false
	}
	return x != y && editDistance(x, y) <= 2
}

// editDistance is the Levenshtein distance of two short words.
func editDistance(x, y string) int {
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}

// dietFollowed: "on a keto diet", "keeps kosher", "follows a vegan diet",
// not "on the vegan menu" (dietOnRe needs "diet" unless the verb says so).
func dietFollowed(t *text, m []int) bool {
	p := t.norm[m[0]:m[1]]
	return strings.HasSuffix(p, " diet") || strings.HasPrefix(p, "keep") || strings.HasPrefix(p, "follow")
}
