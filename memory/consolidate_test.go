package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/queries"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// logBuffer collects JSON log lines for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// lines returns the decoded log records whose msg is msg.
func (l *logBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("bad log line %q: %v", line, err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// countingMetrics counts refusals by reason.
type countingMetrics struct {
	mu       sync.Mutex
	rejected map[string]int
	archived int
	promoted int
}

func (m *countingMetrics) Rejected(_ int, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rejected == nil {
		m.rejected = map[string]int{}
	}
	m.rejected[reason]++
}
func (m *countingMetrics) Archived(n int) { m.mu.Lock(); m.archived += n; m.mu.Unlock() }
func (m *countingMetrics) Promoted(n int) { m.mu.Lock(); m.promoted += n; m.mu.Unlock() }

// rejections returns how many refusals were counted for reason.
func (m *countingMetrics) rejections(reason string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rejected[reason]
}

type env struct {
	store   *Store
	pool    *pgxpool.Pool
	clock   *clock
	logs    *logBuffer
	metrics *countingMetrics
}

var start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{pool: pgtest.NewPool(t), clock: &clock{t: start}, logs: &logBuffer{}, metrics: &countingMetrics{}}
	e.store = NewStore(e.pool, Options{
		Logger:  slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:     e.clock.Now,
		Metrics: e.metrics,
	})
	return e
}

var agent = Token("test-agent")

func (e *env) push(t *testing.T, scope string, nodes ...NewNode) []int64 {
	t.Helper()
	ids, err := e.store.Push(context.Background(), agent, scope, nodes)
	if err != nil {
		t.Fatalf("Push() error = %v", err)
	}
	return ids
}

func (e *env) consolidate(t *testing.T) Run {
	t.Helper()
	run, err := e.store.Consolidate(context.Background(), ConsolidateOptions{Trigger: TriggerTest})
	if err != nil {
		t.Fatalf("Consolidate() error = %v", err)
	}
	if run.Status != "succeeded" {
		t.Fatalf("run status = %s, want succeeded", run.Status)
	}
	return run
}

func (e *env) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestStatusRowRecipe is the "still syncing" recipe: two transient status
// rows, then the durable outcome; the two are retired with
// UpgradeDurability(expired); one run promotes only the outcome, logs and
// counts the two refusals with their phase, and cleanup prunes them leaving
// tombstones.
func TestStatusRowRecipe(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	row1 := e.push(t, "acme", NewNode{Content: "Slack roll-up is still syncing -- ETA ~30s", Durability: "transient"})[0]
	e.clock.Advance(15 * time.Second)
	row2 := e.push(t, "acme", NewNode{Content: "Slack roll-up is still syncing -- ETA ~15s", Durability: "transient"})[0]
	e.clock.Advance(70 * time.Second)
	row3 := e.push(t, "acme", NewNode{Content: "Slack roll-up finished: 41 threads summarised for Acme."})[0]
	for _, id := range []int64{row1, row2} {
		if err := e.store.UpgradeDurability(ctx, agent, "acme", id, "expired"); err != nil {
			t.Fatalf("UpgradeDurability(%d, expired) = %v", id, err)
		}
	}

	run := e.consolidate(t)

	var factNode int64
	var content string
	if err := e.pool.QueryRow(ctx, `SELECT source_node_id, content FROM entity_facts`).Scan(&factNode, &content); err != nil {
		t.Fatalf("want exactly one fact: %v", err)
	}
	if factNode != row3 || e.count(t, `SELECT count(*) FROM entity_facts`) != 1 {
		t.Errorf("fact from node %d (%q), want only the outcome row %d", factNode, content, row3)
	}

	rows, err := e.pool.Query(ctx, `SELECT node_id, phase, reason, content FROM consolidation_rejections WHERE run_id = $1 ORDER BY node_id`, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var node int64
		var phase int16
		var reason, snapshot string
		if err := rows.Scan(&node, &phase, &reason, &snapshot); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d/%d/%s/%t", node, phase, reason, strings.Contains(snapshot, "still syncing")))
	}
	want := []string{fmt.Sprintf("%d/10/expired/true", row1), fmt.Sprintf("%d/10/expired/true", row2)}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rejections = %v, want %v", got, want)
	}
	if run.ExpiredRejected != 2 || run.TransientRejected != 0 || run.Count(PhasePromote, "expired_rejected") != 2 {
		t.Errorf("run counters = expired %d transient %d report %v, want 2 expired refusals in phase 10",
			run.ExpiredRejected, run.TransientRejected, run.Report)
	}
	if run.Count(PhasePromote, "promoted") != 1 || run.Count(PhaseCleanup, "pruned_expired") != 2 {
		t.Errorf("report = %v, want 1 promoted and 2 pruned_expired", run.Report)
	}
	if e.metrics.rejected[ReasonExpired] != 2 {
		t.Errorf("metrics counted %v refusals, want 2 expired", e.metrics.rejected)
	}
	logged := e.logs.lines(t, "consolidation.expired_rejected")
	if len(logged) != 2 {
		t.Fatalf("%d consolidation.expired_rejected log lines, want 2", len(logged))
	}
	for _, rec := range logged {
		if rec["phase"] != float64(10) || (rec["node_id"] != float64(row1) && rec["node_id"] != float64(row2)) {
			t.Errorf("log line %v lacks phase 10 and a refused node id", rec)
		}
	}

	if n := e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = ANY($1)`, []int64{row1, row2}); n != 0 {
		t.Errorf("%d refused rows still in working memory, want them pruned", n)
	}
	if n := e.count(t, `SELECT count(*) FROM node_tombstones WHERE node_id = ANY($1) AND reason = 'expired'
		AND content LIKE '%still syncing%' AND properties->>'durability' = 'expired'`, []int64{row1, row2}); n != 2 {
		t.Errorf("%d tombstones for the refused rows, want 2 with content and properties", n)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1 AND promoted_at IS NOT NULL`, row3); n != 1 {
		t.Error("the outcome row is not marked promoted")
	}
}

