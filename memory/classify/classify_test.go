package classify

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// testNow is a Monday.
var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

var axesCases = []struct {
	text       string
	durability Durability
	category   string
}{
	// Moods: passing feelings, never traits.
	{"I hate mornings", Ephemeral, CategoryMood},
	{"Feeling stressed today", Ephemeral, CategoryMood},
	{"Priya sounded frustrated", Ephemeral, CategoryMood},
	{"Edmund is tired today", Ephemeral, CategoryMood},
	{"annoyed right now", Ephemeral, CategoryMood},
	{"I’m exhausted", Ephemeral, CategoryMood},
	{"I'm a bit tired", Ephemeral, CategoryMood},
	{"Ugh, the build broke again", Ephemeral, CategoryMood},
	{"Feeling much better today", Ephemeral, CategoryMood},
	{"i'm sick of these flaky tests", Ephemeral, CategoryMood},
	{"Edmund is having a rough day", Ephemeral, CategoryMood},
	{"Mood: grumpy", Ephemeral, CategoryMood},
	{"User was in a good mood after the release", Ephemeral, CategoryMood},
	{"Priya is excited about the launch on Friday", Ephemeral, CategoryMood},
	{"Edmund hates Mondays", Ephemeral, CategoryMood},
	{"Customer got angry when the bot asked for the order number again", Ephemeral, CategoryMood},
	{"Edmund is not stressed anymore", Ephemeral, CategoryMood},
	{"We decided nothing yet and the team is frustrated", Ephemeral, CategoryMood},

	// States: now is ephemeral, bounded is short-term.
	{"Working on deadline for Friday", ShortTerm, CategoryState},
	{"Edmund is in Lisbon until Friday", ShortTerm, CategoryState},
	{"replication lag is 4 s", Ephemeral, CategoryState},
	{"deploy is rolling out, 40%", Ephemeral, CategoryState},
	{"Slack roll-up is still syncing -- ETA ~30s", Ephemeral, CategoryState},
	{"currently on a call", Ephemeral, CategoryState},
	{"Ops: disk usage on db-2 is 91%", Ephemeral, CategoryState},
	{"The API is down", Ephemeral, CategoryState},
	{"Priya is out of office until Monday", ShortTerm, CategoryState},
	{"Is on parental leave until March", ShortTerm, CategoryState},
	{"Is on vacation this week", ShortTerm, CategoryState},
	{"Edmund is working from home today", Ephemeral, CategoryState},
	{"Priya is sick today", Ephemeral, CategoryState},
	{"Priya is off sick this week", ShortTerm, CategoryState},
	{"Is blocked on the legal review", ShortTerm, CategoryState},
	{"The deploy that started at 9 is still rolling out", Ephemeral, CategoryState},
	{"Is travelling to Tokyo next week", ShortTerm, CategoryState},
	{"Edmund is working on a tight deadline for the board deck", ShortTerm, CategoryState},
	{"Edmund is the on-call engineer this week", ShortTerm, CategoryState},
	{"Incident INC-231 is ongoing, mitigation in progress", Ephemeral, CategoryState},
	{"Payments service p99 latency is 850 ms", Ephemeral, CategoryState},
	{"Staging is broken until the fix lands", ShortTerm, CategoryState},
	{"The VPN has been flaky lately", ShortTerm, CategoryState},

	// Identity: biography and lasting traits.
	{"Is an introvert", Permanent, CategoryIdentity},
	{"I'm a software engineer", Permanent, CategoryIdentity},
	{"Was born in Leeds", Permanent, CategoryIdentity},
	{"Is allergic to penicillin", Permanent, CategoryIdentity},
	{"My name is Edmund", Permanent, CategoryIdentity},
	{"Native language is Portuguese", Permanent, CategoryIdentity},
	{"Priya is a vegetarian", Permanent, CategoryIdentity},
	{"Edmund is the CTO of Acme", Permanent, CategoryIdentity},
	{"She’s a nurse at St Mary's", Permanent, CategoryIdentity},
	{"Edmund is a night owl", Permanent, CategoryIdentity},
	{"Priya is an anxious person", Permanent, CategoryIdentity},
	{"Grew up in Porto", Permanent, CategoryIdentity},

	// Decisions.
	{"We decided to use pnpm, not npm", Permanent, CategoryDecision},
	{"We use pnpm not npm for openclaw", Permanent, CategoryDecision},
	{"The team agreed to keep the nightly build", Permanent, CategoryDecision},
	{"Going with Postgres instead of MySQL", Permanent, CategoryDecision},
	{"Settled on weekly releases", Permanent, CategoryDecision},
	{"We decided to meet every Monday", Permanent, CategoryDecision},
	{"Decision: keep Postgres over MySQL because the team knows it", Permanent, CategoryDecision},
	{"Instead of npm, we use pnpm", Permanent, CategoryDecision},
	{"Use pnpm, not npm.", Permanent, CategoryDecision},
	{"We will not use MongoDB", Permanent, CategoryDecision},
	{"It was agreed that refunds over $100 need approval", Permanent, CategoryDecision},
	{"Priya decided to cancel her subscription", Permanent, CategoryDecision},
	{"Because npm broke twice, we decided to switch to pnpm", Permanent, CategoryDecision},
	{"We'll be using pnpm instead of npm", Permanent, CategoryDecision},
	{"The venue is to be decided", LongTerm, CategoryObservation},
	{"Let's go with Stripe over Adyen for payments", Permanent, CategoryDecision},
	{"We will stick with Python 3.12 rather than 3.13 until numpy supports it", Permanent, CategoryDecision},
	{"The team decided that PRs need two approvals", Permanent, CategoryDecision},

	// Obligations.
	{"Must present at the conference on May 15", ShortTerm, CategoryObligation},
	{"Present at conference May 15", ShortTerm, CategoryObligation},
	{"Needs to file taxes by 2026-12-31", ShortTerm, CategoryObligation},
	{"The Q3 report is due Friday", ShortTerm, CategoryObligation},
	{"Promised to call back tomorrow", ShortTerm, CategoryObligation},
	{"Remind me to renew the passport in two weeks", ShortTerm, CategoryObligation},
	{"Deadline for the grant is the end of the month", ShortTerm, CategoryObligation},
	{"Has a dentist appointment on Friday at 2pm", ShortTerm, CategoryObligation},
	{"Customer agreed to a call on Friday", ShortTerm, CategoryObligation},
	{"Submit expenses by next Monday", ShortTerm, CategoryObligation},
	{"Needs to update the runbook", ShortTerm, CategoryObligation},
	{"Her contract ends on 31 March 2027", ShortTerm, CategoryObligation},
	{"Priya would like a callback tomorrow morning", ShortTerm, CategoryObligation},
	{"Rotate the API key by Friday", ShortTerm, CategoryObligation},
	{"Trial expires in 14 days", ShortTerm, CategoryObligation},

	// Routines.
	{"Takes medication at 9am", LongTerm, CategoryRoutine},
	{"Runs every Tuesday", LongTerm, CategoryRoutine},
	{"Goes to the gym every morning", LongTerm, CategoryRoutine},
	{"Works from home on Mondays", LongTerm, CategoryRoutine},
	{"Usually replies within an hour", LongTerm, CategoryRoutine},
	{"Must take medication daily", LongTerm, CategoryRoutine},
	{"Backups run nightly at 2am", LongTerm, CategoryRoutine},
	{"Edmund is usually grumpy in the mornings", LongTerm, CategoryRoutine},
	{"Must submit the timesheet every Friday", LongTerm, CategoryRoutine},
	{"The release train leaves every other Thursday", LongTerm, CategoryRoutine},
	{"On-call handover happens on Mondays at 10:00", LongTerm, CategoryRoutine},
	{"The API key rotates every 90 days", LongTerm, CategoryRoutine},

	// Preferences.
	{"Prefers dark mode", LongTerm, CategoryPreference},
	{"Likes her coffee black", LongTerm, CategoryPreference},
	{"Priya hates being put on hold", LongTerm, CategoryPreference},
	{"Favourite editor is Helix", LongTerm, CategoryPreference},
	{"Would rather be contacted by email", LongTerm, CategoryPreference},
	{"Always uses the staging cluster for demos", LongTerm, CategoryPreference},
	{"Doesn't like phone calls", LongTerm, CategoryPreference},
	{"Is a big fan of Formula 1", LongTerm, CategoryPreference},
	{"I love dark mode", LongTerm, CategoryPreference},
	{"Edmund is a huge Arsenal fan", LongTerm, CategoryPreference},
	{"Customer prefers to be contacted via email, not phone", LongTerm, CategoryPreference},

	// Observations and near misses.
	{"Lives in Austin", LongTerm, CategoryObservation},
	{"Works at Acme as a support lead", LongTerm, CategoryObservation},
	{"We haven't decided between pnpm and npm yet", LongTerm, CategoryObservation},
	{"Priya is happy to help with onboarding", LongTerm, CategoryObservation},
	{"Replication lag was 4 s yesterday", LongTerm, CategoryObservation},
	{"Priya doesn't need to file taxes this year", LongTerm, CategoryObservation},
	{"Uses Firefox, not Chrome", LongTerm, CategoryObservation},
	{"We've used pnpm since 2024", LongTerm, CategoryObservation},
	{"Customer called today about billing", LongTerm, CategoryObservation},
	{"Priya currently lives in Berlin", LongTerm, CategoryObservation},
	{"The migration is a blocker for the release", LongTerm, CategoryObservation},
	{"Moody's rated the bond AA", LongTerm, CategoryObservation},
	{"It works as expected", LongTerm, CategoryObservation},
	{"Must have missed the email", LongTerm, CategoryObservation},
	{"Priya joined Acme on May 15", LongTerm, CategoryObservation},
	{"Edmund agreed with the diagnosis", LongTerm, CategoryObservation},
	{"Nothing has been decided about the logo", LongTerm, CategoryObservation},
	{"The order shipped with a damaged box", LongTerm, CategoryObservation},
	{"Customer is on the Pro plan", LongTerm, CategoryObservation},
	{"Customer's refund was processed on Nov 12", LongTerm, CategoryObservation},
	{"Priya is the account owner", LongTerm, CategoryObservation},
	{"", LongTerm, CategoryObservation},
	{" \t\n ", LongTerm, CategoryObservation},
}

