package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

func TestTokensAuthenticate(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tokens := NewTokens(pool, func() time.Time { return now })
	lastUsed := func(id int64) *time.Time {
		t.Helper()
		var at *time.Time
		if err := pool.QueryRow(ctx, `SELECT last_used_at FROM api_tokens WHERE id = $1`, id).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}

	secret, created, err := SeedToken(ctx, pool, NewToken{Name: "laptop", Scope: "home", Role: TokenWriter, ExpiresInDays: 2}, now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokens.Authenticate(ctx, secret)
	if err != nil {
		t.Fatalf("Authenticate() = %v", err)
	}
	if tok.ID != created.ID || tok.Name != "laptop" || tok.Scope != "home" || tok.Role != TokenWriter ||
		tok.Prefix != created.Prefix || tok.LastUsedAt != nil || tok.ExpiresAt == nil {
		t.Errorf("Authenticate() = %+v, want the token as created, never used before", tok)
	}
	if at := lastUsed(tok.ID); at == nil || !at.Equal(now) {
		t.Errorf("last_used_at = %v after the first use, want %s", at, now)
	}

	// Within a minute the use is not written again; a minute later it is.
	now = now.Add(59 * time.Second)
	if tok, err = tokens.Authenticate(ctx, secret); err != nil || tok.LastUsedAt == nil {
		t.Fatalf("Authenticate() = %+v, %v", tok, err)
	}
	if at := lastUsed(tok.ID); !at.Equal(now.Add(-59 * time.Second)) {
		t.Errorf("last_used_at = %v 59s later, want it unchanged", at)
	}
	now = now.Add(time.Second)
	if _, err := tokens.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if at := lastUsed(tok.ID); !at.Equal(now) {
		t.Errorf("last_used_at = %v a minute later, want %s", at, now)
	}

	for name, bearer := range map[string]string{"unknown": "tnr_nothing", "empty": ""} {
		if _, err := tokens.Authenticate(ctx, bearer); !errors.Is(err, ErrUnknownAPIToken) {
			t.Errorf("Authenticate(%s) = %v, want ErrUnknownAPIToken", name, err)
		}
	}
	t.Run("expired", func(t *testing.T) {
		later := NewTokens(pool, func() time.Time { return now.Add(2 * 24 * time.Hour) })
		if _, err := later.Authenticate(ctx, secret); !errors.Is(err, ErrUnknownAPIToken) {
			t.Errorf("Authenticate() after expiry = %v, want ErrUnknownAPIToken", err)
		}
	})
	t.Run("revoked", func(t *testing.T) {
		if _, err := NewAdmin(pool, func() time.Time { return now }).RevokeToken(ctx, CLI, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := tokens.Authenticate(ctx, secret); !errors.Is(err, ErrUnknownAPIToken) {
			t.Errorf("Authenticate() of a revoked token = %v, want ErrUnknownAPIToken", err)
		}
	})
	t.Run("database down", func(t *testing.T) {
		closed := pgtest.NewPool(t)
		closed.Close()
		_, err := NewTokens(closed, nil).Authenticate(ctx, secret)
		if err == nil || errors.Is(err, ErrUnknownAPIToken) {
			t.Errorf("Authenticate() over a closed pool = %v, want a lookup failure", err)
		}
	})
}

func TestSeedUserAndToken(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	count := func(query string) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	u, err := SeedUser(ctx, pool, NewUser{Email: " ann@example.com ", Name: "Ann", Role: "admin", Password: "a long enough secret"})
	if err != nil {
		t.Fatalf("SeedUser() = %v", err)
	}
	if u.Email != "ann@example.com" || u.Role != RoleAdmin {
		t.Errorf("SeedUser() = %+v", u)
	}
	s, err := NewSessions(pool, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Login(ctx, "ann@example.com", "a long enough secret", "ua", "ip"); err != nil {
		t.Errorf("Login() as the seeded user = %v", err)
	}
	_, err = SeedUser(ctx, pool, NewUser{Email: "ann@example.com", Role: "viewer", Password: "a long enough secret"})
	wantAdminError(t, err, memory.CodeConflict, "email", "already exists")
	_, err = SeedUser(ctx, pool, NewUser{Email: "bob@example.com", Role: "viewer", Password: "short"})
	wantAdminError(t, err, memory.CodeInvalid, "password", "at least")

	_, tok, err := SeedToken(ctx, pool, NewToken{Name: "laptop", Scope: "home", Role: TokenReader}, now)
	if err != nil {
		t.Fatalf("SeedToken() = %v", err)
	}
	if !tok.CreatedAt.Equal(now) || tok.ExpiresAt != nil || tok.CreatedBy != "" || tok.Role != TokenReader {
		t.Errorf("SeedToken() = %+v, want a reader token created at %s that never expires", tok, now)
	}
	_, _, err = SeedToken(ctx, pool, NewToken{Name: "laptop", Scope: "home", Role: TokenWriter}, now)
	wantAdminError(t, err, memory.CodeConflict, "name", "already exists")
	_, _, err = SeedToken(ctx, pool, NewToken{Name: "x", Scope: "Home!", Role: TokenWriter}, now)
	wantAdminError(t, err, memory.CodeInvalid, "scope", "invalid scope")

	// The sign-in above is audited (auth.signin); the seeding is not.
	if n := count(`SELECT count(*) FROM audit_log WHERE action <> 'auth.signin'`); n != 0 {
		t.Errorf("%d audit rows after seeding, want none", n)
	}
}
