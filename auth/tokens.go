package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// APITokenPrefix starts every API token, so a leaked one is easy to spot.
const APITokenPrefix = "tnr_"

// NewAPIToken returns a fresh API token, its hash for storage and the short
// prefix shown in lists.
func NewAPIToken() (token string, hash []byte, prefix string, err error) {
	secret, err := RandomSecret(32)
	if err != nil {
		return "", nil, "", err
	}
	token = APITokenPrefix + secret
	return token, hashToken(token), token[:len(APITokenPrefix)+6], nil
}

// HashAPIToken is the stored form of an API token.
func HashAPIToken(token string) []byte { return hashToken(token) }

// ErrUnknownAPIToken is the error of a bearer token that opens nothing: no
// live token (not revoked, not expired) has its hash.
var ErrUnknownAPIToken = errors.New("auth: unknown, revoked or expired API token")

// apiTokenTouchEvery bounds how often a token's last_used_at is written: a
// busy agent must not turn every read into a write.
const apiTokenTouchEvery = time.Minute

// Tokens authenticates the API tokens agents send, for the JSON API and the
// MCP server alike.
type Tokens struct {
	q   *queries.Queries
	now func() time.Time
}

// NewTokens returns the token authentication over db; now is the clock (nil
// for time.Now).
func NewTokens(db DB, now func() time.Time) *Tokens {
	if now == nil {
		now = time.Now
	}
	return &Tokens{q: queries.New(db), now: now}
}

// Authenticate returns the live API token whose secret is bearer: looked up
// by its SHA-256, not revoked and not expired at the clock's now. There being
// none is ErrUnknownAPIToken; any other error is a failure of the lookup.
// The token's last_used_at is kept to the minute: it is written when it is
// unset or at least a minute old, so that a busy agent does not turn every
// read into a write. The Token returned has LastUsedAt as it was before this
// use, and no CreatedBy.
func (t *Tokens) Authenticate(ctx context.Context, bearer string) (Token, error) {
	now := t.now().UTC().Truncate(time.Microsecond)
	row, err := t.q.GetLiveTokenByHash(ctx, queries.GetLiveTokenByHashParams{TokenHash: HashAPIToken(bearer), Now: now})
	if errors.Is(err, pgx.ErrNoRows) {
		return Token{}, ErrUnknownAPIToken
	}
	if err != nil {
		return Token{}, fmt.Errorf("auth: look up API token: %w", err)
	}
	if row.LastUsedAt == nil || now.Sub(*row.LastUsedAt) >= apiTokenTouchEvery {
		if err := t.q.TouchToken(ctx, queries.TouchTokenParams{Now: &now, ID: row.ID}); err != nil {
			return Token{}, fmt.Errorf("auth: touch API token: %w", err)
		}
	}
	return tokenFromRow(row), nil
}

// tokenFromRow is a stored token as lists show it, without its creator.
func tokenFromRow(r queries.ApiToken) Token {
	return Token{ID: r.ID, Name: r.Name, Scope: r.Scope, Role: r.Role, Prefix: r.TokenPrefix,
		CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt}
}
