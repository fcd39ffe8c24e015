package classify

import (
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"
)

// Each attribute's paraphrases get its one key, and a statement no earlier
// rule filed gets the axes the key implies.
func TestAttributeParaphrases(t *testing.T) {
	groups := []struct {
		key        string
		category   string // "" when another rule decides the axes
		durability Durability
		texts      []string
	}{
		{"occupation", CategoryIdentity, Permanent, []string{"I'm the finance lead", "Tomás Ortega is the IT admin",
			"Sophie is the head of operations", "Kwame is their head of IT", "Tariq is the only iOS developer",
			"I teach chemistry", "I manage a dairy farm outside Porto", "I'm freelancing as a UX designer now",
			"I'm retired", "I'm the tech lead on atlas-web", "Mateo Ruiz, staff engineer, Montevideo",
			"I joined the company as CTO in May", "I maintain the Python SDK", "Hiroshi manages procurement",
			"Ravi Menon, 34, software architect", "She's in sales", "I work in IT", "I'm a pilot",
			"Aisha Bello is the billing specialist for the EMEA accounts", "He runs a small bakery in Lyon",
			"Dana is our QA lead"}},
		{"employer", CategoryObservation, LongTerm, []string{"I'm at Halcyon Studios now", "I joined Kettle Labs",
			"I joined a startup called Fernweh", "Spoke with Kwame Asante from Brightpath Schools",
			"Mina Kang at Hanbit Games", "My company, Maple Health, is letting me work remotely"}},
		{"employer", "", "", []string{"I work at the BBC", "Dana works for Initech", "Employed by Acme",
			"I quit my job at Deloitte last week", "i do work at globex"}},
		{"home_city", CategoryObservation, LongTerm, []string{"I relocated to Seoul", "I moved from Leeds to York",
			"I live alone in a studio in Glasgow", "Please update my billing address to Denver, where I live now",
			"We moved to Hamburg in February", "She lives just outside Porto"}},
		{"home_city", "", "", []string{"I'm based in Osaka", "I live in Kyoto", "I moved to Berlin last month for the new job",
			"i live in leeds"}},
		{"timezone", CategoryObservation, LongTerm, []string{"I'm on JST", "I'm on UTC+9", "Hana: I'm on SGT",
			"We're on London time", "Pacific time works best for me"}},
		{"timezone", "", "", []string{"My timezone is CET", "Time zone: UTC+2"}},
		{"plan", CategoryObservation, LongTerm, []string{"I'm on the Pro plan, by the way",
			"Northwind renewed for three years on the Enterprise tier", "My current plan is Starter",
			"Our practice moved to the Business plan last week", "We're on the Team plan with 8 seats",
			"They downgraded to Free in January", "we're on the business plan"}},
		{"email", CategoryObservation, LongTerm, []string{"It's olivia.grant@halcyonstudios.io",
			"ana@example.com is my new address"}},
		{"email", "", "", []string{"My email is em.clarke@fastmail.com"}},
		{"phone", CategoryObservation, LongTerm, []string{"My phone number changed to +44 7700 900412",
			"My mobile is 07700 900123"}},
		{"name", CategoryIdentity, Permanent, []string{"Please call me Ravi", "Everyone calls me Em",
			"Ethan Brooks is my name", "Anna, not Ania, please", "Theo Martin is his full name"}},
		{"diet", CategoryIdentity, Permanent, []string{"My boyfriend Theo doesn't eat pork", "I eat fish now",
			"I'm gluten intolerant", "I'm vegan now", "She's on a keto diet", "He keeps kosher"}},
		{"work_schedule", CategoryRoutine, LongTerm, []string{"Luis works 24-hour shifts", "I work 8 to 4",
			"He is off on Wednesdays and Sundays", "I usually code late at night", "I work nights",
			"She works from home on Fridays"}},
		{"contact_method", CategoryPreference, LongTerm, []string{"I'd rather not use email for urgent issues",
			"I'd prefer if you talked me through it on the phone", "I prefer texts over phone calls"}},
		{"on_call", CategoryState, ShortTerm, []string{"Rahul has her pager", "Maria will cover his shift",
			"I picked the PagerDuty shift for Saturday"}},
		{"on_call", CategoryState, "", []string{"I'm on call this week", "Escalations go to me until Monday",
			"Jun Park is on call until next Monday"}},
		{"availability", CategoryState, "", []string{"I'll be travelling until March 12",
			"Priya Sharma is out until Wednesday", "Tariq is on leave next week"}},
		{"location", CategoryState, "", []string{"I'm working from Lisbon this month"}},
		{"timezone", CategoryState, "", []string{"my timezone is WET until April"}},
		{"health", CategoryState, ShortTerm, []string{"My doctor says my blood pressure is normal now"}},
		{"replication_lag", "", "", []string{"the billing-db replica is 2 s behind right now",
			"replication lag is 4 s"}},
		{"queue_depth", "", "", []string{"queue drained", "queue depth on email-worker is 12,000"}},
		{"memory_usage", "", "", []string{"HighMemoryUsage resolved on node ip-10-0-3-17"}},
		{"medication", "", "", []string{"I take my thyroid pill every morning at 7"}},
		{"exercise", "", "", []string{"Every morning I go for a 5k run before work"}},
		{"mood", CategoryMood, Ephemeral, []string{"The team is frustrated with the flaky e2e suite",
			"Nervous about this one", "I'm feeling anxious about the interview", "I'm a bit sad about it",
			"Honestly I'm furious with the airline", "I'm exhausted, it's been a long day", "Ben is happy with it"}},
	}
	for _, g := range groups {
		for _, text := range g.texts {
			c := Classify(text, testNow)
			if c.Key != g.key {
				t.Errorf("Classify(%q).Key = %q (%s, %s: %s), want %q", text, c.Key, c.Durability, c.Category, c.Reason, g.key)
			}
			if g.category != "" && c.Category != g.category || g.durability != "" && c.Durability != g.durability {
				t.Errorf("Classify(%q) = (%s, %s), want (%s, %s); reason %s", text, c.Durability, c.Category,
					g.durability, g.category, c.Reason)
			}
			checkClassification(t, text, c)
		}
	}
}

