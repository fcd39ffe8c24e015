// Package mcpserver serves Tenure to agents over the Model Context Protocol
// (streamable HTTP): remember, recall, the context brief, decisions, the
// durability marker of working rows, and extraction. Every call is
// authenticated by an API token, and the token's scope is the scope of every
// tool call; reader tokens may only read. It is an adapter: all rules live in
// package memory.
package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// Option configures a handler.
type Option func(*config)

type config struct {
	extractor  Extractor
	extractors *extract.Set
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
	server := mcp.NewServer(&mcp.Implementation{Name: "tenure", Title: "Tenure memory", Version: "1"},
		&mcp.ServerOptions{Instructions: instructions, Logger: logger})
	t := &tools{store: store, logger: logger, extractor: cfg.extractor, extractors: cfg.extractors}
	t.register(server)
	// The SDK's DNS-rebinding guard refuses loopback connections with another
	// Host, which is every request behind a reverse proxy on the same machine.
	// It protects servers that trust any local caller; this one trusts no
	// request without a bearer token, which a rebound page does not have.
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
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
	return &authenticator{tokens: tokens, logger: logger, next: carry(streamable)}
}

type callerKey struct{}

// callerExtra is the key of the caller in sdkauth.TokenInfo.Extra.
const callerExtra = "tenure.caller"

// authenticator answers 401 to requests without a live API token and passes
// the others on with their caller in the context.
type authenticator struct {
	tokens TokenAuth
	logger *slog.Logger
	next   http.Handler
}

func (a *authenticator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	scheme, bearer, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(bearer) == "" {
		unauthorized(w, "missing bearer token: send the header Authorization: Bearer <API token>")
		return
	}
	c, err := a.tokens.Authenticate(r.Context(), bearer)
	var invalid *InvalidTokenError
	switch {
	case errors.As(err, &invalid):
		a.logger.Warn("mcp.unauthorized", slog.String("reason", invalid.Reason), slog.String("remote", r.RemoteAddr))
		unauthorized(w, invalid.Error())
		return
	case err != nil:
		a.logger.Error("mcp.authenticate", slog.String("error", err.Error()))
		http.Error(w, "the token could not be checked; try again", http.StatusInternalServerError)
		return
	}
	a.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
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
