package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/mcpserver"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

var mcpNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// mcpFixture is an MCP endpoint over a fresh database, with a fixed clock.
type mcpFixture struct {
	pool  *pgxpool.Pool
	store *memory.Store
	url   string
}

// newMCPFixture serves the MCP endpoint with opts.
func newMCPFixture(t *testing.T, opts ...mcpserver.Option) *mcpFixture {
	t.Helper()
	pool := pgtest.NewPool(t)
	now := func() time.Time { return mcpNow }
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	f := &mcpFixture{pool: pool, store: memory.NewStore(pool, memory.Options{Now: now, Logger: logger})}
	srv := httptest.NewServer(mcpserver.NewHandler(f.store, mcpserver.NewTokenAuth(auth.NewTokens(pool, now)), logger, opts...))
	t.Cleanup(srv.Close)
	f.url = srv.URL + "/mcp"
	return f
}

// token creates a live API token and returns it.
func (f *mcpFixture) token(t *testing.T, name, scope, role string) string {
	t.Helper()
	secret, _, err := auth.SeedToken(context.Background(), f.pool, auth.NewToken{Name: name, Scope: scope, Role: role}, mcpNow)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens an MCP client session with token over streamable HTTP.
func (f *mcpFixture) connect(t *testing.T, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := f.dial(token)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func (f *mcpFixture) dial(token string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "tenure-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:             f.url,
		HTTPClient:           &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Connect(ctx, transport, nil)
}

func (f *mcpFixture) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// call calls a tool that must succeed and decodes its structured result
// into out (when not nil).
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res := callRaw(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) is a tool error: %s", name, args, toolText(res))
	}
	if out != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, raw, err)
		}
	}
	return res
}

func callRaw(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s) protocol error: %v", name, err)
	}
	return res
}

// callError calls a tool that must fail and returns its error text.
func callError(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res := callRaw(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want a tool error; result %s", name, args, toolText(res))
	}
	return toolText(res)
}

func toolText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestToolsListed(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		if tool.Description == "" || !strings.Contains(string(schema), `"description"`) {
			t.Errorf("tool %s has no description or undocumented input: %s", tool.Name, schema)
		}
		if strings.Contains(string(schema), `"scope"`) {
			t.Errorf("tool %s takes a scope: %s; the token's scope is the only one", tool.Name, schema)
		}
	}
	slices.Sort(names)
	want := []string{"context", "correct", "extract", "forget", "list_decisions", "recall", "record_decision", "remember", "set_durability"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "tenure" {
		t.Errorf("server name = %q, want tenure", got)
	}
}

