package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/queries"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestRoles(t *testing.T) {
	tests := []struct {
		have, need Role
		want       bool
	}{
		{RoleViewer, RoleViewer, true}, {RoleViewer, RoleReviewer, false}, {RoleReviewer, RoleReviewer, true},
		{RoleReviewer, RoleAdmin, false}, {RoleAdmin, RoleReviewer, true}, {Role(""), RoleViewer, false},
	}
	for _, tt := range tests {
		if got := tt.have.Allows(tt.need); got != tt.want {
			t.Errorf("Role(%q).Allows(%q) = %t, want %t", tt.have, tt.need, got, tt.want)
		}
	}
	if _, err := ParseRole("root"); err == nil || !strings.Contains(err.Error(), "viewer, reviewer, admin") {
		t.Errorf("ParseRole(root) = %v", err)
	}
}

// sessionFixture is a fresh database with one reviewer (email, password "a
// long enough secret") and Sessions on a clock that reads *now, which the
// test moves.
func sessionFixture(t *testing.T, email string, now *time.Time) (*pgxpool.Pool, *queries.Queries, *Sessions, queries.User) {
	t.Helper()
	pool := pgtest.NewPool(t)
	q := queries.New(pool)
	s, err := NewSessions(pool, func() time.Time { return *now })
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := HashPassword("a long enough secret")
	u, err := q.CreateUser(context.Background(), queries.CreateUserParams{Email: email, Role: "reviewer", PasswordHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	return pool, q, s, u
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	_, q, s, u := sessionFixture(t, "Rev@Example.com", &now)

	for _, tc := range []struct{ email, password string }{
		{"rev@example.com", "wrong password!"}, {"nobody@example.com", "a long enough secret"},
	} {
		if _, _, err := s.Login(ctx, tc.email, tc.password, "ua", "ip"); !errors.Is(err, ErrBadCredentials) {
			t.Errorf("Login(%s, %s) = %v, want ErrBadCredentials", tc.email, tc.password, err)
		}
	}
	token, sess, err := s.Login(ctx, "rev@example.com", "a long enough secret", "ua", "127.0.0.1")
	if err != nil {
		t.Fatalf("Login() = %v", err)
	}
	if sess.Role != RoleReviewer || sess.CSRF == "" || token == "" || sess.UserID != u.ID {
		t.Errorf("Login() session = %+v", sess)
	}
	got, err := s.Lookup(ctx, token)
	if err != nil || got.Email != u.Email || got.CSRF != sess.CSRF {
		t.Errorf("Lookup() = %+v, %v", got, err)
	}
	if _, err := s.Lookup(ctx, token+"x"); !errors.Is(err, ErrNoSession) {
		t.Errorf("Lookup(forged) = %v, want ErrNoSession", err)
	}
	// Use keeps a session alive; a long pause ends it.
	now = now.Add(SessionTTL - time.Minute)
	if _, err := s.Lookup(ctx, token); err != nil {
		t.Errorf("Lookup() before expiry = %v", err)
	}
	now = now.Add(SessionTTL - time.Minute)
	if _, err := s.Lookup(ctx, token); err != nil {
		t.Errorf("Lookup() after a use extended it = %v", err)
	}
	now = now.Add(SessionTTL + time.Minute)
	if _, err := s.Lookup(ctx, token); !errors.Is(err, ErrNoSession) {
		t.Errorf("Lookup() after expiry = %v, want ErrNoSession", err)
	}

	token, _, err = s.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Logout(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup(ctx, token); !errors.Is(err, ErrNoSession) {
		t.Errorf("Lookup() after logout = %v, want ErrNoSession", err)
	}
	token, _, _ = s.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip")
	if _, err := q.SetUserDisabled(ctx, queries.SetUserDisabledParams{DisabledAt: &now, At: now, ID: u.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup(ctx, token); !errors.Is(err, ErrNoSession) {
		t.Errorf("Lookup() for a disabled user = %v, want ErrNoSession", err)
	}
	if _, _, err := s.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip"); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("Login() for a disabled user = %v, want ErrBadCredentials", err)
	}
}

// TestSessionAbsoluteLifetime: a session used all the time still ends
// SessionMaxAge after sign-in.
func TestSessionAbsoluteLifetime(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	_, q, s, _ := sessionFixture(t, "rev@example.com", &now)
	token, _, err := s.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip")
	if err != nil {
		t.Fatal(err)
	}
	start := now
	var last Session
	for now.Before(start.Add(SessionMaxAge - SessionTTL/2)) {
		now = now.Add(SessionTTL / 2)
		if last, err = s.Lookup(ctx, token); err != nil {
			t.Fatalf("Lookup() %s after sign-in, used every %s = %v", now.Sub(start), SessionTTL/2, err)
		}
		if last.ExpiresAt.After(start.Add(SessionMaxAge)) {
			t.Fatalf("session extended to %s, past its absolute end %s", last.ExpiresAt, start.Add(SessionMaxAge))
		}
	}
	if !last.ExpiresAt.Equal(start.Add(SessionMaxAge)) {
		t.Errorf("last extension to %s, want the absolute end %s", last.ExpiresAt, start.Add(SessionMaxAge))
	}
	now = start.Add(SessionMaxAge)
	if _, err := s.Lookup(ctx, token); !errors.Is(err, ErrNoSession) {
		t.Errorf("Lookup() at the absolute end = %v, want ErrNoSession", err)
	}

	// A session extended past the limit (before it existed) ends too, and is
	// deleted.
	now = start
	token, _, err = s.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.TouchSession(ctx, queries.TouchSessionParams{Now: start, ExpiresAt: start.Add(30 * 24 * time.Hour), TokenHash: hashToken(token)}); err != nil {
		t.Fatal(err)
	}
	now = start.Add(SessionMaxAge + time.Hour)
	if _, err := s.Lookup(ctx, token); !errors.Is(err, ErrNoSession) {
		t.Errorf("Lookup() of a session extended past the limit = %v, want ErrNoSession", err)
	}
	if _, err := q.GetSession(ctx, queries.GetSessionParams{TokenHash: hashToken(token), Now: start}); err == nil {
		t.Error("the session past its absolute end is still stored")
	}
}

func TestAPITokens(t *testing.T) {
	a, hashA, prefix, err := NewAPIToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _, _, _ := NewAPIToken()
	if a == b || !strings.HasPrefix(a, APITokenPrefix) || !strings.HasPrefix(a, prefix) || len(a) < 40 {
		t.Errorf("NewAPIToken() = %q (prefix %q), want distinct prefixed random tokens", a, prefix)
	}
	if string(HashAPIToken(a)) != string(hashA) || string(HashAPIToken(b)) == string(hashA) {
		t.Error("HashAPIToken does not match the hash NewAPIToken returned")
	}
}

// TestPurgeExpiredSessions: the purge deletes the sessions past their expiry
// and keeps the live ones.
func TestPurgeExpiredSessions(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	pool, _, s, _ := sessionFixture(t, "rev@example.com", &now)
	old, _, err := s.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip")
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(SessionTTL + time.Minute)
	live, _, err := s.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip")
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.PurgeExpired(ctx)
	if err != nil || n != 1 {
		t.Fatalf("PurgeExpired() = %d, %v; want the one expired session", n, err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM sessions`).Scan(&left); err != nil || left != 1 {
		t.Fatalf("%d sessions left (%v), want 1", left, err)
	}
	if _, err := s.Lookup(ctx, live); err != nil {
		t.Errorf("the live session after the purge: %v", err)
	}
	if _, err := s.Lookup(ctx, old); !errors.Is(err, ErrNoSession) {
		t.Errorf("the purged session: %v, want ErrNoSession", err)
	}
}
