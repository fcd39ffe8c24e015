// Package server assembles Tenure's HTTP server: the middleware every
// request passes (recovery, the request log, security headers, HEAD; for
// the API and MCP, CORS, the Origin check of /mcp and rate limits), the
// health checks, metrics and static assets, and the three surfaces side by
// side: the JSON API under /api, the MCP endpoint at /mcp and the review
// console. Each surface maps its own errors at its own edge; the server's
// error handler only hands an error to the surface whose path it reached.
package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/mcpserver"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/metrics"
	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/static"
	"github.com/tenurehq/tenure/web"
)

// Config holds what the server depends on.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger
	Assets *static.Assets
	// Now returns the current time; tests inject a fixed clock.
	Now func() time.Time
	// Metrics is the Prometheus handler. It is served at /metrics only when
	// MetricsToken is set too, and then only to requests bearing that token;
	// otherwise the server has no /metrics (serve can offer it on a separate
	// listener with MetricsHandler).
	Metrics http.Handler
	// MetricsToken is the bearer token /metrics requires.
	MetricsToken string
	// Registry, when set, counts the requests by route (httpmetrics.go)
	// and reads the pool, the jobs' record and consolidation's at every
	// scrape. New registers them in it, once: a registry serves one server.
	Registry *metrics.Registry
	// TrustedProxies are the networks of the reverse proxies in front of the
	// server. The client address (logs, sessions, sign-in throttling) is the
	// connection's, unless the connection comes from one of these: then it is
	// the nearest address in X-Forwarded-For that is not a trusted proxy.
	// X-Real-IP is never read.
	TrustedProxies []*net.IPNet
	// PublicURL is the address people reach the console at, such as
	// https://tenure.example.com. When it is https, cookies are Secure (they
	// also are on a request that came over TLS); empty means unknown.
	PublicURL string
	// Store is the memory engine; New builds one over Pool when nil.
	Store *memory.Store
	// Jobs reports scheduled jobs on the consolidation page; nil when this
	// process runs none.
	Jobs web.Jobs
	// Extract is the extraction configuration: the extractors the API and
	// MCP offer and the settings page shows; nil offers the rule-based
	// classifier only.
	Extract *extract.Set
	// RequestTimeout bounds each request of the console, the API and MCP
	// calls: past it the request's context expires and the answer is 503
	// (the database is not answering). Zero means DefaultRequestTimeout; a
	// negative value sets no bound. Health checks keep their own, shorter
	// bound; an extraction through the LLM may take the LLM's timeout and a
	// little more; a consolidation run started from the console or the API
	// has its own bound of 10 minutes.
	RequestTimeout time.Duration
	// Limits are the request rate limits of /api and /mcp, per API token
	// and, for requests without a live token, per client address
	// (limits.go); the zero value sets none (serve's defaults are
	// DefaultLimits).
	Limits Limits
	// CORSOrigins are the web origins (scheme://host[:port], or * for any)
	// whose pages may call the API from a browser; empty allows none and
	// sends no CORS header (cors.go).
	CORSOrigins []string
	// MCPOrigins are the web origins whose requests /mcp accepts besides
	// those without an Origin header; every other Origin is refused 403.
	MCPOrigins []string
	// Reads, when set, routes reads to hot standbys: the Store's (New
	// builds the Store with it when Store is nil; a Store given must have
	// been built with it), with read-your-writes for each API token and
	// console session (readafter.go), the standbys' state in /healthz and,
	// with a Registry, in the metrics. Its primary must be Pool.
	Reads *replica.Router
}

// DefaultRequestTimeout is the bound of a request when Config sets none.
const DefaultRequestTimeout = httpx.DefaultRequestTimeout

// Server is Tenure's HTTP server.
type Server struct {
	echo    *echo.Echo
	pool    *pgxpool.Pool
	logger  *slog.Logger
	console *web.Console
	// registry counts the requests; nil counts nothing.
	registry *metrics.Registry
	// What guards /api and /mcp: the allowed web origins of each and the
	// rate limits (nil: none).
	apiOrigins, mcpOrigins origins
	limiter                *limiter
	// reads routes reads to standbys and readAfter keeps each caller's
	// last write for it; both nil without standbys.
	reads     *replica.Router
	readAfter *readAfter
}

