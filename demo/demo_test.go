package demo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestLoadWritesARealisticMemory(t *testing.T) {
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	sum, err := demo.Load(ctx, pool, now)
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	if sum.Scopes < 3 || sum.Facts < 200 || sum.Decisions < 5 || sum.Obligations < 6 || sum.Nodes < 10 {
		t.Errorf("Load() = %+v, want several scopes, a few hundred facts, decisions, obligations and working rows", sum)
	}

	count := func(query string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, query, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	if got := count(`SELECT count(*) FROM entity_facts`); got != sum.Facts {
		t.Errorf("entity_facts holds %d rows, Load reported %d", got, sum.Facts)
	}
	for _, d := range []string{"permanent", "long_term", "short_term", "ephemeral"} {
		if count(`SELECT count(*) FROM entity_facts WHERE durability = $1 AND status = 'active'`, d) == 0 {
			t.Errorf("no active %s fact", d)
		}
	}
	for _, c := range []string{"observation", "preference", "identity", "mood", "decision", "routine", "state", "obligation"} {
		if count(`SELECT count(*) FROM entity_facts WHERE category = $1`, c) == 0 {
			t.Errorf("no %s fact", c)
		}
	}
	if n := count(`SELECT count(*) FROM entity_facts WHERE status = 'archived' AND archive_reason = 'decayed'`); n == 0 || n != sum.Archived {
		t.Errorf("%d archived decayed facts, Load reported %d; want some", n, sum.Archived)
	}
	if n := count(`SELECT count(*) FROM entity_facts WHERE status = 'archived' AND archive_reason LIKE 'superseded by fact %'`); n == 0 || n != sum.Superseded {
		t.Errorf("%d superseded facts, Load reported %d; want some", n, sum.Superseded)
	}
	// Current means current: no key holds two live states, moods or identities.
	if n := count(`SELECT count(*) FROM (SELECT entity_id, key FROM entity_facts
		WHERE status = 'active' AND key <> '' AND tenure_supersedes(category, durability)
		GROUP BY 1, 2 HAVING count(DISTINCT lower(content)) > 1) k`); n != 0 {
		t.Errorf("%d keys hold more than one current fact", n)
	}
	// An overdue obligation is held, past forget_at or not, until a person
	// settles it.
	if n := count(`SELECT count(*) FROM entity_facts WHERE status = 'active' AND forget_at <= $1
		AND NOT (category = 'obligation' AND deadline <= $1)`, now); n != 0 {
		t.Errorf("%d active facts are already past forget_at", n)
	}
	if n := count(`SELECT count(*) FROM decisions WHERE reasoning = '' OR cardinality(alternatives) = 0`); n != 0 {
		t.Errorf("%d decisions lack reasoning or alternatives", n)
	}
	if n := count(`SELECT count(*) FROM decisions d JOIN entity_facts f ON f.id = d.fact_id WHERE f.category <> 'decision'`); n != 0 {
		t.Errorf("%d decisions sit on a fact whose category is not decision", n)
	}
	if count(`SELECT count(*) FROM entity_facts WHERE category = 'obligation' AND deadline < $1`, now) == 0 ||
		count(`SELECT count(*) FROM entity_facts WHERE category = 'obligation' AND deadline > $1`, now) == 0 {
		t.Error("want obligations with both past and future deadlines")
	}
	for _, marker := range []string{"durable", "transient", "expired"} {
		if count(`SELECT count(*) FROM memory_nodes WHERE properties->>'durability' = $1`, marker) == 0 {
			t.Errorf("no working row marked %s", marker)
		}
	}
	if count(`SELECT count(*) FROM memory_nodes WHERE NOT properties ? 'durability'`) == 0 {
		t.Error("no working row without a marker (which reads as durable)")
	}
	if count(`SELECT count(*) FROM audit_log WHERE action = 'demo.load'`) != 1 {
		t.Error("the demo load is not audited")
	}

	var hash, role string
	if err := pool.QueryRow(ctx, `SELECT password_hash, role FROM users WHERE email = $1`, sum.AdminEmail).Scan(&hash, &role); err != nil {
		t.Fatalf("demo admin: %v", err)
	}
	if role != "admin" {
		t.Errorf("demo user role = %s, want admin", role)
	}
	if err := auth.VerifyPassword(hash, sum.AdminPassword); err != nil {
		t.Errorf("the printed password does not match the stored hash: %v", err)
	}
}

func TestLoadNeverTouchesADatabaseWithData(t *testing.T) {
	ctx := context.Background()
	t.Run("second load", func(t *testing.T) {
		pool := pgtest.NewPool(t)
		if _, err := demo.Load(ctx, pool, now); err != nil {
			t.Fatal(err)
		}
		var before int
		pool.QueryRow(ctx, `SELECT count(*) FROM entity_facts`).Scan(&before)
		if _, err := demo.Load(ctx, pool, now); !errors.Is(err, demo.ErrNotEmpty) {
			t.Errorf("second Load() error = %v, want ErrNotEmpty", err)
		}
		var after int
		pool.QueryRow(ctx, `SELECT count(*) FROM entity_facts`).Scan(&after)
		if after != before {
			t.Errorf("second Load() changed the fact count from %d to %d", before, after)
		}
	})
	for name, stmt := range map[string]string{
		"a working row": `INSERT INTO memory_nodes (scope, content) VALUES ('mine', 'hello')`,
		"a user":        `INSERT INTO users (email, role, password_hash) VALUES ('a@b.c', 'admin', 'x')`,
		"an entity":     `INSERT INTO entities (scope, name) VALUES ('mine', 'Me')`,
	} {
		t.Run(name, func(t *testing.T) {
			pool := pgtest.NewPool(t)
			if _, err := pool.Exec(ctx, stmt); err != nil {
				t.Fatal(err)
			}
			if _, err := demo.Load(ctx, pool, now); !errors.Is(err, demo.ErrNotEmpty) {
				t.Errorf("Load() error = %v, want ErrNotEmpty", err)
			}
			var facts int
			pool.QueryRow(ctx, `SELECT count(*) FROM entity_facts`).Scan(&facts)
			if facts != 0 {
				t.Errorf("Load() wrote %d facts into a database that held %s", facts, name)
			}
		})
	}
}
