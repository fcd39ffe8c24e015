package classify

import (
	"testing"
	"time"
)

// conversationCases are what support chats, coding sessions, personal
// assistants and ops incidents state, one sentence each, with the axes the
// rules give them: the classes of conversation text, each with near misses
// of the same shape that must not take its category.
var conversationCases = []struct {
	text       string
	durability Durability
	category   string
}{
	// Faults and problems: short_term while under way, ephemeral for now.
	{"I can't export invoices since the last update.", ShortTerm, CategoryState},
	{"The route planner keeps crashing on Android 14 since Tuesday.", ShortTerm, CategoryState},
	{"Customer reports duplicate charges on card ending 4417.", ShortTerm, CategoryState},
	{"This is the fourth time the sync has dropped my calendar events.", ShortTerm, CategoryState},
	{"The seat count still shows 10 instead of 25.", ShortTerm, CategoryState},
	{"It doesn't work.", ShortTerm, CategoryState},
	{"The dashboard has been timing out all morning.", Ephemeral, CategoryState},
	{"My train is cancelled again.", Ephemeral, CategoryState},
	{"Customers see timeouts.", Ephemeral, CategoryState},
	{"That's way over budget.", Ephemeral, CategoryState},
	{"SLA breach warning: ticket #50377 has been open for 47 hours.", Ephemeral, CategoryState},
	{"go test ./... FAIL example.com/ledger/recon 1.02s", Ephemeral, CategoryState},
	{"The recon package fails because the fixture clock is off by an hour.", Ephemeral, CategoryState},
	{"Problem solved after the update.", Ephemeral, CategoryState},
	{"Never mind, it's fine now.", Ephemeral, CategoryState},
	{"It works again.", Ephemeral, CategoryState},
	{"Heads up, I'm sick today.", Ephemeral, CategoryState},
	{"Not our fault, but customers see timeouts.", Ephemeral, CategoryState},
	{"I'm on call for the hospital this weekend, so I might not answer.", ShortTerm, CategoryState},
	// ... and what only looks like one: an ability, a rule, a denial, a
	// record, an age, where someone works, a habit.
	{"I can't swim.", LongTerm, CategoryObservation},
	{"When the queue is full the API times out.", LongTerm, CategoryObservation},
	{"The build no longer fails.", LongTerm, CategoryObservation},
	{"Globex complained the dashboard is slow.", LongTerm, CategoryObservation},
	{"Yesterday, the dashboard kept timing out.", LongTerm, CategoryObservation},
	{"The shop has been open for 20 years.", LongTerm, CategoryObservation},
	{"I don't work at Globex anymore.", LongTerm, CategoryObservation},
	{"The build fails every Monday.", LongTerm, CategoryRoutine},
	{"I'm fine now.", LongTerm, CategoryObservation},

	// Roles and duties held for an incident or a while.
	{"Sam Rivera here, taking over as IC.", ShortTerm, CategoryState},
	{"I'm the incident commander for INC-2291.", ShortTerm, CategoryState},
	{"Marta is my backup.", ShortTerm, CategoryState},
	{"Lena is handling comms with support.", ShortTerm, CategoryState},
	{"I picked up the Terraform upgrade ticket this morning.", ShortTerm, CategoryState},
	{"Maria will cover his shift.", ShortTerm, CategoryState},
	{"Rahul has her pager.", ShortTerm, CategoryState},
	{"I'm not on call anymore, Jun took over.", ShortTerm, CategoryState},
	{"The new CEO took over last year.", LongTerm, CategoryObservation},
	{"I picked up the kids.", LongTerm, CategoryObservation},
	{"On-call handover happens on Mondays at 10:00", LongTerm, CategoryRoutine},

	// Plans and commitments.
	{"We'll revisit next sprint.", ShortTerm, CategoryObligation},
	{"I should order her a gift by the 10th.", ShortTerm, CategoryObligation},
	{"I'm meeting Giulia for lunch.", ShortTerm, CategoryObligation},
	{"My son Idris starts school in September.", ShortTerm, CategoryObligation},
	{"I'm moving to Zurich at the end of March.", ShortTerm, CategoryObligation},
	{"Sam will post updates every 30 minutes.", ShortTerm, CategoryObligation},
	{"Kenji Sato will lead the on-call rotation review.", ShortTerm, CategoryObligation},
	{"She'll shadow on-call for two weeks.", ShortTerm, CategoryObligation},
	{"We need the data processing agreement signed before our audit on March 20.", ShortTerm, CategoryObligation},
	{"The build will take an hour.", LongTerm, CategoryObservation},
	{"Everything will be fine.", LongTerm, CategoryObservation},
	{"You'll receive an email.", LongTerm, CategoryObservation},
	{"I'll probably go.", LongTerm, CategoryObservation},
	{"I'll call mum every Sunday.", LongTerm, CategoryRoutine},
	{"I'm meeting resistance.", LongTerm, CategoryObservation},
	{"We need a bigger boat.", LongTerm, CategoryObservation},

	// Standing rules and wishes.
	{"Please remember: never commit the .env file.", LongTerm, CategoryPreference},
	{"He asked us never to reset the SSO config without warning.", LongTerm, CategoryPreference},
	{"From now on, send all invoices to accounts@greenleaf.example instead of my personal address.", LongTerm, CategoryPreference},
	{"For the record, I use the iPad app exclusively.", LongTerm, CategoryPreference},
	{"Our legal team wants 7 years.", LongTerm, CategoryPreference},
	{"Elena needs a ground-floor room.", LongTerm, CategoryPreference},
	{"Ana Ruiz wants the cache migration prioritised.", ShortTerm, CategoryPreference},
	{"I hate YAML, honestly.", LongTerm, CategoryPreference},
	{"I drink my coffee black.", LongTerm, CategoryPreference},
	{"I'd prefer if you talked me through it on the phone.", LongTerm, CategoryPreference},
	{"I hate mornings", Ephemeral, CategoryMood},
	{"I hate waiting.", Ephemeral, CategoryMood},
	{"The server needs a reboot.", LongTerm, CategoryObservation},
	{"I want a refund.", LongTerm, CategoryObservation},
	{"He wants to cancel.", LongTerm, CategoryObservation},
	{"Priya Nair owns the rollout, and Priya wants a dry run on staging first.", LongTerm, CategoryObservation},

	// One-off errands and mishaps, and a case's reference.
	{"Paid the water bill.", ShortTerm, CategoryObservation},
	{"Done, paid it just now.", ShortTerm, CategoryObservation},
	{"They lost my bag on the Lisbon flight.", ShortTerm, CategoryObservation},
	{"The claim reference is LX-44812.", ShortTerm, CategoryObservation},
	{"Renewed the car insurance until 2027.", LongTerm, CategoryObservation},
	{"I lost my job.", LongTerm, CategoryObservation},
	{"We picked up the new Grafana version in the last upgrade.", LongTerm, CategoryObservation},

	// Habits with a bare hour, shifts and working hours.
	{"I go to bed by 10.", LongTerm, CategoryRoutine},
	{"Luis works 24-hour shifts.", LongTerm, CategoryRoutine},
	{"I work 8 to 4.", LongTerm, CategoryRoutine},
	{"My timezone is CET and I work 8 to 4.", LongTerm, CategoryObservation},
}

