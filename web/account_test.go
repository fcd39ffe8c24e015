package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/server"
)

// signIn signs in an existing user with a fresh client.
func (f fixture) signIn(t *testing.T, email, password string) *client {
	t.Helper()
	c := newClient(f)
	c.get(t, "/login")
	rec := c.post(t, "/login", url.Values{"email": {email}, "password": {password}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("sign in as %s = %d, want 303", email, rec.Code)
	}
	c.get(t, "/account")
	return c
}

// signedOut reports whether c's session has ended: the console sends it to
// sign in.
func signedOut(t *testing.T, c *client) bool {
	t.Helper()
	rec := c.get(t, "/facts")
	return rec.Code == http.StatusSeeOther && strings.HasPrefix(rec.Header().Get("Location"), "/login")
}

// TestAccountChangesOwnPassword: the account page changes the signed-in
// person's password after checking the current one, by the rules of a new
// user's; the person's other sessions end and this one stays.
func TestAccountChangesOwnPassword(t *testing.T) {
	f := newFixture(t, false)
	me := f.signedIn
	elsewhere := f.signIn(t, "reviewer@example.com", "a long enough secret")

	doc := parse(t, me.get(t, "/account"))
	if got := strings.TrimSpace(doc.Find(`[data-testid="account-email"]`).Text()); got != "reviewer@example.com" {
		t.Errorf("account page shows %q, want the signed-in email", got)
	}
	if doc.Find(`nav, .user-menu`).Find(`a[href="/account"]`).Length() == 0 {
		t.Error("the menu has no link to the account page")
	}

	for _, tc := range []struct {
		name                   string
		current, next, confirm string
		status                 int
		field, want            string
	}{
		{"wrong current", "not my password!", "an even longer secret", "an even longer secret", http.StatusUnprocessableEntity, "current", "current password is wrong"},
		{"short", "a long enough secret", "short", "short", http.StatusUnprocessableEntity, "password", "at least 12"},
		{"mismatch", "a long enough secret", "an even longer secret", "an even longer secreT", http.StatusUnprocessableEntity, "confirm", "differ"},
		{"unchanged", "a long enough secret", "a long enough secret", "a long enough secret", http.StatusUnprocessableEntity, "password", "the one you have"},
		{"bad bytes", "a long enough secret", "an even longer\x00secret", "an even longer secret", http.StatusUnprocessableEntity, "password", "the new password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := me.post(t, "/account/password", url.Values{"current": {tc.current}, "password": {tc.next}, "confirm": {tc.confirm}})
			if rec.Code != tc.status {
				t.Fatalf("POST /account/password = %d, want %d", rec.Code, tc.status)
			}
			body := rec.Body.String()
			doc := parse(t, rec)
			if got := doc.Find(`[data-testid="error-` + tc.field + `"]`).Text(); !strings.Contains(got, tc.want) {
				t.Errorf("error beside %s = %q, want %q", tc.field, got, tc.want)
			}
			if strings.Contains(body, tc.current) || strings.Contains(body, tc.next) {
				t.Error("the refused form shows a password again")
			}
		})
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'auth.password_change'`); n != 0 {
		t.Fatalf("%d password changes audited after refusals", n)
	}

	rec := me.post(t, "/account/password", url.Values{"current": {"a long enough secret"},
		"password": {"an even longer secret"}, "confirm": {"an even longer secret"}})
	loc, _, flash := follow(t, me, rec)
	if loc != "/account" || !strings.Contains(flash, "Your password is changed") || !strings.Contains(flash, "1 other session was signed out") {
		t.Errorf("after the change: %s, flash %q", loc, flash)
	}
	if signedOut(t, me) {
		t.Error("the session that changed the password was signed out")
	}
	if !signedOut(t, elsewhere) {
		t.Error("another session of the person is still signed in after the change")
	}
	anon := newClient(f)
	anon.get(t, "/login")
	if rec := anon.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}}); rec.Code != http.StatusUnauthorized {
		t.Errorf("sign in with the old password = %d, want 401", rec.Code)
	}
	f.signIn(t, "reviewer@example.com", "an even longer secret")
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'auth.password_change' AND actor = 'user:reviewer@example.com'`); n != 1 {
		t.Errorf("%d password changes audited, want 1", n)
	}
}

