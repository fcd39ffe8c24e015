package memory

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/queries"
)

// insertFact writes a fact confirmed at the env's current time.
func (e *env) insertFact(t *testing.T, durability, category string, confidence float64, deadline *time.Time) int64 {
	t.Helper()
	ctx := context.Background()
	var entity, id int64
	if err := e.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ('d', 'E')
		ON CONFLICT (scope, name) DO UPDATE SET name = excluded.name RETURNING id`).Scan(&entity); err != nil {
		t.Fatal(err)
	}
	if err := e.pool.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, category, confidence, confirmed_at, deadline)
		VALUES ('d', $1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		entity, durability+" "+category, durability, category, confidence, e.clock.Now(), deadline).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *env) status(t *testing.T, id int64) string {
	t.Helper()
	var s string
	if err := e.pool.QueryRow(context.Background(), `SELECT status FROM entity_facts WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDecayAcrossDays checks, day by day, when each durability is archived:
// c0 = 0.8 and a floor of 0.10 give three half-lives.
func TestDecayAcrossDays(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	day := 24 * time.Hour
	deadline := start.Add(5 * day)
	facts := map[string]int64{
		"ephemeral":  e.insertFact(t, "ephemeral", "mood", 0.8, nil),              // 3 × 36 h = 4.5 d
		"short_term": e.insertFact(t, "short_term", "state", 0.8, nil),            // 30 d
		"long_term":  e.insertFact(t, "long_term", "observation", 0.8, nil),       // 540 d
		"permanent":  e.insertFact(t, "permanent", "identity", 0.8, nil),          // 30 y
		"decision":   e.insertFact(t, "permanent", "decision", 0.8, nil),          // never
		"routine":    e.insertFact(t, "long_term", "routine", 0.8, nil),           // never
		"obligation": e.insertFact(t, "short_term", "obligation", 0.8, &deadline), // held once overdue
		"to do":      e.insertFact(t, "short_term", "obligation", 0.8, nil),       // no deadline: 30 d
	}
	archivedOn := map[string]time.Duration{
		"ephemeral": 5 * day, "short_term": 31 * day, "to do": 31 * day, "long_term": 541 * day,
	}
	checkpoints := []time.Duration{4 * day, 5 * day, 9 * day, 10 * day, 29 * day, 31 * day, 539 * day, 541 * day, 3000 * day}
	elapsed := time.Duration(0)
	for _, at := range checkpoints {
		e.clock.Advance(at - elapsed)
		elapsed = at
		if _, err := e.store.Decay(ctx, System("decay")); err != nil {
			t.Fatal(err)
		}
		for name, id := range facts {
			want := "active"
			if due, ok := archivedOn[name]; ok && at >= due {
				want = "archived"
			}
			if got := e.status(t, id); got != want {
				t.Errorf("day %.0f: %s fact is %s, want %s", at.Hours()/24, name, got, want)
			}
		}
	}
	var reason string
	e.pool.QueryRow(ctx, `SELECT archive_reason FROM entity_facts WHERE id = $1`, facts["ephemeral"]).Scan(&reason)
	if reason != "decayed" {
		t.Errorf("archive_reason = %q, want decayed", reason)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts`); n != len(facts) {
		t.Errorf("%d facts left, want %d: decay must never delete", n, len(facts))
	}
}

// TestObligationKeepsConfidenceUntilDeadline: an obligation keeps its
// confidence until its deadline and decays from it, but decay never
// archives it once it is overdue, however far it decayed: it waits for a
// person to mark it done or let it go.
func TestObligationKeepsConfidenceUntilDeadline(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	deadline := start.Add(10 * 24 * time.Hour)
	id := e.insertFact(t, "short_term", "obligation", 0.8, &deadline)
	effective := func(at time.Time) float64 {
		var c float64
		if err := e.pool.QueryRow(ctx, `SELECT tenure_effective_confidence(durability, category, confidence, confirmed_at, deadline, $2)
			FROM entity_facts WHERE id = $1`, id, at).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := effective(deadline.Add(-time.Hour)); c != 0.8 {
		t.Errorf("an hour before the deadline, effective confidence = %v, want 0.8 (no decay before it)", c)
	}
	if c := effective(deadline.Add(36 * time.Hour)); c < 0.3999 || c > 0.4001 {
		t.Errorf("36 h after the deadline, effective confidence = %v, want 0.4 (ephemeral half-life)", c)
	}
	e.clock.Advance(10*24*time.Hour + 100*time.Hour)
	e.store.Decay(ctx, System("decay"))
	if e.status(t, id) != "active" {
		t.Error("obligation archived before deadline + 3 half-lives")
	}
	// Past its forget_at (deadline + 3 half-lives), by a day and by a year:
	// still active, through the scheduled decay and a consolidation's.
	for _, wait := range []time.Duration{34 * time.Hour, 365 * 24 * time.Hour} {
		e.clock.Advance(wait)
		rep, err := e.store.Decay(ctx, System("decay"))
		if err != nil || rep.Archived != 0 {
			t.Fatalf("Decay() = %+v, %v; want nothing archived", rep, err)
		}
		e.consolidate(t)
		if e.status(t, id) != "active" {
			t.Fatalf("obligation archived %s after its forget date; an overdue obligation waits for a person", wait)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.decay'`); n != 0 {
		t.Errorf("%d decay audit rows, want none", n)
	}
	// A person lets it go: archived with that reason; decay never touched it.
	f, err := e.store.SettleObligation(ctx, Human("ann@example.com"), id, ObligationLetGo)
	if err != nil || f.Status != StatusArchived || f.ArchiveReason != "let go" {
		t.Fatalf("SettleObligation(let go) = %+v, %v; want it archived as let go", f, err)
	}
}

// TestDecayArchivesObligationsNotHeld: an obligation without a deadline
// decays like any fact, and one that expires before its deadline is
// archived as expired; neither is overdue.
func TestDecayArchivesObligationsNotHeld(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	day := 24 * time.Hour
	deadline := start.Add(10 * day)
	noDeadline := e.insertFact(t, "short_term", "obligation", 0.8, nil)
	expiring := e.insertFact(t, "short_term", "obligation", 0.8, &deadline)
	if _, err := e.pool.Exec(ctx, `UPDATE entity_facts SET expires_at = $2 WHERE id = $1`, expiring, start.Add(2*day)); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(3 * day)
	if _, err := e.store.Decay(ctx, System("decay")); err != nil {
		t.Fatal(err)
	}
	if got := e.status(t, expiring); got != "archived" {
		t.Errorf("obligation that expired before its deadline is %s, want archived", got)
	}
	// The same when decay first runs after the deadline (the process was
	// down): it expired before it was due, so nothing holds it.
	late := e.insertFact(t, "short_term", "obligation", 0.8, &deadline)
	if _, err := e.pool.Exec(ctx, `UPDATE entity_facts SET expires_at = $2 WHERE id = $1`, late, start.Add(5*day)); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(10 * day) // past the deadline
	if _, err := e.store.Decay(ctx, System("decay")); err != nil {
		t.Fatal(err)
	}
	if got := e.status(t, late); got != "archived" {
		t.Errorf("obligation that expired before its deadline, decayed after it, is %s, want archived", got)
	}
	e.clock.Advance(30 * day)
	if _, err := e.store.Decay(ctx, System("decay")); err != nil {
		t.Fatal(err)
	}
	if got := e.status(t, noDeadline); got != "archived" {
		t.Errorf("obligation without a deadline is %s after three half-lives, want archived", got)
	}
}

func TestExpiresAtArchives(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.insertFact(t, "permanent", "decision", 1, nil)
	if _, err := e.pool.Exec(ctx, `UPDATE entity_facts SET expires_at = $2 WHERE id = $1`, id, start.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Hour)
	rep, err := e.store.Decay(ctx, System("decay"))
	if err != nil || rep.Archived != 1 {
		t.Fatalf("Decay() = %+v, %v; want one archived", rep, err)
	}
	var reason string
	e.pool.QueryRow(ctx, `SELECT archive_reason FROM entity_facts WHERE id = $1`, id).Scan(&reason)
	if reason != "expired" {
		t.Errorf("archive_reason = %q, want expired", reason)
	}
}

func TestDecayBatchesAndAudits(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.pool.Exec(ctx, `INSERT INTO entities (scope, name) VALUES ('d', 'E')`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, category, confidence, confirmed_at)
		SELECT 'd', (SELECT id FROM entities), 'mood ' || i, 'ephemeral', 'mood', 0.5, $1 FROM generate_series(1, 2500) i`, start); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(30 * 24 * time.Hour)
	rep, err := e.store.Decay(ctx, System("decay"))
	if err != nil || rep.Archived != 2500 || rep.Batches != 3 {
		t.Fatalf("Decay() = %+v, %v; want 2500 archived in 3 batches", rep, err)
	}
	if n := e.count(t, `SELECT coalesce(sum(jsonb_array_length(after->'facts')), 0) FROM audit_log WHERE action = 'fact.decay'`); n != 2500 {
		t.Errorf("audit rows list %d facts, want 2500", n)
	}
	if e.metrics.archived != 2500 {
		t.Errorf("metrics counted %d archived, want 2500", e.metrics.archived)
	}
}

// TestDecayUsesForgetAtIndex shows the decay query's plan: it reads the
// partial forget_at index, so its cost follows the facts due.
func TestDecayUsesForgetAtIndex(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.pool.Exec(ctx, `INSERT INTO entities (scope, name) VALUES ('d', 'E')`); err != nil {
		t.Fatal(err)
	}
	// Enough long-lived facts that a sequential scan would cost more.
	if _, err := e.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, category, confidence, confirmed_at)
		SELECT 'd', (SELECT id FROM entities), 'fact ' || i, 'long_term', 'observation', 0.8, $1 FROM generate_series(1, 20000) i`, start); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `ANALYZE entity_facts`); err != nil {
		t.Fatal(err)
	}
	// The scheduled run's statement: every scope (scope NULL).
	text := explain(t, e.pool, queries.ArchiveDueFactsSQL(), start, nil, decayBatch)
	if !strings.Contains(text, "entity_facts_forget_at_idx") || strings.Contains(text, "Seq Scan on entity_facts") {
		t.Errorf("decay plan does not read the forget_at index:\n%s", text)
	}
}

