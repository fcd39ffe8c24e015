package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestPromotePartsMatchOneTransaction consolidates the same mixed rows
// (durable facts, some word for word again, transient and expired lines,
// decisions, moods, rows on the keys of locked decisions) twice: once with
// every batch in one transaction, once with four workers, each batch split
// among them by entity. The outcome (facts, decisions, promoted and
// pending rows, tombstones, refusals), the facts themselves and the run's
// report are the same.
func TestPromotePartsMatchOneTransaction(t *testing.T) {
	t.Parallel()
	rows := mixedRows(6000)
	ctx := context.Background()
	run := func(workers int) (*env, Run) {
		e, _ := seedKillEnv(t, rows)
		// Room for the run's lock, its read ahead and every worker.
		e.store = e.storeWithConns(t, workers+2)
		ran := 0
		r, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest, BatchSize: 500,
			Workers: workers, minPart: 1, onWorkers: func(n int) { ran = n }})
		if ran != workers {
			t.Errorf("asked for %d workers, the promote phase ran %d", workers, ran)
		}
		if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
			t.Fatalf("workers %d: %v: %s", workers, err, pe.Detail)
		}
		if err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		return e, r
	}
	one, oneRun := run(1)
	four, fourRun := run(4)
	if a, b := one.outcome(t), four.outcome(t); a != b {
		t.Errorf("outcome with four parts:\n%s\nwith one:\n%s", b, a)
	}
	facts := func(e *env) map[string]int {
		got := map[string]int{}
		rows, err := e.pool.Query(ctx, `SELECT f.scope || '|' || e.name || '|' || f.key || '|' || f.content || '|' ||
			f.status || '|' || f.durability || '|' || f.category || '|' || round(f.confidence::numeric, 9) || '|' ||
			f.extraction_count || '|' || regexp_replace(coalesce(f.archive_reason, ''), '[0-9]+', 'N') || '|' ||
			-- the fact that superseded or absorbed it, by what it says
			coalesce((SELECT w.key || ': ' || w.content FROM entity_facts w
				WHERE w.id = substring(f.archive_reason FROM '[0-9]+')::bigint), '')
			FROM entity_facts f JOIN entities e ON e.id = f.entity_id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got[s]++
		}
		return got
	}
	a, b := facts(one), facts(four)
	for k, n := range a {
		if b[k] != n {
			t.Errorf("fact %q: %d with one part, %d with four", k, n, b[k])
		}
	}
	for k, n := range b {
		if _, ok := a[k]; !ok {
			t.Errorf("fact %q: only with four parts (%d)", k, n)
		}
	}
	for _, phase := range PhaseOrder {
		for _, outcome := range []string{"promoted", "reinforced", "superseded", "transient_rejected",
			"expired_rejected", "decision_locked", "set_aside"} {
			if x, y := oneRun.Count(phase, outcome), fourRun.Count(phase, outcome); x != y {
				t.Errorf("report, phase %d %s: %d with one part, %d with four", phase, outcome, x, y)
			}
		}
	}
	if oneRun.TransientRejected != fourRun.TransientRejected || oneRun.ExpiredRejected != fourRun.ExpiredRejected ||
		oneRun.DecisionLocked != fourRun.DecisionLocked {
		t.Errorf("refusal totals: %d/%d/%d with one part, %d/%d/%d with four", oneRun.TransientRejected,
			oneRun.ExpiredRejected, oneRun.DecisionLocked, fourRun.TransientRejected, fourRun.ExpiredRejected,
			fourRun.DecisionLocked)
	}
	if fourRun.Count(PhasePromote, "promoted") == 0 {
		t.Fatalf("nothing promoted: %v", fourRun.Report)
	}
}

// TestWorkersSetAsidePoisonedRows: with two workers, rows whose scope fails
// every insert are set aside within the parts that hold them, and the other
// scope's rows, spread over both workers, are promoted in the same run.
func TestWorkersSetAsidePoisonedRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.poison(t, "poison", "INSERT")
	for i := range 40 {
		e.push(t, "clean", NewNode{Content: fmt.Sprintf("Customer %d prefers email.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "channel"}})
		e.push(t, "poison", NewNode{Content: fmt.Sprintf("Tenant %d prefers phone.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Tenant %d", i), "key": "channel"}})
	}
	ran := 0
	run, err := e.store.Consolidate(context.Background(), ConsolidateOptions{Trigger: TriggerTest, BatchSize: 10,
		Workers: 2, minPart: 1, onWorkers: func(n int) { ran = n }})
	if err != nil {
		t.Fatal(err)
	}
	if ran != 2 {
		t.Fatalf("the promote phase ran %d workers, want 2", ran)
	}
	if run.Status != RunPartial || run.SetAside != 40 || run.Count(PhasePromote, "promoted") != 40 ||
		run.Count(PhasePromote, "set_aside") != 40 {
		t.Errorf("run = %s, set aside %d, report %v; want partial, 40 set aside, 40 promoted", run.Status, run.SetAside, run.Report)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE scope = 'clean'`); n != 40 {
		t.Errorf("clean facts = %d, want 40", n)
	}
	if n := e.count(t, `SELECT count(*) FROM consolidation_faults f JOIN memory_nodes n ON n.id = f.node_id
		WHERE n.scope = 'poison'`); n != 40 {
		t.Errorf("%d poisoned rows set aside, want 40", n)
	}
}

// TestConsolidateNeedsTwoConnections: a pool of one connection cannot hold
// the run's lock and a batch at once; the run says so rather than waiting
// for a connection that never comes.
func TestConsolidateNeedsTwoConnections(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.push(t, "one", NewNode{Content: "Customer 1 prefers email.", Properties: map[string]any{"entity": "Customer 1", "key": "channel"}})
	small := e.storeWithConns(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := small.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest})
	if err == nil || !strings.Contains(err.Error(), "at least 2") || !strings.Contains(err.Error(), "pool_max_conns") {
		t.Fatalf("Consolidate on a one-connection pool: %v, want an error naming pool_max_conns", err)
	}
	// Two connections are enough: one worker.
	two := e.storeWithConns(t, 2)
	run, err := two.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest})
	if err != nil || run.Count(PhasePromote, "promoted") != 1 {
		t.Fatalf("Consolidate on a two-connection pool: %v, report %v; want the row promoted", err, run.Report)
	}
}

// storeWithConns returns a store on e's database whose pool holds at most n
// connections.
func (e *env) storeWithConns(t *testing.T, n int) *Store {
	t.Helper()
	url := e.pool.Config().ConnString()
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return NewStore(pgtest.Connect(t, url+sep+"pool_max_conns="+strconv.Itoa(n)), Options{Now: e.clock.Now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}
