package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) policyList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "policyList is not built yet")
}

func (s *Server) policySave(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "policySave is not built yet")
}
