package auth

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

type adminFixture struct {
	pool  *pgxpool.Pool
	admin *Admin
	boss  Session // the admin making changes
	now   time.Time
}

func newAdminFixture(t *testing.T) adminFixture {
	t.Helper()
	pool := pgtest.NewPool(t)
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	a := NewAdmin(pool, func() time.Time { return now })
	fx := adminFixture{pool: pool, admin: a, now: now}
	u, err := a.CreateUser(context.Background(), Session{Email: "cli@example.com"}, NewUser{
		Email: "boss@example.com", Name: "Boss", Role: "admin", Password: "a long enough secret", Confirm: "a long enough secret",
	})
	if err != nil {
		t.Fatal(err)
	}
	fx.boss = Session{UserID: u.ID, Email: u.Email, Role: RoleAdmin}
	return fx
}

func (fx adminFixture) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := fx.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func wantAdminError(t *testing.T, err error, kind memory.Code, field, contains string) {
	t.Helper()
	var ae *memory.Error
	if !errors.As(err, &ae) || ae.Code != kind || ae.Field != field || !strings.Contains(ae.Message, contains) {
		t.Errorf("error = %v, want a %s error on %q containing %q", err, kind, field, contains)
	}
}

func TestCreateUser(t *testing.T) {
	fx := newAdminFixture(t)
	ctx := context.Background()
	u, err := fx.admin.CreateUser(ctx, fx.boss, NewUser{
		Email: " ann@example.com ", Name: "Ann", Role: "reviewer", Password: "correct horse battery", Confirm: "correct horse battery",
	})
	if err != nil {
		t.Fatalf("CreateUser() = %v", err)
	}
	if u.Email != "ann@example.com" || u.Role != RoleReviewer || u.ID == 0 {
		t.Errorf("CreateUser() = %+v", u)
	}
	var hash string
	if err := fx.pool.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = $1`, u.ID).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if err := VerifyPassword(hash, "correct horse battery"); err != nil || strings.Contains(hash, "correct horse") {
		t.Errorf("stored hash %q does not verify the password (%v) or holds it", hash, err)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'user.create' AND target_id = $1::bigint::text
		AND actor = 'user:boss@example.com' AND after->>'role' = 'reviewer' AND NOT after ? 'password'`, u.ID); n != 1 {
		t.Errorf("%d audit rows for the new user, want 1", n)
	}

	tests := []struct {
		name  string
		in    NewUser
		kind  memory.Code
		field string
		msg   string
	}{
		{"duplicate email", NewUser{Email: "ANN@example.com", Role: "viewer", Password: "another long secret", Confirm: "another long secret"}, memory.CodeConflict, "email", "already exists"},
		{"bad email", NewUser{Email: "ann at example", Role: "viewer", Password: "another long secret", Confirm: "another long secret"}, memory.CodeInvalid, "email", "not an email"},
		{"bad role", NewUser{Email: "x@example.com", Role: "root", Password: "another long secret", Confirm: "another long secret"}, memory.CodeInvalid, "role", "viewer, reviewer, admin"},
		{"short password", NewUser{Email: "x@example.com", Role: "viewer", Password: "short", Confirm: "short"}, memory.CodeInvalid, "password", "at least 12"},
		{"confirm differs", NewUser{Email: "x@example.com", Role: "viewer", Password: "another long secret", Confirm: "another long secret!"}, memory.CodeInvalid, "confirm", "differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fx.admin.CreateUser(ctx, fx.boss, tt.in)
			wantAdminError(t, err, tt.kind, tt.field, tt.msg)
		})
	}
	if n := fx.count(t, `SELECT count(*) FROM users`); n != 2 {
		t.Errorf("%d users after refused creations, want 2", n)
	}
}

