package extract_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/extract"
)

var testNow = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

// fakeLLM is a local server that speaks the OpenAI chat completions
// protocol: it records each request and answers with answer.
type fakeLLM struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	got    []recorded
	answer func(w http.ResponseWriter, r *http.Request)
}

type recorded struct {
	path   string
	header http.Header
	body   map[string]any
}

func newFakeLLM(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) *fakeLLM {
	t.Helper()
	f := &fakeLLM{t: t, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.got = append(f.got, recorded{path: r.URL.Path, header: r.Header.Clone(), body: body})
		f.mu.Unlock()
		f.answer(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLLM) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.got...)
}

// completion answers a chat completion whose message content is content.
func completion(content string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "fake",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
		})
	}
}

func newLLM(t *testing.T, url string, timeout time.Duration) *extract.LLM {
	t.Helper()
	l, err := extract.NewLLM(extract.Config{URL: url, Model: "fake-model", Key: "sk-secret", Timeout: timeout})
	if err != nil {
		t.Fatalf("NewLLM: %v", err)
	}
	return l
}

const goodAnswer = `{"candidates": [
 {"content": "Ann lives in Berlin.", "entity": "Ann", "key": "lives_in", "durability": "long_term", "category": "observation", "confidence": 0.9, "reason": "Stable but changeable."},
 {"content": "Bob is furious today.", "entity": "Bob", "key": "mood", "durability": "permanent", "category": "mood", "reason": "A feeling."},
 {"content": "We decided to use PostgreSQL instead of MySQL because we already run it.", "key": "database", "durability": "permanent", "category": "decision", "alternatives": ["MySQL"], "reasoning": "we already run it", "reason": "A decision."},
 {"content": "Ann must send the report by June 10.", "entity": "Ann", "key": "send_report", "durability": "short_term", "category": "obligation", "deadline": "2026-06-10T00:00:00Z", "reason": "A duty with a date."}
]}`

func TestLLMExtract(t *testing.T) {
	fake := newFakeLLM(t, completion(goodAnswer))
	l := newLLM(t, fake.srv.URL+"/v1/", 0)
	cands, err := l.Extract(context.Background(), "Ann lives in Berlin. Bob is furious today.", "Team", testNow)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	if len(cands) != 4 {
		t.Fatalf("Extract = %d candidates, want 4: %+v", len(cands), cands)
	}
	// lives_in is a synonym of the vocabulary's home_city.
	if c := cands[0]; c.Entity != "Ann" || c.Key != "home_city" || c.Durability != "long_term" || c.Category != "observation" || c.Confidence != 0.9 || c.Reason == "" {
		t.Errorf("candidate 0 = %+v", c)
	}
	// Moods never harden, whatever the model says.
	if c := cands[1]; c.Durability != "ephemeral" || !strings.Contains(c.Reason, "never hardens") {
		t.Errorf("mood candidate = %+v, want it clamped to ephemeral and the clamp explained", c)
	}
	if c := cands[2]; c.Entity != "Team" || len(c.Alternatives) != 1 || c.Reasoning != "we already run it" {
		t.Errorf("decision candidate = %+v, want the given entity, its alternative and reasoning", c)
	}
	if c := cands[3]; c.Deadline == nil || !c.Deadline.Equal(time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("obligation deadline = %v", c.Deadline)
	}

	reqs := fake.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.path != "/v1/chat/completions" {
		t.Errorf("path = %q, want /v1/chat/completions", r.path)
	}
	if got := r.header.Get("Authorization"); got != "Bearer sk-secret" {
		t.Errorf("Authorization = %q", got)
	}
	if r.body["model"] != "fake-model" || r.body["temperature"] != float64(0) {
		t.Errorf("request model/temperature = %v/%v", r.body["model"], r.body["temperature"])
	}
	if rf, _ := r.body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format = %v, want json_object", r.body["response_format"])
	}
	msgs, _ := r.body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v, want system and user", msgs)
	}
	system, _ := msgs[0].(map[string]any)
	user, _ := msgs[1].(map[string]any)
	if system["role"] != "system" || system["content"] != extract.Prompt() {
		t.Errorf("first message is not the embedded prompt: %v", system["role"])
	}
	content, _ := user["content"].(string)
	if user["role"] != "user" || !strings.Contains(content, "Bob is furious today.") ||
		!strings.Contains(content, "2026-03-02T09:30:00Z") || !strings.Contains(content, "Default entity: Team\n") {
		t.Errorf("user message = %q, want the text, the time and the entity", content)
	}
}