func TestTransientRowsAreRefusedUntilPruned(t *testing.T) {
	e := newEnv(t)
	id := e.push(t, "ops", NewNode{Content: "Deploy 4812 is rolling out, 40% of pods updated.", Durability: "transient"})[0]
	withTTL := e.push(t, "ops", NewNode{Content: "Disk alert firing", Durability: "transient", TTLSeconds: pointerTo(int32(600))})[0]

	first := e.consolidate(t)
	if first.TransientRejected != 2 || first.Count(PhaseCleanup, "pruned_transient") != 0 {
		t.Errorf("first run: transient_rejected %d, report %v; want both refused, none pruned yet", first.TransientRejected, first.Report)
	}
	e.clock.Advance(11 * time.Minute) // past the 600 s ttl, under the 1 h floor
	second := e.consolidate(t)
	// Both refusals are logged already: the second run skips the rows at
	// the gate, logs nothing twice, and cleanup prunes the ttl row.
	if second.TransientRejected != 0 || second.Count(PhaseCleanup, "pruned_transient") != 1 {
		t.Errorf("second run: transient_rejected %d, report %v; want no refusal logged twice and the ttl row pruned",
			second.TransientRejected, second.Report)
	}
	if e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1`, withTTL) != 0 {
		t.Error("transient row past min(ttl, 1 h) not pruned")
	}
	e.clock.Advance(50 * time.Minute)
	third := e.consolidate(t)
	if third.Count(PhaseCleanup, "pruned_transient") != 1 || e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1`, id) != 0 {
		t.Errorf("third run: report %v; want the transient row pruned after an hour", third.Report)
	}
	if e.count(t, `SELECT count(*) FROM entity_facts`) != 0 {
		t.Error("a transient row became a fact")
	}
	if n := e.count(t, `SELECT count(*) FROM consolidation_rejections WHERE node_id = $1 AND reason = 'transient'`, id); n != 1 {
		t.Errorf("%d refusals logged for the transient row, want one across the three runs", n)
	}
}

