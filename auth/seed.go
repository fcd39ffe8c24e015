package auth

import (
	"context"
	"time"

	"github.com/tenurehq/tenure/queries"
)

// The seed functions write accounts and tokens without an audit row each:
// they are for a loader that fills an empty database and audits the load as
// a whole (the demo data, in the same transaction as the memory it seeds),
// and for tests that set up a database. Administration goes through Admin,
// which audits every change.

// SeedUser creates a person with db, which may be a pool or a transaction,
// validated as Admin.CreateUser validates it (Confirm may be left empty) and
// with the password hashed, but unaudited. A duplicate email is an
// memory.CodeConflict on field email.
func SeedUser(ctx context.Context, db DB, in NewUser) (User, error) {
	if in.Confirm == "" {
		in.Confirm = in.Password
	}
	in, err := in.validate()
	if err != nil {
		return User{}, err
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return User{}, err
	}
	u, err := insertUser(ctx, queries.New(db), in, hash)
	if err != nil {
		return User{}, wrapAdmin("seed user", err)
	}
	return u, nil
}

// SeedToken creates an API token with db, which may be a pool or a
// transaction, created at now (its expiry counts from now), validated as
// Admin.CreateToken validates it but unaudited and with no creator. It
// returns the token itself, which is stored only as its SHA-256. A live
// token with the same name in the scope is a memory.CodeConflict on field name.
func SeedToken(ctx context.Context, db DB, in NewToken, now time.Time) (string, Token, error) {
	in, err := in.validate()
	if err != nil {
		return "", Token{}, err
	}
	secret, t, err := insertToken(ctx, queries.New(db), in, nil, now.UTC().Truncate(time.Microsecond))
	if err != nil {
		return "", Token{}, wrapAdmin("seed token", err)
	}
	return secret, t, nil
}
