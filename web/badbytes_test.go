package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tenurehq/tenure/auth"
)

// TestSignInRefusesUnstorableText: an email, a password or a return path
// holding a NUL, bytes that are not UTF-8 or control characters is refused
// with 400 and a message on the sign-in page, before the database or the
// throttle sees it; the page never repeats the password.
func TestSignInRefusesUnstorableText(t *testing.T) {
	f := newFixture(t, false)
	sessions := dbInt(t, f, `SELECT count(*) FROM sessions`)
	for _, tt := range []struct {
		name string
		form url.Values
		want string
	}{
		{"email NUL", url.Values{"email": {"reviewer\x00@example.com"}, "password": {"a long enough secret"}}, "The email contains a NUL"},
		{"email not UTF-8", url.Values{"email": {"reviewer@exampl\xe9.com"}, "password": {"a long enough secret"}}, "The email is not valid UTF-8"},
		{"password NUL", url.Values{"email": {"reviewer@example.com"}, "password": {"hunter\x00hunter2"}}, "The password contains a NUL"},
		{"password not UTF-8", url.Values{"email": {"reviewer@example.com"}, "password": {"hunter\xffhunter2"}}, "The password is not valid UTF-8"},
		{"password escape", url.Values{"email": {"reviewer@example.com"}, "password": {"\x1bhunter2hunter"}}, "U+001B"},
		{"next", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}, "next": {"/facts\xff"}}, "next:"},
		{"parameter name", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}, "x\x00": {"1"}}, "a parameter name contains a NUL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(f)
			c.get(t, "/login")
			rec := c.post(t, "/login", tt.form)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("POST /login = %d, want 400; body %.300s", rec.Code, rec.Body)
			}
			body := rec.Body.String()
			msg := parse(t, rec).Find(`[data-testid="login-error"]`).Text()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("sign-in error %q, want it to contain %q", msg, tt.want)
			}
			if strings.Contains(body, "hunter") {
				t.Error("the page repeats the password")
			}
			if !utf8.ValidString(body) || strings.ContainsRune(body, 0) {
				t.Error("the page holds bytes that are not text")
			}
			if _, ok := c.cookies["tenure_session"]; ok {
				t.Error("a refused sign-in set a session cookie")
			}
		})
	}
	if n := dbInt(t, f, `SELECT count(*) FROM sessions`); n != sessions {
		t.Errorf("%d sessions after refused sign-ins, want %d", n, sessions)
	}

	// A wrong password afterwards is still answered as one: the refusals
	// above were not counted as failures by the throttle.
	c := newClient(f)
	c.get(t, "/login")
	if rec := c.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}}); rec.Code != http.StatusSeeOther {
		t.Errorf("sign-in after the refusals = %d, want 303", rec.Code)
	}
}

// TestSignInKeepsAUsableUserAgent: a User-Agent header holding bytes that
// are not UTF-8, control characters or too much text does not refuse the
// sign-in; the session keeps it as valid text of at most 300 bytes.
func TestSignInKeepsAUsableUserAgent(t *testing.T) {
	f := newFixture(t, false)
	for _, tt := range []struct{ name, ua, want string }{
		{"not UTF-8", "Mozilla/5.0 (X11; caf\xe9\xff) Gecko", "Mozilla/5.0 (X11; caf\uFFFD) Gecko"},
		{"control characters", "curl/8.0\x00\x1b[31m\x7f", "curl/8.0[31m"},
		{"long", strings.Repeat("é", 400), strings.Repeat("é", 150)},
		{"cut inside a character", "a" + strings.Repeat("é", 400), "a" + strings.Repeat("é", 149)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.pool.Exec(context.Background(), `DELETE FROM sessions`); err != nil {
				t.Fatal(err)
			}
			c := newClient(f)
			c.get(t, "/login")
			rec := c.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}},
				"User-Agent", tt.ua)
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("sign-in = %d, want 303; body %.300s", rec.Code, rec.Body)
			}
			var ua string
			if err := f.pool.QueryRow(context.Background(), `SELECT user_agent FROM sessions`).Scan(&ua); err != nil {
				t.Fatal(err)
			}
			if ua != tt.want {
				t.Errorf("stored user agent %q, want %q", ua, tt.want)
			}
		})
	}
}