// A text that names the words of an attribute without stating it gets no
// key of that attribute: a false key would archive a true fact.
func TestAttributeNearMisses(t *testing.T) {
	cases := []struct{ text, key string }{
		// not an occupation
		{"The v1 API is retired", "occupation"},
		{"I teach my kids at home", "occupation"},
		{"Can you teach me Go?", "occupation"},
		{"We run two shops and use the POS on four tablets", "occupation"},
		{"I'm the new account owner for the Warsaw office", "occupation"},
		{"Leo Martins is the owner of the billing-db runbook", "occupation"},
		{"Raj is her manager", "occupation"},
		{"I'm a contractor here until June", "occupation"},
		{"He's the on-call engineer this week", "occupation"},
		{"I'm the incident commander for INC-2291", "occupation"},
		{"I manage to get by", "occupation"},
		{"The bug is in security", "occupation"},
		{"Sophie handles all our carrier contracts", "occupation"},
		{"Grace Liu owns the ingestion DAGs", "occupation"},
		{"I'm writing a checklist", "occupation"},
		// not an employer
		{"Tuesday works for me", "employer"},
		{"The API works for Acme's use case", "employer"},
		{"Everyone at acme robotics signs in through Okta", "employer"},
		{"We're a team of 12 at Fernwood Legal", "employer"},
		{"My old team at Nimbus still pings me", "employer"},
		{"I joined the call late", "employer"},
		{"My company switched to Microsoft 365 last month", "employer"},
		{"I'm at Heathrow now", "employer"},
		// not a home city
		{"Our practice moved to the Business plan last week", "home_city"},
		{"We moved to Postgres last year", "home_city"},
		{"Marco moved to the payments team", "home_city"},
		{"The meeting moved to Friday", "home_city"},
		{"I'm moving to Zurich at the end of March", "home_city"},
		{"I want to live in Berlin", "home_city"},
		{"If I moved to Lisbon, I'd learn Portuguese", "home_city"},
		{"The feature went live in March", "home_city"},
		{"Our studio is in Prague", "home_city"},
		{"Novak Dental has three locations in Prague and Brno", "home_city"},
		{"Robert lives with us since last year", "home_city"},
		{"My sister moved to Seattle last month, so we all went out for dinner.", "home_city"},
		{"Do you live in Denver?", "home_city"},
		// not a time zone
		{"migration starts at 22:00 UTC", "timezone"},
		{"backups run nightly at 01:00 UTC", "timezone"},
		{"The logs are in UTC", "timezone"},
		{"Let's get there on time", "timezone"},
		{"I don't eat meat", "timezone"},
		{"I had a CT scan on Monday", "timezone"},
		// not a plan
		{"I'm writing a business plan", "plan"},
		{"The plan is to migrate next week", "plan"},
		{"We upgraded to Postgres 16", "plan"},
		{"I picked the annual option by accident", "plan"},
		{"Our meal plan changes every week", "plan"},
		// not an email, a phone or a name
		{"From now on, send all invoices to accounts@greenleaf.com", "email"},
		{"My number is 42 on the waiting list", "phone"},
		{"Jun Park is my name on PagerDuty, jpark on Slack", "name"},
		{"Call me tomorrow", "name"},
		{"Call me Monday", "name"},
		{"Monday, not Tuesday", "name"},
		{"Python, not Java", "name"},
		// not a diet
		{"I ate fish yesterday", "diet"},
		{"Let's eat chicken tonight", "diet"},
		{"The vegan menu is on the table", "diet"},
		// not on call, away, or a work schedule
		{"Kenji Sato will lead the on-call rotation review", "on_call"},
		{"She'll shadow on-call for two weeks", "on_call"},
		{"I'm on a call", "on_call"},
		{"I love travelling", "availability"},
		{"Edmund is working from home today", "work_schedule"},
		{"My commute is about an hour each way", "work_schedule"},
		// not a reading
		{"alert threshold on disk is 85%", "disk_usage"},
		{"The nightly job runs at 02:00 UTC", "exercise"},
		// not a mood of the entity
		{"Are you nervous?", "mood"},
		{"Glad you're feeling better!", "mood"},
		{"My sister is so stressed", "mood"},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if c.Key == tc.key {
			t.Errorf("Classify(%q).Key = %q (%s, %s: %s), want another", tc.text, c.Key, c.Durability, c.Category, c.Reason)
		}
		checkClassification(t, tc.text, c)
	}
}

