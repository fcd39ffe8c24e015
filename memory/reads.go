package memory

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/replica"
)

// Reads on hot standbys. With Options.Reads set, the reads the agents and
// the console make most (Recall, ContextBrief, ListFacts, GetFact,
// ListDecisions, GetDecision, ListEntities, ListNodes, GetNodes,
// ListObligations) run through the Router: on a standby in rotation that
// has replayed the position the context asks for (replica.WithMinLSN), or
// on the primary. A read that fails because of its standby runs again
// elsewhere, so the caller never sees a standby's failure. Only reads under
// a context made by replica.WithMinLSN are routed; once a write was made
// under it (Store.tx notes each: replica.NoteWrite), the reads that follow
// go to the primary. Every other read, and every read inside a write, uses
// the pool.
//
// The other reads stay on the primary: the overview, the review queue, the
// audit log, the changes, the consolidation runs and the jobs are read by a
// few people and often right after a job or a reviewer wrote them; the
// idempotency keys and the counts behind writes decide what a write does.

// read runs fn, a read, with queries on the server to read from: a standby
// the Router picks for ctx, or the primary. fn may run more than once and
// must not write.
func (s *Store) read(ctx context.Context, fn func(ctx context.Context, q *queries.Queries) error) error {
	return s.readPool(ctx, func(ctx context.Context, db *pgxpool.Pool) error { return fn(ctx, queries.New(db)) })
}

// readSnapshot is read with every query of fn in one read-only
// transaction at REPEATABLE READ, which a standby serves too: all of fn
// sees one snapshot.
func (s *Store) readSnapshot(ctx context.Context, fn func(ctx context.Context, q *queries.Queries) error) error {
	return s.readPool(ctx, func(ctx context.Context, db *pgxpool.Pool) error {
		return pgx.BeginTxFunc(ctx, db, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			return fn(ctx, s.q.WithTx(tx))
		})
	})
}

// readPool runs fn on the pool to read from (see read). fn's queries use
// the context it is given, which ends early when its standby stops
// answering (replica.Router.Read).
func (s *Store) readPool(ctx context.Context, fn func(ctx context.Context, db *pgxpool.Pool) error) error {
	minLSN, routed := replica.MinLSN(ctx)
	if s.reads == nil || !routed {
		return fn(ctx, s.pool)
	}
	return s.reads.Read(ctx, minLSN, fn)
}
