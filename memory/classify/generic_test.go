package classify

import (
	"slices"
	"testing"
)

// contentTurns are chat, support, coding and ops turns that say several
// things: none may be filed as a bare mood or status line, and none may
// carry a key that supersedes (a generic key, or any key but an
// observation's or a decision's), or the next turn on that key would
// archive all the rest it says.
var contentTurns = []string{
	// Friends catching up.
	"Calvin: Hey Calvin, been ages! I got picked for a car mod workshop, so excited",
	"Melanie: Hey Mel! Good to see you! How have you been?",
	"Caroline: Wow, that's really cool! I'm so happy for you.",
	"Caroline: Thanks! I've been thinking about becoming a counselor, I want to help people who have been through the same stuff.",
	"Melanie: That's great, Caroline. I've been busy with the kids lately, we went camping last weekend.",
	"Dave: I'm currently working on restoring a vintage Mustang, it's taking forever but I love it.",
	"Dave: Yeah, my band has a gig at the local bar this Friday, you should come!",
	"Melanie: I've been feeling a bit down since my dog passed away last month. Painting helps though.",
	"Caroline: I love painting, it's so relaxing. I did a sunset over the lake last week.",
	"Melanie: I love hiking! We did a 10 mile trail last weekend and saw a bear.",
	"Caroline: My sister is a nurse and she works crazy hours at the hospital.",
	"Dave: I usually go for a run every morning before work, it clears my head.",
	"Caroline: I have to finish my thesis by the end of the month, wish me luck!",
	"Melanie: I need to call my mom later, she has been asking about the trip.",
	"Dave: Work has been stressful this week, my boss keeps piling on projects.",
	"Melanie: I'm so tired today, the baby kept us up all night.",
	"Calvin: I'm in Tokyo until Friday for a conference, the food is incredible!",
	"Caroline: I'm a huge fan of jazz, my dad used to play Coltrane records every Sunday.",
	"Melanie: I'm feeling great about the adoption process, we had our home visit today.",
	"Dave: My kids are obsessed with dinosaurs right now, we went to the natural history museum.",
	"Calvin: Ugh, my car broke down again on the highway. Had to get it towed.",
	"Caroline: Honestly I'm nervous about the interview tomorrow, it's for a marketing role.",
	"Melanie: I've been volunteering at the animal shelter on weekends, it's really rewarding.",
	"Dave: My grandma taught me how to knit when I was little, and I still knit scarves every winter.",
	"Caroline: I'm excited because my art show opens next week at the community center!",
	"Jon: Ugh, the landlord for the first space backed out yesterday. Back to square one.",
	"Gina: I just got my first big order from a boutique in LA, I'm over the moon.",
	"Nate: Street Fighter. I've been practicing like six hours a day, my hands are sore.",
	"John: I'm so tired today, we had a community meeting that ran until midnight.",
	"Audrey: A little, but it was totally worth it. I'm so happy with how it turned out.",
	"Tim: I sprained my ankle in practice yesterday, so I'm out for a couple of weeks.",

	// Support.
	"The customer said the dashboard is slow today and asked for a call back.",
	"The payment failed twice this morning, the customer is frustrated and wants a refund.",
	"Customer is on the Pro plan and has 45 seats, renewal is due in March.",
	"Sam: Hi, our team can't log in since this morning, we get a 502 on the SSO page.",
	"Agent: Sorry about that Sam. I see an incident open for SSO, engineers are on it. I'll update you within the hour.",
	"Priya is out of office until Monday. Her manager Raj is handling escalations and prefers Slack.",

	// Coding.
	"I refactored the auth middleware to use context values, tests are green now.",
	"The flaky test in the payments package is caused by a race on the clock, I added a mutex.",
	"We're migrating the build to Bazel this quarter, the first two services are done.",
	"I'm blocked on the API review, waiting for Sam to sign off on the schema changes. It should land Thursday.",
	"Bot: Looks like go.sum is out of date. I ran go mod tidy and pushed the fix, CI is green now.",

	// Ops.
	"billing-db replication lag is 4 s, probably the nightly backup. Watching it.",
	"The deploy to prod is rolling out, 40% done, no errors so far. I'll check again at noon.",
	"Disk usage on db-2 is at 91%, I opened a ticket to add a volume.",
	"Ops: Lag is back under 1 s, the vacuum finished. Closing the page.",
	"The API is down again. We rolled back the 2.14 deploy and are waiting for the pods to come up.",
}

func TestTurnsWithContentGetNoSupersedingKey(t *testing.T) {
	if len(contentTurns) < 40 {
		t.Fatalf("%d turns, want a corpus of 40 or more", len(contentTurns))
	}
	for _, text := range contentTurns {
		c := Classify(text, testNow)
		checkClassification(t, text, c)
		switch {
		case isBare(text):
			t.Errorf("bare(%q) = true, want a text that says more", text)
		case c.Category == CategoryMood || c.Category == CategoryState:
			t.Errorf("Classify(%q) = (%s, %s, %q): a turn with content filed as a bare mood or status line (%s)",
				text, c.Durability, c.Category, c.Key, c.Reason)
		case IsGenericKey(c.Key):
			t.Errorf("Classify(%q).Key = %q, a generic key (%s)", text, c.Key, c.Category)
		case c.Key != "" && c.Category != CategoryObservation && c.Category != CategoryDecision:
			t.Errorf("Classify(%q) = (%s, %s, %q): a superseding key on a turn with content", text, c.Durability, c.Category, c.Key)
		}
	}
}

