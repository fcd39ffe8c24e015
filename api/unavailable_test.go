package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

// closedPortURL is a PostgreSQL URL nothing listens on.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return fmt.Sprintf("postgres://tenure:secret@127.0.0.1:%d/tenure?sslmode=disable&connect_timeout=5", port)
}

// unavailableErrors are real errors of pgx and pgconn for a database that
// cannot be reached or does not answer in time, by what caused them.
func unavailableErrors(t *testing.T) map[string]error {
	t.Helper()
	ctx := context.Background()
	out := map[string]error{}

	_, err := pgconn.Connect(ctx, closedPortURL(t))
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("connecting to a closed port = %T %v, want a *pgconn.ConnectError", err, err)
	}
	out["connect refused"] = fmt.Errorf("memory: list facts: %w", err)

	cfg, err := pgxpool.ParseConfig(closedPortURL(t))
	if err != nil {
		t.Fatal(err)
	}
	down, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	_, err = down.Exec(ctx, "SELECT 1")
	out["pool query, server down"] = err

	pool := pgtest.NewPool(t)
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = pool.Exec(short, "SELECT pg_sleep(10)")
	cancel()
	out["statement past its deadline"] = err

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw := conn.Conn().PgConn()
	if err := raw.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(ctx, "SELECT 1").ReadAll()
	conn.Release()
	if !pgconn.SafeToRetry(err) {
		t.Fatalf("a statement on a closed connection = %v, want an error safe to retry", err)
	}
	out["closed connection"] = err

	cfg, err = pgxpool.ParseConfig(pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	one, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	held, err := one.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = one.Acquire(short)
	cancel()
	held.Release()
	out["pool acquire timeout"] = err

	for _, code := range []string{"08006", "08001", "57P01", "57P02", "57P03"} {
		out["SQLSTATE "+code] = fmt.Errorf("wrapped: %w", &pgconn.PgError{Severity: "FATAL", Code: code, Message: "terminating connection"})
	}
	for name, err := range out {
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
	}
	return out
}

