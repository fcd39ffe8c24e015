package extract_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

func TestRules(t *testing.T) {
	text := "Ann lives in Berlin. She is feeling tired today!\nWhere is the report? " +
		"We decided to use PostgreSQL instead of MySQL because we already run it. Ann must send the report by June 10."
	cands, err := extract.Rules{}.Extract(context.Background(), text, "Ann", testNow)
	if err != nil {
		t.Fatal(err)
	}
	type axes struct{ category, durability string }
	want := []axes{{"observation", "long_term"}, {"mood", "ephemeral"}, {"decision", "permanent"}, {"obligation", "short_term"}}
	if len(cands) != len(want) {
		t.Fatalf("Rules.Extract = %d candidates %+v, want %d (the question left out)", len(cands), cands, len(want))
	}
	for i, c := range cands {
		if c.Category != want[i].category || c.Durability != want[i].durability || c.Reason == "" || c.Entity != "Ann" {
			t.Errorf("candidate %d = %+v, want %v with a reason, about Ann", i, c, want[i])
		}
	}
	if d := cands[3].Deadline; d == nil || d.Format(time.DateOnly) != "2026-06-10" {
		t.Errorf("obligation deadline = %v, want 2026-06-10", d)
	}
	if c := cands[2]; !slices.Equal(c.Alternatives, []string{"MySQL"}) || c.Reasoning != "we already run it" {
		t.Errorf("decision candidate = %+v, want its alternative and reasoning", c)
	}
}

func TestCandidateNode(t *testing.T) {
	deadline := time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)
	c := extract.Candidate{Content: "Ann must send the report by June 10.", Entity: "Ann", Key: "send_report",
		Durability: "short_term", Category: "obligation", Deadline: &deadline, Confidence: 0.9, Reason: "a duty"}
	n := c.Node(extract.ModeLLM)
	for k, want := range map[string]any{"entity": "Ann", "key": "send_report", "category": "obligation",
		"fact_durability": "short_term", "deadline": "2026-06-10T00:00:00Z", "confidence": 0.9} {
		if n.Properties[k] != want {
			t.Errorf("properties[%s] = %v, want %v", k, n.Properties[k], want)
		}
	}
	for k, want := range map[string]any{"source": "extraction", "mode": "llm", "prompt_version": extract.PromptVersion, "reason": "a duty"} {
		if n.Metadata[k] != want {
			t.Errorf("metadata[%s] = %v, want %v", k, n.Metadata[k], want)
		}
	}
	if n.Durability != "" {
		t.Errorf("marker = %q, want none (the row reads as durable)", n.Durability)
	}
	rules := c.Node(extract.ModeRules)
	if _, ok := rules.Metadata["prompt_version"]; ok || rules.Metadata["extracted_by"] != "offline" {
		t.Errorf("rules metadata = %v, want extracted_by offline and no prompt version", rules.Metadata)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  extract.Config
		want string
	}{
		{extract.Config{}, ""},
		{extract.Config{URL: "http://localhost:11434/v1", Model: "llama3.1"}, ""},
		{extract.Config{URL: "https://api.example.com/v1", Model: "m", Key: "k", Timeout: time.Minute}, ""},
		{extract.Config{URL: "localhost:11434", Model: "m"}, "use an http or https URL"},
		{extract.Config{URL: "ftp://example.com", Model: "m"}, "use an http or https URL"},
		{extract.Config{URL: "http://", Model: "m"}, "use an http or https URL"},
		{extract.Config{URL: "http://example.com/v1?x=1", Model: "m"}, "without a query"},
		{extract.Config{URL: "http://example.com/v1"}, "without a model"},
		{extract.Config{Model: "m"}, "without an LLM URL"},
		{extract.Config{URL: "http://example.com", Model: "m", Timeout: -time.Second}, "invalid LLM timeout"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Validate(%+v) = %v, want nil", tt.cfg, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Validate(%+v) = %v, want it to contain %q", tt.cfg, err, tt.want)
		}
	}
	err := extract.Config{URL: "ftp://user:hunter2@example.com", Model: "m"}.Validate()
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Validate error %v shows the URL's password", err)
	}
}

func TestSet(t *testing.T) {
	var none *extract.Set
	if e, err := none.Extractor(""); err != nil || e.Name() != extract.ModeRules {
		t.Errorf("nil set Extractor(\"\") = %v, %v; want rules", e, err)
	}
	_, err := none.Extractor("llm")
	if memory.ErrorCode(err) != memory.CodeInvalid || !strings.Contains(err.Error(), "mode llm needs an LLM endpoint: set TENURE_LLM_URL and TENURE_LLM_MODEL (or use mode rules)") {
		t.Errorf("Extractor(llm) without an LLM = %v", err)
	}
	if _, err := none.Extractor("magic"); memory.ErrorCode(err) != memory.CodeInvalid || !strings.Contains(err.Error(), "allowed values are rules") {
		t.Errorf("Extractor(magic) = %v", err)
	}
	if s := none.Settings(); s.LLMConfigured || s.DefaultMode != "rules" || s.PromptVersion != extract.PromptVersion || s.Prompt == "" {
		t.Errorf("nil set Settings = %+v", s)
	}

	set, err := extract.NewSet(extract.Config{URL: "http://user:pw@localhost:11434/v1", Model: "llama3.1", Key: "sk-x"})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := set.Extractor("llm"); err != nil || e.Name() != extract.ModeLLM {
		t.Errorf("Extractor(llm) = %v, %v", e, err)
	}
	if e, _ := set.Extractor(""); e.Name() != extract.ModeRules {
		t.Errorf("the default mode is %s, want rules even with an LLM", e.Name())
	}
	s := set.Settings()
	if !s.LLMConfigured || s.Model != "llama3.1" || !s.KeySet || s.Timeout != extract.DefaultTimeout || strings.Contains(s.URL, "pw") {
		t.Errorf("Settings = %+v", s)
	}
	if _, err := extract.NewSet(extract.Config{URL: "http://x"}); err == nil {
		t.Errorf("NewSet without a model succeeded")
	}
}

func TestPromptAsksForBothAxes(t *testing.T) {
	p := extract.Prompt()
	for _, want := range []string{"permanent", "long_term", "short_term", "ephemeral", "observation", "preference",
		"identity", "mood", "decision", "routine", "state", "obligation", "deadline", "alternatives", "reasoning",
		"reason", "RFC 3339", `{"candidates": [`} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt does not mention %q", want)
		}
	}
}

// FuzzParseAnswer drives the answer validation with what a model could say:
// it must never panic, and whatever it accepts must be valid candidates.
func FuzzParseAnswer(f *testing.F) {
	f.Add(goodAnswer)
	f.Add(`{"candidates": [{"content": "x", "durability": "forever"}]}`)
	f.Add("```json\n{}\n```")
	f.Add(`[1, 2]`)
	f.Fuzz(func(t *testing.T, answer string) {
		cands, err := extract.ParseAnswerForTest(answer)
		if err != nil {
			return
		}
		for _, c := range cands {
			if _, err := memory.ParseDurability(c.Durability); err != nil || strings.TrimSpace(c.Content) == "" || c.Reason == "" {
				t.Fatalf("accepted an invalid candidate %+v", c)
			}
			if _, err := memory.ParseCategory(c.Category); err != nil {
				t.Fatalf("accepted category %q", c.Category)
			}
			if memory.ClampDurability(c.Category, memory.Durability(c.Durability)) != memory.Durability(c.Durability) {
				t.Fatalf("a %s kept durability %s", c.Category, c.Durability)
			}
		}
	})
}