func TestExplicitTTLPrunesDurableRows(t *testing.T) {
	e := newEnv(t)
	id := e.push(t, "ops", NewNode{Content: "Queue depth is 37 right now.", TTLSeconds: pointerTo(int32(60))})[0]
	e.clock.Advance(2 * time.Minute)
	run := e.consolidate(t)
	if run.Count(PhaseCleanup, "pruned_ttl") != 1 || run.Count(PhasePromote, "promoted") != 0 {
		t.Errorf("report = %v, want the row past its ttl pruned, not promoted", run.Report)
	}
	if e.count(t, `SELECT count(*) FROM node_tombstones WHERE node_id = $1 AND reason = 'ttl'`, id) != 1 {
		t.Error("no ttl tombstone")
	}
}

// lockedDecision inserts a locked decision on (scope, entity, key) and returns its id.
func lockedDecision(t *testing.T, e *env, scope, entity, key string) int64 {
	t.Helper()
	ctx := context.Background()
	var entityID, factID, decisionID int64
	if err := e.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ($1, $2) RETURNING id`, scope, entity).Scan(&entityID); err != nil {
		t.Fatal(err)
	}
	if err := e.pool.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence)
		VALUES ($1, $2, $3, 'Cracked housings are replaced without photos.', 'permanent', 'decision', 1) RETURNING id`,
		scope, entityID, key).Scan(&factID); err != nil {
		t.Fatal(err)
	}
	if err := e.pool.QueryRow(ctx, `INSERT INTO decisions (fact_id, scope, entity_id, key, decision, alternatives, reasoning)
		VALUES ($1, $2, $3, $4, 'Cracked housings are replaced without photos.', '{require photos}', 'Photos delayed RMAs by a week.')
		RETURNING id`, factID, scope, entityID, key).Scan(&decisionID); err != nil {
		t.Fatal(err)
	}
	return decisionID
}

func TestDecisionLockRefusesConsolidation(t *testing.T) {
	e := newEnv(t)
	decision := lockedDecision(t, e, "acme", "Acme Robotics", "rma_policy")
	observation := e.push(t, "acme", NewNode{Content: "RMAs should wait for photos.",
		Properties: map[string]any{"entity": "Acme Robotics", "key": "rma_policy", "category": "observation"}})[0]
	reopening := e.push(t, "acme", NewNode{Content: "We decided to require photos before every RMA.",
		Properties: map[string]any{"entity": "Acme Robotics", "key": "rma_policy", "category": "decision"}})[0]
	facts := e.count(t, `SELECT count(*) FROM entity_facts`)

	run := e.consolidate(t)
	if run.DecisionLocked != 2 {
		t.Errorf("decision_locked = %d, want 2 (report %v)", run.DecisionLocked, run.Report)
	}
	for node, phase := range map[int64]int{observation: PhasePromote, reopening: PhaseDecide} {
		if n := e.count(t, `SELECT count(*) FROM consolidation_rejections WHERE node_id = $1 AND phase = $2
			AND reason = 'decision_locked' AND decision_id = $3`, node, phase, decision); n != 1 {
			t.Errorf("node %d: %d decision_locked refusals in phase %d, want 1", node, n, phase)
		}
		if n := e.count(t, `SELECT count(*) FROM node_tombstones WHERE node_id = $1 AND reason = 'decision_locked'`, node); n != 1 {
			t.Errorf("node %d: no decision_locked tombstone", node)
		}
	}
	if got := e.count(t, `SELECT count(*) FROM entity_facts`); got != facts {
		t.Errorf("facts went from %d to %d; refused writes must write nothing", facts, got)
	}
	if n := e.count(t, `SELECT count(*) FROM review_items WHERE kind = 'decision_refusal' AND status = 'open'`); n != 2 {
		t.Errorf("%d decision_refusal review items, want 2", n)
	}
	if n := len(e.logs.lines(t, "consolidation.decision_locked")); n != 2 {
		t.Errorf("%d consolidation.decision_locked log lines, want 2", n)
	}
}

