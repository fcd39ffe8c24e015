package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/queries"
)

// PasswordResetTTL is how long a password reset link works.
const PasswordResetTTL = 24 * time.Hour

// PasswordResetPath is the console's page a password reset link opens.
const PasswordResetPath = "/reset-password"

// errResetLink refuses a password reset link that is unknown, used or
// expired.
var errResetLink = &memory.Error{Code: memory.CodeForbidden, Field: "token",
	Message: "this password reset link is unknown, already used or expired: ask an admin for a new one"}

// ErrResetLink is the refusal of a password reset link that is unknown,
// used or expired (a memory.Error with code forbidden on field token).
var ErrResetLink error = errResetLink

// PasswordResetURL is the link that opens the reset page for token, under
// base, the address people open the console at (such as
// https://tenure.example.com).
func PasswordResetURL(base, token string) string {
	return strings.TrimRight(base, "/") + PasswordResetPath + "?token=" + url.QueryEscape(token)
}

// UserByEmail returns the user whose email is email (compared without
// case); none is a not-found error (memory.CodeNotFound) naming it.
func (a *Admin) UserByEmail(ctx context.Context, email string) (User, error) {
	email = strings.TrimSpace(email)
	u, err := a.q.GetUserByEmail(ctx, email)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, adminErr(memory.CodeNotFound, "email", "no user with email %s", email)
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: user by email: %w", err)
	}
	return userFromRow(u), nil
}

// PasswordChange is what a signed-in person types to change their own
// password: the current one, and the new one twice.
type PasswordChange struct {
	Current string
	New     string
	Confirm string
}

// ChangePassword sets a new password for the signed-in person of sess,
// whose session cookie holds sessionToken, after checking their current
// one. The new password follows the rules of a new user's (at least
// MinPasswordLength characters; the repeat must match) and must differ from
// the current one. Every other session of the person ends, the current one
// stays; it returns how many ended. The change is audited
// (auth.password_change, by the person) in the same transaction.
//
// A wrong current password is an invalid error on field current
// (IsWrongPassword reports it, for the caller's throttle); the new one's
// faults are invalid errors on fields password and confirm.
func (a *Admin) ChangePassword(ctx context.Context, sess Session, sessionToken string, in PasswordChange) (int, error) {
	if err := checkText("current", "the current password", in.Current); err != nil {
		return 0, err
	}
	if err := checkNewPassword(in.New, in.Confirm); err != nil {
		return 0, err
	}
	if in.Current == "" {
		return 0, adminErr(memory.CodeInvalid, "current", "type your current password: it proves the change is yours")
	}
	cur, err := a.q.GetUserByEmail(ctx, sess.Email)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && cur.ID != sess.UserID) {
		return 0, adminErr(memory.CodeNotFound, "", "your account no longer exists")
	}
	if err != nil {
		return 0, fmt.Errorf("auth: change password: %w", err)
	}
	if err := VerifyPasswordContext(ctx, cur.PasswordHash, in.Current); err != nil {
		if errors.Is(err, ErrPasswordMismatch) {
			return 0, errWrongPassword
		}
		return 0, fmt.Errorf("auth: change password: %w", err)
	}
	if in.New == in.Current {
		return 0, adminErr(memory.CodeInvalid, "password", "the new password is the one you have: choose another")
	}
	hash, err := HashPasswordContext(ctx, in.New)
	if err != nil {
		return 0, fmt.Errorf("auth: change password: %w", err)
	}
	var ended int
	err = pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		q := a.q.WithTx(tx)
		u, err := q.GetUserForUpdate(ctx, sess.UserID)
		if errors.Is(err, pgx.ErrNoRows) {
			return adminErr(memory.CodeNotFound, "", "your account no longer exists")
		}
		if err != nil {
			return err
		}
		if u.PasswordHash != cur.PasswordHash {
			// Changed (or reset) between the check above and now.
			return adminErr(memory.CodeConflict, "current", "your password was changed meanwhile: type the current one again")
		}
		now := a.clock()
		if err := q.SetUserPassword(ctx, queries.SetUserPasswordParams{PasswordHash: hash, At: now, ID: u.ID}); err != nil {
			return err
		}
		// A reset link issued before is no longer wanted: whoever holds it
		// could otherwise set the password for a day more.
		if err := q.DeleteUnusedPasswordResets(ctx, u.ID); err != nil {
			return err
		}
		n, err := q.DeleteOtherUserSessions(ctx, queries.DeleteOtherUserSessionsParams{UserID: u.ID, Keep: hashToken(sessionToken)})
		if err != nil {
			return err
		}
		ended = int(n)
		return memory.WriteAudit(ctx, q, memory.AuditEntry{At: now, Actor: memory.Human(u.Email), Action: "auth.password_change",
			TargetType: "user", TargetID: strconv.FormatInt(u.ID, 10),
			After: map[string]any{"email": u.Email, "other_sessions_ended": ended}})
	})
	if err != nil {
		return 0, wrapAdmin("change password", err)
	}
	return ended, nil
}

