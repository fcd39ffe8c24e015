package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
)

// The error codes of the API, in errorDetail.Code.
const (
	codeInvalid          = "invalid"
	codeNotFound         = "not_found"
	codeConflict         = "conflict"
	codeDecisionLocked   = "decision_locked"
	codeForbidden        = "forbidden"
	codeUnauthorized     = "unauthorized"
	codePayloadTooLarge  = "payload_too_large"
	codeMethodNotAllowed = "method_not_allowed"
	codeUnavailable      = "unavailable"
	codeInternal         = "internal"
)

// errorBody is the one shape of every error the API answers with.
type errorBody struct {
	Error errorDetail `json:"error"`
}

// errorDetail says what went wrong. Field names the input at fault, with its
// position in a batch (nodes[2].durability). A stale edit carries the current
// fact; a write refused by a locked decision carries the decision's id and
// reasoning.
type errorDetail struct {
	Code       string    `json:"code"`
	Message    string    `json:"message"`
	Field      string    `json:"field,omitempty"`
	Current    *factJSON `json:"current,omitempty"`
	DecisionID *int64    `json:"decision_id,omitempty"`
	Decision   string    `json:"decision,omitempty"`
	Reasoning  string    `json:"reasoning,omitempty"`
}

// internalMessage is all a client learns of a failure on our side.
const internalMessage = "something went wrong on our side; the error has been logged"

// unavailableMessage is the answer while the database cannot be reached.
const unavailableMessage = "the database is unreachable or not answering: retry in a few seconds"

// RetryAfterSeconds is the Retry-After of an answer refused because the
// database is unavailable.
const RetryAfterSeconds = 5

// IsUnavailable reports whether err means the database cannot be reached or
// did not answer in time, rather than a fault in the request or in Tenure:
// a failed connection attempt (*pgconn.ConnectError), a connection lost or
// refused by the server (SQLSTATE class 08; 57P01 to 57P03: the server is
// shutting down, crashing or starting), a connection closed under the
// statement, a timeout (pgconn.Timeout; a pool acquire that ran out of time
// is a bare context.DeadlineExceeded), an error pgx says happened before
// anything was sent (pgconn.SafeToRetry), or a request past its deadline
// (Deadline). Such a request may simply be retried: the API answers it 503
// unavailable with Retry-After, the console with a 503 page, MCP with a tool
// error saying so.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var expired *deadlineError
	if errors.As(err, &expired) {
		return true
	}
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return true
		}
		return strings.HasPrefix(pg.Code, "08") // connection exception
	}
	return pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, pgconn.ErrConnClosed)
}

// DefaultRequestTimeout bounds a request when the configuration sets no
// timeout of its own.
const DefaultRequestTimeout = 30 * time.Second

// deadlineError is the error of a request whose deadline passed: whatever
// the handler returned once its context expired.
type deadlineError struct {
	after time.Duration
	err   error
}

func (e *deadlineError) Error() string {
	return fmt.Sprintf("no answer within the request deadline of %s: %v", e.after, e.err)
}

func (e *deadlineError) Unwrap() error { return e.err }

// Deadline bounds the handling of each request to timeout(c), when that is
// positive: the request's context expires then, so that a database that no
// longer answers cannot hold the request (and a connection) for ever. An
// error returned once the deadline has passed, which would otherwise be a
// 500, is an unavailable one (IsUnavailable), answered 503. What answers the
// error (a page, JSON) runs without the deadline, which has passed.
func Deadline(timeout func(c echo.Context) time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			d := timeout(c)
			if d <= 0 {
				return next(c)
			}
			ctx, cancel := context.WithTimeout(c.Request().Context(), d)
			defer cancel()
			c.SetRequest(c.Request().WithContext(ctx))
			err := next(c)
			req := c.Request()
			c.SetRequest(req.WithContext(context.WithoutCancel(req.Context())))
			if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				if status, _ := errorResponse(err); status == http.StatusInternalServerError {
					err = &deadlineError{after: d, err: err}
				}
			}
			return err
		}
	}
}

