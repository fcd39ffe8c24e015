package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// guardNow is the fixed clock of these tests: no bucket refills, so a
// burst is exactly what gets through.
var guardNow = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

const (
	appOrigin       = "https://app.example"
	inspectorOrigin = "https://inspector.example"
	evilOrigin      = "http://evil.example"
)

// guardFixture is a whole server with rate limits and allowed origins.
type guardFixture struct {
	srv  *server.Server
	toks map[string]string // name: "Bearer <secret>"
}

func newGuardFixture(t *testing.T, cfg server.Config, tokens ...string) *guardFixture {
	t.Helper()
	pool := pgtest.NewPool(t)
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Pool, cfg.Assets, cfg.Now = pool, assets, func() time.Time { return guardNow }
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &guardFixture{srv: srv, toks: map[string]string{}}
	for _, name := range tokens {
		secret, _, err := auth.SeedToken(context.Background(), pool,
			auth.NewToken{Name: name, Scope: "acme", Role: auth.TokenWriter}, guardNow)
		if err != nil {
			t.Fatal(err)
		}
		f.toks[name] = "Bearer " + secret
	}
	return f
}

// req is a request to the fixture's server from a client address.
type req struct {
	method, path, auth, origin, from, body string
	header                                 map[string]string
}

func (f *guardFixture) do(t *testing.T, r req) *httptest.ResponseRecorder {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	hr := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
	hr.RemoteAddr = "192.0.2.1:4000"
	if r.from != "" {
		hr.RemoteAddr = r.from
	}
	if r.auth != "" {
		hr.Header.Set("Authorization", r.auth)
	}
	if r.origin != "" {
		hr.Header.Set("Origin", r.origin)
	}
	if strings.HasPrefix(r.path, "/mcp") {
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, hr)
	return rec
}

const (
	facts     = "/api/v1/scopes/acme/facts"
	toolsList = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
)

// apiError is the API's error shape.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rpcError is a JSON-RPC error response.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]int `json:"data"`
	} `json:"error"`
}

