package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// testClock is a settable clock shared by the store and the API.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// apiFixture is a fresh database, the engine over it and an HTTP server
// with nothing but the API mounted.
type apiFixture struct {
	pool  *pgxpool.Pool
	store *memory.Store
	clock *testClock
	echo  *echo.Echo
	srv   *httptest.Server
	logs  *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newAPIFixture mounts the API; opts complete its configuration.
func newAPIFixture(t testing.TB, opts ...func(*api.Config)) *apiFixture {
	t.Helper()
	pool := pgtest.NewPool(t)
	clock := &testClock{t: time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	store := memory.NewStore(pool, memory.Options{Logger: logger, Now: clock.now})
	e := echo.New()
	e.HTTPErrorHandler = api.HTTPErrorHandler(logger)
	cfg := api.Config{Store: store, Pool: pool, Logger: logger, Now: clock.now}
	for _, o := range opts {
		o(&cfg)
	}
	if err := api.Mount(e, cfg); err != nil {
		t.Fatalf("api.Mount: %v", err)
	}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return &apiFixture{pool: pool, store: store, clock: clock, echo: e, srv: srv, logs: logs}
}

// newToken creates an API token and returns it.
func (f *apiFixture) newToken(t testing.TB, scope, name, role string) string {
	t.Helper()
	secret, _, err := auth.SeedToken(context.Background(), f.pool, auth.NewToken{Name: name, Scope: scope, Role: role}, f.clock.now())
	if err != nil {
		t.Fatalf("create token: %v", err)
	}
	return secret
}

// apiResponse is a finished response with its body read.
type apiResponse struct {
	status int
	header http.Header
	body   []byte
}

// call sends a request; body is sent as is when it is a string or []byte,
// and as JSON otherwise.
func (f *apiFixture) call(t *testing.T, method, path, token string, body any) apiResponse {
	t.Helper()
	return f.callWith(t, method, path, token, body, nil)
}

// callWith is call with extra request headers.
func (f *apiFixture) callWith(t *testing.T, method, path, token string, body any, headers map[string]string) apiResponse {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, f.srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return apiResponse{status: res.StatusCode, header: res.Header, body: raw}
}

// decode reads the body into v, failing the test when it is not JSON.
func (r apiResponse) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("response body %q is not JSON: %v", r.body, err)
	}
}

// object returns the body as a JSON object.
func (r apiResponse) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	r.decode(t, &m)
	return m
}

// apiError is the error shape every failure must have.
type apiError struct {
	Error struct {
		Code       string          `json:"code"`
		Message    string          `json:"message"`
		Field      string          `json:"field"`
		Current    json.RawMessage `json:"current"`
		DecisionID *int64          `json:"decision_id"`
		Reasoning  string          `json:"reasoning"`
	} `json:"error"`
}

// wantError checks the status and the error's code, and returns the error.
func (r apiResponse) wantError(t *testing.T, status int, code string) apiError {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	var e apiError
	r.decode(t, &e)
	if e.Error.Code != code || e.Error.Message == "" {
		t.Fatalf("error = %+v, want code %q and a message; body %s", e.Error, code, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type = %q, want application/json", ct)
	}
	return e
}

// wantStatus fails the test unless the response has status.
func (r apiResponse) wantStatus(t *testing.T, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
}

func (f *apiFixture) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func jsonUnmarshal(raw json.RawMessage, v any) error { return json.Unmarshal(raw, v) }
