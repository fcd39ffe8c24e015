package web

import (
	"bytes"
	"context"
	"io"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/views/layouts"
)

// render writes component with status through a buffer, so that a template
// error becomes a clean 500 instead of half a page.
func render(c echo.Context, status int, component templ.Component) error {
	var buf bytes.Buffer
	if err := component.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// isHTMX reports whether the request came from htmx and wants a fragment.
func isHTMX(c echo.Context) bool {
	return c.Request().Header.Get("HX-Request") == "true"
}

// page renders content inside the full layout, or content alone for an htmx
// request. Responses vary on HX-Request so caches keep the two apart.
func (s *Console) page(c echo.Context, status int, title, section string, content, fragment templ.Component) error {
	c.Response().Header().Add("Vary", "HX-Request")
	if isHTMX(c) && fragment != nil {
		return render(c, status, fragment)
	}
	shell := layouts.Shell{Title: title, Section: section, Assets: s.assets, Flash: s.takeFlash(c)}
	if sess := currentSession(c); sess != nil {
		shell.User, shell.Role, shell.Nav = sess.Email, string(sess.Role), nav(sess.Role)
	}
	full := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return layouts.Base(shell).Render(templ.WithChildren(ctx, content), w)
	})
	return render(c, status, full)
}
