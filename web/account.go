package web

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/components"
	"github.com/tenurehq/tenure/views/pages"
)

// resetCSRFCookie carries the double-submit token of the password reset
// form, which, like the sign-in form, has no session to hold one.
const resetCSRFCookie = "tenure_reset_csrf"

// accountShow is the signed-in person's own account, with the form that
// changes their password.
func (s *Console) accountShow(c echo.Context) error {
	return s.renderAccount(c, http.StatusOK, nil)
}

// renderAccount renders the account page with errs beside the password
// form's fields.
func (s *Console) renderAccount(c echo.Context, status int, errs map[string]string) error {
	sess := currentSession(c)
	u, err := s.userAdmin().UserByEmail(c.Request().Context(), sess.Email)
	if err != nil {
		return err
	}
	p := pages.AccountPage{Email: u.Email, Name: u.Name, Role: string(u.Role), CreatedAt: u.CreatedAt,
		LastLoginAt: u.LastLoginAt, Now: s.now(), Errors: errs}
	return s.page(c, status, "Your account", "account", pages.Account(p), nil)
}

// accountFields names the fields of the password form, as its errors say
// them.
var accountFields = map[string]string{
	"current": "the current password", "password": "the new password", "confirm": "the repeated password",
}

// accountPassword changes the signed-in person's password: the current one
// is checked (wrong ones count against the sign-in throttle of the account
// and the address, as failed sign-ins do), the new one follows the rules of
// a new user's; the person's other sessions end, this one stays. A refusal
// comes back as the form with the error beside its field.
func (s *Console) accountPassword(c echo.Context) error {
	sess := currentSession(c)
	if err := checkForm(c); err != nil {
		field, msg := refusedText(err, accountFields)
		if field == "" {
			return s.renderAccount(c, http.StatusUnprocessableEntity, map[string]string{"": "The password was not changed: " + msg + "."})
		}
		return s.renderAccount(c, http.StatusUnprocessableEntity, map[string]string{field: msg})
	}
	ip := c.RealIP()
	done, wait := s.throttle.begin(sess.Email, ip)
	if done == nil {
		s.logger.Warn("account.password_throttled", "email", sess.Email, "remote_ip", ip, "retry_after_s", retryAfterSeconds(wait))
		c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
		return s.renderAccount(c, http.StatusTooManyRequests, map[string]string{"": throttledMessage(wait)})
	}
	cookie, err := c.Cookie(sessionCookie)
	if err != nil {
		done(loginAborted)
		return echo.NewHTTPError(http.StatusUnauthorized, "Your session has ended: sign in again.")
	}
	ended, err := s.userAdmin().ChangePassword(c.Request().Context(), *sess, cookie.Value, auth.PasswordChange{
		Current: c.FormValue("current"), New: c.FormValue("password"), Confirm: c.FormValue("confirm")})
	if auth.IsWrongPassword(err) {
		done(loginFailed)
		s.logger.Warn("account.password_wrong", "email", sess.Email, "remote_ip", ip)
	} else if err != nil {
		done(loginAborted)
	} else {
		done(loginSucceeded)
	}
	var me *memory.Error
	if errors.As(err, &me) {
		field := me.Field
		if _, ok := accountFields[field]; !ok {
			field = ""
		}
		msg := me.Message
		if field == "" {
			msg = "The password was not changed: " + msg + "."
		}
		return s.renderAccount(c, usersAdminStatus(me), map[string]string{field: msg})
	}
	if err != nil {
		if c.Request().Context().Err() != nil {
			return echo.NewHTTPError(http.StatusServiceUnavailable, "The server is busy: try again.")
		}
		return err
	}
	s.logger.Info("account.password_changed", "email", sess.Email, "remote_ip", ip, "other_sessions_ended", ended)
	msg := "Your password is changed."
	switch ended {
	case 0:
	case 1:
		msg += " Your 1 other session was signed out."
	default:
		msg += " Your " + strconv.Itoa(ended) + " other sessions were signed out."
	}
	return s.redirectWithFlash(c, "/account", "ok", msg)
}

// userResetPassword makes a one-time password reset link for a user and
// shows it this once, on the page it answers with (200, not a redirect:
// the link must not travel in a cookie, and a reload must not show it
// again).
func (s *Console) userResetPassword(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	reset, err := s.userAdmin().IssuePasswordReset(c.Request().Context(), *currentSession(c), id)
	var ae *memory.Error
	if errors.As(err, &ae) {
		if ae.Code == memory.CodeNotFound {
			return echo.NewHTTPError(http.StatusNotFound, ae.Message)
		}
		return s.renderUsers(c, usersAdminStatus(ae), pages.UsersForm{Role: string(auth.RoleViewer)}, id, ae)
	}
	if err != nil {
		return err
	}
	s.logger.Info("users.reset_link_issued", "email", reset.User.Email, "by", currentSession(c).Email)
	return s.page(c, http.StatusOK, "Password reset link", "users", pages.ResetLink(pages.ResetLinkPage{
		UserID: reset.User.ID, Email: reset.User.Email, Link: auth.PasswordResetURL(s.baseURL(c), reset.Token),
		ExpiresAt: reset.ExpiresAt, Lifetime: lifetime(auth.PasswordResetTTL),
	}), nil)
}

// lifetime says a duration of whole hours, such as "24 hours".
func lifetime(d time.Duration) string {
	if h := int(d.Hours()); h != 1 {
		return strconv.Itoa(h) + " hours"
	}
	return "1 hour"
}

