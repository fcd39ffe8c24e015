package memory

import (
	"context"
	"testing"
)

// TestVacuumGivesWayQuietly: the vacuum after a consolidation run gives way
// to one already running (here a lock of the same strength held by another
// transaction) without a warning on its connection, which pgtest would
// report as a fault of the test; and it runs when nothing holds the table.
func TestVacuumGivesWayQuietly(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	tx, err := fx.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE entity_facts IN SHARE UPDATE EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	if err := fx.s.vacuumFacts(ctx); err != nil {
		t.Errorf("vacuum beside a lock holder: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fx.s.vacuumFacts(ctx); err != nil {
		t.Errorf("vacuum: %v", err)
	}
	// The connection went back to the pool with its messages as before.
	var level string
	if err := fx.pool.QueryRow(ctx, `SHOW client_min_messages`).Scan(&level); err != nil || level != "notice" {
		t.Errorf("client_min_messages = %q (%v), want notice", level, err)
	}
}
