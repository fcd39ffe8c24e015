package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// pruneOne pushes one row with node, lets wait pass, runs consolidation so
// that cleanup prunes it, and returns its tombstone.
func (e *env) pruneOne(t *testing.T, scope string, node NewNode, wait time.Duration) Tombstone {
	t.Helper()
	id := e.push(t, scope, node)[0]
	e.clock.Advance(wait)
	e.consolidate(t)
	ts, err := e.store.ListTombstones(context.Background(), TombstoneFilter{State: TombstoneAll})
	if err != nil {
		t.Fatalf("ListTombstones() error = %v", err)
	}
	for _, tb := range ts {
		if tb.NodeID == id {
			return tb
		}
	}
	t.Fatalf("no tombstone for row %d after a run; tombstones: %+v", id, ts)
	return Tombstone{}
}

func TestRestoreTombstoneKeepsTheRow(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ttl := int32(3600)
	tomb := e.pruneOne(t, "acme", NewNode{
		Content: "Deploy is rolling out to eu-west", Durability: "expired", Importance: pointerTo(0.8),
		TTLSeconds: &ttl, Properties: map[string]any{"entity": "deploy"}, Metadata: map[string]any{"agent": "ops"},
	}, 0)
	if tomb.Reason != "expired" || tomb.Marker != MarkerExpired || tomb.RestoredAt != nil {
		t.Fatalf("tombstone = %+v, want an unrestored expired tombstone", tomb)
	}
	e.clock.Advance(2 * time.Hour)
	restoredAt := e.store.Now()

	node, err := e.store.RestoreTombstone(ctx, Human("ann@example.com"), tomb.ID, RestoreOptions{Reason: "needed it"})
	if err != nil {
		t.Fatalf("RestoreTombstone() error = %v", err)
	}
	if node.ID == tomb.NodeID {
		t.Errorf("restored row id = %d, want a new id (the old id keeps its tombstone)", node.ID)
	}
	if node.Scope != "acme" || node.Content != tomb.Content || node.Importance != 0.8 ||
		node.TTLSeconds == nil || *node.TTLSeconds != ttl || node.Marker != MarkerExpired || !node.MarkerExplicit {
		t.Errorf("restored row = %+v, want the tombstone's scope, content, importance, ttl and marker", node)
	}
	if !node.CreatedAt.Equal(restoredAt) {
		t.Errorf("restored created_at = %s, want the restore time %s", node.CreatedAt, restoredAt)
	}
	if node.Properties["entity"] != "deploy" || node.Properties["metadata"] == nil {
		t.Errorf("restored properties = %v, want every property kept", node.Properties)
	}
	if got := e.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1 AND promoted_at IS NULL`, node.ID); got != 1 {
		t.Errorf("restored row in memory_nodes: %d, want 1", got)
	}

	var by string
	var at time.Time
	if err := e.pool.QueryRow(ctx, `SELECT restored_by, restored_at FROM node_tombstones WHERE id = $1`, tomb.ID).Scan(&by, &at); err != nil {
		t.Fatal(err)
	}
	if by != "user:ann@example.com" || !at.Equal(restoredAt) {
		t.Errorf("tombstone restored_by %q at %s, want user:ann@example.com at %s", by, at, restoredAt)
	}
	var rawBefore, rawAfter []byte
	var actor, reason string
	if err := e.pool.QueryRow(ctx, `SELECT actor, before, after, reason FROM audit_log WHERE action = 'node.restore' AND target_id = $1`,
		fmt.Sprint(node.ID)).Scan(&actor, &rawBefore, &rawAfter, &reason); err != nil {
		t.Fatalf("audit row of the restore: %v", err)
	}
	var before, after map[string]any
	if err := json.Unmarshal(rawBefore, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rawAfter, &after); err != nil {
		t.Fatal(err)
	}
	if actor != "user:ann@example.com" || before["tombstone_id"] != float64(tomb.ID) || before["node_id"] != float64(tomb.NodeID) ||
		after["node_id"] != float64(node.ID) || after["as_durable"] != false || reason != "needed it" {
		t.Errorf("audit actor %s before %v after %v reason %q", actor, before, after, reason)
	}

	pruned, err := e.store.ListTombstones(ctx, TombstoneFilter{})
	if err != nil {
		t.Fatal(err)
	}
	restored, err := e.store.ListTombstones(ctx, TombstoneFilter{State: TombstoneRestored})
	if err != nil {
		t.Fatal(err)
	}
	if len(pruned) != 0 || len(restored) != 1 || restored[0].ID != tomb.ID {
		t.Errorf("ListTombstones: %d pruned, %d restored; want the tombstone listed as restored only", len(pruned), len(restored))
	}

	// As documented: an expired row restored as it was is pruned again by
	// the next cleanup, leaving a new tombstone under its new id.
	run := e.consolidate(t)
	if run.Count(PhaseCleanup, "pruned_expired") != 1 {
		t.Errorf("next run report = %v, want the restored expired row pruned again", run.Report)
	}
	if got := e.count(t, `SELECT count(*) FROM node_tombstones WHERE node_id = $1`, node.ID); got != 1 {
		t.Errorf("tombstones of the restored row after the next run: %d, want 1", got)
	}
}

func TestRestoreTombstoneAsDurableIsPromoted(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tomb := e.pruneOne(t, "acme", NewNode{Content: "Acme renewed their contract for 2027", Durability: "transient"}, 2*time.Hour)
	if tomb.Reason != "transient_ttl" {
		t.Fatalf("tombstone reason = %s, want transient_ttl", tomb.Reason)
	}
	node, err := e.store.RestoreTombstone(ctx, Human("ann@example.com"), tomb.ID, RestoreOptions{AsDurable: true})
	if err != nil {
		t.Fatalf("RestoreTombstone(as durable) error = %v", err)
	}
	if node.Marker != MarkerDurable || !node.MarkerExplicit {
		t.Errorf("restored marker = %s (explicit %t), want durable", node.Marker, node.MarkerExplicit)
	}
	run := e.consolidate(t)
	if run.Count(PhasePromote, "promoted") != 1 {
		t.Errorf("run report = %v, want the restored row promoted", run.Report)
	}
	if got := e.count(t, `SELECT count(*) FROM entity_facts WHERE source_node_id = $1`, node.ID); got != 1 {
		t.Errorf("facts from the restored row: %d, want 1", got)
	}
}

func TestRestoreTombstoneRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tomb := e.pruneOne(t, "acme", NewNode{Content: "gone", Durability: "expired"}, 0)
	if _, err := e.store.RestoreTombstone(ctx, Human("ann@example.com"), tomb.ID, RestoreOptions{}); err != nil {
		t.Fatalf("first restore: %v", err)
	}
	rows := e.count(t, `SELECT count(*) FROM memory_nodes`)
	audits := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.restore'`)

	_, err := e.store.RestoreTombstone(ctx, Human("bob@example.com"), tomb.ID, RestoreOptions{})
	if ErrorCode(err) != CodeConflict || !strings.Contains(err.Error(), "already restored") || !strings.Contains(err.Error(), "ann@example.com") {
		t.Errorf("second restore error = %v, want a conflict naming who restored it", err)
	}
	_, err = e.store.RestoreTombstone(ctx, Human("bob@example.com"), tomb.ID+1000, RestoreOptions{})
	if ErrorCode(err) != CodeNotFound {
		t.Errorf("restore of an unknown tombstone error = %v, want not found", err)
	}
	if e.count(t, `SELECT count(*) FROM memory_nodes`) != rows || e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.restore'`) != audits {
		t.Error("a refused restore wrote something")
	}
}

