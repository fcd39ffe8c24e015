package extract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// chatCall is what the endpoint read of one call to it.
type chatCall struct {
	System, User string
	// Read out of the user message as the prompt describes it.
	Speaker, Entity, Text string
}

// endpoint is a local server playing an OpenAI-compatible chat completions
// endpoint. It checks each request as such an endpoint would (method, path,
// JSON body, a model, a system and a user message, JSON output asked for),
// answering 400 with an OpenAI error, and failing the test, when one is
// wrong; else it answers a chat completion whose content is reply's.
type endpoint struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []chatCall
}

func newEndpoint(t *testing.T, reply func(chatCall) string) *endpoint {
	t.Helper()
	e := &endpoint{}
	refuse := func(w http.ResponseWriter, format string, args ...any) {
		t.Errorf("the endpoint got a bad request: "+format, args...)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": fmt.Sprintf(format, args...), "type": "invalid_request_error"}})
	}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			refuse(w, "%s %s", r.Method, r.URL.Path)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			refuse(w, "Content-Type %q", ct)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat struct {
				Type string `json:"type"`
			} `json:"response_format"`
			Temperature *float64 `json:"temperature"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			refuse(w, "the body is not JSON: %v", err)
			return
		}
		switch {
		case req.Model == "":
			refuse(w, "no model")
			return
		case len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user":
			refuse(w, "messages %+v, want a system and a user message", req.Messages)
			return
		case req.ResponseFormat.Type != "json_object" || !strings.Contains(req.Messages[0].Content, "JSON"):
			refuse(w, "JSON output asked for with %q and a prompt that does not say JSON", req.ResponseFormat.Type)
			return
		case req.Temperature == nil || *req.Temperature != 0:
			refuse(w, "temperature %v, want 0", req.Temperature)
			return
		}
		call := chatCall{System: req.Messages[0].Content, User: req.Messages[1].Content}
		head, text, ok := strings.Cut(call.User, "Text:\n<<<\n")
		if !ok || !strings.HasSuffix(text, "\n>>>\n") {
			refuse(w, "the user message %q does not hold the text between <<< and >>>", call.User)
			return
		}
		call.Text = strings.TrimSuffix(text, "\n>>>\n")
		for _, line := range strings.Split(head, "\n") {
			if v, ok := strings.CutPrefix(line, "Speaker: "); ok {
				call.Speaker = v
			}
			if v, ok := strings.CutPrefix(line, "Default entity: "); ok {
				call.Entity = v
			}
		}
		e.mu.Lock()
		e.calls = append(e.calls, call)
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-9x", "object": "chat.completion", "created": 1767225600, "model": req.Model,
			"system_fingerprint": "fp_test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
				"message": map[string]any{"role": "assistant", "content": reply(call), "refusal": nil}}},
			"usage": map[string]any{"prompt_tokens": 1400, "completion_tokens": 120, "total_tokens": 1520},
		})
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) llm(t *testing.T) *extract.LLM {
	t.Helper()
	l, err := extract.NewLLM(extract.Config{URL: e.srv.URL + "/v1", Model: "fake-model", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (e *endpoint) received() []chatCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]chatCall(nil), e.calls...)
}

// TestLLMRequestCarriesPromptSpeakerAndEntity: each call sends the v2
// prompt, the speaker and the default entity when the caller names them,
// and the text.
func TestLLMRequestCarriesPromptSpeakerAndEntity(t *testing.T) {
	e := newEndpoint(t, func(chatCall) string { return `{"candidates": []}` })
	l := e.llm(t)
	text := "Customer: Our practice moved to the Business plan last week.\nCustomer: Great, thanks."
	if _, err := extract.ExtractFor(context.Background(), l, text, "Harbor Dental", "Marcus Bell", testNow); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Extract(context.Background(), "I like tea.", "", testNow); err != nil {
		t.Fatal(err)
	}
	calls := e.received()
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2", len(calls))
	}
	for _, c := range calls {
		if c.System != extract.Prompt() || !strings.Contains(c.System, `"retractions"`) {
			t.Errorf("the system message is not the %s prompt", extract.PromptVersion)
		}
	}
	if c := calls[0]; c.Speaker != "Marcus Bell" || c.Entity != "Harbor Dental" || c.Text != text ||
		!strings.HasPrefix(c.User, "Current time: 2026-03-02T09:30:00Z\n") {
		t.Errorf("call with a speaker and an entity = %+v", c)
	}
	if c := calls[1]; c.Speaker != "" || c.Entity != "" || c.Text != "I like tea." {
		t.Errorf("call with neither = %+v, want no speaker nor entity line", c)
	}
}

// TestLLMReplyNormalised: what the model writes is read as Tenure spells
// it: synonym keys canonical, entities trimmed and read as the caller's
// (pronouns, first names), axes in any case, moods and states clamped,
// fields Tenure does not know ignored, negations kept as retractions.
func TestLLMReplyNormalised(t *testing.T) {
	text := "I'm Ana Ruiz, a nurse at Mercy Hospital in Denver. I'm so tired today. Ana must renew her licence by June 10. " +
		"We decided to use Postgres over MySQL because we already run it. I don't live in Boston anymore."
	reply := `{"candidates": [
	 {"content": "a nurse at Mercy Hospital", "entity": "  Ana   Ruiz ", "key": "Job Title", "durability": "Permanent", "category": "Identity", "reason": "occupation", "subject": "Ana"},
	 {"content": "a nurse at Mercy Hospital", "entity": "Ana", "key": "works_at", "durability": "long-term", "category": "observation", "reason": "employer"},
	 {"content": "in Denver", "entity": "I", "key": "lives-in", "durability": "long_term", "category": "observation", "confidence": 0.8, "reason": "home"},
	 {"content": "I'm so tired today.", "entity": "me", "key": "feeling", "durability": "permanent", "category": "mood", "reason": "a feeling"},
	 {"content": "Ana must renew her licence by June 10.", "entity": "Ana", "key": "none", "durability": "short_term", "category": "obligation", "deadline": "2026-06-10", "reason": "a dated duty"},
	 {"content": "We decided to use Postgres over MySQL because we already run it.", "entity": "we", "key": "database", "durability": "permanent", "category": "decision", "alternatives": [" MySQL "], "reasoning": "we already run it", "reason": "a decision"},
	 {"content": "the licence office is closed this week", "key": "status", "durability": "long_term", "category": "state", "reason": "a condition"}
	],
	"retractions": [{"content": "I don't live in Boston anymore.", "entity": "I", "key": "city", "why": "negated"}],
	"notes": "the model's own remarks"}`
	e := newEndpoint(t, func(chatCall) string { return reply })
	a, err := e.llm(t).ExtractAnswer(context.Background(), text, "Mercy Ops", "Ana Ruiz", testNow)
	if err != nil {
		t.Fatalf("ExtractAnswer: %v", err)
	}
	type axes struct{ entity, key, durability, category string }
	want := []axes{
		{"Ana Ruiz", "occupation", "permanent", "identity"},
		{"Ana Ruiz", "employer", "long_term", "observation"},
		{"Ana Ruiz", "home_city", "long_term", "observation"},
		{"Ana Ruiz", "mood", "ephemeral", "mood"},
		{"Ana Ruiz", "", "short_term", "obligation"},
		{"Mercy Ops", "database", "permanent", "decision"},
		{"Mercy Ops", "status", "short_term", "state"},
	}
	if len(a.Candidates) != len(want) {
		t.Fatalf("%d candidates, want %d: %+v", len(a.Candidates), len(want), a.Candidates)
	}
	for i, c := range a.Candidates {
		if got := (axes{c.Entity, c.Key, c.Durability, c.Category}); got != want[i] {
			t.Errorf("candidate %d (%q) = %+v, want %+v", i, c.Content, got, want[i])
		}
	}
	if c := a.Candidates[3]; !strings.Contains(c.Reason, "durability permanent lowered to ephemeral: a mood never hardens") {
		t.Errorf("the clamped mood's reason = %q, want the clamp explained", c.Reason)
	}
	if c := a.Candidates[4]; c.Deadline == nil || !c.Deadline.Equal(time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("the obligation's deadline = %v, want June 10 at midnight UTC", c.Deadline)
	}
	if c := a.Candidates[5]; len(c.Alternatives) != 1 || c.Alternatives[0] != "MySQL" || c.Reasoning != "we already run it" {
		t.Errorf("the decision = %+v, want its alternative and reasoning kept", c)
	}
	if c := a.Candidates[2]; c.Confidence != 0.8 {
		t.Errorf("confidence = %v, want 0.8", c.Confidence)
	}
	wantR := []extract.Retraction{{Content: "I don't live in Boston anymore.", Entity: "Ana Ruiz", Key: "home_city"}}
	if fmt.Sprint(a.Retractions) != fmt.Sprint(wantR) {
		t.Errorf("retractions = %+v, want %+v", a.Retractions, wantR)
	}

	// Extract, without a speaker: "I" is the user, and the candidates are
	// ExtractAnswer's, then its retractions as retraction candidates, as the
	// rule-based extractor makes them.
	cands, err := e.llm(t).Extract(context.Background(), "I'm so tired today.", "", testNow)
	if err != nil || len(cands) != len(want)+1 || cands[3].Entity != memory.UserEntity || cands[2].Entity != memory.UserEntity {
		t.Fatalf("Extract without a speaker = %+v, %v; want %q for I and me, and the retraction", cands, err, memory.UserEntity)
	}
	if r := cands[len(want)]; !r.Retraction || r.Key != "home_city" || r.Denies != "Boston" || r.Entity != memory.UserEntity {
		t.Errorf("the retraction candidate = %+v, want the user's home_city Boston denied", r)
	}
}

// TestLLMMalformedReplies: a reply that is not what the prompt asks for is
// an llm_invalid_answer naming what is wrong, never candidates.
func TestLLMMalformedReplies(t *testing.T) {
	item := func(extra string) string {
		return `{"content": "Ann lives in Berlin.", "durability": "long_term", "category": "observation", "reason": "r"` + extra + `}`
	}
	many := strings.TrimSuffix(strings.Repeat(item("")+",", 201), ",")
	tests := []struct {
		name, reply string
		want        []string
	}{
		{"cut off JSON", `{"candidates": [{"content": "Ann lives in Berlin.", "durab`,
			[]string{"the model's answer is not JSON (unexpected EOF)", `"{\"candidates\": [{\"content\": \"Ann lives in Berlin.\", \"durab"`}},
		{"prose", "Here are the facts I found: Ann lives in Berlin.", []string{"the model's answer is not JSON", "Here are the facts"}},
		{"two objects", `{"candidates": []} {"candidates": []}`, []string{"holds more than one JSON value"}},
		{"a list", `[` + item("") + `]`, []string{`it must be a JSON object {"candidates": [...]}, not a list`}},
		{"candidates an object", `{"candidates": ` + item("") + `}`, []string{"candidates must be a list, not an object"}},
		{"retractions a string", `{"candidates": [], "retractions": "none"}`, []string{"retractions must be a list, not a string"}},
		{"retraction without key", `{"candidates": [], "retractions": [{"content": "I don't live in Berlin anymore.", "key": "null"}]}`,
			[]string{"retractions[0].key is missing: a retraction names the key it denies"}},
		{"retraction not an object", `{"candidates": [], "retractions": ["home_city"]}`,
			[]string{"retractions[0] must be an object, not a string"}},
		{"candidate not an object", `{"candidates": ["Ann lives in Berlin."]}`, []string{"candidates[0] must be an object, not a string"}},
		{"too many candidates", `{"candidates": [` + many + `]}`, []string{"candidates holds 201 items: at most 200 are allowed"}},
		{"content too long", `{"candidates": [{"content": "` + strings.Repeat("a", 10001) + `", "durability": "long_term", "category": "observation", "reason": "r"}]}`,
			[]string{"candidates[0].content is 10001 characters long: at most 10000 are allowed"}},
		{"reason too long", `{"candidates": [` + item(`, "reason": "`+strings.Repeat("why ", 600)+`"`) + `]}`,
			[]string{"candidates[0].reason is 2399 characters long: at most 2000 are allowed"}},
		{"bad key", `{"candidates": [` + item(`, "key": "home/city"`) + `]}`, []string{`candidates[0].key "home/city" is not a key`}},
		{"entity too long", `{"candidates": [` + item(`, "entity": "`+strings.Repeat("x", 201)+`"`) + `]}`,
			[]string{"candidates[0].entity is 201 characters long: at most 200 are allowed"}},
		{"no durability", `{"candidates": [{"content": "Ann lives in Berlin.", "category": "observation", "reason": "r"}]}`,
			[]string{"candidates[0].durability is missing: use one of permanent, long_term, short_term, ephemeral"}},
		{"deadline on a state", `{"candidates": [{"content": "Away until Friday.", "durability": "short_term", "category": "state", "deadline": "2026-03-06", "reason": "r"}]}`,
			[]string{"candidates[0].deadline is set on a state: only obligations have a deadline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEndpoint(t, func(chatCall) string { return tt.reply })
			cands, err := e.llm(t).Extract(context.Background(), "Ann lives in Berlin.", "", testNow)
			var le *extract.Error
			if !errors.As(err, &le) || le.Code != extract.CodeInvalidAnswer {
				t.Fatalf("Extract = %d candidates, %v; want an llm_invalid_answer", len(cands), err)
			}
			if cands != nil {
				t.Errorf("Extract returned candidates with its error")
			}
			for _, w := range tt.want {
				if !strings.Contains(le.Message, w) {
					t.Errorf("message = %.400q\nwant it to contain %q", le.Message, w)
				}
			}
		})
	}
}

// TestLLMOversizeReply: a body past the bound is refused after reading no
// more than the bound, and a reply cut off by the model's output limit is
// refused as such.
func TestLLMOversizeReply(t *testing.T) {
	var sent int64
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices": [{"message": {"content": "`)
		chunk := strings.Repeat("x", 64<<10)
		for i := 0; i < 1024; i++ { // up to 64 MiB, unless the client stops reading
			n, err := io.WriteString(w, chunk)
			sent += int64(n)
			if err != nil {
				return
			}
		}
	}))
	defer big.Close()
	l, err := extract.NewLLM(extract.Config{URL: big.URL, Model: "m", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Extract(context.Background(), "Ann lives in Berlin.", "", testNow)
	var le *extract.Error
	if !errors.As(err, &le) || le.Code != extract.CodeInvalidAnswer || !strings.Contains(le.Message, "answered with more than 4 MiB") {
		t.Fatalf("Extract of an endless body = %v, want llm_invalid_answer naming the bound", err)
	}

	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": "{\"candidates\": [{\"content\": \"Ann"}}]}`)
	}))
	defer cut.Close()
	l, err = extract.NewLLM(extract.Config{URL: cut.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Extract(context.Background(), "Ann lives in Berlin.", "", testNow)
	if !errors.As(err, &le) || le.Code != extract.CodeInvalidAnswer || !strings.Contains(le.Message, "cut off (finish_reason length)") {
		t.Fatalf("Extract of a cut-off reply = %v, want llm_invalid_answer saying it was cut off", err)
	}
}

// labelSynonyms are spellings a model may give the corpus's keys, which the
// vocabulary reads as them.
var labelSynonyms = map[string]string{
	"employer": "works_at", "home_city": "Lives In", "occupation": "job_title", "mood": "feeling",
	"timezone": "time-zone", "plan": "subscription_tier", "on_call": "oncall", "diet": "dietary_restriction",
	"email": "email_address", "phone": "phone_number", "birthday": "date_of_birth", "native_language": "mother_tongue",
}

// TestLLMOnTheCorpus scores the LLM mode on the corpus against an endpoint
// that answers each snippet with its labels, written as a model would: keys
// as synonyms, the speaker as "I", the default entity as "we", axes in other
// cases, moods said to be long-term, negations as retractions. Read back,
// the candidates are the labels: every fact found with its entity, key and
// both axes, nothing false, no not-fact kept, every concept under one key.
func TestLLMOnTheCorpus(t *testing.T) {
	c := loadCorpus(t)
	byText := map[string]corpusSnippet{}
	for _, s := range c.snippets {
		byText[s.Text] = s
	}
	e := newEndpoint(t, func(call chatCall) string {
		s, ok := byText[call.Text]
		if !ok {
			t.Errorf("the endpoint was sent a text not in the corpus: %q", call.Text)
			return `{"candidates": []}`
		}
		if call.Speaker != s.Speaker || call.Entity != s.Entity {
			t.Errorf("%s: sent speaker %q and entity %q, want %q and %q", s.ID, call.Speaker, call.Entity, s.Speaker, s.Entity)
		}
		type item map[string]any
		var cands, retractions []item
		for _, f := range s.Facts {
			it := item{"content": f.Contains, "durability": strings.ToUpper(f.Durability), "category": strings.ToUpper(f.Category[:1]) + f.Category[1:],
				"reason": "labelled", "confidence": 0.9}
			switch {
			case s.Speaker != "" && f.Entity == s.Speaker:
				it["entity"] = "I"
			case s.Entity != "" && f.Entity == s.Entity:
				it["entity"] = "we"
			default:
				it["entity"] = " " + f.Entity + " "
			}
			if f.Key != "" {
				it["key"] = f.Key
				if syn, ok := labelSynonyms[f.Key]; ok {
					it["key"] = syn
				}
			}
			if f.Category == memory.CategoryMood {
				it["durability"] = "long_term"
			}
			cands = append(cands, it)
		}
		for _, nf := range s.NotFacts {
			if l := strings.ToLower(nf); strings.Contains(l, "anymore") || strings.Contains(l, "no longer") {
				retractions = append(retractions, item{"content": nf, "entity": "I", "key": "employer"})
			}
		}
		raw, _ := json.Marshal(map[string]any{"candidates": cands, "retractions": retractions})
		return string(raw)
	})
	byDomain, all, misses, _ := c.runCorpus(t, e.llm(t))
	t.Log("\n" + c.corpusTable(extract.ModeLLM, byDomain, all))
	if all.errors > 0 || all.found != all.facts || all.entity != all.facts || all.key != all.facts ||
		all.both != all.facts || all.falseFacts > 0 || all.notFactsKept > 0 || all.conceptsOneKey != all.concepts {
		t.Errorf("the labels, read back through the LLM mode, are not the labels:\n%s", strings.Join(misses, "\n"))
	}
	if n := len(e.received()); n != len(c.snippets) {
		t.Errorf("%d calls for %d snippets", n, len(c.snippets))
	}
}