// check429 fails unless rec is a 429 of the API with Retry-After, in its
// error shape, as openapi.json documents for GET facts.
func check429(t *testing.T, what string, rec *httptest.ResponseRecorder, wantMsg string) {
	t.Helper()
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("%s = %d %s, want 429", what, rec.Code, rec.Body)
	}
	if got := rec.Header().Get("Retry-After"); got != "1" {
		t.Errorf("%s: Retry-After = %q, want 1", what, got)
	}
	var body apiError
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: body %s: %v", what, rec.Body, err)
	}
	if body.Error.Code != "too_many_requests" || !strings.Contains(body.Error.Message, wantMsg) ||
		!strings.Contains(body.Error.Message, "retry after 1 second") {
		t.Errorf("%s: error = %+v, want too_many_requests saying %q and when to retry", what, body.Error, wantMsg)
	}
	// openapi.json documents it: GET facts lists 429, and the code is in
	// the error code enum.
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
		Components struct {
			Schemas struct {
				ErrorDetail struct {
					Properties struct {
						Code struct {
							Enum []string `json:"enum"`
						} `json:"code"`
					} `json:"properties"`
				} `json:"ErrorDetail"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Paths["/api/v1/scopes/{scope}/facts"]["get"].Responses["429"]; !ok {
		t.Errorf("openapi.json does not document 429 for GET facts")
	}
	if !slices.Contains(doc.Components.Schemas.ErrorDetail.Properties.Code.Enum, "too_many_requests") {
		t.Errorf("openapi.json's error codes lack too_many_requests")
	}
}

// TestRateLimitPerToken: a burst over a token's limit is answered 429 with
// Retry-After, in the API's shape and, on /mcp (the same bucket), as a
// JSON-RPC error; another token is unaffected; and 400 requests at 20 in
// parallel let exactly the burst through.
func TestRateLimitPerToken(t *testing.T) {
	f := newGuardFixture(t, server.Config{Limits: server.Limits{
		Token: server.Rate{PerSecond: 2, Burst: 3}, Address: server.Rate{PerSecond: 2, Burst: 3}}},
		"busy", "quiet", "crowd")
	busy, quiet := f.toks["busy"], f.toks["quiet"]
	for i := range 3 {
		if rec := f.do(t, req{path: facts, auth: busy}); rec.Code != http.StatusOK {
			t.Fatalf("request %d within the burst = %d %s", i, rec.Code, rec.Body)
		}
	}
	check429(t, "the 4th request of the burst", f.do(t, req{path: facts, auth: busy}),
		"too many requests for this token: it may send 2 requests a second, in bursts of up to 3")
	for i := range 2 {
		if rec := f.do(t, req{path: facts, auth: quiet}); rec.Code != http.StatusOK {
			t.Fatalf("another token's request %d = %d %s, want 200", i, rec.Code, rec.Body)
		}
	}
	// The token's bucket is its own, not its address's: requests without a
	// token from the same address still have theirs.
	if rec := f.do(t, req{path: "/api/openapi.json"}); rec.Code != http.StatusOK {
		t.Errorf("GET /api/openapi.json from the same address without a token = %d, want 200", rec.Code)
	}

	rec := f.do(t, req{method: http.MethodPost, path: "/mcp", auth: busy, body: toolsList})
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("POST /mcp with the spent token = %d (Retry-After %q) %s, want 429 with Retry-After 1",
			rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	var rpc rpcError
	if err := json.Unmarshal(rec.Body.Bytes(), &rpc); err != nil {
		t.Fatalf("/mcp 429 body %s: %v", rec.Body, err)
	}
	if rpc.JSONRPC != "2.0" || string(rpc.ID) != "null" || rpc.Error.Code != -32000 ||
		rpc.Error.Data["retry_after_seconds"] != 1 || !strings.Contains(rpc.Error.Message, "too many requests for this token") {
		t.Errorf("/mcp 429 body = %s, want a JSON-RPC error without an id, code -32000, retry_after_seconds 1", rec.Body)
	}
	if rec := f.do(t, req{method: http.MethodPost, path: "/mcp", auth: quiet, body: toolsList}); rec.Code != http.StatusOK {
		t.Errorf("POST /mcp with another token = %d %s, want 200", rec.Code, rec.Body)
	}

	// 400 recalls at 20 in parallel: the clock stands still, so exactly the
	// burst of 3 gets through.
	crowd := f.toks["crowd"]
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for range 20 {
				rec := f.do(t, req{path: "/api/v1/scopes/acme/recall?query=lisbon", auth: crowd})
				mu.Lock()
				counts[rec.Code]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if counts[http.StatusOK] != 3 || counts[http.StatusTooManyRequests] != 397 {
		t.Errorf("400 recalls at 20 in parallel answered %v, want 3 OK and 397 Too Many Requests", counts)
	}
}

// TestRateLimitBadTokensByAddress: requests with bad tokens, or none, count
// against their client address, so a stream of them is throttled while
// another address and a valid token from the same address go through; the
// console and the health checks are not limited; X-Forwarded-For is not
// believed from an untrusted peer.
func TestRateLimitBadTokensByAddress(t *testing.T) {
	f := newGuardFixture(t, server.Config{Limits: server.Limits{
		Token: server.Rate{PerSecond: 50, Burst: 100}, Address: server.Rate{PerSecond: 5, Burst: 20}}}, "agent")
	counts := map[int]int{}
	for i := range 100 {
		// A different forged address each time: not believed.
		rec := f.do(t, req{path: facts, auth: "Bearer tnr_not-a-token", header: map[string]string{
			"X-Forwarded-For": "198.51.100." + string(rune('0'+i%10))}})
		counts[rec.Code]++
	}
	if counts[http.StatusUnauthorized] != 20 || counts[http.StatusTooManyRequests] != 80 {
		t.Errorf("100 bad-token requests answered %v, want 20 Unauthorized and 80 Too Many Requests", counts)
	}
	check429(t, "a bad token past the address's burst", f.do(t, req{path: facts, auth: "Bearer tnr_other"}),
		"too many requests without a valid API token from this address: at most 5 a second, in bursts of up to 20")
	if rec := f.do(t, req{method: http.MethodPost, path: "/mcp", body: toolsList}); rec.Code != http.StatusTooManyRequests {
		t.Errorf("POST /mcp without a token from the throttled address = %d, want 429", rec.Code)
	}
	if rec := f.do(t, req{path: "/api/openapi.json"}); rec.Code != http.StatusTooManyRequests {
		t.Errorf("GET /api/openapi.json from the throttled address = %d, want 429", rec.Code)
	}
	if rec := f.do(t, req{path: facts, auth: f.toks["agent"]}); rec.Code != http.StatusOK {
		t.Errorf("a valid token from the throttled address = %d %s, want 200", rec.Code, rec.Body)
	}
	if rec := f.do(t, req{path: facts, auth: "Bearer tnr_not-a-token", from: "192.0.2.2:4000"}); rec.Code != http.StatusUnauthorized {
		t.Errorf("a bad token from another address = %d, want 401", rec.Code)
	}
	for _, path := range []string{"/healthz", "/login"} {
		if rec := f.do(t, req{path: path}); rec.Code == http.StatusTooManyRequests {
			t.Errorf("GET %s from the throttled address = 429, want it not limited", path)
		}
	}
}

// TestCORS: a preflight from an allowed origin is answered 204 with the
// CORS headers and no token; a disallowed origin gets no CORS header; the
// OpenAPI document and a 429 carry them for an allowed origin; without
// configured origins nothing does.
func TestCORS(t *testing.T) {
	f := newGuardFixture(t, server.Config{CORSOrigins: []string{appOrigin},
		Limits: server.Limits{Token: server.Rate{PerSecond: 1, Burst: 1}}}, "agent")
	preflight := func(origin string) *httptest.ResponseRecorder {
		return f.do(t, req{method: http.MethodOptions, path: facts, origin: origin, header: map[string]string{
			"Access-Control-Request-Method":  "POST",
			"Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
		}})
	}
	rec := preflight(appOrigin)
	h := rec.Header()
	if rec.Code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != appOrigin ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "authorization") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "idempotency-key") || h.Get("Access-Control-Max-Age") == "" {
		t.Errorf("preflight from %s = %d %v, want 204 with the CORS headers", appOrigin, rec.Code, h)
	}
	if h.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("preflight allows credentials: %v", h)
	}
	rec = preflight(evilOrigin)
	if acao := rec.Header().Get("Access-Control-Allow-Origin"); acao != "" {
		t.Errorf("preflight from %s answered Access-Control-Allow-Origin %q, want none", evilOrigin, acao)
	}

	rec = f.do(t, req{path: "/api/openapi.json", origin: appOrigin})
	if rec.Code != http.StatusOK || rec.Header().Get("Access-Control-Allow-Origin") != appOrigin ||
		!slices.Contains(rec.Header().Values("Vary"), "Origin") {
		t.Errorf("GET /api/openapi.json from %s = %d %v, want 200 with Access-Control-Allow-Origin and Vary: Origin",
			appOrigin, rec.Code, rec.Header())
	}
	if acao := f.do(t, req{path: "/api/openapi.json", origin: evilOrigin}).Header().Get("Access-Control-Allow-Origin"); acao != "" {
		t.Errorf("GET /api/openapi.json from %s: Access-Control-Allow-Origin %q, want none", evilOrigin, acao)
	}

	// A page reads a 429 and its Retry-After.
	agent := f.toks["agent"]
	f.do(t, req{path: facts, auth: agent, origin: appOrigin})
	rec = f.do(t, req{path: facts, auth: agent, origin: appOrigin})
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Access-Control-Allow-Origin") != appOrigin ||
		!strings.Contains(rec.Header().Get("Access-Control-Expose-Headers"), "Retry-After") {
		t.Errorf("429 to %s = %d %v, want the CORS headers exposing Retry-After", appOrigin, rec.Code, rec.Header())
	}

	off := newGuardFixture(t, server.Config{})
	rec = off.do(t, req{path: "/api/openapi.json", origin: appOrigin})
	if acao := rec.Header().Get("Access-Control-Allow-Origin"); rec.Code != http.StatusOK || acao != "" {
		t.Errorf("without CORS origins, GET /api/openapi.json = %d with Access-Control-Allow-Origin %q, want 200 and none", rec.Code, acao)
	}
}

// TestMCPOrigin: /mcp refuses a request from an origin not allowed with 403
// and a JSON-RPC error, before asking for its token, and serves one without
// an Origin or from a configured origin (with the CORS headers).
func TestMCPOrigin(t *testing.T) {
	f := newGuardFixture(t, server.Config{MCPOrigins: []string{inspectorOrigin}}, "agent")
	agent := f.toks["agent"]
	for _, auth := range []string{agent, ""} {
		rec := f.do(t, req{method: http.MethodPost, path: "/mcp", auth: auth, origin: evilOrigin, body: toolsList})
		var rpc rpcError
		if rec.Code != http.StatusForbidden || json.Unmarshal(rec.Body.Bytes(), &rpc) != nil ||
			rpc.JSONRPC != "2.0" || string(rpc.ID) != "null" || !strings.Contains(rpc.Error.Message, "origin") {
			t.Errorf("POST /mcp from %s (token %t) = %d %s, want 403 with a JSON-RPC error", evilOrigin, auth != "", rec.Code, rec.Body)
		}
		if acao := rec.Header().Get("Access-Control-Allow-Origin"); acao != "" {
			t.Errorf("403 to %s carries Access-Control-Allow-Origin %q", evilOrigin, acao)
		}
	}
	if rec := f.do(t, req{method: http.MethodPost, path: "/mcp", auth: agent, body: toolsList}); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Body.String(), `"tools"`) {
		t.Errorf("POST /mcp without an Origin = %d %s, want 200", rec.Code, rec.Body)
	}
	rec := f.do(t, req{method: http.MethodPost, path: "/mcp", auth: agent, origin: inspectorOrigin, body: toolsList})
	if rec.Code != http.StatusOK || rec.Header().Get("Access-Control-Allow-Origin") != inspectorOrigin {
		t.Errorf("POST /mcp from %s = %d %v %s, want 200 with Access-Control-Allow-Origin", inspectorOrigin, rec.Code, rec.Header(), rec.Body)
	}
	rec = f.do(t, req{method: http.MethodOptions, path: "/mcp", origin: inspectorOrigin, header: map[string]string{
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version"}})
	if rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Origin") != inspectorOrigin {
		t.Errorf("preflight of /mcp from %s = %d %v, want 204 with the CORS headers", inspectorOrigin, rec.Code, rec.Header())
	}
	// The API's CORS origins are not MCP's, and the other way round.
	if acao := f.do(t, req{path: "/api/openapi.json", origin: inspectorOrigin}).Header().Get("Access-Control-Allow-Origin"); acao != "" {
		t.Errorf("GET /api/openapi.json from an MCP origin: Access-Control-Allow-Origin %q, want none", acao)
	}
}
