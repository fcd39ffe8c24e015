package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// newExtractFixture is newAPIFixture with extractors.
func newExtractFixture(t *testing.T, set *extract.Set) *apiFixture {
	t.Helper()
	return newAPIFixture(t, func(c *api.Config) { c.Extractors = set })
}

// fakeChat is an OpenAI-compatible endpoint answering content, or status
// with a body when status is not 200.
func fakeChat(t *testing.T, status int, content string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			io.WriteString(w, content)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func llmSet(t *testing.T, url string) *extract.Set {
	t.Helper()
	set, err := extract.NewSet(extract.Config{URL: url + "/v1", Model: "fake", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

type extractAnswer struct {
	Mode          string              `json:"mode"`
	PromptVersion string              `json:"prompt_version"`
	Candidates    []extract.Candidate `json:"candidates"`
	StoredNodeIDs []int64             `json:"stored_node_ids"`
}

const extractText = "Ann lives in Berlin. She is feeling tired today!\nWhere is the report? " +
	"We decided to use PostgreSQL instead of MySQL because we already run it. Ann must send the report by June 10."

func TestExtractRulesByDefault(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok, map[string]any{"text": extractText, "entity": "Ann"})
	res.wantStatus(t, http.StatusOK)
	var got extractAnswer
	res.decode(t, &got)
	type axes struct{ category, durability string }
	want := []axes{{"observation", "long_term"}, {"mood", "ephemeral"}, {"decision", "permanent"}, {"obligation", "short_term"}}
	if got.Mode != "rules" || got.PromptVersion != "" || len(got.Candidates) != len(want) || got.StoredNodeIDs != nil {
		t.Fatalf("extract = %s, want 4 rules candidates and nothing stored", res.body)
	}
	for i, c := range got.Candidates {
		if c.Category != want[i].category || c.Durability != want[i].durability || c.Reason == "" || c.Entity != "Ann" {
			t.Errorf("candidate %d = %+v, want %v with a reason", i, c, want[i])
		}
	}
	if strings.Contains(string(res.body), "stored_node_ids") {
		t.Errorf("extract without store answers stored_node_ids: %s", res.body)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 0 {
		t.Errorf("extract without store wrote %d rows", n)
	}
}

func TestExtractStoreGoesThroughConsolidation(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok,
		map[string]any{"text": extractText, "entity": "Ann", "mode": "rules", "store": true})
	res.wantStatus(t, http.StatusCreated)
	var got extractAnswer
	res.decode(t, &got)
	if len(got.StoredNodeIDs) != 4 {
		t.Fatalf("stored_node_ids = %v, want one per candidate", got.StoredNodeIDs)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE scope = 'acme' AND id = ANY($1)
		AND properties->>'entity' = 'Ann' AND properties ? 'category' AND properties ? 'fact_durability'
		AND properties->'metadata'->>'source' = 'extraction' AND properties->'metadata'->>'mode' = 'rules'
		AND properties->'metadata'->>'reason' <> '' AND NOT properties ? 'durability'`, got.StoredNodeIDs); n != 4 {
		t.Errorf("stored rows with their axes and provenance = %d, want 4", n)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE properties->>'category' = 'obligation'
		AND properties->>'deadline' LIKE '2026-06-10T%'`); n != 1 {
		t.Errorf("obligation row with its deadline = %d", n)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE properties->>'category' = 'decision'
		AND properties->'alternatives' = '["MySQL"]' AND properties->>'reasoning' = 'we already run it'`); n != 1 {
		t.Errorf("decision row with alternatives and reasoning = %d", n)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.push' AND actor = 'token:agent'`); n != 1 {
		t.Errorf("push audited as the token: %d rows", n)
	}
	if _, err := f.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts f JOIN entities e ON e.id = f.entity_id
		WHERE f.scope = 'acme' AND e.name = 'Ann' AND (f.category, f.durability) IN
		(('observation', 'long_term'), ('mood', 'ephemeral'), ('decision', 'permanent'), ('obligation', 'short_term'))`); n != 4 {
		t.Errorf("facts after consolidation = %d, want the 4 candidates with their axes", n)
	}
	if n := f.count(t, `SELECT count(*) FROM decisions WHERE scope = 'acme' AND reasoning = 'we already run it'`); n != 1 {
		t.Errorf("decisions after consolidation = %d, want 1", n)
	}
}

func TestExtractLLM(t *testing.T) {
	answer := `{"candidates": [
		{"content": "Ann lives in Berlin.", "entity": "Ann", "key": "lives_in", "durability": "long_term", "category": "observation", "confidence": 0.9, "reason": "Stable."},
		{"content": "She is feeling tired today!", "key": "mood", "durability": "long_term", "category": "mood", "confidence": 0.8, "reason": "A feeling."}]}`
	chat, _ := fakeChat(t, http.StatusOK, answer)
	f := newExtractFixture(t, llmSet(t, chat.URL))
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)

	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok,
		map[string]any{"text": "Ann lives in Berlin. She is feeling tired today!", "entity": "Ann", "mode": "llm", "store": true})
	res.wantStatus(t, http.StatusCreated)
	var got extractAnswer
	res.decode(t, &got)
	if got.Mode != "llm" || got.PromptVersion != extract.PromptVersion || len(got.Candidates) != 2 || len(got.StoredNodeIDs) != 2 {
		t.Fatalf("extract(llm) = %s", res.body)
	}
	if c := got.Candidates[1]; c.Durability != "ephemeral" || c.Entity != "Ann" || !strings.Contains(c.Reason, "never hardens") {
		t.Errorf("mood candidate = %+v, want it ephemeral whatever the model said, about Ann", c)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE properties->'metadata'->>'mode' = 'llm'
		AND properties->'metadata'->>'prompt_version' = $1 AND (properties->>'confidence')::float > 0.7`, extract.PromptVersion); n != 2 {
		t.Errorf("llm rows with mode, prompt version and confidence = %d, want 2", n)
	}
	if _, err := f.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts WHERE (category, durability, confidence) IN
		(('observation', 'long_term', 0.9), ('mood', 'ephemeral', 0.8))`); n != 2 {
		t.Errorf("facts after consolidation = %d, want both with the model's confidence", n)
	}

	// Rules stay the default with an LLM configured.
	res = f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "Ann lives in Berlin."})
	res.wantStatus(t, http.StatusOK)
	if m := res.object(t); m["mode"] != "rules" {
		t.Errorf("default mode with an LLM = %v, want rules", m["mode"])
	}
}

func TestExtractLLMNotConfigured(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "Ann lives in Berlin.", "mode": "llm"})
	e := res.wantError(t, http.StatusBadRequest, "invalid")
	if e.Error.Field != "mode" || !strings.Contains(e.Error.Message, "mode llm needs an LLM endpoint: set TENURE_LLM_URL and TENURE_LLM_MODEL (or use mode rules)") {
		t.Errorf("error = %+v", e.Error)
	}
}

func TestExtractLLMFailures(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		content string
		code    string
		want    string
	}{
		{"down", http.StatusInternalServerError, `{"error": {"message": "model not loaded"}}`, "llm_unavailable", "answered 500 Internal Server Error: \"model not loaded\""},
		{"nonsense", http.StatusOK, "I think Ann lives in Berlin.", "llm_invalid_answer", "the model's answer is not JSON"},
		{"invalid candidate", http.StatusOK, `{"candidates": [{"content": "x", "durability": "forever", "category": "state", "reason": "r"}]}`,
			"llm_invalid_answer", `candidates[0].durability "forever" is not one of permanent, long_term, short_term, ephemeral`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat, calls := fakeChat(t, tt.status, tt.content)
			f := newExtractFixture(t, llmSet(t, chat.URL))
			tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
			res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok,
				map[string]any{"text": "Ann lives in Berlin.", "mode": "llm", "store": true})
			e := res.wantError(t, http.StatusBadGateway, tt.code)
			if !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("message = %q, want it to contain %q", e.Error.Message, tt.want)
			}
			if calls.Load() != 1 || f.count(t, `SELECT count(*) FROM memory_nodes`) != 0 {
				t.Errorf("calls = %d; a failed extraction wrote rows", calls.Load())
			}
			if !strings.Contains(f.logs.String(), "api.llm_failed") {
				t.Errorf("the failure was not logged")
			}
		})
	}
}

func TestExtractRefusals(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	reader := f.newToken(t, "acme", "watcher", auth.TokenReader)
	tests := []struct {
		name, path, token string
		body              any
		status            int
		code, field, want string
	}{
		{"empty text", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "  "}, 400, "invalid", "text", "the text is empty"},
		{"long text", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": strings.Repeat("a", 50001)}, 400, "invalid", "text", "at most 50000"},
		{"long entity", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "x", "entity": strings.Repeat("a", 201)}, 400, "invalid", "entity", "at most 200"},
		{"long speaker", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "x", "speaker": strings.Repeat("é", 201)}, 400, "invalid", "speaker", "at most 200"},
		{"speaker with a control character", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "x", "speaker": "Jor\u0007dan"}, 400, "invalid", "speaker", ""},
		{"speaker not a string", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "x", "speaker": 42}, 400, "invalid", "speaker", ""},
		{"unknown mode", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "x", "mode": "magic"}, 400, "invalid", "mode", "allowed values are rules"},
		{"unknown field", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "x", "stor": true}, 400, "invalid", "stor", "unknown field"},
		{"store not bool", "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "x", "store": "yes"}, 400, "invalid", "store", "true or false"},
		{"reader storing", "/api/v1/scopes/acme/extract", reader, map[string]any{"text": "x", "store": true}, 403, "forbidden", "store", "may only read"},
		{"other scope", "/api/v1/scopes/other/extract", tok, map[string]any{"text": "x"}, 403, "forbidden", "", "scope acme"},
		{"no token", "/api/v1/scopes/acme/extract", "", map[string]any{"text": "x"}, 401, "unauthorized", "", "bearer"},
	}
	// A reader may extract without store, as over MCP: it writes nothing.
	t.Run("reader without store", func(t *testing.T) {
		var got struct {
			Candidates []struct{ Content string } `json:"candidates"`
		}
		res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", reader, map[string]any{"text": "Ann lives in Berlin."})
		res.wantStatus(t, http.StatusOK)
		res.decode(t, &got)
		if len(got.Candidates) != 1 || got.Candidates[0].Content != "Ann lives in Berlin." {
			t.Errorf("candidates = %+v, want the one sentence", got.Candidates)
		}
		if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 0 {
			t.Errorf("a reader's extraction wrote %d rows", n)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := f.call(t, http.MethodPost, tt.path, tt.token, tt.body).wantError(t, tt.status, tt.code)
			if e.Error.Field != tt.field || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("error = %+v, want field %q and %q", e.Error, tt.field, tt.want)
			}
		})
	}
}

// The speaker names who "I" is; the assistant's lines are no facts, and the
// candidates reach consolidation with their entity and key.
func TestExtractSpeaker(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	text := "User: Hi! I live in Denver.\nAssistant: Noted, you live in Denver and you are a pilot.\nUser: I'm a nurse. billing-db replication lag is 4 s."
	extractAs := func(body map[string]any, status int) extractAnswer {
		t.Helper()
		res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok, body)
		res.wantStatus(t, status)
		var got extractAnswer
		res.decode(t, &got)
		return got
	}
	type about struct{ entity, key, content string }
	check := func(got extractAnswer, want []about) {
		t.Helper()
		if len(got.Candidates) != len(want) {
			t.Fatalf("candidates = %+v, want %d", got.Candidates, len(want))
		}
		for i, c := range got.Candidates {
			if c.Entity != want[i].entity || c.Key != want[i].key || c.Content != want[i].content {
				t.Errorf("candidate %d = %+v, want %+v", i, c, want[i])
			}
		}
	}
	check(extractAs(map[string]any{"text": text}, http.StatusOK), []about{
		{memory.UserEntity, "home_city", "I live in Denver."}, {memory.UserEntity, "occupation", "I'm a nurse."},
		{"billing-db", "replication_lag", "billing-db replication lag is 4 s."}})
	check(extractAs(map[string]any{"text": text, "speaker": " Jordan "}, http.StatusOK), []about{
		{"Jordan", "home_city", "I live in Denver."}, {"Jordan", "occupation", "I'm a nurse."},
		{"billing-db", "replication_lag", "billing-db replication lag is 4 s."}})
	check(extractAs(map[string]any{"text": "Hi, I am Jordan, a nurse in Denver."}, http.StatusOK), []about{
		{"Jordan", "occupation", "Jordan is a nurse."}, {"Jordan", "home_city", "Jordan lives in Denver."}})

	got := extractAs(map[string]any{"text": text, "speaker": "Jordan", "store": true}, http.StatusCreated)
	if len(got.StoredNodeIDs) != 3 {
		t.Fatalf("stored_node_ids = %v, want 3", got.StoredNodeIDs)
	}
	if _, err := f.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts f JOIN entities e ON e.id = f.entity_id
		WHERE f.scope = 'acme' AND (e.name, f.key) IN (('Jordan', 'home_city'), ('Jordan', 'occupation'), ('billing-db', 'replication_lag'))`); n != 3 {
		t.Errorf("facts on (Jordan, home_city), (Jordan, occupation), (billing-db, replication_lag) = %d, want 3", n)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts WHERE content ILIKE '%pilot%'`); n != 0 {
		t.Errorf("the assistant's line became %d facts", n)
	}
}