func TestUnauthenticatedRequestsGet401(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	revoked := f.token(t, "revoked", "acme", auth.TokenWriter)
	if _, err := f.pool.Exec(ctx, `UPDATE api_tokens SET revoked_at = $1 WHERE name = 'revoked'`, mcpNow); err != nil {
		t.Fatal(err)
	}
	expired := f.token(t, "expired", "acme", auth.TokenWriter)
	if _, err := f.pool.Exec(ctx, `UPDATE api_tokens SET expires_at = $1 WHERE name = 'expired'`, mcpNow.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	for _, tt := range []struct{ name, header string }{
		{"no header", ""},
		{"not bearer", "Basic dXNlcjpwYXNz"},
		{"empty bearer", "Bearer "},
		{"unknown token", "Bearer tnr_not-a-real-token"},
		{"revoked token", "Bearer " + revoked},
		{"expired token", "Bearer " + expired},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("POST /mcp with %q = %d %q (WWW-Authenticate %q), want 401 with a Bearer challenge",
					tt.header, resp.StatusCode, body, resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	if _, err := f.dial("tnr_not-a-real-token"); err == nil {
		t.Errorf("the SDK client connected with an unknown token")
	}

	t.Run("a valid token passes and is marked used", func(t *testing.T) {
		token := f.token(t, "good", "acme", auth.TokenWriter)
		req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(initialize))
		req.Host = "tenure.example.com" // as behind a reverse proxy on the same machine
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"tenure"`)) {
			t.Errorf("initialize with a valid token = %d %s", resp.StatusCode, body)
		}
		if n := f.count(t, `SELECT count(*) FROM api_tokens WHERE name = 'good' AND last_used_at = $1`, mcpNow); n != 1 {
			t.Errorf("last_used_at not set on the token")
		}
	})
}

// rememberOut is a push's answer, as the API gives it.
type rememberOut = wire.Push

func TestRemember(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "laptop", "acme", auth.TokenWriter))

	var one rememberOut
	call(t, cs, "remember", map[string]any{
		"content": "Ann lives in Berlin", "importance": 0.9, "metadata": map[string]any{"source": "chat"},
		"properties": map[string]any{"entity": "Ann", "key": "lives_in"},
	}, &one)
	if len(one.IDs) != 1 || len(one.Notes) != 0 {
		t.Fatalf("remember(one row) = %+v, want one id and no notes", one)
	}
	var props string
	var importance float64
	if err := f.pool.QueryRow(context.Background(), `SELECT scope || ' ' || properties::text, importance FROM memory_nodes WHERE id = $1`,
		one.IDs[0]).Scan(&props, &importance); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(props, "acme ") || !strings.Contains(props, `"entity": "Ann"`) || strings.Contains(props, `"durability"`) ||
		!strings.Contains(props, `"metadata": {"source": "chat"}`) || importance != 0.9 {
		t.Errorf("row = %s, importance %v; want scope acme, the properties and metadata kept, no marker key", props, importance)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.push' AND actor = 'token:laptop' AND scope = 'acme'`); n != 1 {
		t.Errorf("audit rows by token:laptop = %d, want 1", n)
	}

	var batch rememberOut
	call(t, cs, "remember", map[string]any{"rows": []map[string]any{
		{"content": "In a meeting until 3pm", "durability": "transient", "ttl_seconds": 600},
		{"content": "Prefers tea", "metadata": map[string]any{"durability": "durable"}},
	}}, &batch)
	if len(batch.IDs) != 2 {
		t.Fatalf("remember(rows) = %+v, want two ids", batch)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1 AND properties->>'durability' = 'transient' AND ttl_seconds = 600`, batch.IDs[0]); n != 1 {
		t.Errorf("transient row not stored with its marker and ttl")
	}

	t.Run("invalid durability writes nothing", func(t *testing.T) {
		before := f.count(t, `SELECT count(*) FROM memory_nodes`)
		msg := callError(t, cs, "remember", map[string]any{"content": "Ann is tired", "durability": "forever"})
		if !strings.Contains(msg, "durable, transient, expired") || !strings.Contains(msg, "forever") {
			t.Errorf("error = %q, want the value and the allowed values", msg)
		}
		msg = callError(t, cs, "remember", map[string]any{"rows": []map[string]any{
			{"content": "fine"}, {"content": "bad", "metadata": map[string]any{"durability": "permanent"}},
		}})
		if !strings.Contains(msg, "rows[1].metadata.durability") || strings.Contains(msg, "nodes") || !strings.Contains(msg, "durable, transient, expired") {
			t.Errorf("batch error = %q, want the row and the allowed values", msg)
		}
		if after := f.count(t, `SELECT count(*) FROM memory_nodes`); after != before {
			t.Errorf("rows = %d after refused pushes, want %d", after, before)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, args := range []map[string]any{
			{},
			{"content": "x", "rows": []map[string]any{{"content": "y"}}},
			{"content": "x", "importance": 2},
			{"content": "x", "properties": map[string]any{"fact_durability": "forever"}},
		} {
			if msg := callError(t, cs, "remember", args); msg == "" {
				t.Errorf("remember(%v) error is empty", args)
			}
		}
	})
}

func TestReaderTokenOnlyReads(t *testing.T) {
	f := newMCPFixture(t)
	reader := f.connect(t, f.token(t, "dashboard", "acme", auth.TokenReader))
	writes := map[string]map[string]any{
		"remember":        {"content": "Ann lives in Berlin"},
		"record_decision": {"entity": "backend", "key": "db", "decision": "Use PostgreSQL", "reasoning": "We run it"},
		"set_durability":  {"node_id": 1, "durability": "durable"},
		"extract":         {"text": "Ann lives in Berlin.", "store": true},
	}
	for name, args := range writes {
		msg := callError(t, reader, name, args)
		if !strings.Contains(msg, "reader token") {
			t.Errorf("%s by a reader: error = %q, want a refusal naming the reader token", name, msg)
		}
	}
	if n := f.count(t, `SELECT (SELECT count(*) FROM memory_nodes) + (SELECT count(*) FROM decisions)`); n != 0 {
		t.Errorf("a reader wrote %d rows", n)
	}
	call(t, reader, "recall", map[string]any{"query": "berlin"}, nil)
	call(t, reader, "context", map[string]any{}, nil)
	call(t, reader, "list_decisions", map[string]any{}, nil)
	call(t, reader, "extract", map[string]any{"text": "Ann lives in Berlin."}, nil)
}

// recallOut is a recall's answer, as the API gives it.
type recallOut = wire.Recall

func TestRecallAndScopes(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	person := memory.Human("ann@example.com")
	for _, in := range []memory.NewFact{
		{Scope: "acme", Entity: "Ann", Key: "lives_in", Content: "Ann lives in Berlin", Category: "observation"},
		{Scope: "acme", Entity: "Ann", Key: "prefers", Content: "Ann prefers trains to Berlin over flights", Category: "preference"},
		{Scope: "other", Entity: "Ann", Key: "lives_in", Content: "Ann lives in Berlin, says the other scope"},
	} {
		if _, _, err := f.store.CreateFact(ctx, person, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.store.RecordDecision(ctx, person, memory.NewDecision{Scope: "acme", Entity: "office", Key: "city",
		Decision: "The office stays in Berlin", Reasoning: "Most of the team lives there", Alternatives: []string{"Munich"}}); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenReader))

	var out recallOut
	call(t, cs, "recall", map[string]any{"query": "berlin"}, &out)
	if len(out.Results) != 3 {
		t.Fatalf("recall(berlin) = %d results, want the 3 facts of scope acme", len(out.Results))
	}
	for _, r := range out.Results {
		if r.Fact.Scope != "acme" {
			t.Errorf("recall returned fact %d of scope %s", r.Fact.ID, r.Fact.Scope)
		}
		if r.Fact.Category == "decision" && (r.Decision == nil || r.Decision.Reasoning != "Most of the team lives there") {
			t.Errorf("decision result = %+v, want its reasoning", r.Decision)
		}
	}
	call(t, cs, "recall", map[string]any{"query": "berlin", "category": "preference", "entity": "Ann", "limit": 5}, &out)
	if len(out.Results) != 1 || out.Results[0].Fact.Key != "prefers" {
		t.Errorf("recall(berlin, preference) = %+v, want the preference", out.Results)
	}
	if msg := callError(t, cs, "recall", map[string]any{"durability": "forever"}); !strings.Contains(msg, "permanent, long_term, short_term, ephemeral") {
		t.Errorf("recall(bad durability) error = %q, want the allowed values", msg)
	}
	if msg := callError(t, cs, "recall", map[string]any{"limit": 1000}); !strings.Contains(msg, "1 to 100") {
		t.Errorf("recall(limit 1000) error = %q", msg)
	}
	if msg := callError(t, cs, "recall", map[string]any{"scope": "other"}); !strings.Contains(msg, "scope") {
		t.Errorf("recall(scope other) error = %q, want the scope argument refused", msg)
	}
}

// contextOut is the brief, as the API gives it.
type contextOut = wire.Brief

func TestContextTool(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	if _, err := f.store.RecordDecision(ctx, memory.Human("ann@example.com"), memory.NewDecision{Scope: "acme", Entity: "backend",
		Key: "database", Decision: "Use PostgreSQL", Reasoning: "We already run it", Alternatives: []string{"MySQL"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.CreateFact(ctx, memory.Human("ann@example.com"), memory.NewFact{Scope: "acme", Entity: "Ann",
		Content: "Ann is the CTO", Category: "identity"}); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))

	res := call(t, cs, "context", map[string]any{}, nil)
	want := "Memory brief for scope acme, as of 2026-06-01 12:00 UTC\n\nDecisions (settled, do not reopen):\n- [backend] Use PostgreSQL — because We already run it (rejected: MySQL)\n\nKnown facts:\n- [Ann] Ann is the CTO (as of 2026-06-01)\n"
	if got := toolText(res); got != want {
		t.Errorf("context() text =\n%s\nwant\n%s", got, want)
	}

	var out contextOut
	call(t, cs, "context", map[string]any{"format": "json", "budget": 300}, &out)
	if out.Budget != 300 || len(out.Decisions) != 1 || out.Decisions[0].Reasoning != "We already run it" ||
		out.Text != want || out.Used != len([]rune(want)) {
		t.Errorf("context(json) = %+v", out)
	}
	if msg := callError(t, cs, "context", map[string]any{"budget": 10}); !strings.Contains(msg, "200 to 100000") {
		t.Errorf("context(budget 10) error = %q", msg)
	}
	if msg := callError(t, cs, "context", map[string]any{"format": "xml"}); !strings.Contains(msg, "text, json") {
		t.Errorf("context(format xml) error = %q", msg)
	}
}

func TestRecordAndListDecisions(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "planner", "acme", auth.TokenWriter))

	var d memory.Decision
	call(t, cs, "record_decision", map[string]any{
		"entity": "backend", "key": "database", "decision": "Use PostgreSQL", "reasoning": "We already run it",
		"alternatives": []string{"MySQL", "SQLite"}, "decided_at": "2026-05-30T10:00:00Z",
	}, &d)
	if d.ID == 0 || d.Scope != "acme" || !d.DoNotReopen || d.DecidedBy != "planner" || !d.DecidedAt.Equal(time.Date(2026, 5, 30, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("record_decision = %+v, want a locked decision of scope acme decided by the token", d)
	}
	if n := f.count(t, `SELECT count(*) FROM decisions d JOIN entity_facts f ON f.id = d.fact_id
		WHERE d.id = $1 AND d.reasoning = 'We already run it' AND f.source = 'api' AND f.scope = 'acme'`, d.ID); n != 1 {
		t.Errorf("decision %d not stored with its reasoning and fact", d.ID)
	}

	msg := callError(t, cs, "record_decision", map[string]any{
		"entity": "backend", "key": "database", "decision": "Use MySQL", "reasoning": "Cheaper hosting",
	})
	if !strings.Contains(msg, "decision_locked") || !strings.Contains(msg, "decision "+itoa(d.ID)) || !strings.Contains(msg, "We already run it") {
		t.Errorf("record_decision over a lock: error = %q, want decision_locked with the id %d and its reasoning", msg, d.ID)
	}
	if n := f.count(t, `SELECT count(*) FROM decisions`); n != 1 {
		t.Errorf("decisions = %d after a refused write, want 1", n)
	}
	if n := f.count(t, `SELECT count(*) FROM consolidation_rejections WHERE reason = 'decision_locked' AND decision_id = $1`, d.ID); n != 1 {
		t.Errorf("refusal not logged: %d rejection rows", n)
	}
	for _, args := range []map[string]any{
		{"entity": "backend", "key": "queue", "decision": "Use river"},                                                         // no reasoning
		{"entity": "backend", "key": "queue", "decision": "Use river", "reasoning": "r", "decided_at": "yesterday"},            // bad time
		{"entity": "backend", "key": "Bad Key", "decision": "Use river", "reasoning": "r"},                                     // bad key
		{"entity": "backend", "key": "queue", "decision": "Use river", "reasoning": "r", "decided_at": "2030-01-01T00:00:00Z"}, // future
	} {
		callError(t, cs, "record_decision", args)
	}

	var open wire.Decision
	call(t, cs, "record_decision", map[string]any{"entity": "frontend", "key": "framework", "decision": "Use htmx",
		"reasoning": "Server-rendered pages", "do_not_reopen": false}, &open)
	var list wire.Page[wire.Decision]
	call(t, cs, "list_decisions", map[string]any{}, &list)
	if len(list.Items) != 2 || list.Items[0].ID != open.ID || list.NextCursor != nil || list.Items[0].State != "open" {
		t.Errorf("list_decisions = %+v, want both, newest first, no next page", list)
	}
	call(t, cs, "list_decisions", map[string]any{"locked": true, "entity": "backend"}, &list)
	if len(list.Items) != 1 || list.Items[0].ID != d.ID || list.Items[0].Reasoning != "We already run it" || list.Items[0].State != "locked" {
		t.Errorf("list_decisions(locked, backend) = %+v, want decision %d", list.Items, d.ID)
	}
	call(t, cs, "list_decisions", map[string]any{"limit": 1}, &list)
	if len(list.Items) != 1 || list.NextCursor == nil || *list.NextCursor != itoa(open.ID) {
		t.Errorf("list_decisions(limit 1) = %+v, want one and a next page", list)
	}
	next := *list.NextCursor
	call(t, cs, "list_decisions", map[string]any{"limit": 1, "cursor": next}, &list)
	if len(list.Items) != 1 || list.Items[0].ID != d.ID || list.NextCursor != nil {
		t.Errorf("list_decisions(page 2) = %+v, want decision %d and no next page", list.Items, d.ID)
	}
	// before_id, cursor's deprecated name, still pages; both at once, or a
	// cursor not given back unchanged, are refused naming the argument.
	call(t, cs, "list_decisions", map[string]any{"limit": 1, "before_id": open.ID}, &list)
	if len(list.Items) != 1 || list.Items[0].ID != d.ID {
		t.Errorf("list_decisions(before_id) = %+v, want decision %d", list.Items, d.ID)
	}
	if msg := callError(t, cs, "list_decisions", map[string]any{"cursor": next, "before_id": open.ID}); !strings.Contains(msg, "before_id") {
		t.Errorf("list_decisions(cursor and before_id) error = %q, want it to name before_id", msg)
	}
	if msg := callError(t, cs, "list_decisions", map[string]any{"cursor": "0"}); !strings.Contains(msg, "cursor") {
		t.Errorf("list_decisions(cursor 0) error = %q, want it to name cursor", msg)
	}

	other := f.connect(t, f.token(t, "elsewhere", "other", auth.TokenReader))
	call(t, other, "list_decisions", map[string]any{}, &list)
	if len(list.Items) != 0 {
		t.Errorf("list_decisions in scope other = %+v, want none", list.Items)
	}
}

func TestSetDurability(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	var pushed rememberOut
	call(t, cs, "remember", map[string]any{"content": "Ann is moving to Lisbon", "durability": "transient",
		"properties": map[string]any{"entity": "Ann"}}, &pushed)
	id := pushed.IDs[0]

	call(t, cs, "set_durability", map[string]any{"node_id": id, "durability": "durable"}, nil)
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1 AND properties->>'durability' = 'durable' AND properties->>'entity' = 'Ann'`, id); n != 1 {
		t.Errorf("row %d not promoted to durable with its other properties kept", id)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.durability' AND actor = 'token:agent'`); n != 1 {
		t.Errorf("promotion not audited as the token: %d rows", n)
	}
	if msg := callError(t, cs, "set_durability", map[string]any{"node_id": id, "durability": "permanent"}); !strings.Contains(msg, "durable, transient, expired") {
		t.Errorf("set_durability(permanent) error = %q, want the allowed values", msg)
	}
	other := f.connect(t, f.token(t, "agent", "other", auth.TokenWriter))
	if msg := callError(t, other, "set_durability", map[string]any{"node_id": id, "durability": "expired"}); !strings.Contains(msg, itoa(id)) {
		t.Errorf("set_durability of another scope's row: error = %q, want not found naming it", msg)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1 AND properties->>'durability' = 'durable'`, id); n != 1 {
		t.Errorf("another scope's token changed row %d", id)
	}
	// The tool's former name is still served, though not listed.
	call(t, cs, "upgrade_durability", map[string]any{"node_id": id, "durability": "transient"}, nil)
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1 AND properties->>'durability' = 'transient'`, id); n != 1 {
		t.Errorf("upgrade_durability, the former name, did not set row %d's marker", id)
	}
	reader := f.connect(t, f.token(t, "dashboard", "acme", auth.TokenReader))
	if msg := callError(t, reader, "upgrade_durability", map[string]any{"node_id": id, "durability": "expired"}); !strings.Contains(msg, "reader token") {
		t.Errorf("upgrade_durability by a reader: error = %q, want the reader refusal", msg)
	}
}

type extractOut struct {
	Candidates []mcpserver.Candidate `json:"candidates"`
	NodeIDs    []int64               `json:"stored_node_ids"`
}

func TestExtract(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	text := "Ann lives in Berlin. She is feeling tired today!\nWhere is the report? " +
		"We decided to use PostgreSQL instead of MySQL because we already run it. Ann must send the report by June 10."

	var out extractOut
	call(t, cs, "extract", map[string]any{"text": text, "entity": "Ann"}, &out)
	type axes struct{ category, durability string }
	want := []axes{{"observation", "long_term"}, {"mood", "ephemeral"}, {"decision", "permanent"}, {"obligation", "short_term"}}
	if len(out.Candidates) != len(want) {
		t.Fatalf("extract = %d candidates %+v, want %d (the question left out)", len(out.Candidates), out.Candidates, len(want))
	}
	for i, c := range out.Candidates {
		if c.Category != want[i].category || string(c.Durability) != want[i].durability || c.Reason == "" || c.Entity != "Ann" {
			t.Errorf("candidate %d = %+v, want %v with a reason, about Ann", i, c, want[i])
		}
	}
	if d := out.Candidates[3].Deadline; d == nil || d.Format(time.DateOnly) != "2026-06-10" {
		t.Errorf("obligation deadline = %v, want 2026-06-10", d)
	}
	if c := out.Candidates[2]; !slices.Equal(c.Alternatives, []string{"MySQL"}) || c.Reasoning != "we already run it" {
		t.Errorf("decision candidate = %+v, want its alternative and reasoning", c)
	}
	if out.NodeIDs != nil || f.count(t, `SELECT count(*) FROM memory_nodes`) != 0 {
		t.Errorf("extract without store wrote rows")
	}

	call(t, cs, "extract", map[string]any{"text": text, "entity": "Ann", "store": true}, &out)
	if len(out.NodeIDs) != len(want) {
		t.Fatalf("extract(store) node ids = %v, want %d", out.NodeIDs, len(want))
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes WHERE scope = 'acme' AND properties->>'entity' = 'Ann'
		AND properties ? 'category' AND properties ? 'fact_durability' AND properties->'metadata'->>'extracted_by' = 'offline'`); n != len(want) {
		t.Errorf("stored rows with their axes = %d, want %d", n, len(want))
	}

	// The rows pass consolidation's gates like any other.
	if _, err := f.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts f JOIN entities e ON e.id = f.entity_id
		WHERE f.scope = 'acme' AND e.name = 'Ann' AND (f.category, f.durability) IN
		(('observation', 'long_term'), ('mood', 'ephemeral'), ('decision', 'permanent'), ('obligation', 'short_term'))`); n != 4 {
		t.Errorf("facts after consolidation = %d, want the 4 candidates with their axes", n)
	}
	if n := f.count(t, `SELECT count(*) FROM decisions WHERE scope = 'acme' AND reasoning = 'we already run it'`); n != 1 {
		t.Errorf("decisions after consolidation = %d, want 1 with its reasoning", n)
	}

	if msg := callError(t, cs, "extract", map[string]any{"text": "  "}); !strings.Contains(msg, "text is empty") {
		t.Errorf("extract(empty) error = %q", msg)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestExtractModes(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	var out extractOut
	call(t, cs, "extract", map[string]any{"text": "Ann is feeling tired today.", "mode": "rules"}, &out)
	if len(out.Candidates) != 1 || out.Candidates[0].Category != "mood" {
		t.Errorf("extract mode rules = %+v, want one mood", out.Candidates)
	}
	if msg := callError(t, cs, "extract", map[string]any{"text": "Ann is tired.", "mode": "llm"}); !strings.Contains(msg, "TENURE_LLM_URL") {
		t.Errorf("extract mode llm without an endpoint = %q, want it to say how to configure one", msg)
	}
	if msg := callError(t, cs, "extract", map[string]any{"text": "Ann is tired.", "mode": "magic"}); !strings.Contains(msg, "allowed values are rules") {
		t.Errorf("extract mode magic = %q, want the allowed modes named", msg)
	}
}
