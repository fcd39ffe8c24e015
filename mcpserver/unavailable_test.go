package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/logdedup"
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

// errorLines counts the ERROR lines of a JSON log.
type errorLines struct {
	mu    sync.Mutex
	lines int
}

func (e *errorLines) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines += bytes.Count(p, []byte(`"level":"ERROR"`))
	return len(p), nil
}

func (e *errorLines) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lines
}

// rpcErrorOf is the JSON-RPC error response of a refused request.
type rpcErrorOf struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			RetryAfterSeconds int `json:"retry_after_seconds"`
		} `json:"data"`
	} `json:"error"`
}

// TestToolsWithDatabaseDown: with PostgreSQL stopped, a call past the token
// check is a tool error saying, in one line, that the store is unavailable
// and to retry after 5 seconds, not that Tenure failed; a request whose
// token cannot be checked is answered 503 with Retry-After: 5 and a JSON-RPC
// error for its id saying the same. A burst of 200 such requests writes a
// handful of ERROR lines, each repeat counted (logdedup), not 200.
func TestToolsWithDatabaseDown(t *testing.T) {
	pg := pgtest.NewServer(t)
	pool := pgtest.Connect(t, pg.URL())
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	raw, written := &errorLines{}, &errorLines{}
	dedup := logdedup.New(slog.NewJSONHandler(written, nil), logdedup.Options{})
	logger := slog.New(tee{slog.NewJSONHandler(raw, nil), dedup})
	store := memory.NewStore(pool, memory.Options{Logger: quiet})
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
		want := tt.tool + " could not run: the memory store is unavailable (its database is unreachable or not answering); retry after 5 seconds"
		if res.StatusCode != http.StatusOK || msg != want {
			t.Errorf("%s with the database down = %d %s, want a tool error %q", tt.tool, res.StatusCode, body, want)
		}
	}
	res, body := rawCall(t, tokens.URL, "recall", `{}`)
	var refused rpcErrorOf
	if err := json.Unmarshal([]byte(body), &refused); err != nil {
		t.Fatalf("token check with the database down answered %q, want a JSON-RPC error: %v", body, err)
	}
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "5" ||
		res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("token check with the database down = %d (Retry-After %q, Content-Type %q), want 503, 5, application/json",
			res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"))
	}
	wantMsg := "the token could not be checked: the memory store is unavailable (its database is unreachable or not answering); retry after 5 seconds"
	if refused.JSONRPC != "2.0" || string(refused.ID) != "1" || refused.Error.Code != -32000 || refused.Error.Message != wantMsg ||
		refused.Error.Data.RetryAfterSeconds != 5 {
		t.Errorf("token check with the database down answered %s, want a JSON-RPC error for id 1, code -32000, %q", body, wantMsg)
	}

	// The error answers the request's id as sent, or null when there is none
	// to answer.
	for _, tt := range []struct{ body, id string }{
		{`{"jsonrpc":"2.0","id":"call-7","method":"tools/list"}`, `"call-7"`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"recall","arguments":{"query":"Lisbon"}},"id":-3}`, `-3`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `null`},
		{`{"jsonrpc":"2.0","id":{"not":"an id"},"method":"tools/list"}`, `null`},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, `null`},
		{`not json`, `null`},
	} {
		req, err := http.NewRequest(http.MethodPost, tokens.URL, strings.NewReader(tt.body))
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
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		var got rpcErrorOf
		if err := json.Unmarshal(b, &got); err != nil || res.StatusCode != http.StatusServiceUnavailable ||
			string(got.ID) != tt.id || got.Error.Code != -32000 {
			t.Errorf("%s with the database down = %d %s, want 503 and a JSON-RPC error for id %s", tt.body, res.StatusCode, b, tt.id)
		}
	}

	// A burst: 100 calls past the token check, 100 refused at it.
	before := raw.count()
	for i := range 100 {
		if _, body := rawCall(t, calls.URL, "recall", `{"query": "Lisbon"}`); !strings.Contains(toolErrorText(t, body), "unavailable") {
			t.Fatalf("call %d of the burst = %s, want a tool error", i, body)
		}
		if res, _ := rawCall(t, tokens.URL, "recall", `{"query": "Lisbon"}`); res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("token check %d of the burst = %d, want 503", i, res.StatusCode)
		}
	}
	dedup.Flush()
	t.Logf("200 requests with the database down: %d ERROR records, %d ERROR lines written (with the counts of repeats)",
		raw.count()-before, written.count())
	if raw.count()-before < 200 {
		t.Fatalf("the burst logged %d ERROR records, want one a request at least", raw.count()-before)
	}
	if n := written.count(); n > 10 {
		t.Errorf("the burst of 200 requests wrote %d ERROR lines, want a handful", n)
	}
}

// tee hands every record to both handlers.
type tee [2]slog.Handler

func (t tee) Enabled(ctx context.Context, l slog.Level) bool {
	return t[0].Enabled(ctx, l) || t[1].Enabled(ctx, l)
}

func (t tee) Handle(ctx context.Context, r slog.Record) error {
	return errors.Join(t[0].Handle(ctx, r.Clone()), t[1].Handle(ctx, r))
}

func (t tee) WithAttrs(attrs []slog.Attr) slog.Handler {
	return tee{t[0].WithAttrs(attrs), t[1].WithAttrs(attrs)}
}

func (t tee) WithGroup(name string) slog.Handler {
	return tee{t[0].WithGroup(name), t[1].WithGroup(name)}
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
