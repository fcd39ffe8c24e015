package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/memory"
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
	db  DB
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
	return &Sessions{db: db, q: queries.New(db), now: now, dummy: dummy}, nil
}

func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// Login checks email and password and opens a session; it returns the token
// for the cookie. Every sign-in is audited: auth.signin by the person, with
// the session's opening in the same transaction; a refused one
// auth.signin_failed, naming the email tried (never the password), the
// client address and why (no such user, wrong password, account disabled),
// by system:signin, since nobody is signed in. The caller answers all three
// refusals alike (ErrBadCredentials).
func (s *Sessions) Login(ctx context.Context, email, password, userAgent, ip string) (string, Session, error) {
	email = strings.TrimSpace(email)
	u, err := s.q.GetUserByEmail(ctx, email)
	if errors.Is(err, pgx.ErrNoRows) {
		if VerifyPasswordContext(ctx, s.dummy, password) != nil && ctx.Err() != nil {
			return "", Session{}, fmt.Errorf("auth: login: %w", ctx.Err())
		}
		return "", Session{}, s.signinFailed(ctx, email, ip, "no such user", nil)
	}
	if err != nil {
		return "", Session{}, fmt.Errorf("auth: login: %w", err)
	}
	if err := VerifyPasswordContext(ctx, u.PasswordHash, password); err != nil || u.DisabledAt != nil {
		if ctx.Err() != nil {
			return "", Session{}, fmt.Errorf("auth: login: %w", ctx.Err())
		}
		reason := "wrong password"
		if err == nil {
			reason = "account disabled"
		}
		return "", Session{}, s.signinFailed(ctx, email, ip, reason, &u.ID)
	}
	token, err := RandomSecret(32)
	if err != nil {
		return "", Session{}, err
	}
	csrf, err := RandomSecret(32)
	if err != nil {
		return "", Session{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	if len(userAgent) > 300 {
		userAgent = userAgent[:300]
	}
	sess := Session{UserID: u.ID, Email: u.Email, Name: u.Name, Role: Role(u.Role), CSRF: csrf, ExpiresAt: slidingExpiry(now, now)}
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		if err := q.CreateSession(ctx, queries.CreateSessionParams{
			TokenHash: hashToken(token), UserID: u.ID, CsrfToken: csrf, Now: now, ExpiresAt: sess.ExpiresAt,
			UserAgent: userAgent, IP: ip,
		}); err != nil {
			return err
		}
		if err := q.SetUserLastLogin(ctx, queries.SetUserLastLoginParams{At: now, ID: u.ID}); err != nil {
			return err
		}
		return memory.WriteAudit(ctx, q, memory.AuditEntry{At: now, Actor: memory.Human(u.Email), Action: "auth.signin",
			TargetType: "user", TargetID: strconv.FormatInt(u.ID, 10), After: map[string]any{"email": u.Email, "ip": ip}})
	})
	if err != nil {
		return "", Session{}, fmt.Errorf("auth: login: %w", err)
	}
	return token, sess, nil
}

// signinFailed audits a refused sign-in as auth.signin_failed and returns
// ErrBadCredentials, or the error of the audit. The row's target is the
// user the email names (id nil when it names nobody: the target id is then
// empty).
func (s *Sessions) signinFailed(ctx context.Context, email, ip, reason string, id *int64) error {
	target := ""
	if id != nil {
		target = strconv.FormatInt(*id, 10)
	}
	email = auditText(email, maxEmail)
	err := memory.WriteAudit(ctx, s.q, memory.AuditEntry{At: s.now().UTC().Truncate(time.Microsecond),
		Actor: memory.System("signin"), Action: "auth.signin_failed", TargetType: "user", TargetID: target,
		After: map[string]any{"email": email, "ip": ip}, Reason: reason})
	if err != nil {
		return fmt.Errorf("auth: login: %w", err)
	}
	return ErrBadCredentials
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

// Logout ends the session of token; see SignOut.
func (s *Sessions) Logout(ctx context.Context, token string) error {
	return s.SignOut(ctx, token, "")
}

// SignOut ends the session of token and audits it (auth.signout, by the
// person, with the client address ip), in one transaction. A token that
// opens no session (already ended) changes nothing and writes no row.
func (s *Sessions) SignOut(ctx context.Context, token, ip string) error {
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		row, err := q.DeleteSessionReturningUser(ctx, hashToken(token))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		after := map[string]any{"email": row.Email}
		if ip != "" {
			after["ip"] = ip
		}
		return memory.WriteAudit(ctx, q, memory.AuditEntry{At: s.now().UTC().Truncate(time.Microsecond),
			Actor: memory.Human(row.Email), Action: "auth.signout", TargetType: "user",
			TargetID: strconv.FormatInt(row.UserID, 10), After: after})
	})
	if err != nil {
		return fmt.Errorf("auth: logout: %w", err)
	}
	return nil
}

// PurgeExpired deletes the sessions past their expiry (already refused by
// Lookup) and returns how many it deleted. It deletes the password reset
// links past theirs too (already refused), used or not: the audit log keeps
// their record.
func (s *Sessions) PurgeExpired(ctx context.Context) (int, error) {
	n, err := s.q.DeleteExpiredSessions(ctx, s.now())
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	if _, err := s.q.DeleteExpiredPasswordResets(ctx, s.now()); err != nil {
		return 0, fmt.Errorf("purge password reset links: %w", err)
	}
	return int(n), nil
}

// auditText is text typed by anyone (the email of a refused sign-in) as an
// audit row keeps it: valid UTF-8 without control characters, at most max
// bytes.
func auditText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	for len(s) > max {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
