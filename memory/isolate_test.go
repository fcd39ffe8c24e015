package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// pushMany pushes nodes in batches of MaxPushBatch.
func (e *env) pushMany(t *testing.T, scope string, nodes []NewNode) []int64 {
	t.Helper()
	var ids []int64
	for from := 0; from < len(nodes); from += MaxPushBatch {
		ids = append(ids, e.push(t, scope, nodes[from:min(from+MaxPushBatch, len(nodes))]...)...)
	}
	return ids
}

func identical(n int, content string, confidence float64) []NewNode {
	nodes := make([]NewNode, n)
	for i := range nodes {
		nodes[i] = NewNode{Content: content, Properties: map[string]any{
			"entity": "User", "key": "drink", "category": "preference", "confidence": confidence}}
	}
	return nodes
}

// duplicateFacts writes n copies of the scope's active fact that says
// content, as writers racing beside consolidation could, for the merge
// phase to fold.
func (e *env) duplicateFacts(t *testing.T, scope, content string, n int) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO entity_facts (scope, entity_id, key, content, durability,
		category, confidence, confirmed_at)
		SELECT f.scope, f.entity_id, f.key, f.content, f.durability, f.category, f.confidence, f.confirmed_at
		FROM entity_facts f CROSS JOIN generate_series(1, $3)
		WHERE f.scope = $1 AND f.content = $2 AND f.status = 'active'`, scope, content, n); err != nil {
		t.Fatal(err)
	}
}

// TestMergeArithmeticNeverUnderflows: 10,000 identical rows at confidence 1
// (and at 0) fold into one fact at promotion, and 5,000 copies of it merge
// into it; the products of (1 - c) over them are taken in log space and
// clamped, so no count of rows can raise PostgreSQL's underflow error. A
// second wave reinforces the survivor.
func TestMergeArithmeticNeverUnderflows(t *testing.T) {
	t.Parallel()
	for _, c := range []float64{1, 0} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.pushMany(t, "poison", identical(10_000, "User likes tea", c))
			run := e.consolidate(t)
			if run.Count(PhasePromote, "promoted") != 1 || run.Count(PhasePromote, "reinforced") != 9_999 {
				t.Errorf("promote report = %v, want one fact reinforced by the other rows", run.Report)
			}
			if c > 0 {
				e.duplicateFacts(t, "poison", "User likes tea", 5_000)
				e.push(t, "poison", identical(1, "User likes tea", c)...)
				if run = e.consolidate(t); run.Count(PhaseMerge, "merged") != 5_000 {
					t.Errorf("merge report = %v, want the 5000 copies merged", run.Report)
				}
			}
			e.clock.Advance(time.Minute)
			e.pushMany(t, "poison", identical(2_000, "User likes tea", c))
			run = e.consolidate(t)
			// At confidence 0 the fact decays away at once (the decay phase
			// archives it before promotion), so the wave writes a new one.
			promoted, reinforced := run.Count(PhasePromote, "promoted"), run.Count(PhasePromote, "reinforced")
			if promoted+reinforced != 2_000 || (c > 0 && reinforced != 2_000) {
				t.Errorf("second wave report = %v, want 2000 reinforcements", run.Report)
			}
			var active int
			var conf float64
			if err := e.pool.QueryRow(context.Background(),
				`SELECT count(*), max(confidence) FROM entity_facts WHERE status = 'active'`).Scan(&active, &conf); err != nil {
				t.Fatal(err)
			}
			want := 1.0
			if c == 0 {
				want = 0
			}
			if active != 1 || math.Abs(conf-want) > 1e-9 {
				t.Errorf("active facts = %d at confidence %v, want 1 at %v", active, conf, want)
			}
		})
	}
}

// TestDecayedConfidenceNeverUnderflows: effective confidence of a fact
// thousands of half-lives past its anchor, or of a tiny confidence, reads 0
// instead of raising an error in every query that ranks or lists facts.
func TestDecayedConfidenceNeverUnderflows(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		c       float64
		elapsed string
		want    float64
	}{
		{1, "100 years", 0},
		{1e-300, "1 hour", 0},
		{1e-300, "0 seconds", 1e-300},
		{0.8, "2 hours", 0.2},
		{0, "1 year", 0},
	} {
		var got float64
		if err := e.pool.QueryRow(context.Background(),
			`SELECT tenure_decayed($1, now() - $2::interval, 3600, now())`, tc.c, tc.elapsed).Scan(&got); err != nil {
			t.Errorf("tenure_decayed(%g, %s ago) error = %v", tc.c, tc.elapsed, err)
			continue
		}
		if math.Abs(got-tc.want) > 1e-12*math.Max(1, tc.want) && got != tc.want {
			t.Errorf("tenure_decayed(%g, %s ago) = %g, want %g", tc.c, tc.elapsed, got, tc.want)
		}
	}
	// A fact whose policy would put forget_at past the last representable
	// instant is written, not refused.
	id := e.insertFact(t, "ephemeral", "observation", 1, nil)
	if _, err := e.pool.Exec(context.Background(),
		`UPDATE decay_policies SET half_life_seconds = 1e15, floor = 1e-300 WHERE durability = 'ephemeral'`); err != nil {
		t.Fatalf("policy with a huge half-life: %v", err)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE entity_facts SET confidence = 0.9 WHERE id = $1`, id); err != nil {
		t.Errorf("fact under a huge half-life: %v", err)
	}
}