func TestDecisionRowsBecomeDecisions(t *testing.T) {
	e := newEnv(t)
	e.push(t, "home", NewNode{Content: "We use pnpm, not npm, for the side projects.",
		Properties: map[string]any{"entity": "Household", "key": "package_manager", "category": "decision",
			"alternatives": []any{"npm", "yarn"}, "reasoning": "Its store saves disk.", "decided_by": "Edmund"}})
	run := e.consolidate(t)
	if run.Count(PhaseDecide, "decisions") != 1 {
		t.Fatalf("report = %v, want one decision", run.Report)
	}
	var alts []string
	var reasoning, durability, category string
	var locked bool
	err := e.pool.QueryRow(context.Background(), `SELECT d.alternatives, d.reasoning, d.do_not_reopen, f.durability, f.category
		FROM decisions d JOIN entity_facts f ON f.id = d.fact_id WHERE d.key = 'package_manager'`).
		Scan(&alts, &reasoning, &locked, &durability, &category)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(alts, ",") != "npm,yarn" || reasoning != "Its store saves disk." || !locked ||
		durability != "permanent" || category != "decision" {
		t.Errorf("decision = %v %q locked=%t (%s, %s)", alts, reasoning, locked, durability, category)
	}
	// The new decision now locks its key against the next automated write.
	e.push(t, "home", NewNode{Content: "Switch the side projects to yarn.",
		Properties: map[string]any{"entity": "Household", "key": "package_manager"}})
	if next := e.consolidate(t); next.DecisionLocked != 1 {
		t.Errorf("second run decision_locked = %d, want 1", next.DecisionLocked)
	}
}

func TestReinforcementKeepsAxesAndMoodsNeverHarden(t *testing.T) {
	e := newEnv(t)
	mood := NewNode{Content: "Edmund is feeling stressed today.",
		Properties: map[string]any{"entity": "Edmund", "key": "mood", "category": "mood", "fact_durability": "permanent", "confidence": 0.5}}
	e.push(t, "pa", mood)
	e.consolidate(t)
	var durability string
	var c0 float64
	if err := e.pool.QueryRow(context.Background(), `SELECT durability, confidence FROM entity_facts`).Scan(&durability, &c0); err != nil {
		t.Fatal(err)
	}
	if durability != "ephemeral" {
		t.Fatalf("mood pushed as permanent became %s, want ephemeral (moods never harden)", durability)
	}
	for i := range 5 {
		e.clock.Advance(6 * time.Hour)
		e.push(t, "pa", mood)
		run := e.consolidate(t)
		if run.Count(PhasePromote, "reinforced") != 1 {
			t.Fatalf("observation %d: report %v, want one reinforcement", i+2, run.Report)
		}
		// c = 1 - (1 - c_now)(1 - c_new), with c_now decayed over 6 h of a 36 h half-life.
		cNow := c0 * math.Pow(2, -6.0/36)
		want := 1 - (1-cNow)*(1-0.5)
		var got float64
		var count int
		if err := e.pool.QueryRow(context.Background(), `SELECT confidence, extraction_count, durability FROM entity_facts`).Scan(&got, &count, &durability); err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9 || count != i+2 || durability != "ephemeral" {
			t.Errorf("after observation %d: confidence %v count %d durability %s, want %v, %d, ephemeral", i+2, got, count, durability, want, i+2)
		}
		c0 = got
	}
	if e.count(t, `SELECT count(*) FROM entity_facts`) != 1 {
		t.Error("reinforcement wrote new facts")
	}
	if e.count(t, `SELECT count(*) FROM review_items WHERE kind = 'repeated_mood'`) != 1 {
		t.Error("a mood seen 6 times is not in the review queue exactly once")
	}
}

