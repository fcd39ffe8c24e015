package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// Marker is a working row's durability marker, kept at properties.durability.
// It is not importance: a transient row may matter a great deal right now and
// still must never become a fact.
type Marker string

// The three markers. A row without one reads as MarkerDurable.
const (
	MarkerDurable   Marker = "durable"   // a fact about the world; promoted freely
	MarkerTransient Marker = "transient" // a state that will be wrong soon; refused, pruned after min(ttl, 1 h)
	MarkerExpired   Marker = "expired"   // a transient row whose moment has passed; refused, pruned next cleanup
)

// Markers lists the three markers.
func Markers() []Marker { return []Marker{MarkerDurable, MarkerTransient, MarkerExpired} }

// ParseMarker validates a marker value.
func ParseMarker(s string) (Marker, error) {
	switch Marker(s) {
	case MarkerDurable, MarkerTransient, MarkerExpired:
		return Marker(s), nil
	}
	return "", Invalidf("durability", "invalid durability %q: allowed values are durable, transient, expired", s)
}

// MaxPushBatch is the most rows one push may carry.
const MaxPushBatch = 1000

// NewNode is one working row to push.
type NewNode struct {
	Content string
	// Durability is the explicit marker argument; "" means none given. It
	// wins over Metadata["durability"].
	Durability string
	// Metadata is free-form; its "durability" key may carry the marker.
	// It is kept at properties.metadata.
	Metadata map[string]any
	// Properties are kept as they are, besides the marker. The keys entity,
	// key, category, fact_durability, confidence, deadline, alternatives,
	// reasoning and decided_by guide consolidation and are validated here.
	Properties map[string]any
	Importance *float64 // default 0.5
	TTLSeconds *int32   // optional; the row is pruned once it is older
	// ObservedAt is when the row's statement was observed (said, seen,
	// measured); nil means at the time of the write. The fact the row
	// becomes is confirmed then and decays from then (CheckObservedAt
	// bounds it).
	ObservedAt *time.Time
}

// Node is a working row.
type Node struct {
	ID             int64
	Scope          string
	Content        string
	Properties     map[string]any
	Marker         Marker // the marker column: properties.durability, durable when absent
	MarkerExplicit bool   // whether properties hold a marker at all
	Importance     float64
	TTLSeconds     *int32
	CreatedAt      time.Time
	ObservedAt     time.Time // when its statement was observed: CreatedAt unless the writer said
	PromotedAt     *time.Time
	PromotedFactID *int64
	PromotedRunID  *int64
}

// Push writes a batch of working rows to scope in one round trip and returns
// their ids in order. Every row is validated first; one bad row refuses the
// whole batch and nothing is written. The error names the row (rows[3]) and
// what is allowed.
func (s *Store) Push(ctx context.Context, actor Actor, scope string, nodes []NewNode) ([]int64, error) {
	var ids []int64
	if err := s.pushTx(ctx, actor, scope, nodes, nil, &ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// pushTx validates and writes a batch; before, when set, runs first in the
// same transaction and may refuse the batch.
func (s *Store) pushTx(ctx context.Context, actor Actor, scope string, nodes []NewNode,
	before func(q *queries.Queries, tx pgx.Tx) error, out *[]int64) error {
	params, err := s.pushParams(scope, nodes)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q *queries.Queries, tx pgx.Tx) error {
		if before != nil {
			if err := before(q, tx); err != nil {
				return err
			}
		}
		ids, err := s.writeNodes(ctx, q, actor, params)
		*out = ids
		return err
	})
}

