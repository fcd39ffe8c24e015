package server

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/jobs"
	"github.com/tenurehq/tenure/metrics"
)

// unmatchedRoute is the route label of a request no route matched: one
// value for every such path, so that a scan of made-up paths adds no series.
const unmatchedRoute = "unmatched"

// collectMetrics gives the registry what it reads at every scrape: the
// pool's statistics, the jobs' record and consolidation's, all in the
// database the server uses, and the standbys' state.
func collectMetrics(reg *metrics.Registry, cfg Config) error {
	if err := reg.CollectPool(cfg.Pool); err != nil {
		return fmt.Errorf("server: metrics: %w", err)
	}
	if err := reg.CollectJobs(jobs.NewHistory(cfg.Pool)); err != nil {
		return fmt.Errorf("server: metrics: %w", err)
	}
	if err := reg.CollectConsolidation(cfg.Store); err != nil {
		return fmt.Errorf("server: metrics: %w", err)
	}
	if cfg.Reads != nil {
		if err := reg.CollectStandbys(cfg.Reads); err != nil {
			return fmt.Errorf("server: metrics: %w", err)
		}
	}
	return nil
}

// observeRequests counts every request and its duration by route template,
// method and status code. It stands outside recovery and the request log:
// they hand a handler's panic or error to the error handler, so the status
// it reads is the one sent. An error that reached it unanswered is answered
// here, as Echo would answer it.
func observeRequests(reg *metrics.Registry) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil && !c.Response().Committed {
				c.Error(err)
			}
			route := c.Path()
			if route == "" {
				route = unmatchedRoute
			}
			reg.ObserveRequest(route, methodLabel(c.Request().Method), c.Response().Status, time.Since(start))
			return err
		}
	}
}

// methodLabel is the method as a label: the standard methods as they are,
// any other as "other", since a client may send any token.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}
