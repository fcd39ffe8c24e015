package extract_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// want is what a test expects of one candidate: its entity, key and
// category, and optionally (when set) its content.
type want struct {
	entity, key, category, content string
}

func (w want) String() string {
	return fmt.Sprintf("{%s %s %s %q}", w.entity, w.key, w.category, w.content)
}

func rulesExtract(t *testing.T, text, entity, speaker string) []extract.Candidate {
	t.Helper()
	cands, err := extract.Rules{}.ExtractAs(context.Background(), text, entity, speaker, testNow)
	if err != nil {
		t.Fatalf("ExtractAs(%q) error = %v", text, err)
	}
	for _, c := range cands {
		if c.Reason == "" || c.Content == "" {
			t.Errorf("ExtractAs(%q) gave %+v, without a reason or content", text, c)
		}
		if _, err := memory.ParseKey(c.Key); c.Key != "" && err != nil {
			t.Errorf("ExtractAs(%q) gave key %q: %v", text, c.Key, err)
		}
	}
	return cands
}

func checkCandidates(t *testing.T, text string, got []extract.Candidate, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		var b strings.Builder
		for _, c := range got {
			fmt.Fprintf(&b, "\n\t{%s %s %s %q} %s", c.Entity, c.Key, c.Category, c.Content, c.Reason)
		}
		t.Errorf("%q: %d candidates, want %d %v:%s", text, len(got), len(wants), wants, b.String())
		return
	}
	for i, w := range wants {
		c := got[i]
		if c.Entity != w.entity || c.Key != w.key || c.Category != w.category || w.content != "" && c.Content != w.content {
			t.Errorf("%q: candidate %d = {%s %s %s %q} (%s), want %v", text, i, c.Entity, c.Key, c.Category, c.Content, c.Reason, w)
		}
	}
}