// TestMergeAndNearDuplicates: two rows of one batch that say the same are
// one fact, the second reinforcing the first at promotion; an exact
// duplicate fact written beside consolidation is merged into the oldest;
// a conflicting fact on an accumulating key is queued as a near duplicate.
func TestMergeAndNearDuplicates(t *testing.T) {
	e := newEnv(t)
	props := map[string]any{"entity": "Edmund", "key": "visited_city", "category": "observation"}
	e.push(t, "pa", NewNode{Content: "Edmund lives in Austin.", Properties: props},
		NewNode{Content: "Edmund lives in Austin.", Properties: props})
	run := e.consolidate(t)
	if run.Count(PhasePromote, "promoted") != 1 || run.Count(PhasePromote, "reinforced") != 1 || run.Count(PhaseMerge, "merged") != 0 {
		t.Errorf("report = %v, want one fact, reinforced by the repeat", run.Report)
	}
	if e.count(t, `SELECT count(*) FROM entity_facts`) != 1 ||
		e.count(t, `SELECT extraction_count FROM entity_facts WHERE status = 'active'`) != 2 {
		t.Error("want one fact of two extractions")
	}
	// A copy written beside consolidation (as two writers racing could) is
	// merged when a row repeats it.
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO entity_facts (scope, entity_id, key, content, durability,
		category, confidence, confirmed_at) SELECT scope, entity_id, key, content, durability, category, confidence, confirmed_at
		FROM entity_facts`); err != nil {
		t.Fatal(err)
	}
	e.push(t, "pa", NewNode{Content: "Edmund lives in Austin.", Properties: props})
	run = e.consolidate(t)
	if run.Count(PhaseMerge, "merged") != 1 {
		t.Errorf("report = %v, want one merged duplicate", run.Report)
	}
	if e.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active'`) != 1 ||
		e.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'archived' AND archive_reason LIKE 'merged into fact %'`) != 1 {
		t.Error("want one active survivor and one archived duplicate")
	}
	if e.count(t, `SELECT extraction_count FROM entity_facts WHERE status = 'active'`) != 4 {
		t.Error("survivor's extraction_count does not include the duplicate")
	}
	e.push(t, "pa", NewNode{Content: "Edmund lives in Dallas.", Properties: props})
	run = e.consolidate(t)
	if run.Count(PhaseMerge, "near_duplicates") != 1 ||
		e.count(t, `SELECT count(*) FROM review_items WHERE kind = 'near_duplicate' AND status = 'open'`) != 1 {
		t.Errorf("report = %v, want the conflicting fact queued as a near duplicate", run.Report)
	}
}

// TestRunStoppedBetweenBatchesThenRerun: every durable row is promoted exactly
// once, nothing lost, no duplicate fact.
func TestRunStoppedBetweenBatchesThenRerun(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var nodes []NewNode
	for i := range 45 {
		nodes = append(nodes, NewNode{Content: fmt.Sprintf("Ticket %d was resolved by the support team.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Ticket %d", i), "key": "status"}})
	}
	for i := range 5 {
		nodes = append(nodes, NewNode{Content: fmt.Sprintf("Sync %d in progress", i), Durability: "transient"})
	}
	ids := e.push(t, "support", nodes...)

	errStop := errors.New("stopped")
	batches := 0
	_, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest, BatchSize: 10, afterBatch: func(phase int) error {
		if phase == PhasePromote {
			batches++
			if batches == 2 {
				return errStop
			}
		}
		return nil
	}})
	if !errors.Is(err, errStop) {
		t.Fatalf("stopped run error = %v, want the stop", err)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts`); n != 20 {
		t.Errorf("after two batches of 10, %d facts, want 20", n)
	}
	rerun := e.consolidate(t)
	if n := e.count(t, `SELECT count(*) FROM entity_facts`); n != 45 {
		t.Errorf("after the rerun, %d facts, want 45", n)
	}
	if n := e.count(t, `SELECT count(*) FROM (SELECT source_node_id FROM entity_facts GROUP BY 1 HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d rows promoted twice", n)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = ANY($1) AND promoted_at IS NULL
		AND coalesce(properties->>'durability', 'durable') = 'durable'`, ids); n != 0 {
		t.Errorf("%d durable rows left unpromoted", n)
	}
	if rerun.Count(PhasePromote, "promoted") != 25 {
		t.Errorf("rerun report = %v, want the remaining 25 promoted", rerun.Report)
	}
	var status string
	e.pool.QueryRow(ctx, `SELECT status FROM consolidation_runs WHERE id < $1 ORDER BY id DESC LIMIT 1`, rerun.ID).Scan(&status)
	if status != "failed" {
		t.Errorf("stopped run status = %s, want failed", status)
	}
}

func TestInterruptedRunIsClosedByTheNext(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var dead int64
	if err := e.pool.QueryRow(ctx, `INSERT INTO consolidation_runs (trigger) VALUES ('schedule') RETURNING id`).Scan(&dead); err != nil {
		t.Fatal(err)
	}
	e.consolidate(t)
	var status, msg string
	e.pool.QueryRow(ctx, `SELECT status, error FROM consolidation_runs WHERE id = $1`, dead).Scan(&status, &msg)
	if status != RunInterrupted || !strings.Contains(msg, "interrupted") || strings.Contains(msg, "completed") {
		t.Errorf("left-over run = %s %q, want interrupted, claiming no work of another run", status, msg)
	}
}

