package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func TestSignInFlow(t *testing.T) {
	f := newFixture(t, false)
	anon := newClient(f)

	rec := anon.get(t, "/facts?durability=ephemeral")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/login?next=") {
		t.Fatalf("anonymous GET /facts = %d to %q, want a redirect to sign in", rec.Code, rec.Header().Get("Location"))
	}
	rec = anon.get(t, "/facts", "HX-Request", "true")
	if rec.Code != http.StatusUnauthorized || !strings.HasPrefix(rec.Header().Get("HX-Redirect"), "/login") {
		t.Errorf("anonymous htmx GET = %d, HX-Redirect %q; want 401 and a redirect for htmx", rec.Code, rec.Header().Get("HX-Redirect"))
	}

	anon.get(t, "/login?next=/facts%3Fdurability%3Dephemeral")
	rec = anon.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"wrong password!!"}})
	if rec.Code != http.StatusUnauthorized || !strings.Contains(parse(t, rec).Find(`[data-testid="login-error"]`).Text(), "email or password is wrong") {
		t.Errorf("wrong password = %d, want 401 with the error shown", rec.Code)
	}
	anon.get(t, "/login")
	rec = anon.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"},
		"next": {"/facts?durability=ephemeral"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/facts?durability=ephemeral" {
		t.Errorf("sign in = %d to %q, want a redirect to next", rec.Code, rec.Header().Get("Location"))
	}
	doc := parse(t, anon.get(t, "/facts"))
	if who := doc.Find(`[data-testid="signed-in-as"]`).Text(); !strings.Contains(who, "reviewer@example.com") {
		t.Errorf("signed in as %q", who)
	}

	rec = anon.post(t, "/logout", nil)
	if rec.Code != http.StatusSeeOther {
		t.Errorf("logout = %d", rec.Code)
	}
	if rec := anon.get(t, "/facts"); rec.Code != http.StatusSeeOther {
		t.Errorf("GET /facts after logout = %d, want a redirect to sign in", rec.Code)
	}
}

func TestSignInRefusals(t *testing.T) {
	f := newFixture(t, false)
	c := newClient(f)
	// No login form fetched first: no double-submit cookie.
	rec := c.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}, "_csrf": {"forged"}})
	if rec.Code != http.StatusForbidden {
		t.Errorf("sign in without the form's token = %d, want 403", rec.Code)
	}
	c.get(t, "/login")
	rec = c.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"},
		"next": {"//evil.example/"}})
	if loc := rec.Header().Get("Location"); loc != "/" {
		t.Errorf("sign in with an off-site next redirected to %q, want /", loc)
	}
}

func TestCSRFRefusesForgedWrites(t *testing.T) {
	f := newFixture(t, false)
	c := f.signedIn
	rec := c.post(t, "/logout", url.Values{"_csrf": {"forged"}})
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "security token") {
		t.Errorf("POST with a forged token = %d, want 403 naming the token", rec.Code)
	}
	rec = c.post(t, "/logout", url.Values{"_csrf": {""}}, "X-CSRF-Token", c.csrf)
	if rec.Code != http.StatusSeeOther {
		t.Errorf("htmx-style POST with the header token = %d, want it accepted", rec.Code)
	}
}

func TestSessionCookieFlags(t *testing.T) {
	f := newFixture(t, false)
	c := newClient(f)
	c.get(t, "/login")
	c.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}})
	ck := c.cookies["tenure_session"]
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode {
		t.Errorf("session cookie = %+v, want HttpOnly and SameSite=Lax", ck)
	}
}