func TestClassifyAxes(t *testing.T) {
	for _, tc := range axesCases {
		c := Classify(tc.text, testNow)
		if c.Durability != tc.durability || c.Category != tc.category {
			t.Errorf("Classify(%q) = (%s, %s), want (%s, %s); reason: %s",
				tc.text, c.Durability, c.Category, tc.durability, tc.category, c.Reason)
		}
		if c.Reason == "" {
			t.Errorf("Classify(%q).Reason is empty", tc.text)
		}
		checkTriggers(t, tc.text)
	}
}

func TestClassifyEmpty(t *testing.T) {
	for _, text := range []string{"", "   ", "\n\t\u00a0\u200b"} {
		c := Classify(text, testNow)
		if c.Reason != "empty text" || c.Category != CategoryObservation || c.Durability != LongTerm {
			t.Errorf("Classify(%q) = %+v, want a long_term observation with reason \"empty text\"", text, c)
		}
	}
}

func TestClassifyKeysAndReasons(t *testing.T) {
	cases := []struct {
		text, key, reason string
	}{
		{"Feeling stressed today", "mood", `mood word "stressed"`},
		{"I hate mornings", "mood", `mood phrase "I hate"`},
		// Keys name what the fact is about (keys.go): lives_in, prefers,
		// dislikes and routine were the old keys of the next four, which
		// made every preference (every routine) of an entity supersede the
		// last one.
		{"Lives in Austin", "home_city", `observation "Lives in"`},
		{"Prefers dark mode", "theme", `preference "Prefers"`},
		{"Hates cilantro", "cilantro", `preference "Hates"`},
		{"Was born in Leeds", "born_in", `identity phrase "Was born in"`},
		{"Is allergic to penicillin", "allergy", `identity phrase "allergic to"`},
		{"Must present at the conference on May 15", "deadline", `obligation phrase "Must", date "May 15"`},
		{"Needs to update the runbook", "obligation", `obligation phrase "Needs to", no date`},
		{"We decided to use pnpm, not npm", "choice_npm_pnpm", `decision phrase "decided to"`},
		{"We use npm, not pnpm", "choice_npm_pnpm", `decision phrase "use"`},
		{"We decided to meet every Monday", "meet_every_monday", `decision phrase "decided to"`},
		{"Runs every Tuesday", "routine", `routine "every Tuesday"`},
		{"Must take medication daily", "medication", `recurring duty "daily"`},
		{"replication lag is 4 s", "replication_lag", `reading "replication lag is 4 s"`},
		{"currently on a call", "availability", `current state "currently"`},
		{"Edmund is in Lisbon until Friday", "location", `bounded state "until"`},
		{"The office wifi password is hunter2", "", "no rule matched: a general observation"},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if c.Key != tc.key || c.Reason != tc.reason {
			t.Errorf("Classify(%q) = key %q reason %q, want key %q reason %q", tc.text, c.Key, c.Reason, tc.key, tc.reason)
		}
	}
}