// New builds the server and registers every route.
func New(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Store == nil && cfg.Pool != nil {
		cfg.Store = memory.NewStore(cfg.Pool, memory.Options{Logger: cfg.Logger, Now: cfg.Now, Reads: cfg.Reads})
	}
	console, err := web.New(web.Config{
		Pool: cfg.Pool, Logger: cfg.Logger, Assets: cfg.Assets, Now: cfg.Now, PublicURL: cfg.PublicURL,
		Store: cfg.Store, Jobs: cfg.Jobs, Extract: cfg.Extract, RequestTimeout: cfg.RequestTimeout, Reads: cfg.Reads,
	})
	if err != nil {
		return nil, err
	}
	if cfg.Pool == nil {
		return nil, errors.New("server: New needs a Pool")
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.IPExtractor = ipExtractor(cfg.TrustedProxies)
	s := &Server{echo: e, pool: cfg.Pool, logger: cfg.Logger, console: console, registry: cfg.Registry,
		limiter: newLimiter(cfg.Limits, auth.NewTokens(cfg.Pool, cfg.Now), cfg.RequestTimeout, cfg.Now)}
	if cfg.Reads != nil {
		if cfg.Reads.Primary() != cfg.Pool {
			return nil, errors.New("server: the read router's primary is not the server's Pool")
		}
		s.reads, s.readAfter = cfg.Reads, newReadAfter(cfg.Reads, cfg.Logger)
	}
	if s.apiOrigins, err = newOrigins(cfg.CORSOrigins, true); err != nil {
		return nil, fmt.Errorf("server: CORS origins: %w", err)
	}
	if s.mcpOrigins, err = newOrigins(cfg.MCPOrigins, false); err != nil {
		return nil, fmt.Errorf("server: MCP origins: %w", err)
	}
	e.HTTPErrorHandler = s.handleError
	if err := s.routes(cfg); err != nil {
		return nil, err
	}
	if cfg.Registry != nil {
		if err := collectMetrics(cfg.Registry, cfg); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// routes registers every route, in one place: the middleware all requests
// pass, then what stands beside the surfaces, then the API, MCP and the
// console, each of which registers its own.
func (s *Server) routes(cfg Config) error {
	e := s.echo
	s.middleware(e)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	// /metrics is served here only behind its bearer token; without one it
	// is not served at all (serve may offer it on a separate listener).
	if cfg.Metrics != nil && cfg.MetricsToken != "" {
		e.GET("/metrics", echo.WrapHandler(MetricsHandler(cfg.Metrics, cfg.MetricsToken)))
	}
	e.GET("/static/*", echo.WrapHandler(cfg.Assets.Handler()))
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, cfg.Assets.Path("favicon.svg"))
	})

	// Agents: the JSON API and the MCP server authenticate their own bearer
	// tokens; the API's routes are listed in api/routes.go. Each bounds its
	// requests to the request timeout (MCP only its POSTs, which carry the
	// calls).
	if err := api.Mount(e, api.Config{Store: cfg.Store, Pool: cfg.Pool, Logger: cfg.Logger, Now: cfg.Now,
		Extractors: cfg.Extract, RequestTimeout: cfg.RequestTimeout}); err != nil {
		return err
	}
	e.Any("/mcp", echo.WrapHandler(mcpserver.NewHandler(cfg.Store, mcpserver.NewTokenAuth(auth.NewTokens(cfg.Pool, cfg.Now)),
		cfg.Logger, mcpserver.WithExtractors(cfg.Extract), mcpserver.WithRequestTimeout(cfg.RequestTimeout))))

	// The console: its routes are listed in web/routes.go.
	s.console.Register(e)
	return nil
}

// handleError hands a handler's error to the surface whose path it
// reached: the API answers in its JSON shape, the health checks in theirs,
// the console with a page (or a bare status for HEAD). MCP answers its own
// errors; what reaches here from /mcp is the console's 404 or 405.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	path := c.Request().URL.Path
	var werr error
	switch {
	case strings.HasPrefix(path, "/api/") && c.Request().Method != http.MethodHead:
		werr = api.WriteError(c, err)
	case path == "/healthz" || path == "/readyz":
		status, msg := http.StatusInternalServerError, "Something went wrong on our side; the error has been logged."
		var he *echo.HTTPError
		switch {
		case errors.As(err, &he):
			status, msg = he.Code, fmt.Sprint(he.Message)
		case httpx.IsUnavailable(err):
			status, msg = http.StatusServiceUnavailable, "the database is unreachable or not answering"
			c.Response().Header().Set("Retry-After", strconv.Itoa(httpx.RetryAfterSeconds))
		}
		if status >= 500 {
			s.logger.Error("http.error", "method", c.Request().Method, "path", path, "err", err)
		}
		if c.Request().Method == http.MethodHead {
			werr = c.NoContent(status)
		} else {
			werr = c.JSON(status, map[string]any{"error": map[string]string{
				"code": strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_"), "message": msg}})
		}
	default:
		s.console.HandleError(err, c)
	}
	if werr != nil {
		s.logger.Error("http.error_response", "err", werr)
	}
}

// ipExtractor is how the server reads the client address: the connection's,
// or, from a trusted proxy, the nearest untrusted address in X-Forwarded-For.
// Echo's default would believe X-Forwarded-For and X-Real-IP from anyone,
// and its X-Forwarded-For extractor trusts private networks unless told not
// to; only the configured networks are trusted here.
func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// ServeHTTP lets the server be used as an http.Handler (tests use httptest).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.echo.ServeHTTP(w, r)
}

// HTTPServer wraps the application in an http.Server with explicit timeouts,
// so that no slow client can hold a connection open for ever.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
}
