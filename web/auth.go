package web

import (
	"cmp"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/components"
	"github.com/tenurehq/tenure/views/pages"
)

const (
	// SessionCookie is the name of the cookie that carries a console
	// session; the server keys its read-your-writes record by it.
	SessionCookie = "tenure_session"
	sessionCookie = SessionCookie
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

// secureCookies reports whether cookies set on this response are Secure: the
// configured public URL is https, or the request itself came over TLS. No
// request header decides it, since any client can send one.
func (s *Console) secureCookies(c echo.Context) bool {
	return s.publicHTTPS || c.Request().TLS != nil
}

func (s *Console) setCookie(c echo.Context, name, value string, maxAge int) {
	c.SetCookie(&http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: s.secureCookies(c), SameSite: http.SameSiteLaxMode,
	})
}

// noStore keeps a response out of every cache: pages of a signed-in person
// and the sign-in exchange.
func noStore(c echo.Context) {
	c.Response().Header().Set("Cache-Control", "no-store")
}

// loadSession puts the signed-in person, if any, into the request, and their
// CSRF token into the rendering context.
func (s *Console) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		path := c.Request().URL.Path
		if !consolePath(path) {
			return next(c)
		}
		if path == "/login" || path == "/logout" || path == "/setup" || path == auth.PasswordResetPath {
			noStore(c)
		}
		cookie, err := c.Cookie(sessionCookie)
		if err == nil && cookie.Value != "" {
			sess, err := s.sessions.Lookup(c.Request().Context(), cookie.Value)
			switch {
			case err == nil:
				noStore(c)
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
func (s *Console) require(need auth.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			sess := currentSession(c)
			if sess == nil {
				target := "/login?next=" + url.QueryEscape(c.Request().URL.RequestURI())
				if isHTMX(c) {
					c.Response().Header().Set("HX-Redirect", target)
					return c.NoContent(http.StatusUnauthorized)
				}
				if m := c.Request().Method; m != http.MethodGet && m != http.MethodHead {
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
func (s *Console) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
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

func (s *Console) loginShow(c echo.Context) error {
	next := localReturnPath(c.QueryParam("next"), "")
	if currentSession(c) != nil {
		return c.Redirect(http.StatusSeeOther, cmp.Or(next, "/"))
	}
	return s.renderLogin(c, http.StatusOK, pages.LoginPage{Next: next})
}

// renderLogin renders the sign-in form with a fresh double-submit token,
// saying so while no account exists yet.
func (s *Console) renderLogin(c echo.Context, status int, p pages.LoginPage) error {
	pending, err := auth.SetupPending(c.Request().Context(), s.pool)
	if err != nil {
		return err
	}
	p.SetupPending = pending
	token, err := auth.RandomSecret(24)
	if err != nil {
		return err
	}
	s.setCookie(c, loginCSRFCookie, token, 3600)
	req := c.Request()
	c.SetRequest(req.WithContext(components.WithCSRF(req.Context(), token)))
	return s.page(c, status, "Sign in", "login", pages.Login(p), nil)
}

// loginSubmit checks the sign-in form. Failed sign-ins are throttled per
// account and per client address (throttle.go): past the limit the form
// comes back 429 with Retry-After, and no password is checked.
func (s *Console) loginSubmit(c echo.Context) error {
	p := pages.LoginPage{Email: strings.TrimSpace(c.FormValue("email")), Next: localReturnPath(c.FormValue("next"), "")}
	cookie, err := c.Cookie(loginCSRFCookie)
	if err != nil || cookie.Value == "" || subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(c.FormValue("_csrf"))) != 1 {
		p.Error = "The sign-in form expired: please try again."
		return s.renderLogin(c, http.StatusForbidden, p)
	}
	// Text the database cannot take is refused before anything reaches it
	// (and before the throttle: no password is checked).
	if err := checkForm(c); err != nil {
		p.Email = shownText(p.Email)
		if memory.CheckText("next", p.Next) != nil {
			p.Next = ""
		}
		p.Error = loginRefusal(err)
		field := ""
		if me := (*memory.Error)(nil); errors.As(err, &me) {
			field = me.Field
		}
		s.logger.Warn("login.refused", "field", field, "remote_ip", c.RealIP())
		return s.renderLogin(c, http.StatusBadRequest, p)
	}
	ip := c.RealIP()
	done, wait := s.throttle.begin(p.Email, ip)
	if done == nil {
		s.logger.Warn("login.throttled", "email", p.Email, "remote_ip", ip, "retry_after_s", retryAfterSeconds(wait))
		c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
		p.Error = throttledMessage(wait)
		return s.renderLogin(c, http.StatusTooManyRequests, p)
	}
	token, _, err := s.sessions.Login(c.Request().Context(), p.Email, c.FormValue("password"),
		sessionUserAgent(c.Request().UserAgent()), ip)
	// Sessions.Login audits the sign-in (auth.signin), and a refused one
	// (auth.signin_failed, with the email tried); a throttled one, above,
	// checks no password and is only logged.
	if errors.Is(err, auth.ErrBadCredentials) {
		done(loginFailed)
		s.logger.Warn("login.failed", "email", p.Email, "remote_ip", ip)
		p.Error = "The email or password is wrong."
		return s.renderLogin(c, http.StatusUnauthorized, p)
	}
	if err != nil {
		done(loginAborted)
		if c.Request().Context().Err() != nil {
			// The client left while waiting for a hashing slot.
			return echo.NewHTTPError(http.StatusServiceUnavailable, "The server is busy: try signing in again.")
		}
		return err
	}
	done(loginSucceeded)
	s.setCookie(c, loginCSRFCookie, "", -1)
	// The server ends the session after SessionTTL unused or SessionMaxAge in
	// all; the cookie lasts as long as the longest a session can.
	s.setCookie(c, sessionCookie, token, int(auth.SessionMaxAge.Seconds()))
	s.logger.Info("login", "email", p.Email, "remote_ip", ip)
	return c.Redirect(http.StatusSeeOther, cmp.Or(p.Next, "/"))
}

// loginRefusal says why a sign-in form holding text that cannot be used
// (bytes that are not UTF-8, a NUL or another control character) was
// refused, without showing the password.
func loginRefusal(err error) string {
	field, msg := refusedText(err, map[string]string{"email": "The email", "password": "The password"})
	switch field {
	case "email", "password":
		return msg + ". Type it again, without pasting hidden characters."
	}
	return "The sign-in form holds text that cannot be used (" + msg + "): reload the page and sign in again."
}

// maxUserAgent is the most of a browser's User-Agent kept with its session,
// in bytes.
const maxUserAgent = 300

// sessionUserAgent is the User-Agent header as the session keeps it, to tell
// sessions apart: any client can send anything there, so bytes that are not
// UTF-8 become U+FFFD, control characters are dropped, and it is cut to
// maxUserAgent bytes on a character boundary. A header the database could not
// store never refuses a sign-in.
func sessionUserAgent(ua string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(ua, "\uFFFD") {
		if unicode.IsControl(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > maxUserAgent {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// logout ends the session, audited (auth.signout), and sends the browser to
// sign in.
func (s *Console) logout(c echo.Context) error {
	if cookie, err := c.Cookie(sessionCookie); err == nil {
		if err := s.sessions.SignOut(c.Request().Context(), cookie.Value, c.RealIP()); err != nil {
			return err
		}
	}
	s.setCookie(c, sessionCookie, "", -1)
	return c.Redirect(http.StatusSeeOther, "/login")
}