func TestUnavailableErrorsAnswer503(t *testing.T) {
	for name, err := range unavailableErrors(t) {
		t.Run(name, func(t *testing.T) {
			if !httpx.IsUnavailable(err) {
				t.Fatalf("IsUnavailable(%T %v) = false", err, err)
			}
			e := echo.New()
			rec := httptest.NewRecorder()
			c := e.NewContext(httptest.NewRequest(http.MethodGet, "/api/v1/scopes/acme/facts", nil), rec)
			if err := api.WriteError(c, err); err != nil {
				t.Fatal(err)
			}
			r := apiResponse{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			got := r.wantError(t, http.StatusServiceUnavailable, "unavailable")
			if !strings.Contains(got.Error.Message, "database is unreachable") || !strings.Contains(got.Error.Message, "retry") {
				t.Errorf("message = %q, want it to say the database is unreachable and to retry", got.Error.Message)
			}
			if ra := rec.Header().Get("Retry-After"); ra != strconv.Itoa(httpx.RetryAfterSeconds) || ra != "5" {
				t.Errorf("Retry-After = %q, want 5", ra)
			}
			if strings.Contains(string(r.body), "127.0.0.1") || strings.Contains(string(r.body), "secret") {
				t.Errorf("body %s leaks the connection's details", r.body)
			}
		})
	}
}

func TestOtherErrorsAreNotUnavailable(t *testing.T) {
	for _, err := range []error{
		nil,
		errors.New("boom"),
		context.Canceled,
		&pgconn.PgError{Code: "23505", Message: "duplicate key"},
		&pgconn.PgError{Code: "22021", Message: "invalid byte sequence"},
		&pgconn.PgError{Code: "57014", Message: "canceling statement due to user request"},
		&pgconn.PgError{Code: "40001", Message: "could not serialize access"},
		memory.Invalidf("q", "bad"),
	} {
		if httpx.IsUnavailable(err) {
			t.Errorf("IsUnavailable(%v) = true, want false", err)
		}
	}
}

// TestAPIWithDatabaseDown stops PostgreSQL under the API: requests answer
// 503 unavailable with Retry-After, promptly, until it is back.
func TestAPIWithDatabaseDown(t *testing.T) {
	pg := pgtest.NewServer(t)
	pool := pgtest.Connect(t, pg.URL())
	f := newAPIFixture(t, func(c *api.Config) {
		c.Pool = pool
		c.Store = memory.NewStore(pool, memory.Options{})
	})
	f.pool = pool
	token := f.newToken(t, "ops", "down-probe", "writer")
	if r := f.call(t, http.MethodGet, "/api/v1/scopes/ops/facts", token, nil); r.status != http.StatusOK {
		t.Fatalf("GET facts before the outage = %d: %s", r.status, r.body)
	}

	pg.Stop(t)
	for _, req := range []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/v1/scopes/ops/facts", nil},
		{http.MethodPost, "/api/v1/scopes/ops/nodes", map[string]any{"content": "Written while the database is down."}},
	} {
		start := time.Now()
		r := f.call(t, req.method, req.path, token, req.body)
		took := time.Since(start)
		got := r.wantError(t, http.StatusServiceUnavailable, "unavailable")
		if !strings.Contains(got.Error.Message, "database is unreachable") {
			t.Errorf("%s %s: message %q", req.method, req.path, got.Error.Message)
		}
		if r.header.Get("Retry-After") != "5" {
			t.Errorf("%s %s: Retry-After = %q, want 5", req.method, req.path, r.header.Get("Retry-After"))
		}
		if took > 10*time.Second {
			t.Errorf("%s %s took %v with the database down, want a prompt answer", req.method, req.path, took)
		}
	}

	pg.Start(t)
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := f.call(t, http.MethodGet, "/api/v1/scopes/ops/facts", token, nil)
		if r.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET facts after the database came back = %d: %s", r.status, r.body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRequestDeadline: a request held by a database that does not answer
// (here a table locked by another session) answers 503 once the configured
// request timeout has passed, not when the database lets go.
func TestRequestDeadline(t *testing.T) {
	f := newAPIFixture(t, func(c *api.Config) { c.RequestTimeout = 500 * time.Millisecond })
	token := f.newToken(t, "acme", "deadline-probe", "writer")
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE memory_nodes, entity_facts IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	for _, req := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, "/api/v1/scopes/acme/nodes", map[string]any{"content": "Edmund lives in Lisbon."}},
		{http.MethodGet, "/api/v1/scopes/acme/facts", nil},
	} {
		start := time.Now()
		r := f.call(t, req.method, req.path, token, req.body)
		took := time.Since(start)
		r.wantError(t, http.StatusServiceUnavailable, "unavailable")
		if r.header.Get("Retry-After") != "5" {
			t.Errorf("%s %s: Retry-After = %q, want 5", req.method, req.path, r.header.Get("Retry-After"))
		}
		if took < 400*time.Millisecond || took > 5*time.Second {
			t.Errorf("%s %s answered after %v, want about the 500ms timeout", req.method, req.path, took)
		}
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	r := f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", token, map[string]any{"content": "Edmund lives in Lisbon."})
	r.wantStatus(t, http.StatusCreated)
}

