package metrics

import (
	"context"
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tenurehq/tenure/memory"
)

// RunBuckets are the bounds, in seconds, of the consolidation run duration
// histogram: from an idle run to the hour a scheduled run may take at most.
var RunBuckets = []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}

// ConsolidationSource is where consolidation's records are read from:
// memory.Store.
type ConsolidationSource interface {
	// RunTotalsSince sums the finished runs after afterID.
	RunTotalsSince(ctx context.Context, afterID int64, bounds []float64) (memory.RunTotals, error)
	// CountPendingNodes counts the working rows not consolidated yet.
	CountPendingNodes(ctx context.Context) ([]memory.PendingCount, error)
}

// CollectConsolidation adds what the consolidation runs did, from the
// reports they record in the database (consolidation_runs), and the working
// rows waiting for consolidation, read at every scrape. The first scrape
// sums every run recorded; each later one reads the runs finished since.
// The counts are those of every run, whichever process made it (the
// scheduled job, the console, the API, the command line), and the same on
// every replica.
func (r *Registry) CollectConsolidation(src ConsolidationSource) error {
	if src == nil {
		return errors.New("metrics: collect consolidation: nil source")
	}
	return r.reg.Register(newConsolidationCollector(src))
}

type outcomeKey struct{ phase, outcome string }

type consolidationCollector struct {
	src                      ConsolidationSource
	runErrors, pendingErrors *sourceErrors

	rowsDesc, runsDesc, durationDesc, pendingDesc *prometheus.Desc

	// mu guards the totals: scrapes may come at once.
	mu sync.Mutex
	// read is set once the runs have been read: the totals are whole.
	read bool
	// after is the newest run counted.
	after int64
	rows  map[outcomeKey]float64
	runs  map[string]float64 // by status
	// buckets counts the runs by bucket of duration (RunBuckets, then the
	// longer ones), not cumulated; count and sum are the histogram's.
	buckets []uint64
	count   uint64
	sum     float64
}

func newConsolidationCollector(src ConsolidationSource) *consolidationCollector {
	return &consolidationCollector{
		src: src, runErrors: newSourceErrors("consolidation_runs"), pendingErrors: newSourceErrors("pending_rows"),
		rowsDesc: prometheus.NewDesc("tenure_consolidation_rows_total",
			"Working rows and facts each consolidation phase handled, by phase (8 cleanup, 9 decay, 10 promote, 11 merge, 12 decide) and outcome "+
				"(promoted, reinforced, superseded, merged, decisions, archived, pruned_*, the refusals transient_rejected, expired_rejected and decision_locked, set_aside, held, ...), "+
				"summed from the reports of every finished run recorded in the database.",
			[]string{"phase", "outcome"}, nil),
		runsDesc: prometheus.NewDesc("tenure_consolidation_runs_total",
			"Finished consolidation runs recorded in the database, by status (succeeded, partial, failed, cancelled, interrupted).",
			[]string{"status"}, nil),
		durationDesc: prometheus.NewDesc("tenure_consolidation_run_duration_seconds",
			"Duration of the finished consolidation runs recorded in the database.", nil, nil),
		pendingDesc: prometheus.NewDesc("tenure_consolidation_pending_rows",
			"Working rows not consolidated yet, by marker (durable rows wait for promotion; transient and expired rows for refusal and pruning).",
			[]string{"marker"}, nil),
		rows:    map[outcomeKey]float64{},
		runs:    map[string]float64{},
		buckets: make([]uint64, len(RunBuckets)+1),
	}
}

func (c *consolidationCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.rowsDesc
	ch <- c.runsDesc
	ch <- c.durationDesc
	ch <- c.pendingDesc
	ch <- c.runErrors.desc
	ch <- c.pendingErrors.desc
}

func (c *consolidationCollector) Collect(ch chan<- prometheus.Metric) {
	c.collectRuns(ch)
	c.collectPending(ch)
}

// collectRuns adds the runs finished since the last scrape to the totals and
// sends them. When the database cannot be read it sends the totals as they
// were, or nothing before the first read.
func (c *consolidationCollector) collectRuns(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), sourceTimeout)
	defer cancel()
	totals, err := c.src.RunTotalsSince(ctx, c.after, RunBuckets)
	if err != nil {
		c.runErrors.failed()
	} else {
		c.add(totals)
	}
	ch <- c.runErrors.metric()
	if !c.read {
		return
	}
	for k, v := range c.rows {
		ch <- prometheus.MustNewConstMetric(c.rowsDesc, prometheus.CounterValue, v, k.phase, k.outcome)
	}
	for status, v := range c.runs {
		ch <- prometheus.MustNewConstMetric(c.runsDesc, prometheus.CounterValue, v, status)
	}
	cumulative := make(map[float64]uint64, len(RunBuckets))
	var n uint64
	for i, le := range RunBuckets {
		n += c.buckets[i]
		cumulative[le] = n
	}
	ch <- prometheus.MustNewConstHistogram(c.durationDesc, c.count, c.sum, cumulative)
}

// add folds in the totals of the runs after c.after. Called with mu held.
func (c *consolidationCollector) add(t memory.RunTotals) {
	c.read = true
	if t.SettledID <= c.after {
		return
	}
	c.after = t.SettledID
	for _, o := range t.Outcomes {
		c.rows[outcomeKey{o.Phase, o.Outcome}] += float64(o.Rows)
	}
	for _, d := range t.Durations {
		c.runs[d.Status] += float64(d.Runs)
		c.buckets[min(max(d.Bucket, 0), len(RunBuckets))] += uint64(d.Runs)
		c.count += uint64(d.Runs)
		c.sum += d.Seconds
	}
}

// collectPending sends the rows waiting per marker, every marker even
// without rows.
func (c *consolidationCollector) collectPending(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), sourceTimeout)
	defer cancel()
	counts, err := c.src.CountPendingNodes(ctx)
	if err != nil {
		c.pendingErrors.failed()
	}
	ch <- c.pendingErrors.metric()
	if err != nil {
		return
	}
	byMarker := map[memory.Marker]int64{}
	for _, m := range memory.Markers() {
		byMarker[m] = 0
	}
	for _, p := range counts {
		byMarker[p.Marker] += p.Rows
	}
	for m, n := range byMarker {
		ch <- prometheus.MustNewConstMetric(c.pendingDesc, prometheus.GaugeValue, float64(n), string(m))
	}
}
