package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) consolidationShow(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "consolidationShow is not built yet")
}

func (s *Server) consolidationRun(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "consolidationRun is not built yet")
}

func (s *Server) runShow(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "runShow is not built yet")
}

func (s *Server) rejectionList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "rejectionList is not built yet")
}
