package web

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/layouts"
)

// actor is the signed-in person as the engine records them.
func actor(c echo.Context) memory.Actor {
	if sess := currentSession(c); sess != nil {
		return memory.Human(sess.Email)
	}
	return memory.System("web")
}

// signedInAs reports whether the signed-in person has at least role.
func signedInAs(c echo.Context, role auth.Role) bool {
	sess := currentSession(c)
	return sess != nil && sess.Role.Allows(role)
}

// pathID reads a positive numeric path parameter; anything else is a 404.
func pathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.NewHTTPError(http.StatusNotFound, "No such page: "+name+" must be a positive number.")
	}
	return id, nil
}

const flashCookie = "tenure_flash"

// redirectWithFlash answers a successful form post: 303 to target, with a
// one-line message shown on the next page (POST, then redirect, then GET).
func (s *Console) redirectWithFlash(c echo.Context, target, kind, message string) error {
	s.setCookie(c, flashCookie, url.QueryEscape(kind+"|"+message), 60)
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", target)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// takeFlash reads and clears the flash message, if any.
func (s *Console) takeFlash(c echo.Context) layouts.Flash {
	ck, err := c.Cookie(flashCookie)
	if err != nil || ck.Value == "" {
		return layouts.Flash{}
	}
	s.setCookie(c, flashCookie, "", -1)
	raw, err := url.QueryUnescape(ck.Value)
	if err != nil {
		return layouts.Flash{}
	}
	for i := range len(raw) {
		if raw[i] == '|' {
			kind := raw[:i]
			if kind != "ok" && kind != "error" {
				kind = "info"
			}
			return layouts.Flash{Kind: kind, Message: raw[i+1:]}
		}
	}
	return layouts.Flash{}
}

// unionKeys is every key of a and b, once each, sorted: the fields an audit
// row's before and after documents mention.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
