package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
)

// accountWidths are the widths the account pages are looked at: a laptop
// and a phone held upright.
var accountWidths = []int64{1366, 500}

// accountShots saves the page at each of accountWidths as name-WIDTH, and
// checks that nothing on it is wider than the window (no sideways scroll).
func (s *session) accountShots(name string) {
	s.t.Helper()
	for _, w := range accountWidths {
		s.do(chromedp.EmulateViewport(w, 900))
		s.do(chromedp.Sleep(100 * time.Millisecond))
		if got := s.eval(`String(document.documentElement.scrollWidth)`); got != fmt.Sprint(w) {
			s.t.Errorf("%s at %d px: the page is %s px wide, want no sideways scroll", name, w, got)
		}
		s.screenshot(fmt.Sprintf("%s-%d", name, w))
	}
	s.do(chromedp.EmulateViewport(1366, 900))
}

// accountSignIn signs in on the sign-in page as email.
func (s *session) accountSignIn(email, pw string) {
	s.t.Helper()
	s.do(chromedp.Navigate(s.base + "/login"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-email`), email))
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-password`), pw))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)))
}

// accountSignOut signs out through the menu under the person's name.
func (s *session) accountSignOut() {
	s.t.Helper()
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="logout"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
}

// TestChangeOwnPassword: a reviewer opens Your account from the menu,
// changes their password (a wrong current one is refused beside its
// field), signs out, and signs in with the new password only.
func TestChangeOwnPassword(t *testing.T) {
	s := newSession(t)
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	s.do(chromedp.Click(chromedp.CSS(`.user-menu a[href="/account"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="password-form"]`)))
	if got := s.text(`[data-testid="account-email"]`); got != "reviewer@example.com" {
		t.Errorf("account page shows %q", got)
	}
	s.accountShots("account")

	const next = "a newer and longer secret"
	s.do(chromedp.SendKeys(chromedp.CSS(`#account-current`), "not the password at all"))
	s.do(chromedp.SendKeys(chromedp.CSS(`#account-password`), next))
	s.do(chromedp.SendKeys(chromedp.CSS(`#account-confirm`), next))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="password-submit"]`)))
	s.waitText(`[data-testid="error-current"]`, "current password is wrong")
	s.accountShots("account-refused")

	s.do(chromedp.SendKeys(chromedp.CSS(`#account-current`), password))
	s.do(chromedp.SendKeys(chromedp.CSS(`#account-password`), next))
	s.do(chromedp.SendKeys(chromedp.CSS(`#account-confirm`), next))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="password-submit"]`)))
	s.waitText(`[data-testid="flash"]`, "Your password is changed")
	s.accountShots("account-changed")

	s.accountSignOut()
	s.accountSignIn("reviewer@example.com", password)
	s.waitText(`[data-testid="login-error"]`, "email or password is wrong")
	s.accountShots("login-refused")
	s.accountSignIn("reviewer@example.com", next)
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	if n := s.queryInt(`SELECT count(*) FROM audit_log WHERE action = 'auth.password_change' AND actor = 'user:reviewer@example.com'`); n != 1 {
		t.Errorf("%d password changes audited, want 1", n)
	}
}

// TestAdminResetsPasswordByLink: an admin's "Reset password" on the users
// page shows a one-time link with its expiry; opened signed out, it sets
// the user's password, who then signs in with it; opened again, it is
// refused.
func TestAdminResetsPasswordByLink(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	if _, err := demo.Load(ctx, pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, u := range []auth.NewUser{
		{Email: "admin@example.com", Name: "Ada Admin", Role: "admin", Password: password},
		{Email: "ann@example.com", Name: "Ann Analyst", Role: "viewer", Password: password},
	} {
		if _, err := auth.SeedUser(ctx, pool, u); err != nil {
			t.Fatal(err)
		}
	}
	s := openBrowser(t, pool)
	s.accountSignIn("admin@example.com", password)
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	s.do(chromedp.Navigate(s.base + "/users"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="users-table"]`)))
	s.accountShots("users")
	s.do(chromedp.Click(chromedp.CSS(`[data-email="ann@example.com"] [data-testid="user-reset-password"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="reset-link"]`)))
	link := s.text(`[data-testid="reset-link"]`)
	if !strings.HasPrefix(link, s.base+"/reset-password?token=") {
		t.Fatalf("reset link %q, want one to this server's reset page", link)
	}
	if exp := s.text(`[data-testid="reset-link-expiry"]`); !strings.Contains(exp, "works once") || !strings.Contains(exp, "UTC") {
		t.Errorf("the link's expiry reads %q", exp)
	}
	s.accountShots("reset-link")

	s.accountSignOut()
	s.do(chromedp.Navigate(link))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="reset-form"]`)))
	if sub := s.text(`.subtitle`); !strings.Contains(sub, "ann@example.com") {
		t.Errorf("the reset page says %q, want the user named", sub)
	}
	s.accountShots("reset-form")
	const next = "ann's own new secret"
	s.do(chromedp.SendKeys(chromedp.CSS(`#reset-password`), next))
	s.do(chromedp.SendKeys(chromedp.CSS(`#reset-confirm`), next))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="reset-submit"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	s.waitText(`[data-testid="flash"]`, "ann@example.com")
	s.accountShots("login-after-reset")

	s.accountSignIn("ann@example.com", next)
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	if who := s.text(`[data-testid="signed-in-as"]`); !strings.Contains(who, "ann@example.com") {
		t.Errorf("signed in as %q", who)
	}
	s.accountSignOut()

	// The link worked once: now it is refused.
	s.do(chromedp.Navigate(link))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="reset-closed"]`)))
	if got := s.text(`[data-testid="reset-closed"]`); !strings.Contains(got, "already used or expired") {
		t.Errorf("the used link's page says %q", got)
	}
	s.accountShots("reset-used")
	if n := s.queryInt(`SELECT count(*) FROM audit_log WHERE action IN ('auth.password_reset_issued', 'auth.password_reset_used')`); n != 2 {
		t.Errorf("%d reset link audit rows, want issued and used", n)
	}
}

// TestSignInPageWithNoAccount: while no account exists the sign-in page's
// notice reads as one paragraph beside its icon, at a laptop's width and a
// phone's, with a command that creates the first admin.
func TestSignInPageWithNoAccount(t *testing.T) {
	s := openBrowser(t, pgtest.NewPool(t))
	s.do(chromedp.Navigate(s.base + "/login"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="setup-pending"]`)))
	for _, w := range accountWidths {
		s.do(chromedp.EmulateViewport(w, 900))
		s.do(chromedp.Sleep(100 * time.Millisecond))
		// One text block, taking the notice's width but its icon's.
		layout := s.eval(`(() => {
			const n = document.querySelector('[data-testid="setup-pending"]');
			const p = n.querySelector('p');
			if (n.children.length !== 1 || !p) return 'children ' + n.children.length;
			const nb = n.getBoundingClientRect(), pb = p.getBoundingClientRect();
			return (pb.width / nb.width > 0.8 ? 'wide' : 'narrow ' + pb.width + '/' + nb.width) +
				(p.querySelectorAll('code').length >= 2 ? '' : ' no code');
		})()`)
		if layout != "wide" {
			t.Errorf("at %d px the notice lays out as %q, want one wide paragraph", w, layout)
		}
	}
	cmd := strings.Join(strings.Fields(s.text(`[data-testid="setup-command"]`)), " ")
	if cmd != "tenure user create --email you@example.com --role admin --password-stdin" {
		t.Errorf("the notice's command is %q", cmd)
	}
	s.accountShots("login-no-account")
}
