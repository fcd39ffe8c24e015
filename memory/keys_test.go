package memory

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The paraphrases of one fact get one key, whatever rule decides their axes,
// so that supersession and merging pair them.
func TestClassifyKeyParaphrases(t *testing.T) {
	groups := []struct {
		key   string
		texts []string
	}{
		{"occupation", []string{"I work as a nurse", "I'm a nurse", "my job is nursing", "Jordan is a nurse",
			"She works as a nurse", "My profession is nursing", "Is a software engineer", "I'm working as a teacher"}},
		{"home_city", []string{"I live in Denver", "I'm based in Denver", "I moved to Denver", "Lives in Austin",
			"Jordan lives in Denver", "I relocated to Denver", "Priya currently lives in Berlin", "I reside in Denver",
			"We're based out of Lyon"}},
		{"employer", []string{"I work at Acme", "I work for Acme", "Works at Acme as a support lead", "Employed by Acme"}},
		{"replication_lag", []string{"billing-db replication lag is 4 s", "billing-db replication lag recovered",
			"replication lag on billing-db back to 0.2 s", "Replication lag was 4 s yesterday",
			"billing-db replication lag is high", "Replica lag is back to normal", "replication lag is 4 s"}},
		{"p99_latency", []string{"The api-gateway p99 latency is 180 ms", "api-gateway p99 back under 120 ms",
			"Payments service p99 latency is 850 ms", "p99 latency recovered", "p99 is 300ms"}},
		{"latency", []string{"api-gateway latency is 300 ms", "latency is back to normal", "Latency is elevated"}},
		{"disk_usage", []string{"Ops: disk usage on db-2 is 91%", "disk usage is back under 80%"}},
		{"drink", []string{"I like tea", "Prefers coffee", "Likes her coffee black", "I drink a flat white every morning",
			"My favourite drink is tea", "Loves a good espresso"}},
		{"theme", []string{"Prefers dark mode", "I love dark mode", "Likes the light theme"}},
		{"seat", []string{"Prefers aisle seats", "Always books a window seat", "I prefer an aisle seat"}},
		{"contact_method", []string{"Would rather be contacted by email", "Doesn't like phone calls",
			"Customer prefers to be contacted via email, not phone"}},
		{"deploy_day", []string{"We deploy on Thursdays", "Deploys go out every Tuesday", "Releases ship on Fridays"}},
		{"work_schedule", []string{"Jordan works nights", "I work nights", "Works from home on Mondays",
			"I work the night shift"}},
		{"timezone", []string{"My timezone is CET", "I'm on Pacific time", "Time zone: UTC+2"}},
		{"medication", []string{"Takes medication at 9am", "Must take medication daily", "Takes her meds every evening"}},
		{"mood", []string{"I'm so tired today", "Feeling stressed", "Priya sounded frustrated"}},
		{"name", []string{"My name is Jordan", "Her name is Priya", "Goes by Jo"}},
		{"cilantro", []string{"Hates cilantro", "Loves cilantro", "Priya can't stand cilantro", "Doesn't like cilantro"}},
		{"status", []string{"The API is down", "The incident is resolved", "The API is back up", "INC-231 resolved"}},
	}
	for _, g := range groups {
		for _, text := range g.texts {
			c := Classify(text, classifyNow)
			if c.Key != g.key {
				t.Errorf("Classify(%q).Key = %q (%s, %s: %s), want %q", text, c.Key, c.Durability, c.Category, c.Reason, g.key)
			}
			checkClassification(t, text, c)
			checkTriggers(t, text)
		}
	}
}

// A recovery is a state of the moment on the key of what recovered; a
// recovery told as past is a record.
func TestClassifyRecovery(t *testing.T) {
	cases := []struct {
		text       string
		durability Durability
		category   string
		key        string
	}{
		{"billing-db replication lag recovered", Ephemeral, CategoryState, "replication_lag"},
		{"replication lag on billing-db back to 0.2 s", Ephemeral, CategoryState, "replication_lag"},
		{"The incident is resolved", Ephemeral, CategoryState, "status"},
		{"Jordan has recovered from the flu", Ephemeral, CategoryState, "health"},
		{"The outage was resolved yesterday", LongTerm, CategoryObservation, ""},
		{"I'm fine", LongTerm, CategoryObservation, ""},
		{"The API is up again", Ephemeral, CategoryState, "status"},
	}
	for _, tc := range cases {
		c := Classify(tc.text, classifyNow)
		if c.Durability != tc.durability || c.Category != tc.category || c.Key != tc.key {
			t.Errorf("Classify(%q) = (%s, %s, %q), want (%s, %s, %q); reason %s",
				tc.text, c.Durability, c.Category, c.Key, tc.durability, tc.category, tc.key, c.Reason)
		}
	}
	if !Resolves("It recovered at 10:05") || !Resolves("It's back to normal") || Resolves("It is down") {
		t.Errorf("Resolves does not tell recoveries from other states")
	}
}

