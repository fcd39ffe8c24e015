package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

// TestFirstRunSetup: while no user exists setup is pending; a link works
// once, until it expires, only the newest one works, a bad form leaves it
// usable, and once the first admin exists setup is closed for good.
func TestFirstRunSetup(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if pending, err := SetupPending(ctx, pool); err != nil || !pending {
		t.Fatalf("SetupPending on an empty database = %v, %v; want true", pending, err)
	}
	old, _, err := NewSetupLink(ctx, pool, now)
	if err != nil {
		t.Fatal(err)
	}
	token, expires, err := NewSetupLink(ctx, pool, now)
	if err != nil || !expires.Equal(now.Add(SetupTTL)) {
		t.Fatalf("NewSetupLink = %v, %v; want a link for %s", expires, err, SetupTTL)
	}
	var hashes int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM setup_tokens WHERE token_hash = $1`, hashToken(token)).Scan(&hashes); err != nil || hashes != 1 {
		t.Fatalf("stored hashes of the token = %d (%v), want 1", hashes, err)
	}
	owner := NewUser{Email: "owner@example.com", Name: "Olga", Role: "viewer", Password: "correct horse battery", Confirm: "correct horse battery"}
	wantRefusal := func(err error, code memory.Code, field string) {
		t.Helper()
		me := memory.AsError(err)
		if me == nil || me.Code != code || me.Field != field {
			t.Errorf("error = %v, want %s on %q", err, code, field)
		}
	}

	_, err = CompleteSetup(ctx, pool, old, owner, now)
	wantRefusal(err, memory.CodeForbidden, "token")
	_, err = CompleteSetup(ctx, pool, token, owner, now.Add(SetupTTL+time.Second))
	wantRefusal(err, memory.CodeForbidden, "token")
	short := owner
	short.Password, short.Confirm = "short", "short"
	_, err = CompleteSetup(ctx, pool, token, short, now)
	wantRefusal(err, memory.CodeInvalid, "password")

	u, err := CompleteSetup(ctx, pool, token, owner, now.Add(time.Minute))
	if err != nil {
		t.Fatalf("CompleteSetup = %v", err)
	}
	if u.Role != RoleAdmin || u.Email != "owner@example.com" {
		t.Errorf("first user = %+v, want an admin whatever the form asked", u)
	}
	var audits int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE actor = 'system:setup' AND action = 'user.create' AND target_id = $1::bigint::text`,
		u.ID).Scan(&audits); err != nil || audits != 1 {
		t.Errorf("audit rows = %d (%v), want 1", audits, err)
	}
	if pending, err := SetupPending(ctx, pool); err != nil || pending {
		t.Errorf("SetupPending after setup = %v, %v; want false", pending, err)
	}
	second := owner
	second.Email = "intruder@example.com"
	if _, err := CompleteSetup(ctx, pool, token, second, now.Add(2*time.Minute)); !errors.Is(err, ErrSetupClosed) {
		t.Errorf("a second setup = %v, want ErrSetupClosed", err)
	}
	if _, _, err := NewSetupLink(ctx, pool, now); !errors.Is(err, ErrSetupClosed) {
		t.Errorf("NewSetupLink after setup = %v, want ErrSetupClosed", err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM setup_tokens`).Scan(&left); err != nil || left != 0 {
		t.Errorf("setup tokens left = %d (%v), want none", left, err)
	}
}