func TestSetRoleAndDisabled(t *testing.T) {
	fx := newAdminFixture(t)
	ctx := context.Background()
	mk := func(email, role string) User {
		u, err := fx.admin.CreateUser(ctx, fx.boss, NewUser{Email: email, Role: role, Password: "a long enough secret", Confirm: "a long enough secret"})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	ann := mk("ann@example.com", "viewer")

	t.Run("role change audited", func(t *testing.T) {
		u, err := fx.admin.SetRole(ctx, fx.boss, ann.ID, "reviewer")
		if err != nil || u.Role != RoleReviewer {
			t.Fatalf("SetRole() = %+v, %v", u, err)
		}
		if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'user.role' AND target_id = $1::bigint::text
			AND before->>'role' = 'viewer' AND after->>'role' = 'reviewer'`, ann.ID); n != 1 {
			t.Errorf("%d audit rows for the role change, want 1", n)
		}
		if _, err := fx.admin.SetRole(ctx, fx.boss, ann.ID, "god"); err == nil {
			t.Error("SetRole(god) succeeded")
		}
	})

	t.Run("self and last admin", func(t *testing.T) {
		_, err := fx.admin.SetRole(ctx, fx.boss, fx.boss.UserID, "viewer")
		wantAdminError(t, err, memory.CodeConflict, "role", "your own role")
		_, err = fx.admin.SetDisabled(ctx, fx.boss, fx.boss.UserID, true)
		wantAdminError(t, err, memory.CodeConflict, "disabled", "your own account")
		// Another admin acting on the boss, who is the last admin.
		other := Session{UserID: ann.ID, Email: ann.Email}
		_, err = fx.admin.SetRole(ctx, other, fx.boss.UserID, "reviewer")
		wantAdminError(t, err, memory.CodeConflict, "role", "last admin")
		_, err = fx.admin.SetDisabled(ctx, other, fx.boss.UserID, true)
		wantAdminError(t, err, memory.CodeConflict, "disabled", "last admin")
		if n := fx.count(t, `SELECT count(*) FROM users WHERE role = 'admin' AND disabled_at IS NULL`); n != 1 {
			t.Errorf("%d enabled admins, want 1", n)
		}
	})

	t.Run("disable ends sessions", func(t *testing.T) {
		s, err := NewSessions(fx.pool, func() time.Time { return fx.now })
		if err != nil {
			t.Fatal(err)
		}
		token, _, err := s.Login(ctx, "ann@example.com", "a long enough secret", "ua", "ip")
		if err != nil {
			t.Fatal(err)
		}
		u, err := fx.admin.SetDisabled(ctx, fx.boss, ann.ID, true)
		if err != nil || u.DisabledAt == nil {
			t.Fatalf("SetDisabled() = %+v, %v", u, err)
		}
		if n := fx.count(t, `SELECT count(*) FROM sessions WHERE user_id = $1`, ann.ID); n != 0 {
			t.Errorf("%d sessions left for a disabled user, want 0", n)
		}
		if _, err := s.Lookup(ctx, token); !errors.Is(err, ErrNoSession) {
			t.Errorf("Lookup after disable = %v, want ErrNoSession", err)
		}
		if _, err := fx.admin.SetDisabled(ctx, fx.boss, ann.ID, true); err != nil {
			t.Errorf("disabling twice = %v, want no change", err)
		}
		if _, err := fx.admin.SetDisabled(ctx, fx.boss, ann.ID, false); err != nil {
			t.Fatal(err)
		}
		if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE target_type = 'user' AND target_id = $1::bigint::text
			AND action IN ('user.disable', 'user.enable')`, ann.ID); n != 2 {
			t.Errorf("%d disable/enable audit rows, want 2", n)
		}
	})

	t.Run("unknown user", func(t *testing.T) {
		_, err := fx.admin.SetRole(ctx, fx.boss, 9999, "viewer")
		wantAdminError(t, err, memory.CodeNotFound, "", "no user")
	})
}

func TestTokens(t *testing.T) {
	fx := newAdminFixture(t)
	ctx := context.Background()
	secret, tok, err := fx.admin.CreateToken(ctx, fx.boss, NewToken{Name: "laptop", Scope: "home", Role: "writer", ExpiresInDays: 30})
	if err != nil {
		t.Fatalf("CreateToken() = %v", err)
	}
	if !strings.HasPrefix(secret, APITokenPrefix) || !strings.HasPrefix(secret, tok.Prefix) || tok.ExpiresAt == nil ||
		!tok.ExpiresAt.Equal(fx.now.Add(30*24*time.Hour)) {
		t.Errorf("CreateToken() = %q, %+v", secret, tok)
	}
	var stored []byte
	if err := fx.pool.QueryRow(ctx, `SELECT token_hash FROM api_tokens WHERE id = $1`, tok.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, HashAPIToken(secret)) {
		t.Error("stored token_hash is not the SHA-256 of the token")
	}
	if n := fx.count(t, `SELECT count(*) FROM api_tokens t WHERE position($1 in t::text) > 0`, secret); n != 0 {
		t.Error("the token itself is stored")
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE position($1 in after::text) > 0`, secret); n != 0 {
		t.Error("the token is in the audit log")
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'token.create' AND target_id = $1::bigint::text AND scope = 'home'`, tok.ID); n != 1 {
		t.Errorf("%d token.create audit rows, want 1", n)
	}
	list, err := fx.admin.ListTokens(ctx)
	if err != nil || len(list) != 1 || list[0].CreatedBy != "boss@example.com" {
		t.Errorf("ListTokens() = %+v, %v", list, err)
	}

	for _, tt := range []struct {
		in    NewToken
		kind  memory.Code
		field string
	}{
		{NewToken{Name: "laptop", Scope: "home", Role: "writer"}, memory.CodeConflict, "name"},
		{NewToken{Name: " ", Scope: "home", Role: "writer"}, memory.CodeInvalid, "name"},
		{NewToken{Name: "x", Scope: "Home Scope", Role: "writer"}, memory.CodeInvalid, "scope"},
		{NewToken{Name: "x", Scope: "home", Role: "admin"}, memory.CodeInvalid, "role"},
		{NewToken{Name: "x", Scope: "home", Role: "reader", ExpiresInDays: 5000}, memory.CodeInvalid, "expires_days"},
	} {
		_, _, err := fx.admin.CreateToken(ctx, fx.boss, tt.in)
		wantAdminError(t, err, tt.kind, tt.field, "")
	}

	r, err := fx.admin.RevokeToken(ctx, fx.boss, tok.ID)
	if err != nil || r.RevokedAt == nil {
		t.Fatalf("RevokeToken() = %+v, %v", r, err)
	}
	_, err = fx.admin.RevokeToken(ctx, fx.boss, tok.ID)
	wantAdminError(t, err, memory.CodeConflict, "", "already revoked")
	_, err = fx.admin.RevokeToken(ctx, fx.boss, 9999)
	wantAdminError(t, err, memory.CodeNotFound, "", "no API token")
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'token.revoke' AND target_id = $1::bigint::text`, tok.ID); n != 1 {
		t.Errorf("%d token.revoke audit rows, want 1", n)
	}
	// A revoked name may be used again.
	if _, _, err := fx.admin.CreateToken(ctx, fx.boss, NewToken{Name: "laptop", Scope: "home", Role: "reader"}); err != nil {
		t.Errorf("CreateToken() after revoking the old one = %v", err)
	}
}
