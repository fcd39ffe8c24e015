package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Cross-origin requests. A browser page may call the API only from an
// origin in Config.CORSOrigins: its requests, including GET
// /api/openapi.json, are answered with Access-Control-Allow-Origin, and its
// preflight OPTIONS with 204 and the CORS headers before any token is
// asked for. With no origins configured (the default), no CORS header is
// sent and browsers keep pages of other origins from reading the API. No
// credentials are allowed: the API takes bearer tokens, never cookies.
//
// /mcp validates the Origin header, as the MCP streamable HTTP transport
// requires (against DNS rebinding): a request without one (an agent, not a
// browser) is served, as is one from an origin in Config.MCPOrigins, which
// also get the CORS headers; any other is refused 403 with a JSON-RPC error.

// corsMaxAge is how long, in seconds, a browser may keep a preflight's answer.
const corsMaxAge = 600

// NormalizeOrigin checks that s is a web origin, scheme://host with an
// optional port and nothing after (a trailing slash aside), and returns it
// as browsers send it in the Origin header: in lower case, without the
// scheme's default port.
func NormalizeOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(s), "/"))
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" || u.User != nil || u.Path != "" ||
		u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("%q is not a web origin: use scheme://host[:port], such as https://app.example.com", s)
	}
	host := strings.ToLower(u.Host)
	scheme := strings.ToLower(u.Scheme)
	if (scheme == "https" && strings.HasSuffix(host, ":443")) || (scheme == "http" && strings.HasSuffix(host, ":80")) {
		host = host[:strings.LastIndex(host, ":")]
	}
	return scheme + "://" + host, nil
}

// origins is a set of allowed web origins.
type origins struct {
	any bool // "*": every origin
	set map[string]bool
}

// newOrigins reads list, each an origin for NormalizeOrigin or, when
// anyOK, "*" for any origin.
func newOrigins(list []string, anyOK bool) (origins, error) {
	o := origins{set: map[string]bool{}}
	for _, s := range list {
		if strings.TrimSpace(s) == "*" && anyOK {
			o.any = true
			continue
		}
		n, err := NormalizeOrigin(s)
		if err != nil {
			return origins{}, err
		}
		o.set[n] = true
	}
	return o, nil
}

// empty reports whether no origin is allowed.
func (o origins) empty() bool { return !o.any && len(o.set) == 0 }

// allowed reports whether the Origin header value origin is allowed.
func (o origins) allowed(origin string) bool {
	return o.any || o.set[strings.ToLower(origin)]
}

// cors is Echo's CORS middleware for the paths of one surface ("api" or
// "mcp", as limitedSurface names them), for the allowed origins, exposing
// the response headers expose. The methods allowed are the route's; any
// request header is allowed.
func cors(surface string, allow origins, expose ...string) echo.MiddlewareFunc {
	return middleware.CORSWithConfig(middleware.CORSConfig{
		Skipper:         func(c echo.Context) bool { return limitedSurface(c.Request().URL.Path) != surface },
		AllowOriginFunc: func(origin string) (bool, error) { return allow.allowed(origin), nil },
		ExposeHeaders:   expose,
		MaxAge:          corsMaxAge,
	})
}

// mcpOriginMessage is the answer to an MCP request from an origin not
// allowed.
const mcpOriginMessage = "this server does not accept MCP requests from a web page of this origin: " +
	"send no Origin header (as agents do), or ask its operator to allow the origin (--mcp-origins)"

// checkMCPOrigin refuses with 403 an /mcp request whose Origin header is not
// among allow.
func checkMCPOrigin(allow origins) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if limitedSurface(c.Request().URL.Path) != "mcp" {
				return next(c)
			}
			sent := c.Request().Header.Values(echo.HeaderOrigin)
			if len(sent) == 0 || (len(sent) == 1 && allow.allowed(sent[0])) {
				return next(c)
			}
			return rpcRefusal(c, http.StatusForbidden, mcpOriginMessage, nil)
		}
	}
}
