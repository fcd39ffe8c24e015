// Package api serves Tenure's JSON API under /api/v1 for agents, with bearer
// tokens bound to one scope, and its OpenAPI document at /api/openapi.json.
// Handlers decode and validate requests, call the memory engine and encode
// its answers; every rule about memory lives in the engine.
package api

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/memory"
)

// Config holds what the API depends on.
type Config struct {
	Store  *memory.Store
	Pool   *pgxpool.Pool
	Logger *slog.Logger
	// Now is the clock of token expiry and last use; tests inject one.
	Now func() time.Time
	// Extractors serve POST .../extract: the rule-based classifier always,
	// an LLM when one is configured. Nil offers the rule-based one only.
	Extractors *extract.Set
	// RequestTimeout bounds each /api/v1 request (Deadline): past it the
	// request's context expires and the answer is 503 unavailable. Zero means
	// DefaultRequestTimeout; a negative value sets no bound. An extraction
	// may take the LLM's own timeout and a little more, and a consolidation
	// run RunTimeout.
	RequestTimeout time.Duration
}

// RunTimeout bounds a consolidation run started over the API (POST
// /api/v1/consolidation/runs), as the console bounds its "run now": a run
// is long work that should not be cut at the request timeout.
const RunTimeout = 10 * time.Minute

// handlers serve the API's routes, one file per resource.
type handlers struct {
	store  *memory.Store
	tokens *auth.Tokens
	logger *slog.Logger
	now    func() time.Time
	// extractors are the extraction modes on offer.
	extractors *extract.Set
	// routes are the /api/v1 routes, to tell a wrong method (405) from an
	// unknown path (404).
	routes []*echo.Route
}

// Mount registers every API route on e: GET /api/openapi.json, open to
// all, and the /api/v1 routes behind a bearer token. Errors under /api/v1,
// unknown paths and wrong methods included, are answered in the API's shape
// by the group itself; errors of other /api/ paths reach e's error handler,
// which should hand them to WriteError.
func Mount(e *echo.Echo, cfg Config) error {
	if cfg.Store == nil || cfg.Pool == nil {
		return errors.New("api: Mount needs a Store and a Pool")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = httpx.DefaultRequestTimeout
	}
	h := &handlers{store: cfg.Store, tokens: auth.NewTokens(cfg.Pool, cfg.Now), logger: cfg.Logger, now: cfg.Now,
		extractors: cfg.Extractors}

	e.GET("/api/openapi.json", h.openAPIShow)

	// The deadline is inside answerErrors, which answers its 503, and
	// around the token check, which reads the database too. Idempotency
	// keys (idempotency.go) belong to the token, so they come after it.
	extractTimeout := httpx.ExtractTimeout(cfg.RequestTimeout, cfg.Extractors)
	deadline := httpx.Deadline(func(c echo.Context) time.Duration {
		switch c.Path() {
		case "/api/v1/scopes/:scope/extract":
			return extractTimeout
		case "/api/v1/consolidation/runs":
			if c.Request().Method == http.MethodPost && cfg.RequestTimeout > 0 {
				return max(cfg.RequestTimeout, RunTimeout)
			}
		}
		return cfg.RequestTimeout
	}, internal)
	v1 := e.Group("/api/v1", h.answerErrors, deadline, h.authenticate, h.idempotent)

	v1.POST("/scopes/:scope/nodes", h.nodePush)
	v1.GET("/scopes/:scope/nodes", h.nodeList)
	v1.POST("/scopes/:scope/nodes/:id/durability", h.nodeDurability)

	v1.GET("/scopes/:scope/facts", h.factList)
	v1.POST("/scopes/:scope/facts", h.factCreate)
	v1.GET("/scopes/:scope/facts/:id", h.factShow)
	v1.PATCH("/scopes/:scope/facts/:id", h.factUpdate)
	v1.POST("/scopes/:scope/facts/:id/forget", h.factForget)

	v1.GET("/scopes/:scope/decisions", h.decisionList)
	v1.POST("/scopes/:scope/decisions", h.decisionCreate)
	v1.GET("/scopes/:scope/decisions/:id", h.decisionShow)

	// Entities: their aliases and merges, read by every writer (entities.go).
	v1.GET("/scopes/:scope/entities", h.entityList)
	v1.POST("/scopes/:scope/entities/merge", h.entityMerge)
	v1.GET("/scopes/:scope/entities/merges", h.mergeList)
	v1.POST("/scopes/:scope/entities/merges/:id/undo", h.mergeUndo)
	v1.GET("/scopes/:scope/entities/:id/aliases", h.aliasList)
	v1.POST("/scopes/:scope/entities/:id/aliases", h.aliasCreate)
	v1.DELETE("/scopes/:scope/entities/:id/aliases", h.aliasDelete)

	v1.GET("/scopes/:scope/recall", h.recall)
	v1.GET("/scopes/:scope/context", h.contextShow)

	v1.POST("/scopes/:scope/extract", h.extractCreate)

	// Import is not bound to a path scope: every line must name the
	// token's own scope, or the whole file is refused.
	v1.POST("/import", h.importCreate)

	// Consolidation is not bound to a scope: any writer token may start a
	// run and any token may read one; the rejection log shows only the
	// token's scope.
	v1.POST("/consolidation/runs", h.runCreate)
	v1.GET("/consolidation/runs/:id", h.runShow)
	v1.GET("/consolidation/rejections", h.rejectionList)

	for _, r := range e.Routes() {
		if strings.HasPrefix(r.Path, "/api/v1/") && !strings.HasSuffix(r.Path, "*") {
			h.routes = append(h.routes, r)
		}
	}
	return nil
}

// allowedMethods returns the methods the API routes for path, which matched
// no route with the request's method.
func (h *handlers) allowedMethods(path string) []string {
	var out []string
	got := strings.Split(strings.Trim(path, "/"), "/")
	for _, r := range h.routes {
		want := strings.Split(strings.Trim(r.Path, "/"), "/")
		if len(want) != len(got) {
			continue
		}
		match := true
		for i := range want {
			if got[i] == "" || (!strings.HasPrefix(want[i], ":") && want[i] != got[i]) {
				match = false
				break
			}
		}
		if match && !slices.Contains(out, r.Method) {
			out = append(out, r.Method)
		}
	}
	return out
}
