package classify

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// notFactCases are what support chats, coding sessions, personal assistants
// and ops incidents say that is no fact, by kind.
var notFactCases = map[string][]string{
	NotFactQuestion: {
		"Could you check the deploy logs",
		"Can someone look at the billing alert",
		"What's the ETA on the fix",
		"Is there a workaround for the SSO bug",
		"Why is the build failing on main",
		"Any update on my refund",
		"Do you know if the pharmacy is open on Sunday",
		"Which region should we deploy to",
		"How long does the migration take",
		"I was wondering whether my plan includes phone support",
		"Does anyone know who owns the payments service",
		"Anyone else seeing 502s from the gateway",
		"Should I restart the pod",
		"Where do I live?",
		"Is it down again? 😅",
	},
	NotFactAcknowledgement: {
		"Incident closed.",
		"Closing the ticket.",
		"Thanks for the quick fix!",
		"Ok, thanks!",
		"LGTM",
		"Sounds good to me.",
		"Got it, will do.",
		"Marking this as resolved.",
		"No worries, happy to help.",
		"Appreciate the help, Sam.",
		"Perfect, thank you so much",
		"Ticket resolved.",
		"Merged.",
		"Bear with me",
		"+1",
		// Cheers, wishes, praise, closings and help-desk receipts.
		"Congratulations!", "Enjoy your trip!", "Have a great weekend", "That's all for today.", "One last thing.",
		"You've been super helpful.", "This ticket can be closed.", "We've received your message (#88120).",
		"A support agent will get back to you within one business day.", "Priya here.", "Just kidding.", "Ship it.",
		"Confirmed.", "No, that's all.",
	},
	NotFactInstruction: {
		"Please don't reopen this thread",
		"Do not reopen this.",
		"Summarise the thread for me",
		"Restart the payments pod",
		"Ping me when the deploy finishes",
		"Let me know if the refund goes through",
		"Escalate this to tier 2",
		"Please send the invoice to accounting",
		"Don't merge that PR yet",
		"Look into why the cron job skipped",
		"I need you to draft a reply to the customer",
		"Try clearing your browser cache",
		"Reopen INC-231",
		"Check your spam folder",
		"Ok, don't page Raj for this one",
		// Bare imperatives: a phrasal verb, a bare object put somewhere, an
		// order to everyone, an opener before the order, a look-up for a day.
		"Add eggs to my grocery list", "Roll back the last deploy", "Turn on the strict mode flag",
		"Skip the flaky tests for now", "For now, pause the sync job", "Nobody merge to main until the freeze lifts",
		"Wait, no, drop the old index.", "Find me a dentist for next Tuesday", "Let's try a bigger cache and see",
		"Spin up a new replica", "In the meantime, reply on this thread only",
	},
	NotFactHypothetical: {
		"If I moved to Paris, I'd learn French.",
		"If we moved the standup to 9 we'd lose Ana",
		"Maybe we should switch to pnpm",
		"Suppose the primary fails over during the backup",
		"I'm thinking about moving to Lisbon",
		"We might migrate to Kubernetes next year",
		"I wish I had more time for the garden",
		"What if the customer asks for a refund",
		"Hopefully the patch lands before the release",
		"If the lag keeps growing we could lose the replica",
		"Someday I want to run a marathon",
		"Assuming the vendor agrees, we'd ship in March",
		"Jordan might be late",
		// Hedges, suppositions whatever follows them, consequences without
		// their condition, musings, disowned decisions.
		"Likely the connection pool, but I'm not sure", "I suspect the cache is too small",
		"In theory we'd ship on Friday", "We'd need two more engineers", "Just thinking out loud.",
		"Not a decision, just a trial run.", "Imagine if we had a staging cluster, we'd test every day",
		"Prices may go up, who knows.",
	},
	NotFactSarcasm: {
		"Oh great, another pager storm.",
		"I just love being paged at 3am",
		"Great, more meetings.",
		"Yeah right, like that's going to ship on time",
		"Just what I needed, a flaky test on release day",
		"Thanks for nothing.",
		"Love how the build breaks every time I push",
		"Oh joy, the printer jammed again",
		"Because that always works.",
		"Another day, another outage",
		"Sure, because rebooting fixes everything",
		"Wow, what a surprise, the vendor missed the deadline",
		"The deploy is green /s",
		"Great, the build is broken again.",
		"Love that for us.", "It only took six hours.", "Took them long enough.",
		"The dashboard says everything is green, which is hilarious.", "Literally the best Monday ever.",
		"I just love filling in expense reports.", "Wow, the build produced 90 errors, amazing.", "That went swimmingly.",
	},
}

