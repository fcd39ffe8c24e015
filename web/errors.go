package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

// unavailableMessage is the console's answer while the database cannot be
// reached or does not answer in time.
const unavailableMessage = "The database is unreachable or not answering: Tenure cannot show or save anything until it is back. " +
	"Try again in a few seconds."

// codeStatus is the HTTP status of each domain error code: the one table
// where the engine's refusals become console answers (a form that can show
// an error beside its field answers it there first).
var codeStatus = map[memory.Code]int{
	memory.CodeInvalid:        http.StatusBadRequest,
	memory.CodeNotFound:       http.StatusNotFound,
	memory.CodeConflict:       http.StatusConflict,
	memory.CodeDecisionLocked: http.StatusConflict,
	memory.CodeBusy:           http.StatusConflict,
	memory.CodeForbidden:      http.StatusForbidden,
}

// statusOf maps an error to its HTTP status and the message safe to show.
func statusOf(err error) (int, string) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return he.Code, fmt.Sprint(he.Message)
	}
	var me *memory.Error
	if errors.As(err, &me) {
		if status, ok := codeStatus[me.Code]; ok {
			return status, me.Error()
		}
	}
	if httpx.IsUnavailable(err) {
		return http.StatusServiceUnavailable, unavailableMessage
	}
	return http.StatusInternalServerError, "Something went wrong on our side; the error has been logged."
}

// HandleError answers a console request's error: an error page with the
// status of its code (statusOf), or the bare status for HEAD. It logs 5xx
// at Error (4xx are logged by the request logger at Warn).
func (s *Console) HandleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := statusOf(err)
	if status >= 500 {
		s.logger.Error("http.error", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
	if status == http.StatusServiceUnavailable && httpx.IsUnavailable(err) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(httpx.RetryAfterSeconds))
	}
	var werr error
	if c.Request().Method == http.MethodHead {
		werr = c.NoContent(status)
	} else {
		werr = s.page(c, status, http.StatusText(status), "",
			pages.Error(pages.ErrorPage{Status: status, Title: http.StatusText(status), Message: msg}), nil)
	}
	if werr != nil {
		s.logger.Error("http.error_response", "err", werr)
	}
}

// messageOf is the message of a domain error, without its field (a form
// shows it beside the field), or err's text.
func messageOf(err error) string {
	if me := memory.AsError(err); me != nil {
		return me.Message
	}
	return err.Error()
}