// errWrongPassword refuses a wrong current password.
var errWrongPassword = &memory.Error{Code: memory.CodeInvalid, Field: "current", Message: "the current password is wrong"}

// IsWrongPassword reports whether err is ChangePassword's refusal of a
// wrong current password.
func IsWrongPassword(err error) bool { return errors.Is(err, errWrongPassword) }

// PasswordReset is a password reset link just issued: Token is shown once
// (in the link) and stored only as its SHA-256.
type PasswordReset struct {
	Token     string
	User      User
	ExpiresAt time.Time
}

// IssuePasswordReset makes a one-time password reset link for the user with
// id, valid for PasswordResetTTL, audited (auth.password_reset_issued) as
// done by by in the same transaction; the token itself is never stored nor
// audited. The user's earlier unused links stop working. A disabled user is
// a conflict (memory.CodeConflict): enable them first. So is a link for
// oneself: a person changes their own password with the current one
// (ChangePassword), so that a session left open is not enough to take the
// account.
func (a *Admin) IssuePasswordReset(ctx context.Context, by Session, id int64) (PasswordReset, error) {
	if by.UserID > 0 && by.UserID == id {
		return PasswordReset{}, adminErr(memory.CodeConflict, "reset",
			"you cannot issue a reset link for yourself: change your password on Your account, with the current one")
	}
	token, err := RandomSecret(32)
	if err != nil {
		return PasswordReset{}, err
	}
	var out PasswordReset
	err = pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		q := a.q.WithTx(tx)
		u, err := q.GetUserForUpdate(ctx, id)
		if errors.Is(err, pgx.ErrNoRows) {
			return adminErr(memory.CodeNotFound, "", "no user with id %d", id)
		}
		if err != nil {
			return err
		}
		if u.DisabledAt != nil {
			return adminErr(memory.CodeConflict, "reset", "%s is disabled: enable them first, then issue the reset link", u.Email)
		}
		if err := q.DeleteUnusedPasswordResets(ctx, u.ID); err != nil {
			return err
		}
		var createdBy *int64
		if by.UserID > 0 {
			createdBy = &by.UserID
		}
		now := a.clock()
		row, err := q.CreatePasswordReset(ctx, queries.CreatePasswordResetParams{UserID: u.ID, TokenHash: hashToken(token),
			CreatedBy: createdBy, Now: now, ExpiresAt: now.Add(PasswordResetTTL)})
		if err != nil {
			return err
		}
		out = PasswordReset{Token: token, User: userFromRow(u), ExpiresAt: row.ExpiresAt}
		return a.audit(ctx, q, by, "auth.password_reset_issued", "user", u.ID, nil, nil,
			map[string]any{"email": u.Email, "expires_at": row.ExpiresAt}, "")
	})
	if err != nil {
		return PasswordReset{}, wrapAdmin("issue password reset", err)
	}
	return out, nil
}

