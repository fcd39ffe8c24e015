package auth

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/queries"
)

const testPassword = "a long enough secret"

// auditRow is one row of the audit log as the tests read it.
type auditRow struct {
	actor, action, targetType, targetID, after, reason string
}

func auditRows(t *testing.T, db DB, action string) []auditRow {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT actor, action, target_type, target_id, coalesce(after::text, ''), reason
		FROM audit_log WHERE action = $1 ORDER BY id`, action)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []auditRow
	for rows.Next() {
		var r auditRow
		if err := rows.Scan(&r.actor, &r.action, &r.targetType, &r.targetID, &r.after, &r.reason); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSignInIsAudited: a sign-in is audited as the person, a refused one as
// system:signin with the email tried and why, never the password; a
// sign-out is audited once.
func TestSignInIsAudited(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	pool, q, s, u := sessionFixture(t, "rev@example.com", &now)
	id := strconv.FormatInt(u.ID, 10)

	const wrong = "wrong password, typed by someone"
	if _, _, err := s.Login(ctx, "REV@example.com", wrong, "ua", "192.0.2.7"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("Login(wrong password) = %v, want ErrBadCredentials", err)
	}
	if _, _, err := s.Login(ctx, "nobody@example.com", testPassword, "ua", "192.0.2.8"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("Login(unknown email) = %v, want ErrBadCredentials", err)
	}
	failed := auditRows(t, pool, "auth.signin_failed")
	if len(failed) != 2 {
		t.Fatalf("auth.signin_failed rows = %+v, want 2", failed)
	}
	if f := failed[0]; f.actor != "system:signin" || f.targetType != "user" || f.targetID != id || f.reason != "wrong password" ||
		!strings.Contains(f.after, `"email": "REV@example.com"`) || !strings.Contains(f.after, "192.0.2.7") {
		t.Errorf("failed sign-in with a wrong password audited as %+v", f)
	}
	if f := failed[1]; f.targetID != "" || f.reason != "no such user" || !strings.Contains(f.after, "nobody@example.com") {
		t.Errorf("failed sign-in of an unknown email audited as %+v", f)
	}
	var leaked int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM audit_log a WHERE position($1 in a::text) > 0 OR position($2 in a::text) > 0`,
		wrong, testPassword).Scan(&leaked); err != nil || leaked != 0 {
		t.Errorf("%d audit rows hold a password typed (%v), want none", leaked, err)
	}

	token, _, err := s.Login(ctx, "rev@example.com", testPassword, "ua", "192.0.2.9")
	if err != nil {
		t.Fatal(err)
	}
	in := auditRows(t, pool, "auth.signin")
	if len(in) != 1 || in[0].actor != "user:rev@example.com" || in[0].targetID != id || !strings.Contains(in[0].after, "192.0.2.9") {
		t.Errorf("sign-in audited as %+v, want one row by the person with the address", in)
	}
	if err := s.SignOut(ctx, token, "192.0.2.9"); err != nil {
		t.Fatal(err)
	}
	if err := s.SignOut(ctx, token, "192.0.2.9"); err != nil {
		t.Fatal(err)
	}
	out := auditRows(t, pool, "auth.signout")
	if len(out) != 1 || out[0].actor != "user:rev@example.com" || out[0].targetID != id {
		t.Errorf("sign-out audited as %+v, want one row by the person (a second sign-out ends nothing)", out)
	}

	if _, err := q.SetUserDisabled(ctx, queries.SetUserDisabledParams{DisabledAt: &now, At: now, ID: u.ID}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Login(ctx, "rev@example.com", testPassword, "ua", "ip"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("Login(disabled) = %v, want ErrBadCredentials", err)
	}
	if f := auditRows(t, pool, "auth.signin_failed"); len(f) != 3 || f[2].reason != "account disabled" {
		t.Errorf("failed sign-in of a disabled account audited as %+v", f)
	}
}

