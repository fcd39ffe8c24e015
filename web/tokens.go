package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

// tokenList lists the API tokens, with a form for a new one.
func (s *Console) tokenList(c echo.Context) error {
	return s.renderTokens(c, http.StatusOK, pages.TokensPage{Form: pages.TokensForm{Role: auth.TokenWriter}})
}

// renderTokens fills view with the tokens and scopes and renders it.
func (s *Console) renderTokens(c echo.Context, status int, view pages.TokensPage) error {
	ctx := c.Request().Context()
	tokens, err := s.userAdmin().ListTokens(ctx)
	if err != nil {
		return err
	}
	if view.Scopes, err = s.store.Scopes(ctx); err != nil {
		return err
	}
	if view.Now.IsZero() {
		view.Now = s.now()
	}
	for _, t := range tokens {
		view.Tokens = append(view.Tokens, pages.TokensRow{
			ID: t.ID, Name: t.Name, Scope: t.Scope, Role: t.Role, Prefix: t.Prefix, CreatedBy: t.CreatedBy,
			CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt,
		})
	}
	return s.page(c, status, "API tokens", "tokens", pages.Tokens(view), nil)
}

// tokensFields names the fields of the new-token form, as its errors say them.
var tokensFields = map[string]string{"name": "the name", "scope": "the scope", "role": "the role", "expires_days": "the expiry"}

// tokenCreate creates an API token and shows it this once, on the page it
// answers with (201, not a redirect: the token must not travel in a cookie
// or a URL, and a reload must not show it again). Refused input, text the
// database cannot take included, comes back as the form with the error
// beside the field (422).
func (s *Console) tokenCreate(c echo.Context) error {
	form := pages.TokensForm{
		Name: strings.TrimSpace(c.FormValue("name")), Scope: strings.TrimSpace(c.FormValue("scope")),
		Role: c.FormValue("role"), ExpiresDays: strings.TrimSpace(c.FormValue("expires_days")),
		Errors: map[string]string{},
	}
	if err := checkForm(c); err != nil {
		form.Name, form.Scope, form.Role, form.ExpiresDays =
			shownText(form.Name), shownText(form.Scope), shownText(form.Role), shownText(form.ExpiresDays)
		var view pages.TokensPage
		if field, msg := refusedText(err, tokensFields); field != "" {
			form.Errors[field] = msg
		} else {
			view.Error = "The token was not created: " + msg + "."
		}
		view.Form = form
		return s.renderTokens(c, http.StatusUnprocessableEntity, view)
	}
	in := auth.NewToken{Name: form.Name, Scope: form.Scope, Role: form.Role}
	if form.ExpiresDays != "" {
		days, err := strconv.Atoi(form.ExpiresDays)
		if err != nil {
			form.Errors["expires_days"] = "expiry " + usersQuote(form.ExpiresDays) +
				" is not a whole number of days: give 1 to " + strconv.Itoa(auth.MaxTokenExpiryDays) + ", or leave it empty"
			return s.renderTokens(c, http.StatusUnprocessableEntity, pages.TokensPage{Form: form})
		}
		if days <= 0 {
			form.Errors["expires_days"] = "expiry must be at least 1 day; leave it empty for a token that never expires"
			return s.renderTokens(c, http.StatusUnprocessableEntity, pages.TokensPage{Form: form})
		}
		in.ExpiresInDays = days
	}
	token, t, err := s.userAdmin().CreateToken(c.Request().Context(), *currentSession(c), in)
	var ae *memory.Error
	if errors.As(err, &ae) {
		form.Errors[ae.Field] = ae.Message
		return s.renderTokens(c, usersAdminStatus(ae), pages.TokensPage{Form: form})
	}
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return s.renderTokens(c, http.StatusCreated, pages.TokensPage{
		// Seen from the instant of creation, the new token expires in
		// exactly the days asked for.
		Now:      t.CreatedAt,
		Form:     pages.TokensForm{Role: auth.TokenWriter},
		NewToken: token, NewTokenName: t.Name, NewTokenScope: t.Scope,
	})
}

// tokenRevoke revokes an API token at once; revoking it again is a 409.
func (s *Console) tokenRevoke(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := checkForm(c); err != nil {
		_, msg := refusedText(err, nil)
		return s.renderTokens(c, http.StatusUnprocessableEntity, pages.TokensPage{
			Form: pages.TokensForm{Role: auth.TokenWriter}, Error: "Nothing was revoked: " + msg + "."})
	}
	t, err := s.userAdmin().RevokeToken(c.Request().Context(), *currentSession(c), id)
	var ae *memory.Error
	if errors.As(err, &ae) {
		if ae.Code == memory.CodeNotFound {
			return echo.NewHTTPError(http.StatusNotFound, ae.Message)
		}
		return s.renderTokens(c, usersAdminStatus(ae), pages.TokensPage{
			Form: pages.TokensForm{Role: auth.TokenWriter}, Error: ae.Message})
	}
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/tokens", "ok", "Token \""+t.Name+"\" ("+t.Scope+") revoked: agents using it are refused from now on.")
}
