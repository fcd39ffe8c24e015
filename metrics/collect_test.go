package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/jobs"
	"github.com/tenurehq/tenure/memory"
)

// scrape serves the registry's metrics and parses them as Prometheus would.
func scrape(t *testing.T, r *Registry) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics = %d: %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// sample returns the metric of family name whose labels include labels
// (name=value pairs), nil if there is none.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
	for _, m := range f.GetMetric() {
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

// value is the value of a counter or gauge sample, -1 when absent.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	m := sample(fams, name, labels...)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	return -1
}

func durableNodes(n int, tag string) []memory.NewNode {
	var out []memory.NewNode
	for i := range n {
		out = append(out, memory.NewNode{Content: fmt.Sprintf("Ticket %s-%d was resolved by the support team.", tag, i),
			Properties: map[string]any{"entity": fmt.Sprintf("Ticket %s-%d", tag, i), "key": "status"}})
	}
	return out
}

// TestConsolidationTotals: the first scrape sums every run the database
// holds, each later one adds only the runs finished since, and a run still
// under way holds back the runs after it until it has finished.
func TestConsolidationTotals(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	store := memory.NewStore(pool, memory.Options{Logger: slog.New(slog.DiscardHandler)})
	consolidate := func() memory.Run {
		t.Helper()
		run, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerTest})
		if err != nil {
			t.Fatalf("Consolidate() = %v", err)
		}
		return run
	}
	push := func(nodes []memory.NewNode) {
		t.Helper()
		if _, err := store.Push(ctx, memory.Token("agent"), "support", nodes); err != nil {
			t.Fatalf("Push() = %v", err)
		}
	}
	push(durableNodes(3, "a"))
	first := consolidate()

	r := New()
	if err := r.CollectConsolidation(store); err != nil {
		t.Fatal(err)
	}
	promoted := func(f map[string]*dto.MetricFamily) float64 {
		return value(f, "tenure_consolidation_rows_total", "phase", "10", "outcome", "promoted")
	}
	f := scrape(t, r)
	if got, want := promoted(f), float64(first.Count(memory.PhasePromote, "promoted")); got != want || want != 3 {
		t.Errorf("promoted at the first scrape = %v, want %v (the run made before the registry existed), and 3", got, want)
	}
	if got := value(f, "tenure_consolidation_runs_total", "status", "succeeded"); got != 1 {
		t.Errorf("succeeded runs = %v, want 1", got)
	}
	if got := value(f, "tenure_consolidation_pending_rows", "marker", "durable"); got != 0 {
		t.Errorf("durable rows pending = %v, want 0", got)
	}
	if got := value(f, "tenure_consolidation_pending_rows", "marker", "transient"); got != 0 {
		t.Errorf("transient rows pending = %v, want 0 (every marker is listed)", got)
	}
	if f := scrape(t, r); promoted(f) != 3 {
		t.Errorf("promoted at a second scrape with no new run = %v, want 3 still", promoted(f))
	}

	push(durableNodes(2, "b"))
	if got := value(scrape(t, r), "tenure_consolidation_pending_rows", "marker", "durable"); got != 2 {
		t.Errorf("durable rows pending after a push = %v, want 2", got)
	}
	consolidate()
	f = scrape(t, r)
	if got := promoted(f); got != 5 {
		t.Errorf("promoted after a second run = %v, want 5", got)
	}
	h := sample(f, "tenure_consolidation_run_duration_seconds").GetHistogram()
	if h.GetSampleCount() != 2 || len(h.GetBucket()) != len(RunBuckets)+1 { // and +Inf
		t.Errorf("run duration histogram = %v, want 2 runs in %d buckets and +Inf", h, len(RunBuckets))
	}

	// A run left running (its process is still at it) holds back the
	// count of the runs after it.
	var running int64
	if err := pool.QueryRow(ctx, `INSERT INTO consolidation_runs (trigger, report) VALUES ('test', '{"10": {"promoted": 1}}')
		RETURNING id`).Scan(&running); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO consolidation_runs (trigger, status, finished_at, report)
		VALUES ('test', 'succeeded', now(), '{"10": {"promoted": 7}}')`); err != nil {
		t.Fatal(err)
	}
	if got := promoted(scrape(t, r)); got != 5 {
		t.Errorf("promoted while an earlier run is under way = %v, want 5 still", got)
	}
	if _, err := pool.Exec(ctx, `UPDATE consolidation_runs SET status = 'interrupted', finished_at = now() WHERE id = $1`, running); err != nil {
		t.Fatal(err)
	}
	f = scrape(t, r)
	if got := promoted(f); got != 13 {
		t.Errorf("promoted once the run ended = %v, want 13", got)
	}
	if got := value(f, "tenure_consolidation_runs_total", "status", "interrupted"); got != 1 {
		t.Errorf("interrupted runs = %v, want 1", got)
	}
}

// TestSourceErrors: when the database cannot be read, the scrape still
// answers: the jobs are left out, consolidation's totals keep their last
// values, and the failures are counted.
func TestSourceErrors(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	h := jobs.NewHistory(pool)
	if err := h.Finished(ctx, jobs.Run{Job: "decay", Interval: time.Minute, Started: time.Now(), Finished: time.Now()}); err != nil {
		t.Fatal(err)
	}
	r := New()
	store := memory.NewStore(pool, memory.Options{Logger: slog.New(slog.DiscardHandler)})
	for _, err := range []error{r.CollectPool(pool), r.CollectJobs(h), r.CollectConsolidation(store)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := r.CollectPool(pool); err == nil {
		t.Error("a second CollectPool succeeded, want an error")
	}
	f := scrape(t, r)
	if got := value(f, "tenure_job_runs_total", "job", "decay"); got != 1 {
		t.Fatalf("decay runs = %v, want 1", got)
	}
	for _, source := range []string{"jobs", "consolidation_runs", "pending_rows"} {
		if got := value(f, "tenure_metrics_source_errors_total", "source", source); got != 0 {
			t.Errorf("source errors of %s = %v, want 0", source, got)
		}
	}
	if got := value(f, "tenure_db_pool_max_connections"); got != float64(pool.Config().MaxConns) {
		t.Errorf("pool max connections = %v, want %d", got, pool.Config().MaxConns)
	}

	pool.Close()
	f = scrape(t, r)
	if f["tenure_job_runs_total"] != nil {
		t.Error("the jobs are listed though their record cannot be read")
	}
	if f["tenure_consolidation_runs_total"] != nil || f["tenure_consolidation_run_duration_seconds"] == nil {
		t.Error("consolidation's totals should keep their values (a histogram with no run, no run count)")
	}
	for _, source := range []string{"jobs", "consolidation_runs", "pending_rows"} {
		if got := value(f, "tenure_metrics_source_errors_total", "source", source); got != 1 {
			t.Errorf("source errors of %s = %v, want 1", source, got)
		}
	}
}
