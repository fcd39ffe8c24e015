package web

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/views/layouts"
)

// routes registers every route of the application, in one place.
func (s *Server) routes() {
	e := s.echo
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
	if s.metrics != nil {
		e.GET("/metrics", echo.WrapHandler(s.metrics))
	}
	e.GET("/static/*", echo.WrapHandler(s.assets.Handler()))
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, s.assets.Path("favicon.svg"))
	})

	// The console: every page needs a session; writes need a CSRF token.
	ui := e.Group("", s.loadSession, s.checkCSRF)
	ui.GET("/login", s.loginShow)
	ui.POST("/login", s.loginSubmit)
	ui.POST("/logout", s.logout)

	viewer := ui.Group("", s.require(auth.RoleViewer))
	viewer.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusSeeOther, "/facts") })
	viewer.GET("/facts", s.factList)
}

// nav is the console's main navigation for a person with role.
func nav(role auth.Role) []layouts.NavItem {
	return []layouts.NavItem{
		{Section: "facts", Label: "Facts", Href: "/facts"},
	}
}