// pushParams validates a batch of rows for scope and returns them in the
// shape of InsertNodes.
func (s *Store) pushParams(scope string, nodes []NewNode) (queries.InsertNodesParams, error) {
	if _, err := ParseScope(scope); err != nil {
		return queries.InsertNodesParams{}, err
	}
	if len(nodes) == 0 {
		return queries.InsertNodesParams{}, Invalidf("nodes", "the batch is empty: push at least one row")
	}
	if len(nodes) > MaxPushBatch {
		return queries.InsertNodesParams{}, Invalidf("nodes", "the batch holds %d rows: at most %d are allowed per push", len(nodes), MaxPushBatch)
	}
	now := s.Now()
	params := queries.InsertNodesParams{
		Scope:       scope,
		CreatedAt:   now,
		Contents:    make([]string, len(nodes)),
		Properties:  make([]json.RawMessage, len(nodes)),
		Importances: make([]float64, len(nodes)),
		Ttls:        make([]int32, len(nodes)),
		ObservedAts: make([]time.Time, len(nodes)),
	}
	for i, n := range nodes {
		props, err := nodeProperties(n)
		if err == nil {
			err = validateNodeFields(n, now)
		}
		if err != nil {
			if len(nodes) > 1 {
				return params, prefixField(err, fmt.Sprintf("nodes[%d]", i))
			}
			return params, err
		}
		params.Contents[i] = strings.TrimSpace(n.Content)
		params.Properties[i] = props
		params.Importances[i] = 0.5
		if n.Importance != nil {
			params.Importances[i] = *n.Importance
		}
		if n.TTLSeconds != nil {
			params.Ttls[i] = *n.TTLSeconds
		}
		// The time of the write, unless the writer said when it was
		// observed; InsertNodes stores only the latter.
		params.ObservedAts[i] = now
		if n.ObservedAt != nil {
			params.ObservedAts[i] = n.ObservedAt.UTC().Truncate(time.Microsecond)
		}
	}
	return params, nil
}

