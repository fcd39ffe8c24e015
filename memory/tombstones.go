package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// PurgeTombstones deletes the tombstones kept past their 30 days; restored
// ones were already brought back and are kept as a record.
func (s *Store) PurgeTombstones(ctx context.Context) (int, error) {
	n, err := s.q.PurgeTombstones(ctx, s.Now())
	if err != nil {
		return 0, fmt.Errorf("purge tombstones: %w", err)
	}
	return int(n), nil
}

// Tombstone is a working row that cleanup pruned (or that a locked decision
// refused), kept so that a reviewer can bring it back until PurgeAfter.
type Tombstone struct {
	ID             int64
	NodeID         int64 // the pruned row's id; a restored row gets a new one
	Scope          string
	Content        string
	Properties     json.RawMessage
	Marker         Marker // the marker column: properties.durability, durable when absent
	MarkerExplicit bool   // whether properties hold a marker at all
	Importance     float64
	TTLSeconds     *int32
	NodeCreatedAt  time.Time
	RunID          *int64
	// Reason is why the row went: expired, transient_ttl, ttl or decision_locked.
	Reason     string
	PrunedAt   time.Time
	PurgeAfter time.Time
	RestoredAt *time.Time
	RestoredBy *string
}

func newTombstone(r queries.NodeTombstone) Tombstone {
	t := Tombstone{
		ID: r.ID, NodeID: r.NodeID, Scope: r.Scope, Content: r.Content, Properties: r.Properties,
		Marker: Marker(r.Marker), Importance: r.Importance, TTLSeconds: r.TtlSeconds,
		NodeCreatedAt: r.NodeCreatedAt, RunID: r.RunID, Reason: r.Reason, PrunedAt: r.PrunedAt,
		PurgeAfter: r.PurgeAfter, RestoredAt: r.RestoredAt, RestoredBy: r.RestoredBy,
	}
	// Marker holds the stored marker or durable; only whether the row sent
	// one at all is read from properties.
	var props struct {
		Marker any `json:"durability"`
	}
	if json.Unmarshal(r.Properties, &props) == nil {
		_, t.MarkerExplicit = props.Marker.(string)
	}
	return t
}

// TombstoneReasons lists why a working row can have been pruned.
func TombstoneReasons() []string {
	return []string{"expired", "transient_ttl", "ttl", ReasonDecisionLocked}
}

// Tombstone states a filter can select.
const (
	TombstonePruned   = "pruned"   // not restored (the default)
	TombstoneRestored = "restored" // brought back by a reviewer
	TombstoneAll      = "all"
)

// TombstoneFilter selects tombstones. Zero values select everything that was
// not restored.
type TombstoneFilter struct {
	Scope    string
	Reason   string // expired, transient_ttl, ttl or decision_locked
	State    string // pruned (default), restored or all
	BeforeID int64  // keyset cursor: only tombstones with a smaller id
	Limit    int    // default 50, at most 500
}

const (
	defaultTombstones = 50
	maxTombstones     = 500
)

// ListTombstones returns one page of tombstones, newest first. The next page
// starts before the last tombstone's id.
func (s *Store) ListTombstones(ctx context.Context, f TombstoneFilter) ([]Tombstone, error) {
	p := queries.ListTombstonesParams{BeforeID: f.BeforeID}
	if f.Scope != "" {
		if _, err := ParseScope(f.Scope); err != nil {
			return nil, err
		}
		p.Scope = &f.Scope
	}
	if f.Reason != "" {
		if !slices.Contains(TombstoneReasons(), f.Reason) {
			return nil, Invalidf("reason", "unknown reason %q: allowed values are %s", f.Reason, strings.Join(TombstoneReasons(), ", "))
		}
		p.Reason = &f.Reason
	}
	switch f.State {
	case "", TombstonePruned:
		p.State = TombstonePruned
	case TombstoneRestored:
		p.State = TombstoneRestored
	case TombstoneAll:
		p.State = ""
	default:
		return nil, Invalidf("state", "unknown state %q: allowed values are pruned, restored, all", f.State)
	}
	if f.BeforeID < 0 {
		return nil, Invalidf("before", "invalid page cursor %d: it must be a positive tombstone id", f.BeforeID)
	}
	var err error
	if p.PageSize, err = parsePageSize(f.Limit, defaultTombstones, maxTombstones); err != nil {
		return nil, err
	}
	rows, err := s.q.ListTombstones(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list tombstones: %w", err)
	}
	out := make([]Tombstone, len(rows))
	for i, r := range rows {
		out[i] = newTombstone(r)
	}
	return out, nil
}

