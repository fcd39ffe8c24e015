package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
)

// client is a browser stand-in: it keeps cookies and the session's CSRF token.
type client struct {
	f       fixture
	cookies map[string]*http.Cookie
	csrf    string
}

func newClient(f fixture) *client {
	return &client{f: f, cookies: map[string]*http.Cookie{}}
}

func (c *client) do(t *testing.T, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	for _, ck := range c.cookies {
		req.AddCookie(ck)
	}
	rec := httptest.NewRecorder()
	c.f.server.ServeHTTP(rec, req)
	for _, ck := range rec.Result().Cookies() {
		if ck.MaxAge < 0 {
			delete(c.cookies, ck.Name)
		} else {
			c.cookies[ck.Name] = ck
		}
	}
	return rec
}

func (c *client) get(t *testing.T, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := c.do(t, req)
	// Keep the CSRF token of the latest page, as a browser's form would.
	if m := csrfField.FindStringSubmatch(rec.Body.String()); m != nil {
		c.csrf = m[1]
	}
	return rec
}

// post submits form, adding the CSRF token unless the form sets _csrf.
func (c *client) post(t *testing.T, target string, form url.Values, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["_csrf"]; !ok {
		form.Set("_csrf", c.csrf)
	}
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.do(t, req)
}

// login creates a user with role and signs in through the form.
func (f fixture) login(t *testing.T, role string) *client {
	t.Helper()
	email := role + "@example.com"
	hash, err := auth.HashPassword("a long enough secret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(context.Background(),
		`INSERT INTO users (email, role, password_hash) VALUES ($1, $2, $3)`, email, role, hash); err != nil {
		t.Fatal(err)
	}
	c := newClient(f)
	c.get(t, "/login")
	rec := c.post(t, "/login", url.Values{"email": {email}, "password": {"a long enough secret"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("sign in as %s = %d, want 303; body %s", role, rec.Code, rec.Body)
	}
	c.get(t, "/facts")
	if c.csrf == "" {
		t.Fatal("no CSRF token on the page after sign-in")
	}
	return c
}
