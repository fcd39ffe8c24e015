package web

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/views/components"
	"github.com/tenurehq/tenure/views/pages"
)

const (
	sessionCookie = "tenure_session"
	// loginCSRFCookie carries the double-submit token of the sign-in form,
	// which has no session yet to hold one.
	loginCSRFCookie = "tenure_login_csrf"
	sessionKey      = "session"
)

// currentSession returns the signed-in person, or nil.
func currentSession(c echo.Context) *auth.Session {
	s, _ := c.Get(sessionKey).(*auth.Session)
	return s
}

func secureRequest(c echo.Context) bool {
	return c.Request().TLS != nil || strings.EqualFold(c.Request().Header.Get("X-Forwarded-Proto"), "https")
}

func (s *Server) setCookie(c echo.Context, name, value string, maxAge int) {
	c.SetCookie(&http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: secureRequest(c), SameSite: http.SameSiteLaxMode,
	})
}

// loadSession puts the signed-in person, if any, into the request, and their
// CSRF token into the rendering context.
func (s *Server) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !consolePath(c.Request().URL.Path) {
			return next(c)
		}
		cookie, err := c.Cookie(sessionCookie)
		if err == nil && cookie.Value != "" {
			sess, err := s.sessions.Lookup(c.Request().Context(), cookie.Value)
			switch {
			case err == nil:
				c.Set(sessionKey, &sess)
				req := c.Request()
				c.SetRequest(req.WithContext(components.WithCSRF(req.Context(), sess.CSRF)))
			case errors.Is(err, auth.ErrNoSession):
				s.setCookie(c, sessionCookie, "", -1)
			default:
				return err
			}
		}
		return next(c)
	}
}

// require lets through people whose role allows need. Others are sent to sign
// in (or told, for htmx), or refused with 403.
func (s *Server) require(need auth.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			sess := currentSession(c)
			if sess == nil {
				target := "/login?next=" + url.QueryEscape(c.Request().URL.RequestURI())
				if isHTMX(c) {
					c.Response().Header().Set("HX-Redirect", target)
					return c.NoContent(http.StatusUnauthorized)
				}
				if c.Request().Method != http.MethodGet {
					return echo.NewHTTPError(http.StatusUnauthorized, "Your session has ended: sign in again.")
				}
				return c.Redirect(http.StatusSeeOther, target)
			}
			if !sess.Role.Allows(need) {
				return echo.NewHTTPError(http.StatusForbidden,
					"This needs the "+string(need)+" role; you are signed in as "+string(sess.Role)+".")
			}
			return next(c)
		}
	}
}

// checkCSRF refuses a state-changing request that does not carry the
// session's CSRF token, as the _csrf form field or the X-CSRF-Token header.
func (s *Server) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !consolePath(c.Request().URL.Path) {
			return next(c)
		}
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		sess := currentSession(c)
		if sess == nil {
			return next(c) // require answers for the missing session
		}
		got := c.Request().Header.Get("X-CSRF-Token")
		if got == "" {
			got = c.FormValue("_csrf")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) != 1 {
			return echo.NewHTTPError(http.StatusForbidden,
				"The form's security token is missing or out of date: reload the page and try again.")
		}
		return next(c)
	}
}

// consolePath reports whether path belongs to the console, which uses
// sessions, rather than to assets, health checks, metrics or the API.
func consolePath(path string) bool {
	for _, prefix := range []string{"/static/", "/api/", "/mcp", "/healthz", "/readyz", "/metrics"} {
		if strings.HasPrefix(path, prefix) {
			return false
		}
	}
	return true
}

// safeNext keeps redirects after sign-in on this site.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

func (s *Server) loginShow(c echo.Context) error {
	if currentSession(c) != nil {
		return c.Redirect(http.StatusSeeOther, safeNext(c.QueryParam("next")))
	}
	return s.renderLogin(c, http.StatusOK, pages.LoginPage{Next: c.QueryParam("next")})
}

// renderLogin renders the sign-in form with a fresh double-submit token.
func (s *Server) renderLogin(c echo.Context, status int, p pages.LoginPage) error {
	token, err := auth.RandomSecret(24)
	if err != nil {
		return err
	}
	s.setCookie(c, loginCSRFCookie, token, 3600)
	req := c.Request()
	c.SetRequest(req.WithContext(components.WithCSRF(req.Context(), token)))
	return s.page(c, status, "Sign in", "login", pages.Login(p), nil)
}

func (s *Server) loginSubmit(c echo.Context) error {
	p := pages.LoginPage{Email: strings.TrimSpace(c.FormValue("email")), Next: c.FormValue("next")}
	cookie, err := c.Cookie(loginCSRFCookie)
	if err != nil || cookie.Value == "" || subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(c.FormValue("_csrf"))) != 1 {
		p.Error = "The sign-in form expired: please try again."
		return s.renderLogin(c, http.StatusForbidden, p)
	}
	token, _, err := s.sessions.Login(c.Request().Context(), p.Email, c.FormValue("password"),
		c.Request().UserAgent(), c.RealIP())
	if errors.Is(err, auth.ErrBadCredentials) {
		s.logger.Warn("login.failed", "email", p.Email, "remote_ip", c.RealIP())
		p.Error = "The email or password is wrong."
		return s.renderLogin(c, http.StatusUnauthorized, p)
	}
	if err != nil {
		return err
	}
	s.setCookie(c, loginCSRFCookie, "", -1)
	s.setCookie(c, sessionCookie, token, int(auth.SessionTTL.Seconds()))
	s.logger.Info("login", "email", p.Email)
	return c.Redirect(http.StatusSeeOther, safeNext(p.Next))
}

func (s *Server) logout(c echo.Context) error {
	if cookie, err := c.Cookie(sessionCookie); err == nil {
		if err := s.sessions.Logout(c.Request().Context(), cookie.Value); err != nil {
			return err
		}
	}
	s.setCookie(c, sessionCookie, "", -1)
	return c.Redirect(http.StatusSeeOther, "/login")
}
