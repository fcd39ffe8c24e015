package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
)

func TestTokenRefusals(t *testing.T) {
	f := newAPIFixture(t)
	writer := f.newToken(t, "home", "laptop", "writer")
	revoked := f.newToken(t, "home", "old", "writer")
	if _, err := f.pool.Exec(context.Background(), "UPDATE api_tokens SET revoked_at = $1 WHERE name = 'old'", f.clock.now()); err != nil {
		t.Fatal(err)
	}
	expired := f.newToken(t, "home", "short", "writer")
	if _, err := f.pool.Exec(context.Background(), "UPDATE api_tokens SET expires_at = $1 WHERE name = 'short'", f.clock.now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		header string
		want   string
	}{
		{"missing", "", "missing bearer token"},
		{"not bearer", "Basic dXNlcjpwYXNz", "Bearer <token>"},
		{"bearer without token", "Bearer ", "Bearer <token>"},
		{"wrong", "Bearer tnr_notarealtoken", "unknown, revoked or expired"},
		{"revoked", "Bearer " + revoked, "unknown, revoked or expired"},
		{"expired", "Bearer " + expired, "unknown, revoked or expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, f.srv.URL+"/api/v1/scopes/home/facts", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			res, err := f.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var body [4096]byte
			n, _ := res.Body.Read(body[:])
			r := apiResponse{status: res.StatusCode, header: res.Header, body: body[:n]}
			e := r.wantError(t, http.StatusUnauthorized, "unauthorized")
			if !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("message = %q, want it to contain %q", e.Error.Message, tt.want)
			}
			if h := res.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", h)
			}
		})
	}

	t.Run("writes are refused too", func(t *testing.T) {
		f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", revoked, map[string]any{"content": "x"}).
			wantError(t, http.StatusUnauthorized, "unauthorized")
		if n := f.count(t, "SELECT count(*) FROM memory_nodes"); n != 0 {
			t.Errorf("rows after a refused push = %d, want 0", n)
		}
	})

	t.Run("the live token works", func(t *testing.T) {
		f.call(t, http.MethodGet, "/api/v1/scopes/home/facts", writer, nil).wantStatus(t, http.StatusOK)
	})
}

func TestTokenScopeAndRole(t *testing.T) {
	f := newAPIFixture(t)
	writer := f.newToken(t, "home", "laptop", "writer")
	reader := f.newToken(t, "home", "dashboard", "reader")

	t.Run("other scope", func(t *testing.T) {
		for _, path := range []string{"/api/v1/scopes/work/facts", "/api/v1/scopes/work/nodes", "/api/v1/scopes/work/context"} {
			e := f.call(t, http.MethodGet, path, writer, nil).wantError(t, http.StatusForbidden, "forbidden")
			if e.Error.Message != "this token may only reach scope home" {
				t.Errorf("GET %s message = %q, want %q", path, e.Error.Message, "this token may only reach scope home")
			}
		}
		f.call(t, http.MethodPost, "/api/v1/scopes/work/nodes", writer, map[string]any{"content": "x"}).
			wantError(t, http.StatusForbidden, "forbidden")
		if n := f.count(t, "SELECT count(*) FROM memory_nodes"); n != 0 {
			t.Errorf("rows after a push to another scope = %d, want 0", n)
		}
	})

	t.Run("reader writes", func(t *testing.T) {
		writes := []struct{ method, path string }{
			{http.MethodPost, "/api/v1/scopes/home/nodes"},
			{http.MethodPost, "/api/v1/scopes/home/facts"},
			{http.MethodPatch, "/api/v1/scopes/home/facts/1"},
			{http.MethodPost, "/api/v1/scopes/home/decisions"},
			{http.MethodPost, "/api/v1/scopes/home/nodes/1/durability"},
			{http.MethodPost, "/api/v1/consolidation/runs"},
		}
		for _, w := range writes {
			e := f.call(t, w.method, w.path, reader, map[string]any{"content": "x"}).wantError(t, http.StatusForbidden, "forbidden")
			if !strings.Contains(e.Error.Message, "reader") {
				t.Errorf("%s %s message = %q, want it to name the reader role", w.method, w.path, e.Error.Message)
			}
		}
		if n := f.count(t, "SELECT count(*) FROM memory_nodes") + f.count(t, "SELECT count(*) FROM consolidation_runs"); n != 0 {
			t.Errorf("rows written by a reader = %d, want 0", n)
		}
	})

	t.Run("reader reads", func(t *testing.T) {
		for _, path := range []string{"/api/v1/scopes/home/facts", "/api/v1/scopes/home/nodes", "/api/v1/scopes/home/decisions",
			"/api/v1/scopes/home/recall?q=x", "/api/v1/scopes/home/context", "/api/v1/consolidation/rejections"} {
			f.call(t, http.MethodGet, path, reader, nil).wantStatus(t, http.StatusOK)
		}
	})
}

func TestTokenLastUsedIsTouchedAtMostOncePerMinute(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	lastUsed := func() *time.Time {
		t.Helper()
		toks, err := auth.NewAdmin(f.pool, nil).ListTokens(context.Background())
		if err != nil || len(toks) != 1 {
			t.Fatalf("ListTokens = %v, %v", toks, err)
		}
		return toks[0].LastUsedAt
	}
	if lu := lastUsed(); lu != nil {
		t.Fatalf("last_used_at before any request = %v, want null", lu)
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/facts", token, nil).wantStatus(t, http.StatusOK)
	first := lastUsed()
	if first == nil || !first.Equal(f.clock.now()) {
		t.Fatalf("last_used_at after a request = %v, want %v", first, f.clock.now())
	}
	f.clock.advance(30 * time.Second)
	f.call(t, http.MethodGet, "/api/v1/scopes/home/facts", token, nil).wantStatus(t, http.StatusOK)
	if got := lastUsed(); !got.Equal(*first) {
		t.Errorf("last_used_at 30 s later = %v, want it unchanged at %v", got, first)
	}
	f.clock.advance(31 * time.Second)
	f.call(t, http.MethodGet, "/api/v1/scopes/home/facts", token, nil).wantStatus(t, http.StatusOK)
	if got := lastUsed(); got == nil || !got.Equal(f.clock.now()) {
		t.Errorf("last_used_at 61 s later = %v, want %v", got, f.clock.now())
	}
}

func TestRouterErrorsHaveTheAPIShape(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	f.call(t, http.MethodGet, "/api/v1/scopes/home/nothing", token, nil).wantError(t, http.StatusNotFound, "not_found")
	f.call(t, http.MethodGet, "/api/v1/nothing", "", nil).wantError(t, http.StatusUnauthorized, "unauthorized")
	f.call(t, http.MethodGet, "/api/nothing", "", nil).wantError(t, http.StatusNotFound, "not_found")
	f.call(t, http.MethodDelete, "/api/v1/scopes/home/facts", token, nil).wantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
}