// TestChangePassword: the current password is checked, the new one follows
// the rules of a new user's, the other sessions end and the current one
// stays, and the change is audited.
func TestChangePassword(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	pool, _, s, u := sessionFixture(t, "rev@example.com", &now)
	admin := NewAdmin(pool, func() time.Time { return now })
	current, sess, err := s.Login(ctx, "rev@example.com", testPassword, "this browser", "ip")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := s.Login(ctx, "rev@example.com", testPassword, "another browser", "ip")
	if err != nil {
		t.Fatal(err)
	}
	const next = "an even longer secret"

	_, err = admin.ChangePassword(ctx, sess, current, PasswordChange{Current: "not my password", New: next, Confirm: next})
	if !IsWrongPassword(err) {
		t.Errorf("ChangePassword(wrong current) = %v, want the wrong current password named", err)
	}
	_, err = admin.ChangePassword(ctx, sess, current, PasswordChange{Current: testPassword, New: "short", Confirm: "short"})
	wantAdminError(t, err, memory.CodeInvalid, "password", "at least 12")
	_, err = admin.ChangePassword(ctx, sess, current, PasswordChange{Current: testPassword, New: next, Confirm: next + "!"})
	wantAdminError(t, err, memory.CodeInvalid, "confirm", "differ")
	_, err = admin.ChangePassword(ctx, sess, current, PasswordChange{Current: testPassword, New: testPassword, Confirm: testPassword})
	wantAdminError(t, err, memory.CodeInvalid, "password", "the one you have")
	_, err = admin.ChangePassword(ctx, sess, current, PasswordChange{Current: "", New: next, Confirm: next})
	wantAdminError(t, err, memory.CodeInvalid, "current", "current password")
	if n := len(auditRows(t, pool, "auth.password_change")); n != 0 {
		t.Errorf("%d password changes audited after refusals, want none", n)
	}

	ended, err := admin.ChangePassword(ctx, sess, current, PasswordChange{Current: testPassword, New: next, Confirm: next})
	if err != nil || ended != 1 {
		t.Fatalf("ChangePassword() = %d, %v; want the other session ended", ended, err)
	}
	if _, err := s.Lookup(ctx, current); err != nil {
		t.Errorf("the session that changed the password = %v, want it kept", err)
	}
	if _, err := s.Lookup(ctx, other); !errors.Is(err, ErrNoSession) {
		t.Errorf("another session after the change = %v, want it ended", err)
	}
	if _, _, err := s.Login(ctx, "rev@example.com", testPassword, "ua", "ip"); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("sign-in with the old password = %v, want refused", err)
	}
	if _, _, err := s.Login(ctx, "rev@example.com", next, "ua", "ip"); err != nil {
		t.Errorf("sign-in with the new password = %v", err)
	}
	rows := auditRows(t, pool, "auth.password_change")
	if len(rows) != 1 || rows[0].actor != "user:rev@example.com" || rows[0].targetID != strconv.FormatInt(u.ID, 10) ||
		!strings.Contains(rows[0].after, `"other_sessions_ended": 1`) || strings.Contains(rows[0].after, next) {
		t.Errorf("password change audited as %+v", rows)
	}
}

