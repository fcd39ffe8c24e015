package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestListRejections(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	acme := e.push(t, "acme",
		NewNode{Content: "build is still running", Durability: "transient"},
		NewNode{Content: "old status", Durability: "expired"},
		NewNode{Content: "We decided to ship on Fridays", Durability: "transient",
			Properties: map[string]any{"category": "decision", "entity": "release", "key": "ship_day"}})
	run1 := e.consolidate(t).ID
	e.clock.Advance(10 * time.Minute)
	globex := e.push(t, "globex", NewNode{Content: "queue is draining", Durability: "expired"})
	run2 := e.consolidate(t).ID

	type entry struct {
		run    int64
		phase  int
		node   int64
		reason string
	}
	key := func(r Rejection) entry {
		return entry{deref(r.RunID), int(deref(r.Phase)), deref(r.NodeID), r.Reason}
	}
	tests := []struct {
		name string
		f    RejectionFilter
		want []entry
	}{
		{"everything newest first", RejectionFilter{}, []entry{
			// A refusal is logged once per row, phase and reason: the second
			// run finds the transient rows of acme logged and skips them.
			{run2, 10, globex[0], "expired"},
			{run1, 12, acme[2], "transient"},
			{run1, 10, acme[2], "transient"},
			{run1, 10, acme[1], "expired"},
			{run1, 10, acme[0], "transient"},
		}},
		{"run", RejectionFilter{RunID: run1}, []entry{
			{run1, 12, acme[2], "transient"}, {run1, 10, acme[2], "transient"},
			{run1, 10, acme[1], "expired"}, {run1, 10, acme[0], "transient"},
		}},
		{"phase", RejectionFilter{Phase: PhaseDecide}, []entry{{run1, 12, acme[2], "transient"}}},
		{"reason", RejectionFilter{Reason: ReasonExpired}, []entry{{run2, 10, globex[0], "expired"}, {run1, 10, acme[1], "expired"}}},
		{"scope", RejectionFilter{Scope: "globex"}, []entry{{run2, 10, globex[0], "expired"}}},
		{"source", RejectionFilter{Source: "api"}, nil},
		{"run, phase and reason", RejectionFilter{RunID: run1, Phase: PhasePromote, Reason: ReasonTransient}, []entry{
			{run1, 10, acme[2], "transient"}, {run1, 10, acme[0], "transient"},
		}},
		{"limit", RejectionFilter{Limit: 1}, []entry{{run2, 10, globex[0], "expired"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.store.ListRejections(ctx, tt.f)
			if err != nil {
				t.Fatalf("ListRejections(%+v) error = %v", tt.f, err)
			}
			var keys []entry
			for _, r := range got {
				keys = append(keys, key(r))
			}
			if fmt.Sprint(keys) != fmt.Sprint(tt.want) {
				t.Errorf("ListRejections(%+v) = %v, want %v", tt.f, keys, tt.want)
			}
		})
	}

	t.Run("snapshot and next page", func(t *testing.T) {
		first, err := e.store.ListRejections(ctx, RejectionFilter{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if first[0].Content != "queue is draining" || first[0].Scope != "globex" || first[0].Source != "consolidation" {
			t.Errorf("first entry = %q in %s from %s, want the snapshot of the globex row", first[0].Content, first[0].Scope, first[0].Source)
		}
		next, err := e.store.ListRejections(ctx, RejectionFilter{Limit: 3, BeforeID: first[2].ID})
		if err != nil || len(next) != 2 || next[0].ID >= first[2].ID {
			t.Errorf("next page = %v, %v; want the 2 older entries", next, err)
		}
	})

	scopes, err := e.store.RejectionScopes(ctx)
	if err != nil || strings.Join(scopes, ",") != "acme,globex" {
		t.Errorf("RejectionScopes() = %v, %v; want acme, globex", scopes, err)
	}
}

func TestListRejectionsRefusesBadFilters(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		f     RejectionFilter
		field string
		want  string
	}{
		{RejectionFilter{Phase: 7}, "phase", "8 to 12"},
		{RejectionFilter{Phase: 13}, "phase", "12 (decide)"},
		{RejectionFilter{Reason: "stale"}, "reason", "allowed values are transient, expired, decision_locked"},
		{RejectionFilter{Source: "cron"}, "source", "consolidation, api, extraction, mcp, import"},
		{RejectionFilter{Scope: "Not A Scope"}, "scope", "invalid scope"},
		{RejectionFilter{RunID: -2}, "run", "positive run id"},
		{RejectionFilter{BeforeID: -1}, "before", "positive"},
		{RejectionFilter{Limit: 1000}, "limit", "between 1 and 500"},
	}
	for _, tt := range tests {
		_, err := e.store.ListRejections(context.Background(), tt.f)
		var me *Error
		if !errors.As(err, &me) || me.Code != CodeInvalid || me.Field != tt.field || !strings.Contains(me.Message, tt.want) {
			t.Errorf("ListRejections(%+v) error = %v, want invalid %s mentioning %q", tt.f, err, tt.field, tt.want)
		}
	}
}

func TestParsePhase(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"8", 8, true}, {"12", 12, true}, {" 10 ", 10, true}, {"promote", 10, true}, {"Cleanup", 8, true},
		{"7", 0, false}, {"13", 0, false}, {"", 0, false}, {"gate", 0, false},
	}
	for _, tt := range tests {
		got, err := ParsePhase(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParsePhase(%q) = %d, %v; want %d, ok %t", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "8 (cleanup), 9 (decay), 10 (promote), 11 (merge), 12 (decide)") {
			t.Errorf("ParsePhase(%q) error = %v, want it to name the allowed phases", tt.in, err)
		}
	}
}