// writeNodes writes a validated batch and its audit row, and returns the
// rows' ids in order.
func (s *Store) writeNodes(ctx context.Context, q *queries.Queries, actor Actor, params queries.InsertNodesParams) ([]int64, error) {
	ids, err := q.InsertNodes(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	slices.Sort(ids)
	return ids, s.audit(ctx, q, auditEntry{
		actor: actor, action: "node.push", targetType: "node", targetID: fmt.Sprint(ids[0]),
		scope: params.Scope, after: map[string]any{"count": len(ids), "first_id": ids[0], "last_id": ids[len(ids)-1]},
	})
}

// PushBatch is one batch of a PushAll: rows of one scope, at most
// MaxPushBatch of them.
type PushBatch struct {
	Scope string
	Nodes []NewNode
}

// PushAllOptions tune a PushAll.
type PushAllOptions struct {
	// DryRun validates every batch and computes its notes, then rolls back:
	// nothing is written.
	DryRun bool
	// Progress, when set, is called after each batch with the rows written
	// so far (not yet committed) and the rows of all batches.
	Progress func(done, total int)
}

// PushAll pushes many batches in one transaction, for an import: every row
// of every batch is written, or none (a consolidation run never sees part of
// it). Each batch is held to a push's rules and answered with its notes, as
// PushNoted answers; a refused batch is named (batches[3], and the row in
// it: batches[3].nodes[12].content).
func (s *Store) PushAll(ctx context.Context, actor Actor, batches []PushBatch, opts PushAllOptions) ([]PushResult, error) {
	if len(batches) == 0 {
		return nil, Invalidf("batches", "nothing to push: give at least one batch of rows")
	}
	params := make([]queries.InsertNodesParams, len(batches))
	total := 0
	for i, b := range batches {
		p, err := s.pushParams(b.Scope, b.Nodes)
		if err != nil {
			return nil, prefixField(err, fmt.Sprintf("batches[%d]", i))
		}
		params[i] = p
		total += len(b.Nodes)
	}
	out := make([]PushResult, len(batches))
	errDryRun := errors.New("dry run")
	err := s.tx(ctx, func(q *queries.Queries, tx pgx.Tx) error {
		done := 0
		for i, b := range batches {
			notes, err := s.pushNotes(ctx, q, b.Scope, b.Nodes)
			if err != nil {
				return err
			}
			out[i].Notes = append([]PushNote{}, notes...)
			if out[i].IDs, err = s.writeNodes(ctx, q, actor, params[i]); err != nil {
				return fmt.Errorf("batch %d: %w", i, err)
			}
			done += len(b.Nodes)
			if opts.Progress != nil {
				opts.Progress(done, total)
			}
		}
		if opts.DryRun {
			return errDryRun
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDryRun) {
		return nil, err
	}
	return out, nil
}

// markerOf is the marker a pushed row gives: the durability argument, else
// metadata.durability, else none (""). Every value it could come from must
// be valid: a typo never slips past the gate.
func markerOf(n NewNode) (Marker, error) {
	var marker Marker
	if v, ok := n.Metadata["durability"]; ok {
		str, isString := v.(string)
		if !isString {
			return "", Invalidf("metadata.durability", "metadata.durability must be a string: allowed values are durable, transient, expired")
		}
		m, err := ParseMarker(str)
		if err != nil {
			return "", prefixField(err, "metadata")
		}
		marker = m
	}
	if n.Durability != "" {
		m, err := ParseMarker(n.Durability)
		if err != nil {
			return "", err
		}
		marker = m
	}
	return marker, nil
}

// prefixField puts the row's position in front of a validation error's field.
func prefixField(err error, prefix string) error {
	if e, ok := err.(*Error); ok {
		c := *e
		if c.Field == "" {
			c.Field = prefix
		} else {
			c.Field = prefix + "." + c.Field
		}
		return &c
	}
	return err
}

func validateNodeFields(n NewNode, now time.Time) error {
	if err := CheckText("content", n.Content); err != nil {
		return err
	}
	content := strings.TrimSpace(n.Content)
	if content == "" {
		return Invalidf("content", "content is empty: a working row needs text")
	}
	if l := utf8.RuneCountInString(content); l > 10000 {
		return Invalidf("content", "content is %d characters long: at most 10000 are allowed", l)
	}
	if n.Importance != nil {
		if err := UnitBound.Check("importance", *n.Importance); err != nil {
			return err
		}
	}
	if n.TTLSeconds != nil {
		if err := TTLBound.Check("ttl_seconds", float64(*n.TTLSeconds)); err != nil {
			return err
		}
	}
	if n.ObservedAt != nil {
		return CheckObservedAt("observed_at", *n.ObservedAt, now)
	}
	return nil
}

// nodeProperties builds the stored properties of a pushed row: its
// properties, its metadata under "metadata", and the marker at "durability"
// when one was given (explicitly, or in metadata; the explicit one wins).
// Every value the marker could come from must be valid: a typo never slips
// past the gate.
func nodeProperties(n NewNode) (json.RawMessage, error) {
	if err := CheckJSON("metadata", n.Metadata); err != nil {
		return nil, err
	}
	if err := CheckJSON("properties", n.Properties); err != nil {
		return nil, err
	}
	props := make(map[string]any, len(n.Properties)+2)
	for k, v := range n.Properties {
		props[k] = v
	}
	if _, ok := props["durability"]; ok {
		return nil, Invalidf("properties.durability", "the marker is not set through properties: pass durability (durable, transient or expired) as the durability argument or in metadata.durability")
	}
	if _, ok := props["metadata"]; ok {
		return nil, Invalidf("properties.metadata", "properties.metadata is reserved: pass metadata as its own field")
	}
	if err := validateGuidance(props); err != nil {
		return nil, err
	}
	marker, err := markerOf(n)
	if err != nil {
		return nil, err
	}
	if marker != "" {
		props["durability"] = string(marker)
	}
	if len(n.Metadata) > 0 {
		props["metadata"] = n.Metadata
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return nil, Invalidf("properties", "properties cannot be stored as JSON: %v", err)
	}
	return raw, nil
}

// validateGuidance checks the property keys consolidation reads, so that a
// bad value is refused at push time, not discovered by a later run.
func validateGuidance(props map[string]any) error {
	str := func(key string) (string, bool, error) {
		v, ok := props[key]
		if !ok || v == nil {
			return "", false, nil
		}
		s, isString := v.(string)
		if !isString {
			return "", false, Invalidf("properties."+key, "properties.%s must be a string", key)
		}
		return s, true, nil
	}
	if v, ok, err := str("fact_durability"); err != nil {
		return err
	} else if ok {
		if _, err := ParseDurability(v); err != nil {
			return Invalidf("properties.fact_durability", "invalid fact_durability %q: allowed values are permanent, long_term, short_term, ephemeral", v)
		}
	}
	if v, ok, err := str("category"); err != nil {
		return err
	} else if ok {
		if _, err := ParseCategory(v); err != nil {
			return prefixField(err, "properties")
		}
	}
	if v, ok, err := str("entity"); err != nil {
		return err
	} else if ok && (strings.TrimSpace(v) == "" || utf8.RuneCountInString(v) > 200) {
		return Invalidf("properties.entity", "properties.entity must be a name of 1 to 200 characters")
	}
	if v, ok, err := str("key"); err != nil {
		return err
	} else if ok && !factKeyPattern.MatchString(v) {
		return Invalidf("properties.key", "invalid key %q: use up to 64 lowercase letters, digits, '_', '.', ':' or '-'", v)
	}
	if v, ok, err := str("deadline"); err != nil {
		return err
	} else if ok {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return Invalidf("properties.deadline", "invalid deadline %q: use an RFC 3339 time such as 2026-12-31T17:00:00Z", v)
		}
		if err := CheckTime("properties.deadline", t); err != nil {
			return err
		}
	}
	for _, key := range []string{"reasoning", "decided_by"} {
		if _, _, err := str(key); err != nil {
			return err
		}
	}
	if v, ok := props["confidence"]; ok {
		c, isNumber := v.(float64)
		if !isNumber {
			return Invalidf("properties.confidence", "properties.confidence must be a number: %s", UnitBound.Allowed())
		}
		if err := UnitBound.Check("properties.confidence", c); err != nil {
			return err
		}
	}
	if v, ok := props["alternatives"]; ok {
		list, isList := v.([]any)
		if !isList {
			if ss, isStrings := v.([]string); isStrings {
				for _, s := range ss {
					list = append(list, s)
				}
			} else {
				return Invalidf("properties.alternatives", "properties.alternatives must be a list of strings")
			}
		}
		for _, a := range list {
			if _, isString := a.(string); !isString {
				return Invalidf("properties.alternatives", "properties.alternatives must be a list of strings")
			}
		}
	}
	return nil
}

// UpgradeDurability sets the marker of one row in scope: the explicit
// promotion (durable) or retirement (expired) of a row. Every other property
// is kept; the change is audited.
func (s *Store) UpgradeDurability(ctx context.Context, actor Actor, scope string, nodeID int64, value string) error {
	if _, err := ParseScope(scope); err != nil {
		return err
	}
	_, err := s.SetMarkers(ctx, actor, scope, []int64{nodeID}, value, "")
	return err
}

// SetMarkers sets the marker of many rows at once (the console's promote and
// expire buttons); an empty scope matches every scope. All rows must exist and
// be unpromoted, or nothing is written. It returns how many rows changed.
func (s *Store) SetMarkers(ctx context.Context, actor Actor, scope string, ids []int64, value, reason string) (int, error) {
	marker, err := ParseMarker(value)
	if err != nil {
		return 0, err
	}
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
	var changed int
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		// One statement sets the markers and writes their audit rows; a
		// missing row rolls both back.
		rows, err := q.SetNodeMarkers(ctx, queries.SetNodeMarkersParams{
			Ids: ids, Scope: scope, Marker: string(marker), Now: s.Now(), Actor: actor.String(), Reason: reason,
		})
		if err != nil {
			return fmt.Errorf("set markers: %w", err)
		}
		if len(rows) != len(ids) {
			return s.missingNodes(ctx, q, scope, ids, rows)
		}
		changed = len(rows)
		return nil
	})
	return changed, err
}

