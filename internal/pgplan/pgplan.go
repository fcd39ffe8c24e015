// Package pgplan runs statements on one connection as prepared statements
// with a generic plan: each is planned once per connection, for any
// parameters, instead of at every execution.
//
// Tenure's pool plans every statement for its parameters (see
// cmd/tenure/database.go): most statements take optional filters, for which
// a generic plan can be disastrous. A statement whose plan does not depend
// on its parameters, and whose planning costs a good share of its run
// (recall's walk plans in about 1.5 ms and often runs in 5), gains by
// planning once. Generic holds the setting that forces the generic plan to
// the one statement: each execution is a pipeline of
// `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)` and the
// statement, one implicit transaction that ends at its Sync, so the
// connection goes back to the pool as it came, whether the statement
// succeeded or not.
//
// Snapshot runs several such statements in one read-only REPEATABLE READ
// transaction whose BEGIN and COMMIT travel in the pipelines of its first
// and last statements, so that reading one snapshot costs no round trip of
// its own.
package pgplan

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Generic runs statements on Conn with generic plans. It has the methods of
// sqlc's DBTX, so generated queries can run through it; it is used by one
// goroutine at a time, like the connection.
type Generic struct {
	Conn *pgx.Conn
}

// setGeneric forces the generic plan until the end of the statement's
// implicit transaction. Not SET LOCAL, which does the same but also logs a
// warning for every statement it precedes: a pipeline's implicit
// transaction is not a transaction block.
const setGeneric = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)"

// send prepares sql on the connection (once: pgx keeps the statements it
// prepared) and sends it after setGeneric, in one round trip, with the
// statements of before ahead of both and those of after behind it; it
// returns the results from sql's on.
func send(ctx context.Context, conn *pgx.Conn, before []string, sql string, args []any, after []string) (pgx.BatchResults, error) {
	// Named by a digest of the text: the same statement is prepared once.
	if _, err := conn.Prepare(ctx, sql, sql); err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	for _, s := range before {
		b.Queue(s)
	}
	b.Queue(setGeneric)
	b.Queue(sql, args...)
	for _, s := range after {
		b.Queue(s)
	}
	br := conn.SendBatch(ctx, b)
	for range len(before) + 1 {
		if _, err := br.Exec(); err != nil {
			return nil, errors.Join(err, br.Close())
		}
	}
	return br, nil
}

// query is Query of a pipeline that send sends.
func query(ctx context.Context, conn *pgx.Conn, before []string, sql string, args []any, after []string) (pgx.Rows, error) {
	br, err := send(ctx, conn, before, sql, args, after)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		if rows != nil {
			rows.Close()
		}
		return nil, errors.Join(err, br.Close())
	}
	return &batchRows{Rows: rows, batch: br}, nil
}

// exec is Exec of a pipeline that send sends.
func exec(ctx context.Context, conn *pgx.Conn, before []string, sql string, args []any, after []string) (pgconn.CommandTag, error) {
	br, err := send(ctx, conn, before, sql, args, after)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	return tag, errors.Join(err, br.Close())
}

// Query runs sql with args and returns its rows; closing them (or reading
// past the last) ends the pipeline.
func (g Generic) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return query(ctx, g.Conn, nil, sql, args, nil)
}

// QueryRow runs sql with args and returns its first row, pgx.ErrNoRows when
// it has none.
func (g Generic) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := g.Query(ctx, sql, args...)
	return firstRow{rows: rows, err: err}
}

// Exec runs sql with args and returns its command tag.
func (g Generic) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return exec(ctx, g.Conn, nil, sql, args, nil)
}

// Snapshot runs statements on one connection as Generic does, in one
// read-only REPEATABLE READ transaction, so that they all read one
// snapshot. The transaction costs no round trip of its own: its BEGIN
// travels in the first statement's pipeline and, once Last was called, its
// COMMIT in the next statement's. End ends it whichever way it went. Like
// Generic, it is used by one goroutine at a time.
type Snapshot struct {
	conn  *pgx.Conn
	last  bool // the next statement ends the transaction
	ended bool // a statement carried the COMMIT, or End was called
}

// NewSnapshot returns a Snapshot on conn, which must not be in a
// transaction; nothing is sent until its first statement.
func NewSnapshot(conn *pgx.Conn) *Snapshot { return &Snapshot{conn: conn} }

const (
	beginSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	commit        = "COMMIT"
)

// Last says that the next statement is the transaction's last: its
// pipeline ends the transaction.
func (s *Snapshot) Last() { s.last = true }

// errEnded is the error of a statement sent after the transaction's last.
var errEnded = errors.New("pgplan: a statement after the snapshot's last")

// frame returns what the next statement's pipeline sends before and after
// it: BEGIN while the connection is not in the transaction yet (a first
// statement that could not be prepared sent nothing), COMMIT after Last.
func (s *Snapshot) frame() (before, after []string, err error) {
	if s.ended {
		return nil, nil, errEnded
	}
	if s.conn.PgConn().TxStatus() == 'I' {
		before = []string{beginSnapshot}
	}
	if s.last {
		after = []string{commit}
		s.ended = true
	}
	return before, after, nil
}

// Query runs sql with args in the snapshot and returns its rows.
func (s *Snapshot) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	before, after, err := s.frame()
	if err != nil {
		return nil, err
	}
	return query(ctx, s.conn, before, sql, args, after)
}

// QueryRow runs sql with args in the snapshot and returns its first row,
// pgx.ErrNoRows when it has none.
func (s *Snapshot) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := s.Query(ctx, sql, args...)
	return firstRow{rows: rows, err: err}
}

// Exec runs sql with args in the snapshot and returns its command tag.
func (s *Snapshot) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	before, after, err := s.frame()
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return exec(ctx, s.conn, before, sql, args, after)
}

// End leaves the connection out of the transaction: it commits one that is
// still open (one round trip, when no statement carried the COMMIT) and
// rolls back one that a failed statement left aborted. Call it once the
// rows of the last statement are closed.
func (s *Snapshot) End(ctx context.Context) error {
	s.ended = true
	var end string
	switch s.conn.PgConn().TxStatus() {
	case 'I':
		return nil
	case 'T':
		end = commit
	default:
		end = "ROLLBACK"
	}
	_, err := s.conn.Exec(ctx, end)
	return err
}

// batchRows are a statement's rows, which close the pipeline with them.
type batchRows struct {
	pgx.Rows
	batch  pgx.BatchResults
	closed bool
	err    error
}

func (r *batchRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *batchRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Rows.Close()
	r.err = errors.Join(r.Rows.Err(), r.batch.Close())
}

func (r *batchRows) Err() error {
	if r.closed {
		return r.err
	}
	return r.Rows.Err()
}

// firstRow is QueryRow's row.
type firstRow struct {
	rows pgx.Rows
	err  error
}

func (r firstRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
