// Package web serves Tenure over HTTP: the review console's pages and the
// health endpoints. Handlers translate requests into calls on the domain and
// the generated queries, and render templ views; they hold no business rules.
package web

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

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
	// Metrics serves /metrics; nil serves none.
	Metrics http.Handler
	// Store is the memory engine; New builds one over Pool when nil.
	Store *memory.Store
	// Jobs reports and starts scheduled jobs; nil when this process runs none.
	Jobs Jobs
	// Extract is the extraction configuration: the extractors the API and
	// MCP offer and the settings page shows; nil offers the rule-based
	// classifier only.
	Extract *extract.Set
}

// Jobs is what the console needs of the scheduler: the jobs' status for the
// consolidation page ("run now" runs consolidation through the store).
type Jobs interface {
	Status() []jobs.JobStatus
}

// Server is Tenure's HTTP application.
type Server struct {
	echo     *echo.Echo
	pool     *pgxpool.Pool
	q        *queries.Queries
	logger   *slog.Logger
	assets   *static.Assets
	now      func() time.Time
	metrics  http.Handler
	sessions *auth.Sessions
	store    *memory.Store
	jobs     Jobs
	extract  *extract.Set
}

// New builds the server and registers every route.
func New(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	s := &Server{
		echo:    e,
		pool:    cfg.Pool,
		q:       queries.New(cfg.Pool),
		logger:  cfg.Logger,
		assets:  cfg.Assets,
		now:     cfg.Now,
		metrics: cfg.Metrics,
		store:   cfg.Store,
		jobs:    cfg.Jobs,
		extract: cfg.Extract,
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
