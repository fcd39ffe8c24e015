package server

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz says the process is up; it touches nothing else. With standbys
// (Config.Reads) it also lists each as the read router's checks last saw
// it: a standby's failure takes it out of rotation, never makes the
// process unhealthy, so the status stays ok. Anyone may ask, so it tells
// each standby's name and state, not its address nor its error (a
// connection error names hosts and users): those are on the console's
// health page and in the log.
func (s *Server) healthz(c echo.Context) error {
	if s.reads == nil {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	}
	st := s.reads.Status()
	standbys := make([]standbyHealth, len(st.Standbys))
	for i, sb := range st.Standbys {
		standbys[i] = standbyHealth{Name: sb.Name, Healthy: sb.Healthy, InRotation: sb.InRotation,
			ReplayLSN: sb.ReplayLSN.String()}
		if sb.LagKnown {
			lag := sb.Lag.Seconds()
			standbys[i].LagSeconds = &lag
		}
		if !sb.LastCheck.IsZero() {
			standbys[i].LastCheck = &st.Standbys[i].LastCheck
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"status": "ok", "standbys": standbys})
}

// standbyHealth is a standby in /healthz.
type standbyHealth struct {
	Name       string     `json:"name"`
	Healthy    bool       `json:"healthy"`
	InRotation bool       `json:"in_rotation"`
	LagSeconds *float64   `json:"lag_seconds"` // null while unknown
	ReplayLSN  string     `json:"replay_lsn"`
	LastCheck  *time.Time `json:"last_check,omitempty"`
}

// readyz says the process can serve: the database answers a query.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	var one int
	if err := s.pool.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		s.logger.Warn("readyz.database", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{
			"status": "unavailable", "database": "unreachable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "database": "ok"})
}

// MetricsHandler guards metrics with a bearer token: a request without
// "Authorization: Bearer token" is answered 401. The scheme is read in any
// case, as RFC 7235 has it ("bearer", "BEARER"); the token is compared in
// constant time. An empty token guards nothing, for a listener that only
// trusted networks reach.
func MetricsHandler(metrics http.Handler, token string) http.Handler {
	if token == "" {
		return metrics
	}
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		ok := subtle.ConstantTimeCompare([]byte(strings.TrimLeft(got, " ")), want) == 1
		if !strings.EqualFold(scheme, "Bearer") || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "metrics need the bearer token set with --metrics-token (TENURE_METRICS_TOKEN)", http.StatusUnauthorized)
			return
		}
		metrics.ServeHTTP(w, r)
	})
}
