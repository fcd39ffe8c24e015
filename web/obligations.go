package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) obligationList(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotImplemented, "obligationList is not built yet")
}