func TestClassifyDeadline(t *testing.T) {
	day := func(y int, m time.Month, d int) *time.Time {
		t := time.Date(y, m, d, 23, 59, 59, 0, time.UTC)
		return &t
	}
	at := func(y int, m time.Month, d, h, mi int) *time.Time {
		t := time.Date(y, m, d, h, mi, 0, 0, time.UTC)
		return &t
	}
	if testNow.Weekday() != time.Monday {
		t.Fatalf("testNow is a %s, the cases assume a Monday", testNow.Weekday())
	}
	cases := []struct {
		text string
		want *time.Time
	}{
		{"Must present at the conference on May 15", day(2027, 5, 15)},
		{"Needs to file taxes by 2026-12-31", day(2026, 12, 31)},
		{"Invoice due on 2026-12-10T17:00", at(2026, 12, 10, 17, 0)},
		{"Deadline: 2026-12-31T15:00", at(2026, 12, 31, 15, 0)},
		{"Launch is on 2026-12-15T09:00+02:00", at(2026, 12, 15, 7, 0)},
		{"Has to send the contract by Jan 5", day(2027, 1, 5)},
		{"RSVP by 15 December", day(2026, 12, 15)},
		{"Must submit the grant by May 15th, 2027", day(2027, 5, 15)},
		{"Must pay rent by 1 Jan 2027", day(2027, 1, 1)},
		{"Must submit the form by Nov 30", day(2026, 11, 30)},
		{"Must submit the form by Nov 29", day(2027, 11, 29)},
		{"The conference is on Feb 29", day(2028, 2, 29)},
		{"The Q3 report is due Friday", day(2026, 12, 4)},
		{"Must call the supplier on Monday", day(2026, 12, 7)},
		{"Submit expenses by next Monday", day(2026, 12, 7)},
		{"Has to submit the report this Friday", day(2026, 12, 4)},
		{"Promised to call back tomorrow", day(2026, 12, 1)},
		{"Needs to ship the fix the day after tomorrow", day(2026, 12, 2)},
		{"Needs to reply today", day(2026, 11, 30)},
		{"Remember to water the plants tonight", day(2026, 11, 30)},
		{"Must renew the certificate in 3 days", day(2026, 12, 3)},
		{"Remind me to renew the passport in two weeks", day(2026, 12, 14)},
		{"Needs to renew the lease in 2 months", day(2027, 1, 30)},
		{"Deadline for the grant is the end of the month", day(2026, 11, 30)},
		{"Report due end of week", day(2026, 12, 4)},
		{"We need to migrate off CentOS by end of year", day(2026, 12, 31)},
		{"Has a dentist appointment on Friday at 2pm", at(2026, 12, 4, 14, 0)},
		{"Call with Acme at 3pm tomorrow", at(2026, 12, 1, 15, 0)},
		{"Needs to call the bank at 4pm", at(2026, 11, 30, 16, 0)},
		{"Needs to call the bank by 9am", at(2026, 12, 1, 9, 0)},
		{"Has to pick up the kids by midnight", day(2026, 11, 30)},
		{"Must file by Feb 30", nil},
		{"Needs to update the runbook", nil},
		{"Working on deadline for Friday", nil}, // a state: no deadline
		{"Edmund is in Lisbon until Friday", nil},
		{"We decided to ship on Friday", nil}, // a decision: no deadline
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		switch {
		case tc.want == nil && c.Deadline != nil:
			t.Errorf("Classify(%q).Deadline = %s, want nil", tc.text, c.Deadline.Format(time.RFC3339))
		case tc.want != nil && c.Deadline == nil:
			t.Errorf("Classify(%q).Deadline = nil, want %s (got %s, %s: %s)", tc.text, tc.want.Format(time.RFC3339), c.Durability, c.Category, c.Reason)
		case tc.want != nil && !c.Deadline.Equal(*tc.want):
			t.Errorf("Classify(%q).Deadline = %s, want %s", tc.text, c.Deadline.Format(time.RFC3339), tc.want.Format(time.RFC3339))
		}
		if c.Deadline != nil && c.Deadline.Location() != time.UTC {
			t.Errorf("Classify(%q).Deadline is in %s, want UTC", tc.text, c.Deadline.Location())
		}
	}
}