// errorResponse maps err to its status and body. It is the one place where
// an error becomes an API response.
func errorResponse(err error) (int, errorDetail) {
	var locked *memory.LockedError
	if errors.As(err, &locked) {
		return http.StatusConflict, errorDetail{
			Code: codeDecisionLocked, Message: locked.Error(), DecisionID: &locked.DecisionID,
			Decision: locked.Decision, Reasoning: locked.Reasoning,
		}
	}
	var conflict *memory.ConflictError
	if errors.As(err, &conflict) {
		cur := newFactJSON(conflict.Current)
		return http.StatusConflict, errorDetail{Code: codeConflict, Message: conflict.Error(), Field: "version", Current: &cur}
	}
	if errors.Is(err, memory.ErrRunInProgress) {
		return http.StatusConflict, errorDetail{Code: codeConflict,
			Message: "another consolidation run is in progress: wait for it to finish, then try again"}
	}
	var me *memory.Error
	if errors.As(err, &me) {
		d := errorDetail{Message: me.Error(), Field: me.Field}
		switch me.Code {
		case memory.CodeInvalid:
			return http.StatusBadRequest, withCode(d, codeInvalid)
		case memory.CodeNotFound:
			return http.StatusNotFound, withCode(d, codeNotFound)
		case memory.CodeConflict:
			return http.StatusConflict, withCode(d, codeConflict)
		case memory.CodeDecisionLocked:
			return http.StatusConflict, withCode(d, codeDecisionLocked)
		case memory.CodeForbidden:
			return http.StatusForbidden, withCode(d, codeForbidden)
		}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := fmt.Sprint(he.Message)
		if he.Message == nil || msg == http.StatusText(he.Code) {
			msg = defaultMessage(he.Code)
		}
		return he.Code, errorDetail{Code: statusCode(he.Code), Message: msg}
	}
	if IsUnavailable(err) {
		return http.StatusServiceUnavailable, errorDetail{Code: codeUnavailable, Message: unavailableMessage}
	}
	return http.StatusInternalServerError, errorDetail{Code: codeInternal, Message: internalMessage}
}

func withCode(d errorDetail, code string) errorDetail {
	d.Code = code
	return d
}

// statusCode is the error code of an HTTP status.
func statusCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return codeInvalid
	case http.StatusUnauthorized:
		return codeUnauthorized
	case http.StatusForbidden:
		return codeForbidden
	case http.StatusNotFound:
		return codeNotFound
	case http.StatusMethodNotAllowed:
		return codeMethodNotAllowed
	case http.StatusConflict:
		return codeConflict
	case http.StatusRequestEntityTooLarge:
		return codePayloadTooLarge
	case http.StatusServiceUnavailable:
		return codeUnavailable
	}
	if status >= 500 {
		return codeInternal
	}
	text := http.StatusText(status)
	if text == "" {
		return codeInvalid
	}
	return strings.ReplaceAll(strings.ToLower(text), " ", "_")
}

// defaultMessage replaces the bare status text echo's router errors carry.
func defaultMessage(status int) string {
	switch status {
	case http.StatusNotFound:
		return "no such API route: the routes are listed in /api/openapi.json"
	case http.StatusMethodNotAllowed:
		return "this route does not accept that method: the methods are listed in /api/openapi.json"
	case http.StatusUnauthorized:
		return "missing bearer token: send the header Authorization: Bearer <token>"
	}
	if status >= 500 {
		return internalMessage
	}
	return strings.ToLower(http.StatusText(status))
}

// WriteError answers an API request with err in the API's one error shape,
// {"error": {"code", "message", "field"?}}: invalid input 400 (naming the
// field), 401, 403, 404, 409 (a stale version carries the current fact; a
// locked decision carries its id and reasoning), 413, 503 unavailable with
// Retry-After while the database cannot be reached (IsUnavailable), and 500
// with a generic message for anything unexpected. It writes nothing for a
// response already sent, and logs nothing: callers log the 5xx they pass it.
// The console's error handler delegates /api/ paths to it.
func WriteError(c echo.Context, err error) error {
	if c.Response().Committed {
		return nil
	}
	status, detail := errorResponse(err)
	if status == http.StatusUnauthorized && c.Response().Header().Get(echo.HeaderWWWAuthenticate) == "" {
		c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="tenure"`)
	}
	if detail.Code == codeUnavailable {
		c.Response().Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	}
	if c.Request().Method == http.MethodHead {
		return c.NoContent(status)
	}
	return c.JSON(status, errorBody{Error: detail})
}

// HTTPErrorHandler is an echo error handler for an Echo that serves only the
// API (tests, or a process without the console): it logs 5xx and answers
// with WriteError.
func HTTPErrorHandler(logger *slog.Logger) echo.HTTPErrorHandler {
	if logger == nil {
		logger = slog.Default()
	}
	return func(err error, c echo.Context) {
		logServerError(logger, c, err)
		if werr := WriteError(c, err); werr != nil {
			logger.Error("api.error_response", "err", werr)
		}
	}
}

// logServerError logs err at Error when it becomes a 5xx; 4xx are the
// caller's mistakes, which the request log records.
func logServerError(logger *slog.Logger, c echo.Context, err error) {
	if status, _ := errorResponse(err); status >= 500 {
		logger.Error("api.error", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
}

// answerErrors is the outermost middleware of the /api/v1 group: the error
// of a handler or of the token check is answered here, in the API's shape,
// whatever error handler the Echo has. A path that exists under another
// method is a 405 with an Allow header, not a 404.
func (h *handlers) answerErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if err == nil {
			return nil
		}
		if errors.Is(err, echo.ErrNotFound) {
			if allowed := h.allowedMethods(c.Request().URL.Path); len(allowed) > 0 {
				c.Response().Header().Set(echo.HeaderAllow, strings.Join(allowed, ", "))
				err = echo.ErrMethodNotAllowed
			}
		}
		logServerError(h.logger, c, err)
		if werr := WriteError(c, err); werr != nil {
			return werr
		}
		return nil
	}
}
