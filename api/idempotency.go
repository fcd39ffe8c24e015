package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
)

// Idempotency keys (memory/idempotency.go): a write sent with the header
// Idempotency-Key is answered once; a repeat of it by the same token within
// 24 hours, with the same method, path, query and body (compared as JSON:
// white space and the order of members do not count), gets the first answer
// again, marked Idempotent-Replayed: true, and writes nothing. The same key
// on another request is refused with 422 idempotency_key_reused, and a
// repeat while the first is still running with 409
// idempotency_key_in_progress, to be retried.
//
// What is kept is the answer of the request itself: its success (2xx) and
// its refusals (4xx), such as a validation error or a locked decision, which
// the same request would get again. A failure of Tenure or of its database
// (5xx) and a refusal that says to try again later (409 busy: a
// consolidation run under way) are not kept: the key is released, and a
// retry runs the request again.

const (
	// headerIdempotencyKey is the request header that carries a key.
	headerIdempotencyKey = "Idempotency-Key"
	// headerReplayed marks an answer given again to a repeated request.
	headerReplayed = "Idempotent-Replayed"

	codeKeyInProgress = "idempotency_key_in_progress"
	codeKeyReused     = "idempotency_key_reused"
)

// keptHeaders are the headers of an answer stored with it and given again.
var keptHeaders = []string{echo.HeaderContentType, echo.HeaderLocation}

// idempotencyStoreTimeout bounds storing or releasing a key once the
// request is done, whatever is left of the request's deadline.
const idempotencyStoreTimeout = 10 * time.Second

// idempotent makes the write routes idempotent for requests that carry an
// Idempotency-Key header; it runs after the token check, inside the
// request's deadline. Reads, unknown routes and requests without the header
// pass through.
func (h *handlers) idempotent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		keys := req.Header.Values(headerIdempotencyKey)
		if len(keys) == 0 || !h.writeRoute(req.Method, c.Path()) {
			return next(c)
		}
		if len(keys) > 1 {
			return memory.Invalidf(headerIdempotencyKey, "the request carries %d Idempotency-Key headers: send one", len(keys))
		}
		key := keys[0]
		if err := memory.CheckIdempotencyKey(headerIdempotencyKey, key); err != nil {
			return err
		}
		body, ok, err := bufferBody(req)
		if err != nil {
			return err
		}
		if !ok {
			return next(c) // larger than any write takes: refused whole, nothing written
		}
		target := req.URL.Path
		if q := req.URL.Query().Encode(); q != "" {
			target += "?" + q
		}
		ctx := req.Context()
		claim, err := h.store.ClaimIdempotencyKey(ctx, memory.IdempotentRequest{
			TokenID: callerToken(c).ID, Key: key, Method: req.Method, Target: target, Body: body,
			Lease: memory.LeaseFor(ctx),
		})
		if err != nil {
			return err
		}
		switch claim.Outcome {
		case memory.ClaimReplay:
			return replay(c, claim.Answer)
		case memory.ClaimInProgress:
			c.Response().Header().Set("Retry-After", "1")
			return c.JSON(http.StatusConflict, errorBody{Error: errorDetail{Code: codeKeyInProgress, Field: headerIdempotencyKey,
				Message: "a request with this Idempotency-Key is in progress: retry later, and it will be answered as that request is"}})
		case memory.ClaimReused:
			return c.JSON(http.StatusUnprocessableEntity, errorBody{Error: errorDetail{Code: codeKeyReused, Field: headerIdempotencyKey,
				Message: fmt.Sprintf("this Idempotency-Key was used at %s for another request (%s %s, or another body): "+
					"a key stands for one request for 24 hours; send that request unchanged to get its answer again, or use a new key",
					claim.FirstAt.UTC().Format(time.RFC3339), claim.FirstMethod, claim.FirstTarget)}})
		}
		return h.runClaimed(c, claim, next)
	}
}

// runClaimed runs the request that holds claim, recording its answer, and
// stores the answer with the key, or releases the key when the answer is
// not to be kept (see above) or the handler panics.
func (h *handlers) runClaimed(c echo.Context, claim *memory.Claim, next echo.HandlerFunc) error {
	res := c.Response()
	rec := &recorder{ResponseWriter: res.Writer}
	res.Writer = rec
	settled := false
	defer func() {
		res.Writer = rec.ResponseWriter
		if !settled {
			h.releaseKey(c, claim)
		}
	}()
	if err := next(c); err != nil {
		if !kept(err) {
			return err
		}
		if werr := WriteError(c, err); werr != nil {
			return werr
		}
	} else if res.Status >= http.StatusInternalServerError {
		return nil
	}
	settled = true
	answer := memory.IdempotentAnswer{Status: res.Status, Body: rec.body.Bytes(), Headers: map[string]string{}}
	for _, name := range keptHeaders {
		if v := res.Header().Get(name); v != "" {
			answer.Headers[name] = v
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), idempotencyStoreTimeout)
	defer cancel()
	stored, serr := h.store.CompleteIdempotencyKey(ctx, claim, answer)
	switch {
	case serr != nil:
		h.logger.Error("api.idempotency_store_failed", "path", c.Request().URL.Path, "status", res.Status, "err", serr)
	case !stored:
		h.logger.Warn("api.idempotency_taken_over", "path", c.Request().URL.Path, "status", res.Status)
	}
	return nil
}

// kept reports whether the answer of a request that failed with err is
// stored with its key: a refusal of the request itself, not a failure of
// Tenure (5xx) nor a refusal to be retried later (busy).
func kept(err error) bool {
	status, _ := errorResponse(err)
	return status < http.StatusInternalServerError && !errors.Is(err, &memory.Error{Code: memory.CodeBusy})
}

// releaseKey forgets claim's key, so that a retry of the request runs.
func (h *handlers) releaseKey(c echo.Context, claim *memory.Claim) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), idempotencyStoreTimeout)
	defer cancel()
	if err := h.store.ReleaseIdempotencyKey(ctx, claim); err != nil {
		h.logger.Error("api.idempotency_release_failed", "path", c.Request().URL.Path, "err", err)
	}
}

// replay answers with a stored answer, marked as given again.
func replay(c echo.Context, a memory.IdempotentAnswer) error {
	header := c.Response().Header()
	for name, v := range a.Headers {
		header.Set(name, v)
	}
	header.Set(headerReplayed, "true")
	c.Response().WriteHeader(a.Status)
	_, err := c.Response().Write(a.Body)
	return err
}

// writeRoute reports whether method and path (the route's pattern) are one
// of the API's write routes.
func (h *handlers) writeRoute(method, path string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	for _, r := range h.routes {
		if r.Method == method && r.Path == path {
			return true
		}
	}
	return false
}

// bufferBody reads the request body, which the fingerprint needs whole
// before the handler reads it, and puts it back for the handler. A body
// larger than any write route takes (maxImportBody) is put back unread
// (ok false): the route refuses it with 413 whatever its key.
func bufferBody(req *http.Request) (body []byte, ok bool, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, true, nil
	}
	body, err = io.ReadAll(io.LimitReader(req.Body, maxImportBody+1))
	if err != nil {
		return nil, false, memory.Invalidf("", "the request body could not be read: %v", err)
	}
	if len(body) > maxImportBody {
		req.Body = readCloser{io.MultiReader(bytes.NewReader(body), req.Body), req.Body}
		return nil, false, nil
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	return body, true, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// recorder passes an answer on and keeps a copy of its body.
type recorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
