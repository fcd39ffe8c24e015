package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) settingsShow(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "settingsShow is not built yet")
}
