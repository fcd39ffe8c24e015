package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// admFollow checks that rec is a 303 and follows it, returning the page and
// its flash message.
func admFollow(t *testing.T, c *client, rec *httptest.ResponseRecorder) (*goquery.Document, string) {
	t.Helper()
	_, doc, flash := follow(t, c, rec)
	return doc, flash
}

// admUserID returns the id of the user with email.
func admUserID(t *testing.T, f fixture, email string) int64 {
	t.Helper()
	var id int64
	if err := f.pool.QueryRow(context.Background(), `SELECT id FROM users WHERE lower(email) = lower($1)`, email).Scan(&id); err != nil {
		t.Fatalf("user %s: %v", email, err)
	}
	return id
}

func admNewUserForm(email, role, password, confirm string) url.Values {
	return url.Values{"email": {email}, "name": {"Ann Example"}, "role": {role}, "password": {password}, "confirm": {confirm}}
}

func TestUsersPageRoles(t *testing.T) {
	f := newFixture(t, false)
	viewer := f.login(t, "viewer")
	for name, c := range map[string]*client{"viewer": viewer, "reviewer": f.signedIn} {
		if rec := c.get(t, "/users"); rec.Code != http.StatusForbidden {
			t.Errorf("%s GET /users = %d, want 403", name, rec.Code)
		}
		rec := c.post(t, "/users", admNewUserForm("x@example.com", "admin", "a long enough secret", "a long enough secret"))
		if rec.Code != http.StatusForbidden {
			t.Errorf("%s POST /users = %d, want 403", name, rec.Code)
		}
	}
	if n := dbInt(t, f, `SELECT count(*) FROM users WHERE email = 'x@example.com'`); n != 0 {
		t.Error("a refused POST created a user")
	}
	if doc := parse(t, viewer.get(t, "/facts")); doc.Find(`a[href="/users"]`).Length() != 0 {
		t.Error("a viewer sees the Users link in the navigation")
	}

	admin := f.login(t, "admin")
	rec := admin.get(t, "/users")
	if rec.Code != http.StatusOK {
		t.Fatalf("admin GET /users = %d", rec.Code)
	}
	doc := parse(t, rec)
	if got := doc.Find(`[data-testid="user-row"]`).Length(); got != 3 {
		t.Errorf("users page lists %d users, want 3", got)
	}
	self := doc.Find(`[data-testid="user-row"][data-email="admin@example.com"]`)
	if self.Find(`[data-testid="user-disable"]`).Length() != 0 || self.Find(`select[name="role"]`).Length() != 0 {
		t.Error("the signed-in admin is offered to disable or demote themselves")
	}
	other := doc.Find(`[data-testid="user-row"][data-email="viewer@example.com"]`)
	if other.Find(`[data-testid="user-disable"]`).Length() != 1 || other.Find(`select[name="role"] option[selected]`).AttrOr("value", "") != "viewer" {
		t.Error("another user's row has no disable button or role form showing their role")
	}
}