// A text that says more than a bare statement keeps a single-valued key
// only when its lead clause states the attribute, of the speaker or someone
// named: the rest may be anything.
func TestLeadClauseKeys(t *testing.T) {
	cases := []struct{ text, key string }{
		{"I'm based in Osaka, so I'm on JST", "home_city"},
		{"I'm on UTC+9 now, I relocated to Seoul for work", "timezone"},
		{"I live in Kyoto and I'm on JST", "home_city"},
		{"My timezone is CET and I work 8 to 4", "timezone"},
		{"I'm the finance lead at Bluefin Logistics, so this blocks our month-end close", "occupation"},
		{"I'm the only developer at Spice Route Foods, so I can't wait long", "occupation"},
		{"I'm a pilot with Nordic Air, so my schedule is all over the place", "occupation"},
		{"Also, I moved from Leeds to York last month, so please update the shipping address", "home_city"},
		{"I'm gluten intolerant and I hate mushrooms", "diet"},
		{"I'm on call for the hospital this weekend, so I might not answer", "on_call"},
		{"I used to be on the Pro plan but I downgraded to Free in January", "plan"},
		{"I'm exhausted, it's been a long day", "mood"},
		// The attribute is not the lead clause's, or not its subject's.
		{"My sister moved to Seattle last month, so we all went out for dinner.", ""},
		{"Caroline: My sister is a nurse and she works crazy hours at the hospital.", ""},
		{"Please don't call me before 10am, I work nights at the hospital", ""},
		{"We moved to Hamburg in February, the kids love it", ""},
		{"I love my job. I moved to Berlin last year.", ""},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if c.Key != tc.key {
			t.Errorf("Classify(%q).Key = %q (%s, %s: %s), want %q", tc.text, c.Key, c.Durability, c.Category, c.Reason, tc.key)
		}
	}
}