func TestNotFactKinds(t *testing.T) {
	for kind, texts := range notFactCases {
		if len(texts) < 6 {
			t.Errorf("%s: %d cases, want at least 6", kind, len(texts))
		}
		for _, text := range texts {
			c := Classify(text, testNow)
			if got, retracts := NotFact(text, c); got != kind || retracts != "" {
				t.Errorf("NotFact(%q) = (%q, %q), want (%q, \"\"); classified (%s, %s, %q)",
					text, got, retracts, kind, c.Durability, c.Category, c.Key)
			}
		}
	}
}

// A negation denies a value: NotFact names the key of the fact it retires.
func TestNotFactNegation(t *testing.T) {
	cases := []struct{ text, key string }{
		{"I no longer live in Berlin", "home_city"},
		{"She doesn't live in Austin any more", "home_city"},
		{"I moved out of Denver", "home_city"},
		{"I used to live in Leeds", "home_city"},
		{"I don't work at Globex anymore", "employer"},
		{"He no longer works for Acme", "employer"},
		{"I quit my job at Initech", "employer"},
		{"I'm not vegetarian anymore", "diet"},
		{"Priya isn't a vegan anymore", "diet"},
		{"I used to be a nurse", "occupation"},
		{"I'm not a teacher anymore", "occupation"},
		{"Jordan no longer works nights", "work_schedule"},
		{"We don't deploy on Fridays anymore", "deploy_day"},
		{"I stopped drinking coffee", "drink"},
		{"I don't drink coffee anymore", "drink"},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if kind, key := NotFact(tc.text, c); kind != NotFactNegation || key != tc.key {
			t.Errorf("NotFact(%q) = (%q, %q), want (negation, %q); classified (%s, %q)",
				tc.text, kind, key, tc.key, c.Category, c.Key)
		}
	}
}

