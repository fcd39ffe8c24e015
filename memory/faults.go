package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// Fault is a working row set aside by consolidation after a failure of its
// own (see isolate.go): the run went on without it.
type Fault struct {
	NodeID        int64      `json:"node_id"`
	Scope         string     `json:"scope"`
	Phase         int        `json:"phase"`
	Error         string     `json:"error"`
	Attempts      int        `json:"attempts"`
	FirstFailedAt time.Time  `json:"first_failed_at"`
	LastFailedAt  time.Time  `json:"last_failed_at"`
	RetryAt       *time.Time `json:"retry_at,omitempty"` // nil: held for a person
	RunID         *int64     `json:"run_id,omitempty"`
	Content       string     `json:"content,omitempty"`
}

// Held says whether no run retries the row until a person does.
func (f Fault) Held() bool { return f.RetryAt == nil }

// FaultFilter selects set-aside rows; zero fields match everything.
type FaultFilter struct {
	Scope   string
	RunID   int64
	AfterID int64 // the node id to page after
	Limit   int32
}

// ListFaults returns set-aside rows by node id.
func (s *Store) ListFaults(ctx context.Context, f FaultFilter) ([]Fault, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	p := queries.ListFaultsParams{AfterID: f.AfterID, PageSize: f.Limit}
	if f.Scope != "" {
		if _, err := ParseScope(f.Scope); err != nil {
			return nil, err
		}
		p.Scope = &f.Scope
	}
	if f.RunID != 0 {
		p.RunID = &f.RunID
	}
	rows, err := s.q.ListFaults(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list faults: %w", err)
	}
	out := make([]Fault, len(rows))
	for i, r := range rows {
		out[i] = newFault(r)
	}
	return out, nil
}

func newFault(r queries.ListFaultsRow) Fault {
	return Fault{NodeID: r.NodeID, Scope: r.Scope, Phase: int(r.Phase), Error: r.Error,
		Attempts: int(r.Attempts), FirstFailedAt: r.FirstFailedAt, LastFailedAt: r.LastFailedAt,
		RetryAt: r.RetryAt, RunID: r.RunID, Content: r.Content}
}

// FaultsOf returns the set-aside state of the given rows, by node id.
func (s *Store) FaultsOf(ctx context.Context, ids []int64) (map[int64]Fault, error) {
	out := map[int64]Fault{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.q.GetFaults(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	for _, r := range rows {
		out[r.NodeID] = newFault(queries.ListFaultsRow(r))
	}
	return out, nil
}

// FaultCounts is how many rows are set aside: waiting for a retry, and held.
type FaultCounts struct {
	Waiting int64 `json:"waiting"`
	Held    int64 `json:"held"`
}

// CountFaults counts the set-aside rows.
func (s *Store) CountFaults(ctx context.Context) (FaultCounts, error) {
	r, err := s.q.OverviewFaults(ctx)
	if err != nil {
		return FaultCounts{}, fmt.Errorf("count faults: %w", err)
	}
	return FaultCounts{Waiting: r.Waiting, Held: r.Held}, nil
}

// RetryFaults forgets the recorded failures of set-aside rows in scope (every
// scope when empty), so that the next run tries them again with a fresh count
// of attempts. Each row must be set aside, or nothing is changed. It is
// audited with the actor and reason.
func (s *Store) RetryFaults(ctx context.Context, actor Actor, scope string, ids []int64, reason string) (int, error) {
	if err := CheckText("reason", reason); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, Invalidf("ids", "no working rows selected")
	}
	if len(ids) > MaxPushBatch {
		return 0, Invalidf("ids", "%d rows selected: at most %d at once", len(ids), MaxPushBatch)
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var n int
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		faults, err := q.GetFaults(ctx, ids)
		if err != nil {
			return fmt.Errorf("faults: %w", err)
		}
		byID := make(map[int64]queries.GetFaultsRow, len(faults))
		for _, f := range faults {
			byID[f.NodeID] = f
		}
		for _, id := range ids {
			f, ok := byID[id]
			if !ok || (scope != "" && f.Scope != scope) {
				return NotFoundf("working row %d is not set aside; nothing was changed", id)
			}
		}
		gone, err := q.RetryFaults(ctx, ids)
		if err != nil {
			return fmt.Errorf("retry faults: %w", err)
		}
		for _, g := range gone {
			if err := s.audit(ctx, q, auditEntry{
				actor: actor, action: "node.retry", targetType: "node", targetID: fmt.Sprint(g.NodeID), scope: g.Scope,
				before: map[string]any{"phase": g.Phase, "error": g.Error, "attempts": g.Attempts},
				reason: reason,
			}); err != nil {
				return err
			}
		}
		n = len(gone)
		return nil
	})
	return n, err
}
