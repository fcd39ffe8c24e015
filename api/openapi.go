package api

import (
	"bytes"
	_ "embed"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// openAPIDocument describes every API route; a test holds it and the routes
// to each other, both ways.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns the API's OpenAPI 3 document.
func OpenAPI() []byte { return bytes.Clone(openAPIDocument) }

// notAcceptableMessage answers a request for the document whose Accept
// header rules out JSON.
const notAcceptableMessage = "the OpenAPI document is served as application/json only: " +
	"send Accept: application/json or */*, or no Accept header"

// openAPIShow serves the OpenAPI document, as application/json: a request
// whose Accept header rules that out is answered 406 not_acceptable in the
// API's error shape.
func (h *handlers) openAPIShow(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	c.Response().Header().Add(echo.HeaderVary, echo.HeaderAccept)
	if !acceptsJSON(c.Request().Header.Values(echo.HeaderAccept)) {
		return WriteError(c, echo.NewHTTPError(http.StatusNotAcceptable, notAcceptableMessage))
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}

// acceptsJSON reports whether the Accept header values allow
// application/json: no header (or an empty one) does; otherwise the most
// specific media range that matches it (application/json, then
// application/*, then */*) must have a q above 0. A range that cannot be
// parsed matches nothing, and an unparsable q counts as 0.
func acceptsJSON(accept []string) bool {
	header := strings.TrimSpace(strings.Join(accept, ","))
	if header == "" {
		return true
	}
	specificity := map[string]int{"*/*": 1, "application/*": 2, "application/json": 3}
	best, bestQ := 0, 0.0
	for _, r := range strings.Split(header, ",") {
		params := strings.Split(r, ";")
		s := specificity[strings.ToLower(strings.TrimSpace(params[0]))]
		if s == 0 {
			continue
		}
		q := 1.0
		for _, p := range params[1:] {
			name, value, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(name), "q") {
				v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
				if err != nil || v < 0 {
					v = 0
				}
				q = v
			}
		}
		if s > best || (s == best && q > bestQ) {
			best, bestQ = s, q
		}
	}
	return bestQ > 0
}