// TestRulesAttribution holds the rule-based extractor to who each candidate
// is about and what its key is: the speaker's first person, named people and
// systems, pronouns, speaker labels, the assistant's lines, introductions.
func TestRulesAttribution(t *testing.T) {
	tests := []struct {
		name, text, entity, speaker string
		want                        []want
	}{
		// First person, with and without a speaker.
		{"first person, no speaker", "I work as a nurse.", "", "",
			[]want{{"user", "occupation", "identity", "I work as a nurse."}}},
		{"first person, a speaker", "I work as a nurse.", "", "Jordan",
			[]want{{"Jordan", "occupation", "identity", ""}}},
		{"first person, an entity but no speaker", "I live in Denver.", "Acme", "",
			[]want{{"user", "home_city", "observation", ""}}},
		{"me", "Remind me to renew the passport in two weeks.", "", "Jordan",
			[]want{{"Jordan", "deadline", "obligation", ""}}},
		{"my", "My timezone is CET.", "", "Jordan",
			[]want{{"Jordan", "timezone", "observation", ""}}},
		{"opener before I", "Every morning I drink a flat white.", "", "",
			[]want{{"user", "drink", "routine", ""}}},

		// Named subjects: people and systems.
		{"a person", "Jordan works nights.", "", "",
			[]want{{"Jordan", "work_schedule", "routine", ""}}},
		{"a person, with an entity", "Jordan works nights.", "Acme", "",
			[]want{{"Jordan", "work_schedule", "routine", ""}}},
		{"a system", "billing-db replication lag is 4 s", "", "",
			[]want{{"billing-db", "replication_lag", "state", ""}}},
		{"a system after the", "The api-gateway p99 latency is 180 ms", "", "",
			[]want{{"api-gateway", "p99_latency", "state", ""}}},
		{"a system after its metric", "replication lag on billing-db back to 0.2 s", "", "",
			[]want{{"billing-db", "replication_lag", "state", ""}}},
		{"a possessive", "Maya's birthday is on 14 March.", "", "",
			[]want{{"Maya", "birthday", "identity", ""}}},
		{"my sister Maya", "My sister Maya lives in Porto.", "", "Jordan",
			[]want{{"Maya", "home_city", "observation", ""}}},
		{"my sister", "My sister lives in Porto.", "", "Jordan",
			[]want{{"Jordan's sister", "home_city", "observation", ""}}},
		{"the user", "The user prefers dark mode.", "", "Jordan",
			[]want{{"Jordan", "theme", "preference", ""}}},

		// Pronouns and fragments.
		{"she", "Ann lives in Berlin. She is feeling tired today!", "", "",
			[]want{{"Ann", "home_city", "observation", ""}, {"Ann", "mood", "mood", ""}}},
		{"it", "billing-db replication lag is 4 s. It recovered at 10:05.", "", "",
			[]want{{"billing-db", "replication_lag", "state", ""}, {"billing-db", "replication_lag", "state", ""}}},
		{"fragments continue the sentence before", "Priya is a nurse. Lives in Austin. Prefers tea.", "", "",
			[]want{{"Priya", "occupation", "identity", ""}, {"Priya", "home_city", "observation", ""},
				{"Priya", "drink", "preference", ""}}},
		{"a fragment alone is the entity's", "Lives in Austin.", "Ann", "",
			[]want{{"Ann", "home_city", "observation", ""}}},
		{"a fragment alone with no entity", "Prefers aisle seats.", "", "",
			[]want{{"", "seat", "preference", ""}}},
		{"we is the entity's", "We deploy on Thursdays.", "Acme", "",
			[]want{{"Acme", "deploy_day", "routine", ""}}},
		{"a thing is the entity's", "The office wifi password is hunter2.", "Acme", "",
			[]want{{"Acme", "", "observation", ""}}},

		// Labels: stripped, and the assistant's and system's lines dropped.
		{"User and Assistant",
			"User: I live in Denver.\nAssistant: Great, Denver is lovely. You live in Denver.\nUser: I like tea.", "", "",
			[]want{{"user", "home_city", "observation", "I live in Denver."}, {"user", "drink", "preference", "I like tea."}}},
		{"Human, AI and System",
			"System: You are a helpful assistant.\nHuman: I'm a nurse.\nAI: Noted: you are a nurse.", "", "Jordan",
			[]want{{"Jordan", "occupation", "identity", "I'm a nurse."}}},
		{"a long assistant turn",
			"User: I work nights.\nAssistant: Thanks for telling me.\nI will remember that you work nights.\nUser: I moved to Denver.", "", "",
			[]want{{"user", "work_schedule", "routine", "I work nights."}, {"user", "home_city", "observation", "I moved to Denver."}}},
		{"named speakers", "Jordan: I work nights.\nSam: I'm the on-call engineer this week.", "", "",
			[]want{{"Jordan", "work_schedule", "routine", "I work nights."}, {"Sam", "on_call", "state", "I'm the on-call engineer this week."}}},
		{"one named speaker in the first person", "Jordan: I prefer tea.", "", "",
			[]want{{"Jordan", "drink", "preference", "I prefer tea."}}},
		{"headings are not speakers", "Mood: grumpy\nDecision: keep Postgres over MySQL because the team knows it", "Edmund", "",
			[]want{{"Edmund", "mood", "mood", "Mood: grumpy"}, {"Edmund", "choice_mysql_postgres", "decision", ""}}},
		{"a bold label", "**User:** I'm based in Denver.", "", "",
			[]want{{"user", "home_city", "observation", "I'm based in Denver."}}},

		// Introductions.
		{"introduction with a role and a city", "Hi, I am Jordan, a nurse in Denver.", "", "",
			[]want{{"Jordan", "occupation", "identity", "Jordan is a nurse."}, {"Jordan", "home_city", "identity", "Jordan lives in Denver."}}},
		{"later first person is the introduced speaker's", "User: Hi! My name is Jordan.\nUser: I work nights. I like tea.", "", "",
			[]want{{"Jordan", "name", "identity", "My name is Jordan."}, {"Jordan", "work_schedule", "routine", ""},
				{"Jordan", "drink", "preference", ""}}},
		{"introduction and a clause", "I'm Jordan and I work nights.", "", "",
			[]want{{"Jordan", "work_schedule", "routine", "I work nights"}}},
		{"a named speaker wins over the introduction", "I'm Jordan. I live in Denver.", "", "user-42",
			[]want{{"user-42", "name", "identity", ""}, {"user-42", "home_city", "observation", ""}}},
		{"a nationality is no name", "I'm Canadian. I live in Denver.", "", "",
			[]want{{"user", "", "observation", ""}, {"user", "home_city", "observation", ""}}},
		{"a role in a city", "I'm a nurse in Denver.", "", "Jordan",
			[]want{{"Jordan", "occupation", "identity", "I am a nurse."}, {"Jordan", "home_city", "identity", "I live in Denver."}}},

		// What is no fact.
		{"greetings and pleasantries", "Hi!\nThanks, Claude!\nNice to meet you.\nWhere do I live?", "", "", nil},
		{"a greeting is no part of the fact", "Hey Claude, I moved to Denver.", "", "",
			[]want{{"user", "home_city", "observation", "I moved to Denver."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkCandidates(t, tt.text, rulesExtract(t, tt.text, tt.entity, tt.speaker), tt.want)
		})
	}
}

// TestRulesParaphrasesShareEntityAndKey checks that the paraphrases of one
// fact land on the same entity and key, so that supersession and merging
// pair them.
func TestRulesParaphrasesShareEntityAndKey(t *testing.T) {
	groups := []struct {
		speaker     string
		entity, key string
		texts       []string
	}{
		{"", "user", "occupation", []string{"I work as a nurse.", "I'm a nurse.", "My job is nursing.",
			"I am a nurse.", "I'm working as a nurse.", "User: I work as a nurse.", "Hello, I'm a nurse."}},
		{"Jordan", "Jordan", "occupation", []string{"I work as a nurse.", "I'm a nurse.", "My job is nursing.",
			"Jordan is a nurse.", "Jordan works as a nurse."}},
		{"", "Jordan", "occupation", []string{"Hi, I am Jordan, a nurse.", "Jordan is a nurse.",
			"I'm Jordan. I work as a nurse.", "My name is Jordan. My job is nursing."}},
		{"", "user", "home_city", []string{"I live in Denver.", "I'm based in Denver.", "I moved to Denver.",
			"I've moved to Denver.", "I relocated to Denver.", "Human: I live in Denver."}},
		{"Jordan", "Jordan", "home_city", []string{"I live in Denver.", "I'm based in Denver.", "I moved to Denver.",
			"Jordan lives in Denver.", "Jordan is based in Denver.", "Jordan moved to Boston."}},
		{"", "billing-db", "replication_lag", []string{"billing-db replication lag is 4 s",
			"billing-db replication lag recovered", "replication lag on billing-db back to 0.2 s",
			"The billing-db replication lag is 12 s.", "billing-db replication lag is high.",
			"billing-db replication lag is back to normal.", "Replication lag on billing-db is 3 s."}},
		{"", "api-gateway", "p99_latency", []string{"api-gateway p99 latency is 180 ms",
			"The api-gateway p99 latency is 180 ms", "api-gateway p99 back under 120 ms",
			"api-gateway p99 latency recovered.", "p99 latency on api-gateway is 200 ms."}},
		{"", "user", "drink", []string{"I like tea.", "I prefer coffee.", "I love a flat white.",
			"My favourite drink is tea.", "I drink tea every morning."}},
		{"", "user", "employer", []string{"I work at Acme.", "I work for Acme.", "I'm employed by Acme."}},
		{"", "Acme", "deploy_day", []string{"We deploy on Thursdays.", "Deploys go out every Tuesday.",
			"We ship releases on Fridays."}},
		{"", "user", "mood", []string{"I'm so tired today.", "I feel stressed.", "User: Feeling grumpy this morning."}},
		{"", "user", "timezone", []string{"My timezone is CET.", "I'm on Pacific time.", "My time zone is UTC+2."}},
		{"", "user", "theme", []string{"I prefer dark mode.", "I love dark mode.", "Dark mode, always: I prefer it."}},
	}
	for _, g := range groups {
		for _, text := range g.texts {
			entity := ""
			if g.entity == "Acme" {
				entity = "Acme"
			}
			cands := rulesExtract(t, text, entity, g.speaker)
			found := false
			for _, c := range cands {
				found = found || c.Entity == g.entity && c.Key == g.key
			}
			if !found {
				var b strings.Builder
				for _, c := range cands {
					fmt.Fprintf(&b, " {%s %s %s}", c.Entity, c.Key, c.Category)
				}
				t.Errorf("%q (speaker %q): no candidate on (%s, %s); got%s", text, g.speaker, g.entity, g.key, b.String())
			}
		}
	}
}

// A state that says something recovered keeps the key of the state it
// resolves, also when it names the metric no more ("It recovered").
func TestRulesRecoveryKeepsTheKey(t *testing.T) {
	text := "api-gateway latency is 300 ms. It's back to normal.\nThe API is down. It is back up."
	checkCandidates(t, text, rulesExtract(t, text, "", ""), []want{
		{"api-gateway", "latency", "state", ""}, {"api-gateway", "latency", "state", ""},
		{"API", "status", "state", ""}, {"API", "status", "state", ""},
	})
}

func TestParseSpeaker(t *testing.T) {
	for _, s := range []string{"", "  ", "Jordan", " Jordan Lee ", "user-42", strings.Repeat("é", 200)} {
		got, err := extract.ParseSpeaker(s)
		if err != nil || got != strings.TrimSpace(s) {
			t.Errorf("ParseSpeaker(%q) = %q, %v; want it trimmed", s, got, err)
		}
	}
	for _, s := range []string{strings.Repeat("a", 201), "Jor\x00dan", "Jor\x07dan", "\xff"} {
		_, err := extract.ParseSpeaker(s)
		var e *memory.Error
		if err == nil || memory.ErrorCode(err) != memory.CodeInvalid || !errors.As(err, &e) || e.Field != "speaker" {
			t.Errorf("ParseSpeaker(%q) = %v, want an invalid speaker", s, err)
		}
	}
}

// plainExtractor is an Extractor that is no SpeakerExtractor.
type plainExtractor struct{ got *string }

func (plainExtractor) Name() string { return "plain" }

func (p plainExtractor) Extract(_ context.Context, text, _ string, _ time.Time) ([]extract.Candidate, error) {
	*p.got = text
	return nil, nil
}

func TestExtractFor(t *testing.T) {
	var got string
	if _, err := extract.ExtractFor(context.Background(), plainExtractor{&got}, "I like tea.", "", "Jordan", testNow); err != nil || got != "I like tea." {
		t.Errorf("ExtractFor(a plain extractor) = %v, called with %q", err, got)
	}
	cands, err := extract.ExtractFor(context.Background(), extract.Rules{}, "I like tea.", "", "Jordan", testNow)
	if err != nil || len(cands) != 1 || cands[0].Entity != "Jordan" {
		t.Errorf("ExtractFor(rules, speaker Jordan) = %+v, %v", cands, err)
	}
	cands, err = extract.Rules{}.Extract(context.Background(), "I like tea.", "", testNow)
	if err != nil || len(cands) != 1 || cands[0].Entity != memory.UserEntity {
		t.Errorf("Rules.Extract(first person) = %+v, %v; want it about %s", cands, err, memory.UserEntity)
	}
}

// The LLM is told the speaker in the user message, only when one is named.
func TestLLMSpeaker(t *testing.T) {
	fake := newFakeLLM(t, completion(`{"candidates": []}`))
	l := newLLM(t, fake.srv.URL, time.Second)
	if _, err := extract.ExtractFor(context.Background(), l, "I like tea.", "", "Jordan", testNow); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Extract(context.Background(), "I like tea.", "", testNow); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	message := func(r int) string {
		msgs, _ := reqs[r].body["messages"].([]any)
		user, _ := msgs[len(msgs)-1].(map[string]any)
		content, _ := user["content"].(string)
		return content
	}
	if m := message(0); !strings.Contains(m, "Speaker") || !strings.Contains(m, ": Jordan\n") {
		t.Errorf("user message with a speaker = %q, want it to name Jordan", m)
	}
	if m := message(1); strings.Contains(m, "Speaker") {
		t.Errorf("user message without a speaker = %q, want no speaker line", m)
	}
}

// FuzzRulesAttribution: whatever the text, the candidates name valid
// entities (at most MaxEntity characters, UTF-8 when the text is) and valid
// keys, and never carry a speaker's label.
func FuzzRulesAttribution(f *testing.F) {
	for _, s := range []string{"Hi, I am Jordan, a nurse in Denver.", "User: I like tea.\nAssistant: Noted.",
		"Jordan: I'm Sam, a nurse at Acme in Denver and I work nights", "billing-db lag is 4 s. It recovered.",
		"I'm " + strings.Repeat("Jo", 150) + ".", "My sister " + strings.Repeat("Ann ", 80) + "lives in Porto",
		"\xff: I am \xfe", "Call me -. I'm a - in A."} {
		f.Add(s, "")
		f.Add(s, "Jordan")
	}
	f.Fuzz(func(t *testing.T, text, speaker string) {
		cands, err := extract.Rules{}.ExtractAs(context.Background(), text, "", speaker, testNow)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			if n := len([]rune(c.Entity)); n > extract.MaxEntity || c.Entity != strings.TrimSpace(c.Entity) {
				t.Fatalf("candidate entity %q (%d characters)", c.Entity, n)
			}
			if strings.TrimSpace(c.Content) == "" || c.Reason == "" {
				t.Fatalf("candidate %+v without content or reason", c)
			}
			if _, err := memory.ParseKey(c.Key); c.Key != "" && err != nil {
				t.Fatalf("candidate key %q: %v", c.Key, err)
			}
			if _, err := memory.ParseCategory(c.Category); err != nil {
				t.Fatalf("candidate category %q", c.Category)
			}
			if strings.HasPrefix(c.Content, "User:") || strings.HasPrefix(c.Content, "Assistant:") {
				t.Fatalf("candidate %q keeps its label", c.Content)
			}
		}
	})
}
