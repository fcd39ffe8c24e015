package web_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/pglocal"
	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// TestHealthWithoutStandbys: the health page says the primary answers, how
// the pool stands, and that every read goes to the primary, with how to
// add standbys; htmx asks for the panels alone, which refresh themselves.
func TestHealthWithoutStandbys(t *testing.T) {
	f := newFixture(t, false)
	client := f.login(t, "viewer")
	rec := client.get(t, "/health")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /health = %d, want 200; body %s", rec.Code, rec.Body)
	}
	doc := parse(t, rec)
	field := func(id string) string {
		return strings.Join(strings.Fields(doc.Find(`[data-testid="`+id+`"]`).Text()), " ")
	}
	if got := field("primary-state"); got != "answering" {
		t.Errorf("primary state = %q, want answering", got)
	}
	if got := field("primary-wal"); !strings.Contains(got, "/") {
		t.Errorf("primary WAL position = %q, want an LSN such as 0/16B3740", got)
	}
	if got := field("pool"); !strings.Contains(got, "in use") || !strings.Contains(got, "at most") {
		t.Errorf("pool = %q", got)
	}
	if got := field("standbys-none"); !strings.Contains(got, "every read goes to the primary") || !strings.Contains(got, "--read-database-url") {
		t.Errorf("standbys = %q, want none, and how to add them", got)
	}
	if doc.Find(`[data-testid="standbys-table"]`).Length() != 0 {
		t.Error("a standbys table without standbys")
	}
	if doc.Find(`nav a[href="/health"], .user-menu a[href="/health"]`).Length() == 0 {
		t.Error("the health page is not linked from the menu")
	}

	frag := client.get(t, "/health", "HX-Request", "true")
	if frag.Code != http.StatusOK {
		t.Fatalf("htmx GET /health = %d", frag.Code)
	}
	body := frag.Body.String()
	if strings.Contains(body, "<html") || !strings.Contains(body, `hx-trigger="every 5s"`) || !strings.Contains(body, `data-testid="health-primary"`) {
		t.Errorf("htmx GET /health = %s, want the panels alone, refreshing", body)
	}
}

// TestHealthWithStandbys: with one streaming standby and one that cannot be
// reached, the page shows the first taking reads with its lag and replay
// position, the second down with its error, and how many take reads.
func TestHealthWithStandbys(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	dir, err := os.MkdirTemp("", "tenure-health-test-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The server may run as another user, who must be able to enter it.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	standby, err := pgtest.Cluster(t).StartStandby(sctx, pglocal.StandbyOptions{DataDir: filepath.Join(dir, "standby"), Ephemeral: true, Logger: quiet})
	cancel()
	if err != nil {
		t.Fatalf("StartStandby: %v", err)
	}
	t.Cleanup(func() { standby.Stop(context.Background()) })
	spool := pgtest.Connect(t, standby.URLFor(pool.Config().ConnConfig.Database))
	// Nothing listens there: the port was free a moment ago.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := ln.Addr().String()
	ln.Close()
	dead, err := pgxpool.New(ctx, "postgres://tenure@"+deadAddr+"/tenure?connect_timeout=1&sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dead.Close)
	router, err := replica.New(pool, []replica.Standby{{Name: "standby1", Pool: spool}, {Name: "standby2", Pool: dead}},
		replica.Options{Interval: 100 * time.Millisecond, MaxLag: 30 * time.Second, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(router.Close)
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Pool: pool, Assets: assets, Logger: quiet, Reads: router})
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{pool: pool, server: srv}
	viewer := f.login(t, "viewer")
	deadline := time.Now().Add(45 * time.Second)
	for st := router.Status().Standbys; !st[0].InRotation || st[1].LastCheck.IsZero(); st = router.Status().Standbys {
		if time.Now().After(deadline) {
			t.Fatalf("the standbys were not checked: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}

	doc := parse(t, viewer.get(t, "/health"))
	row := func(name, id string) string {
		return strings.Join(strings.Fields(doc.Find(`[data-standby="`+name+`"] [data-testid="`+id+`"]`).Text()), " ")
	}
	if got := row("standby1", "standby-state"); got != "taking reads" {
		t.Errorf("standby1 state = %q, want taking reads", got)
	}
	if got := row("standby1", "standby-lag"); !strings.HasSuffix(got, " ms") && !strings.HasSuffix(got, " s") {
		t.Errorf("standby1 lag = %q, want a time", got)
	}
	if got := row("standby1", "standby-error"); got != "none" {
		t.Errorf("standby1 error = %q, want none", got)
	}
	if got := row("standby2", "standby-state"); got != "down" {
		t.Errorf("standby2 state = %q, want down", got)
	}
	if got := row("standby2", "standby-error"); got == "none" || got == "" {
		t.Errorf("standby2 error = %q, want why it is down", got)
	}
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid="standbys-summary"]`).Text()), " "); got != "1 of 2 taking reads · lag limit 30.0 s" {
		t.Errorf("summary = %q", got)
	}
	if doc.Find(`[data-testid="standbys-none"]`).Length() != 0 {
		t.Error("the page says there are no standbys")
	}
}
