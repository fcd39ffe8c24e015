package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/queries"
)

// SetupTTL is how long a first-run setup link works.
const SetupTTL = time.Hour

// ErrSetupClosed is the answer to setup once any user exists: the first
// admin was made, and every other account is made by an admin (or with
// tenure user create).
var ErrSetupClosed = &memory.Error{Code: memory.CodeForbidden,
	Message: "setup is closed: an account exists; sign in, or ask an admin for an account"}

// errSetupLink refuses a setup link that is unknown, used or expired.
var errSetupLink = &memory.Error{Code: memory.CodeForbidden, Field: "token",
	Message: "this setup link is unknown, already used or expired: restart tenure serve to print a new one, or create the first admin with tenure user create"}

// SetupPending reports whether no user exists yet, so that nobody can sign
// in and the first admin is still to be made.
func SetupPending(ctx context.Context, db DB) (bool, error) {
	exist, err := queries.New(db).UsersExist(ctx)
	if err != nil {
		return false, fmt.Errorf("auth: setup pending: %w", err)
	}
	return !exist, nil
}

// NewSetupLink makes the token of a first-run setup link, valid for
// SetupTTL from now, and keeps only its hash; earlier links stop working.
// Once a user exists it returns ErrSetupClosed.
func NewSetupLink(ctx context.Context, db DB, now time.Time) (token string, expires time.Time, err error) {
	pending, err := SetupPending(ctx, db)
	if err != nil {
		return "", time.Time{}, err
	}
	if !pending {
		return "", time.Time{}, ErrSetupClosed
	}
	if token, err = RandomSecret(32); err != nil {
		return "", time.Time{}, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	expires = now.Add(SetupTTL)
	if err := queries.New(db).ReplaceSetupToken(ctx, queries.ReplaceSetupTokenParams{
		TokenHash: hashToken(token), Now: now, ExpiresAt: expires}); err != nil {
		return "", time.Time{}, fmt.Errorf("auth: setup link: %w", err)
	}
	return token, expires, nil
}

// CompleteSetup spends the setup link token and creates the first admin
// from in (whose role is admin whatever it says), audited, in one
// transaction; setup then closes for good. Two people using the link at
// once cannot both succeed: the users table is locked while it is checked.
func CompleteSetup(ctx context.Context, db DB, token string, in NewUser, now time.Time) (User, error) {
	in.Role = string(RoleAdmin)
	in, err := in.validate()
	if err != nil {
		return User{}, err
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return User{}, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	var u User
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return err
		}
		q := queries.New(tx)
		exist, err := q.UsersExist(ctx)
		if err != nil {
			return err
		}
		if exist {
			return ErrSetupClosed
		}
		if _, err := q.UseSetupToken(ctx, queries.UseSetupTokenParams{TokenHash: hashToken(token), Now: now}); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return errSetupLink
			}
			return err
		}
		if u, err = insertUser(ctx, q, in, hash); err != nil {
			return err
		}
		if err := q.DeleteSetupTokens(ctx); err != nil {
			return err
		}
		return memory.WriteAudit(ctx, q, memory.AuditEntry{At: now, Actor: memory.System("setup"), Action: "user.create",
			TargetType: "user", TargetID: fmt.Sprint(u.ID), After: map[string]any{"email": u.Email, "role": string(u.Role)},
			Reason: "first-run setup"})
	})
	if err != nil {
		return User{}, wrapAdmin("setup", err)
	}
	return u, nil
}