// A now in another zone is read in UTC.
func TestClassifyDeadlineZone(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	now := time.Date(2026, 12, 1, 2, 0, 0, 0, tokyo) // 2026-11-30 17:00 UTC
	c := Classify("Promised to call back tomorrow", now)
	want := time.Date(2026, 12, 1, 23, 59, 59, 0, time.UTC)
	if c.Deadline == nil || !c.Deadline.Equal(want) {
		t.Errorf("Classify(tomorrow, %s).Deadline = %v, want %s", now, c.Deadline, want)
	}
}

func TestClassifyDecisionDetails(t *testing.T) {
	cases := []struct {
		text         string
		alternatives []string
		reasoning    string
	}{
		{"We decided to use pnpm, not npm", []string{"npm"}, ""},
		{"We use pnpm not npm for openclaw", []string{"npm"}, ""},
		{"Going with Postgres instead of MySQL", []string{"MySQL"}, ""},
		{"We're going with Postgres rather than MySQL or MongoDB so that we keep SQL", []string{"MySQL", "MongoDB"}, "we keep SQL"},
		{"Decision: keep Postgres over MySQL because the team knows it", []string{"MySQL"}, "the team knows it"},
		{"We chose Go over Rust since the team already knows it", []string{"Rust"}, "the team already knows it"},
		{"Since npm kept corrupting the lockfile, we decided to switch to pnpm", nil, "npm kept corrupting the lockfile"},
		{"We switched from Jenkins to GitHub Actions because the runners were flaky", []string{"Jenkins"}, "the runners were flaky"},
		{"We decided against Kubernetes for now, as it is overkill for three services", []string{"Kubernetes"}, "it is overkill for three services"},
		{"We decided to use Redis as the cache", nil, ""},
		{"We decided to use Redis as it is already deployed", nil, "it is already deployed"},
		{"We decided to use pnpm — not npm — because of disk usage.", []string{"npm"}, "disk usage"},
		{"We’ve decided on Vite rather than Webpack; reason: faster builds", []string{"Webpack"}, "faster builds"},
		{"we decided not to reopen the pricing discussion", nil, ""},
		{"The team agreed to keep the nightly build over the weekend", nil, ""},
		{"Instead of npm, we use pnpm", []string{"npm"}, ""},
		{"We will not use MongoDB", []string{"MongoDB"}, ""},
		{"We ruled out MongoDB and Cassandra", []string{"MongoDB", "Cassandra"}, ""},
		{"We've decided to standardise on Go over Python and Rust, since hiring is easier", []string{"Python", "Rust"}, "hiring is easier"},
		{"We agreed to ship weekly since 2025", nil, ""},
		{"We will stick with Python 3.12 rather than 3.13 until numpy supports it", []string{"3.13"}, ""},
		{"We're using Terraform instead of Pulumi because the team knows HCL", []string{"Pulumi"}, "the team knows HCL"},
	}
	for _, tc := range cases {
		c := Classify(tc.text, testNow)
		if c.Category != CategoryDecision {
			t.Errorf("Classify(%q) = (%s, %s), want a decision", tc.text, c.Durability, c.Category)
			continue
		}
		if !slices.Equal(c.Alternatives, tc.alternatives) {
			t.Errorf("Classify(%q).Alternatives = %q, want %q", tc.text, c.Alternatives, tc.alternatives)
		}
		if c.Reasoning != tc.reasoning {
			t.Errorf("Classify(%q).Reasoning = %q, want %q", tc.text, c.Reasoning, tc.reasoning)
		}
	}
}

