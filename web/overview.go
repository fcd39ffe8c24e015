package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) overviewShow(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "overviewShow is not built yet")
}
