package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestPushDurabilityRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tests := []struct {
		name       string
		node       NewNode
		wantMarker string // "" means no key stored
	}{
		{"absent writes no key", NewNode{Content: "a"}, ""},
		{"explicit", NewNode{Content: "a", Durability: "transient"}, "transient"},
		{"metadata", NewNode{Content: "a", Metadata: map[string]any{"durability": "expired"}}, "expired"},
		{"explicit wins over metadata", NewNode{Content: "a", Durability: "durable", Metadata: map[string]any{"durability": "transient"}}, "durable"},
		{"explicit durable is stored", NewNode{Content: "a", Durability: "durable"}, "durable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := e.push(t, "s", tt.node)[0]
			var props map[string]any
			var raw []byte
			if err := e.pool.QueryRow(ctx, `SELECT properties FROM memory_nodes WHERE id = $1`, id).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal(raw, &props)
			got, ok := props["durability"]
			switch {
			case tt.wantMarker == "" && ok:
				t.Errorf("properties.durability = %v, want no key", got)
			case tt.wantMarker != "" && got != tt.wantMarker:
				t.Errorf("properties.durability = %v, want %s", got, tt.wantMarker)
			}
			nodes, err := e.store.GetNodes(ctx, []int64{id})
			if err != nil || len(nodes) != 1 {
				t.Fatal(err)
			}
			want := tt.wantMarker
			if want == "" {
				want = "durable"
			}
			if string(nodes[0].Marker) != want {
				t.Errorf("Node.Marker = %s, want %s", nodes[0].Marker, want)
			}
		})
	}
}

func TestPushRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tests := []struct {
		name  string
		nodes []NewNode
		field string
		want  string
	}{
		{"unknown marker", []NewNode{{Content: "a", Durability: "permanent"}}, "durability", "allowed values are durable, transient, expired"},
		{"unknown metadata marker", []NewNode{{Content: "a", Metadata: map[string]any{"durability": "temporary"}}}, "metadata.durability", "allowed values are durable, transient, expired"},
		{"bad metadata even when explicit valid", []NewNode{{Content: "a", Durability: "durable", Metadata: map[string]any{"durability": "soon"}}}, "metadata.durability", `"soon"`},
		{"non-string metadata marker", []NewNode{{Content: "a", Metadata: map[string]any{"durability": 3.0}}}, "metadata.durability", "must be a string"},
		{"marker in properties", []NewNode{{Content: "a", Properties: map[string]any{"durability": "durable"}}}, "properties.durability", "durability argument"},
		{"empty content", []NewNode{{Content: "  "}}, "content", "content is empty"},
		{"importance range", []NewNode{{Content: "a", Importance: pointerTo(1.5)}}, "importance", "0, or a number from 0.001 to 1"},
		{"ttl range", []NewNode{{Content: "a", TTLSeconds: pointerTo(int32(0))}}, "ttl_seconds", "out of range"},
		{"bad fact durability", []NewNode{{Content: "a", Properties: map[string]any{"fact_durability": "forever"}}}, "properties.fact_durability", "permanent, long_term, short_term, ephemeral"},
		{"bad category", []NewNode{{Content: "a", Properties: map[string]any{"category": "Mood!"}}}, "properties.category", "lowercase slug"},
		{"bad deadline", []NewNode{{Content: "a", Properties: map[string]any{"deadline": "next friday"}}}, "properties.deadline", "RFC 3339"},
		{"batch names the row", []NewNode{{Content: "ok"}, {Content: "ok"}, {Content: "b", Durability: "maybe"}}, "nodes[2].durability", "allowed values"},
		{"empty batch", nil, "nodes", "empty"},
		{"too large", make([]NewNode, MaxPushBatch+1), "nodes", "at most 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.store.Push(ctx, agent, "s", tt.nodes)
			var me *Error
			if !errors.As(err, &me) || me.Code != CodeInvalid {
				t.Fatalf("Push() error = %v, want an invalid-input error", err)
			}
			if me.Field != tt.field || !strings.Contains(me.Message, tt.want) {
				t.Errorf("Push() error = %s: %s, want field %s and message containing %q", me.Field, me.Message, tt.field, tt.want)
			}
		})
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes`); n != 0 {
		t.Errorf("%d rows written by refused pushes, want none", n)
	}
	if _, err := e.store.Push(ctx, agent, "Bad Scope", []NewNode{{Content: "a"}}); ErrorCode(err) != CodeInvalid {
		t.Errorf("Push(bad scope) = %v, want invalid", err)
	}
}

func TestPushBatchKeepsOrder(t *testing.T) {
	e := newEnv(t)
	nodes := make([]NewNode, MaxPushBatch)
	for i := range nodes {
		nodes[i] = NewNode{Content: fmt.Sprintf("row %d", i)}
	}
	ids := e.push(t, "bulk", nodes...)
	if len(ids) != MaxPushBatch {
		t.Fatalf("Push() = %d ids, want %d", len(ids), MaxPushBatch)
	}
	for _, i := range []int{0, 1, 500, 999} {
		var content string
		e.pool.QueryRow(context.Background(), `SELECT content FROM memory_nodes WHERE id = $1`, ids[i]).Scan(&content)
		if content != fmt.Sprintf("row %d", i) {
			t.Errorf("ids[%d] holds %q, want row %d", i, content, i)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.push'`); n != 1 {
		t.Errorf("%d audit rows for one batch push, want 1", n)
	}
}

