package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// timedFixture is newFixture over pool with a request timeout.
func timedFixture(t *testing.T, pool *pgxpool.Pool, timeout time.Duration) fixture {
	t.Helper()
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{
		Pool: pool, Assets: assets, Now: func() time.Time { return now }, RequestTimeout: timeout,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{pool: pool, server: srv}
	// Signed in directly, not through the form: hashing the password may
	// take longer than a short timeout on a loaded machine.
	ctx := context.Background()
	hash, err := auth.HashPassword("a long enough secret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (email, role, password_hash) VALUES ('reviewer@example.com', 'reviewer', $1)`,
		hash); err != nil {
		t.Fatal(err)
	}
	sessions, err := auth.NewSessions(pool, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := sessions.Login(ctx, "reviewer@example.com", "a long enough secret", "test", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	f.signedIn = newClient(f)
	f.signedIn.cookies["tenure_session"] = &http.Cookie{Name: "tenure_session", Value: token}
	if f.signedIn.get(t, "/facts"); f.signedIn.csrf == "" {
		t.Fatal("no CSRF token on the page with the session")
	}
	return f
}

// lockTables holds tables in an exclusive lock, as a database that stopped
// answering would, until the returned function or the test's end.
func lockTables(t *testing.T, pool *pgxpool.Pool, tables string) func() {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE "+tables+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	release := func() { _ = tx.Rollback(ctx) }
	t.Cleanup(release)
	return release
}

// wantUnavailablePage checks a console answer is the 503 page of a database
// that does not answer.
func wantUnavailablePage(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("%s = %d, want 503; body %.300s", what, rec.Code, rec.Body)
	}
	if ra := rec.Header().Get("Retry-After"); ra != "5" {
		t.Errorf("%s: Retry-After = %q, want 5", what, ra)
	}
	if msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text(); !strings.Contains(msg, "database is unreachable") ||
		!strings.Contains(msg, "Try again") {
		t.Errorf("%s: page says %q, want that the database is unreachable and to try again", what, msg)
	}
}

// TestConsoleRequestTimeout: with a database that does not answer, console
// pages and forms, the API and MCP calls answer 503 (or an MCP tool error
// saying the store is unavailable) once the request timeout has passed.
func TestConsoleRequestTimeout(t *testing.T) {
	f := timedFixture(t, pgtest.NewPool(t), time.Second)
	secret, _, err := auth.SeedToken(context.Background(), f.pool, auth.NewToken{Name: "probe", Scope: "acme", Role: auth.TokenWriter}, now)
	if err != nil {
		t.Fatal(err)
	}
	f.get(t, "/facts")
	release := lockTables(t, f.pool, "entity_facts, memory_nodes")

	timed := func(what string, do func() *httptest.ResponseRecorder) *httptest.ResponseRecorder {
		t.Helper()
		start := time.Now()
		rec := do()
		if took := time.Since(start); took < 900*time.Millisecond || took > 6*time.Second {
			t.Errorf("%s answered after %v, want about the 1s timeout", what, took)
		}
		return rec
	}
	wantUnavailablePage(t, "GET /facts", timed("GET /facts", func() *httptest.ResponseRecorder { return f.get(t, "/facts") }))
	wantUnavailablePage(t, "GET /facts (htmx)", timed("GET /facts (htmx)", func() *httptest.ResponseRecorder {
		return f.get(t, "/facts", "HX-Request", "true")
	}))

	rec := timed("GET API facts", func() *httptest.ResponseRecorder {
		return f.get(t, "/api/v1/scopes/acme/facts", "Authorization", "Bearer "+secret)
	})
	var apiErr struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &apiErr); err != nil || rec.Code != http.StatusServiceUnavailable ||
		apiErr.Error.Code != "unavailable" || rec.Header().Get("Retry-After") != "5" {
		t.Errorf("GET API facts = %d %s, want 503 unavailable with Retry-After", rec.Code, rec.Body)
	}

	rec = timed("MCP recall", func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"Lisbon"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+secret)
		out := httptest.NewRecorder()
		f.server.ServeHTTP(out, req)
		return out
	})
	var rpc struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &rpc); err != nil || rec.Code != http.StatusOK || !rpc.Result.IsError ||
		len(rpc.Result.Content) == 0 || !strings.Contains(rpc.Result.Content[0].Text, "unavailable") {
		t.Errorf("MCP recall = %d %s, want a tool error saying the store is unavailable", rec.Code, rec.Body)
	}
	release()

	if rec := f.get(t, "/facts"); rec.Code != http.StatusOK {
		t.Errorf("GET /facts once the database answers = %d, want 200", rec.Code)
	}
}

// TestRunNowOutlivesTheRequestTimeout: "run now" has its own bound, so a
// run that takes longer than the request timeout finishes and is reported.
func TestRunNowOutlivesTheRequestTimeout(t *testing.T) {
	f := timedFixture(t, pgtest.NewPool(t), time.Second)
	wmPush(t, f, now.Add(-time.Minute), "acme", memory.NewNode{Content: "Acme's contract renews every January"})
	f.get(t, "/consolidation")
	release := lockTables(t, f.pool, "memory_nodes")
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- f.signedIn.post(t, "/consolidation/run", nil) }()
	time.Sleep(2500 * time.Millisecond)
	release()
	var rec *httptest.ResponseRecorder
	select {
	case rec = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run now did not answer")
	}
	_, _, flash := follow(t, f.signedIn, rec)
	if !strings.Contains(flash, "finished") || !strings.Contains(flash, "1 promoted") {
		t.Errorf("flash = %q, want the run finished with 1 promoted", flash)
	}
}

// TestConsoleWithDatabaseDown: with PostgreSQL stopped, the console answers
// a 503 page saying the database is unreachable, promptly.
func TestConsoleWithDatabaseDown(t *testing.T) {
	pg := pgtest.NewServer(t)
	f := timedFixture(t, pgtest.Connect(t, pg.URL()), 0)
	f.get(t, "/facts")
	pg.Stop(t)
	for _, target := range []string{"/facts", "/decisions", "/users"} {
		start := time.Now()
		rec := f.get(t, target)
		wantUnavailablePage(t, "GET "+target, rec)
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("GET %s took %v with the database down, want a prompt answer", target, took)
		}
	}
}