func TestClassifyConversation(t *testing.T) {
	for _, tc := range conversationCases {
		c := Classify(tc.text, testNow)
		if c.Durability != tc.durability || c.Category != tc.category {
			t.Errorf("Classify(%q) = (%s, %s), want (%s, %s); reason: %s",
				tc.text, c.Durability, c.Category, tc.durability, tc.category, c.Reason)
		}
		checkClassification(t, tc.text, c)
		checkTriggers(t, tc.text)
	}
}

// Decisions need a decider and a choice. The speaker's own choice is one
// when it names what was chosen and a reason that lasts; a bare past "went
// with" reports what was bought or done unless it names an alternative, a
// lasting reason or, for a group, the end it serves.
func TestClassifyConversationDecisions(t *testing.T) {
	decisions := []string{
		"Incident commander: We decided to fail over to us-east-2, because the primary region is degraded.",
		"I picked Go for the CLI because the team already knows it.",
		"I went with Postgres because of transactions.",
		"I decided to take the job in Zurich, because the team is great and the commute is short.",
		"For now it stays in Go.",
		"Let's not use ORMs at all in this repo.",
		"Use mutexes for the cache from now on.",
		"We agreed in the design review that images are stored in S3, not in Postgres.",
		"Leo: From now on all schema migrations run through the migrate job, never by hand.",
		"Rahul: We're not going to migrate payments to Kubernetes this quarter.",
		"The security team chose those numbers after the 2025 pen test.",
		"We went with the staged rollout for the kernel patch, 10% per hour.",
	}
	for _, text := range decisions {
		if c := Classify(text, testNow); c.Category != CategoryDecision || c.Durability != Permanent {
			t.Errorf("Classify(%q) = (%s, %s): %s, want a decision", text, c.Durability, c.Category, c.Reason)
		}
	}
	notDecisions := []string{
		"Just so you know, we went with your competitor for the mobile app, but we're keeping you for web.",
		"We went with the default retention settings when we set up, no real reason.",
		"We went with the cheaper hotel, nothing special about it.",
		"We went with the cheaper hotel because it was closer.",
		"Lina decided this at Monday's retro.",
		"Actually, the team picked it, I just went along.",
		"I decided to stay home because it was raining.",
		"I decided to take a nap because I'm tired.",
		"I chose the blue one because it matches my shoes.",
		"We decided to fail over.",
		"We all agreed it was a great trip, not a disaster.",
		"From now on I'm going to the gym every morning.",
		"It stays in the fridge.",
		"The dog stays with Mum for now.",
		"Nothing is settled yet.",
		"We haven't decided on the next quarter yet.",
		"That's the decision from the postmortem.",
	}
	for _, text := range notDecisions {
		if c := Classify(text, testNow); c.Category == CategoryDecision {
			t.Errorf("Classify(%q) = (%s, %s, %q): a decision (%s), want none", text, c.Durability, c.Category, c.Key, c.Reason)
		}
	}
}