// TombstoneScopes returns the scopes that hold tombstones.
func (s *Store) TombstoneScopes(ctx context.Context) ([]string, error) {
	scopes, err := s.q.ListTombstoneScopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("tombstone scopes: %w", err)
	}
	return scopes, nil
}

// RestoreOptions tune RestoreTombstone.
type RestoreOptions struct {
	// AsDurable sets the restored row's marker to durable, so that the next
	// consolidation run promotes it instead of pruning it again.
	AsDurable bool
	Reason    string
}

// RestoreTombstone brings a pruned working row back, in one transaction: the
// row is inserted again into working memory with its scope, content,
// properties, importance and ttl, the tombstone is marked restored, and the
// change is audited. Restoring twice is a conflict.
//
// What "restore" means: "I want this row back as working memory, now". So the
// row is created again with created_at = now (its ttl, if any, counts from the
// restore; with its original created_at a row pruned for its ttl would be
// pruned again at once), under a new id (cleanup keeps one tombstone per row
// id). Its marker is kept unless opts.AsDurable: a transient or expired row
// restored as it was is pruned again by the next cleanup (transient after up
// to an hour), and a row refused by a locked decision is refused again.
func (s *Store) RestoreTombstone(ctx context.Context, actor Actor, id int64, opts RestoreOptions) (Node, error) {
	if id <= 0 {
		return Node{}, NotFoundf("tombstone %d not found", id)
	}
	var node Node
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		t, err := q.GetTombstoneForUpdate(ctx, id)
		if errors.Is(err, pgx.ErrNoRows) {
			return NotFoundf("tombstone %d not found: it may have been purged after its 30 days", id)
		}
		if err != nil {
			return fmt.Errorf("restore tombstone: %w", err)
		}
		if t.RestoredAt != nil {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf(
				"tombstone %d was already restored at %s by %s; nothing was changed",
				id, t.RestoredAt.UTC().Format("2006-01-02 15:04:05 UTC"), deref(t.RestoredBy))}
		}
		before := newTombstone(t)
		props := t.Properties
		if opts.AsDurable {
			var m map[string]any
			if err := json.Unmarshal(t.Properties, &m); err != nil || m == nil {
				m = map[string]any{}
			}
			m["durability"] = string(MarkerDurable)
			if props, err = json.Marshal(m); err != nil {
				return fmt.Errorf("restore tombstone: %w", err)
			}
		}
		now := s.Now()
		row, err := q.InsertNode(ctx, queries.InsertNodeParams{
			Scope: t.Scope, Content: t.Content, Properties: props, Importance: t.Importance,
			TtlSeconds: t.TtlSeconds, CreatedAt: now, ObservedAt: t.NodeObservedAt,
		})
		if err != nil {
			return fmt.Errorf("restore tombstone: insert: %w", err)
		}
		if err := q.MarkTombstoneRestored(ctx, queries.MarkTombstoneRestoredParams{
			ID: id, RestoredAt: now, RestoredBy: actor.String(),
		}); err != nil {
			return fmt.Errorf("restore tombstone: mark: %w", err)
		}
		node = newNode(row)
		beforeMarker := string(before.Marker)
		if !before.MarkerExplicit {
			beforeMarker = "(none: reads as durable)"
		}
		afterMarker := string(node.Marker)
		if !node.MarkerExplicit {
			afterMarker = "(none: reads as durable)"
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "node.restore", targetType: "node", targetID: fmt.Sprint(node.ID),
			scope: t.Scope,
			before: map[string]any{"tombstone_id": t.ID, "node_id": t.NodeID, "reason": t.Reason,
				"pruned_at": t.PrunedAt, "durability": beforeMarker},
			after: map[string]any{"node_id": node.ID, "durability": afterMarker, "as_durable": opts.AsDurable,
				"created_at": now},
			reason: opts.Reason,
		})
	})
	if err != nil {
		return Node{}, err
	}
	return node, nil
}
