package migrations_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/migrations"
)

// boundsVersion is the migration that brings stored rows into the bounds
// and clamps what the database derives (00028_bounds.sql).
const boundsVersion = 28

var (
	minTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// TestBoundsRepair stores, on the schema before the bounds, the rows the
// bounds now refuse (a deadline in the year 9999, whose forget_at lands in
// the year 10000; times before 1970; confidences and importances of 5e-324;
// a working row whose deadline PostgreSQL cannot read, held after its
// failures), migrates, and checks that each is brought into the bounds and
// the held row is released for the next run.
func TestBoundsRepair(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Connect(t, pgtest.NewEmptyURL(t))
	m, err := migrations.New(pool, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DownTo(ctx, boundsVersion-1); err != nil {
		t.Fatal(err)
	}
	entity := newEntity(t, pool)
	fact := func(sql string, args ...any) int64 {
		t.Helper()
		var id int64
		if err := pool.QueryRow(ctx, sql, args...).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	farDeadline := fact(`INSERT INTO entity_facts (scope, entity_id, content, durability, category, deadline)
		VALUES ('test', $1, 'Pay the rent', 'short_term', 'obligation', '9999-12-31T23:59:59Z') RETURNING id`, entity)
	var forget time.Time
	if err := pool.QueryRow(ctx, `SELECT forget_at FROM entity_facts WHERE id = $1`, farDeadline).Scan(&forget); err != nil {
		t.Fatal(err)
	}
	if forget.Year() < 10000 {
		t.Fatalf("before the migration, forget_at = %v; the test expects the year 10000 it reproduces", forget)
	}
	early := fact(`INSERT INTO entity_facts (scope, entity_id, content, confirmed_at, expires_at, created_at, updated_at)
		VALUES ('test', $1, 'Old news', '1900-01-01T00:00:00Z', '1950-01-01T00:00:00Z', '1900-01-01T00:00:00Z', '1900-01-01T00:00:00Z')
		RETURNING id`, entity)
	tiny := fact(`INSERT INTO entity_facts (scope, entity_id, content, durability, confidence, importance)
		VALUES ('test', $1, 'Barely sure', 'short_term', 5e-324, 1) RETURNING id`, entity)
	decision := fact(`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category)
		VALUES ('test', $1, 'db', 'Use PostgreSQL', 'permanent', 'decision') RETURNING id`, entity)
	if _, err := pool.Exec(ctx, `INSERT INTO decisions (fact_id, scope, entity_id, key, decision, reasoning, decided_by, decided_at)
		VALUES ($1, 'test', $2, 'db', 'Use PostgreSQL', 'we run it', 'ann', '0100-01-01T00:00:00Z')`, decision, entity); err != nil {
		t.Fatal(err)
	}

	node := func(props string, importance float64) int64 {
		t.Helper()
		return fact(`INSERT INTO memory_nodes (scope, content, properties, importance) VALUES ('test', 'x', $1, $2) RETURNING id`, props, importance)
	}
	yearZero := node(`{"category": "obligation", "deadline": "0000-01-01T00:00:00Z"}`, 0.5)
	yearFar := node(`{"category": "obligation", "deadline": "9999-12-31T23:59:59Z"}`, 0.5)
	tinyConfidence := node(`{"confidence": 5e-324}`, 0.5)
	tinyImportance := node(`{}`, 5e-324)
	fine := node(`{"confidence": 0, "deadline": "2026-12-31T17:00:00Z"}`, 0)
	if _, err := pool.Exec(ctx, `INSERT INTO consolidation_faults (node_id, scope, phase, error, attempts, first_failed_at, last_failed_at, retry_at)
		VALUES ($1, 'test', 10, 'date/time field value out of range', 4, now(), now(), NULL),
		       ($2, 'test', 10, 'value out of range: underflow', 4, now(), now(), NULL)`, yearZero, fine); err != nil {
		t.Fatal(err)
	}

	if _, err := m.UpByOne(ctx); err != nil {
		t.Fatalf("migrate to %d: %v", boundsVersion, err)
	}
	if v, _, err := m.Version(ctx); err != nil || v != boundsVersion {
		t.Fatalf("version = %d, %v; want %d", v, err, boundsVersion)
	}

	var deadline, forgetAt, decayFrom time.Time
	if err := pool.QueryRow(ctx, `SELECT deadline, forget_at, decay_from FROM entity_facts WHERE id = $1`, farDeadline).
		Scan(&deadline, &forgetAt, &decayFrom); err != nil {
		t.Fatal(err)
	}
	if !deadline.Equal(maxTime) || forgetAt.After(maxTime) || decayFrom.After(maxTime) {
		t.Errorf("far deadline: deadline %v, forget_at %v, decay_from %v; want all at most %v", deadline, forgetAt, decayFrom, maxTime)
	}
	var confirmed, expires, created time.Time
	if err := pool.QueryRow(ctx, `SELECT confirmed_at, expires_at, created_at FROM entity_facts WHERE id = $1`, early).
		Scan(&confirmed, &expires, &created); err != nil {
		t.Fatal(err)
	}
	if !confirmed.Equal(minTime) || !expires.Equal(minTime) || !created.Equal(minTime) {
		t.Errorf("early fact: confirmed_at %v, expires_at %v, created_at %v; want %v", confirmed, expires, created, minTime)
	}
	var confidence float64
	var version int32
	if err := pool.QueryRow(ctx, `SELECT confidence, version FROM entity_facts WHERE id = $1`, tiny).Scan(&confidence, &version); err != nil {
		t.Fatal(err)
	}
	if confidence != 0.001 || version != 1 {
		t.Errorf("tiny fact: confidence %v, version %d; want 0.001 at version 1", confidence, version)
	}
	var decidedAt time.Time
	if err := pool.QueryRow(ctx, `SELECT decided_at FROM decisions WHERE fact_id = $1`, decision).Scan(&decidedAt); err != nil {
		t.Fatal(err)
	}
	if !decidedAt.Equal(minTime) {
		t.Errorf("decided_at = %v, want %v", decidedAt, minTime)
	}

	props := func(id int64) (map[string]any, float64) {
		t.Helper()
		var raw []byte
		var importance float64
		if err := pool.QueryRow(ctx, `SELECT properties, importance FROM memory_nodes WHERE id = $1`, id).Scan(&raw, &importance); err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		return p, importance
	}
	if p, _ := props(yearZero); p["deadline"] != "1970-01-01T00:00:00Z" || p["category"] != "obligation" {
		t.Errorf("row with deadline 0000: properties %v, want the deadline 1970-01-01T00:00:00Z and the rest kept", p)
	}
	if p, _ := props(yearFar); p["deadline"] != "9000-01-01T00:00:00Z" {
		t.Errorf("row with deadline 9999: properties %v, want the deadline 9000-01-01T00:00:00Z", p)
	}
	if p, _ := props(tinyConfidence); p["confidence"] != 0.001 {
		t.Errorf("row with confidence 5e-324: properties %v, want confidence 0.001", p)
	}
	if _, imp := props(tinyImportance); imp != 0.001 {
		t.Errorf("row with importance 5e-324: importance %v, want 0.001", imp)
	}
	if p, imp := props(fine); p["confidence"] != 0.0 || p["deadline"] != "2026-12-31T17:00:00Z" || imp != 0 {
		t.Errorf("row within the bounds: properties %v, importance %v; want them unchanged", p, imp)
	}
	var released, held int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE node_id = $1 AND retry_at IS NOT NULL),
			count(*) FILTER (WHERE node_id = $2 AND retry_at IS NULL) FROM consolidation_faults`, yearZero, fine).
		Scan(&released, &held); err != nil {
		t.Fatal(err)
	}
	if released != 1 || held != 1 {
		t.Errorf("faults: %d repaired rows released, %d others still held; want 1 and 1", released, held)
	}

	// A confidence of 0 (in the bounds: forgotten at once) is written and
	// read as before, by the trigger and in a statement of constants.
	var zeroForget time.Time
	if err := pool.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, content, confidence, confirmed_at)
		VALUES ('test', $1, 'Not so', 0, '2026-01-01T00:00:00Z') RETURNING forget_at`, entity).Scan(&zeroForget); err != nil {
		t.Fatalf("a fact of confidence 0: %v", err)
	}
	if !zeroForget.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("forget_at of a fact of confidence 0 = %v, want its confirmation", zeroForget)
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM tenure_decay_state('long_term', 'observation', 0, '2026-01-01T00:00:00Z', NULL, NULL)`); err != nil {
		t.Errorf("tenure_decay_state of constants, confidence 0: %v", err)
	}

	// What the database derives from now on stays within the bounds,
	// whatever the policy's floor.
	if _, err := pool.Exec(ctx, `UPDATE decay_policies SET floor = 5e-324, half_life_seconds = 100 * 365 * 86400.0 WHERE durability = 'long_term'`); err != nil {
		t.Fatalf("a floor of 5e-324: %v", err)
	}
	for _, c := range []struct {
		name, durability, category string
		deadline                   any
	}{
		{"obligation due at the bound", "short_term", "obligation", maxTime},
		{"long-term fact confirmed at the bound, decaying for 3,000 years", "long_term", "observation", nil},
	} {
		var forget, from, via time.Time
		err := pool.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, category, confirmed_at, deadline)
			VALUES ('test', $1, 'x', $2, $3, $4, $5)
			RETURNING forget_at, decay_from, tenure_forget_at(durability, category, confidence, confirmed_at, expires_at, deadline)`,
			entity, c.durability, c.category, maxTime, c.deadline).Scan(&forget, &from, &via)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if forget.After(maxTime) || from.After(maxTime) || !via.Equal(forget) {
			t.Errorf("%s: forget_at %v, decay_from %v, tenure_forget_at %v; want at most %v, and the same", c.name, forget, from, via, maxTime)
		}
	}
}