// TestPasswordReset: an admin's reset link is stored only as its hash,
// works once, sets a password by the rules of a new user's (a refused one
// leaves the link working), ends the user's sessions, expires, and is
// replaced by the next link issued; each step is audited.
func TestPasswordReset(t *testing.T) {
	ctx := context.Background()
	fx := newAdminFixture(t)
	now := fx.now
	admin := NewAdmin(fx.pool, func() time.Time { return now })
	s, err := NewSessions(fx.pool, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	u, err := admin.CreateUser(ctx, fx.boss, NewUser{Email: "ann@example.com", Role: "viewer", Password: testPassword, Confirm: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	session, _, err := s.Login(ctx, "ann@example.com", testPassword, "ua", "ip")
	if err != nil {
		t.Fatal(err)
	}

	first, err := admin.IssuePasswordReset(ctx, fx.boss, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	reset, err := admin.IssuePasswordReset(ctx, fx.boss, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reset.ExpiresAt.Equal(now.Add(PasswordResetTTL)) || reset.User.Email != "ann@example.com" || len(reset.Token) < 40 {
		t.Errorf("IssuePasswordReset() = %+v, want a long token expiring %s after now", reset, PasswordResetTTL)
	}
	if n := fx.count(t, `SELECT count(*) FROM password_resets r WHERE position($1 in r::text) > 0`, reset.Token); n != 0 {
		t.Errorf("the reset token itself is stored (%d rows), want only its hash", n)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log a WHERE position($1 in a::text) > 0`, reset.Token); n != 0 {
		t.Errorf("the reset token is in %d audit rows, want none", n)
	}
	issued := auditRows(t, fx.pool, "auth.password_reset_issued")
	if len(issued) != 2 || issued[1].actor != "user:boss@example.com" || issued[1].targetID != strconv.FormatInt(u.ID, 10) {
		t.Errorf("reset links issued audited as %+v", issued)
	}
	if _, _, err := admin.PasswordResetFor(ctx, first.Token); !errors.Is(err, ErrResetLink) {
		t.Errorf("the earlier link after a new one was issued = %v, want ErrResetLink", err)
	}
	got, expires, err := admin.PasswordResetFor(ctx, reset.Token)
	if err != nil || got.Email != "ann@example.com" || !expires.Equal(reset.ExpiresAt) {
		t.Errorf("PasswordResetFor() = %+v, %s, %v", got, expires, err)
	}
	if wantPath := "https://tenure.example.com/reset-password?token=" + reset.Token; PasswordResetURL("https://tenure.example.com/", reset.Token) != wantPath {
		t.Errorf("PasswordResetURL() = %s, want %s", PasswordResetURL("https://tenure.example.com/", reset.Token), wantPath)
	}

	// A refused password leaves the link working.
	_, err = admin.UsePasswordReset(ctx, reset.Token, "short", "short", "ip")
	wantAdminError(t, err, memory.CodeInvalid, "password", "at least 12")
	_, err = admin.UsePasswordReset(ctx, reset.Token, "a brand new secret", "a brand new secrte", "ip")
	wantAdminError(t, err, memory.CodeInvalid, "confirm", "differ")

	if _, err := admin.UsePasswordReset(ctx, reset.Token, "a brand new secret", "a brand new secret", "198.51.100.4"); err != nil {
		t.Fatalf("UsePasswordReset() = %v", err)
	}
	if _, err := s.Lookup(ctx, session); !errors.Is(err, ErrNoSession) {
		t.Errorf("the user's session after the reset = %v, want it ended", err)
	}
	if _, _, err := s.Login(ctx, "ann@example.com", "a brand new secret", "ua", "ip"); err != nil {
		t.Errorf("sign-in with the password set by the link = %v", err)
	}
	if _, err := admin.UsePasswordReset(ctx, reset.Token, "yet another secret", "yet another secret", "ip"); !errors.Is(err, ErrResetLink) {
		t.Errorf("second use of the link = %v, want ErrResetLink", err)
	}
	used := auditRows(t, fx.pool, "auth.password_reset_used")
	if len(used) != 1 || used[0].actor != "user:ann@example.com" || !strings.Contains(used[0].after, "198.51.100.4") ||
		!strings.Contains(used[0].after, `"sessions_ended": 1`) {
		t.Errorf("reset used audited as %+v, want one row", used)
	}

	// A link expires.
	late, err := admin.IssuePasswordReset(ctx, fx.boss, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(PasswordResetTTL)
	if _, err := admin.UsePasswordReset(ctx, late.Token, "yet another secret", "yet another secret", "ip"); !errors.Is(err, ErrResetLink) {
		t.Errorf("use of an expired link = %v, want ErrResetLink", err)
	}
	if _, err := s.PurgeExpired(ctx); err != nil {
		t.Fatal(err)
	}
	if n := fx.count(t, `SELECT count(*) FROM password_resets`); n != 0 {
		t.Errorf("%d reset links left after purging the expired ones, want none", n)
	}

	// Nobody, and disabled users, get no link.
	_, err = admin.IssuePasswordReset(ctx, fx.boss, u.ID+100)
	wantAdminError(t, err, memory.CodeNotFound, "", "no user")
	if _, err := admin.SetDisabled(ctx, fx.boss, u.ID, true); err != nil {
		t.Fatal(err)
	}
	_, err = admin.IssuePasswordReset(ctx, fx.boss, u.ID)
	wantAdminError(t, err, memory.CodeConflict, "reset", "enable them first")
	if _, err := admin.UserByEmail(ctx, "nobody@example.com"); memory.AsError(err) == nil || memory.AsError(err).Code != memory.CodeNotFound {
		t.Errorf("UserByEmail(unknown) = %v, want not found", err)
	}
}

// TestResetLinksEnd: a reset link stops working when the person changes
// their password themselves, and when the account is disabled (enabling it
// again does not bring the link back); nobody issues a link for themselves.
func TestResetLinksEnd(t *testing.T) {
	ctx := context.Background()
	fx := newAdminFixture(t)
	admin := fx.admin
	s, err := NewSessions(fx.pool, func() time.Time { return fx.now })
	if err != nil {
		t.Fatal(err)
	}
	u, err := admin.CreateUser(ctx, fx.boss, NewUser{Email: "ann@example.com", Role: "viewer", Password: testPassword, Confirm: testPassword})
	if err != nil {
		t.Fatal(err)
	}

	link, err := admin.IssuePasswordReset(ctx, fx.boss, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	token, sess, err := s.Login(ctx, "ann@example.com", testPassword, "ua", "ip")
	if err != nil {
		t.Fatal(err)
	}
	const next = "an even longer secret"
	if _, err := admin.ChangePassword(ctx, sess, token, PasswordChange{Current: testPassword, New: next, Confirm: next}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.UsePasswordReset(ctx, link.Token, "taken over by link", "taken over by link", "ip"); !errors.Is(err, ErrResetLink) {
		t.Errorf("a link issued before the person changed their password = %v, want ErrResetLink", err)
	}

	link, err = admin.IssuePasswordReset(ctx, fx.boss, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.SetDisabled(ctx, fx.boss, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.SetDisabled(ctx, fx.boss, u.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.UsePasswordReset(ctx, link.Token, "taken over by link", "taken over by link", "ip"); !errors.Is(err, ErrResetLink) {
		t.Errorf("a link issued before the account was disabled, after it is enabled = %v, want ErrResetLink", err)
	}
	if _, _, err := s.Login(ctx, "ann@example.com", next, "ua", "ip"); err != nil {
		t.Errorf("sign-in with the password the person chose = %v", err)
	}

	_, err = admin.IssuePasswordReset(ctx, fx.boss, fx.boss.UserID)
	wantAdminError(t, err, memory.CodeConflict, "reset", "for yourself")
	if n := fx.count(t, `SELECT count(*) FROM password_resets WHERE user_id = $1`, fx.boss.UserID); n != 0 {
		t.Errorf("%d reset links for the admin who asked for one of their own, want none", n)
	}
}
