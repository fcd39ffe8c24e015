package memory

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/queries"
)

// TestConsolidateScope: a run of one scope leaves another scope's pending
// rows pending and shows itself to its scope only; a run of every scope
// then consolidates the other scope and shows each scope its own refusals.
func TestConsolidateScope(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.push(t, "home", NewNode{Content: "Ann lives in Berlin", Properties: map[string]any{"entity": "Ann", "key": "lives_in"}},
		NewNode{Content: "Ann is tired right now", Durability: "transient"})
	work := e.push(t, "work", NewNode{Content: "The build server is Jenkins", Properties: map[string]any{"entity": "build", "key": "server"}},
		NewNode{Content: "The build is red", Durability: "transient"})

	run, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerAPI, Scope: "home"})
	if err != nil || run.Status != RunSucceeded {
		t.Fatalf("scoped run = %+v, %v", run, err)
	}
	if run.Scope == nil || *run.Scope != "home" || run.Count(PhasePromote, "promoted") != 1 || run.TransientRejected != 1 {
		t.Errorf("scoped run = %+v, want scope home, 1 promoted, 1 refused", run)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = ANY($1) AND promoted_at IS NULL`, work); n != 2 {
		t.Errorf("%d work rows pending after the home run, want 2", n)
	}
	if n := e.count(t, `SELECT count(*) FROM consolidation_rejections WHERE scope = 'work'`); n != 0 {
		t.Errorf("%d work refusals after the home run, want 0", n)
	}
	if got, err := e.store.GetScopeRun(ctx, run.ID, "home"); err != nil || got.Count(PhasePromote, "promoted") != 1 {
		t.Errorf("home reads its run = %+v, %v", got, err)
	}
	var me *Error
	if _, err := e.store.GetScopeRun(ctx, run.ID, "work"); !errors.As(err, &me) || me.Code != CodeNotFound {
		t.Errorf("work reads the home run: %v, want not found", err)
	}

	full := e.consolidate(t)
	if full.Scope != nil || full.Count(PhasePromote, "promoted") != 1 || full.TransientRejected != 1 {
		t.Errorf("full run = %+v, want every scope: the work row promoted and refused", full)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = ANY($1) AND promoted_at IS NULL`, work); n != 1 {
		t.Errorf("%d work rows pending after the full run, want the transient one", n)
	}
	seen, err := e.store.GetScopeRun(ctx, full.ID, "work")
	if err != nil || seen.Status != RunSucceeded || seen.FinishedAt == nil || seen.TransientRejected != 1 ||
		seen.Count(PhasePromote, "transient_rejected") != 1 || seen.Count(PhasePromote, "promoted") != 0 {
		t.Errorf("work reads the full run = %+v, %v; want its status and its one refusal only", seen, err)
	}
	if seen, err := e.store.GetScopeRun(ctx, full.ID, "home"); err != nil || seen.TransientRejected != 0 || len(seen.Report) != 0 {
		t.Errorf("home reads the full run = %+v, %v; want no counts", seen, err)
	}
}

