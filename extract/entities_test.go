package extract

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory"
)

var entitiesNow = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

func TestFoldName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Ana Ruiz", "ana ruiz"},
		{"ANA RUIZ", "ana ruiz"},
		{"ana  ruiz", "ana ruiz"},
		{"Ana\tRuiz", "ana ruiz"},
		{"  Ana \t\n Ruiz  ", "ana ruiz"},
		{"Zoë", "zoe"},
		{"Zoe\u0308", "zoe"}, // ë written as e and a combining diaeresis
		{"José Núñez", "jose nunez"},
		{"Müller", "muller"},
		{"MÜLLER", "muller"},
		{"Ñuñoa", "nunoa"},
		{"François", "francois"},
		{"Søren Kierkegaard", "soren kierkegaard"}, // ø has no accent to drop: it is mapped to o
		{"Øresund", "oresund"},
		{"Łukasz", "lukasz"},
		{"Straße", "strasse"},
		{"Ægir", "aegir"},
		{"O’Brien", "o'brien"},
		{"billing-db", "billing-db"},
		{"ACME Robotics", "acme robotics"},
		{"Đorđe", "dorde"},
		{"", ""},
		{" \t ", ""},
		{"東京", "東京"},
	}
	for _, tt := range tests {
		if got := foldName(tt.in); got != tt.want {
			t.Errorf("foldName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// entitiesOf runs the rule-based extractor and returns the entity of each
// candidate, checking that every rewritten candidate's reason says so.
func entitiesOf(t *testing.T, text, entity, speaker string) []string {
	t.Helper()
	cands, err := Rules{}.ExtractAs(context.Background(), text, entity, speaker, entitiesNow)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cands {
		out = append(out, c.Entity)
		if c.Entity == "" || strings.Contains(c.Reason, "; about "+c.Entity+" (") {
			continue
		}
		if !strings.Contains(c.Reason, " is "+c.Entity) && !strings.Contains(c.Reason, "; about "+c.Entity+", the speaker's ") {
			t.Errorf("%q: candidate %q on %q, with a reason that does not say why: %s", text, c.Content, c.Entity, c.Reason)
		}
	}
	return out
}

// TestRulesOneEntityPerName: the names a snippet gives one person, company
// or service (case, white space, accents, a first name, a speaker's label,
// a relation once named) land on one entity, and different people who
// share a first name stay apart.
func TestRulesOneEntityPerName(t *testing.T) {
	tests := []struct {
		name, text, entity, speaker string
		want                        []string
	}{
		// A first name alone is the full name the snippet gives.
		{"ops: a first name after the full name",
			"Ana Ruiz is the incident commander. Ana paged the DBA at 02:10.", "", "",
			[]string{"Ana Ruiz", "Ana Ruiz"}},
		{"ops: a first name before the full name",
			"Jun is on call tonight. Jun Park owns the payments-api runbook.", "", "",
			[]string{"Jun Park", "Jun Park"}},
		{"a full name in passing",
			"I paired with Ana Ruiz today. Ana works nights.", "", "",
			[]string{memory.UserEntity, "Ana Ruiz"}},
		{"personal: the full name is lowercase once",
			"Ana Ruiz is the incident commander. Ana paged the DBA. ana ruiz closed the bridge at 10:40.", "", "",
			[]string{"Ana Ruiz", "Ana Ruiz", "Ana Ruiz"}},
		{"support: my boss, then a first name",
			"User: My boss Sam Lee wants the report by Friday. Sam is strict about deadlines.", "", "",
			[]string{"Sam Lee", "Sam Lee"}},

		// Two full names share the first name: it stays as written.
		{"two full names in one sentence",
			"Ana Ruiz and Ana Lopez joined. Ana works nights.", "", "",
			[]string{"", "Ana"}},
		{"two full names in two sentences",
			"Priya Shah is on leave. Priya Patel covers billing. Priya works from Pune.", "", "",
			[]string{"Priya Shah", "Priya Patel", "Priya"}},
		{"two full names across turns",
			"Mei Lin joined Globex. Mei lives in Taipei.\nMei Chen is her manager.", "", "",
			[]string{"Mei Lin", "Mei", "Mei Chen"}},

		// Case, white space and accents.
		{"personal: accents", "Zoë lives in Lyon. Zoe works at Initech.", "", "",
			[]string{"Zoë", "Zoë"}},
		{"personal: accents kept when written second", "Zoe lives in Lyon. Zoë works at Initech.", "", "",
			[]string{"Zoë", "Zoë"}},
		{"accents, shouting and a letter without an accent",
			"Björn works at Spotify. Bjorn prefers Slack. BJÖRN lives in Malmö. Soren moved to Aarhus. Søren prefers tea.", "", "",
			[]string{"Björn", "Björn", "Björn", "Søren", "Søren"}},
		{"support: a company's spellings",
			"ACME Robotics renewed the contract. Acme Robotics pays annually.", "", "",
			[]string{"ACME Robotics", "ACME Robotics"}},
		{"a shouted company name gives way",
			"ACME ROBOTICS renewed the contract. Acme Robotics pays annually.", "", "",
			[]string{"Acme Robotics", "Acme Robotics"}},
		{"a company's short name", "Acme Robotics signed the renewal. Acme pays annually.", "", "",
			[]string{"Acme Robotics", "Acme Robotics"}},
		{"names with accents",
			"José Núñez is the on-call engineer. Jose Nunez prefers Slack. José works nights.", "", "",
			[]string{"José Núñez", "José Núñez", "José Núñez"}},

		// Speakers' labels are names.
		{"a label and a full name",
			"Ana: I work nights.\nBen: Ana Ruiz is on call this week.", "", "",
			[]string{"Ana Ruiz", "Ana Ruiz"}},
		{"a full name's label",
			"Ana Ruiz: I'm on call this week.\nBen: Ana works nights.", "", "",
			[]string{"Ana Ruiz", "Ana Ruiz"}},
		{"support: an introduction, then a first name",
			"Customer: My name is Dana Whitfield.\nAgent: Thanks Dana!\nCustomer: Dana here again, the export is still failing.", "", "",
			[]string{"Dana Whitfield", "Dana Whitfield"}},

		// The caller's names are kept as the caller spells them.
		{"the caller's speaker", "Priya Shah leads payments. Priya prefers email. PRIYA works nights.", "", "Priya",
			[]string{"Priya Shah", "Priya", "Priya"}},
		{"the caller's entity", "Acme Robotics signed the renewal. We deploy on Fridays. ACME pays annually.", "acme", "",
			[]string{"Acme Robotics", "acme", "acme"}},
		{"a full-name speaker", "Jordan: I'm Jordan Lee.\nSam: Jordan works nights.", "", "Jordan Lee",
			[]string{"Jordan Lee", "Jordan Lee"}},

		// Products and services are not full names of their first word.
		{"coding: a product", "GitHub Actions is flaky. GitHub is down.", "", "",
			[]string{"GitHub Actions", "GitHub"}},
		{"coding: a framework", "React Native is pinned to 0.73. React is on version 18.", "", "",
			[]string{"React Native", "React"}},
		{"ops: a service", "Kafka Connect is lagging. Kafka is healthy.", "", "",
			[]string{"Kafka Connect", "Kafka"}},
		{"ops: an acronym", "Datadog APM is noisy. Datadog is down.", "", "",
			[]string{"Datadog APM", "Datadog"}},
		{"a system's name in lowercase", "Billing-DB replication lag is 4 s. billing-db replication lag recovered.", "", "",
			[]string{"billing-db", "billing-db"}},
		{"ops: hosts keep their names", "db-2 disk usage is 91%. DB-2 disk usage is back to 60%. db-3 is healthy.", "", "",
			[]string{"db-2", "db-2", "db-3"}},

		// Relations once named.
		{"personal: my wife, then named", "My wife loves hiking. My wife Elena is a teacher.", "", "",
			[]string{"Elena", "Elena"}},
		{"personal: named, then my sister", "My sister Maya lives in Porto. My sister is a nurse.", "", "Jordan",
			[]string{"Maya", "Maya"}},
		{"personal: is my sister", "Maya is my sister. My sister lives in Porto.", "", "Jordan",
			[]string{"Maya", "Maya"}},
		{"personal: my sister's name", "My sister is a nurse. My sister's name is Maya.", "", "Jordan",
			[]string{"Maya", "Maya"}},
		{"personal: a relation named twice stays a relation",
			"My friend Sam lives in Leeds. My friend Tom lives in York. My friend is a nurse.", "", "Jordan",
			[]string{"Sam", "Tom", "Jordan's friend"}},
		{"personal: a relation and the full name",
			"My manager Sam Lee approved the leave. Sam works from Berlin. My manager prefers Slack.", "", "Jordan",
			[]string{"Sam Lee", "Sam Lee", "Sam Lee"}},
		{"two speakers' sisters stay apart",
			"Ana: My sister Maya is a nurse.\nBen: My sister lives in Porto.\nAna: My sister likes tea.", "", "",
			[]string{"Maya", "Ben's sister", "Ana's sister"}},

		// Left alone.
		{"the user", "I work nights. User prefers tea. I live in Denver.", "", "",
			[]string{memory.UserEntity, memory.UserEntity, memory.UserEntity}},
		{"no entity", "Lives in Austin. Prefers aisle seats.", "", "",
			[]string{"", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := entitiesOf(t, tt.text, tt.entity, tt.speaker)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("%q: entities %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestCanonicalEntities checks canonicalEntities on candidates made by
// hand: the reason it appends, and what it never rewrites.
func TestCanonicalEntities(t *testing.T) {
	cands := []Candidate{
		{Content: "Ana works nights.", Entity: "Ana", Reason: "r"},
		{Content: "I like tea.", Entity: memory.UserEntity, Reason: "r"},
		{Content: "Lives in Austin.", Entity: "", Reason: "r"},
		{Content: "ana ruiz is on call.", Entity: "ana ruiz", Reason: "r"},
		{Content: "My sister is a nurse.", Entity: "user's sister", Reason: "r"},
	}
	got := canonicalEntities(cands, "Ana Ruiz: ok\nNotes: Ana Ruiz is on call.", "", "")
	want := []struct{ entity, reason string }{
		{"Ana Ruiz", "r; Ana is Ana Ruiz"},
		{memory.UserEntity, "r"},
		{"", "r"},
		{"Ana Ruiz", "r; ana ruiz is Ana Ruiz"},
		{"user's sister", "r"},
	}
	for i, w := range want {
		if got[i].Entity != w.entity || got[i].Reason != w.reason {
			t.Errorf("candidate %d = %q (%s), want %q (%s)", i, got[i].Entity, got[i].Reason, w.entity, w.reason)
		}
	}
	if cands[0].Entity != "Ana" {
		t.Errorf("canonicalEntities changed its argument: %q", cands[0].Entity)
	}
	if got := canonicalEntities(nil, "Ana Ruiz", "", ""); got != nil {
		t.Errorf("canonicalEntities(nil) = %v", got)
	}
}

// FuzzFoldName: a fold is its own fold, has no white space at its ends nor
// two spaces in a row, and is valid UTF-8 when its name is.
func FuzzFoldName(f *testing.F) {
	for _, s := range []string{"Ana Ruiz", "Zoë", "  Søren\t Kierkegaard ", "İstanbul", "Straße", "\xff", "ǅemal",
		"e\u0301\u0301", "東京 タワー"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := foldName(s)
		if again := foldName(got); again != got {
			t.Fatalf("foldName(%q) = %q, whose fold is %q", s, got, again)
		}
		if strings.TrimSpace(got) != got || strings.Contains(got, "  ") {
			t.Fatalf("foldName(%q) = %q", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("foldName(%q) = %q, not UTF-8", s, got)
		}
	})
}
