package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/views/layouts"
)

// Register adds the console to e: the middleware of its requests (the
// request timeout, sessions, CSRF checks; each skips what is not the
// console's) and every console route, in one place.
func (s *Console) Register(e *echo.Echo) {
	// The console: each request is bounded to the request timeout (a
	// consolidation "run now" goes on under its own bound), sessions are
	// loaded and writes need a CSRF token. Reading needs any role; changing
	// memory needs reviewer; users, tokens and policies need admin.
	e.Use(httpx.Deadline(s.consoleTimeout, func(err error) bool {
		status, _ := statusOf(err)
		return status == http.StatusInternalServerError
	}), s.loadSession, s.checkCSRF)
	e.GET("/setup", s.setupShow)
	e.POST("/setup", s.setupSubmit)
	e.GET("/login", s.loginShow)
	e.POST("/login", s.loginSubmit)
	e.POST("/logout", s.logout)
	e.GET("/reset-password", s.resetShow)
	e.POST("/reset-password", s.resetSubmit)
	viewer := roleRoutes{e, s.require(auth.RoleViewer)}
	reviewer := roleRoutes{e, s.require(auth.RoleReviewer)}
	admin := roleRoutes{e, s.require(auth.RoleAdmin)}

	viewer.GET("/", s.overviewShow)

	viewer.GET("/facts", s.factList)
	viewer.GET("/facts/:id", s.factShow)
	reviewer.POST("/facts/bulk", s.factBulk)
	reviewer.POST("/facts/:id", s.factSave)
	reviewer.POST("/facts/:id/move", s.factMove)
	viewer.GET("/obligations", s.obligationList)
	reviewer.POST("/obligations/:id", s.obligationAction)

	viewer.GET("/decisions", s.decisionList)
	reviewer.GET("/decisions/new", s.decisionNew)
	reviewer.POST("/decisions", s.decisionCreate)
	viewer.GET("/decisions/:id", s.decisionShow)
	reviewer.POST("/decisions/:id", s.decisionSave)
	reviewer.POST("/decisions/:id/reopen", s.decisionReopen)
	reviewer.POST("/decisions/:id/relock", s.decisionRelock)

	viewer.GET("/entities", s.entityList)
	reviewer.POST("/entities/merge", s.entityMerge)
	reviewer.POST("/entities/merges/:id/undo", s.mergeUndo)
	reviewer.POST("/entities/:id/aliases", s.aliasAdd)
	reviewer.POST("/entities/:id/aliases/remove", s.aliasRemove)

	viewer.GET("/review", s.reviewList)
	reviewer.POST("/review/:id", s.reviewResolve)
	reviewer.POST("/review/:id/undismiss", s.reviewUndismiss)

	viewer.GET("/working", s.nodeList)
	reviewer.POST("/working/markers", s.nodeMarkers)
	reviewer.POST("/working/retry", s.nodeRetry)

	viewer.GET("/consolidation", s.consolidationShow)
	reviewer.POST("/consolidation/run", s.consolidationRun)
	viewer.GET("/consolidation/runs/:id", s.runShow)
	viewer.GET("/consolidation/rejections", s.rejectionList)
	viewer.GET("/changes", s.changesList)
	reviewer.POST("/changes/undo", s.changeUndo)

	viewer.GET("/tombstones", s.tombstoneList)
	reviewer.POST("/tombstones/:id/restore", s.tombstoneRestore)

	viewer.GET("/policies", s.policyList)
	admin.POST("/policies/:id", s.policySave)
	admin.POST("/policies/categories/:category", s.categorySave)

	viewer.GET("/audit", s.auditList)
	viewer.GET("/settings", s.settingsShow)
	viewer.GET("/health", s.healthShow)
	viewer.GET("/account", s.accountShow)
	viewer.POST("/account/password", s.accountPassword)

	admin.GET("/users", s.userList)
	admin.POST("/users", s.userCreate)
	admin.POST("/users/:id", s.userSave)
	admin.POST("/users/:id/reset-password", s.userResetPassword)
	admin.GET("/tokens", s.tokenList)
	admin.POST("/tokens", s.tokenCreate)
	admin.POST("/tokens/:id/revoke", s.tokenRevoke)
}

// consoleTimeout is the bound of a request: the request timeout for the
// console's pages and forms; none here for the API and MCP, which bound their
// own, nor for assets, metrics and health checks (these have their own,
// shorter bound).
func (s *Console) consoleTimeout(c echo.Context) time.Duration {
	if !consolePath(c.Request().URL.Path) {
		return 0
	}
	return s.requestTimeout
}

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
		{Section: "entities", Label: "Entities", Href: "/entities"},
		{Section: "working", Label: "Working memory", Href: "/working"},
		{Section: "consolidation", Label: "Consolidation", Href: "/consolidation"},
		{Section: "changes", Label: "What changed", Href: "/changes", Secondary: true},
		{Section: "review", Label: "Review", Href: "/review"},
		{Section: "tombstones", Label: "Tombstones", Href: "/tombstones", Secondary: true},
		{Section: "policies", Label: "Decay policies", Href: "/policies", Secondary: true},
		{Section: "audit", Label: "Audit log", Href: "/audit", Secondary: true},
		{Section: "settings", Label: "Settings", Href: "/settings", Secondary: true},
		{Section: "health", Label: "Health", Href: "/health", Secondary: true},
		{Section: "account", Label: "Your account", Href: "/account", Secondary: true},
	}
	if role.Allows(auth.RoleAdmin) {
		items = append(items,
			layouts.NavItem{Section: "users", Label: "Users", Href: "/users", Secondary: true},
			layouts.NavItem{Section: "tokens", Label: "API tokens", Href: "/tokens", Secondary: true})
	}
	return items
}