// PasswordResetFor returns the user a password reset link's token sets the
// password of, and when the link expires, while it still works; otherwise
// ErrResetLink.
func (a *Admin) PasswordResetFor(ctx context.Context, token string) (User, time.Time, error) {
	if token == "" {
		return User{}, time.Time{}, errResetLink
	}
	row, err := a.q.GetLivePasswordReset(ctx, queries.GetLivePasswordResetParams{TokenHash: hashToken(token), Now: a.clock()})
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, time.Time{}, errResetLink
	}
	if err != nil {
		return User{}, time.Time{}, fmt.Errorf("auth: password reset: %w", err)
	}
	return User{ID: row.UserID, Email: row.Email, Name: row.Name, DisabledAt: row.DisabledAt}, row.ExpiresAt, nil
}

// UsePasswordReset spends the password reset link of token and sets the
// user's password to password (confirm repeats it; the rules of a new
// user's), ending every session of the user, audited
// (auth.password_reset_used, by the user, with the client address ip) in
// the same transaction. A link that is unknown, used or expired is
// ErrResetLink; a password the rules refuse is an invalid error on field
// password or confirm, and the link still works. A disabled user is a
// conflict (memory.CodeConflict).
func (a *Admin) UsePasswordReset(ctx context.Context, token, password, confirm, ip string) (User, error) {
	linked, _, err := a.PasswordResetFor(ctx, token)
	if err != nil {
		return User{}, err
	}
	if err := checkNewPassword(password, confirm); err != nil {
		return User{}, err
	}
	hash, err := HashPasswordContext(ctx, password)
	if err != nil {
		return User{}, fmt.Errorf("auth: password reset: %w", err)
	}
	var out User
	err = pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		q := a.q.WithTx(tx)
		now := a.clock()
		// The user's row first, then the link's, in the order
		// IssuePasswordReset takes them, so that the two never wait for
		// each other.
		u, err := q.GetUserForUpdate(ctx, linked.ID)
		if errors.Is(err, pgx.ErrNoRows) {
			return errResetLink // the user was deleted, and the link with them
		}
		if err != nil {
			return err
		}
		reset, err := q.UsePasswordReset(ctx, queries.UsePasswordResetParams{TokenHash: hashToken(token), Now: now})
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && reset.UserID != u.ID) {
			return errResetLink // used by someone else just now, or expired meanwhile
		}
		if err != nil {
			return err
		}
		if u.DisabledAt != nil {
			return adminErr(memory.CodeConflict, "token", "the account %s is disabled: ask an admin to enable it", u.Email)
		}
		if err := q.SetUserPassword(ctx, queries.SetUserPasswordParams{PasswordHash: hash, At: now, ID: u.ID}); err != nil {
			return err
		}
		ended, err := q.DeleteAllUserSessions(ctx, u.ID)
		if err != nil {
			return err
		}
		out = userFromRow(u)
		after := map[string]any{"email": u.Email, "sessions_ended": ended}
		if ip != "" {
			after["ip"] = ip
		}
		return memory.WriteAudit(ctx, q, memory.AuditEntry{At: now, Actor: memory.Human(u.Email), Action: "auth.password_reset_used",
			TargetType: "user", TargetID: strconv.FormatInt(u.ID, 10), After: after, Reason: "one-time reset link"})
	})
	if err != nil {
		return User{}, wrapAdmin("password reset", err)
	}
	return out, nil
}

// TokensNamed returns the tokens named name in scope: the live one (there is
// at most one) first, then the revoked ones, newest first. None is a
// not-found error (memory.CodeNotFound).
func (a *Admin) TokensNamed(ctx context.Context, scope, name string) ([]Token, error) {
	rows, err := a.q.GetTokensByScopeName(ctx, queries.GetTokensByScopeNameParams{Scope: scope, Name: name})
	if err != nil {
		return nil, fmt.Errorf("auth: tokens named: %w", err)
	}
	if len(rows) == 0 {
		return nil, adminErr(memory.CodeNotFound, "name", "no API token named %q in scope %s", name, scope)
	}
	out := make([]Token, len(rows))
	for i, r := range rows {
		out[i] = Token{ID: r.ID, Name: r.Name, Scope: r.Scope, Role: r.Role, Prefix: r.TokenPrefix, RevokedAt: r.RevokedAt}
	}
	return out, nil
}
