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
// `SET LOCAL plan_cache_mode = force_generic_plan` and the statement, one
// implicit transaction that ends at its Sync, so the connection goes back to
// the pool as it came, whether the statement succeeded or not.
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
// implicit transaction.
const setGeneric = "SET LOCAL plan_cache_mode = force_generic_plan"

// send prepares sql on the connection (once: pgx keeps the statements it
// prepared) and sends it after setGeneric, in one round trip.
func (g Generic) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	// Named by a digest of the text: the same statement is prepared once.
	if _, err := g.Conn.Prepare(ctx, sql, sql); err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	b.Queue(setGeneric)
	b.Queue(sql, args...)
	br := g.Conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		return nil, errors.Join(err, br.Close())
	}
	return br, nil
}

// Query runs sql with args and returns its rows; closing them (or reading
// past the last) ends the pipeline.
func (g Generic) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	br, err := g.send(ctx, sql, args)
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

// QueryRow runs sql with args and returns its first row, pgx.ErrNoRows when
// it has none.
func (g Generic) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := g.Query(ctx, sql, args...)
	return firstRow{rows: rows, err: err}
}

// Exec runs sql with args and returns its command tag.
func (g Generic) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	br, err := g.send(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	return tag, errors.Join(err, br.Close())
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
