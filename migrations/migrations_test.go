package migrations_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/migrations"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func tables(t *testing.T, pool *pgxpool.Pool) map[string]bool {
	t.Helper()
	rows, err := pool.Query(context.Background(),
		`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'goose_db_version'`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out[name] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var wantTables = []string{
	"entities", "entity_facts", "decisions", "memory_nodes", "consolidation_runs",
	"consolidation_rejections", "node_tombstones", "decay_policies", "audit_log", "users",
	"sessions", "api_tokens", "review_items", "consolidation_faults", "category_settings", "setup_tokens",
	"fact_axes_counts", "decisions_superseded", "pending_node_counts", "console_counts", "recall_terms",
	"entity_merges", "entity_aliases", "idempotency_keys", "password_resets", "job_status",
}

func TestUpDownUp(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Connect(t, pgtest.NewEmptyURL(t))
	m, err := migrations.New(pool, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	res, err := m.Up(ctx)
	if err != nil {
		t.Fatalf("Up() error = %v", err)
	}
	if len(res) == 0 {
		t.Fatal("Up() applied nothing on an empty database")
	}
	got := tables(t, pool)
	for _, name := range wantTables {
		if !got[name] {
			t.Errorf("after Up, table %s is missing", name)
		}
	}
	current, latest, err := m.Version(ctx)
	if err != nil || current != latest {
		t.Errorf("Version() = %d, %d, %v; want current == latest", current, latest, err)
	}
	again, err := m.Up(ctx)
	if err != nil || len(again) != 0 {
		t.Errorf("second Up() = %d results, %v; want nothing to do", len(again), err)
	}

	if _, err := m.DownTo(ctx, 0); err != nil {
		t.Fatalf("DownTo(0) error = %v", err)
	}
	if left := tables(t, pool); len(left) != 0 {
		t.Errorf("after DownTo(0), tables left: %v", left)
	}
	var funcs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_proc WHERE proname LIKE 'tenure\_%'`).Scan(&funcs); err != nil {
		t.Fatal(err)
	}
	if funcs != 0 {
		t.Errorf("after DownTo(0), %d tenure_ functions left", funcs)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("Up() after DownTo(0) error = %v", err)
	}
	if got := tables(t, pool); len(got) != len(wantTables) {
		t.Errorf("after Up again, %d tables, want %d", len(got), len(wantTables))
	}
}

func TestStatusListsEveryMigration(t *testing.T) {
	pool := pgtest.NewPool(t)
	m, err := migrations.New(pool, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, err := m.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st) < 3 {
		t.Fatalf("Status() = %d migrations, want at least 3", len(st))
	}
	for _, s := range st {
		if s.State != "applied" {
			t.Errorf("migration %d state = %s, want applied", s.Source.Version, s.State)
		}
	}
}

// newEntity inserts an entity in scope "test" and returns its id.
func newEntity(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	var id int64
	err := pool.QueryRow(context.Background(),
		`INSERT INTO entities (scope, name) VALUES ('test', 'Edmund') RETURNING id`).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestDurabilityCheckRefusesUnknownValue(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	entity := newEntity(t, pool)
	for _, d := range []string{"forever", "LONG_TERM", "", "temporal"} {
		_, err := pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability)
			VALUES ('test', $1, 'x', $2)`, entity, d)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.ConstraintName != "entity_facts_durability_check" {
			t.Errorf("insert durability %q: err = %v, want a violation of entity_facts_durability_check", d, err)
		}
	}
	var durability, category string
	err := pool.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, content)
		VALUES ('test', $1, 'Lives in Austin') RETURNING durability, category`, entity).Scan(&durability, &category)
	if err != nil {
		t.Fatal(err)
	}
	if durability != "long_term" || category != "observation" {
		t.Errorf("defaults = (%s, %s), want (long_term, observation)", durability, category)
	}
}

func TestMarkerCheckRefusesUnknownValue(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO memory_nodes (scope, content, properties)
		VALUES ('test', 'x', '{"durability": "permanent"}')`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.ConstraintName != "memory_nodes_durability_value" {
		t.Errorf("insert marker permanent: err = %v, want memory_nodes_durability_value violation", err)
	}
	for _, props := range []string{`{}`, `{"durability": "durable"}`, `{"durability": "transient"}`, `{"durability": "expired"}`} {
		if _, err := pool.Exec(ctx, `INSERT INTO memory_nodes (scope, content, properties) VALUES ('test', 'x', $1)`, props); err != nil {
			t.Errorf("insert properties %s: %v", props, err)
		}
	}
}

