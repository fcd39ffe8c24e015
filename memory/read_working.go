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
// follows.
func (s *Store) ListNodes(ctx context.Context, f NodeFilter) ([]Node, error) {
	p := queries.ListWorkingNodesParams{State: f.State, BeforeID: f.BeforeID, PageSize: f.Limit}
	if p.PageSize <= 0 {
		p.PageSize = 50
	}
	if p.PageSize > 500 {
		return nil, Invalidf("limit", "limit %d is too large: at most 500", p.PageSize)
	}
	if f.Scope != "" {
		if _, err := ParseScope(f.Scope); err != nil {
			return nil, err
		}
		p.Scope = &f.Scope
	}
	if f.Marker != "" {
		if _, err := ParseMarker(f.Marker); err != nil {
			return nil, err
		}
		p.Marker = &f.Marker
	}
	switch f.State {
	case "", NodesPending, NodesPromoted, NodesSetAside:
	default:
		return nil, Invalidf("state", "unknown state %q: allowed values are pending, promoted, set_aside, or none for every row", f.State)
	}
	if f.PendingOnly {
		if f.State != "" && f.State != NodesPending {
			return nil, Invalidf("state", "state %q contradicts pending only: give one of them", f.State)
		}
		p.State = NodesPending
	}
	if f.BeforeID < 0 {
		return nil, Invalidf("before", "invalid page cursor %d: it must be a positive working row id", f.BeforeID)
	}
	rows, err := s.q.ListWorkingNodes(ctx, p)
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
// marker, in that order.
func (s *Store) CountPendingNodes(ctx context.Context) ([]PendingCount, error) {
	rows, err := s.q.CountPendingNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("count pending nodes: %w", err)
	}
	out := make([]PendingCount, len(rows))
	for i, r := range rows {
		out[i] = PendingCount{Scope: r.Scope, Marker: Marker(r.Marker), Rows: r.N}
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
