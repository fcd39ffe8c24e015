// Package metrics exposes Tenure to Prometheus: HTTP requests by route, the
// database pool, the scheduled jobs, consolidation and its refusals, and
// decay archives.
//
// Two kinds of metric live side by side. Those a process observes itself
// (HTTP requests, its pool, the refusals and promotions of the runs it
// makes, the durations of the job runs it makes) count what this process
// did since it started, as Prometheus counters usually do: sum them over
// replicas. Those read from the database when /metrics is scraped (the
// tenure_job_* totals, the tenure_consolidation_* totals and the rows
// waiting) count what every replica did, from the records the runs leave:
// every replica reports the same values, and they do not reset when a
// process restarts. Aggregate those with max, not sum.
package metrics

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Registry holds the process's metrics. It implements memory.Metrics and
// jobs.Metrics, and observes HTTP requests for the server.
type Registry struct {
	reg      *prometheus.Registry
	rejected *prometheus.CounterVec
	archived prometheus.Counter
	promoted prometheus.Counter
	jobTime  *prometheus.HistogramVec
	requests *prometheus.CounterVec
	reqTime  *prometheus.HistogramVec
	// reads and readRetries count the routed reads (replica.go); they are
	// registered with the standbys' collector.
	reads, readRetries *prometheus.CounterVec
}

// RequestBuckets are the bounds, in seconds, of the HTTP request duration
// histogram: from a cached page to the default request timeout (30 s).
var RequestBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// New returns a registry with the Go and process collectors and Tenure's
// own. The collectors that read the database at scrape time are added with
// CollectPool, CollectJobs and CollectConsolidation.
func New() *Registry {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenure_consolidation_rejections_total",
			Help: "Working rows refused by a consolidation phase or an automated writer in this process, by phase and reason (transient, expired, decision_locked). Phase 0 is a refusal outside consolidation.",
		}, []string{"phase", "reason"}),
		archived: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tenure_facts_archived_total",
			Help: "Facts archived by decay in this process (their effective confidence fell below the floor, or they expired).",
		}),
		promoted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tenure_nodes_promoted_total",
			Help: "Working rows turned into facts, reinforcements or decisions by the consolidation runs of this process.",
		}),
		jobTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tenure_job_duration_seconds",
			Help:    "Duration of the scheduled job runs this process made.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 9),
		}, []string{"job"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenure_http_requests_total",
			Help: "HTTP requests answered, by route template (unmatched for a path no route has), method and status code.",
		}, []string{"route", "method", "code"}),
		reqTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tenure_http_request_duration_seconds",
			Help:    "Time from a request's arrival to its answer, by route template, method and status code.",
			Buckets: RequestBuckets,
		}, []string{"route", "method", "code"}),
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenure_replica_reads_total",
			Help: "Reads routed between the primary and the hot standbys (--read-database-url) in this process, by where they ran (target primary or standby); a read retried elsewhere counts once more.",
		}, []string{"target"}),
		readRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenure_replica_read_retries_total",
			Help: "Routed reads run again because a standby failed under them (it went down, or cancelled the read to replay WAL), by where the retry ran (target primary or standby).",
		}, []string{"target"}),
	}
	r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		r.rejected, r.archived, r.promoted, r.jobTime, r.requests, r.reqTime)
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

// ObserveRun records the duration of one scheduled job run made by this
// process. The runs and failures of every replica are counted from the
// database (CollectJobs).
func (r *Registry) ObserveRun(job string, took time.Duration, _ error) {
	r.jobTime.WithLabelValues(job).Observe(took.Seconds())
}

// ObserveRequest records one answered HTTP request. route is the route
// template (such as /api/v1/scopes/:scope/facts/:id), never the path asked
// for, so that the label values are as many as the routes.
func (r *Registry) ObserveRequest(route, method string, code int, took time.Duration) {
	c := strconv.Itoa(code)
	r.requests.WithLabelValues(route, method, c).Inc()
	r.reqTime.WithLabelValues(route, method, c).Observe(took.Seconds())
}

// Handler serves the metrics in the Prometheus text format.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{})
}

// Gatherer exposes the registry to tests.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// sourceErrors counts the failed reads of one source of metrics in the
// database. Each collector that reads one sends its count with its
// metrics, so that a scrape at which a read failed counts it.
type sourceErrors struct {
	desc *prometheus.Desc
	n    atomic.Uint64
}

func newSourceErrors(source string) *sourceErrors {
	return &sourceErrors{desc: prometheus.NewDesc("tenure_metrics_source_errors_total",
		"Scrapes at which reading a source of metrics from the database failed, by source (jobs, consolidation_runs, pending_rows): "+
			"that source's metrics are missing from that scrape, or keep their last values.",
		nil, prometheus.Labels{"source": source})}
}

// failed counts a failed read.
func (e *sourceErrors) failed() { e.n.Add(1) }

func (e *sourceErrors) metric() prometheus.Metric {
	return prometheus.MustNewConstMetric(e.desc, prometheus.CounterValue, float64(e.n.Load()))
}
