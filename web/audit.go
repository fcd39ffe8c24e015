package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) auditList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "auditList is not built yet")
}
