// Package httpx holds what the HTTP edges (console, API, MCP) share about
// requests rather than about memory: how long one may take, and how to tell
// a database that does not answer from a fault in the request or in Tenure.
package httpx

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/extract"
)

// RetryAfterSeconds is the Retry-After of an answer refused because the
// database is unavailable.
const RetryAfterSeconds = 5

// DefaultRequestTimeout bounds a request when the configuration sets no
// timeout of its own.
const DefaultRequestTimeout = 30 * time.Second

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
// error returned once the deadline has passed that the edge would answer
// as its own failure (internal(err)) is an unavailable one instead
// (IsUnavailable), answered 503. What answers the error (a page, JSON) runs
// without the deadline, which has passed.
func Deadline(timeout func(c echo.Context) time.Duration, internal func(error) bool) echo.MiddlewareFunc {
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
			if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && internal(err) {
				err = &deadlineError{after: d, err: err}
			}
			return err
		}
	}
}

// llmMargin is the time an extraction through an LLM is given beyond the
// LLM's own timeout, to store its candidates and answer.
const llmMargin = 3 * time.Second

// ExtractTimeout is the bound of a request that may extract through the LLM
// of set: the request timeout, or the LLM's timeout and a little more when
// that is longer, so that a slow model is reported as such (502) rather than
// as a database that did not answer.
func ExtractTimeout(requestTimeout time.Duration, set *extract.Set) time.Duration {
	if requestTimeout <= 0 {
		return requestTimeout
	}
	if s := set.Settings(); s.LLMConfigured {
		return max(requestTimeout, s.Timeout+llmMargin)
	}
	return requestTimeout
}
