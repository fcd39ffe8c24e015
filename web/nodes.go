package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) nodeList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "nodeList is not built yet")
}

func (s *Server) nodeMarkers(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "nodeMarkers is not built yet")
}