// TestRecallFindsHeldObligations: an obligation past its deadline and its
// forget date is held by decay until a person settles it, and recall finds
// it, by words and without, as the brief shows it; an obligation whose
// expiry passed before its deadline is forgotten, and recall leaves it out.
func TestRecallFindsHeldObligations(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	day := 24 * time.Hour
	due := start.Add(day)
	held := e.insertFact(t, "short_term", "obligation", 0.8, &due)
	later := start.Add(90 * day)
	expired := e.insertFact(t, "short_term", "obligation", 0.8, &later)
	if _, err := e.pool.Exec(ctx, `UPDATE entity_facts SET expires_at = $2 WHERE id = $1`, expired, start.Add(2*day)); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(60 * day)
	for _, id := range []int64{held, expired} {
		var past bool
		if err := e.pool.QueryRow(ctx, `SELECT forget_at <= $2 FROM entity_facts WHERE id = $1`, id, e.clock.Now()).Scan(&past); err != nil || !past {
			t.Fatalf("fact %d: forget date passed = %t (%v); the test needs it passed", id, past, err)
		}
	}
	recalled := func(q RecallQuery) []int64 {
		t.Helper()
		res, err := e.store.Recall(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range res {
			ids = append(ids, r.Fact.ID)
		}
		return ids
	}
	for _, q := range []RecallQuery{{Scope: "d", Query: "obligation"}, {Scope: "d"}} {
		if got := recalled(q); !slices.Equal(got, []int64{held}) {
			t.Errorf("Recall(%q) = %v, want the held obligation %d alone", q.Query, got, held)
		}
	}
	if _, err := e.store.Decay(ctx, System("decay")); err != nil {
		t.Fatal(err)
	}
	if got := e.status(t, held); got != "active" {
		t.Fatalf("the overdue obligation is %s after decay, want held active", got)
	}
	if got := recalled(RecallQuery{Scope: "d", Query: "obligation"}); !slices.Equal(got, []int64{held}) {
		t.Errorf("Recall after decay = %v, want the held obligation %d", got, held)
	}
}