// baseURL is the address people open the console at: the configured
// public URL, or else the scheme and host this request came with.
func (s *Console) baseURL(c echo.Context) string {
	if s.publicURL != "" {
		return strings.TrimRight(s.publicURL, "/")
	}
	return c.Scheme() + "://" + c.Request().Host
}

// resetClosed is the message of a password reset link that no longer works.
const resetClosed = "This password reset link is unknown, already used or expired. Ask an admin for a new one."

// resetShow is the page a password reset link opens: the form that sets a
// new password, or a page saying the link no longer works (404).
func (s *Console) resetShow(c echo.Context) error {
	noStore(c)
	token := c.QueryParam("token")
	if memory.CheckText("token", token) != nil {
		return s.renderReset(c, http.StatusNotFound, pages.ResetPage{Closed: true, Message: resetClosed})
	}
	u, expires, err := s.userAdmin().PasswordResetFor(c.Request().Context(), token)
	if errors.Is(err, auth.ErrResetLink) {
		return s.renderReset(c, http.StatusNotFound, pages.ResetPage{Closed: true, Message: resetClosed})
	}
	if err != nil {
		return err
	}
	if u.DisabledAt != nil {
		return s.renderReset(c, http.StatusForbidden, pages.ResetPage{Closed: true,
			Message: "The account " + u.Email + " is disabled: ask an admin to enable it."})
	}
	return s.renderReset(c, http.StatusOK, pages.ResetPage{Token: token, Email: u.Email, ExpiresAt: expires})
}

// resetSubmit sets the new password with the link's token, then sends the
// person to sign in. A refused password comes back as the form (the link
// still works); a link that no longer works, as the page saying so.
func (s *Console) resetSubmit(c echo.Context) error {
	noStore(c)
	token := c.FormValue("token")
	// Someone signed in in this browser posts the session's CSRF token,
	// which checkCSRF has checked; anyone else, the form's double-submit
	// token.
	cookie, err := c.Cookie(resetCSRFCookie)
	csrfOK := currentSession(c) != nil ||
		err == nil && cookie.Value != "" && subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(c.FormValue("_csrf"))) == 1
	if err := checkForm(c); err != nil {
		if memory.CheckText("token", token) != nil {
			return s.renderReset(c, http.StatusNotFound, pages.ResetPage{Closed: true, Message: resetClosed})
		}
		field, msg := refusedText(err, map[string]string{"password": "the password", "confirm": "the repeated password"})
		return s.renderResetForm(c, http.StatusBadRequest, token, map[string]string{field: msg})
	}
	if !csrfOK {
		return s.renderResetForm(c, http.StatusForbidden, token, map[string]string{"": "The form expired: please type the new password again."})
	}
	u, err := s.userAdmin().UsePasswordReset(c.Request().Context(), token, c.FormValue("password"), c.FormValue("confirm"), c.RealIP())
	if errors.Is(err, auth.ErrResetLink) {
		return s.renderReset(c, http.StatusNotFound, pages.ResetPage{Closed: true, Message: resetClosed})
	}
	if me := memory.AsError(err); me != nil {
		if me.Field == "token" {
			return s.renderReset(c, http.StatusForbidden, pages.ResetPage{Closed: true, Message: me.Message + "."})
		}
		field := me.Field
		if field != "password" && field != "confirm" {
			field = ""
		}
		return s.renderResetForm(c, http.StatusUnprocessableEntity, token, map[string]string{field: me.Message})
	}
	if err != nil {
		if c.Request().Context().Err() != nil {
			return echo.NewHTTPError(http.StatusServiceUnavailable, "The server is busy: try again.")
		}
		return err
	}
	s.logger.Info("password_reset.used", "email", u.Email, "remote_ip", c.RealIP())
	s.setCookie(c, resetCSRFCookie, "", -1)
	// Whoever was signed in in this browser was signed out by the reset if
	// it was this user; the flash goes with the sign-in page either way.
	return s.redirectWithFlash(c, "/login", "ok", "The new password of "+u.Email+" is set: sign in with it. Every earlier session was signed out.")
}

// renderResetForm renders the reset form for token again with errs, or the
// page saying the link no longer works.
func (s *Console) renderResetForm(c echo.Context, status int, token string, errs map[string]string) error {
	u, expires, err := s.userAdmin().PasswordResetFor(c.Request().Context(), token)
	if errors.Is(err, auth.ErrResetLink) {
		return s.renderReset(c, http.StatusNotFound, pages.ResetPage{Closed: true, Message: resetClosed})
	}
	if err != nil {
		return err
	}
	return s.renderReset(c, status, pages.ResetPage{Token: token, Email: u.Email, ExpiresAt: expires, Errors: errs})
}

// renderReset renders the password reset page with a fresh double-submit
// token, or, for someone signed in in this browser, their session's CSRF
// token (which checkCSRF asks of every form they post).
func (s *Console) renderReset(c echo.Context, status int, p pages.ResetPage) error {
	if currentSession(c) == nil {
		token, err := auth.RandomSecret(24)
		if err != nil {
			return err
		}
		s.setCookie(c, resetCSRFCookie, token, 3600)
		req := c.Request()
		c.SetRequest(req.WithContext(components.WithCSRF(req.Context(), token)))
	}
	return s.page(c, status, "Set a new password", "login", pages.Reset(p), nil)
}