// TestMergeWindowAfterScopedRuns: a run of every scope merges the rows an
// earlier run promoted without merging, though a run of another scope
// finished since; and it leaves alone the rows a run of their own scope
// merged since.
func TestMergeWindowAfterScopedRuns(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	props := map[string]any{"entity": "Edmund", "key": "visited_city", "category": "observation"}
	errStop := errors.New("stopped")
	stopAfterPromote := ConsolidateOptions{Trigger: TriggerTest, afterBatch: func(phase int) error {
		if phase == PhasePromote {
			return errStop
		}
		return nil
	}}
	scoped := func(scope string) Run {
		t.Helper()
		run, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerAPI, Scope: scope})
		if err != nil || run.Status != RunSucceeded {
			t.Fatalf("run of %s = %+v, %v", scope, run, err)
		}
		return run
	}
	e.push(t, "work", NewNode{Content: "Edmund lives in Austin.", Properties: props})
	e.consolidate(t)

	e.push(t, "work", NewNode{Content: "Edmund lives in Dallas.", Properties: props})
	if _, err := e.store.Consolidate(ctx, stopAfterPromote); !errors.Is(err, errStop) {
		t.Fatalf("stopped run: %v", err)
	}
	e.push(t, "home", NewNode{Content: "Ann lives in Berlin", Properties: map[string]any{"entity": "Ann", "key": "lives_in"}})
	if run := scoped("home"); run.Count(PhaseMerge, "near_duplicates") != 0 {
		t.Errorf("home run report = %v, want nothing of work merged", run.Report)
	}
	if run := e.consolidate(t); run.Count(PhaseMerge, "near_duplicates") != 1 {
		t.Errorf("full run report = %v, want the Dallas row of the stopped run queued", run.Report)
	}

	e.push(t, "work", NewNode{Content: "Edmund lives in Houston.", Properties: props})
	if _, err := e.store.Consolidate(ctx, stopAfterPromote); !errors.Is(err, errStop) {
		t.Fatalf("stopped run: %v", err)
	}
	if run := scoped("work"); run.Count(PhaseMerge, "near_duplicates") != 1 {
		t.Errorf("work run report = %v, want the Houston row queued", run.Report)
	}
	if _, err := e.pool.Exec(ctx, `UPDATE review_items SET status = 'dismissed', resolved_at = now()`); err != nil {
		t.Fatal(err)
	}
	if run := e.consolidate(t); run.Count(PhaseMerge, "near_duplicates") != 0 {
		t.Errorf("full run report = %v, want the Houston row, merged by the work run, left alone", run.Report)
	}
}

// TestScopedRunQueriesKeepTheirPlans: the phases' reads with no scope (the
// scheduled run) walk the same indexes as before the scope filter, in the
// plan for their parameters and in the generic plan a prepared statement
// may settle on.
func TestScopedRunQueriesKeepTheirPlans(t *testing.T) {
	pool, rec := planPool(t)
	runID := seedPlanTables(t, pool)
	ctx := context.Background()
	q := queries.New(pool)
	rec.take()
	if _, err := q.PeekPendingNodes(ctx, queries.PeekPendingNodesParams{Phase: PhasePromote, Now: fxStart, BatchSize: 5000}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.MergeWindowFacts(ctx, queries.MergeWindowFactsParams{SinceRunID: runID, SkipIds: []int64{},
		RetryIds: []int64{}, CoveredScopes: []string{"small"}, CoveredRunIds: []int64{runID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.ArchiveDueFacts(ctx, queries.ArchiveDueFactsParams{Now: fxStart, BatchSize: 100}); err != nil {
		t.Fatal(err)
	}
	want := []string{"memory_nodes_pending_idx", "memory_nodes_promoted_run_idx", "entity_facts_forget_at_idx"}
	stmts := rec.take()
	if len(stmts) != len(want) {
		t.Fatalf("recorded %d statements, want %d", len(stmts), len(want))
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for i, st := range stmts {
		if plan := explain(t, pool, st.sql, st.args...); !strings.Contains(plan, want[i]) {
			t.Errorf("plan for its parameters does not use %s:\n%s", want[i], plan)
		}
		// The generic plan: the values do not matter, NULL stands for each.
		nulls := strings.TrimSuffix(strings.Repeat("NULL, ", len(st.args)), ", ")
		for _, stmt := range []string{"PREPARE generic AS " + st.sql, "SET plan_cache_mode = force_generic_plan"} {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := conn.Query(ctx, "EXPLAIN EXECUTE generic("+nulls+")")
		if plan := planText(t, rows, err); !strings.Contains(plan, want[i]) {
			t.Errorf("generic plan does not use %s:\n%s", want[i], plan)
		}
		for _, stmt := range []string{"DEALLOCATE generic", "RESET plan_cache_mode"} {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
	}
}
