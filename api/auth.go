package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

const tokenKey = "api.token"

// callerToken is the token a request was authenticated with.
func callerToken(c echo.Context) auth.Token {
	t, _ := c.Get(tokenKey).(auth.Token)
	return t
}

// actor is who the audit log records for the request: the token's name.
func actor(c echo.Context) memory.Actor { return memory.Token(callerToken(c).Name) }

// unauthorized refuses a request without a usable token; invalid says the
// token was sent but is not one (RFC 6750 error="invalid_token").
func unauthorized(c echo.Context, invalid bool, msg string) error {
	challenge := `Bearer realm="tenure"`
	if invalid {
		challenge += `, error="invalid_token"`
	}
	c.Response().Header().Set(echo.HeaderWWWAuthenticate, challenge)
	return echo.NewHTTPError(http.StatusUnauthorized, msg)
}

// readOnly tells the requests a reader token may make: every GET, HEAD
// and OPTIONS, and an extraction, which writes only with store (its handler
// refuses that to a reader), as over MCP.
func readOnly(c echo.Context) bool {
	switch c.Request().Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return c.Path() == "/api/v1/scopes/:scope/extract"
}

// errReaderWrites refuses a write to a reader token.
func errReaderWrites(tok auth.Token) error {
	return &memory.Error{Code: memory.CodeForbidden, Message: "this token is a " + tok.Role +
		" token: it may only read; writing needs a writer token"}
}

// authenticate lets through requests with a live bearer token. A token only
// reaches its own scope: a :scope path parameter must equal the token's
// scope (routes without one, consolidation, are open to every token). A
// reader token may only read.
func (h *handlers) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		header := c.Request().Header.Get(echo.HeaderAuthorization)
		if strings.TrimSpace(header) == "" {
			return unauthorized(c, false, "missing bearer token: send the header Authorization: Bearer <token>")
		}
		scheme, secret, _ := strings.Cut(strings.TrimSpace(header), " ")
		secret = strings.TrimSpace(secret)
		if !strings.EqualFold(scheme, "Bearer") || secret == "" {
			return unauthorized(c, false, "the Authorization header must read Bearer <token>")
		}
		tok, err := h.tokens.Authenticate(c.Request().Context(), secret)
		if errors.Is(err, auth.ErrUnknownAPIToken) {
			return unauthorized(c, true, "the token is unknown, revoked or expired: ask an admin for a new one")
		}
		if err != nil {
			return err
		}
		c.Set(tokenKey, tok)
		if scope := c.Param("scope"); scope != "" && scope != tok.Scope {
			return &memory.Error{Code: memory.CodeForbidden, Message: "this token may only reach scope " + tok.Scope}
		}
		if tok.Role != auth.TokenWriter && !readOnly(c) {
			return errReaderWrites(tok)
		}
		return next(c)
	}
}