func TestLLMWithoutKeySendsNoAuthorization(t *testing.T) {
	fake := newFakeLLM(t, completion(`{"candidates": []}`))
	l, err := extract.NewLLM(extract.Config{URL: fake.srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	cands, err := l.Extract(context.Background(), "Hello there?", "", testNow)
	if err != nil || len(cands) != 0 {
		t.Fatalf("Extract = %v, %v; want no candidates", cands, err)
	}
	if got := fake.requests()[0].header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none without a key", got)
	}
}

func TestLLMErrors(t *testing.T) {
	slow := make(chan struct{})
	t.Cleanup(func() { close(slow) })
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		code   string
		want   []string
	}{
		{"invalid candidates", completion(`{"candidates": [
			{"content": "a", "durability": "long_term", "category": "observation", "reason": "r"},
			{"content": "b", "durability": "long_term", "category": "observation", "reason": "r"},
			{"content": "c", "durability": "forever", "category": "Mood!", "reason": "r", "deadline": "June 10"},
			{"durability": "ephemeral", "category": "mood"}]}`),
			extract.CodeInvalidAnswer, []string{
				`the model's answer is not valid: candidates[2].durability "forever" is not one of permanent, long_term, short_term, ephemeral`,
				`candidates[2].category "Mood!" is not a category`,
				`candidates[2].deadline "June 10" is not an RFC 3339 time`,
				`candidates[3].content is missing`,
				`candidates[3].reason is missing`,
			}},
		{"wrong types", completion(`{"candidates": [{"content": 3, "durability": "ephemeral", "category": "mood", "reason": "r", "confidence": 7, "alternatives": "x"}]}`),
			extract.CodeInvalidAnswer, []string{`candidates[0].content must be a string, not a number`, `candidates[0].confidence 7 is out of range`, `candidates[0].alternatives must be a list of strings`}},
		{"reasoning on a non-decision", completion(`{"candidates": [{"content": "a", "durability": "long_term", "category": "observation", "reasoning": "why", "reason": "r"}]}`),
			extract.CodeInvalidAnswer, []string{`candidates[0].reasoning is set on a observation: only decisions have reasoning`}},
		{"no candidates key", completion(`{"facts": []}`),
			extract.CodeInvalidAnswer, []string{`candidates is missing: the answer must be {"candidates": [...]}`}},
		{"content not JSON", completion(`Sure! Ann lives in Berlin.`),
			extract.CodeInvalidAnswer, []string{"the model's answer is not JSON", "Sure! Ann lives in Berlin."}},
		{"body not JSON", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "<html>hello</html>") },
			extract.CodeInvalidAnswer, []string{"did not answer with a chat completion", "<html>hello</html>"}},
		{"no choices", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{"choices": []}`) },
			extract.CodeInvalidAnswer, []string{"answered with no choices"}},
		{"empty content", completion(""), extract.CodeInvalidAnswer, []string{"the model's answer is empty"}},
		{"status 500", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error": {"message": "model overloaded", "type": "server_error"}}`)
		}, extract.CodeUnavailable, []string{"answered 500 Internal Server Error", "model overloaded"}},
		{"status 401", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "bad key")
		}, extract.CodeUnavailable, []string{"answered 401 Unauthorized", "bad key"}},
		{"too slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		}, extract.CodeUnavailable, []string{"did not answer within 200ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeLLM(t, tt.answer)
			l := newLLM(t, fake.srv.URL, 200*time.Millisecond)
			cands, err := l.Extract(context.Background(), "Ann lives in Berlin.", "", testNow)
			var le *extract.Error
			if !errors.As(err, &le) {
				t.Fatalf("Extract = %+v, %v; want an *extract.Error", cands, err)
			}
			if le.Code != tt.code {
				t.Errorf("code = %q, want %q (%s)", le.Code, tt.code, le.Message)
			}
			for _, w := range tt.want {
				if !strings.Contains(le.Message, w) {
					t.Errorf("message = %q\nwant it to contain %q", le.Message, w)
				}
			}
			if strings.Contains(le.Message, "sk-secret") {
				t.Errorf("message %q shows the key", le.Message)
			}
		})
	}
}

func TestLLMEndpointDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	l := newLLM(t, "http://"+addr+"/v1", time.Second)
	_, err = l.Extract(context.Background(), "Ann lives in Berlin.", "", testNow)
	var le *extract.Error
	if !errors.As(err, &le) || le.Code != extract.CodeUnavailable ||
		!strings.Contains(le.Message, "the LLM endpoint at http://"+addr+"/v1 did not answer: ") {
		t.Fatalf("Extract against a closed port = %v, want llm_unavailable naming the URL", err)
	}
}

func TestLLMAcceptsFencedJSON(t *testing.T) {
	fake := newFakeLLM(t, completion("```json\n{\"candidates\": [{\"content\": \"Ann likes tea.\", \"durability\": \"long_term\", \"category\": \"preference\", \"reason\": \"a taste\"}]}\n```"))
	cands, err := newLLM(t, fake.srv.URL, 0).Extract(context.Background(), "Ann likes tea.", "Ann", testNow)
	if err != nil || len(cands) != 1 || cands[0].Entity != "Ann" {
		t.Fatalf("Extract = %+v, %v", cands, err)
	}
}

func TestLLMCallerCancels(t *testing.T) {
	fake := newFakeLLM(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := newLLM(t, fake.srv.URL, 10*time.Second).Extract(ctx, "text", "", testNow)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Extract with a cancelled context = %v, want the context's error", err)
	}
}