// The key implies the axes: an occupation told anywhere is an identity,
// permanent, not a passing state of the speaker, and a statement told as
// intended, future or hypothetical is not claimed as holding.
func TestAttributeClaimsWhatHolds(t *testing.T) {
	for _, tc := range []struct{ text, category string }{
		{"I will join Acme as a designer next month", CategoryObligation},
		{"I need to update my email to ana@example.com", CategoryObligation},
	} {
		c := Classify(tc.text, testNow)
		if c.Category == CategoryIdentity || c.Category == CategoryObservation && c.Key != "" && IsSingleValued(c.Key) {
			t.Errorf("Classify(%q) = (%s, %s, %q): claimed as holding; reason %s", tc.text, c.Durability, c.Category,
				c.Key, c.Reason)
		}
	}
}

// TestAttributeTriggers generates texts from every phrasing's pattern and
// checks that the word scan triggers the phrasing wherever its pattern
// matches (for a phrasing triggered by a family of words, wherever its check
// accepts the match): the vocabulary skips a phrasing whose trigger words a
// text does not hold.
func TestAttributeTriggers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	around := []string{"", " ", "x", "-", "'", "…", "é", ",", "2"}
	for i, a := range attributes {
		for j, p := range a.phrasings {
			parsed, err := syntax.Parse(p.re.String(), syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			parsed = parsed.Simplify()
			matched := 0
			for range 1000 {
				var b strings.Builder
				b.WriteString(around[r.IntN(len(around))])
				genMatch(&b, parsed, r)
				b.WriteString(around[r.IntN(len(around))])
				ct := normalize(b.String())
				m := p.re.FindStringSubmatchIndex(ct.norm)
				if m == nil || p.flags != 0 && p.check != nil && !p.check(&ct, m) {
					continue // a phrasing triggered by a family of words: its check finds the word
				}
				matched++
				if ct.triggered()[i]&(1<<j) == 0 {
					t.Errorf("%s phrasing %d (%s) matches %q but is not triggered", a.key, j, p.re, ct.norm)
					break
				}
			}
			if matched < 100 && p.flags == 0 {
				t.Errorf("%s phrasing %d: only %d of 1000 generated texts matched", a.key, j, matched)
			}
		}
	}
}

// Every attribute's key is a canonical key of the vocabulary, or a key of
// its own, never a synonym or a generic key.
func TestAttributeKeysAreCanonical(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range attributes {
		if CanonicalKey(a.key) != a.key || IsGenericKey(a.key) || seen[a.key] {
			t.Errorf("attribute %q is a synonym, a generic key or listed twice", a.key)
		}
		seen[a.key] = true
		if len(a.phrasings) == 0 {
			t.Errorf("attribute %q has no phrasing", a.key)
		}
	}
}

// A mood that looks forward to an occasion, or an interjection before an
// event, states the occasion or the event too: it keeps no superseding key,
// so the next mood does not archive what it says.
func TestMoodsThatStateMoreKeepNoKey(t *testing.T) {
	for _, text := range []string{
		"I'm feeling anxious about the interview tomorrow",
		"So excited for the open mic night next month!",
		"Priya is excited about the launch on Friday",
		"Ugh, the build broke again",
		"Nervous about the exam in two weeks",
	} {
		if c := Classify(text, testNow); c.Category != CategoryMood || c.Key != "" {
			t.Errorf("Classify(%q) = (%s, key %q), want a mood with no key; reason %s", text, c.Category, c.Key, c.Reason)
		}
	}
}

// An interjection before a feeling is that feeling: the mood keeps its key.
func TestInterjectionBeforeAFeeling(t *testing.T) {
	for _, text := range []string{"Ugh, I'm so tired today.", "Yay, feeling great"} {
		if c := Classify(text, testNow); c.Category != CategoryMood || c.Key != "mood" {
			t.Errorf("Classify(%q) = (%s, key %q), want a mood with key mood; reason %s", text, c.Category, c.Key, c.Reason)
		}
	}
}