// Only decisions carry alternatives and reasoning; only obligations carry a
// deadline.
func TestClassifyExtrasOnlyWhereTheyBelong(t *testing.T) {
	for _, tc := range axesCases {
		c := Classify(tc.text, testNow)
		if c.Category != CategoryDecision && (c.Alternatives != nil || c.Reasoning != "") {
			t.Errorf("Classify(%q) is a %s with alternatives %q and reasoning %q", tc.text, c.Category, c.Alternatives, c.Reasoning)
		}
		if c.Category != CategoryObligation && c.Deadline != nil {
			t.Errorf("Classify(%q) is a %s with a deadline", tc.text, c.Category)
		}
	}
}

func TestClassifyDeterministic(t *testing.T) {
	for _, tc := range axesCases {
		first := Classify(tc.text, testNow)
		for range 3 {
			if again := Classify(tc.text, testNow); !reflect.DeepEqual(first, again) {
				t.Errorf("Classify(%q) = %+v, then %+v", tc.text, first, again)
			}
		}
	}
}

// The classifier reads only a bounded prefix of very long texts, which
// its beginning decides. A long text is no bare statement: it is never a
// mood, however it begins.
func TestClassifyLongText(t *testing.T) {
	filler := strings.Repeat("Lorem ipsum dolor sit amet. ", 10000)
	c := Classify("We decided to use pnpm, not npm. "+filler, testNow)
	if c.Category != CategoryDecision {
		t.Errorf("Classify(long text) = (%s, %s), want (permanent, decision)", c.Durability, c.Category)
	}
	c = Classify("Feeling stressed today. "+filler, testNow)
	if c.Category == CategoryMood || IsGenericKey(c.Key) {
		t.Errorf("Classify(long text) = (%s, %s, %q), want no mood and no generic key", c.Durability, c.Category, c.Key)
	}
}

