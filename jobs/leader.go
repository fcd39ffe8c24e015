package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultLockKey is the advisory lock key Tenure's replicas elect their leader
// with ("tenure" in ASCII). Advisory locks are per database, so replicas only
// compete with replicas using the same database.
const DefaultLockKey int64 = 0x74656e757265

// ErrNotLeader is returned when another replica holds the leader lock.
var ErrNotLeader = errors.New("jobs: not the leader")

// ErrClosed is returned by a Leader or Scheduler that has been closed or shut down.
var ErrClosed = errors.New("jobs: closed")

const (
	// checkTimeout bounds the query that checks or takes the lock. It is
	// short: a leader that cannot answer a trivial query within it should not
	// start a run.
	checkTimeout = 2 * time.Second
	// connectTimeout bounds one attempt to open the dedicated connection.
	connectTimeout = 5 * time.Second
)

var _ gocron.Elector = (*Leader)(nil)

// Leader elects one leader among replicas sharing a database. It holds a
// session-level advisory lock (pg_try_advisory_lock) on one dedicated
// connection, opened with the pool's configuration but not taken from the
// pool: leadership checks never wait behind a busy pool, and a pool that
// recycles its connections never releases the lock by accident.
//
// Leader implements gocron.Elector. It is safe for concurrent use.
type Leader struct {
	cfg    *pgx.ConnConfig
	key    int64
	logger *slog.Logger

	// mu serialises use of conn: a pgx.Conn is not safe for concurrent use,
	// and gocron asks once per due job, possibly from several goroutines.
	mu      sync.Mutex
	conn    *pgx.Conn // nil while disconnected
	closed  bool
	failing bool // the last connection attempt failed; repeat failures log at Debug

	leading atomic.Bool // read without mu by Leading
}

// NewLeader opens the dedicated connection, using pool's connection settings,
// and returns a Leader for key. It does not take the lock; the first call to
// IsLeader tries. The caller closes the Leader, after shutting down the
// Scheduler that uses it.
func NewLeader(ctx context.Context, pool *pgxpool.Pool, key int64, logger *slog.Logger) (*Leader, error) {
	if pool == nil {
		return nil, errors.New("jobs: new leader: nil pool")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg := pool.Config().ConnConfig.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if cfg.RuntimeParams["application_name"] == "" {
		// Lets an operator find the lock holder in pg_stat_activity.
		cfg.RuntimeParams["application_name"] = "tenure leader"
	}
	l := &Leader{cfg: cfg, key: key, logger: logger.With("lock_key", key)}
	if err := l.connect(ctx); err != nil {
		return nil, fmt.Errorf("jobs: new leader: %w", err)
	}
	return l, nil
}

// IsLeader returns nil if this process holds the lock, taking it if it is
// free. Otherwise it returns an error: ErrNotLeader (wrapped or not) when
// another replica holds it or leadership was just lost, ErrClosed after
// Close, or a connection error.
//
// Not leading, it tries to take the lock on every call, reconnecting first if
// the connection was lost. Leading, it checks with a cheap query that the
// connection holding the lock is still alive; if it is not, it gives up
// leadership and closes the connection (the server has released or will
// release the lock), and reconnects on the next call.
func (l *Leader) IsLeader(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if l.conn == nil {
		if err := l.connect(ctx); err != nil {
			if !l.failing {
				l.logger.Warn("leader.connect_failed", "err", err)
			} else {
				l.logger.Debug("leader.connect_failed", "err", err)
			}
			l.failing = true
			return fmt.Errorf("jobs: leader: %w", err)
		}
		l.failing = false
	}
	// pgx closes a connection whose query is cancelled. The caller's
	// cancellation (a job's context at shutdown) must not end the session
	// and with it the lock, so queries get their own short deadline instead.
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()

	if l.leading.Load() {
		err := l.conn.Ping(qctx)
		if err == nil {
			return nil
		}
		l.leading.Store(false)
		l.logger.Info("leader.lost", "err", err)
		l.closeConn()
		return fmt.Errorf("%w: lost the connection holding the lock: %v", ErrNotLeader, err)
	}

	var got bool
	if err := l.conn.QueryRow(qctx, "SELECT pg_try_advisory_lock($1)", l.key).Scan(&got); err != nil {
		// Whatever went wrong, a new connection is the way out, and this
		// one holds nothing worth keeping.
		l.closeConn()
		return fmt.Errorf("jobs: leader: try lock: %w", err)
	}
	if !got {
		return ErrNotLeader
	}
	l.leading.Store(true)
	l.logger.Info("leader.gained")
	return nil
}

// Leading reports whether this process held the lock at the last check,
// without querying the database. It is meant for status pages and metrics;
// use IsLeader to decide whether to act.
func (l *Leader) Leading() bool {
	return l.leading.Load()
}

// Close releases the lock if held and closes the connection. Later calls to
// IsLeader return ErrClosed. Close is idempotent.
func (l *Leader) Close(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.conn == nil {
		return nil
	}
	if l.leading.Load() {
		// Closing the session releases the lock too; unlocking first just
		// hands over without waiting for the server to notice the close. Its
		// error is therefore not worth reporting.
		_, _ = l.conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", l.key)
		l.leading.Store(false)
		l.logger.Info("leader.lost", "reason", "closed")
	}
	err := l.conn.Close(ctx)
	l.conn = nil
	if err != nil {
		return fmt.Errorf("jobs: close leader: %w", err)
	}
	return nil
}

// connect opens the dedicated connection. Called with mu held (or before l
// is shared).
func (l *Leader) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	// The keepalives make the server notice within about half a minute that
	// a leader vanished without closing its socket (a dead host, a network
	// split), and so release the lock; with the kernel's defaults that takes
	// hours. An idle_session_timeout configured for the application must not
	// end the session between two ticks and hand leadership around.
	settings := [][2]string{
		{"tcp_keepalives_idle", "10"},
		{"tcp_keepalives_interval", "5"},
		{"tcp_keepalives_count", "3"},
		{"idle_session_timeout", "0"},
	}
	for _, s := range settings {
		// Best effort: an older server or a proxy may refuse a setting,
		// which costs failover speed, not correctness.
		if _, err := conn.Exec(ctx, "SELECT set_config($1, $2, false)", s[0], s[1]); err != nil {
			l.logger.Debug("leader.setting_refused", "setting", s[0], "err", err)
		}
	}
	l.conn = conn
	return nil
}

// closeConn drops the connection. Called with mu held.
func (l *Leader) closeConn() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = l.conn.Close(ctx)
	l.conn = nil
}
