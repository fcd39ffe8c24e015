package main

import (
	"context"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

// TestIdempotencyPurgeJob: serve schedules the purge of idempotency keys on
// --purge-every; a tick of it deletes the keys past 24 hours only, and such
// a key then makes a new request.
func TestIdempotencyPurgeJob(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	store := memory.NewStore(pool, memory.Options{Now: func() time.Time { return now }})
	sessions, err := auth.NewSessions(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := auth.SeedToken(ctx, pool, auth.NewToken{Name: "agent", Scope: "acme", Role: auth.TokenWriter}, now)
	if err != nil {
		t.Fatal(err)
	}
	answered := func(key string) memory.IdempotentRequest {
		t.Helper()
		r := memory.IdempotentRequest{TokenID: tok.ID, Key: key, Method: "POST", Target: "/api/v1/scopes/acme/nodes", Body: []byte(`{"content":"x"}`)}
		c, err := store.ClaimIdempotencyKey(ctx, r)
		if err != nil || c.Outcome != memory.ClaimRun {
			t.Fatalf("claim %s = %+v, %v; want ClaimRun", key, c, err)
		}
		if _, err := store.CompleteIdempotencyKey(ctx, c, memory.IdempotentAnswer{Status: 201, Body: []byte(`{"ids":[1]}`)}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	old := answered("old")
	now = now.Add(20 * time.Hour)
	answered("recent")
	now = now.Add(5 * time.Hour) // old is 25 hours old, recent 5

	cfg := jobConfig{consolidateEvery: time.Minute, decayEvery: time.Minute, purgeEvery: 3 * time.Hour}
	for _, j := range engineJobs(store, sessions, cfg, "", nil) {
		if j.Name != "idempotency_purge" {
			continue
		}
		if j.Interval != cfg.purgeEvery {
			t.Errorf("idempotency_purge every %s, want --purge-every (%s)", j.Interval, cfg.purgeEvery)
		}
		if err := j.Run(ctx); err != nil {
			t.Fatal(err)
		}
		var keys []string
		rows, err := pool.Query(ctx, `SELECT key FROM idempotency_keys ORDER BY key`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		if len(keys) != 1 || keys[0] != "recent" {
			t.Errorf("after the purge the keys are %v, want [recent]", keys)
		}
		if c, err := store.ClaimIdempotencyKey(ctx, old); err != nil || c.Outcome != memory.ClaimRun {
			t.Errorf("the purged key = %+v, %v; want a new request (ClaimRun)", c, err)
		}
		return
	}
	t.Fatal("serve's jobs have no idempotency_purge")
}