var (
	categoryRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)
	keyRe      = regexp.MustCompile(`^[a-z0-9_]{0,64}$`)
)

func checkClassification(t *testing.T, text string, c Classification) {
	t.Helper()
	if !slices.Contains([]Durability{Permanent, LongTerm, ShortTerm, Ephemeral}, c.Durability) {
		t.Errorf("Classify(%q).Durability = %q", text, c.Durability)
	}
	if !categoryRe.MatchString(c.Category) {
		t.Errorf("Classify(%q).Category = %q", text, c.Category)
	}
	if !keyRe.MatchString(c.Key) {
		t.Errorf("Classify(%q).Key = %q", text, c.Key)
	}
	if c.Deadline != nil && c.Category != CategoryObligation {
		t.Errorf("Classify(%q) has a deadline but is a %s", text, c.Category)
	}
	if (c.Alternatives != nil || c.Reasoning != "") && c.Category != CategoryDecision {
		t.Errorf("Classify(%q) has alternatives or reasoning but is a %s", text, c.Category)
	}
	if c.Reason == "" {
		t.Errorf("Classify(%q).Reason is empty", text)
	}
	for _, s := range append([]string{c.Reason, c.Reasoning}, c.Alternatives...) {
		if !utf8.ValidString(s) {
			t.Errorf("Classify(%q) returned invalid UTF-8 %q", text, s)
		}
	}
	for _, a := range c.Alternatives {
		if strings.TrimSpace(a) == "" {
			t.Errorf("Classify(%q) returned an empty alternative", text)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, tc := range axesCases {
		f.Add(tc.text, int64(0))
	}
	f.Add("We decided, not , instead of over against rather than because since as", int64(-1))
	f.Add("due to be by 2026-02-31T25:61+99:99 on feb 29 in 999 years at 13pm", int64(1<<40))
	f.Add("\xff\xfe I\u2019m \u0130stanbul \u212a feeling down \u2014 not npm", int64(42))
	f.Fuzz(func(t *testing.T, text string, secs int64) {
		now := time.Unix(secs%(1<<36), 0)
		c := Classify(text, now)
		checkClassification(t, text, c)
		checkTriggers(t, text)
		if again := Classify(text, now); !reflect.DeepEqual(c, again) {
			t.Errorf("Classify(%q) is not deterministic: %+v then %+v", text, c, again)
		}
	})
}

var benchTexts = []string{
	"I hate mornings",
	"Feeling stressed today",
	"Edmund is in Lisbon until Friday",
	"Slack roll-up is still syncing -- ETA ~30s",
	"Is an introvert",
	"We decided to use pnpm, not npm, because it saves disk space",
	"Takes medication at 9am",
	"Must present at the conference on May 15",
	"Prefers dark mode",
	"Lives in Austin",
	"Customer asked about the refund policy for annual plans and was told to email billing",
	"replication lag is 4 s",
}

func BenchmarkClassify(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Classify(benchTexts[i%len(benchTexts)], testNow)
	}
}

// BenchmarkClassifyLongText is the worst case the caps are for: 16 KiB of
// near misses that each rule would otherwise examine one by one.
func BenchmarkClassifyLongText(b *testing.B) {
	text := strings.Repeat("we use x, and agreed happy to ", 600)
	b.ReportAllocs()
	for b.Loop() {
		Classify(text, testNow)
	}
}

// triggerChecks pairs each pattern with the check that its trigger words
// are present whenever it matches; the classifier skips a pattern otherwise.
var triggerChecks = []struct {
	name string
	re   *regexp.Regexp
	ok   func(flags) bool
}{
	{"decided", decidedRe, func(f flags) bool { return f&fDecided != 0 }},
	{"agreed", agreedRe, func(f flags) bool { return f&fAgreed != 0 }},
	{"choice", choiceRe, func(f flags) bool { return f&fChoice != 0 }},
	{"mood phrase", moodPhraseRe, func(f flags) bool { return f&fMood != 0 }},
	{"feel", feelRe, func(f flags) bool { return f&fMood != 0 }},
	{"mood word", moodWordRe, func(f flags) bool { return f&fMood != 0 }},
	{"identity", identityRe, func(f flags) bool { return f&fIdentity != 0 || f&fWork != 0 && f&fAs != 0 }},
	{"obligation", obligationRe, func(f flags) bool { return f&fObligation != 0 }},
	{"recurrence", recurRe, func(f flags) bool { return f&fRecur != 0 }},
	{"past", pastRe, func(f flags) bool { return f&fPast != 0 }},
	{"today", todayRe, func(f flags) bool { return f&fToday != 0 }},
	{"present", presentRe, func(f flags) bool { return f&fPresent != 0 }},
	{"bounded", boundedRe, func(f flags) bool { return f&fBounded != 0 }},
	{"for", forRe, func(f flags) bool { return f&fBounded != 0 }},
	{"reading", readingRe, func(f flags) bool { return f&fReading != 0 }},
	{"preference", preferenceRe, func(f flags) bool { return f&fPreference != 0 }},
	{"observation", observationRe, func(f flags) bool { return f&fObservation != 0 }},
	{"metric", metricRe, func(f flags) bool { return f&fReading != 0 }},
	{"resolved", resolvedRe, func(f flags) bool { return f&fResolved != 0 }},
	{"work schedule", workScheduleRe, func(f flags) bool { return f&fWork != 0 }},
	{"clock at", atClockRe, func(f flags) bool { return f&fDate != 0 }},
	{"iso date", isoDateRe, func(f flags) bool { return f&fDate != 0 && f&fDigit != 0 }},
	{"month day", monthDayRe, func(f flags) bool { return f&fDate != 0 && f&(fMonth|fDigit) == fMonth|fDigit }},
	{"day month", dayMonthRe, func(f flags) bool { return f&fDate != 0 && f&(fMonth|fDigit) == fMonth|fDigit }},
	{"weekday", weekdayRe, func(f flags) bool { return f&fDate != 0 && f&fWeekday != 0 }},
	{"relative day", relDayRe, func(f flags) bool { return f&fDate != 0 && f&fRelDay != 0 }},
	{"in n", inNRe, func(f flags) bool { return f&fDate != 0 && f&fUnit != 0 }},
	{"period", periodRe, func(f flags) bool { return f&fDate != 0 && f&fPeriod != 0 }},
	{"clock", clockRe, func(f flags) bool { return f&fDate != 0 && f&(fDigit|fClockWord) != 0 }},
	{"month only", monthOnlyRe, func(f flags) bool { return f&fDate != 0 && f&fMonth != 0 }},
	{"ordinal day", ordinalDayRe, func(f flags) bool { return f&fDate != 0 && f&fDigit != 0 }},
	{"status quo", statusQuoRe, func(f flags) bool { return f&fChoice != 0 }},
	{"shifts", shiftRe, func(f flags) bool { return f&fWork != 0 }},
	{"day clock", dayClockRe, func(f flags) bool { return f&fDigit != 0 }},
	{"rule order", ruleOrderRe, func(f flags) bool { return f&(fRecur|fPreference) != 0 }},
	{"asked rule", askedRuleRe, func(f flags) bool { return f&(fRecur|fPreference) != 0 }},
	{"dislike", dislikeRe, func(f flags) bool { return f&fMood != 0 }},
	{"stated preference", statedPrefRe, func(f flags) bool { return f&fPreference != 0 }},
	{"errand", errandRe, func(f flags) bool { return f&fPast != 0 }},
	{"mishap", mishapRe, func(f flags) bool { return f&fPast != 0 }},
	{"commitment", commitRe, func(f flags) bool { return f&fFuture != 0 }},
	{"manner", mannerRe, func(f flags) bool { return f&fTaste != 0 }},
}

// checkTriggers fails when a pattern matches text whose trigger words the
// scan missed.
func checkTriggers(t *testing.T, text string) {
	t.Helper()
	ct := normalize(text)
	for _, tr := range triggerChecks {
		if tr.re.MatchString(ct.norm) && !tr.ok(ct.flags) {
			t.Errorf("pattern %s matches %q but its trigger words were not seen (flags %b)", tr.name, ct.norm, ct.flags)
		}
	}
}

// genMatch writes a random string matched by re into b.
func genMatch(b *strings.Builder, re *syntax.Regexp, r *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return
		}
		i := r.IntN(len(re.Rune)/2) * 2
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi-lo > 200 {
			hi = lo + 200
		}
		b.WriteRune(lo + rune(r.IntN(int(hi-lo)+1)))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(" x-'é,"[r.IntN(6)])
	case syntax.OpCapture:
		genMatch(b, re.Sub[0], r)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			genMatch(b, s, r)
		}
	case syntax.OpAlternate:
		genMatch(b, re.Sub[r.IntN(len(re.Sub))], r)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 2
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+3 {
				hi = lo + 3
			}
		}
		for range lo + r.IntN(hi-lo+1) {
			genMatch(b, re.Sub[0], r)
		}
	}
}

// TestClassifyTriggers generates texts from every pattern, with random
// neighbours, and checks that the word scan sees their triggers.
func TestClassifyTriggers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	around := []string{"", " ", "x", "-", "'", "…", "é", ",", "2"}
	for _, tr := range triggerChecks {
		parsed, err := syntax.Parse(tr.re.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		parsed = parsed.Simplify()
		matched := 0
		for range 3000 {
			var b strings.Builder
			b.WriteString(around[r.IntN(len(around))])
			genMatch(&b, parsed, r)
			b.WriteString(around[r.IntN(len(around))])
			text := b.String()
			ct := normalize(text)
			if !tr.re.MatchString(ct.norm) {
				continue
			}
			matched++
			if !tr.ok(ct.flags) {
				t.Errorf("pattern %s matches %q but its trigger words were not seen", tr.name, ct.norm)
			}
		}
		if matched < 300 {
			t.Errorf("pattern %s: only %d of 3000 generated texts matched", tr.name, matched)
		}
	}
}