// missingNodes explains which of ids could not be changed, and why.
func (s *Store) missingNodes(ctx context.Context, q *queries.Queries, scope string, ids []int64, got []queries.SetNodeMarkersRow) error {
	found, err := q.GetNodesByID(ctx, ids)
	if err != nil {
		return err
	}
	byID := make(map[int64]queries.MemoryNode, len(found))
	for _, n := range found {
		byID[n.ID] = n
	}
	for _, id := range ids {
		n, ok := byID[id]
		switch {
		case !ok || (scope != "" && n.Scope != scope):
			where := ""
			if scope != "" {
				where = " in scope " + scope
			}
			return NotFoundf("working row %d not found%s; nothing was changed", id, where)
		case n.PromotedAt != nil:
			return &Error{Code: CodeConflict, Field: "ids", Message: fmt.Sprintf(
				"working row %d was already promoted into fact %d; its marker can no longer change, nothing was changed", id, deref(n.PromotedFactID))}
		}
	}
	return fmt.Errorf("set markers: %d of %d rows changed", len(got), len(ids))
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// GetNodes returns the rows with ids that exist, in id order.
func (s *Store) GetNodes(ctx context.Context, ids []int64) ([]Node, error) {
	var rows []queries.MemoryNode
	err := s.read(ctx, func(ctx context.Context, db *queries.Queries) error {
		var err error
		rows, err = db.GetNodesByID(ctx, ids)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get nodes: %w", err)
	}
	out := make([]Node, 0, len(rows))
	for _, r := range rows {
		out = append(out, newNode(r))
	}
	return out, nil
}

func newNode(r queries.MemoryNode) Node {
	n := Node{
		ID: r.ID, Scope: r.Scope, Content: r.Content, Importance: r.Importance, TTLSeconds: r.TtlSeconds,
		CreatedAt: r.CreatedAt, ObservedAt: r.CreatedAt, PromotedAt: r.PromotedAt, PromotedFactID: r.PromotedFactID,
		PromotedRunID: r.PromotedRunID, Marker: Marker(r.Marker),
	}
	if r.ObservedAt != nil {
		n.ObservedAt = *r.ObservedAt
	}
	_ = json.Unmarshal(r.Properties, &n.Properties)
	_, n.MarkerExplicit = n.Properties["durability"].(string)
	return n
}

// RowAxes is what a classifier says of a working row, as the properties
// consolidation reads to promote it.
type RowAxes struct {
	Entity, Key, Category, Durability string
	Confidence                        float64 // 0 when not said
	Deadline                          *time.Time
	Alternatives                      []string
	Reasoning                         string
}

// Properties returns the row's properties: category and fact_durability
// always, the others when said (deadline in RFC 3339, UTC). What a
// classifier reads in a text is moved into the bounds a writer is held to
// (a confidence into UnitBound, a deadline into [MinTime, MaxTime]), so that
// the rows it becomes are never refused for it.
func (a RowAxes) Properties() map[string]any {
	props := map[string]any{"category": a.Category, "fact_durability": a.Durability}
	if a.Entity != "" {
		props["entity"] = a.Entity
	}
	if a.Key != "" {
		props["key"] = a.Key
	}
	if c := clampUnit(a.Confidence); c > 0 {
		props["confidence"] = c
	}
	if a.Deadline != nil {
		props["deadline"] = ClampTime(*a.Deadline).UTC().Format(time.RFC3339)
	}
	if len(a.Alternatives) > 0 {
		props["alternatives"] = a.Alternatives
	}
	if a.Reasoning != "" {
		props["reasoning"] = a.Reasoning
	}
	return props
}
