package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/tenurehq/tenure/auth"
)

// TokenInfo is the agent behind a request: its API token's name, the one
// scope the token may read and write, and its role (writer or reader). ID
// is the token's id, which idempotency keys belong to.
type TokenInfo struct {
	ID    int64
	Name  string
	Scope string
	Role  string
}

// Reader reports whether the token may only read.
func (t TokenInfo) Reader() bool { return t.Role != auth.TokenWriter }

// TokenAuth resolves a bearer token to the agent it belongs to. A token that
// is unknown, revoked or expired gets an error that matches
// *InvalidTokenError (the caller answers 401); any other error is a failure
// of the lookup itself (500).
type TokenAuth interface {
	Authenticate(ctx context.Context, bearer string) (TokenInfo, error)
}

// InvalidTokenError is the error of a bearer token that opens nothing.
type InvalidTokenError struct {
	Reason string
}

func (e *InvalidTokenError) Error() string { return "invalid bearer token: " + e.Reason }

// Unwrap lets the MCP SDK's middleware recognise the error as its own
// ErrInvalidToken.
func (e *InvalidTokenError) Unwrap() error { return sdkauth.ErrInvalidToken }

// NewTokenAuth returns the TokenAuth over tokens (auth.Tokens.Authenticate):
// tokens are looked up by their SHA-256, must be live (not revoked, not
// expired at the tokens' clock), and their last_used_at is kept to the
// minute.
func NewTokenAuth(tokens *auth.Tokens) TokenAuth {
	return &tokenAuth{tokens: tokens}
}

type tokenAuth struct {
	tokens *auth.Tokens
}

func (a *tokenAuth) Authenticate(ctx context.Context, bearer string) (TokenInfo, error) {
	bearer = strings.TrimSpace(bearer)
	if bearer == "" {
		return TokenInfo{}, &InvalidTokenError{Reason: "the token is empty"}
	}
	tok, err := a.tokens.Authenticate(ctx, bearer)
	if errors.Is(err, auth.ErrUnknownAPIToken) {
		return TokenInfo{}, &InvalidTokenError{Reason: "unknown, revoked or expired token"}
	}
	if err != nil {
		return TokenInfo{}, fmt.Errorf("mcpserver: %w", err)
	}
	return TokenInfo{ID: tok.ID, Name: tok.Name, Scope: tok.Scope, Role: tok.Role}, nil
}
