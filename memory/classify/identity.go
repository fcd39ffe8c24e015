package classify

import (
	"regexp"
	"strings"
)

var (
	identityRe   = regexp.MustCompile(`\b(?:((?:my|his|her|their|your|user's|customer's|client's|legal|full|first|last|real|given|family|maiden) name is|name's|goes by)|(pronouns)|((?:was |were )?born (?:in|at)|birthplace|place of birth)|((?:was |were )?born on|birthday is|birthday:|date of birth|birth ?date|dob)|(allergic to|allerg(?:y|ies) to|(?:nut|peanut|penicillin|gluten|lactose|shellfish|food|drug|latex|pollen|bee|dairy|egg) allerg(?:y|ies)|has (?:an? )?(?:[a-z]+ )?allerg(?:y|ies))|(native (?:language|tongue|speaker)|mother tongue|first language|speaks [a-z]+ natively)|(originally from|grew up in|hails from|nationality|citizenship|citizen of|was raised in)|(introvert|extrovert|ambivert|introverted|extroverted|night owl|morning person|early bird|people person|perfectionist|workaholic)|((?:i'm|i am|is|are|'s|'re) (?:a |an |strict |strictly |lifelong )*(?:vegetarian|vegan|pescatarian|kosher|halal|lactose intolerant|gluten intolerant|coeliac|celiac))|((?:i'm|i am|is|are|'s|'re) (?:a |an )?(?:left-handed|right-handed|colou?r ?blind|deaf|blind|diabetic|autistic|dyslexic|bilingual|trilingual|multilingual))|((?:works|work|worked|working) as (?:an? |the )?[a-z]+|(?:job|occupation|profession) is (?:an? )?[a-z]+|for a living))\b`)
	identityKeys = [...]string{"name", "pronouns", "born_in", "birthday", "allergy", "native_language", "origin",
		"personality", "diet", "trait", "occupation"}
	// roleRe: "is a software engineer", "I'm the tech lead", "is their head
	// of IT": a determiner (group 1) and the words a role is read from
	// (group 2, rolePhrase).
	roleRe = regexp.MustCompile(`\b(?:i'm|i am|im|is|are|am|'s|'re) (?:also |now |still |actually |really |currently |just |officially )?(an?|the|their|our|his|her|my|your) ([a-z][a-z-]*(?: [a-z][a-z-]*){0,4})`)
)

// IsRole reports whether word names a role or an occupation ("nurse",
// "engineer", "pharmacist"), as the classifier reads "is a nurse".
func IsRole(word string) bool { return isRole(strings.ToLower(word)) }

// isRole is IsRole for a lowercase word; a plural ("nurses") is a role when
// its singular is.
func isRole(w string) bool {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		if isRole(w[:len(w)-1]) {
			return true
		}
	}
	switch w {
	case "introvert", "extrovert", "ambivert", "engineer", "developer", "programmer", "designer", "manager",
		"director", "founder", "co-founder", "cofounder", "ceo", "cto", "cfo", "coo", "cio", "cmo", "vp", "president",
		"doctor", "physician", "surgeon", "nurse", "teacher", "professor", "lecturer", "student", "lawyer",
		"attorney", "accountant", "architect", "analyst", "scientist", "researcher", "consultant", "contractor",
		"freelancer", "writer", "author", "journalist", "editor", "photographer", "musician", "chef", "cook",
		"pilot", "veteran", "parent", "mother", "father", "mom", "mum", "dad", "grandmother", "grandfather",
		"grandparent", "citizen", "native", "electrician", "plumber", "mechanic", "farmer", "retiree",
		"entrepreneur", "sre", "devops", "recruiter", "salesperson", "marketer", "paramedic", "firefighter",
		"officer", "soldier", "midwife", "vet", "veterinarian", "barista", "waiter", "waitress", "driver",
		"person", "type", "hacker", "coder", "tester", "translator", "interpreter", "tutor", "coach",
		// more trades
		"baker", "butcher", "carpenter", "builder", "cleaner", "gardener", "cashier", "clerk", "secretary",
		"assistant", "nanny", "caregiver", "carer", "counsellor", "counselor", "intern", "apprentice", "trainee",
		"postdoc", "undergrad", "undergraduate", "banker", "broker", "trader", "auditor", "bookkeeper", "paralegal",
		"judge", "solicitor", "barrister", "sailor", "fisherman", "welder", "operator", "supervisor", "coordinator",
		"administrator", "executive", "sysadmin", "dba", "maintainer", "actor", "actress", "dancer", "singer",
		"painter", "sculptor", "illustrator", "animator", "producer", "filmmaker", "streamer", "blogger",
		"instructor", "trainer", "lifeguard", "policeman", "policewoman", "detective", "sergeant", "diplomat",
		"ambassador", "actuary", "underwriter", "teller", "bartender", "sommelier", "rancher", "beekeeper",
		"landscaper", "roofer", "handyman", "locksmith", "tailor", "seamstress", "hairdresser", "barber",
		"housekeeper", "homemaker", "housewife", "pensioner", "dietitian", "dietician", "chairman", "chairwoman",
		"janitor", "courier", "dispatcher", "realtor", "cpo", "ciso", "swe", "sdet":
		return true
	}
	if len(w) >= 6 && (strings.HasSuffix(w, "ist") || strings.HasSuffix(w, "ian")) {
		switch {
		case strings.HasSuffix(w, "list") && isListWord(w[:len(w)-4]), w == "assist", w == "insist",
			w == "persist", w == "consist", w == "resist", w == "median", w == "meridian", w == "exist",
			w == "subsist", w == "twist":
			return false
		}
		return true
	}
	return false
}

