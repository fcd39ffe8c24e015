package jobs

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// newLeader returns a Leader for key, closed when the test ends.
func newLeader(t *testing.T, pool *pgxpool.Pool, key int64, logger *slog.Logger) *Leader {
	t.Helper()
	l, err := NewLeader(context.Background(), pool, key, logger)
	if err != nil {
		t.Fatalf("NewLeader() = %v", err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// lockHolders returns the backend pids holding the advisory lock key in the
// pool's database, as PostgreSQL sees it.
func lockHolders(t *testing.T, pool *pgxpool.Pool, key int64) []int32 {
	t.Helper()
	// A bigint key is stored as classid (high 32 bits) and objid (low 32 bits).
	rows, err := pool.Query(context.Background(), `
		SELECT pid FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 1
		  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND classid::bigint = $1 AND objid::bigint = $2`,
		int64(uint64(key)>>32), int64(uint32(key)))
	if err != nil {
		t.Fatalf("query pg_locks: %v", err)
	}
	var pids []int32
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			t.Fatalf("scan pg_locks: %v", err)
		}
		pids = append(pids, pid)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("query pg_locks: %v", err)
	}
	return pids
}

// waitUntilFree waits until no session holds the advisory lock key. The
// server does the waiting: a pool connection takes the lock, blocking until
// it is free, and releases it at once.
func waitUntilFree(t *testing.T, pool *pgxpool.Pool, key int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatalf("acquire a connection: %v", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		t.Fatalf("waiting for the lock %d to be free: %v", key, err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key); err != nil {
		t.Fatalf("release the lock %d: %v", key, err)
	}
}

func TestLeaderOneOfTwo(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	logA, recA := newLogger()
	a := newLeader(t, pool, DefaultLockKey, logA)
	b := newLeader(t, pool, DefaultLockKey, nil)

	if err := a.IsLeader(ctx); err != nil {
		t.Fatalf("a.IsLeader() = %v, want nil", err)
	}
	// Asking again, from either side, changes nothing.
	for range 3 {
		if err := b.IsLeader(ctx); !errors.Is(err, ErrNotLeader) {
			t.Fatalf("b.IsLeader() = %v, want ErrNotLeader", err)
		}
		if err := a.IsLeader(ctx); err != nil {
			t.Fatalf("a.IsLeader() = %v, want nil", err)
		}
	}
	if !a.Leading() || b.Leading() {
		t.Errorf("Leading() = a %v, b %v; want a true, b false", a.Leading(), b.Leading())
	}
	if got := lockHolders(t, pool, DefaultLockKey); len(got) != 1 {
		t.Errorf("lock holders = %v, want exactly one", got)
	}
	if got := recA.records(t, "leader.gained", map[string]any{"level": "INFO"}); len(got) != 1 {
		t.Errorf("a logged leader.gained %d times, want 1; log:\n%s", len(got), recA)
	}

	if err := a.Close(ctx); err != nil {
		t.Fatalf("a.Close() = %v", err)
	}
	if got := recA.records(t, "leader.lost", map[string]any{"level": "INFO"}); len(got) != 1 {
		t.Errorf("a logged leader.lost %d times after Close, want 1; log:\n%s", len(got), recA)
	}
	if err := a.IsLeader(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("a.IsLeader() after Close = %v, want ErrClosed", err)
	}
	if err := a.Close(ctx); err != nil {
		t.Errorf("second a.Close() = %v, want nil", err)
	}
	if err := b.IsLeader(ctx); err != nil {
		t.Fatalf("b.IsLeader() after a closed = %v, want nil", err)
	}
}

func TestLeaderKeysAreIndependent(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	a := newLeader(t, pool, 1, nil)
	b := newLeader(t, pool, 2, nil)
	if err := a.IsLeader(ctx); err != nil {
		t.Errorf("a.IsLeader() = %v, want nil", err)
	}
	if err := b.IsLeader(ctx); err != nil {
		t.Errorf("b.IsLeader() with another key = %v, want nil", err)
	}
}

func TestLeaderBackendTerminated(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	const key = -42 // negative keys use the high bits too
	logA, recA := newLogger()
	a := newLeader(t, pool, key, logA)
	b := newLeader(t, pool, key, nil)

	if err := a.IsLeader(ctx); err != nil {
		t.Fatalf("a.IsLeader() = %v, want nil", err)
	}
	if err := b.IsLeader(ctx); !errors.Is(err, ErrNotLeader) {
		t.Fatalf("b.IsLeader() = %v, want ErrNotLeader", err)
	}
	holders := lockHolders(t, pool, key)
	if len(holders) != 1 {
		t.Fatalf("lock holders = %v, want exactly one", holders)
	}
	var terminated bool
	if err := pool.QueryRow(ctx, "SELECT pg_terminate_backend($1)", holders[0]).Scan(&terminated); err != nil || !terminated {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v; want true, nil", holders[0], terminated, err)
	}

	// The server releases the lock when the terminated backend has exited;
	// then b takes over on its next call.
	waitUntilFree(t, pool, key)
	if err := b.IsLeader(ctx); err != nil {
		t.Fatalf("b.IsLeader() once the lock is free = %v, want nil", err)
	}
	// a notices on its next call that the connection is gone.
	if err := a.IsLeader(ctx); !errors.Is(err, ErrNotLeader) {
		t.Errorf("a.IsLeader() after its backend was terminated = %v, want ErrNotLeader", err)
	}
	if a.Leading() {
		t.Error("a.Leading() = true after losing its connection")
	}
	if got := recA.records(t, "leader.lost", map[string]any{"level": "INFO"}); len(got) != 1 {
		t.Errorf("a logged leader.lost %d times, want 1; log:\n%s", len(got), recA)
	}
	// a reconnects and finds the lock taken.
	if err := a.IsLeader(ctx); !errors.Is(err, ErrNotLeader) {
		t.Errorf("a.IsLeader() after reconnecting = %v, want ErrNotLeader", err)
	}
	if err := b.IsLeader(ctx); err != nil {
		t.Errorf("b.IsLeader() = %v, want nil", err)
	}
	if got := lockHolders(t, pool, key); len(got) != 1 {
		t.Errorf("lock holders = %v, want exactly one", got)
	}

	// And a, on its new connection, can lead again: Close unlocks before it
	// returns.
	if err := b.Close(ctx); err != nil {
		t.Fatalf("b.Close() = %v", err)
	}
	if err := a.IsLeader(ctx); err != nil {
		t.Errorf("a.IsLeader() after b closed = %v, want nil", err)
	}
}

func TestLeaderCancelledCallKeepsLeadership(t *testing.T) {
	pool := pgtest.NewPool(t)
	a := newLeader(t, pool, 7, nil)
	if err := a.IsLeader(context.Background()); err != nil {
		t.Fatalf("a.IsLeader() = %v, want nil", err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.IsLeader(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("a.IsLeader(cancelled) = %v, want context.Canceled", err)
	}
	if err := a.IsLeader(context.Background()); err != nil {
		t.Errorf("a.IsLeader() after a cancelled call = %v, want nil", err)
	}
}

func TestNewLeaderNilPool(t *testing.T) {
	if _, err := NewLeader(context.Background(), nil, 1, nil); err == nil {
		t.Error("NewLeader(nil pool) = nil error, want an error")
	}
}
