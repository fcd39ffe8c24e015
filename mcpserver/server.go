// Package mcpserver serves Tenure to agents over the Model Context Protocol
// (streamable HTTP): remember, recall, the context brief, decisions, the
// durability marker of working rows, and extraction. Every call is
// authenticated by an API token, and the token's scope is the scope of every
// tool call; reader tokens may only read. It is an adapter: all rules live in
// package memory.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/memory"
)

// Option configures a handler.
type Option func(*config)

type config struct {
	extractor  Extractor
	extractors *extract.Set
	timeout    time.Duration
}

// WithRequestTimeout bounds each request: the check of its token, and each
// call it carries (POST; the extract tool through an LLM may take the LLM's
// own timeout and a little more, httpx.ExtractTimeout). A call past it fails
// with a tool error saying the store is unavailable, to be retried. Without
// it, or with d <= 0, requests are not bounded. Only POST carries calls: in
// stateless mode GET, which would open an event stream, is answered 405.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// WithExtractors offers the extract tool's modes: rules always, llm when the
// set has an LLM endpoint. Without it, only the default extractor answers.
func WithExtractors(set *extract.Set) Option {
	return func(c *config) { c.extractors = set }
}

// WithExtractor makes the extract tool use e instead of the offline
// rule-based classifier (for example an LLM through an OpenAI-compatible
// endpoint).
func WithExtractor(e Extractor) Option {
	return func(c *config) { c.extractor = e }
}

// instructions tell an agent how Tenure is meant to be used.
const instructions = `Tenure is your long-term memory for one scope (set by your token).
At the start of a turn call context: it lists settled decisions (never reopen them), obligations due soon, current states and the facts you know best.
Use recall to search memory. Use remember to write what you notice as working rows; consolidation later decides what becomes a lasting fact: mark passing states "transient" so they never harden.
Use record_decision for decisions, with their reasoning; a locked decision refuses writes on its key.`

// readerInstructions are the instructions for a reader token, which may not
// write.
const readerInstructions = `Tenure is your long-term memory for one scope (set by your token). Your token is a reader token: you may read memory, not write it.
At the start of a turn call context: it lists settled decisions (never reopen them), obligations due soon, current states and the facts you know best.
Use recall to search memory and list_decisions to see the decisions with their reasoning.`

// NewHandler returns the MCP endpoint: streamable HTTP, stateless (every
// request stands alone, so any replica can serve any request), answering
// 401 to requests without a valid bearer token. Mount it at /mcp.
func NewHandler(store *memory.Store, tokens TokenAuth, logger *slog.Logger, opts ...Option) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	cfg := config{extractor: OfflineExtractor{}}
	for _, o := range opts {
		o(&cfg)
	}
	llm := cfg.extractors.Settings().LLMConfigured || cfg.extractor.Name() != extract.ModeRules
	t := &tools{store: store, logger: logger, extractor: cfg.extractor, extractors: cfg.extractors, llm: llm}
	newServer := func(reader bool) *mcp.Server {
		text := instructions
		if reader {
			text = readerInstructions
		}
		server := mcp.NewServer(&mcp.Implementation{Name: "tenure", Title: "Tenure memory", Version: "1"},
			&mcp.ServerOptions{Instructions: text, Logger: logger})
		t.register(server, reader)
		if reader {
			server.AddReceivingMiddleware(t.refuseWrites)
		}
		if cfg.timeout > 0 {
			server.AddReceivingMiddleware(bounded(cfg.timeout, httpx.ExtractTimeout(cfg.timeout, cfg.extractors)))
		}
		// Outermost, so that every other layer sees a tool's name now.
		server.AddReceivingMiddleware(renames)
		return server
	}
	// A reader token gets a server with only the tools it may call (every
	// request stands alone, so the server is chosen per request).
	writer, reader := newServer(false), newServer(true)
	serverFor := func(r *http.Request) *mcp.Server {
		if c, ok := r.Context().Value(callerKey{}).(TokenInfo); ok && !c.Reader() {
			return writer
		}
		return reader
	}
	// The SDK's DNS-rebinding guard refuses loopback connections with another
	// Host, which is every request behind a reverse proxy on the same machine.
	// It protects servers that trust any local caller; this one trusts no
	// request without a bearer token, which a rebound page does not have.
	streamable := mcp.NewStreamableHTTPHandler(serverFor,
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: logger, DisableLocalhostProtection: true})
	// The SDK hands tool handlers the TokenInfo its own middleware puts in
	// the request; this one only carries over the caller authenticated below.
	carry := sdkauth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*sdkauth.TokenInfo, error) {
		c, ok := r.Context().Value(callerKey{}).(TokenInfo)
		if !ok {
			return nil, &InvalidTokenError{Reason: "no caller"}
		}
		return &sdkauth.TokenInfo{
			UserID: c.Scope + "/" + c.Name,
			Scopes: []string{c.Role},
			Extra:  map[string]any{callerExtra: c},
		}, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	return &authenticator{tokens: tokens, logger: logger, timeout: cfg.timeout, next: carry(streamable)}
}

type callerKey struct{}

// arrivedKey holds, in a request's context, when the request arrived.
type arrivedKey struct{}

