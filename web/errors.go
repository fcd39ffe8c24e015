package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

// unavailableMessage is the console's answer while the database cannot be
// reached or does not answer in time.
const unavailableMessage = "The database is unreachable or not answering: Tenure cannot show or save anything until it is back. " +
	"Try again in a few seconds."

// statusOf maps an error to its HTTP status and the message safe to show.
func statusOf(err error) (int, string) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return he.Code, fmt.Sprint(he.Message)
	}
	var me *memory.Error
	if errors.As(err, &me) {
		switch me.Code {
		case memory.CodeInvalid:
			return http.StatusBadRequest, me.Error()
		case memory.CodeNotFound:
			return http.StatusNotFound, me.Error()
		case memory.CodeConflict, memory.CodeDecisionLocked:
			return http.StatusConflict, me.Error()
		case memory.CodeForbidden:
			return http.StatusForbidden, me.Error()
		}
	}
	if api.IsUnavailable(err) {
		return http.StatusServiceUnavailable, unavailableMessage
	}
	return http.StatusInternalServerError, "Something went wrong on our side; the error has been logged."
}

// handleError is the one place where a handler's error becomes a response:
// it logs 5xx at Error (4xx are logged by the request logger at Warn) and
// answers with JSON for API and health routes, an error page otherwise.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := statusOf(err)
	if status >= 500 {
		s.logger.Error("http.error", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
	if status == http.StatusServiceUnavailable && api.IsUnavailable(err) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(api.RetryAfterSeconds))
	}
	path := c.Request().URL.Path
	var werr error
	switch {
	case c.Request().Method == http.MethodHead:
		werr = c.NoContent(status)
	case strings.HasPrefix(path, "/api/"):
		werr = api.WriteError(c, err)
	case path == "/healthz" || path == "/readyz":
		werr = c.JSON(status, map[string]any{"error": map[string]string{
			"code": strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_"), "message": msg}})
	default:
		werr = s.page(c, status, http.StatusText(status), "",
			pages.Error(pages.ErrorPage{Status: status, Title: http.StatusText(status), Message: msg}), nil)
	}
	if werr != nil {
		s.logger.Error("http.error_response", "err", werr)
	}
}