func TestClassifySubjectOf(t *testing.T) {
	cases := []struct {
		text string
		kind SubjectKind
		name string
	}{
		{"I work nights", SubjectFirstPerson, ""},
		{"Remind me to call the bank", SubjectFirstPerson, ""},
		{"My name is Jordan", SubjectFirstPerson, ""},
		{"Hi, I am Jordan, a nurse in Denver.", SubjectFirstPerson, ""},
		{"Every morning I drink tea", SubjectFirstPerson, ""},
		{"Today, I'm tired", SubjectFirstPerson, ""},
		{"Coffee is my favourite drink", SubjectFirstPerson, ""},
		{"Jordan works nights", SubjectNamed, "Jordan"},
		{"Edmund Hale is a software engineer.", SubjectNamed, "Edmund Hale"},
		{"Maya's birthday is on 14 March.", SubjectNamed, "Maya"},
		{"Acme Robotics' data must stay in the EU region.", SubjectNamed, "Acme Robotics"},
		{"O'Brien works nights", SubjectNamed, "O'Brien"},
		{"billing-db replication lag is 4 s", SubjectNamed, "billing-db"},
		{"The api-gateway p99 latency is 180 ms", SubjectNamed, "api-gateway"},
		{"replication lag on billing-db back to 0.2 s", SubjectNamed, "billing-db"},
		{"Ops: disk usage on db-2 is 91%", SubjectNamed, "db-2"},
		{"Incident INC-231 is ongoing", SubjectNamed, "INC-231"},
		{"Payments service p99 latency is 850 ms", SubjectNamed, "Payments service"},
		{"GitHub Actions is flaky lately", SubjectNamed, "GitHub Actions"},
		{"My sister Maya lives in Porto", SubjectNamed, "Maya"},
		{"My sister lives in Porto", SubjectRelation, "sister"},
		{"User likes tea", SubjectUser, ""},
		{"The user prefers dark mode", SubjectUser, ""},
		{"She is feeling tired today!", SubjectPronoun, ""},
		{"It recovered at 10:05", SubjectPronoun, ""},
		{"We decided to use pnpm", SubjectGroup, ""},
		{"You should rest", SubjectAddressee, ""},
		{"The office wifi password is hunter2", SubjectThing, ""},
		{"Lives in Austin", SubjectNone, ""},
		{"Prefers dark mode", SubjectNone, ""},
		{"Feeling stressed today", SubjectNone, ""},
		{"Usually replies within an hour", SubjectNone, ""},
		{"Needs glasses", SubjectNone, ""},
		{"Call Jordan tomorrow", SubjectNone, ""},
		{"Staging is broken until the fix lands", SubjectNone, ""},
		{"Mood: grumpy", SubjectNone, ""},
		{"p99 latency is 300 ms", SubjectNone, ""},
		{"", SubjectNone, ""},
	}
	for _, tc := range cases {
		got := SubjectOf(tc.text)
		if got.Kind != tc.kind || got.Name != tc.name {
			t.Errorf("SubjectOf(%q) = %s %q, want %s %q", tc.text, got.Kind, got.Name, tc.kind, tc.name)
		}
	}
}

func FuzzClassifySubjectOf(f *testing.F) {
	for _, s := range []string{"Jordan works nights", "billing-db's lag is 4 s", "My sister Maya lives in Porto",
		"Hi Claude, I'm Jordan", "\xff\xfe I\u2019m", "The \u0130stanbul office is closed", strings.Repeat("A-db ", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := SubjectOf(text)
		if s.Kind == SubjectNamed || s.Kind == SubjectRelation {
			if strings.TrimSpace(s.Name) == "" || utf8.RuneCountInString(s.Name) > 200 {
				t.Fatalf("SubjectOf(%q) = %s %q", text, s.Kind, s.Name)
			}
			if utf8.ValidString(text) && !utf8.ValidString(s.Name) {
				t.Fatalf("SubjectOf(%q) names %q, not UTF-8", text, s.Name)
			}
		}
		if s.Kind != SubjectNamed && s.Kind != SubjectRelation && s.Name != "" {
			t.Fatalf("SubjectOf(%q) = %s with name %q", text, s.Kind, s.Name)
		}
	})
}