func TestOnlyOneRunAtATime(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, consolidationLock); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest}); !errors.Is(err, ErrRunInProgress) {
		t.Errorf("Consolidate() while another run holds the lock = %v, want ErrRunInProgress", err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, consolidationLock); err != nil {
		t.Fatal(err)
	}
	e.consolidate(t)
}

func TestTransientDecisionRowRefusedAtEveryPromotionPhase(t *testing.T) {
	e := newEnv(t)
	id := e.push(t, "home", NewNode{Content: "We decided to order pizza tonight.", Durability: "transient",
		Properties: map[string]any{"entity": "Household", "key": "dinner", "category": "decision"}})[0]
	run := e.consolidate(t)
	var phases []int16
	rows, _ := e.pool.Query(context.Background(), `SELECT phase FROM consolidation_rejections WHERE node_id = $1 ORDER BY phase`, id)
	for rows.Next() {
		var p int16
		rows.Scan(&p)
		phases = append(phases, p)
	}
	if fmt.Sprint(phases) != "[10 12]" || run.TransientRejected != 2 {
		t.Errorf("refusal phases = %v (transient_rejected %d), want [10 12]", phases, run.TransientRejected)
	}
	if e.count(t, `SELECT count(*) FROM decisions`) != 0 {
		t.Error("a transient row became a decision")
	}
}

func TestPlanNodeRules(t *testing.T) {
	tests := []struct {
		name       string
		content    string
		props      string
		durability Durability
		category   string
		decision   bool
	}{
		{"explicit axes win", "Edmund is tired today.", `{"category": "identity", "fact_durability": "permanent"}`, Permanent, "identity", false},
		{"mood clamped", "x", `{"category": "mood", "fact_durability": "long_term"}`, Ephemeral, "mood", false},
		{"state clamped", "x", `{"category": "state", "fact_durability": "permanent"}`, ShortTerm, "state", false},
		{"category default durability", "x", `{"category": "routine"}`, LongTerm, "routine", false},
		{"decision", "x", `{"category": "decision", "entity": "Team"}`, Permanent, "decision", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planNode(pendingRow(tt.content, tt.props), start)
			if p.durability != tt.durability || p.category != tt.category || p.decision != tt.decision {
				t.Errorf("planNode(%q, %s) = (%s, %s, decision %t), want (%s, %s, %t)",
					tt.content, tt.props, p.durability, p.category, p.decision, tt.durability, tt.category, tt.decision)
			}
			if p.decision && p.key == "" {
				t.Error("a decision without a key")
			}
		})
	}
}

func pendingRow(content, props string) queries.PeekPendingNodesRow {
	return queries.PeekPendingNodesRow{ID: 1, Scope: "t", Content: content, Properties: json.RawMessage(props), CreatedAt: start}
}

