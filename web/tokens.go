package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) tokenList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "tokenList is not built yet")
}

func (s *Server) tokenCreate(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "tokenCreate is not built yet")
}

func (s *Server) tokenRevoke(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "tokenRevoke is not built yet")
}