// notFactNearMisses look like not-facts and state facts: each rule's anchor
// leaves them alone.
var notFactNearMisses = []string{
	// Questions: fragments after "is" or "has", statements opening with a wh-word.
	"Is on vacation this week", "Has two kids", "Did the migration on Monday", "Does yoga every morning",
	"What's worse is the lag only happens at night", "Which is why we moved to Lyon",
	"What I need is a laptop with 32 GB of RAM", "Did I mention I'm moving to Berlin",
	// Acknowledgements: a verb or an identifier makes a fact.
	"The incident is resolved", "INC-231 resolved", "Great, the deploy finished.", "Sure, I work nights",
	"Noted, I live in Lyon now", "Thanks for the fix, but the API is still down", "Yes, I'm on the Pro plan",
	"Thanks, I'm based in Denver", "I'm on call",
	// Instructions: dated, standing, a decision, a note to keep, a noun.
	"Use pnpm, not npm.", "Rotate the API key by Friday", "Submit expenses by next Monday",
	"Remind me to renew the passport in two weeks", "Never deploy on Fridays", "Keep answers short",
	"Please note that I'm allergic to penicillin", "Check the API, it's down", "Don't have a car",
	"Draft is ready for review", "Order 1234 shipped yesterday", "Update: the migration finished",
	"Run time is five minutes", "Stop words are removed before indexing", "Open to suggestions",
	"Keep getting logged out", "Make sure the deploy is out by Friday", "Book a table for Friday at 8pm",
	"Update on the migration: done",
	// Hypotheticals: a preference, a habit under a condition, a reading.
	"Would rather be contacted by email", "Priya would like a callback tomorrow morning",
	"If possible, I'd prefer a window seat", "If it rains, Jordan works from home",
	"If the lag exceeds 10 s, always page the DBA", "lag is 4 s, probably the backup",
	"We're expecting a baby in May", "I work from home one day a week", "We could reproduce it yesterday",
	"I could not log in yesterday", "If I remember correctly, Jordan lives in Leeds",
	"In case you missed it, the API is down", "Thanks to the new cache p99 dropped to 80 ms",
	// Sarcasm: nothing belies the delight.
	"Oh nice, Jordan is back from leave", "Oh great, I'm on call this weekend", "I love being outdoors",
	"I love dark mode", "Throughput is 500 req/s",
	// Negations: a mood, a state, no attribute, the new value, not a denial.
	"Edmund is not stressed anymore", "Priya doesn't need to file taxes this year",
	"The VPN is no longer flaky", "Replication lag is no longer high", "I'm not a nurse anymore, I'm a teacher now",
	"The meeting is no longer than 30 minutes", "I'm used to working nights", "The script is used to rotate keys",
	"The backup stopped running at 3am", "The endpoint no longer returns 500s", "I can't log in anymore",
	"I don't eat pork",
	// Facts of the four domains.
	"The customer was charged twice for the March invoice", "Customer prefers phone calls after 5pm",
	"The repo uses Go 1.22", "We switched from Jest to Vitest last month", "Make is used for builds",
	"My flight to Tokyo is on June 3", "I'm allergic to shellfish", "db-3 disk is at 91%",
	"Alerts for billing-db go to #ops-db", "Failover completed at 14:20", "Sam is the on-call engineer this week",
	"Hey Claude, I moved to Denver.", "I'm Canadian.",
	// The rules added for cheers, closings, imperatives, hedges,
	// consequences and sarcasm leave these alone.
	"Roll-back was clean", "Add-on pricing is $5", "Confirmed: the outage was DNS", "Confirmed, the outage was DNS.",
	"Push notifications to the app are broken", "Order 1234 shipped to the depot",
	"Email reminders to the team go out on Mondays", "Set up took an hour", "Roll out went fine", "Set menu is $20",
	"Roll call is at 9", "Ship date is March 3", "Sign up is free", "Interesting fact: I was born in Oslo",
	"That's all I know about the outage", "Julia is here", "I live in Leeds, but not sure for how long",
	"I think my flight is on Tuesday", "I'd been there before", "I'd already cancelled the order",
	"The ticket was closed yesterday", "Nobody touches the DNS without a change request", "Let's not use ORMs",
	"Let's go with Postgres", "The linter found 400 warnings", "It only took 5 minutes",
	"The migration only took two hours", "The migration went great", "I love doing yoga on Sundays",
	"We received your payment on March 3", "Thanks for contacting us, your ticket number is 4412",
	"Nothing serious, just a cold", "Looking forward to the trip to Japan in May", "Enjoy the ride is our slogan",
	"Fine dining is my thing", "We haven't decided between pnpm and npm yet",
}

func TestNotFactNearMisses(t *testing.T) {
	for _, text := range notFactNearMisses {
		c := Classify(text, testNow)
		if kind, key := NotFact(text, c); kind != "" {
			t.Errorf("NotFact(%q) = (%q, %q), want a fact; classified (%s, %s, %q)", text, kind, key, c.Durability, c.Category, c.Key)
		}
	}
}

