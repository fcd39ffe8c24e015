package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) reviewList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "reviewList is not built yet")
}

func (s *Server) reviewResolve(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "reviewResolve is not built yet")
}