func TestListTombstonesFilters(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.push(t, "acme", NewNode{Content: "a", Durability: "expired"}, NewNode{Content: "b", Durability: "expired"})
	e.push(t, "globex", NewNode{Content: "c", Durability: "expired"}, NewNode{Content: "d", TTLSeconds: pointerTo(int32(60))})
	e.clock.Advance(2 * time.Minute)
	e.consolidate(t)

	tests := []struct {
		name string
		f    TombstoneFilter
		want []string
	}{
		{"all pruned", TombstoneFilter{}, []string{"d", "c", "b", "a"}},
		{"scope", TombstoneFilter{Scope: "acme"}, []string{"b", "a"}},
		{"reason ttl", TombstoneFilter{Reason: "ttl"}, []string{"d"}},
		{"scope and reason", TombstoneFilter{Scope: "globex", Reason: "expired"}, []string{"c"}},
		{"restored", TombstoneFilter{State: TombstoneRestored}, nil},
		{"limit", TombstoneFilter{Limit: 2}, []string{"d", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.store.ListTombstones(ctx, tt.f)
			if err != nil {
				t.Fatalf("ListTombstones(%+v) error = %v", tt.f, err)
			}
			var contents []string
			for _, tb := range got {
				contents = append(contents, tb.Content)
			}
			if strings.Join(contents, ",") != strings.Join(tt.want, ",") {
				t.Errorf("ListTombstones(%+v) = %v, want %v", tt.f, contents, tt.want)
			}
		})
	}
	t.Run("next page", func(t *testing.T) {
		first, _ := e.store.ListTombstones(ctx, TombstoneFilter{Limit: 2})
		next, err := e.store.ListTombstones(ctx, TombstoneFilter{Limit: 2, BeforeID: first[1].ID})
		if err != nil || len(next) != 2 || next[0].Content != "b" {
			t.Errorf("second page = %+v, %v; want b, a", next, err)
		}
	})
	scopes, err := e.store.TombstoneScopes(ctx)
	if err != nil || strings.Join(scopes, ",") != "acme,globex" {
		t.Errorf("TombstoneScopes() = %v, %v; want acme, globex", scopes, err)
	}

	bad := []struct {
		f     TombstoneFilter
		field string
		want  string
	}{
		{TombstoneFilter{Reason: "gone"}, "reason", "expired, transient_ttl, ttl, decision_locked"},
		{TombstoneFilter{State: "deleted"}, "state", "pruned, restored, all"},
		{TombstoneFilter{Scope: "Bad Scope"}, "scope", "invalid scope"},
		{TombstoneFilter{Limit: 501}, "limit", "between 1 and 500"},
		{TombstoneFilter{BeforeID: -1}, "before", "positive"},
	}
	for _, tt := range bad {
		_, err := e.store.ListTombstones(ctx, tt.f)
		var me *Error
		if !errors.As(err, &me) || me.Code != CodeInvalid || me.Field != tt.field || !strings.Contains(me.Message, tt.want) {
			t.Errorf("ListTombstones(%+v) error = %v, want invalid %s mentioning %q", tt.f, err, tt.field, tt.want)
		}
	}
}
