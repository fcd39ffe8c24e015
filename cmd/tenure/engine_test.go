package main

import (
	"context"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

// TestSessionPurgeJob: serve schedules the purge of expired sessions on
// --purge-every, and a tick of it deletes the expired ones only.
func TestSessionPurgeJob(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	sessions, err := auth.NewSessions(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auth.SeedUser(ctx, pool, auth.NewUser{Email: "rev@example.com", Role: "reviewer", Password: "a long enough secret"}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := sessions.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `UPDATE sessions SET expires_at = now() - interval '1 minute'
		WHERE token_hash = (SELECT token_hash FROM sessions ORDER BY created_at LIMIT 1)`); err != nil {
		t.Fatal(err)
	}
	cfg := jobConfig{consolidateEvery: time.Minute, decayEvery: time.Minute, purgeEvery: 3 * time.Hour}
	for _, j := range engineJobs(memory.NewStore(pool, memory.Options{}), sessions, cfg, "", nil) {
		if j.Name != "session_purge" {
			continue
		}
		if j.Interval != cfg.purgeEvery {
			t.Errorf("session_purge every %s, want --purge-every (%s)", j.Interval, cfg.purgeEvery)
		}
		if err := j.Run(ctx); err != nil {
			t.Fatal(err)
		}
		var left, expired int
		if err := pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE expires_at <= now()) FROM sessions`).Scan(&left, &expired); err != nil {
			t.Fatal(err)
		}
		if left != 1 || expired != 0 {
			t.Errorf("after the purge %d sessions, %d expired; want the live one alone", left, expired)
		}
		return
	}
	t.Fatal("serve's jobs have no session_purge")
}
