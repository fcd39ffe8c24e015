package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
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
	Code       string     `json:"code"`
	Message    string     `json:"message"`
	Field      string     `json:"field,omitempty"`
	Current    *wire.Fact `json:"current,omitempty"`
	DecisionID *int64     `json:"decision_id,omitempty"`
	Decision   string     `json:"decision,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`
	// Lines are the bad lines of an import file refused whole.
	Lines []memory.ImportProblem `json:"lines,omitempty"`
}

// statusOf is the HTTP status of each domain error code: the one table
// where the engine's refusals become API answers.
var statusOf = map[memory.Code]struct {
	status int
	code   string
}{
	memory.CodeInvalid:        {http.StatusBadRequest, codeInvalid},
	memory.CodeNotFound:       {http.StatusNotFound, codeNotFound},
	memory.CodeConflict:       {http.StatusConflict, codeConflict},
	memory.CodeDecisionLocked: {http.StatusConflict, codeDecisionLocked},
	memory.CodeBusy:           {http.StatusConflict, codeConflict},
	memory.CodeForbidden:      {http.StatusForbidden, codeForbidden},
}

// internalMessage is all a client learns of a failure on our side.
const internalMessage = "something went wrong on our side; the error has been logged"

// unavailableMessage is the answer while the database cannot be reached.
const unavailableMessage = "the database is unreachable or not answering: retry in a few seconds"

// internal reports whether the API answers err as its own failure (500):
// past a request's deadline, such an error is the database not answering.
func internal(err error) bool {
	status, _ := errorResponse(err)
	return status == http.StatusInternalServerError
}

// errorResponse maps err to its status and body. It is the one place where
// an error becomes an API response.
func errorResponse(err error) (int, errorDetail) {
	var me *memory.Error
	if errors.As(err, &me) {
		if s, ok := statusOf[me.Code]; ok {
			d := errorDetail{Code: s.code, Message: me.Error(), Field: me.Field}
			if l := me.Locked; l != nil {
				d.DecisionID, d.Decision, d.Reasoning = &l.ID, l.Decision, l.Reasoning
			}
			if me.CurrentFact != nil {
				cur := wire.NewFact(*me.CurrentFact)
				d.Current, d.Field = &cur, "version"
			}
			if me.Problems != nil {
				d.Message, d.Lines = me.Message, me.Problems
			}
			return s.status, d
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
	if httpx.IsUnavailable(err) {
		return http.StatusServiceUnavailable, errorDetail{Code: codeUnavailable, Message: unavailableMessage}
	}
	return http.StatusInternalServerError, errorDetail{Code: codeInternal, Message: internalMessage}
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
// Retry-After while the database cannot be reached (httpx.IsUnavailable), and 500
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
		c.Response().Header().Set("Retry-After", strconv.Itoa(httpx.RetryAfterSeconds))
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
