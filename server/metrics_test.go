package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/jobs"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/metrics"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

const metricsToken = "metrics-token-for-the-test"

// families is one scrape of /metrics, parsed.
type families map[string]*dto.MetricFamily

// scrapeMetrics fetches /metrics from the running server, with its token,
// and parses it with Prometheus's own text parser.
func scrapeMetrics(t testing.TB, url string) families {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics = %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("/metrics Content-Type = %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// metric returns the sample of family name whose labels include labels
// (name, value, ...), nil if there is none.
func (f families) metric(name string, labels ...string) *dto.Metric {
	for _, m := range f[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				match = false
			}
		}
		if match {
			return m
		}
	}
	return nil
}

// value is a counter's or gauge's value; 0 when the sample is absent, as a
// counter not yet incremented.
func (f families) value(name string, labels ...string) float64 {
	m := f.metric(name, labels...)
	if m.GetCounter() != nil {
		return m.GetCounter().GetValue()
	}
	return m.GetGauge().GetValue()
}

// TestMetricsScrape runs a real server and scrapes /metrics as Prometheus
// would: every family is there with its type, and the values move with
// what the server, its jobs and consolidation do.
func TestMetricsScrape(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := metrics.New()
	store := memory.NewStore(pool, memory.Options{Logger: logger, Metrics: reg})
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Pool: pool, Logger: logger, Assets: assets, Store: store,
		Registry: reg, Metrics: reg.Handler(), MetricsToken: metricsToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)

	// The scheduler of this process records its jobs where every replica
	// reads them.
	sched, err := jobs.NewScheduler(jobs.Options{Logger: logger, Recorder: jobs.NewHistory(pool)},
		jobs.Job{Name: "probe", Interval: time.Hour, Run: func(context.Context) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sched.Shutdown() })
	sched.Start()

	before := scrapeMetrics(t, ts.URL)
	for name, typ := range map[string]dto.MetricType{
		"tenure_db_pool_acquired_connections":             dto.MetricType_GAUGE,
		"tenure_db_pool_idle_connections":                 dto.MetricType_GAUGE,
		"tenure_db_pool_total_connections":                dto.MetricType_GAUGE,
		"tenure_db_pool_max_connections":                  dto.MetricType_GAUGE,
		"tenure_db_pool_acquires_total":                   dto.MetricType_COUNTER,
		"tenure_db_pool_acquire_duration_seconds_total":   dto.MetricType_COUNTER,
		"tenure_db_pool_empty_acquires_total":             dto.MetricType_COUNTER,
		"tenure_job_runs_total":                           dto.MetricType_COUNTER,
		"tenure_job_failures_total":                       dto.MetricType_COUNTER,
		"tenure_job_running":                              dto.MetricType_GAUGE,
		"tenure_job_interval_seconds":                     dto.MetricType_GAUGE,
		"tenure_consolidation_run_duration_seconds":       dto.MetricType_HISTOGRAM,
		"tenure_consolidation_pending_rows":               dto.MetricType_GAUGE,
		"tenure_metrics_source_errors_total":              dto.MetricType_COUNTER,
		"go_goroutines":                                   dto.MetricType_GAUGE,
		"tenure_db_pool_empty_acquire_wait_seconds_total": dto.MetricType_COUNTER,
	} {
		f := before[name]
		if f == nil {
			t.Errorf("/metrics has no family %s", name)
			continue
		}
		if f.GetType() != typ {
			t.Errorf("%s is a %s, want a %s", name, f.GetType(), typ)
		}
	}
	if got := before.value("tenure_db_pool_max_connections"); got != float64(pool.Config().MaxConns) || got < 1 {
		t.Errorf("tenure_db_pool_max_connections = %v, want the pool's %d", got, pool.Config().MaxConns)
	}
	if got := before.value("tenure_job_runs_total", "job", "probe"); before.metric("tenure_job_runs_total", "job", "probe") == nil || got != 0 {
		t.Errorf("probe runs before its first run = %v (listed %v), want listed with 0", got, before.metric("tenure_job_runs_total", "job", "probe") != nil)
	}
	if before.metric("tenure_job_last_success_timestamp_seconds", "job", "probe") != nil {
		t.Error("probe has a last success before it ran")
	}

	// Requests: by route template, method and status, never by path.
	do := func(method, path string) {
		t.Helper()
		req, err := http.NewRequest(method, ts.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 3 {
		do(http.MethodGet, "/healthz")
	}
	do(http.MethodHead, "/healthz")
	do("BREW", "/healthz")
	do(http.MethodGet, "/api/v1/scopes/ops/facts/42") // no token: 401
	do(http.MethodGet, "/api/v1/scopes/support/facts/7")
	do(http.MethodGet, "/no/such/page-4711")

	// A job run.
	runStart := time.Now()
	if err := sched.RunNow("probe"); err != nil {
		t.Fatal(err)
	}
	if err := sched.Shutdown(); err != nil { // waits for the run
		t.Fatal(err)
	}

	// A consolidation run promoting three rows.
	var nodes []memory.NewNode
	for i := range 3 {
		nodes = append(nodes, memory.NewNode{Content: fmt.Sprintf("Ticket %d was resolved by the support team.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Ticket %d", i), "key": "status"}})
	}
	if _, err := store.Push(ctx, memory.Token("agent"), "support", nodes); err != nil {
		t.Fatal(err)
	}
	if got := scrapeMetrics(t, ts.URL).value("tenure_consolidation_pending_rows", "marker", "durable"); got != 3 {
		t.Errorf("durable rows pending after a push of 3 = %v, want 3", got)
	}
	if _, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}

	after := scrapeMetrics(t, ts.URL)
	for _, c := range []struct {
		route, method, code string
		n                   float64
	}{
		{"/healthz", "GET", "200", 3},
		{"/healthz", "HEAD", "200", 1},
		{"/healthz", "other", "405", 1},
		{"/api/v1/scopes/:scope/facts/:id", "GET", "401", 2},
		{"unmatched", "GET", "404", 1},
	} {
		labels := []string{"route", c.route, "method", c.method, "code", c.code}
		if got := after.value("tenure_http_requests_total", labels...) - before.value("tenure_http_requests_total", labels...); got != c.n {
			t.Errorf("requests %s %s %s grew by %v, want %v", c.method, c.route, c.code, got, c.n)
		}
		if h := after.metric("tenure_http_request_duration_seconds", labels...).GetHistogram(); h.GetSampleCount() < uint64(c.n) ||
			len(h.GetBucket()) != len(metrics.RequestBuckets)+1 {
			t.Errorf("duration histogram of %s %s %s = %v, want at least %v requests in every bucket", c.method, c.route, c.code, h, c.n)
		}
	}
	if f := after["tenure_http_requests_total"]; f.GetType() != dto.MetricType_COUNTER {
		t.Errorf("tenure_http_requests_total is a %s, want a counter", f.GetType())
	}
	if f := after["tenure_http_request_duration_seconds"]; f.GetType() != dto.MetricType_HISTOGRAM {
		t.Errorf("tenure_http_request_duration_seconds is a %s, want a histogram", f.GetType())
	}
	for _, m := range after["tenure_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if strings.Contains(l.GetValue(), "4711") || strings.Contains(l.GetValue(), "/ops/") || l.GetValue() == "BREW" {
				t.Errorf("a label holds what a client sent: %s=%q", l.GetName(), l.GetValue())
			}
		}
	}
	// The scrapes are requests too.
	if got := after.value("tenure_http_requests_total", "route", "/metrics", "method", "GET", "code", "200"); got < 1 {
		t.Errorf("/metrics requests = %v, want the earlier scrapes counted", got)
	}
	if got := after.value("tenure_db_pool_acquires_total"); got <= before.value("tenure_db_pool_acquires_total") {
		t.Errorf("pool acquires went from %v to %v, want more", before.value("tenure_db_pool_acquires_total"), got)
	}

	// The job's run, from the record every replica reads.
	if got := after.value("tenure_job_runs_total", "job", "probe"); got != 1 {
		t.Errorf("probe runs = %v, want 1", got)
	}
	if got := after.value("tenure_job_failures_total", "job", "probe"); got != 0 {
		t.Errorf("probe failures = %v, want 0", got)
	}
	last := after.metric("tenure_job_last_success_timestamp_seconds", "job", "probe")
	if last == nil || after["tenure_job_last_success_timestamp_seconds"].GetType() != dto.MetricType_GAUGE ||
		last.GetGauge().GetValue() < float64(runStart.Truncate(time.Second).Unix()) {
		t.Errorf("probe last success = %v, want a gauge at or after %v", last, runStart.Unix())
	}
	if m := after.metric("tenure_job_last_duration_seconds", "job", "probe"); m == nil || m.GetGauge().GetValue() < 0 {
		t.Errorf("probe last duration = %v, want a gauge", m)
	}
	if got := after.value("tenure_job_interval_seconds", "job", "probe"); got != 3600 {
		t.Errorf("probe interval = %v, want 3600", got)
	}

	// The consolidation run, from its recorded report.
	promoted := []string{"phase", "10", "outcome", "promoted"}
	if got := after.value("tenure_consolidation_rows_total", promoted...) - before.value("tenure_consolidation_rows_total", promoted...); got != 3 {
		t.Errorf("promoted rows grew by %v, want 3", got)
	}
	if f := after["tenure_consolidation_rows_total"]; f.GetType() != dto.MetricType_COUNTER {
		t.Errorf("tenure_consolidation_rows_total is a %s, want a counter", f.GetType())
	}
	if got := after.value("tenure_consolidation_runs_total", "status", "succeeded"); got != 1 {
		t.Errorf("succeeded runs = %v, want 1", got)
	}
	if h := after.metric("tenure_consolidation_run_duration_seconds").GetHistogram(); h.GetSampleCount() != 1 {
		t.Errorf("run duration histogram = %v, want 1 run", h)
	}
	if got := after.value("tenure_consolidation_pending_rows", "marker", "durable"); got != 0 {
		t.Errorf("durable rows pending after the run = %v, want 0", got)
	}
	// The engine's own counter, beside the recorded one.
	if got := after.value("tenure_nodes_promoted_total"); got != 3 {
		t.Errorf("tenure_nodes_promoted_total = %v, want 3", got)
	}
}

// TestMetricsRegistryServesOneServer: a registry takes the collectors of
// one server; a second server on it is refused, not silently half-counted.
func TestMetricsRegistryServesOneServer(t *testing.T) {
	pool := pgtest.NewPool(t)
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	reg := metrics.New()
	cfg := server.Config{Pool: pool, Assets: assets, Registry: reg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if _, err := server.New(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := server.New(cfg); err == nil {
		t.Error("a second server on the same registry was built, want an error")
	}
}