var resetLink = regexp.MustCompile(`^(https?://[^/]+)/reset-password\?token=([A-Za-z0-9_-]{40,})$`)

// TestPasswordResetLink: an admin's "Reset password" shows a one-time link
// with its expiry; the link opens a form that sets the password once,
// signing the user out everywhere, and is refused afterwards.
func TestPasswordResetLink(t *testing.T) {
	f, _ := newConfiguredFixture(t, server.Config{PublicURL: "https://tenure.example.com"})
	admin := f.login(t, "admin")
	victim := f.signedIn
	id := dbInt(t, f, `SELECT id FROM users WHERE email = 'reviewer@example.com'`)
	path := "/users/" + strconv.Itoa(id) + "/reset-password"

	users := parse(t, admin.get(t, "/users"))
	row := users.Find(`[data-testid="user-row"][data-email="reviewer@example.com"]`)
	if row.Find(`form[action="`+path+`"] [data-testid="user-reset-password"]`).Length() != 1 {
		t.Fatal("the users page offers no Reset password for the reviewer")
	}
	if rec := victim.post(t, path, nil); rec.Code != http.StatusForbidden {
		t.Errorf("a reviewer issuing a reset link = %d, want 403", rec.Code)
	}

	rec := admin.post(t, path, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("POST %s = %d, want 200 with the link", path, rec.Code)
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the page with the link is cacheable: Cache-Control %q", cc)
	}
	doc := parse(t, rec)
	link := strings.TrimSpace(doc.Find(`[data-testid="reset-link"]`).Text())
	m := resetLink.FindStringSubmatch(link)
	if m == nil || m[1] != "https://tenure.example.com" {
		t.Fatalf("reset link %q, want one under the public URL", link)
	}
	token := m[2]
	if exp := doc.Find(`[data-testid="reset-link-expiry"]`).Text(); !strings.Contains(exp, "2026-12-01 12:00 UTC") || !strings.Contains(exp, "once, for 24 hours") {
		t.Errorf("expiry shown as %q, want 24 hours from now and that it works once", exp)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM password_resets r WHERE position($1 in r::text) > 0`, token); n != 0 {
		t.Error("the token itself is stored")
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log a WHERE action = 'auth.password_reset_issued' AND actor = 'user:admin@example.com'
		AND target_id = $1::int::text AND position($2 in a::text) = 0`, id, token); n != 1 {
		t.Errorf("%d reset links issued audited (without the token), want 1", n)
	}

	anon := newClient(f)
	target := "/reset-password?token=" + token
	form := parse(t, anon.get(t, target))
	if form.Find(`[data-testid="reset-form"]`).Length() != 1 || !strings.Contains(form.Find(`.subtitle`).Text(), "reviewer@example.com") {
		t.Fatal("the link opens no form naming the user")
	}
	rec = anon.post(t, "/reset-password", url.Values{"token": {token}, "password": {"short"}, "confirm": {"short"}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(parse(t, rec).Find(`[data-testid="error-password"]`).Text(), "at least 12") {
		t.Errorf("a short password through the link = %d, want 422 with the rule named", rec.Code)
	}
	rec = anon.post(t, "/reset-password", url.Values{"token": {token}, "password": {"a brand new secret"}, "confirm": {"a brand new secret"},
		"_csrf": {"forged"}})
	if rec.Code != http.StatusForbidden {
		t.Errorf("the reset form without its double-submit token = %d, want 403", rec.Code)
	}
	anon.get(t, target)
	rec = anon.post(t, "/reset-password", url.Values{"token": {token}, "password": {"a brand new secret"}, "confirm": {"a brand new secret"}})
	loc, _, flash := follow(t, anon, rec)
	if loc != "/login" || !strings.Contains(flash, "reviewer@example.com") {
		t.Errorf("after the reset: %s, flash %q", loc, flash)
	}
	if !signedOut(t, victim) {
		t.Error("the user's session survived the reset")
	}
	f.signIn(t, "reviewer@example.com", "a brand new secret")

	// Used: refused, both the page and the form.
	rec = anon.get(t, target)
	if rec.Code != http.StatusNotFound || parse(t, rec).Find(`[data-testid="reset-closed"]`).Length() != 1 {
		t.Errorf("the used link = %d, want 404 saying it no longer works", rec.Code)
	}
	rec = anon.post(t, "/reset-password", url.Values{"token": {token}, "password": {"another new secret"}, "confirm": {"another new secret"}})
	if rec.Code != http.StatusNotFound {
		t.Errorf("the used link's form = %d, want 404", rec.Code)
	}
	f.signIn(t, "reviewer@example.com", "a brand new secret")
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'auth.password_reset_used' AND actor = 'user:reviewer@example.com'`); n != 1 {
		t.Errorf("%d reset links used audited, want 1", n)
	}
	if rec := anon.get(t, "/reset-password?token=nonsense"); rec.Code != http.StatusNotFound {
		t.Errorf("an unknown link = %d, want 404", rec.Code)
	}
}

// TestAccountEventsOnTheAuditPage: sign-ins, refused ones (the email tried,
// never the password), sign-outs and password changes show on the audit
// page, and its action filter offers them.
func TestAccountEventsOnTheAuditPage(t *testing.T) {
	f := newFixture(t, false)
	anon := newClient(f)
	anon.get(t, "/login")
	anon.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"not the password!"}})
	anon.get(t, "/login")
	anon.post(t, "/login", url.Values{"email": {"stranger@example.com"}, "password": {"not the password!"}})
	other := f.signIn(t, "reviewer@example.com", "a long enough secret")
	other.post(t, "/logout", nil)

	doc := parse(t, f.get(t, "/audit?action=auth"))
	actions := map[string]int{}
	doc.Find(`[data-testid="audit-action"]`).Each(func(_ int, s *goquery.Selection) { actions[s.Text()]++ })
	if actions["auth.signin"] < 2 || actions["auth.signin_failed"] != 2 || actions["auth.signout"] != 1 || len(actions) != 3 {
		t.Errorf("audit page filtered by auth shows %v", actions)
	}
	if strings.Contains(doc.Text(), "not the password!") {
		t.Error("the audit page shows a password typed")
	}
	stranger := doc.Find(`[data-testid="audit-row"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Find(`[data-testid="audit-changes"]`).Text(), "stranger@example.com")
	})
	if stranger.Length() != 1 || strings.TrimSpace(stranger.Find(`[data-testid="audit-target"]`).Text()) != "unknown user" ||
		!strings.Contains(stranger.Find(`[data-testid="audit-reason"]`).Text(), "no such user") {
		t.Errorf("the refused sign-in of an unknown email shows as %q", stranger.Text())
	}
	for _, a := range []string{"auth", "auth.signin_failed", "auth.password_reset_used", "backup.restore"} {
		if doc.Find(`#audit-actions option[value="`+a+`"]`).Length() != 1 {
			t.Errorf("the action filter does not offer %s", a)
		}
	}
}

// TestSetupNoticeIsOneParagraph: while no account exists, the sign-in page's
// notice is one block of text beside its icon, naming a command with the
// flags tenure user create takes.
func TestSetupNoticeIsOneParagraph(t *testing.T) {
	f := newFixture(t, false)
	if _, err := f.pool.Exec(context.Background(), `DELETE FROM users`); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, newClient(f).get(t, "/login"))
	notice := doc.Find(`[data-testid="setup-pending"]`)
	if notice.Length() != 1 || notice.Children().Length() != 1 || !notice.Children().Is("p") {
		t.Fatalf("the notice has %d children, want one paragraph: %s", notice.Children().Length(), notice.Text())
	}
	cmd := strings.Join(strings.Fields(notice.Find(`[data-testid="setup-command"]`).Text()), " ")
	if cmd != "tenure user create --email you@example.com --role admin --password-stdin" {
		t.Errorf("the notice's command is %q", cmd)
	}
}
