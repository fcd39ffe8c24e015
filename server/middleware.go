package server

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// middleware adds what every request passes, whichever surface serves it:
// HEAD on GET routes, the request metrics (when the server has a registry),
// recovery from a handler's panic, the request log and the security
// headers; then, for /api and /mcp, CORS, the Origin check of
// /mcp and the rate limits; last, with standbys, read-your-writes
// (readafter.go).
func (s *Server) middleware(e *echo.Echo) {
	e.Pre(headAsGet)
	e.Use(restoreHead)
	if s.registry != nil {
		e.Use(observeRequests(s.registry))
	}
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		DisablePrintStack: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.logger.Error("http.panic", "method", c.Request().Method, "path", c.Request().URL.Path,
				"err", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod:    true,
		LogURI:       true,
		LogStatus:    true,
		LogLatency:   true,
		LogRemoteIP:  true,
		LogError:     true,
		HandleError:  true,
		LogRoutePath: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			switch {
			case v.Status >= 500:
				level = slog.LevelError
			case v.Status >= 400:
				level = slog.LevelWarn
			}
			attrs := []slog.Attr{
				slog.String("method", v.Method), slog.String("uri", redactURI(v.URI)),
				slog.String("route", v.RoutePath), slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency), slog.String("remote_ip", v.RemoteIP),
			}
			if v.Error != nil {
				attrs = append(attrs, slog.String("err", v.Error.Error()))
			}
			s.logger.LogAttrs(c.Request().Context(), level, "http.request", attrs...)
			return nil
		},
	}))
	e.Use(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection:         "0",
		ContentTypeNosniff:    "nosniff",
		XFrameOptions:         "DENY",
		ReferrerPolicy:        "same-origin",
		ContentSecurityPolicy: "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
	}))

	// CORS comes first, so that a preflight is answered before any token is
	// asked for and a 429 carries the headers a page needs to read it; a
	// refused Origin costs no request of a rate limit (cors.go, limits.go).
	if !s.apiOrigins.empty() {
		e.Use(cors("api", s.apiOrigins, "Retry-After", echo.HeaderWWWAuthenticate, echo.HeaderLocation, echo.HeaderAllow,
			"Idempotent-Replayed", ReadAfterHeader))
	}
	e.Use(checkMCPOrigin(s.mcpOrigins))
	if !s.mcpOrigins.empty() {
		e.Use(cors("mcp", s.mcpOrigins, "Retry-After", echo.HeaderWWWAuthenticate, "Mcp-Session-Id", ReadAfterHeader))
	}
	if s.limiter != nil {
		e.Use(s.limiter.middleware)
	}
	if s.readAfter != nil {
		e.Use(s.readAfter.middleware)
	}
}

// headKey marks, in the context, a HEAD request routed as a GET.
const headKey = "head"

// headAsGet answers HEAD on every GET route, as HTTP requires (Echo v4 routes
// HEAD only to routes registered for it): the request is routed as a GET
// (Echo routes on the request it was given, so its method is changed in
// place, as Echo's method override does), then handled as the HEAD it is
// (restoreHead), with the GET's status and headers and no body. The MCP
// endpoint is registered for HEAD itself (its GET opens an event stream).
func headAsGet(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method != http.MethodHead || req.URL.Path == "/mcp" || strings.HasPrefix(req.URL.Path, "/mcp/") {
			return next(c)
		}
		req.Method = http.MethodGet
		c.Set(headKey, true)
		c.Response().Writer = bodyless{c.Response().Writer}
		return next(c)
	}
}

// restoreHead, the first middleware after routing, gives a HEAD routed as a
// GET its method back, so that handlers, the logs and net/http see a HEAD.
func restoreHead(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Get(headKey) != nil {
			c.Request().Method = http.MethodHead
		}
		return next(c)
	}
}

// bodyless is a response writer that keeps the status and headers and drops
// the body, for HEAD.
type bodyless struct{ http.ResponseWriter }

func (b bodyless) Write(p []byte) (int, error) { return len(p), nil }

// Unwrap lets http.ResponseController reach the underlying writer.
func (b bodyless) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// redactURI is uri with the value of its token query parameter (a password
// reset or setup link's one-time secret) replaced, so that a link not yet
// used cannot be read back from the request log.
func redactURI(uri string) string {
	path, query, ok := strings.Cut(uri, "?")
	if !ok || !strings.Contains(query, "token=") {
		return uri
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		if name, _, ok := strings.Cut(p, "="); ok && name == "token" {
			parts[i] = "token=REDACTED"
		}
	}
	return path + "?" + strings.Join(parts, "&")
}