func TestUpgradeDurability(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.push(t, "s", NewNode{Content: "syncing", Durability: "transient",
		Metadata: map[string]any{"source": "slack"}, Properties: map[string]any{"entity": "Roll-up", "note": "keep me"}})[0]
	if err := e.store.UpgradeDurability(ctx, agent, "s", id, "durable"); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	e.pool.QueryRow(ctx, `SELECT properties FROM memory_nodes WHERE id = $1`, id).Scan(&raw)
	var props map[string]any
	json.Unmarshal(raw, &props)
	meta, _ := props["metadata"].(map[string]any)
	if props["durability"] != "durable" || props["entity"] != "Roll-up" || props["note"] != "keep me" || meta["source"] != "slack" {
		t.Errorf("properties after upgrade = %v, want durable with every other property kept", props)
	}
	var before, after string
	if err := e.pool.QueryRow(ctx, `SELECT before->>'durability', after->>'durability' FROM audit_log
		WHERE action = 'node.durability' AND target_id = $1`, fmt.Sprint(id)).Scan(&before, &after); err != nil {
		t.Fatalf("no audit row: %v", err)
	}
	if before != "transient" || after != "durable" {
		t.Errorf("audit = %s -> %s, want transient -> durable", before, after)
	}

	tests := []struct {
		name  string
		scope string
		id    int64
		value string
		code  Code
		want  string
	}{
		{"bad value", "s", id, "permanent", CodeInvalid, "allowed values are durable, transient, expired"},
		{"other scope", "other", id, "expired", CodeNotFound, "not found in scope other"},
		{"missing", "s", id + 1000, "expired", CodeNotFound, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.store.UpgradeDurability(ctx, agent, tt.scope, tt.id, tt.value)
			if ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("UpgradeDurability(%s, %d, %s) = %v, want %s containing %q", tt.scope, tt.id, tt.value, err, tt.code, tt.want)
			}
		})
	}

	e.consolidate(t)
	err := e.store.UpgradeDurability(ctx, agent, "s", id, "expired")
	if ErrorCode(err) != CodeConflict || !strings.Contains(err.Error(), "already promoted") {
		t.Errorf("UpgradeDurability(promoted row) = %v, want a conflict saying it was promoted", err)
	}
}

func TestSetMarkersIsAllOrNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ids := e.push(t, "s", NewNode{Content: "a"}, NewNode{Content: "b"}, NewNode{Content: "c"})
	_, err := e.store.SetMarkers(ctx, Human("rev@example.com"), "", append(ids, 99999), "expired", "cleanup")
	if ErrorCode(err) != CodeNotFound {
		t.Fatalf("SetMarkers with an unknown id = %v, want not found", err)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_nodes WHERE properties ? 'durability'`); n != 0 {
		t.Errorf("%d rows changed by a refused bulk update", n)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.durability'`); n != 0 {
		t.Errorf("%d audit rows written by a refused bulk update", n)
	}
	n, err := e.store.SetMarkers(ctx, Human("rev@example.com"), "", ids[:2], "expired", "cleanup")
	if err != nil || n != 2 {
		t.Fatalf("SetMarkers() = %d, %v", n, err)
	}
	if got := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'node.durability' AND actor = 'user:rev@example.com' AND reason = 'cleanup'`); got != 2 {
		t.Errorf("%d audit rows, want one per row", got)
	}
	// A row pushed without a marker reads as durable, and its audit row says so.
	rows, err := e.pool.Query(ctx, `SELECT target_id, scope, before->>'durability', after->>'durability'
		FROM audit_log WHERE action = 'node.durability' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type audit struct{ target, scope, before, after string }
	var got []audit
	for rows.Next() {
		var a audit
		if err := rows.Scan(&a.target, &a.scope, &a.before, &a.after); err != nil {
			t.Fatal(err)
		}
		got = append(got, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []audit{
		{fmt.Sprint(ids[0]), "s", "(none: reads as durable)", "expired"},
		{fmt.Sprint(ids[1]), "s", "(none: reads as durable)", "expired"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit rows = %+v, want %+v", got, want)
	}
}
