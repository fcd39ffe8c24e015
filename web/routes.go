package web

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/mcpserver"
	"github.com/tenurehq/tenure/views/layouts"
)

// routes registers every route of the application, in one place.
func (s *Server) routes() error {
	e := s.echo
	e.Pre(headAsGet)
	e.Use(restoreHead)
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
				slog.String("method", v.Method), slog.String("uri", v.URI),
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

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	// /metrics is served here only behind its bearer token; without one it
	// is not served at all (serve may offer it on a separate listener).
	if s.metrics != nil && s.metricsToken != "" {
		e.GET("/metrics", echo.WrapHandler(MetricsHandler(s.metrics, s.metricsToken)))
	}
	e.GET("/static/*", echo.WrapHandler(s.assets.Handler()))
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, s.assets.Path("favicon.svg"))
	})

	// Agents: the JSON API and the MCP server authenticate their own bearer
	// tokens; the API's routes are listed in api/routes.go.
	// Each bounds its requests to the request timeout (MCP only its POSTs,
	// which carry the calls).
	if err := api.Mount(e, api.Config{Store: s.store, Pool: s.pool, Logger: s.logger, Now: s.now, Extractors: s.extract,
		RequestTimeout: s.requestTimeout}); err != nil {
		return err
	}
	e.Any("/mcp", echo.WrapHandler(mcpserver.NewHandler(s.store, mcpserver.NewTokenAuth(s.q, s.now), s.logger,
		mcpserver.WithExtractors(s.extract), mcpserver.WithRequestTimeout(s.requestTimeout))))

	// The console: each request is bounded to the request timeout (a
	// consolidation "run now" goes on under its own bound), sessions are
	// loaded and writes need a CSRF token. Reading needs any role; changing
	// memory needs reviewer; users, tokens and policies need admin.
	e.Use(api.Deadline(s.consoleTimeout), s.loadSession, s.checkCSRF)
	e.GET("/login", s.loginShow)
	e.POST("/login", s.loginSubmit)
	e.POST("/logout", s.logout)
	viewer := roleRoutes{e, s.require(auth.RoleViewer)}
	reviewer := roleRoutes{e, s.require(auth.RoleReviewer)}
	admin := roleRoutes{e, s.require(auth.RoleAdmin)}

	viewer.GET("/", s.overviewShow)

	viewer.GET("/facts", s.factList)
	viewer.GET("/facts/:id", s.factShow)
	reviewer.POST("/facts/bulk", s.factBulk)
	reviewer.POST("/facts/:id", s.factSave)
	viewer.GET("/obligations", s.obligationList)

	viewer.GET("/decisions", s.decisionList)
	reviewer.GET("/decisions/new", s.decisionNew)
	reviewer.POST("/decisions", s.decisionCreate)
	viewer.GET("/decisions/:id", s.decisionShow)
	reviewer.POST("/decisions/:id", s.decisionSave)
	reviewer.POST("/decisions/:id/reopen", s.decisionReopen)
	reviewer.POST("/decisions/:id/relock", s.decisionRelock)

	viewer.GET("/review", s.reviewList)
	reviewer.POST("/review/:id", s.reviewResolve)

	viewer.GET("/working", s.nodeList)
	reviewer.POST("/working/markers", s.nodeMarkers)
	reviewer.POST("/working/retry", s.nodeRetry)

	viewer.GET("/consolidation", s.consolidationShow)
	reviewer.POST("/consolidation/run", s.consolidationRun)
	viewer.GET("/consolidation/runs/:id", s.runShow)
	viewer.GET("/consolidation/rejections", s.rejectionList)

	viewer.GET("/tombstones", s.tombstoneList)
	reviewer.POST("/tombstones/:id/restore", s.tombstoneRestore)

	viewer.GET("/policies", s.policyList)
	admin.POST("/policies/:id", s.policySave)
	admin.POST("/policies/categories/:category", s.categorySave)

	viewer.GET("/audit", s.auditList)
	viewer.GET("/settings", s.settingsShow)

	admin.GET("/users", s.userList)
	admin.POST("/users", s.userCreate)
	admin.POST("/users/:id", s.userSave)
	admin.GET("/tokens", s.tokenList)
	admin.POST("/tokens", s.tokenCreate)
	admin.POST("/tokens/:id/revoke", s.tokenRevoke)
	return nil
}

// consoleTimeout is the bound of a request: the request timeout for the
// console's pages and forms; none here for the API and MCP, which bound their
// own, nor for assets, metrics and health checks (these have their own,
// shorter bound).
func (s *Server) consoleTimeout(c echo.Context) time.Duration {
	if !consolePath(c.Request().URL.Path) {
		return 0
	}
	return s.requestTimeout
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

// roleRoutes registers routes behind one role check.
type roleRoutes struct {
	e    *echo.Echo
	need echo.MiddlewareFunc
}

func (r roleRoutes) GET(path string, h echo.HandlerFunc)  { r.e.GET(path, h, r.need) }
func (r roleRoutes) POST(path string, h echo.HandlerFunc) { r.e.POST(path, h, r.need) }

// nav is the console's main navigation for a person with role.
func nav(role auth.Role) []layouts.NavItem {
	items := []layouts.NavItem{
		{Section: "overview", Label: "Overview", Href: "/"},
		{Section: "facts", Label: "Facts", Href: "/facts"},
		{Section: "decisions", Label: "Decisions", Href: "/decisions"},
		{Section: "obligations", Label: "Obligations", Href: "/obligations"},
		{Section: "working", Label: "Working memory", Href: "/working"},
		{Section: "consolidation", Label: "Consolidation", Href: "/consolidation"},
		{Section: "review", Label: "Review", Href: "/review"},
		{Section: "tombstones", Label: "Tombstones", Href: "/tombstones", Secondary: true},
		{Section: "policies", Label: "Decay policies", Href: "/policies", Secondary: true},
		{Section: "audit", Label: "Audit log", Href: "/audit", Secondary: true},
		{Section: "settings", Label: "Settings", Href: "/settings", Secondary: true},
	}
	if role.Allows(auth.RoleAdmin) {
		items = append(items,
			layouts.NavItem{Section: "users", Label: "Users", Href: "/users", Secondary: true},
			layouts.NavItem{Section: "tokens", Label: "API tokens", Href: "/tokens", Secondary: true})
	}
	return items
}
