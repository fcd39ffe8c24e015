// Package web serves Tenure over HTTP: the review console's pages and the
// health endpoints. Handlers translate requests into calls on the domain and
// the generated queries, and render templ views; they hold no business rules.
package web

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/jobs"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/static"
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
	// Jobs reports and starts scheduled jobs; nil when this process runs none.
	Jobs Jobs
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
}

// DefaultRequestTimeout is the bound of a request when Config sets none.
const DefaultRequestTimeout = api.DefaultRequestTimeout

// Jobs is what the console needs of the scheduler: the jobs' status for the
// consolidation page ("run now" runs consolidation through the store).
type Jobs interface {
	Status() []jobs.JobStatus
}

// Server is Tenure's HTTP application.
type Server struct {
	echo    *echo.Echo
	pool    *pgxpool.Pool
	q       *queries.Queries
	logger  *slog.Logger
	assets  *static.Assets
	now     func() time.Time
	metrics http.Handler
	// metricsToken guards /metrics; without it /metrics is not served.
	metricsToken string
	// publicHTTPS is set when the configured public URL is https.
	publicHTTPS bool
	sessions    *auth.Sessions
	throttle    *loginThrottle
	store       *memory.Store
	jobs        Jobs
	extract     *extract.Set
	// requestTimeout bounds each request (Config.RequestTimeout); <= 0: none.
	requestTimeout time.Duration
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
	publicHTTPS, err := publicURLIsHTTPS(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.IPExtractor = ipExtractor(cfg.TrustedProxies)
	s := &Server{
		echo:         e,
		pool:         cfg.Pool,
		q:            queries.New(cfg.Pool),
		logger:       cfg.Logger,
		assets:       cfg.Assets,
		now:          cfg.Now,
		metrics:      cfg.Metrics,
		metricsToken: cfg.MetricsToken,
		publicHTTPS:  publicHTTPS,
		throttle:     newLoginThrottle(cfg.Now),
		store:        cfg.Store,
		jobs:         cfg.Jobs,
		extract:      cfg.Extract,

		requestTimeout: cfg.RequestTimeout,
	}
	if s.store == nil {
		s.store = memory.NewStore(cfg.Pool, memory.Options{Logger: cfg.Logger, Now: cfg.Now})
	}
	sessions, err := auth.NewSessions(s.q, cfg.Now)
	if err != nil {
		return nil, err
	}
	s.sessions = sessions
	e.HTTPErrorHandler = s.handleError
	if err := s.routes(); err != nil {
		return nil, err
	}
	return s, nil
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

// publicURLIsHTTPS validates a public URL (empty, or an absolute http or
// https URL) and reports whether it is https.
func publicURLIsHTTPS(raw string) (bool, error) {
	if raw == "" {
		return false, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false, fmt.Errorf("web: invalid public URL %q: use an absolute http or https URL such as https://tenure.example.com", raw)
	}
	return u.Scheme == "https", nil
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
