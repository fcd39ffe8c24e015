package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) factShow(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "factShow is not built yet")
}

func (s *Server) factBulk(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "factBulk is not built yet")
}

func (s *Server) factSave(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "factSave is not built yet")
}