// No text the classifier's own tests hold to be a fact is a not-fact: the
// axes cases and the paraphrases of the key tests.
func TestNotFactKeepsTheClassifierCases(t *testing.T) {
	texts := paraphraseTexts(t)
	if len(texts) < 50 {
		t.Fatalf("found %d paraphrases in keys_test.go, want the key test's groups", len(texts))
	}
	for _, tc := range axesCases {
		texts = append(texts, tc.text)
	}
	for _, text := range texts {
		c := Classify(text, testNow)
		if kind, key := NotFact(text, c); kind != "" {
			t.Errorf("NotFact(%q) = (%q, %q), want a fact; classified (%s, %s, %q)", text, kind, key, c.Durability, c.Category, c.Key)
		}
	}
}

// paraphraseTexts are the texts of TestClassifyKeyParaphrases, read from its
// source so that the guard follows the groups as they grow.
func paraphraseTexts(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "keys_test.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "TestClassifyKeyParaphrases" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if at, ok := lit.Type.(*ast.ArrayType); !ok || at.Len != nil || !isIdent(at.Elt, "string") {
				return true
			}
			for _, e := range lit.Elts {
				if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
					if s, err := strconv.Unquote(b.Value); err == nil {
						out = append(out, s)
					}
				}
			}
			return false
		})
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// A text of several sentences is no fact only when none of them is one.
func TestNotFactSentences(t *testing.T) {
	cases := []struct{ text, kind string }{
		{"Thanks! Closing the ticket.", NotFactAcknowledgement},
		{"Can you check the logs? Also ping Raj.", NotFactQuestion},
		{"Thanks! I live in Lyon.", ""},
		{"Incident closed. billing-db replication lag recovered.", ""},
		{"Ok. " + strings.Repeat("Thanks. ", 10), ""}, // a long text is a document
	}
	for _, tc := range cases {
		if kind, _ := NotFact(tc.text, Classify(tc.text, testNow)); kind != tc.kind {
			t.Errorf("NotFact(%q) = %q, want %q", tc.text, kind, tc.kind)
		}
	}
}

// FuzzNotFact: whatever the text, NotFact neither panics nor names a kind
// outside NotFactKinds, gives a key only to a negation, and is deterministic.
func FuzzNotFact(f *testing.F) {
	for _, texts := range notFactCases {
		for _, text := range texts {
			f.Add(text)
		}
	}
	for _, tc := range axesCases {
		f.Add(tc.text)
	}
	f.Add("oh, great, , ; : thanks for , but if i'd used to no longer any more?")
	f.Add("\xff\xfe don't \u2014 please: \u00e9 /s")
	f.Fuzz(func(t *testing.T, text string) {
		c := Classify(text, testNow)
		kind, key := NotFact(text, c)
		if kind != "" && !slices.Contains(NotFactKinds(), kind) {
			t.Fatalf("NotFact(%q) = %q, not a kind", text, kind)
		}
		if key != "" && (kind != NotFactNegation || IsGenericKey(key) || !keyRe.MatchString(key)) {
			t.Fatalf("NotFact(%q) = (%q, %q): a key only for a negation, never generic", text, kind, key)
		}
		if k2, key2 := NotFact(text, c); k2 != kind || key2 != key {
			t.Fatalf("NotFact(%q) is not deterministic", text)
		}
	})
}

// TestMayDenyHoldsEveryNegation: MayDeny, the cheap test before NotFact,
// holds for every text NotFact reads as a negation, and not for a plain
// statement.
func TestMayDenyHoldsEveryNegation(t *testing.T) {
	for _, text := range []string{"I no longer live in Berlin", "I'm not vegetarian anymore", "I don't work there any more",
		"Ana quit her job at Acme", "I moved out of Leeds", "We stopped using Jenkins", "I  no   longer drink coffee"} {
		if kind, _ := NotFact(text, Classify(text, testNow)); kind == NotFactNegation && !MayDeny(text) {
			t.Errorf("MayDeny(%q) = false for a negation", text)
		}
	}
	if MayDeny("I live in Berlin and work at Acme") {
		t.Error("MayDeny of a plain statement = true")
	}
}
