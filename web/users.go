package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) userList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "userList is not built yet")
}

func (s *Server) userCreate(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "userCreate is not built yet")
}

func (s *Server) userSave(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "userSave is not built yet")
}