func TestUserCreate(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	admin.get(t, "/users")

	doc, flash := admFollow(t, admin, admin.post(t, "/users",
		admNewUserForm("ann@example.com", "reviewer", "correct horse battery", "correct horse battery")))
	if !strings.Contains(flash, "ann@example.com") {
		t.Errorf("flash = %q, want it to name the new user", flash)
	}
	if doc.Find(`[data-testid="user-row"][data-email="ann@example.com"]`).Length() != 1 {
		t.Error("the new user is not listed")
	}
	id := admUserID(t, f, "ann@example.com")
	if n := dbInt(t, f, `SELECT count(*) FROM users WHERE id = $1 AND role = 'reviewer' AND name = 'Ann Example'
		AND password_hash LIKE '$argon2id$%'`, id); n != 1 {
		t.Error("the new user is not stored as a reviewer with a hashed password")
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'user.create' AND target_type = 'user'
		AND target_id = $1::bigint::text AND actor = 'user:admin@example.com'`, id); n != 1 {
		t.Errorf("%d user.create audit rows by the admin, want 1", n)
	}

	// The new user can sign in.
	ann := newClient(f)
	ann.get(t, "/login")
	if rec := ann.post(t, "/login", url.Values{"email": {"ann@example.com"}, "password": {"correct horse battery"}}); rec.Code != http.StatusSeeOther {
		t.Errorf("the new user's sign-in = %d, want 303", rec.Code)
	}

	tests := []struct {
		name   string
		form   url.Values
		status int
		field  string
		want   string
	}{
		{"duplicate email", admNewUserForm("ANN@example.com", "viewer", "another long secret", "another long secret"), http.StatusConflict, "email", "already exists"},
		{"bad email", admNewUserForm("ann at example", "viewer", "another long secret", "another long secret"), http.StatusUnprocessableEntity, "email", "not an email"},
		{"short password", admNewUserForm("bob@example.com", "viewer", "short", "short"), http.StatusUnprocessableEntity, "password", "at least 12"},
		{"confirm differs", admNewUserForm("bob@example.com", "viewer", "another long secret", "another long secret?"), http.StatusUnprocessableEntity, "confirm", "differ"},
		{"bad role", admNewUserForm("bob@example.com", "root", "another long secret", "another long secret"), http.StatusUnprocessableEntity, "role", "viewer, reviewer, admin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := admin.post(t, "/users", tt.form)
			if rec.Code != tt.status {
				t.Fatalf("POST /users = %d, want %d", rec.Code, tt.status)
			}
			doc := parse(t, rec)
			form := doc.Find(`[data-testid="user-create-form"]`)
			msg := form.Find(`[data-testid="error-` + tt.field + `"]`)
			if !strings.Contains(msg.Text(), tt.want) {
				t.Errorf("error beside %s = %q, want it to contain %q", tt.field, msg.Text(), tt.want)
			}
			errID, _ := msg.Attr("id")
			control := msg.Parent().Find(`[aria-invalid="true"]`)
			if control.Length() != 1 || !strings.Contains(control.AttrOr("aria-describedby", ""), errID) {
				t.Errorf("the %s control is not marked invalid and described by its error", tt.field)
			}
			if got := form.Find(`[data-testid="input-email"]`).AttrOr("value", ""); got != tt.form.Get("email") {
				t.Errorf("email kept = %q, want %q", got, tt.form.Get("email"))
			}
			if strings.Contains(rec.Body.String(), tt.form.Get("password")) && len(tt.form.Get("password")) > 5 {
				t.Error("the password is echoed back into the page")
			}
		})
	}
	if n := dbInt(t, f, `SELECT count(*) FROM users`); n != 3 {
		t.Errorf("%d users after refused creations, want 3 (reviewer, admin, ann)", n)
	}

	t.Run("csrf", func(t *testing.T) {
		for _, token := range []string{"", "wrong"} {
			form := admNewUserForm("eve@example.com", "admin", "a long enough secret", "a long enough secret")
			form.Set("_csrf", token)
			if rec := admin.post(t, "/users", form); rec.Code != http.StatusForbidden {
				t.Errorf("POST /users with _csrf=%q = %d, want 403", token, rec.Code)
			}
		}
		if n := dbInt(t, f, `SELECT count(*) FROM users WHERE email = 'eve@example.com'`); n != 0 {
			t.Error("a forged POST created a user")
		}
	})
}

func TestUserRoleAndDisable(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	admin.get(t, "/users")
	reviewerID := admUserID(t, f, "reviewer@example.com")
	adminID := admUserID(t, f, "admin@example.com")
	target := "/users/" + strconv.FormatInt(reviewerID, 10)

	t.Run("role change", func(t *testing.T) {
		doc, flash := admFollow(t, admin, admin.post(t, target, url.Values{"action": {"role"}, "role": {"viewer"}}))
		if !strings.Contains(flash, "reviewer@example.com is now viewer") {
			t.Errorf("flash = %q", flash)
		}
		if got := doc.Find(`[data-testid="user-row"][data-email="reviewer@example.com"] select[name="role"] option[selected]`).AttrOr("value", ""); got != "viewer" {
			t.Errorf("role shown = %q, want viewer", got)
		}
		if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'user.role' AND target_id = $1::bigint::text
			AND before->>'role' = 'reviewer' AND after->>'role' = 'viewer' AND actor = 'user:admin@example.com'`, reviewerID); n != 1 {
			t.Errorf("%d user.role audit rows, want 1", n)
		}
		// The demoted reviewer's session now only reads.
		if rec := f.signedIn.post(t, "/facts/bulk", url.Values{"action": {"archive"}, "ids": {"1"}}); rec.Code != http.StatusForbidden {
			t.Errorf("the demoted user's write = %d, want 403", rec.Code)
		}
	})

	t.Run("self demotion and disable refused", func(t *testing.T) {
		self := "/users/" + strconv.FormatInt(adminID, 10)
		for _, tt := range []struct {
			form  url.Values
			field string
			want  string
		}{
			{url.Values{"action": {"role"}, "role": {"viewer"}}, "role", "your own role"},
			{url.Values{"action": {"disable"}}, "disabled", "your own account"},
		} {
			rec := admin.post(t, self, tt.form)
			if rec.Code != http.StatusConflict {
				t.Fatalf("POST %s %v = %d, want 409", self, tt.form, rec.Code)
			}
			doc := parse(t, rec)
			msg := doc.Find(`[data-testid="user-row"][data-email="admin@example.com"] [data-testid="error-` + tt.field + `"]`)
			if !strings.Contains(msg.Text(), tt.want) {
				t.Errorf("refusal in the admin's row = %q, want %q", msg.Text(), tt.want)
			}
		}
		if n := dbInt(t, f, `SELECT count(*) FROM users WHERE id = $1 AND role = 'admin' AND disabled_at IS NULL`, adminID); n != 1 {
			t.Error("the admin demoted or disabled themselves")
		}
	})

	t.Run("disable ends sessions", func(t *testing.T) {
		if rec := f.signedIn.get(t, "/facts"); rec.Code != http.StatusOK {
			t.Fatalf("before disabling, the user's GET /facts = %d", rec.Code)
		}
		doc, flash := admFollow(t, admin, admin.post(t, target, url.Values{"action": {"disable"}}))
		if !strings.Contains(flash, "sessions have ended") {
			t.Errorf("flash = %q", flash)
		}
		row := doc.Find(`[data-testid="user-row"][data-email="reviewer@example.com"]`)
		if !strings.Contains(row.Find(`[data-testid="user-status"]`).Text(), "disabled") || row.Find(`[data-testid="user-enable"]`).Length() != 1 {
			t.Error("the disabled user is not shown disabled with an enable button")
		}
		if n := dbInt(t, f, `SELECT count(*) FROM sessions WHERE user_id = $1`, reviewerID); n != 0 {
			t.Errorf("%d sessions left, want 0", n)
		}
		if rec := f.signedIn.get(t, "/facts"); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/login") {
			t.Errorf("the disabled user's GET /facts = %d %s, want a redirect to sign in", rec.Code, rec.Header().Get("Location"))
		}
		if _, flash := admFollow(t, admin, admin.post(t, target, url.Values{"action": {"enable"}})); !strings.Contains(flash, "may sign in again") {
			t.Errorf("enable flash = %q", flash)
		}
		if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE target_type = 'user' AND target_id = $1::bigint::text
			AND action IN ('user.disable', 'user.enable')`, reviewerID); n != 2 {
			t.Errorf("%d disable/enable audit rows, want 2", n)
		}
	})

	t.Run("bad requests", func(t *testing.T) {
		if rec := admin.post(t, "/users/99999", url.Values{"action": {"disable"}}); rec.Code != http.StatusNotFound {
			t.Errorf("unknown user = %d, want 404", rec.Code)
		}
		if rec := admin.post(t, target, url.Values{"action": {"explode"}}); rec.Code != http.StatusBadRequest {
			t.Errorf("unknown action = %d, want 400", rec.Code)
		}
		rec := admin.post(t, target, url.Values{"action": {"role"}, "role": {"root"}})
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(parse(t, rec).Find(`[data-testid="error-role"]`).Text(), "viewer, reviewer, admin") {
			t.Errorf("unknown role = %d, want 422 naming the roles", rec.Code)
		}
		form := url.Values{"action": {"disable"}, "_csrf": {"forged"}}
		if rec := admin.post(t, target, form); rec.Code != http.StatusForbidden {
			t.Errorf("forged POST = %d, want 403", rec.Code)
		}
		if n := dbInt(t, f, `SELECT count(*) FROM users WHERE id = $1 AND disabled_at IS NULL`, reviewerID); n != 1 {
			t.Error("a refused request changed the user")
		}
	})
}
