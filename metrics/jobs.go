package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tenurehq/tenure/jobs"
)

// sourceTimeout bounds each read of the database at a scrape.
const sourceTimeout = 3 * time.Second

// JobSource is where the jobs' records are read from: jobs.History.
type JobSource interface {
	Summaries(ctx context.Context) ([]jobs.Summary, error)
}

// CollectJobs adds the scheduled jobs' totals and latest runs, read from
// src at every scrape: the record every replica writes to and reads from,
// so that every replica reports the same values and a restart resets none.
func (r *Registry) CollectJobs(src JobSource) error {
	if src == nil {
		return errors.New("metrics: collect jobs: nil source")
	}
	return r.reg.Register(newJobsCollector(src, time.Now))
}

type jobsCollector struct {
	src    JobSource
	errors *sourceErrors
	now    func() time.Time

	runs, failures, lastSuccess, lastRun, lastDuration, running, interval *prometheus.Desc
}

func newJobsCollector(src JobSource, now func() time.Time) *jobsCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("tenure_job_"+name, help, []string{"job"}, nil)
	}
	return &jobsCollector{
		src: src, errors: newSourceErrors("jobs"), now: now,
		runs:         d("runs_total", "Finished runs of each scheduled job on every replica, from the record in the database."),
		failures:     d("failures_total", "Runs of each scheduled job that failed (an error, a panic or the timeout) on every replica, from the record in the database."),
		lastSuccess:  d("last_success_timestamp_seconds", "When the latest successful run of each job ended, in Unix seconds; absent while a job never succeeded."),
		lastRun:      d("last_run_timestamp_seconds", "When the latest run of each job started, in Unix seconds; absent while a job never ran."),
		lastDuration: d("last_duration_seconds", "How long the latest finished run of each job took; absent while a job never finished a run."),
		running:      d("running", "1 while a run of the job is under way on some replica (started, not finished, not past its timeout), else 0."),
		interval:     d("interval_seconds", "Each job's interval, as the replica that last ran it has it."),
	}
}

func (c *jobsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.runs, c.failures, c.lastSuccess, c.lastRun, c.lastDuration, c.running, c.interval, c.errors.desc} {
		ch <- d
	}
}

func (c *jobsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), sourceTimeout)
	defer cancel()
	list, err := c.src.Summaries(ctx)
	if err != nil {
		c.errors.failed()
	}
	ch <- c.errors.metric()
	if err != nil {
		return
	}
	now := c.now()
	for _, j := range list {
		m := func(d *prometheus.Desc, t prometheus.ValueType, v float64) {
			ch <- prometheus.MustNewConstMetric(d, t, v, j.Name)
		}
		m(c.runs, prometheus.CounterValue, float64(j.Runs))
		m(c.failures, prometheus.CounterValue, float64(j.Failures))
		m(c.interval, prometheus.GaugeValue, j.Interval.Seconds())
		running := 0.0
		if j.RunningAt(now) {
			running = 1
		}
		m(c.running, prometheus.GaugeValue, running)
		if !j.LastSuccess.IsZero() {
			m(c.lastSuccess, prometheus.GaugeValue, unixSeconds(j.LastSuccess))
		}
		if !j.LastStarted.IsZero() {
			m(c.lastRun, prometheus.GaugeValue, unixSeconds(j.LastStarted))
		}
		if !j.LastFinished.IsZero() {
			m(c.lastDuration, prometheus.GaugeValue, j.LastDuration.Seconds())
		}
	}
}

// unixSeconds is t in Unix seconds, with its fraction.
func unixSeconds(t time.Time) float64 {
	return float64(t.UnixMicro()) / 1e6
}