// TestAdminFormsRefuseUnstorableText: the users and tokens forms answer
// text the database cannot take with 422 and the error beside the field (or
// on the page for a field the form does not show), and write nothing.
func TestAdminFormsRefuseUnstorableText(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	users := dbInt(t, f, `SELECT count(*) FROM users`)
	audited := dbInt(t, f, `SELECT count(*) FROM audit_log`)
	user := func(email, name, password string) url.Values {
		return url.Values{"email": {email}, "name": {name}, "role": {"viewer"}, "password": {password}, "confirm": {password}}
	}
	const pw = "a long enough secret"
	for _, tt := range []struct {
		name, target string
		form         url.Values
		field, want  string
	}{
		{"user email", "/users", user("ann\x00@example.com", "Ann", pw), "email", "the email contains a NUL"},
		{"user name", "/users", user("ann@example.com", "Ann \xff", pw), "name", "the name is not valid UTF-8"},
		{"user password", "/users", url.Values{"email": {"ann@example.com"}, "role": {"viewer"}, "password": {"hunter\x00hunter2"}, "confirm": {"x"}},
			"password", "the password contains a NUL"},
		{"user repeated password", "/users", user("ann@example.com", "Ann", "hunter\xffhunter2"), "confirm", "the repeated password is not valid UTF-8"},
		{"user role", "/users", url.Values{"email": {"ann@example.com"}, "role": {"\x1b"}, "password": {pw}, "confirm": {pw}}, "role", "U+001B"},
		{"user unknown field", "/users", url.Values{"email": {"ann@example.com"}, "role": {"viewer"}, "password": {pw}, "confirm": {pw}, "x": {"\x00"}}, "", "x: contains a NUL"},
		{"token name", "/tokens", url.Values{"name": {"ci\x00"}, "scope": {"acme"}, "role": {"writer"}}, "name", "the name contains a NUL"},
		{"token scope", "/tokens", url.Values{"name": {"ci"}, "scope": {"acme\xff"}, "role": {"writer"}}, "scope", "the scope is not valid UTF-8"},
		{"token expiry", "/tokens", url.Values{"name": {"ci"}, "scope": {"acme"}, "role": {"writer"}, "expires_days": {"3\x00"}}, "expires_days", "the expiry contains a NUL"},
		{"token unknown field", "/tokens", url.Values{"name": {"ci"}, "scope": {"acme"}, "role": {"writer"}, "\xff": {"1"}}, "", "a parameter name is not valid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			admin.get(t, tt.target)
			rec := admin.post(t, tt.target, tt.form)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("POST %s = %d, want 422; body %.300s", tt.target, rec.Code, rec.Body)
			}
			body := rec.Body.String()
			doc := parse(t, rec)
			var msg string
			if tt.field != "" {
				msg = doc.Find(`[data-testid="error-` + tt.field + `"]`).Text()
			} else {
				msg = doc.Find(`[data-testid="error-message"]`).Text()
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want it to contain %q; body %.1000s", msg, tt.want, body)
			}
			if !utf8.ValidString(body) || strings.ContainsRune(body, 0) || strings.Contains(body, "hunter") {
				t.Error("the page holds bytes that are not text, or repeats the password")
			}
		})
	}

	id := dbIDs(t, f, `SELECT id FROM users WHERE email = 'reviewer@example.com'`)[0]
	admin.get(t, "/users")
	rec := admin.post(t, "/users/"+strconv.FormatInt(id, 10), url.Values{"action": {"role"}, "role": {"admin\x00"}})
	if msg := parse(t, rec).Find(`[data-testid="error-role"]`).Text(); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(msg, "NUL") {
		t.Errorf("role change with a NUL = %d %q, want 422 beside the role", rec.Code, msg)
	}
	_, tok, err := auth.SeedToken(context.Background(), f.pool, auth.NewToken{Name: "ci", Scope: "acme", Role: auth.TokenWriter}, now)
	if err != nil {
		t.Fatal(err)
	}
	tokenID := tok.ID
	admin.get(t, "/tokens")
	rec = admin.post(t, "/tokens/"+strconv.FormatInt(tokenID, 10)+"/revoke", url.Values{"why": {"\x00"}})
	if msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text(); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(msg, "why:") {
		t.Errorf("revoke with a NUL = %d %q, want 422 naming the field", rec.Code, msg)
	}

	if n := dbInt(t, f, `SELECT count(*) FROM users`); n != users {
		t.Errorf("%d users after refused forms, want %d", n, users)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM users WHERE role = 'admin'`); n != 1 {
		t.Errorf("%d admins after a refused role change, want 1", n)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM api_tokens WHERE revoked_at IS NOT NULL OR name <> 'ci'`); n != 0 {
		t.Errorf("%d tokens created or revoked by refused forms, want 0", n)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log`); n != audited {
		t.Errorf("audit log holds %d rows after refused forms, want %d", n, audited)
	}
}

// TestTombstoneRestoreRefusesUnstorableText: a restore whose reason (or any
// field) holds text the database cannot take is a 422 page naming it, and
// nothing is restored or audited.
func TestTombstoneRestoreRefusesUnstorableText(t *testing.T) {
	f := newFixture(t, false)
	ids := tombSetup(t, f)
	audited := dbInt(t, f, `SELECT count(*) FROM audit_log`)
	target := "/tombstones/" + strconv.FormatInt(ids["ci is red"], 10) + "/restore"
	for _, tt := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"reason": {"tidy\x00"}}, "reason: contains a NUL"},
		{url.Values{"reason": {"caf\xe9"}}, "reason: is not valid UTF-8"},
		{url.Values{"durable": {"1\x1b"}}, "durable: contains the control character U+001B"},
		{url.Values{"return": {"/tombstones?scope=\xff"}}, "return: is not valid UTF-8"},
	} {
		f.get(t, "/tombstones")
		rec := f.signedIn.post(t, target, tt.form)
		msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text()
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(msg, tt.want) || !strings.Contains(msg, "Nothing was restored") {
			t.Errorf("restore with %q = %d %q, want 422 saying %q", tt.form.Encode(), rec.Code, msg, tt.want)
		}
	}
	if n := dbInt(t, f, `SELECT count(*) FROM node_tombstones WHERE restored_at IS NOT NULL`); n != 0 {
		t.Errorf("%d tombstones restored by refused forms, want 0", n)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log`); n != audited {
		t.Errorf("audit log holds %d rows after refused restores, want %d", n, audited)
	}
}
