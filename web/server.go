// Package web is the review console: its pages and forms over the memory
// engine. Handlers translate requests into calls on memory (and auth for
// people and tokens), and render templ views; they hold no business rules.
// The server package mounts it beside the API and MCP.
package web

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/jobs"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/static"
)

// Config holds what the server depends on.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger
	Assets *static.Assets
	// Now returns the current time; tests inject a fixed clock.
	Now func() time.Time
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
	// Reads routes reads to hot standbys; the health page shows their
	// state. Nil when there are none.
	Reads *replica.Router
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
const DefaultRequestTimeout = httpx.DefaultRequestTimeout

// Jobs is what the console needs of the scheduler: the jobs' status for the
// consolidation page ("run now" runs consolidation through the store).
type Jobs interface {
	Status() []jobs.JobStatus
}

// Console is the review console: its pages and forms, registered on the
// server's router by Register, and its error pages (HandleError).
type Console struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
	assets *static.Assets
	now    func() time.Time
	// publicHTTPS is set when the configured public URL is https.
	publicHTTPS bool
	sessions    *auth.Sessions
	throttle    *loginThrottle
	store       *memory.Store
	jobs        Jobs
	extract     *extract.Set
	reads       *replica.Router
	// requestTimeout bounds each request (Config.RequestTimeout); <= 0: none.
	requestTimeout time.Duration
	// flashSecret signs the flash messages set where no one is signed in
	// (helpers.go); those of a session are signed with the session's secret.
	flashSecret []byte

	// publicURL is the configured public URL (Config.PublicURL), which the
	// links the console hands out (password reset links) start with; empty
	// when unknown.
	publicURL string
}

// New builds the console.
func New(cfg Config) (*Console, error) {
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
	s := &Console{
		pool:        cfg.Pool,
		logger:      cfg.Logger,
		assets:      cfg.Assets,
		now:         cfg.Now,
		publicHTTPS: publicHTTPS,
		throttle:    newLoginThrottle(cfg.Now),
		store:       cfg.Store,
		jobs:        cfg.Jobs,
		extract:     cfg.Extract,
		reads:       cfg.Reads,

		requestTimeout: cfg.RequestTimeout,
		flashSecret:    make([]byte, 32),
		publicURL:      cfg.PublicURL,
	}
	if _, err := rand.Read(s.flashSecret); err != nil {
		return nil, err
	}
	if s.store == nil {
		s.store = memory.NewStore(cfg.Pool, memory.Options{Logger: cfg.Logger, Now: cfg.Now})
	}
	sessions, err := auth.NewSessions(cfg.Pool, cfg.Now)
	if err != nil {
		return nil, err
	}
	s.sessions = sessions
	return s, nil
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
