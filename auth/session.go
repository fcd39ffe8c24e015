package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// Role is what a person may do in the console.
type Role string

// The roles, each allowed everything the one before it is.
const (
	RoleViewer   Role = "viewer"   // reads
	RoleReviewer Role = "reviewer" // edits memory
	RoleAdmin    Role = "admin"    // users, tokens, policies
)

// ParseRole validates a role name.
func ParseRole(s string) (Role, error) {
	switch Role(s) {
	case RoleViewer, RoleReviewer, RoleAdmin:
		return Role(s), nil
	}
	return "", fmt.Errorf("invalid role %q: allowed values are viewer, reviewer, admin", s)
}

func (r Role) rank() int {
	switch r {
	case RoleViewer:
		return 1
	case RoleReviewer:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// Allows reports whether a person with role r may do what needs role need.
func (r Role) Allows(need Role) bool { return r.rank() >= need.rank() && r.rank() > 0 }

// SessionTTL is how long a session lives without use (sliding expiry: each
// use extends it).
const SessionTTL = 12 * time.Hour

// SessionMaxAge is how long a session lives at most, however much it is used:
// after it, the person signs in again.
const SessionMaxAge = 7 * 24 * time.Hour

// slidingExpiry is when a session created at created and used at now ends:
// SessionTTL after now, but never later than SessionMaxAge after created.
func slidingExpiry(created, now time.Time) time.Time {
	exp := now.Add(SessionTTL)
	if limit := created.Add(SessionMaxAge); exp.After(limit) {
		return limit
	}
	return exp
}

// ErrBadCredentials is returned by Login for an unknown email, a wrong
// password or a disabled user alike, so a caller cannot tell them apart.
var ErrBadCredentials = errors.New("auth: the email or password is wrong")

// ErrNoSession is returned by Lookup for a missing, expired or revoked session.
var ErrNoSession = errors.New("auth: no session")

// Session is a signed-in person.
type Session struct {
	UserID    int64
	Email     string
	Name      string
	Role      Role
	CSRF      string
	ExpiresAt time.Time
}

// Sessions stores sessions in PostgreSQL, so any replica can serve them. The
// browser holds a random token; the table holds only its SHA-256.
type Sessions struct {
	q   *queries.Queries
	now func() time.Time
	// dummy is a hash to verify against when the email is unknown, so that
	// a login takes as long whether or not the user exists.
	dummy string
}

// NewSessions returns a session store over db; now is the clock (nil for
// time.Now).
func NewSessions(db DB, now func() time.Time) (*Sessions, error) {
	if now == nil {
		now = time.Now
	}
	dummy, err := HashPassword("tenure-timing-equaliser")
	if err != nil {
		return nil, err
	}
	return &Sessions{q: queries.New(db), now: now, dummy: dummy}, nil
}

func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// Login checks email and password and opens a session; it returns the token
// for the cookie.
func (s *Sessions) Login(ctx context.Context, email, password, userAgent, ip string) (string, Session, error) {
	u, err := s.q.GetUserByEmail(ctx, strings.TrimSpace(email))
	if errors.Is(err, pgx.ErrNoRows) {
		if VerifyPasswordContext(ctx, s.dummy, password) != nil && ctx.Err() != nil {
			return "", Session{}, fmt.Errorf("auth: login: %w", ctx.Err())
		}
		return "", Session{}, ErrBadCredentials
	}
	if err != nil {
		return "", Session{}, fmt.Errorf("auth: login: %w", err)
	}
	if err := VerifyPasswordContext(ctx, u.PasswordHash, password); err != nil || u.DisabledAt != nil {
		if ctx.Err() != nil {
			return "", Session{}, fmt.Errorf("auth: login: %w", ctx.Err())
		}
		return "", Session{}, ErrBadCredentials
	}
	token, err := RandomSecret(32)
	if err != nil {
		return "", Session{}, err
	}
	csrf, err := RandomSecret(32)
	if err != nil {
		return "", Session{}, err
	}
	now := s.now().UTC()
	if len(userAgent) > 300 {
		userAgent = userAgent[:300]
	}
	sess := Session{UserID: u.ID, Email: u.Email, Name: u.Name, Role: Role(u.Role), CSRF: csrf, ExpiresAt: slidingExpiry(now, now)}
	if err := s.q.CreateSession(ctx, queries.CreateSessionParams{
		TokenHash: hashToken(token), UserID: u.ID, CsrfToken: csrf, Now: now, ExpiresAt: sess.ExpiresAt,
		UserAgent: userAgent, IP: ip,
	}); err != nil {
		return "", Session{}, fmt.Errorf("auth: login: %w", err)
	}
	if err := s.q.SetUserLastLogin(ctx, queries.SetUserLastLoginParams{At: now, ID: u.ID}); err != nil {
		return "", Session{}, fmt.Errorf("auth: login: %w", err)
	}
	return token, sess, nil
}

// Lookup returns the live session of token and extends it (sliding expiry,
// written at most once a minute, up to SessionMaxAge after sign-in).
func (s *Sessions) Lookup(ctx context.Context, token string) (Session, error) {
	if token == "" {
		return Session{}, ErrNoSession
	}
	now := s.now().UTC()
	row, err := s.q.GetSession(ctx, queries.GetSessionParams{TokenHash: hashToken(token), Now: now})
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("auth: session: %w", err)
	}
	if !now.Before(row.CreatedAt.Add(SessionMaxAge)) {
		// Past its absolute lifetime (a session extended before the limit
		// existed): end it.
		if err := s.q.DeleteSession(ctx, row.TokenHash); err != nil {
			return Session{}, fmt.Errorf("auth: session: %w", err)
		}
		return Session{}, ErrNoSession
	}
	sess := Session{UserID: row.UserID, Email: row.Email, Name: row.Name, Role: Role(row.Role), CSRF: row.CsrfToken, ExpiresAt: row.ExpiresAt}
	if now.Sub(row.LastSeenAt) > time.Minute {
		sess.ExpiresAt = slidingExpiry(row.CreatedAt, now)
		if err := s.q.TouchSession(ctx, queries.TouchSessionParams{Now: now, ExpiresAt: sess.ExpiresAt, TokenHash: row.TokenHash}); err != nil {
			return Session{}, fmt.Errorf("auth: session: %w", err)
		}
	}
	return sess, nil
}

// Logout ends the session of token.
func (s *Sessions) Logout(ctx context.Context, token string) error {
	if err := s.q.DeleteSession(ctx, hashToken(token)); err != nil {
		return fmt.Errorf("auth: logout: %w", err)
	}
	return nil
}

// PurgeExpired deletes the sessions past their expiry (already refused by
// Lookup) and returns how many it deleted.
func (s *Sessions) PurgeExpired(ctx context.Context) (int, error) {
	n, err := s.q.DeleteExpiredSessions(ctx, s.now())
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	return int(n), nil
}
