// Package metrics exposes Tenure's counters to Prometheus: consolidation
// refusals, promotions, decay archives and scheduled job runs.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Registry holds the process's metrics. It implements memory.Metrics and
// jobs.Metrics.
type Registry struct {
	reg      *prometheus.Registry
	rejected *prometheus.CounterVec
	archived prometheus.Counter
	promoted prometheus.Counter
	jobRuns  *prometheus.CounterVec
	jobTime  *prometheus.HistogramVec
}

// New returns a registry with the Go and process collectors and Tenure's own.
func New() *Registry {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenure_consolidation_rejections_total",
			Help: "Working rows refused by a consolidation phase or an automated writer, by phase and reason (transient, expired, decision_locked). Phase 0 is a refusal outside consolidation.",
		}, []string{"phase", "reason"}),
		archived: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tenure_facts_archived_total",
			Help: "Facts archived by decay (their effective confidence fell below the floor, or they expired).",
		}),
		promoted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tenure_nodes_promoted_total",
			Help: "Working rows turned into facts, reinforcements or decisions by consolidation.",
		}),
		jobRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenure_job_runs_total",
			Help: "Scheduled job runs by job and result (ok, error).",
		}, []string{"job", "result"}),
		jobTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tenure_job_duration_seconds",
			Help:    "Duration of scheduled job runs.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 9),
		}, []string{"job"}),
	}
	r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		r.rejected, r.archived, r.promoted, r.jobRuns, r.jobTime)
	return r
}

// Rejected counts one refusal.
func (r *Registry) Rejected(phase int, reason string) {
	r.rejected.WithLabelValues(strconv.Itoa(phase), reason).Inc()
}

// Archived counts facts archived by decay.
func (r *Registry) Archived(n int) { r.archived.Add(float64(n)) }

// Promoted counts promoted working rows.
func (r *Registry) Promoted(n int) { r.promoted.Add(float64(n)) }

// ObserveRun records one scheduled job run.
func (r *Registry) ObserveRun(job string, took time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	r.jobRuns.WithLabelValues(job, result).Inc()
	r.jobTime.WithLabelValues(job).Observe(took.Seconds())
}

// Handler serves the metrics in the Prometheus text format.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{})
}

// Gatherer exposes the registry to tests.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }
