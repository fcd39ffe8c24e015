package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) tombstoneList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "tombstoneList is not built yet")
}

func (s *Server) tombstoneRestore(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "tombstoneRestore is not built yet")
}
