package api

import (
	"bytes"
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDocument describes every API route; a test holds it and the routes
// to each other, both ways.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns the API's OpenAPI 3 document.
func OpenAPI() []byte { return bytes.Clone(openAPIDocument) }

// openAPIShow serves the OpenAPI document.
func (h *handlers) openAPIShow(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}
