package memory

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestListAuditFilters(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	ann, bot := Human("ann@example.com"), Token("laptop")
	f1 := fx.create(t, ann, NewFact{Scope: "home", Entity: "Ann", Key: "lives_in", Content: "Ann lives in Lyon"})
	fx.advance(time.Hour)
	f2 := fx.create(t, bot, NewFact{Scope: "work", Entity: "Bob", Key: "likes", Content: "Bob likes tea"})
	fx.advance(time.Hour)
	p := fx.policy(t, "durability ephemeral")
	if _, _, err := fx.s.UpdatePolicy(ctx, ann, p.ID, PolicyChanges{Floor: pointerTo(0.2)}, "tighter floor"); err != nil {
		t.Fatal(err)
	}

	ids := func(es []AuditLogEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Action+"/"+e.TargetType+":"+e.TargetID)
		}
		return out
	}
	since := fxStart.Add(30 * time.Minute)
	until := fxStart.Add(90 * time.Minute)
	tests := []struct {
		name   string
		filter AuditFilter
		want   []string
	}{
		{"all, newest first", AuditFilter{}, []string{"policy.update/policy:" + auditID(p.ID),
			"fact.create/fact:" + auditID(f2.ID), "fact.create/fact:" + auditID(f1.ID)}},
		{"bare actor name", AuditFilter{Actor: "ann@example.com"}, []string{"policy.update/policy:" + auditID(p.ID), "fact.create/fact:" + auditID(f1.ID)}},
		{"full actor", AuditFilter{Actor: "token:laptop"}, []string{"fact.create/fact:" + auditID(f2.ID)}},
		{"action family", AuditFilter{Action: "fact"}, []string{"fact.create/fact:" + auditID(f2.ID), "fact.create/fact:" + auditID(f1.ID)}},
		{"exact action", AuditFilter{Action: "policy.update"}, []string{"policy.update/policy:" + auditID(p.ID)}},
		{"no partial word", AuditFilter{Action: "fac"}, nil},
		{"target", AuditFilter{TargetType: "fact", TargetID: auditID(f1.ID)}, []string{"fact.create/fact:" + auditID(f1.ID)}},
		{"scope", AuditFilter{Scope: "work"}, []string{"fact.create/fact:" + auditID(f2.ID)}},
		{"date range", AuditFilter{Since: &since, Until: &until}, []string{"fact.create/fact:" + auditID(f2.ID)}},
		{"page", AuditFilter{Limit: 1, BeforeID: 0}, []string{"policy.update/policy:" + auditID(p.ID)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fx.s.ListAudit(ctx, tt.filter)
			if err != nil {
				t.Fatalf("ListAudit(%+v) error = %v", tt.filter, err)
			}
			if g := ids(got); !slices.Equal(g, tt.want) {
				t.Errorf("ListAudit(%+v) = %v, want %v", tt.filter, g, tt.want)
			}
		})
	}

	t.Run("keyset", func(t *testing.T) {
		first, err := fx.s.ListAudit(ctx, AuditFilter{Limit: 2})
		if err != nil || len(first) != 2 {
			t.Fatalf("first page = %v, %v", ids(first), err)
		}
		rest, err := fx.s.ListAudit(ctx, AuditFilter{Limit: 2, BeforeID: first[1].ID})
		if err != nil || len(rest) != 1 || rest[0].ID >= first[1].ID {
			t.Fatalf("second page = %v, %v; want the one older row", ids(rest), err)
		}
		if rest[0].Reason != "" || first[0].Reason != "tighter floor" || first[0].Before == nil || first[0].After == nil {
			t.Errorf("policy row = %+v, want its reason and before/after", first[0])
		}
	})
}

func TestListAuditRefusesBadFilters(t *testing.T) {
	fx := newFixture(t)
	later := fxStart.Add(time.Hour)
	tests := []struct {
		filter AuditFilter
		field  string
	}{
		{AuditFilter{Action: "Fact Update"}, "action"},
		{AuditFilter{TargetType: "fact;drop"}, "target_type"},
		{AuditFilter{Scope: "Bad Scope"}, "scope"},
		{AuditFilter{Since: &later, Until: &fxStart}, "until"},
		{AuditFilter{Limit: 501}, "limit"},
		{AuditFilter{BeforeID: -1}, "before"},
		{AuditFilter{TargetID: string(make([]byte, 101))}, "target_id"},
	}
	for _, tt := range tests {
		_, err := fx.s.ListAudit(context.Background(), tt.filter)
		e, ok := err.(*Error)
		if !ok || e.Code != CodeInvalid || e.Field != tt.field {
			t.Errorf("ListAudit(%+v) error = %v, want an invalid %s error", tt.filter, err, tt.field)
		}
	}
}

func auditID(n int64) string { return strconv.FormatInt(n, 10) }
