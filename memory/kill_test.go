package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The kill test runs consolidation in a child process (this test binary,
// re-executed) and SIGKILLs it at random moments.
const (
	killChildURL = "TENURE_TEST_KILL_CHILD_URL"
	killChildNow = "TENURE_TEST_KILL_CHILD_NOW"
	killBatch    = 1000
	killChildApp = "tenure-kill-child"
)

// killChild consolidates the database at url once, at the instant now, and
// returns the exit status. It waits for the lock a killed predecessor's
// session may still hold until PostgreSQL notices it is gone.
func killChild(url, now string) int {
	at, err := time.Parse(time.RFC3339Nano, now)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer pool.Close()
	store := NewStore(pool, Options{Now: func() time.Time { return at },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for {
		_, err := store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest, BatchSize: killBatch})
		if errors.Is(err, ErrRunInProgress) {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
}

// mixedRows is a deterministic mix of every kind of working row: durable
// facts (some repeated word for word), transient and expired status lines,
// decisions on keys of their own, moods, and rows on the keys of locked
// decisions.
func mixedRows(n int) []NewNode {
	r := rand.New(rand.NewPCG(7, 11))
	nodes := make([]NewNode, n)
	for i := range nodes {
		switch k := r.IntN(20); {
		case k < 9:
			nodes[i] = NewNode{Content: fmt.Sprintf("Customer %d prefers %s for invoices.", r.IntN(4000),
				[]string{"email", "phone", "post"}[r.IntN(3)])}
		case k < 13:
			nodes[i] = NewNode{Content: fmt.Sprintf("Sync %d still running, ETA 30s", i), Durability: "transient"}
		case k < 15:
			nodes[i] = NewNode{Content: fmt.Sprintf("Build %d queued", i), Durability: "expired"}
		case k == 15:
			nodes[i] = NewNode{Content: fmt.Sprintf("We decided to deploy service %d on Tuesdays.", i),
				Properties: map[string]any{"category": "decision", "entity": fmt.Sprintf("Service %d", i),
					"key": "deploy_day", "reasoning": "Mondays are for incidents."}}
		case k == 16:
			nodes[i] = NewNode{Content: "I'm so tired today", Properties: map[string]any{"entity": "User", "key": "mood"}}
		case k == 17:
			nodes[i] = NewNode{Content: fmt.Sprintf("Vendor %d ships on Fridays.", r.IntN(5)),
				Properties: map[string]any{"entity": fmt.Sprintf("Vendor %d", r.IntN(5)), "key": "ship_day"}}
		default:
			nodes[i] = NewNode{Content: "User likes tea", Properties: map[string]any{"entity": "User", "key": "drink"}}
		}
	}
	return nodes
}

// seedKillEnv fills a fresh database with the mixed rows and locked
// decisions on the vendors' ship_day.
func seedKillEnv(t *testing.T, rows []NewNode) (*env, []int64) {
	t.Helper()
	e := newEnv(t)
	for v := range 5 {
		if _, err := e.store.RecordDecision(context.Background(), agent, NewDecision{Scope: "kill",
			Entity: fmt.Sprintf("Vendor %d", v), Key: "ship_day", Decision: "Vendors ship on Mondays.",
			Reasoning: "The warehouse is closed on Fridays."}); err != nil {
			t.Fatal(err)
		}
	}
	return e, e.pushMany(t, "kill", rows)
}

// outcome is what consolidation made of the rows, in counts that do not
// depend on where batches happened to split.
func (e *env) outcome(t *testing.T) string {
	t.Helper()
	var parts []string
	for _, q := range []string{
		`SELECT 'active facts', count(*) FROM entity_facts WHERE status = 'active'`,
		`SELECT 'decisions', count(*) FROM decisions`,
		`SELECT 'promoted rows', count(*) FROM memory_nodes WHERE promoted_at IS NOT NULL`,
		`SELECT 'pending rows', count(*) FROM memory_nodes WHERE promoted_at IS NULL`,
		`SELECT 'tombstones ' || reason, count(*) FROM node_tombstones GROUP BY reason`,
		`SELECT 'refusals ' || phase || ' ' || reason, count(*) FROM consolidation_rejections GROUP BY phase, reason`,
	} {
		rows, err := e.pool.Query(context.Background(), q+` ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name string
			var n int
			if err := rows.Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, fmt.Sprintf("%s=%d", name, n))
		}
		rows.Close()
	}
	return strings.Join(parts, " ")
}

// TestKilledRunsMakeProgress kills a consolidation run at 10 random moments
// over 30,000 mixed rows, then runs to the end. Every row is accounted for
// once (promoted, pruned, or refused and still pending), no row is promoted
// twice, each refusal is logged once, the outcome equals that of one
// uninterrupted run, and the work thrown away is bounded: each kill loses at
// most the part of a batch each worker had under way (two workers, each
// about half a batch), at most killBatch rows written per table.
func TestKilledRunsMakeProgress(t *testing.T) {
	t.Parallel()
	const pushed, kills = 30_000, 10
	rows := mixedRows(pushed)
	ctx := context.Background()

	began := time.Now()
	ref, _ := seedKillEnv(t, rows)
	seeded := time.Now()
	refRun, err := ref.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest, BatchSize: killBatch})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seeding took %s, one uninterrupted run %s: %v", seeded.Sub(began).Round(time.Millisecond),
		time.Since(seeded).Round(time.Millisecond), refRun.Report)
	want := ref.outcome(t)

	e, ids := seedKillEnv(t, rows)
	// The seeding sessions end, so that their statistics are flushed too.
	e.pool.Reset()
	url := e.pool.Config().ConnString()
	if strings.Contains(url, "?") {
		url += "&application_name=" + killChildApp
	} else {
		url += "?application_name=" + killChildApp
	}
	child := func() (*exec.Cmd, chan error) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildURL+"="+url, killChildNow+"="+e.clock.Now().Format(time.RFC3339Nano))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		return cmd, done
	}
	r := rand.New(rand.NewPCG(1, 2))
	killed := 0
	for range kills {
		cmd, done := child()
		select {
		case err := <-done:
			t.Logf("the child finished before its kill: %v", err)
		case <-time.After(time.Duration(100+r.IntN(600)) * time.Millisecond):
			_ = cmd.Process.Kill()
			<-done
			killed++
		}
	}
	// Run to the end, in a child too, whose statistics are flushed on exit.
	if _, done := child(); <-done != nil {
		t.Fatal("the final run failed")
	}
	var final string
	if err := e.pool.QueryRow(ctx, `SELECT status FROM consolidation_runs ORDER BY id DESC LIMIT 1`).Scan(&final); err != nil {
		t.Fatal(err)
	}
	if final != RunSucceeded {
		t.Errorf("final run = %s", final)
	}
	if got := e.outcome(t); got != want {
		t.Errorf("after %d kills:\n got %s\nwant %s (one uninterrupted run)", killed, got, want)
	}

	// Every pushed row once: promoted, pruned, or refused and still pending.
	promoted := e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = ANY($1) AND promoted_at IS NOT NULL`, ids)
	pruned := e.count(t, `SELECT count(*) FROM node_tombstones WHERE node_id = ANY($1)`, ids)
	refused := e.count(t, `SELECT count(*) FROM memory_nodes n WHERE n.id = ANY($1) AND n.promoted_at IS NULL
		AND EXISTS (SELECT 1 FROM consolidation_rejections r WHERE r.node_id = n.id)`, ids)
	if promoted+pruned+refused != pushed {
		t.Errorf("promoted %d + pruned %d + refused %d = %d, want %d pushed", promoted, pruned, refused,
			promoted+pruned+refused, pushed)
	}
	if n := e.count(t, `SELECT count(*) FROM (SELECT source_node_id FROM entity_facts
		WHERE source_node_id IS NOT NULL GROUP BY 1 HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d rows promoted twice", n)
	}
	if n, d := e.count(t, `SELECT count(*) FROM consolidation_rejections`),
		e.count(t, `SELECT count(*) FROM (SELECT DISTINCT node_id, phase, reason FROM consolidation_rejections) d`); n != d {
		t.Errorf("%d rejection rows for %d distinct refusals", n, d)
	}
	if n := e.count(t, `SELECT count(*) FROM consolidation_runs WHERE status = 'interrupted'`); n == 0 && killed > 0 {
		t.Errorf("no run is marked interrupted after %d kills", killed)
	}
	if n := e.count(t, `SELECT count(*) FROM consolidation_runs WHERE error LIKE '%completed%'`); n != 0 {
		t.Errorf("%d runs claim work another run did", n)
	}

	// The work thrown away: rows written by a batch a kill rolled back.
	// pg_stat counts inserted tuples whether or not they committed; every
	// killed session's counters are flushed when its backend exits.
	deadline := time.Now().Add(10 * time.Second)
	for e.count(t, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, killChildApp) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the children's sessions did not end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, table := range []string{"entity_facts", "consolidation_rejections", "node_tombstones"} {
		var inserted, kept int
		if err := e.pool.QueryRow(ctx, `SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&inserted); err != nil {
			t.Fatal(err)
		}
		kept = e.count(t, `SELECT count(*) FROM `+table)
		wasted := inserted - kept
		t.Logf("%s: %d rows kept, %d written by batches a kill rolled back (bound %d = %d kills × %d)",
			table, kept, wasted, killed*killBatch, killed, killBatch)
		if wasted > killed*killBatch {
			t.Errorf("%s: %d rows thrown away over %d kills, more than one batch of %d a kill", table, wasted, killed, killBatch)
		}
	}
}
