package memory

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tenurehq/tenure/queries"
)

// Failure isolation. Nothing one client writes may stop consolidation for
// every scope: a batch that fails is retried in parts inside savepoints (per
// scope, then in halves, down to single rows), every part that succeeds
// commits with the batch, and each row that fails on its own is set aside in
// consolidation_faults with the error. The run goes on and ends "partial".
// A set-aside row is retried by later runs after faultBackoff, then 4x, 16x
// that, and after faultAttempts failures it is held until a person retries or
// expires it in the console.
const (
	faultAttempts = 4
	faultBackoff  = 5 * time.Minute
	// faultErrorMax bounds the error text kept with a set-aside row.
	faultErrorMax = 2000
)

// panicError is a panic of the engine's own code on one row, turned into an
// error so the row can be set aside.
type panicError struct {
	value any
	stack string
}

func (e *panicError) Error() string { return fmt.Sprintf("internal error: %v", e.value) }

// isolatable says whether err may come from the rows a part worked on (a
// statement PostgreSQL refused for the data it was given, or a panic of the
// classifier), rather than from the database or the run as a whole: a lost
// connection, an administrator's shutdown, a cancelled context or a deadlock
// fail the batch, and the next run does it again.
func isolatable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if _, ok := errors.AsType[*panicError](err); ok {
		return true
	}
	pe, ok := errors.AsType[*pgconn.PgError](err)
	if !ok || len(pe.Code) < 2 {
		return false
	}
	switch pe.Code[:2] {
	case "08", // connection exception
		"40", // transaction rollback: serialization failure, deadlock
		"53", // insufficient resources
		"57", // operator intervention: shutdown, query cancelled
		"58": // system error
		return false
	}
	return true
}

// attempt runs work inside a savepoint of tx, rolled back when work fails
// (or panics), so that the rest of the transaction stays usable.
func (r *runner) attempt(ctx context.Context, tx pgx.Tx, work func(q *queries.Queries) (batchResult, error)) (res batchResult, err error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return res, err
	}
	func() {
		defer func() {
			if v := recover(); v != nil {
				err = &panicError{value: v, stack: string(debug.Stack())}
			}
		}()
		res, err = work(r.s.q.WithTx(sp))
	}()
	if err != nil {
		if rerr := sp.Rollback(ctx); rerr != nil {
			return batchResult{}, errors.Join(err, rerr)
		}
		return batchResult{}, err
	}
	return res, sp.Commit(ctx)
}

// isolate runs work over rows; when it fails for a reason the rows may
// cause, it runs each scope's rows apart, then halves, and sets aside each
// row that fails alone. Rows that go through have their earlier failures
// cleared.
func (r *runner) isolate(ctx context.Context, tx pgx.Tx, phase int, rows []queries.PeekPendingNodesRow,
	work func(context.Context, *queries.Queries, []queries.PeekPendingNodesRow) (batchResult, error)) (batchResult, error) {
	res, err := r.attempt(ctx, tx, func(q *queries.Queries) (batchResult, error) {
		res, err := work(ctx, q, rows)
		if err == nil && r.hasFaults() {
			err = q.ClearFaults(ctx, nodeIDs(rows))
		}
		return res, err
	})
	if err == nil || !isolatable(err) {
		return res, err
	}
	if len(rows) == 1 {
		var out batchResult
		return out, r.setAsideRows(ctx, r.s.q.WithTx(tx), phase, []int64{rows[0].ID}, err, &out)
	}
	var out batchResult
	for _, part := range splitRows(rows) {
		res, err := r.isolate(ctx, tx, phase, part, work)
		if err != nil {
			return out, err
		}
		out.merge(res)
	}
	return out, nil
}

// splitRows splits a batch by scope when it holds several, else in halves.
func splitRows(rows []queries.PeekPendingNodesRow) [][]queries.PeekPendingNodesRow {
	var parts [][]queries.PeekPendingNodesRow
	at := map[string]int{}
	for _, row := range rows {
		i, ok := at[row.Scope]
		if !ok {
			i = len(parts)
			at[row.Scope] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], row)
	}
	if len(parts) > 1 {
		return parts
	}
	half := len(rows) / 2
	return [][]queries.PeekPendingNodesRow{rows[:half], rows[half:]}
}

// setAsideRows records cause against each row and counts them in res.
func (r *runner) setAsideRows(ctx context.Context, q *queries.Queries, phase int, ids []int64, cause error, res *batchResult) error {
	if len(ids) == 0 {
		return nil
	}
	msg := cause.Error()
	if len(msg) > faultErrorMax {
		msg = msg[:faultErrorMax] + "…"
	}
	if pe, ok := errors.AsType[*panicError](cause); ok {
		r.log.Error("consolidation.panic", "phase", phase, "node_ids", ids, "panic", pe.value, "stack", pe.stack)
	}
	if _, err := q.SetAsideNodes(ctx, queries.SetAsideNodesParams{
		Phase: int16(phase), Error: msg, Now: r.now, RunID: r.id, NodeIds: ids,
	}); err != nil {
		return fmt.Errorf("set aside: %w", err)
	}
	rows, err := q.ScheduleRetries(ctx, queries.ScheduleRetriesParams{
		MaxAttempts: faultAttempts, Backoff: pgtype.Interval{Microseconds: faultBackoff.Microseconds(), Valid: true}, NodeIds: ids,
	})
	if err != nil {
		return fmt.Errorf("schedule retries: %w", err)
	}
	for _, row := range rows {
		f := fault{nodeID: row.NodeID, scope: row.Scope, attempts: int(row.Attempts), held: row.RetryAt == nil, err: msg}
		res.faults = append(res.faults, f)
		res.add("set_aside", 1)
		if f.held {
			res.add("held", 1)
		}
	}
	return nil
}