// isListWord reports whether w, before "list", makes a list ("checklist",
// "playlist") rather than a trade ("specialist", "journalist").
func isListWord(w string) bool {
	switch w {
	case "check", "play", "wish", "black", "white", "short", "allow", "deny", "watch", "set", "track", "wait",
		"block", "safe", "long", "price", "hit", "todo", "to-do", "bucket", "mailing", "reading", "guest", "task",
		"word", "pick", "punch", "song", "book":
		return true
	}
	return false
}

func (t *text) identity() (Classification, bool) {
	s := t.norm
	id := func(key string, a, b int) (Classification, bool) {
		return Classification{Durability: Permanent, Category: CategoryIdentity, Key: key,
			Reason: "identity phrase " + t.quote(a, b)}, true
	}
	if !t.has(fIdentity) && !(t.has(fWork) && t.has(fAs)) {
		// no biography, trait or "works as"
	} else if m := identityRe.FindStringSubmatchIndex(s); m != nil {
		for g := range identityKeys {
			if m[2+2*g] >= 0 {
				if identityKeys[g] == "occupation" {
					var last [1]string
					wordsBefore(s, m[1], last[:])
					switch last[0] {
					case "expected", "intended", "designed", "advertised", "charm", "well", "before", "usual",
						"normal", "such", "fast", "long", "far", "planned", "documented", "described", "promised":
						continue // "it works as expected"
					}
					if phrase := s[m[0]:m[1]]; strings.Contains(phrase, " is ") && !isJob(last[0]) {
						continue // "my job is stressful" says how it is, not what it is
					}
				}
				return id(identityKeys[g], m[0], m[1])
			}
		}
	}
	for from, tries := 0, 0; t.has(fRole) && from < len(s) && tries < maxTries; tries++ {
		m := roleRe.FindStringSubmatchIndex(s[from:])
		if m == nil {
			break
		}
		for x := range m {
			if m[x] >= 0 {
				m[x] += from
			}
		}
		from = m[5]
		kind, end, n := rolePhrase(s, m[4], m[5])
		if kind == notRole {
			continue
		}
		if roleForNow(s, m[0]) {
			// "is the on-call engineer this week": a role for now is a state.
			return Classification{}, false
		}
		switch s[m[2]:m[3]] {
		case "their", "our", "his", "her", "my", "your":
			if n < 2 {
				continue // "is her manager": a relation, not the subject's role
			}
		}
		key := "occupation"
		switch kind {
		case personalityRole:
			key = "personality"
		case relationRole:
			key = "" // a relation, not a job: "he's a great dad"
		}
		return id(key, m[0], end)
	}
	// What else the text states, on the axes its attribute implies.
	return t.claim()
}

// isJob reports whether w, after "my job is", names an occupation:
// a role ("a nurse") or a trade ("nursing", "accounting"), not how the job
// is ("boring", "stressful").
func isJob(w string) bool {
	if isRole(w) {
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
