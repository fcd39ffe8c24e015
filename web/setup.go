package web

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/components"
	"github.com/tenurehq/tenure/views/pages"
)

// setupCSRFCookie carries the double-submit token of the setup form, which,
// like the sign-in form, has no session to hold one.
const setupCSRFCookie = "tenure_setup_csrf"

// setupShow is the first-run page behind the link tenure serve prints while
// no account exists: the form that creates the first admin, or, once any
// account exists, a page saying setup is closed.
func (s *Console) setupShow(c echo.Context) error {
	noStore(c)
	pending, err := auth.SetupPending(c.Request().Context(), s.pool)
	if err != nil {
		return err
	}
	if !pending {
		return s.renderSetup(c, http.StatusNotFound, pages.SetupPage{Closed: true})
	}
	return s.renderSetup(c, http.StatusOK, pages.SetupPage{Token: c.QueryParam("token")})
}

// setupSubmit creates the first admin with the link's token, then sends the
// person to sign in.
func (s *Console) setupSubmit(c echo.Context) error {
	noStore(c)
	p := pages.SetupPage{Token: c.FormValue("token"), Email: strings.TrimSpace(c.FormValue("email")),
		Name: strings.TrimSpace(c.FormValue("name"))}
	cookie, err := c.Cookie(setupCSRFCookie)
	if err != nil || cookie.Value == "" || subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(c.FormValue("_csrf"))) != 1 {
		p.Errors = map[string]string{"": "The setup form expired: please try again."}
		return s.renderSetup(c, http.StatusForbidden, p)
	}
	if err := checkForm(c); err != nil {
		p.Email, p.Name = shownText(p.Email), shownText(p.Name)
		field, msg := refusedText(err, nil)
		p.Errors = map[string]string{field: msg}
		return s.renderSetup(c, http.StatusBadRequest, p)
	}
	u, err := auth.CompleteSetup(c.Request().Context(), s.pool, p.Token, auth.NewUser{
		Email: p.Email, Name: p.Name, Password: c.FormValue("password"), Confirm: c.FormValue("confirm")}, s.now())
	if err != nil {
		me := memory.AsError(err)
		if me == nil {
			return err
		}
		if errors.Is(err, auth.ErrSetupClosed) {
			return s.renderSetup(c, http.StatusNotFound, pages.SetupPage{Closed: true})
		}
		status := http.StatusUnprocessableEntity
		if me.Code == memory.CodeForbidden {
			status = http.StatusForbidden
		}
		p.Errors = map[string]string{me.Field: me.Message}
		return s.renderSetup(c, status, p)
	}
	s.logger.Info("setup.admin_created", "email", u.Email, "remote_ip", c.RealIP())
	s.setCookie(c, setupCSRFCookie, "", -1)
	return s.redirectWithFlash(c, "/login", "ok", "The admin "+u.Email+" exists: sign in with the password you chose. Setup is now closed.")
}

// renderSetup renders the setup page with a fresh double-submit token.
func (s *Console) renderSetup(c echo.Context, status int, p pages.SetupPage) error {
	token, err := auth.RandomSecret(24)
	if err != nil {
		return err
	}
	s.setCookie(c, setupCSRFCookie, token, 3600)
	req := c.Request()
	c.SetRequest(req.WithContext(components.WithCSRF(req.Context(), token)))
	return s.page(c, status, "Set up Tenure", "login", pages.Setup(p), nil)
}