// bounded gives each method call a deadline, timeout after its request
// arrived (extractTimeout for the extract tool). The request's own context
// cannot carry it: the SDK does not pass its cancellation on to handlers for
// clients of protocol versions before 2026-07-28, and when it ends first the
// transport stops waiting and answers nothing. Its values do reach handlers.
func bounded(timeout, extractTimeout time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			arrived, ok := ctx.Value(arrivedKey{}).(time.Time)
			if !ok {
				return next(ctx, method, req)
			}
			d := timeout
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil && call.Params.Name == toolExtract {
				d = extractTimeout
			}
			ctx, cancel := context.WithDeadline(ctx, arrived.Add(d))
			defer cancel()
			return next(ctx, method, req)
		}
	}
}

// callerExtra is the key of the caller in sdkauth.TokenInfo.Extra.
const callerExtra = "tenure.caller"

// authenticator answers 401 to requests without a live API token and passes
// the others on with their caller in the context. A token that cannot be
// checked because the database is unavailable is answered 503 with
// Retry-After and a JSON-RPC error saying so (no method runs: the caller is
// unknown); once a request is past it, a call the database fails is a tool
// error saying the same (tools.toolError).
type authenticator struct {
	tokens  TokenAuth
	logger  *slog.Logger
	timeout time.Duration // of the token check and of each call (bounded); 0: none
	next    http.Handler
}

func (a *authenticator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	scheme, bearer, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(bearer) == "" {
		unauthorized(w, "missing bearer token: send the header Authorization: Bearer <API token>")
		return
	}
	c, err := a.authenticate(r.Context(), bearer)
	var invalid *InvalidTokenError
	switch {
	case errors.As(err, &invalid):
		a.logger.Warn("mcp.unauthorized", slog.String("reason", invalid.Reason), slog.String("remote", r.RemoteAddr))
		unauthorized(w, invalid.Error())
		return
	case httpx.IsUnavailable(err):
		a.logger.Error("mcp.authenticate", slog.String("error", err.Error()))
		w.Header().Set("Retry-After", strconv.Itoa(httpx.RetryAfterSeconds))
		rpcError(w, r, http.StatusServiceUnavailable, codeUnavailable, unavailable("the token could not be checked"))
		return
	case err != nil:
		a.logger.Error("mcp.authenticate", slog.String("error", err.Error()))
		rpcError(w, r, http.StatusInternalServerError, jsonrpc.CodeInternalError, "the token could not be checked; try again")
		return
	}
	ctx := context.WithValue(r.Context(), callerKey{}, c)
	if a.timeout > 0 && r.Method == http.MethodPost {
		ctx = context.WithValue(ctx, arrivedKey{}, arrived)
	}
	a.next.ServeHTTP(w, r.WithContext(ctx))
}

// authenticate checks bearer, within the request timeout.
func (a *authenticator) authenticate(ctx context.Context, bearer string) (TokenInfo, error) {
	if a.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	return a.tokens.Authenticate(ctx, bearer)
}

// codeUnavailable is the JSON-RPC error code of a request refused because
// the database is unavailable: the first of the codes JSON-RPC leaves to
// servers (-32000 to -32099).
const codeUnavailable = -32000

// unavailable is the one-line message of a request or a call that could not
// run because the database cannot be reached or does not answer in time
// (httpx.IsUnavailable): what could not be done, that the store is
// unavailable, and when to retry (the Retry-After of a 503).
func unavailable(what string) string {
	return fmt.Sprintf("%s: the memory store is unavailable (its database is unreachable or not answering); retry after %d seconds",
		what, httpx.RetryAfterSeconds)
}

// rpcError answers a request refused before any method runs with status and
// a JSON-RPC error response carrying code and msg, for the request's id
// (null when its body has none). Clients read the status; those that read
// the body of an error status find the protocol's error there.
func rpcError(w http.ResponseWriter, r *http.Request, status int, code int64, msg string) {
	body := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErrorBody    `json:"error"`
	}{JSONRPC: "2.0", ID: requestID(r), Error: rpcErrorBody{Code: code, Message: msg}}
	if code == codeUnavailable {
		body.Error.Data = map[string]int{"retry_after_seconds": httpx.RetryAfterSeconds}
	}
	b, err := json.Marshal(body)
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

type rpcErrorBody struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// maxIDScan bounds how much of a refused request's body is read to find its
// id; maxIDLen how long an id is echoed.
const (
	maxIDScan = 1 << 20
	maxIDLen  = 256
)

// requestID is the id of the JSON-RPC request in r's body: a string or a
// number, as sent; null for a body without one (a notification, a batch,
// something that is not a JSON object), whose id a client cannot match.
func requestID(r *http.Request) json.RawMessage {
	null := json.RawMessage("null")
	if r.Method != http.MethodPost || r.Body == nil {
		return null
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, maxIDScan))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return null
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return null
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return null
		}
		if key, _ := tok.(string); key != "id" {
			continue
		}
		if len(v) == 0 || len(v) > maxIDLen || !(v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
			return null
		}
		return v
	}
	return null
}

func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="tenure", error="invalid_token"`)
	http.Error(w, msg, http.StatusUnauthorized)
}

// callerOf returns the agent behind a tool call.
func callerOf(req *mcp.CallToolRequest) (TokenInfo, error) {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		if c, ok := req.Extra.TokenInfo.Extra[callerExtra].(TokenInfo); ok {
			return c, nil
		}
	}
	return TokenInfo{}, errors.New("unauthenticated call: send an API token as a bearer token")
}
