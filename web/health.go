package web

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/views/pages"
)

// healthShow shows the primary as one query to it finds it, this
// process's pool, and each standby as the read router last saw it
// (Config.Reads). It reads nothing else, so it answers while the rest of
// the console may not.
func (s *Console) healthShow(c echo.Context) error {
	view := s.healthView(c.Request().Context())
	content := pages.Health(view)
	return s.page(c, http.StatusOK, "Health", "health", content, pages.HealthPanels(view))
}

// healthView gathers the health page.
func (s *Console) healthView(ctx context.Context) pages.HealthPage {
	view := pages.HealthPage{Now: s.now()}
	cc := s.pool.Config().ConnConfig
	view.Primary.Addr = net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port)))
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	err := s.pool.QueryRow(qctx, `
SELECT current_setting('server_version'),
       CASE WHEN pg_is_in_recovery() THEN 'in recovery' ELSE pg_current_wal_insert_lsn()::text END,
       pg_size_pretty(pg_database_size(current_database()))`).
		Scan(&view.Primary.Version, &view.Primary.WAL, &view.Primary.Size)
	view.Primary.Latency = time.Since(start)
	if err != nil {
		s.logger.Warn("console.health_primary", "err", err)
		view.Primary.Error = "the primary did not answer within 2 s: " + err.Error()
	}
	st := s.pool.Stat()
	view.Pool = pages.PoolHealth{Total: st.TotalConns(), Idle: st.IdleConns(), InUse: st.AcquiredConns(),
		Max: st.MaxConns(), WaitCount: st.EmptyAcquireCount(), WaitDuration: st.AcquireDuration()}
	if s.reads == nil {
		return view
	}
	view.MaxLag = s.reads.Options().MaxLag
	for _, sb := range s.reads.Status().Standbys {
		view.Standbys = append(view.Standbys, pages.StandbyHealth{
			Name: sb.Name, Addr: sb.Addr, Healthy: sb.Healthy, InRotation: sb.InRotation,
			Lag: sb.Lag, LagKnown: sb.LagKnown, ReplayLSN: sb.ReplayLSN.String(),
			LastCheck: sb.LastCheck, LastError: sb.LastError,
		})
	}
	return view
}