// TestDeadlineMiddleware: a handler blocked on a statement that sleeps
// answers 503 at the deadline, in the API's shape; a handler that finishes
// in time is not touched, nor are its own errors.
func TestDeadlineMiddleware(t *testing.T) {
	pool := pgtest.NewPool(t)
	e := echo.New()
	e.HTTPErrorHandler = api.HTTPErrorHandler(nil)
	bound := httpx.Deadline(func(echo.Context) time.Duration { return 300 * time.Millisecond },
		func(err error) bool { return memory.AsError(err) == nil })
	e.GET("/sleep", func(c echo.Context) error {
		_, err := pool.Exec(c.Request().Context(), "SELECT pg_sleep(60)")
		return err
	}, bound)
	e.GET("/quick", func(c echo.Context) error {
		if _, ok := c.Request().Context().Deadline(); !ok {
			return errors.New("no deadline")
		}
		return c.String(http.StatusOK, "ok")
	}, bound)
	e.GET("/invalid", func(c echo.Context) error {
		<-c.Request().Context().Done()
		return memory.Invalidf("q", "bad query")
	}, bound)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)

	get := func(path string) (*http.Response, string, time.Duration) {
		start := time.Now()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, string(b), time.Since(start)
	}
	res, body, took := get("/sleep")
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"code":"unavailable"`) || res.Header.Get("Retry-After") != "5" {
		t.Errorf("GET /sleep = %d %s (Retry-After %q), want 503 unavailable", res.StatusCode, body, res.Header.Get("Retry-After"))
	}
	if took > 5*time.Second {
		t.Errorf("GET /sleep answered after %v, want about the 300ms deadline", took)
	}
	if res, body, _ := get("/quick"); res.StatusCode != http.StatusOK {
		t.Errorf("GET /quick = %d %s, want 200 with a deadline set", res.StatusCode, body)
	}
	if res, body, _ := get("/invalid"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("GET /invalid = %d %s, want the handler's own 400", res.StatusCode, body)
	}
}

// TestOpenAPIDocumentsUnavailable: every operation under /api/v1 documents
// the 503 of a database that cannot be reached, with Retry-After, and the
// error codes list unavailable.
func TestOpenAPIDocumentsUnavailable(t *testing.T) {
	var doc openAPIDoc
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths {
		if !strings.HasPrefix(path, "/api/v1/") {
			continue
		}
		for method, op := range item {
			n++
			if r, ok := op.Responses["503"].(map[string]any); !ok || r["$ref"] != "#/components/responses/Unavailable" {
				t.Errorf("%s %s does not document 503 unavailable", method, path)
			}
		}
	}
	if n < 15 {
		t.Fatalf("only %d operations under /api/v1", n)
	}
	var raw struct {
		Components struct {
			Responses map[string]struct {
				Headers map[string]any `json:"headers"`
			} `json:"responses"`
			Schemas struct {
				ErrorDetail struct {
					Properties struct {
						Code struct {
							Enum []string `json:"enum"`
						} `json:"code"`
					} `json:"properties"`
				} `json:"ErrorDetail"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw.Components.Responses["Unavailable"].Headers["Retry-After"]; !ok {
		t.Error("the Unavailable response does not document Retry-After")
	}
	if !slices.Contains(raw.Components.Schemas.ErrorDetail.Properties.Code.Enum, "unavailable") {
		t.Error("the error codes do not list unavailable")
	}
}

// TestLongRequestsHaveTheirOwnBound: an extraction through the LLM may take
// the LLM's own timeout, and a consolidation run RunTimeout, both longer
// than the request timeout.
func TestLongRequestsHaveTheirOwnBound(t *testing.T) {
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(800 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices": [{"message": {"content": "not candidates"}}]}`)
	}))
	t.Cleanup(llm.Close)
	set, err := extract.NewSet(extract.Config{URL: llm.URL, Model: "test", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := httpx.ExtractTimeout(30*time.Second, set); got != 30*time.Second {
		t.Errorf("ExtractTimeout(30s, LLM 5s) = %v, want 30s", got)
	}
	if got := httpx.ExtractTimeout(time.Second, set); got != 8*time.Second {
		t.Errorf("ExtractTimeout(1s, LLM 5s) = %v, want 8s", got)
	}
	if got := httpx.ExtractTimeout(time.Second, nil); got != time.Second {
		t.Errorf("ExtractTimeout(1s, no LLM) = %v, want 1s", got)
	}

	f := newAPIFixture(t, func(c *api.Config) { c.RequestTimeout = 300 * time.Millisecond; c.Extractors = set })
	token := f.newToken(t, "acme", "long-probe", "writer")
	r := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", token, map[string]any{"text": "Edmund lives in Lisbon.", "mode": "llm"})
	r.wantError(t, http.StatusBadGateway, "llm_invalid_answer")

	if _, err := f.store.Push(context.Background(), memory.Token("long-probe"), "acme",
		[]memory.NewNode{{Content: "Acme's contract renews every January"}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE memory_nodes IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(time.Second)
		_ = tx.Rollback(ctx)
	}()
	r = f.call(t, http.MethodPost, "/api/v1/consolidation/runs", token, nil)
	r.wantStatus(t, http.StatusCreated)
}