// poison makes every write of a fact into scope fail in PostgreSQL, the way
// a row no code path foresaw would: a real error of the database, raised by
// a trigger.
func (e *env) poison(t *testing.T, scope, when string) {
	t.Helper()
	ctx := context.Background()
	for _, sql := range []string{
		`CREATE OR REPLACE FUNCTION test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.scope = TG_ARGV[0] THEN
				RAISE EXCEPTION 'poisoned row in scope %', NEW.scope USING ERRCODE = '22003';
			END IF;
			RETURN NEW;
		END $$`,
		fmt.Sprintf(`CREATE TRIGGER test_poison BEFORE %s ON entity_facts FOR EACH ROW EXECUTE FUNCTION test_poison('%s')`, when, scope),
	} {
		if _, err := e.pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *env) cure(t *testing.T) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), `DROP TRIGGER test_poison ON entity_facts`); err != nil {
		t.Fatal(err)
	}
}

func (e *env) run(t *testing.T) Run {
	t.Helper()
	run, err := e.store.Consolidate(context.Background(), ConsolidateOptions{Trigger: TriggerTest})
	if err != nil {
		t.Fatalf("Consolidate() error = %v, want a run that goes on past a poisoned scope", err)
	}
	return run
}

// TestPoisonedScopeIsSetAside: a scope whose rows fail to promote beside a
// clean one. The clean scope's rows are promoted in the same run, which ends
// partial; the poisoned rows are set aside with the error, retried after a
// growing delay, held after faultAttempts failures, and promoted once a
// person retries them after the cause is gone. Runs in between succeed.
func TestPoisonedScopeIsSetAside(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.poison(t, "poison", "INSERT")
	var clean, bad []NewNode
	for i := range 30 {
		clean = append(clean, NewNode{Content: fmt.Sprintf("Customer %d prefers email.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "channel"}})
		bad = append(bad, NewNode{Content: fmt.Sprintf("Tenant %d prefers phone.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Tenant %d", i), "key": "channel"}})
	}
	bad = append(bad, NewNode{Content: "still syncing", Durability: "transient"})
	// Interleave the scopes so that every batch holds both.
	for i := range clean {
		e.push(t, "clean", clean[i])
		e.push(t, "poison", bad[i])
	}
	e.push(t, "poison", bad[len(bad)-1])

	run, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest, BatchSize: 8})
	if err != nil {
		t.Fatalf("Consolidate() error = %v", err)
	}
	if run.Status != RunPartial || run.SetAside != 30 || run.Count(PhasePromote, "promoted") != 30 {
		t.Fatalf("run = %s, set aside %d, report %v; want partial, 30 set aside, 30 promoted", run.Status, run.SetAside, run.Report)
	}
	if run.TransientRejected != 1 {
		t.Errorf("transient refusals = %d, want the poisoned scope's transient row refused as usual", run.TransientRejected)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE scope = 'clean'`); n != 30 {
		t.Errorf("clean facts = %d, want 30", n)
	}
	faults, err := e.store.ListFaults(ctx, FaultFilter{Scope: "poison"})
	if err != nil || len(faults) != 30 {
		t.Fatalf("ListFaults = %d, %v; want 30", len(faults), err)
	}
	f := faults[0]
	if f.Phase != PhasePromote || !strings.Contains(f.Error, "poisoned row in scope poison") || f.Attempts != 1 ||
		f.RetryAt == nil || !f.RetryAt.Equal(e.clock.Now().Add(faultBackoff)) || f.RunID == nil || *f.RunID != run.ID {
		t.Errorf("fault = %+v, want phase 10, the error, attempt 1, retry in %s, run %d", f, faultBackoff, run.ID)
	}
	if n := len(e.logs.lines(t, "consolidation.set_aside")); n != 30 {
		t.Errorf("%d consolidation.set_aside log lines, want 30", n)
	}

	// The next run, before the retry is due, leaves the rows alone and succeeds.
	if next := e.run(t); next.Status != RunSucceeded || next.SetAside != 0 {
		t.Errorf("next run = %s with %d set aside, want succeeded with none", next.Status, next.SetAside)
	}
	// Each retry fails again and waits four times longer; the last one holds.
	wait := faultBackoff
	for attempt := 2; attempt <= faultAttempts; attempt++ {
		e.clock.Advance(wait)
		retry := e.run(t)
		if retry.Status != RunPartial || retry.SetAside != 30 {
			t.Fatalf("retry %d = %s with %d set aside, want partial with 30", attempt, retry.Status, retry.SetAside)
		}
		fs, _ := e.store.FaultsOf(ctx, []int64{f.NodeID})
		got := fs[f.NodeID]
		if got.Attempts != attempt {
			t.Errorf("after retry %d: attempts = %d", attempt, got.Attempts)
		}
		wait *= 4
		if attempt < faultAttempts && (got.RetryAt == nil || !got.RetryAt.Equal(e.clock.Now().Add(wait))) {
			t.Errorf("after retry %d: retry at %v, want %v", attempt, got.RetryAt, e.clock.Now().Add(wait))
		}
		if attempt == faultAttempts && !got.Held() {
			t.Errorf("after %d attempts the row is not held: %+v", attempt, got)
		}
	}
	counts, err := e.store.CountFaults(ctx)
	if err != nil || counts.Held != 30 || counts.Waiting != 0 {
		t.Errorf("CountFaults = %+v, %v; want 30 held", counts, err)
	}
	// Held rows are never retried by a run, however long it waits.
	e.clock.Advance(30 * 24 * time.Hour)
	if later := e.run(t); later.Status != RunSucceeded {
		t.Errorf("run with only held rows = %s, want succeeded", later.Status)
	}

	// The cause is fixed; a person retries the rows.
	e.cure(t)
	ids := make([]int64, len(faults))
	for i, f := range faults {
		ids[i] = f.NodeID
	}
	if _, err := e.store.RetryFaults(ctx, Human("ops@example.com"), "clean", ids[:1], "fixed"); err == nil {
		t.Errorf("RetryFaults in the wrong scope succeeded")
	}
	if n, err := e.store.RetryFaults(ctx, Human("ops@example.com"), "poison", ids, "trigger removed"); err != nil || n != 30 {
		t.Fatalf("RetryFaults = %d, %v", n, err)
	}
	final := e.run(t)
	if final.Status != RunSucceeded || final.Count(PhasePromote, "promoted") != 30 {
		t.Errorf("after the retry: %s, report %v; want 30 promoted", final.Status, final.Report)
	}
	if n := e.count(t, `SELECT count(*) FROM consolidation_faults`); n != 0 {
		t.Errorf("%d faults left after the rows went through", n)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.retry'`); n != 30 {
		t.Errorf("%d node.retry audit rows, want 30", n)
	}
}