// A month without a day, a day of the month without the month.
func TestClassifyConversationDeadlines(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 23, 59, 59, 0, time.UTC) }
	cases := []struct {
		text string
		want time.Time
	}{
		{"I should order her a gift by the 10th", day(2026, 12, 10)},
		{"My son starts school in September", day(2027, 9, 30)},
		{"I'm moving to Zurich at the end of March", day(2027, 3, 31)},
		{"The report is due by June", day(2027, 5, 31)},
		{"The contract renews in December", day(2026, 12, 31)},
		{"Must file the claim early January", day(2027, 1, 10)},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if c.Deadline == nil || !c.Deadline.Equal(tc.want) {
			t.Errorf("Classify(%q).Deadline = %v, want %s (%s, %s: %s)", tc.text, c.Deadline, tc.want.Format(time.RFC3339),
				c.Durability, c.Category, c.Reason)
		}
	}
	for _, text := range []string{"We moved here in March 2020", "Since March the build is green", "The 10th of May is a holiday"} {
		c := Classify(text, testNow)
		if c.Deadline != nil && c.Deadline.Year() == 2027 && c.Deadline.Month() == time.March && c.Deadline.Day() == 31 {
			t.Errorf("Classify(%q).Deadline = %s, want no month-end deadline", text, c.Deadline.Format(time.RFC3339))
		}
	}
}

// What conversation says that is no fact, and its near misses.
func TestNotFactConversation(t *testing.T) {
	cases := []struct{ text, kind string }{
		{"I don't want to cancel, I just want to know.", NotFactQuestion},
		{"We only wanted to check.", NotFactQuestion},
		{"We'd love a discount if we add the third site.", NotFactHypothetical},
		{"Nothing is settled yet.", NotFactHypothetical},
		{"We haven't decided on the next quarter yet.", NotFactHypothetical},
		{"Pavel Horak on the invoice, please.", NotFactInstruction},
		{"No dairy in any recipe you suggest, please.", NotFactInstruction},
		{"Set my alarm for 5:15 tomorrow.", NotFactInstruction},
		{"Yeah, that's the nil map.", NotFactAcknowledgement},
		{"That's the decision from the postmortem.", NotFactAcknowledgement},
		{"First time ever.", NotFactAcknowledgement},
		{"Love this job.", NotFactAcknowledgement},
		{"Ethan is fine.", NotFactAcknowledgement},
		{"I'm happy to help with the school bake sale.", NotFactAcknowledgement},
		{"I'll roll back the 14:05 deploy.", NotFactAcknowledgement},
		{"Let me check the logs.", NotFactAcknowledgement},

		{"Done, it works again.", ""},
		{"I'm on call for the hospital this weekend, so I might not answer.", ""},
		{"Anna, not Ania, please.", ""},
		{"We'd love a callback if possible.", ""},
		{"Lag is fine.", ""},
		{"I'll roll back the deploy on Friday.", ""},
		{"I'll post updates every 30 minutes.", ""},
		{"Set a reminder to pay the rent on Friday.", ""},
		{"That's way over budget.", ""},
		{"This is the fourth time the sync has dropped my calendar events.", ""},
		{"We haven't decided between pnpm and npm yet", ""},
		{"Nothing has been decided about the logo", ""},
		{"Priya is happy to help with onboarding", ""},
		{"That's my sister's new flat in Leeds, she moved in May.", ""},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if kind, _ := NotFact(tc.text, c); kind != tc.kind {
			t.Errorf("NotFact(%q) = %q, want %q; classified (%s, %s): %s", tc.text, kind, tc.kind, c.Durability, c.Category, c.Reason)
		}
	}
}
