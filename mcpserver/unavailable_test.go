package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/mcpserver"
	"github.com/tenurehq/tenure/memory"
)

// fixedCaller lets every bearer token in as one writer of acme, without the
// database.
type fixedCaller struct{}

func (fixedCaller) Authenticate(context.Context, string) (mcpserver.TokenInfo, error) {
	return mcpserver.TokenInfo{Name: "agent", Scope: "acme", Role: auth.TokenWriter}, nil
}

// rawCall posts one tools/call to url and returns the status, the headers
// and the body.
func rawCall(t *testing.T, url, tool, args string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer any")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// toolErrorText is the text of the tool error in a tools/call answer, or
// "" when the answer is not one.
func toolErrorText(t *testing.T, body string) string {
	t.Helper()
	var rpc struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &rpc); err != nil || !rpc.Result.IsError || len(rpc.Result.Content) == 0 {
		return ""
	}
	return rpc.Result.Content[0].Text
}

// TestToolsWithDatabaseDown: with PostgreSQL stopped, a call fails with a
// tool error saying the store is unavailable and to retry, not that Tenure
// failed; the token check answers 503 with Retry-After.
func TestToolsWithDatabaseDown(t *testing.T) {
	pg := pgtest.NewServer(t)
	pool := pgtest.Connect(t, pg.URL())
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := memory.NewStore(pool, memory.Options{Logger: logger})
	calls := httptest.NewServer(mcpserver.NewHandler(store, fixedCaller{}, logger))
	t.Cleanup(calls.Close)
	tokens := httptest.NewServer(mcpserver.NewHandler(store, mcpserver.NewTokenAuth(auth.NewTokens(pool, nil)), logger))
	t.Cleanup(tokens.Close)
	if _, body := rawCall(t, calls.URL, "recall", `{"query": "Lisbon"}`); toolErrorText(t, body) != "" {
		t.Fatalf("recall before the outage failed: %s", body)
	}

	pg.Stop(t)
	for _, tt := range []struct{ tool, args string }{
		{"recall", `{"query": "Lisbon"}`},
		{"remember", `{"content": "Written while the database is down."}`},
	} {
		res, body := rawCall(t, calls.URL, tt.tool, tt.args)
		msg := toolErrorText(t, body)
		if res.StatusCode != http.StatusOK || !strings.Contains(msg, "store is unavailable") || !strings.Contains(msg, "retry") ||
			strings.Contains(msg, "inside Tenure") {
			t.Errorf("%s with the database down = %d %s, want a tool error saying the store is unavailable", tt.tool, res.StatusCode, body)
		}
	}
	res, body := rawCall(t, tokens.URL, "recall", `{}`)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "5" || !strings.Contains(body, "unavailable") {
		t.Errorf("token check with the database down = %d (Retry-After %q) %s, want 503 saying the store is unavailable",
			res.StatusCode, res.Header.Get("Retry-After"), body)
	}
}

// TestCallsAreBounded: with WithRequestTimeout, a call held by a database
// that does not answer fails once the timeout has passed, with a tool error
// saying the store is unavailable.
func TestCallsAreBounded(t *testing.T) {
	f := newMCPFixture(t, mcpserver.WithRequestTimeout(500*time.Millisecond))
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE entity_facts, memory_nodes IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool string
		args any
	}{
		{"recall", map[string]any{"query": "Lisbon"}},
		{"remember", map[string]any{"content": "Edmund lives in Lisbon."}},
	} {
		start := time.Now()
		msg := callError(t, cs, tt.tool, tt.args)
		took := time.Since(start)
		if !strings.Contains(msg, "store is unavailable") {
			t.Errorf("%s held by a lock: %q, want the store unavailable", tt.tool, msg)
		}
		if took < 400*time.Millisecond || took > 5*time.Second {
			t.Errorf("%s answered after %v, want about the 500ms timeout", tt.tool, took)
		}
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "remember", map[string]any{"content": "Edmund lives in Lisbon."}, nil)
}

// TestExtractThroughTheLLMHasItsOwnBound: an extraction through the LLM may
// take the LLM's own timeout, longer than the request timeout: a model that
// answers after the request timeout is still heard.
func TestExtractThroughTheLLMHasItsOwnBound(t *testing.T) {
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(800 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices": [{"message": {"content": "not candidates"}}]}`)
	}))
	t.Cleanup(llm.Close)
	set, err := extract.NewSet(extract.Config{URL: llm.URL, Model: "test", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f := newMCPFixture(t, mcpserver.WithExtractors(set), mcpserver.WithRequestTimeout(300*time.Millisecond))
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	msg := callError(t, cs, "extract", map[string]any{"text": "Edmund lives in Lisbon.", "mode": "llm"})
	if strings.Contains(msg, "unavailable") || !strings.Contains(msg, "answer") {
		t.Errorf("extract through a slow LLM = %q, want its answer judged (its answer is not JSON), not cut at the request timeout", msg)
	}
}