func TestCleanupRemovesRowsPromotedLongAgo(t *testing.T) {
	e := newEnv(t)
	id := e.push(t, "ops", NewNode{Content: "The search cluster runs 6 data nodes."})[0]
	e.consolidate(t)
	e.clock.Advance(6 * 24 * time.Hour)
	if run := e.consolidate(t); run.Count(PhaseCleanup, "pruned_promoted") != 0 {
		t.Errorf("after 6 days, report %v: a promoted row went before its week", run.Report)
	}
	e.clock.Advance(2 * 24 * time.Hour)
	run := e.consolidate(t)
	if run.Count(PhaseCleanup, "pruned_promoted") != 1 || e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1`, id) != 0 {
		t.Errorf("after 8 days, report %v: want the promoted row removed", run.Report)
	}
	if e.count(t, `SELECT count(*) FROM entity_facts WHERE source_node_id = $1`, id) != 1 {
		t.Error("the fact lost its source row id")
	}
}

// TestConsolidateProgress follows a run batch by batch: every phase starts
// at zero, the promote phase counts the rows it reads against the pending
// rows it began with, and every phase ends with its last batch.
func TestConsolidateProgress(t *testing.T) {
	e := newEnv(t)
	var nodes []NewNode
	for i := range 25 {
		nodes = append(nodes, NewNode{Content: fmt.Sprintf("Ticket %d was resolved by the support team.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Ticket %d", i), "key": "status"}})
	}
	nodes = append(nodes, NewNode{Content: "Sync in progress", Durability: "transient"})
	e.push(t, "support", nodes...)
	var got []ConsolidateProgress
	if _, err := e.store.Consolidate(context.Background(), ConsolidateOptions{Trigger: TriggerTest, BatchSize: 10,
		Progress: func(p ConsolidateProgress) { got = append(got, p) }}); err != nil {
		t.Fatal(err)
	}
	var promote []ConsolidateProgress
	phases := map[int]bool{}
	for i, p := range got {
		if !phases[p.Phase] {
			phases[p.Phase] = true
			if p.Done != 0 {
				t.Errorf("phase %d starts at %d done, want 0", p.Phase, p.Done)
			}
		}
		if i > 0 && got[i-1].Phase == p.Phase && p.Done < got[i-1].Done {
			t.Errorf("phase %d went back from %d to %d", p.Phase, got[i-1].Done, p.Done)
		}
		if p.Phase == PhasePromote {
			promote = append(promote, p)
		}
	}
	if len(phases) != len(PhaseOrder) {
		t.Errorf("progress came for %d phases, want %d: %+v", len(phases), len(PhaseOrder), got)
	}
	// 26 pending rows in batches of 10: the start, then 10, 20 and the end.
	want := []ConsolidateProgress{{PhasePromote, 0, 26}, {PhasePromote, 10, 26}, {PhasePromote, 20, 26}, {PhasePromote, 26, 26}}
	if !slices.Equal(promote, want) {
		t.Errorf("promote progress = %+v, want %+v", promote, want)
	}
}

// TestConsolidationLeavesFactsAllVisible shows that a run that promoted
// facts vacuums their heap pages, so that recall's walk over the newest
// facts (an index-only scan) reads them from the index alone, and that a
// run that promoted nothing does not vacuum.
func TestConsolidationLeavesFactsAllVisible(t *testing.T) {
	ctx := context.Background()
	// The test cluster commits asynchronously, and a vacuum cannot mark a
	// page all-visible until the commits of its rows reach the WAL on disk:
	// here they do at once, as they do on a server with the default
	// synchronous_commit.
	e := &env{pool: pgtest.Connect(t, pgtest.NewURL(t)+"&synchronous_commit=on"), clock: &clock{t: start},
		logs: &logBuffer{}, metrics: &countingMetrics{}}
	e.store = NewStore(e.pool, Options{Now: e.clock.Now})
	var nodes []NewNode
	for i := range 300 {
		nodes = append(nodes, NewNode{Content: fmt.Sprintf("Customer %d prefers invoices by email, sent on the first of the month.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "invoice_channel"}})
	}
	e.push(t, "support", nodes...)
	vacuums := func() int64 {
		t.Helper()
		var n int64
		if err := e.pool.QueryRow(ctx, `SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'entity_facts'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := vacuums()
	if _, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest}); err != nil {
		t.Fatal(err)
	}
	// Statistics reach pg_stat_user_tables when a session reports them.
	if _, err := e.pool.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	if after := vacuums(); after != before+1 {
		t.Errorf("vacuums of entity_facts = %d after a run that promoted 300 facts, want %d", after, before+1)
	}
	var pages, visible int32
	if err := e.pool.QueryRow(ctx, `SELECT relpages, relallvisible FROM pg_class WHERE relname = 'entity_facts'`).Scan(&pages, &visible); err != nil {
		t.Fatal(err)
	}
	if pages == 0 || visible != pages {
		t.Errorf("entity_facts has %d of %d pages all-visible after the run, want all", visible, pages)
	}
	if _, err := e.store.Consolidate(ctx, ConsolidateOptions{Trigger: TriggerTest}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	if after := vacuums(); after != before+1 {
		t.Errorf("vacuums of entity_facts = %d after a run that promoted nothing, want %d", after, before+1)
	}
}
