package memory

import (
	"context"
	"fmt"

	"github.com/tenurehq/tenure/queries"
)

// The states a NodeFilter selects working rows by.
const (
	NodesPending  = "pending"   // not promoted yet
	NodesPromoted = "promoted"  // promoted into a fact
	NodesSetAside = "set_aside" // set aside by consolidation after a failure of their own, promoted or not
)

// NodeFilter selects one page of working rows, newest first. Every zero
// field leaves its filter out. The console's working page and the API's
// node list both read through it.
type NodeFilter struct {
	Scope string // "" for every scope
	// Marker is durable, transient or expired; a row without a marker is
	// found as durable. "" for all.
	Marker string
	// State is NodesPending, NodesPromoted, NodesSetAside, or "" for every
	// row.
	State string
	// PendingOnly is State NodesPending, for callers that know no other
	// state.
	PendingOnly bool
	BeforeID    int64 // keyset cursor: rows with smaller ids; 0 for the first page
	Limit       int32 // default 50, at most 500
}

// ListNodes returns one page of working rows matching f, newest first. The
// caller asks for one row more than it shows to learn whether another page
// follows. Whatever the filters, it reads a bounded number of rows
// (walkThenSearch): the newest rows of the scope, then, when the marker and
// state filters matched few of them, only the matches that
// memory_nodes_filters_idx (or, for rows set aside, consolidation_faults)
// finds below them.
func (s *Store) ListNodes(ctx context.Context, f NodeFilter) ([]Node, error) {
	pageSize := f.Limit
	if pageSize <= 0 {
		pageSize = 50
	}
	if pageSize > 500 {
		return nil, Invalidf("limit", "limit %d is too large: at most 500", pageSize)
	}
	var scope, marker *string
	if f.Scope != "" {
		if _, err := ParseScope(f.Scope); err != nil {
			return nil, err
		}
		scope = &f.Scope
	}
	if f.Marker != "" {
		if _, err := ParseMarker(f.Marker); err != nil {
			return nil, err
		}
		marker = &f.Marker
	}
	state := f.State
	switch state {
	case "", NodesPending, NodesPromoted, NodesSetAside:
	default:
		return nil, Invalidf("state", "unknown state %q: allowed values are pending, promoted, set_aside, or none for every row", f.State)
	}
	if f.PendingOnly {
		if state != "" && state != NodesPending {
			return nil, Invalidf("state", "state %q contradicts pending only: give one of them", f.State)
		}
		state = NodesPending
	}
	if f.BeforeID < 0 {
		return nil, Invalidf("before", "invalid page cursor %d: it must be a positive working row id", f.BeforeID)
	}
	// pending is 1 for rows not promoted yet, 0 for promoted ones.
	var pending *int32
	switch state {
	case NodesPending:
		pending = pointerTo(int32(1))
	case NodesPromoted:
		pending = pointerTo(int32(0))
	}
	setAside := state == NodesSetAside
	var rows []queries.MemoryNode
	err := s.read(ctx, func(ctx context.Context, db *queries.Queries) error {
		rows = nil
		ids, err := walkThenSearch(pageSize,
			func(rows int32) ([]listWalk, error) {
				walked, err := db.NodeIDsWalk(ctx, queries.NodeIDsWalkParams{WalkRows: rows, Marker: marker, Pending: pending,
					SetAside: setAside, Scope: scope, BeforeID: f.BeforeID, PageSize: pageSize})
				out := make([]listWalk, len(walked))
				for i, r := range walked {
					out[i] = listWalk(r)
				}
				return out, err
			},
			func(before int64, rows int32) ([]int64, error) {
				if setAside {
					return db.NodeIDsSearchSetAside(ctx, queries.NodeIDsSearchSetAsideParams{Scope: scope, Marker: marker,
						Pending: pending, BeforeID: before, PageSize: rows})
				}
				return db.NodeIDsSearch(ctx, queries.NodeIDsSearchParams{Scope: scope, Marker: marker, Pending: pending,
					BeforeID: before, PageSize: rows})
			})
		if err != nil || len(ids) == 0 {
			return err
		}
		rows, err = db.ListNodesByIDs(ctx, ids)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	out := make([]Node, 0, len(rows))
	for _, r := range rows {
		out = append(out, newNode(r))
	}
	return out, nil
}

// PendingCount is how many working rows of one scope with one marker wait
// for consolidation.
type PendingCount struct {
	Scope  string
	Marker Marker // a row without a marker counts as durable
	Rows   int64
}

// CountPendingNodes counts the working rows not promoted yet, by scope and
// marker, in that order. It reads the counts that triggers on memory_nodes
// keep in pending_node_counts (pendingNodeCounts), exact at the reader's
// snapshot, not the rows themselves.
func (s *Store) CountPendingNodes(ctx context.Context) ([]PendingCount, error) {
	return s.pendingNodeCounts(ctx)
}

// foldPendingAt is how many rows pending_node_counts may hold before a
// reader folds them into one per (scope, marker).
const foldPendingAt = 1000

// pendingNodeCounts counts the working rows not promoted yet per scope and
// marker, without reading them: statement-level triggers on memory_nodes
// append each statement's net change to pending_node_counts in the same
// transaction, so the counts are never stale (exact at the reader's
// snapshot, whatever writes are under way), and summing them costs a few
// hundred rows at most whether a thousand or a million rows wait. Writers
// only append; when the appended rows pile up past foldPendingAt, this
// reader folds them (one reader at a time; a failed fold changes nothing and
// the next reader tries again).
func (s *Store) pendingNodeCounts(ctx context.Context) ([]PendingCount, error) {
	rows, err := s.q.PendingNodeCounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("count pending nodes: %w", err)
	}
	out := []PendingCount{}
	var parts int64
	for _, r := range rows {
		parts += r.Parts
		if r.Nodes != 0 {
			out = append(out, PendingCount{Scope: r.Scope, Marker: Marker(r.Marker), Rows: r.Nodes})
		}
	}
	if parts > foldPendingAt {
		if err := s.foldUnderLock(ctx, foldPendingKey, (*queries.Queries).FoldPendingNodeCounts); err != nil {
			s.logger.Warn("working.fold_pending_counts", "error", err.Error())
		}
	}
	return out, nil
}

// NodeScopes returns the scopes that hold working rows, sorted.
func (s *Store) NodeScopes(ctx context.Context) ([]string, error) {
	scopes, err := s.q.ListNodeScopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list node scopes: %w", err)
	}
	return scopes, nil
}
