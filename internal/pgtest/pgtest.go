// Package pgtest gives every test its own real PostgreSQL database. One private
// cluster is started per test binary (from TestMain through Main); a template
// database is migrated once, and each test gets a fresh copy of it, which takes
// a fraction of a second.
package pgtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/migrations"
	"github.com/tenurehq/tenure/pglocal"
)

const templateDB = "tenure_template"

// env is the state shared by the tests of one binary. It is set once by Main
// before any test runs and read only afterwards.
type env struct {
	cluster *pglocal.Cluster
	admin   *pgxpool.Pool // connected to the maintenance database "postgres"
	seq     atomic.Int64
	mu      sync.Mutex // CREATE DATABASE ... TEMPLATE needs the template idle
}

var shared *env

// Main starts the cluster, migrates the template, runs the tests and stops
// the cluster. Call it from TestMain: func TestMain(m *testing.M) { pgtest.Main(m) }.
// A cluster that cannot start fails the whole binary loudly; tests never skip.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	dir, err := os.MkdirTemp("", "tenure-pgtest-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		cancel()
		return 1
	}
	defer os.RemoveAll(dir)
	// The server may run as another user (postgres, when tests run as root),
	// who must be able to enter the folder.
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		cancel()
		return 1
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cluster, err := pglocal.Start(ctx, pglocal.Options{
		DataDir:   dir + "/pg",
		Database:  templateDB,
		Ephemeral: true,
		Logger:    quiet,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: start PostgreSQL for the tests:", err)
		cancel()
		return 1
	}
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer stopCancel()
		_ = cluster.Stop(stopCtx)
	}()
	if err := migrateTemplate(ctx, cluster.URL()); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		cancel()
		return 1
	}
	admin, err := pgxpool.New(ctx, cluster.URLFor("postgres"))
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: connect:", err)
		return 1
	}
	defer admin.Close()
	shared = &env{cluster: cluster, admin: admin}
	return m.Run()
}

func migrateTemplate(ctx context.Context, url string) error {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return fmt.Errorf("connect to template: %w", err)
	}
	defer pool.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := migrations.Up(ctx, pool, quiet); err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	return nil
}

func must(t testing.TB) *env {
	t.Helper()
	if shared == nil {
		t.Fatal("pgtest: no cluster; call pgtest.Main(m) from TestMain")
	}
	return shared
}

// Cluster returns the test binary's cluster.
func Cluster(t testing.TB) *pglocal.Cluster {
	return must(t).cluster
}

// NewURL creates a fresh, fully migrated database for the test, dropped when
// the test ends, and returns its connection URL.
func NewURL(t testing.TB) string {
	return newDatabase(t, templateDB)
}

// NewEmptyURL creates a fresh database with no schema at all (for testing the
// migrations themselves) and returns its connection URL.
func NewEmptyURL(t testing.TB) string {
	return newDatabase(t, "template0")
}

// NewPool creates a fresh, fully migrated database for the test and returns a
// pool connected to it; both are closed and dropped when the test ends.
func NewPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return Connect(t, NewURL(t))
}

// Connect opens a pool to url that is closed when the test ends; the test
// fails if the server warns on one of its connections (WatchWarnings).
func Connect(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	WatchWarnings(t, cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// WatchWarnings makes t fail, when it ends, if the server sent a warning on
// a connection made with cfg: a warning sent for every statement of some
// kind would fill the server's log. Call it before the connections are
// made and their closing is registered, so that they close before the
// warnings are counted (cleanups run last first).
func WatchWarnings(t testing.TB, cfg *pgx.ConnConfig) {
	var mu sync.Mutex
	var warnings []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.Severity == "WARNING" {
			mu.Lock()
			warnings = append(warnings, n.Message)
			mu.Unlock()
		}
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range warnings {
			t.Errorf("pgtest: the server warned: %s", w)
		}
	})
}

func newDatabase(t testing.TB, template string) string {
	t.Helper()
	e := must(t)
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), e.seq.Add(1))
	ctx := context.Background()
	e.mu.Lock()
	_, err := e.admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+
		" TEMPLATE "+pgx.Identifier{template}.Sanitize())
	e.mu.Unlock()
	if err != nil {
		t.Fatalf("pgtest: create database from %s: %v", template, err)
	}
	t.Cleanup(func() {
		// Tests may leave connections behind (a server still shutting down);
		// WITH (FORCE) ends them rather than failing the cleanup.
		_, err := e.admin.Exec(context.Background(),
			"DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		if err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return e.cluster.URLFor(name)
}