// Bare statements keep their categories and the keys that name their
// attribute, so that a new value supersedes the old one.
func TestBareStatementsKeepTheirKeys(t *testing.T) {
	cases := []struct{ text, category, key string }{
		{"Dana: I work as a nurse.", CategoryIdentity, "occupation"},
		{"Dana: I'm a teacher now.", CategoryIdentity, "occupation"},
		{"Dana: I drink tea every morning.", CategoryRoutine, "drink"},
		{"Dana: I prefer dark mode.", CategoryPreference, "theme"},
		{"Dana: I'm in Lisbon until Friday.", CategoryState, "location"},
		{"billing-db replication lag is 4 s", CategoryState, "replication_lag"},
		{"Incident INC-231 is ongoing, mitigation in progress", CategoryState, "status"},
		// The mood of the moment is an attribute; a feeling about one thing
		// is none, and the next mood does not replace it.
		{"I'm so tired today", CategoryMood, "mood"},
		{"Mood: grumpy", CategoryMood, "mood"},
		{"I hate mornings", CategoryMood, "mood"},
		{"Ugh, the build broke again", CategoryMood, ""},
		{"So excited for the cooking class next weekend!", CategoryMood, ""},
		{"Priya is excited about the launch on Friday", CategoryMood, ""},
		{"Glad you're feeling better!", CategoryMood, ""},
		{"My sister is so stressed", CategoryMood, ""},
		{"Are you nervous?", CategoryMood, ""},
		{"Dana: I now work at Initech.", CategoryObservation, "employer"},
		{"Dana: I moved to York.", CategoryObservation, "home_city"},
		{"Dark mode, always: I prefer it.", CategoryPreference, "theme"},
		// Not a job, and not a drink.
		{"He's a great dad", CategoryIdentity, ""},
		{"I love going to the coffee shop downtown to read on weekends.", CategoryPreference, "coffee_shop_downtown"},
		{"I love your painting!", CategoryPreference, "likes"},
		// Told as past: a record, not a status line.
		{"Globex renewed the enterprise contract until 2027.", CategoryObservation, ""},
		{"Globex complained the dashboard is slow today.", CategoryObservation, ""},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if c.Category != tc.category || c.Key != tc.key {
			t.Errorf("Classify(%q) = (%s, %q), want (%s, %q); reason %s", tc.text, c.Category, c.Key, tc.category, tc.key, c.Reason)
		}
		if !isBare(tc.text) {
			t.Errorf("bare(%q) = false, want a bare statement", tc.text)
		}
	}
}

func TestBare(t *testing.T) {
	cases := []struct {
		text string
		bare bool
	}{
		{"I'm so tired today", true},
		{"Mood: grumpy", true},
		{"Slack roll-up is still syncing -- ETA ~30s", true},
		{"Customer got angry when the bot asked for the order number again", true},
		{"We decided nothing yet and the team is frustrated", true},
		{"Dr. Smith is in Lisbon until Friday", true},
		{"Is in the U.S. until March", true},
		{"I'm so tired today, the baby kept us up all night.", false},
		{"I love hiking and my dog loves it too", false},
		{"Hey Mel! How have you been?", false},
		{"It is down. It is back up.", false},
		{"Line one\nline two", false},
		{"I'm so excited about the photography workshop at the community college next month", false},
		{"", true},
	}
	for _, tc := range cases {
		if got := isBare(tc.text); got != tc.bare {
			t.Errorf("bare(%q) = %v, want %v", tc.text, got, tc.bare)
		}
	}
}

// The generic keys are one set, given to the supersession query sorted;
// the keys that name an attribute are not in it.
func TestGenericKeys(t *testing.T) {
	keys := GenericKeys()
	if !slices.IsSorted(keys) || len(keys) != len(genericKeys) {
		t.Errorf("GenericKeys() = %q, want the set sorted", keys)
	}
	for _, k := range []string{"status", "state", "routine", "likes", "preference", "obligation",
		"observation", "note", "general", "update", "deadline", "workload"} {
		if !IsGenericKey(k) || !slices.Contains(keys, k) {
			t.Errorf("IsGenericKey(%q) = false, want a generic key", k)
		}
	}
	// An entity has one mood at a time: a bare mood replaces the last.
	for _, k := range []string{"mood", "occupation", "home_city", "employer", "drink", "theme", "replication_lag",
		"p99_latency", "location", "availability", "cilantro", "work_schedule", "deploy_day", ""} {
		if IsGenericKey(k) {
			t.Errorf("IsGenericKey(%q) = true, want an attribute's key", k)
		}
	}
	for _, k := range keys {
		if !keyRe.MatchString(k) || k == "" {
			t.Errorf("generic key %q is not a key", k)
		}
	}
}

func isBare(text string) bool {
	t := normalize(text)
	return t.bare()
}
