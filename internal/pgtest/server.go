package pgtest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/pglocal"
)

// Run is Main without the exit: it starts the shared cluster, runs the tests,
// stops the cluster and returns the exit code, so that TestMain can clean up
// what it made itself before calling os.Exit.
func Run(m *testing.M) int {
	return run(m)
}

// Server is a PostgreSQL cluster of one test's own, apart from the binary's
// shared cluster, which the test may stop and start again on the same port
// and data folder: a client holding its URL sees the database go away and
// come back, as after a restart of a production server. It does not need Main.
// Its methods are safe for concurrent use.
type Server struct {
	dir  string
	port int
	url  string

	mu      sync.Mutex
	cluster *pglocal.Cluster // nil while stopped
}

// serverDatabase is the database a Server's URL names.
const serverDatabase = "tenure"

// NewServer starts a private cluster in a temporary data folder, with a fully
// migrated database, and returns it running; it is stopped and its folder
// removed when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "tenure-pgtest-server-*")
	if err != nil {
		t.Fatalf("pgtest: new server: %v", err)
	}
	// PostgreSQL may run as another user (postgres, when tests run as root),
	// who must be able to enter the folder.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("pgtest: new server: %v", err)
	}
	s := &Server{dir: dir}
	t.Cleanup(func() {
		s.mu.Lock()
		c := s.cluster
		s.cluster = nil
		s.mu.Unlock()
		if c != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_ = c.Stop(ctx)
			cancel()
		}
		os.RemoveAll(dir)
	})
	s.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := migrateTemplate(ctx, s.url); err != nil {
		t.Fatalf("pgtest: new server: %v", err)
	}
	return s
}

// URL returns the connection URL of the server's database. It stays the same
// across Stop and Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Port returns the loopback TCP port the server listens on, the same at every
// start.
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// Running reports whether the server is started.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cluster != nil
}

// Start starts the server on its data folder and, after the first start, on
// the port it had, and waits until it accepts connections. Starting a
// running server fails the test.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cluster != nil {
		t.Fatal("pgtest: start: the server is already running")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pglocal.Start(ctx, pglocal.Options{
		DataDir:   s.dir + "/pg",
		Port:      s.port, // 0 the first time: a free port
		Database:  serverDatabase,
		Ephemeral: true,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("pgtest: start server: %v", err)
	}
	s.cluster, s.port, s.url = c, c.Port(), c.URL()
}

// Stop shuts the server down the way an administrator restarting it does (a
// fast shutdown: open transactions roll back and clients are disconnected)
// and waits until it has exited. Stopping a stopped server fails the test.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cluster == nil {
		t.Fatal("pgtest: stop: the server is not running")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := s.cluster.Stop(ctx)
	s.cluster = nil
	if err != nil {
		t.Fatalf("pgtest: stop server: %v", err)
	}
}
