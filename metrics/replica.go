package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tenurehq/tenure/replica"
)

// CollectStandbys adds the state of the hot standbys reads are routed to
// (tenure_standby_*), read from router at every scrape, and the counts of
// routed reads. Give ObserveRead to the router as its OnRead so that the
// counts count. It fails if standbys were added already.
func (r *Registry) CollectStandbys(router *replica.Router) error {
	if router == nil {
		return errors.New("metrics: collect standbys: nil router")
	}
	return r.reg.Register(newStandbyCollector(router.Status, r))
}

// ObserveRead counts one run of a routed read (replica.Options.OnRead):
// on the standby named standby, or on the primary when it is "", and as a
// retry when a standby failed under the read first.
func (r *Registry) ObserveRead(standby string, retry bool) {
	target := "standby"
	if standby == "" {
		target = "primary"
	}
	r.reads.WithLabelValues(target).Inc()
	if retry {
		r.readRetries.WithLabelValues(target).Inc()
	}
}

// standbyCollector reads the router's view of each standby at every scrape.
type standbyCollector struct {
	status                func() replica.Status
	healthy, inRotation   *prometheus.Desc
	lag, lagKnown, replay *prometheus.Desc
	reads, readRetries    *prometheus.CounterVec
}

func newStandbyCollector(status func() replica.Status, r *Registry) *standbyCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("tenure_standby_"+name, help, []string{"standby"}, nil)
	}
	return &standbyCollector{
		status:     status,
		healthy:    d("healthy", "1 when the standby answered its last check as a standby of the primary and no read has failed on it since."),
		inRotation: d("in_rotation", "1 when reads may go to the standby now: healthy and no further behind the primary than --read-max-lag."),
		lag: d("lag_seconds", "How far the standby is behind the primary: the time since the primary had written no more than the standby has replayed, "+
			"to about the check interval. Absent while unknown."),
		lagKnown: d("lag_known", "1 when the standby's lag is known (it has been checked while the primary answered)."),
		replay:   d("replay_lsn_bytes", "The WAL position the standby had replayed at its last successful check, in bytes."),
		reads:    r.reads, readRetries: r.readRetries,
	}
}

func (c *standbyCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.healthy, c.inRotation, c.lag, c.lagKnown, c.replay} {
		ch <- d
	}
	c.reads.Describe(ch)
	c.readRetries.Describe(ch)
}

func (c *standbyCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, name string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, name)
	}
	for _, s := range c.status().Standbys {
		gauge(c.healthy, bit(s.Healthy), s.Name)
		gauge(c.inRotation, bit(s.InRotation), s.Name)
		gauge(c.lagKnown, bit(s.LagKnown), s.Name)
		if s.LagKnown {
			gauge(c.lag, s.Lag.Seconds(), s.Name)
		}
		gauge(c.replay, float64(s.ReplayLSN), s.Name)
	}
	c.reads.Collect(ch)
	c.readRetries.Collect(ch)
}

// bit is 1 for true, 0 for false.
func bit(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