// TestForgetAtFollowsPolicy checks the forget_at trigger against the decay
// formula: confirmed_at + half_life * log2(c0 / floor).
func TestForgetAtFollowsPolicy(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	entity := newEntity(t, pool)
	confirmed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	deadline := confirmed.Add(10 * 24 * time.Hour)
	day := 24 * time.Hour
	hl := func(d time.Duration, c0 float64) time.Duration {
		return time.Duration(float64(d) * math.Log2(c0/0.10))
	}
	tests := []struct {
		name       string
		durability string
		category   string
		confidence float64
		deadline   *time.Time
		expires    *time.Time
		want       *time.Time
	}{
		{"long_term", "long_term", "observation", 0.8, nil, nil, ptr(confirmed.Add(hl(180*day, 0.8)))},
		{"permanent", "permanent", "identity", 0.9, nil, nil, ptr(confirmed.Add(hl(3650*day, 0.9)))},
		{"short_term", "short_term", "state", 0.5, nil, nil, ptr(confirmed.Add(hl(10*day, 0.5)))},
		{"ephemeral mood", "ephemeral", "mood", 0.8, nil, nil, ptr(confirmed.Add(hl(36*time.Hour, 0.8)))},
		{"decision never", "permanent", "decision", 1, nil, nil, nil},
		{"routine never", "long_term", "routine", 0.9, nil, nil, nil},
		{"obligation from deadline", "short_term", "obligation", 0.8, &deadline, nil, ptr(deadline.Add(hl(36*time.Hour, 0.8)))},
		{"obligation without deadline", "short_term", "obligation", 0.8, nil, nil, ptr(confirmed.Add(hl(10*day, 0.8)))},
		{"expires sooner", "long_term", "observation", 0.8, nil, ptr(confirmed.Add(day)), ptr(confirmed.Add(day))},
		{"decision expires", "permanent", "decision", 1, nil, ptr(confirmed.Add(day)), ptr(confirmed.Add(day))},
		{"below floor", "long_term", "observation", 0.05, nil, nil, ptr(confirmed)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *time.Time
			err := pool.QueryRow(ctx, `INSERT INTO entity_facts
				(scope, entity_id, content, durability, category, confidence, confirmed_at, deadline, expires_at)
				VALUES ('test', $1, 'x', $2, $3, $4, $5, $6, $7) RETURNING forget_at`,
				entity, tt.durability, tt.category, tt.confidence, confirmed, tt.deadline, tt.expires).Scan(&got)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("forget_at = %v, want NULL (never decays)", got)
			case tt.want != nil && got == nil:
				t.Errorf("forget_at = NULL, want %v", tt.want)
			case tt.want != nil && got.Sub(*tt.want).Abs() > time.Millisecond:
				t.Errorf("forget_at = %v, want %v", got.UTC(), tt.want.UTC())
			}
		})
	}

	t.Run("update recomputes", func(t *testing.T) {
		var id int64
		var before, after time.Time
		err := pool.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, content, confidence, confirmed_at)
			VALUES ('test', $1, 'x', 0.8, $2) RETURNING id, forget_at`, entity, confirmed).Scan(&id, &before)
		if err != nil {
			t.Fatal(err)
		}
		err = pool.QueryRow(ctx, `UPDATE entity_facts SET durability = 'ephemeral' WHERE id = $1 RETURNING forget_at`, id).Scan(&after)
		if err != nil {
			t.Fatal(err)
		}
		if want := confirmed.Add(hl(36*time.Hour, 0.8)); after.Sub(want).Abs() > time.Millisecond {
			t.Errorf("after reclassifying to ephemeral, forget_at = %v, want %v (was %v)", after, want, before)
		}
	})

	t.Run("no policy: never decays, still expires", func(t *testing.T) {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `DELETE FROM decay_policies WHERE durability = 'short_term'`); err != nil {
			t.Fatal(err)
		}
		expires := confirmed.Add(72 * time.Hour)
		var halfLife *float64
		var from, forget *time.Time
		err = tx.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, confidence, confirmed_at, expires_at)
			VALUES ('test', $1, 'x', 'short_term', 0.8, $2, $3) RETURNING decay_half_life, decay_from, forget_at`,
			entity, confirmed, expires).Scan(&halfLife, &from, &forget)
		if err != nil {
			t.Fatal(err)
		}
		if halfLife != nil || from == nil || !from.Equal(confirmed) || forget == nil || !forget.Equal(expires) {
			t.Errorf("without a policy: half-life %v, decay_from %v, forget_at %v; want none, %v, %v", halfLife, from, forget, confirmed, expires)
		}
	})
}

func TestEffectiveConfidence(t *testing.T) {
	pool := pgtest.NewPool(t)
	confirmed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		durability, category string
		deadline             *time.Time
		at                   time.Time
		want                 float64
	}{
		{"long_term", "observation", nil, confirmed.Add(180 * 24 * time.Hour), 0.4},
		{"ephemeral", "mood", nil, confirmed.Add(36 * time.Hour), 0.4},
		{"ephemeral", "mood", nil, confirmed.Add(18 * time.Hour), 0.8 / math.Sqrt2},
		{"permanent", "decision", nil, confirmed.Add(9999 * 24 * time.Hour), 0.8},
		{"short_term", "obligation", ptr(confirmed.Add(48 * time.Hour)), confirmed.Add(47 * time.Hour), 0.8},
		{"short_term", "obligation", ptr(confirmed.Add(48 * time.Hour)), confirmed.Add(84 * time.Hour), 0.4},
		{"long_term", "observation", nil, confirmed.Add(-time.Hour), 0.8},
	}
	for _, tt := range tests {
		var got float64
		err := pool.QueryRow(context.Background(),
			`SELECT tenure_effective_confidence($1, $2, 0.8, $3, $4, $5)`,
			tt.durability, tt.category, confirmed, tt.deadline, tt.at).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("tenure_effective_confidence(%s, %s, at %v) = %v, want %v",
				tt.durability, tt.category, tt.at.Sub(confirmed), got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
