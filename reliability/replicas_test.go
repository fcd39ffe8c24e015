package reliability

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// The job intervals of the replicas test: the shortest "tenure serve"
// accepts, and one twice as long, to see that each job fails over on its own
// grid.
var replicaJobs = []struct {
	name, flag string
	every      time.Duration
}{
	{"consolidation", "--consolidate-every", time.Second},
	{"decay", "--decay-every", time.Second},
	{"tombstone_purge", "--purge-every", 2 * time.Second},
	{"session_purge", "--purge-every", 2 * time.Second}, // the same flag: one grid
}

// TestJobLeaderFailover runs two replicas on one database, kills the one
// leading the scheduled jobs with SIGKILL, and checks that every job then
// runs on the other within two of its intervals, and that no tick of any job
// ever ran on both.
func TestJobLeaderFailover(t *testing.T) {
	url := pgtest.NewURL(t)
	var args []string
	for _, j := range replicaJobs {
		if !slices.Contains(args, j.flag) {
			args = append(args, j.flag, j.every.String())
		}
	}
	a := startTenure(t, "a", url, args...)
	b := startTenure(t, "b", url, args...)
	procs := []*tenure{a, b}

	// Both up; wait until every job has run twice, on whichever leads.
	ok := waitFor(20*time.Second, func() bool {
		count := map[string]int{}
		for _, p := range procs {
			for _, r := range p.runs() {
				count[r.Job]++
			}
		}
		for _, j := range replicaJobs {
			if count[j.name] < 2 {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("the jobs did not each run twice within 20 s\n--- a:\n%s\n--- b:\n%s", a.output(), b.output())
	}
	var leader, survivor *tenure
	switch {
	case len(a.logs("leader.gained")) > 0 && len(b.logs("leader.gained")) == 0:
		leader, survivor = a, b
	case len(b.logs("leader.gained")) > 0 && len(a.logs("leader.gained")) == 0:
		leader, survivor = b, a
	default:
		t.Fatalf("want exactly one replica to have gained leadership: a %d times, b %d times",
			len(a.logs("leader.gained")), len(b.logs("leader.gained")))
	}
	if runs := survivor.runs(); len(runs) > 0 {
		t.Fatalf("replica %s, not the leader, ran %d jobs, first %+v", survivor.name, len(runs), runs[0])
	}

	killed := time.Now()
	leader.kill(t)
	killTook := time.Since(killed)
	t.Logf("killed leader %s (SIGKILL) at %s; it was gone %v later", leader.name, killed.Format("15:04:05.000"), killTook.Round(time.Millisecond))

	// Each job's first run on the survivor.
	first := map[string]time.Time{}
	ok = waitFor(20*time.Second, func() bool {
		for _, r := range survivor.runs() {
			if _, seen := first[r.Job]; !seen {
				first[r.Job] = r.Start
			}
		}
		for _, j := range replicaJobs {
			if _, seen := first[j.name]; !seen {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("the survivor %s ran only %v within 20 s of the kill\n%s", survivor.name, first, survivor.output())
	}
	if gained := survivor.logs("leader.gained"); len(gained) > 0 {
		t.Logf("failover: survivor %s gained leadership %v after the kill", survivor.name, gained[0].Time.Sub(killed).Round(time.Millisecond))
	}
	for _, j := range replicaJobs {
		took := first[j.name].Sub(killed)
		t.Logf("failover: %s (every %v) first ran on the survivor %v after the kill", j.name, j.every, took.Round(time.Millisecond))
		if took > 2*j.every {
			t.Errorf("%s first ran on the survivor %v after the kill, want within two intervals (%v)", j.name, took, 2*j.every)
		}
	}

	// Let the survivor run a few more ticks, then check every tick of every
	// job, before and after the kill.
	time.Sleep(3 * time.Second)
	snapshot := time.Now()
	var runs []jobRun
	for _, p := range procs {
		runs = append(runs, p.runs()...)
	}
	for _, j := range replicaJobs {
		var starts []jobRun
		for _, r := range runs {
			if r.Job == j.name {
				starts = append(starts, r)
			}
		}
		checkOneRunPerTick(t, j.name, j.every, starts)
		for _, r := range starts {
			if r.Err != "" {
				t.Errorf("%s run on %s at %s failed: %s", j.name, r.Proc, r.Start.Format("15:04:05.000"), r.Err)
			}
		}
	}

	// The database's own record of the consolidation runs agrees.
	pool := pgtest.Connect(t, url)
	rows, err := pool.Query(context.Background(),
		`SELECT started_at FROM consolidation_runs WHERE trigger = 'schedule' AND started_at <= $1 ORDER BY started_at`, snapshot)
	if err != nil {
		t.Fatal(err)
	}
	var dbRuns []jobRun
	for rows.Next() {
		var at time.Time
		if err := rows.Scan(&at); err != nil {
			t.Fatal(err)
		}
		dbRuns = append(dbRuns, jobRun{Proc: "database", Job: "consolidation", Start: at})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	checkOneRunPerTick(t, "consolidation (consolidation_runs)", time.Second, dbRuns)
	logged := 0
	for _, r := range runs {
		if r.Job == "consolidation" {
			logged++
		}
	}
	// A run the kill cut short, and one still under way at the snapshot,
	// have a row but no log record.
	if len(dbRuns) < logged || len(dbRuns) > logged+2 {
		t.Errorf("%d scheduled runs in consolidation_runs, %d in the logs; want as many, or up to two more (cut short by the kill, under way)", len(dbRuns), logged)
	}
	t.Logf("%d scheduled consolidation runs in the database, %d logged; %d job runs in all", len(dbRuns), logged, len(runs))
	if survivor.exited() {
		t.Errorf("the survivor exited\n%s", survivor.output())
	}
}

// checkOneRunPerTick fails the test if two runs of a job started within half
// an interval of each other: ticks are a whole interval apart, so two such
// runs are the same tick run twice.
func checkOneRunPerTick(t *testing.T, job string, every time.Duration, runs []jobRun) {
	t.Helper()
	sort.Slice(runs, func(i, k int) bool { return runs[i].Start.Before(runs[k].Start) })
	var dup []string
	for i := 1; i < len(runs); i++ {
		if gap := runs[i].Start.Sub(runs[i-1].Start); gap < every/2 {
			dup = append(dup, fmt.Sprintf("%s at %s and %s at %s",
				runs[i-1].Proc, runs[i-1].Start.Format("15:04:05.000"), runs[i].Proc, runs[i].Start.Format("15:04:05.000")))
		}
	}
	if len(dup) > 0 {
		t.Errorf("%s ran twice in one tick (%d of %d runs): %s", job, len(dup), len(runs), strings.Join(dup, "; "))
	}
}
