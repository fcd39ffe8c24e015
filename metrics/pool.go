package metrics

import (
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// CollectPool adds the statistics of pool, the process's connections to
// PostgreSQL, read when the metrics are scraped. It fails if a pool was
// added already.
func (r *Registry) CollectPool(pool *pgxpool.Pool) error {
	if pool == nil {
		return errors.New("metrics: collect pool: nil pool")
	}
	return r.reg.Register(newPoolCollector(pool.Stat))
}

// poolCollector reads a pgxpool's statistics at every scrape.
type poolCollector struct {
	stat func() *pgxpool.Stat

	acquired, idle, constructing, total, max          *prometheus.Desc
	acquires, acquireSeconds, emptyAcquires, canceled *prometheus.Desc
	emptyWaitSeconds, newConns                        *prometheus.Desc
	lifetimeDestroys, idleDestroys                    *prometheus.Desc
}

func newPoolCollector(stat func() *pgxpool.Stat) *poolCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("tenure_db_pool_"+name, help, nil, nil)
	}
	return &poolCollector{
		stat:             stat,
		acquired:         d("acquired_connections", "Connections of the pool in use now."),
		idle:             d("idle_connections", "Connections of the pool idle now."),
		constructing:     d("constructing_connections", "Connections of the pool being opened now."),
		total:            d("total_connections", "Connections the pool holds now: acquired, idle and being opened."),
		max:              d("max_connections", "Most connections the pool may hold (pool_max_conns)."),
		acquires:         d("acquires_total", "Connections acquired from the pool."),
		acquireSeconds:   d("acquire_duration_seconds_total", "Time spent acquiring connections from the pool, in total; divided by tenure_db_pool_acquires_total, the mean wait."),
		emptyAcquires:    d("empty_acquires_total", "Acquires that waited for a connection because none was idle."),
		canceled:         d("canceled_acquires_total", "Acquires cancelled by their context before they got a connection."),
		emptyWaitSeconds: d("empty_acquire_wait_seconds_total", "Time the acquires that found no idle connection spent waiting, in total."),
		newConns:         d("new_connections_total", "Connections the pool opened."),
		lifetimeDestroys: d("max_lifetime_destroys_total", "Connections closed because they reached their maximum lifetime."),
		idleDestroys:     d("max_idle_destroys_total", "Connections closed because they stayed idle too long."),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.acquired, c.idle, c.constructing, c.total, c.max, c.acquires,
		c.acquireSeconds, c.emptyAcquires, c.canceled, c.emptyWaitSeconds, c.newConns, c.lifetimeDestroys, c.idleDestroys} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stat()
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge(c.acquired, float64(s.AcquiredConns()))
	gauge(c.idle, float64(s.IdleConns()))
	gauge(c.constructing, float64(s.ConstructingConns()))
	gauge(c.total, float64(s.TotalConns()))
	gauge(c.max, float64(s.MaxConns()))
	counter(c.acquires, float64(s.AcquireCount()))
	counter(c.acquireSeconds, s.AcquireDuration().Seconds())
	counter(c.emptyAcquires, float64(s.EmptyAcquireCount()))
	counter(c.canceled, float64(s.CanceledAcquireCount()))
	counter(c.emptyWaitSeconds, s.EmptyAcquireWaitTime().Seconds())
	counter(c.newConns, float64(s.NewConnsCount()))
	counter(c.lifetimeDestroys, float64(s.MaxLifetimeDestroyCount()))
	counter(c.idleDestroys, float64(s.MaxIdleDestroyCount()))
}
