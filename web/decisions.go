package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) decisionList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "decisionList is not built yet")
}

func (s *Server) decisionNew(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "decisionNew is not built yet")
}

func (s *Server) decisionCreate(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "decisionCreate is not built yet")
}

func (s *Server) decisionShow(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "decisionShow is not built yet")
}

func (s *Server) decisionSave(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "decisionSave is not built yet")
}

func (s *Server) decisionReopen(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "decisionReopen is not built yet")
}

func (s *Server) decisionRelock(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "decisionRelock is not built yet")
}
