package memory

import (
	"strings"
	"testing"
	"unicode/utf8"
)

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
