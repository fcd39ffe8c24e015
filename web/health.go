package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz says the process is up; it touches nothing else.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz says the process can serve: the database answers a query.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	var one int
	if err := s.pool.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		s.logger.Warn("readyz.database", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{
			"status": "unavailable", "database": "unreachable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "database": "ok"})
}