// TestPoisonedMergeIsSetAside: the merge phase of one scope fails; the other
// scope's duplicates are merged in the same run, the failing scope's window
// rows are set aside and merged by a later run once the cause is gone.
func TestPoisonedMergeIsSetAside(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	// One fact in each scope and four copies of it (as writers racing
	// beside consolidation could leave), then a row that repeats it.
	for _, scope := range []string{"clean", "poison"} {
		e.pushMany(t, scope, identical(1, "User likes tea", 0.7))
	}
	e.run(t)
	for _, scope := range []string{"clean", "poison"} {
		e.duplicateFacts(t, scope, "User likes tea", 4)
		e.pushMany(t, scope, identical(1, "User likes tea", 0.7))
	}
	// Reinforcing passes; only the merge's archiving update fails.
	e.poison(t, "poison", "UPDATE OF status")
	run, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest})
	if err != nil {
		t.Fatalf("Consolidate() error = %v", err)
	}
	if run.Status != RunPartial || run.Count(PhaseMerge, "merged") != 4 || run.Count(PhaseMerge, "set_aside") != 1 {
		t.Fatalf("run = %s, report %v; want partial, clean's 4 duplicates merged, poison's row set aside", run.Status, run.Report)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE scope = 'poison' AND status = 'active'`); n != 5 {
		t.Errorf("poison active facts = %d, want the 5 unmerged", n)
	}
	e.cure(t)
	e.clock.Advance(faultBackoff)
	next := e.run(t)
	if next.Status != RunSucceeded || next.Count(PhaseMerge, "merged") != 4 {
		t.Errorf("retry = %s, report %v; want poison's duplicates merged", next.Status, next.Report)
	}
	if n := e.count(t, `SELECT count(*) FROM consolidation_faults`); n != 0 {
		t.Errorf("%d faults left after the merge went through", n)
	}
}

// TestClassifierPanicIsSetAside: a panic of the engine's own code on one row
// sets that row aside instead of stopping the process or the run.
func TestClassifierPanicIsSetAside(t *testing.T) {
	e := newEnv(t)
	ids := e.push(t, "s", NewNode{Content: "User likes tea"}, NewNode{Content: "boom"}, NewNode{Content: "User likes coffee"})
	planHook = func(content string) {
		if content == "boom" {
			panic("classifier bug")
		}
	}
	t.Cleanup(func() { planHook = nil })
	run := e.run(t)
	if run.Status != RunPartial || run.SetAside != 1 || run.Count(PhasePromote, "promoted") != 2 {
		t.Fatalf("run = %s, set aside %d, report %v; want partial, 1 set aside, 2 promoted", run.Status, run.SetAside, run.Report)
	}
	fs, err := e.store.FaultsOf(context.Background(), ids)
	if err != nil || len(fs) != 1 || !strings.Contains(fs[ids[1]].Error, "classifier bug") {
		t.Errorf("faults = %+v, %v; want row %d set aside with the panic", fs, err, ids[1])
	}
}
