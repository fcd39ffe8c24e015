package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRecordDecision(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{
		Scope: "acme", Entity: "Acme Robotics", Key: "database", Decision: " Use PostgreSQL. ",
		Alternatives: []string{"MySQL", " ", "SQLite "}, Reasoning: "We know it; it has advisory locks.",
	})
	if err != nil {
		t.Fatalf("RecordDecision() error = %v", err)
	}
	if d.Decision != "Use PostgreSQL." || !slices.Equal(d.Alternatives, []string{"MySQL", "SQLite"}) || !d.DoNotReopen ||
		d.DecidedBy != "ann@example.com" || !d.DecidedAt.Equal(fxStart) || d.Entity != "Acme Robotics" || d.Version != 1 {
		t.Errorf("RecordDecision() = %+v, want trimmed text and alternatives, locked, decided by the reviewer now", d)
	}
	f := fx.get(t, d.FactID)
	if f.Category != CategoryDecision || f.Durability != Permanent || f.Confidence != 1 || f.ForgetAt != nil ||
		f.Content != d.Decision || f.Key != "database" || f.Source != SourceHuman {
		t.Errorf("decision fact = %+v, want a permanent decision at confidence 1 that never decays", f)
	}
	got, err := fx.s.GetDecision(ctx, d.ID)
	if err != nil || got.Reasoning != d.Reasoning || got.FactID != d.FactID {
		t.Errorf("GetDecision(%d) = %+v, %v", d.ID, got, err)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE (target_type, target_id, action) IN
		(('decision', $1::bigint::text, 'decision.create'), ('fact', $2::bigint::text, 'fact.create'))`, d.ID, d.FactID); n != 2 {
		t.Errorf("audit rows = %d, want decision.create and fact.create", n)
	}

	t.Run("by an agent, unlocked", func(t *testing.T) {
		decided := fxStart.Add(-24 * time.Hour)
		d, err := fx.s.RecordDecision(ctx, bot, NewDecision{Scope: "acme", Entity: "Acme Robotics", Key: "queue",
			Decision: "Use river.", Reasoning: "Transactional enqueueing.", DecidedBy: "the team", DecidedAt: decided,
			DoNotReopen: pointerTo(false)})
		if err != nil || d.DoNotReopen || d.DecidedBy != "the team" || !d.DecidedAt.Equal(decided) || fx.get(t, d.FactID).Source != SourceAPI {
			t.Errorf("RecordDecision(agent) = %+v, %v", d, err)
		}
	})

	t.Run("validation", func(t *testing.T) {
		base := func(mod func(*NewDecision)) NewDecision {
			in := NewDecision{Scope: "acme", Entity: "Acme", Key: "k", Decision: "D.", Reasoning: "R."}
			mod(&in)
			return in
		}
		future := fxStart.Add(time.Hour)
		many := make([]string, 21)
		for i := range many {
			many[i] = fmt.Sprint("option ", i)
		}
		cases := []struct {
			name  string
			in    NewDecision
			field string
			parts []string
		}{
			{"no key", base(func(in *NewDecision) { in.Key = "" }), "key", []string{"a decision needs a key"}},
			{"bad key", base(func(in *NewDecision) { in.Key = "Data Base" }), "key", []string{`"Data Base"`}},
			{"no decision", base(func(in *NewDecision) { in.Decision = " " }), "decision", []string{"decision is empty"}},
			{"no reasoning", base(func(in *NewDecision) { in.Reasoning = "" }), "reasoning", []string{"reasoning is empty", "why it was made"}},
			{"future", base(func(in *NewDecision) { in.DecidedAt = future }), "decided_at", []string{"in the future"}},
			{"alternatives", base(func(in *NewDecision) { in.Alternatives = many }), "alternatives", []string{"21 alternatives", "at most 20"}},
			{"scope", base(func(in *NewDecision) { in.Scope = "" }), "scope", []string{"invalid scope"}},
		}
		for _, c := range cases {
			_, err := fx.s.RecordDecision(ctx, reviewer, c.in)
			e := wantError(t, "RecordDecision("+c.name+")", err, CodeInvalid, c.parts...)
			if e.Field != c.field {
				t.Errorf("RecordDecision(%s) field = %q, want %q", c.name, e.Field, c.field)
			}
		}
	})

	t.Run("a locked decision already settles it", func(t *testing.T) {
		facts := fx.count(t, `SELECT count(*) FROM entity_facts`)
		_, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "acme", Entity: "Acme Robotics", Key: "database",
			Decision: "Use MySQL.", Reasoning: "Cheaper hosting."})
		wantError(t, "RecordDecision(reviewer, locked)", err, CodeConflict, fmt.Sprintf("decision %d already settles", d.ID), "reopen it first")
		_, err = fx.s.RecordDecision(ctx, bot, NewDecision{Scope: "acme", Entity: "Acme Robotics", Key: "database",
			Decision: "Use MySQL.", Reasoning: "Cheaper hosting."})
		wantLocked(t, "RecordDecision(agent, locked)", err, d)
		var content, source string
		if err := fx.pool.QueryRow(ctx, `SELECT content, source FROM consolidation_rejections WHERE decision_id = $1`, d.ID).Scan(&content, &source); err != nil || content != "Use MySQL." || source != "api" {
			t.Errorf("rejection = %q from %q, %v; want the refused decision from api", content, source, err)
		}
		if n := fx.count(t, `SELECT count(*) FROM entity_facts`); n != facts {
			t.Errorf("facts = %d, want %d", n, facts)
		}
	})
}

func TestReopenAndRelock(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	write := func() error {
		_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy", Content: "RMAs need photos."})
		return err
	}
	wantLocked(t, "CreateFact(before reopening)", write(), d)

	_, err := fx.s.ReopenDecision(ctx, bot, d.ID, "customers complain")
	wantError(t, "ReopenDecision(agent)", err, CodeForbidden, "only a reviewer can reopen a decision")
	_, err = fx.s.ReopenDecision(ctx, reviewer, d.ID, "  ")
	e := wantError(t, "ReopenDecision(no reason)", err, CodeInvalid, "a reason is required to reopen a decision")
	if e.Field != "reason" {
		t.Errorf("ReopenDecision(no reason) field = %q, want reason", e.Field)
	}
	_, err = fx.s.ReopenDecision(ctx, reviewer, 999999, "why not")
	wantError(t, "ReopenDecision(999999)", err, CodeNotFound, "no decision with id 999999")
	if got, _ := fx.s.GetDecision(ctx, d.ID); !got.DoNotReopen || got.Version != 1 {
		t.Fatalf("decision after refusals = locked %t v%d, want locked v1", got.DoNotReopen, got.Version)
	}

	fx.advance(time.Hour)
	open, err := fx.s.ReopenDecision(ctx, reviewer, d.ID, "customers complain about slow RMAs")
	if err != nil {
		t.Fatalf("ReopenDecision() error = %v", err)
	}
	if open.DoNotReopen || open.ReopenedAt == nil || !open.ReopenedAt.Equal(fx.clock()) || open.ReopenedBy != "ann@example.com" ||
		open.ReopenReason != "customers complain about slow RMAs" || open.Version != 2 {
		t.Errorf("ReopenDecision() = %+v, want open, reopened now by the reviewer with the reason", open)
	}
	if lock, err := fx.s.LockFor(ctx, "acme", d.EntityID, "rma_policy"); err != nil || lock != nil {
		t.Errorf("LockFor(after reopening) = %v, %v; want none", lock, err)
	}
	if err := write(); err != nil {
		t.Errorf("CreateFact(after reopening) = %v, want it written", err)
	}
	_, err = fx.s.ReopenDecision(ctx, reviewer, d.ID, "again")
	wantError(t, "ReopenDecision(open)", err, CodeConflict, "already open")

	_, err = fx.s.RelockDecision(ctx, bot, d.ID, "")
	wantError(t, "RelockDecision(agent)", err, CodeForbidden, "only a reviewer")
	locked, err := fx.s.RelockDecision(ctx, reviewer, d.ID, "photos stay optional")
	if err != nil || !locked.DoNotReopen || locked.Version != 3 || locked.ReopenReason == "" {
		t.Fatalf("RelockDecision() = %+v, %v; want locked v3 keeping the last reopening as history", locked, err)
	}
	wantLocked(t, "CreateFact(after relocking)", write(), locked)
	_, err = fx.s.RelockDecision(ctx, reviewer, d.ID, "")
	wantError(t, "RelockDecision(locked)", err, CodeConflict, "already locked")

	hist, err := fx.s.DecisionHistory(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, h := range hist {
		actions = append(actions, h.Action)
	}
	if strings.Join(actions, " ") != "decision.relock decision.reopen decision.create" || hist[1].Reason != "customers complain about slow RMAs" {
		t.Errorf("DecisionHistory() = %v (reopen reason %q), want relock, reopen with its reason, create", actions, hist[1].Reason)
	}
	if n := fx.count(t, `SELECT count(*) FROM consolidation_rejections WHERE decision_id = $1`, d.ID); n != 2 {
		t.Errorf("rejections = %d, want 2 (before reopening and after relocking)", n)
	}
}

func TestRecordDecisionSupersedesReopened(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	old := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	if _, err := fx.s.ReopenDecision(ctx, reviewer, old.ID, "revisit"); err != nil {
		t.Fatal(err)
	}
	next, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy",
		Decision: "Photos are required for RMAs over 500 EUR.", Reasoning: "Fraud on expensive units."})
	if err != nil {
		t.Fatalf("RecordDecision(after reopening) error = %v", err)
	}
	oldFact := fx.get(t, old.FactID)
	if oldFact.Status != StatusArchived || oldFact.ArchiveReason != fmt.Sprintf("superseded by decision %d", next.ID) {
		t.Errorf("old decision's fact = %s (%q), want archived, superseded by decision %d", oldFact.Status, oldFact.ArchiveReason, next.ID)
	}
	if fx.get(t, next.FactID).Status != StatusActive {
		t.Error("new decision's fact is not active")
	}
	_, err = fx.s.RelockDecision(ctx, reviewer, old.ID, "")
	wantError(t, "RelockDecision(superseded)", err, CodeConflict, fmt.Sprintf("decision %d now settles", next.ID))
	if lock, err := fx.s.LockFor(ctx, "acme", next.EntityID, "rma_policy"); err != nil || lock == nil || lock.ID != next.ID {
		t.Errorf("LockFor() = %v, %v; want decision %d", lock, err, next.ID)
	}
}

func TestEditDecision(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	fx.advance(time.Hour)
	got, err := fx.s.EditDecision(ctx, reviewer, d.ID, 1, DecisionChanges{
		Decision: pointerTo("Cracked housings are replaced on sight."), Reasoning: pointerTo("Photos delayed RMAs by a week; customers left."),
		Alternatives: &[]string{"require photos", "video call"},
	}, "clearer wording")
	if err != nil {
		t.Fatalf("EditDecision() error = %v", err)
	}
	if got.Decision != "Cracked housings are replaced on sight." || got.Version != 2 || len(got.Alternatives) != 2 || !got.DoNotReopen {
		t.Errorf("EditDecision() = %+v, want the edit at version 2, still locked", got)
	}
	f := fx.get(t, d.FactID)
	if f.Content != got.Decision || f.Version != 2 {
		t.Errorf("decision's fact = %q v%d, want the new text at v2", f.Content, f.Version)
	}
	hist, _ := fx.s.DecisionHistory(ctx, d.ID)
	var before, after map[string]any
	_ = json.Unmarshal(hist[0].Before, &before)
	_ = json.Unmarshal(hist[0].After, &after)
	if hist[0].Action != "decision.update" || hist[0].Reason != "clearer wording" || before["decision"] != d.Decision ||
		after["reasoning"] != "Photos delayed RMAs by a week; customers left." || before["decided_by"] != nil {
		t.Errorf("edit audit = %s %q before %v after %v, want the changed fields", hist[0].Action, hist[0].Reason, before, after)
	}
	if fh, _ := fx.s.FactHistory(ctx, d.FactID); len(fh) != 2 || fh[0].Action != "fact.update" {
		t.Errorf("FactHistory(decision's fact) = %+v, want the synced content audited", fh)
	}

	t.Run("stale version", func(t *testing.T) {
		_, err := fx.s.EditDecision(ctx, reviewer, d.ID, 1, DecisionChanges{Reasoning: pointerTo("Other.")}, "")
		var c *Error
		if !errors.As(err, &c) || c.CurrentDecision == nil || c.CurrentDecision.Version != 2 || c.CurrentDecision.Decision != got.Decision {
			t.Fatalf("EditDecision(version 1) = %v, want a conflict carrying the decision at version 2", err)
		}
		wantError(t, "EditDecision(version 1)", err, CodeConflict, "changed by someone else", "now version 2")
		if now, _ := fx.s.GetDecision(ctx, d.ID); now.Reasoning != got.Reasoning || now.Version != 2 {
			t.Errorf("after a conflict decision = %q v%d, want unchanged", now.Reasoning, now.Version)
		}
	})

	t.Run("agents", func(t *testing.T) {
		_, err := fx.s.EditDecision(ctx, bot, d.ID, 2, DecisionChanges{Decision: pointerTo("Require photos.")}, "")
		wantLocked(t, "EditDecision(agent, locked)", err, got)
		if n := fx.count(t, `SELECT count(*) FROM consolidation_rejections WHERE decision_id = $1 AND content = 'Require photos.'`, d.ID); n != 1 {
			t.Errorf("rejections = %d, want 1", n)
		}
		if _, err := fx.s.ReopenDecision(ctx, reviewer, d.ID, "revisit"); err != nil {
			t.Fatal(err)
		}
		_, err = fx.s.EditDecision(ctx, bot, d.ID, 3, DecisionChanges{Decision: pointerTo("Require photos.")}, "")
		wantError(t, "EditDecision(agent, open)", err, CodeForbidden, "only a reviewer can edit a decision")
	})

	t.Run("validation", func(t *testing.T) {
		editErr := func(ch DecisionChanges) error {
			_, err := fx.s.EditDecision(ctx, reviewer, d.ID, 3, ch, "")
			return err
		}
		_, err := fx.s.EditDecision(ctx, reviewer, d.ID, 3, DecisionChanges{Reasoning: pointerTo(" ")}, "")
		wantError(t, "EditDecision(empty reasoning)", err, CodeInvalid, "reasoning is empty")
		_, err = fx.s.EditDecision(ctx, reviewer, 999999, 1, DecisionChanges{Reasoning: pointerTo("x")}, "")
		wantError(t, "EditDecision(999999)", err, CodeNotFound, "no decision with id 999999")
		e := wantError(t, "EditDecision(zero decided_at)", editErr(DecisionChanges{DecidedAt: &time.Time{}}),
			CodeInvalid, "decided_at is not a valid time")
		if e.Field != "decided_at" {
			t.Errorf("EditDecision(zero decided_at) field = %q, want decided_at", e.Field)
		}
		wantError(t, "EditDecision(future decided_at)", editErr(DecisionChanges{DecidedAt: pointerTo(fx.clock().Add(time.Hour))}),
			CodeInvalid, "is in the future", "record a decision once it is made")
		wantError(t, "EditDecision(long decided_by)", editErr(DecisionChanges{DecidedBy: pointerTo(strings.Repeat("x", 201))}),
			CodeInvalid, "decided_by is 201 characters long", "at most 200")
		wantError(t, "EditDecision(long alternative)", editErr(DecisionChanges{Alternatives: &[]string{"ok", strings.Repeat("x", 1001)}}),
			CodeInvalid, "alternative 2 is 1001 characters long", "at most 1000")
		if now, _ := fx.s.GetDecision(ctx, d.ID); now.Version != 3 {
			t.Errorf("after refused edits decision is v%d, want v3", now.Version)
		}
	})
}

func TestListDecisions(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	var ids []int64
	for i, spec := range []struct{ scope, entity, key, decision string }{
		{"acme", "Acme Robotics", "database", "Use PostgreSQL."},
		{"acme", "Acme Robotics", "queue", "Use river for 50% of jobs."},
		{"acme", "Billing", "currency", "Invoice in EUR."},
		{"home", "Mia", "school", "Mia goes to the village school."},
	} {
		d, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: spec.scope, Entity: spec.entity, Key: spec.key,
			Decision: spec.decision, Reasoning: fmt.Sprint("reason ", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	if _, err := fx.s.ReopenDecision(ctx, reviewer, ids[2], "currency review"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		f    DecisionFilter
		want []int64
	}{
		{"all", DecisionFilter{}, []int64{ids[3], ids[2], ids[1], ids[0]}},
		{"scope", DecisionFilter{Scope: "acme"}, []int64{ids[2], ids[1], ids[0]}},
		{"entity", DecisionFilter{Scope: "acme", Entity: "Acme Robotics"}, []int64{ids[1], ids[0]}},
		{"locked", DecisionFilter{Locked: pointerTo(true)}, []int64{ids[3], ids[1], ids[0]}},
		{"open", DecisionFilter{Locked: pointerTo(false)}, []int64{ids[2]}},
		{"query", DecisionFilter{Query: "postgres"}, []int64{ids[0]}},
		{"query reasoning", DecisionFilter{Query: "REASON 3"}, []int64{ids[3]}},
		{"query wildcard is literal", DecisionFilter{Query: "50%"}, []int64{ids[1]}},
		{"query underscore is literal", DecisionFilter{Query: "U_e"}, nil},
		{"page 1", DecisionFilter{Limit: 2}, []int64{ids[3], ids[2]}},
		{"page 2", DecisionFilter{Limit: 2, BeforeID: ids[2]}, []int64{ids[1], ids[0]}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := fx.s.ListDecisions(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			var gotIDs []int64
			for _, d := range got {
				gotIDs = append(gotIDs, d.ID)
			}
			if !slices.Equal(gotIDs, c.want) {
				t.Errorf("ListDecisions(%+v) = %v, want %v", c.f, gotIDs, c.want)
			}
		})
	}
	_, err := fx.s.ListDecisions(ctx, DecisionFilter{Limit: 501})
	wantError(t, "ListDecisions(limit 501)", err, CodeInvalid, "between 1 and 500")
	_, err = fx.s.ListDecisions(ctx, DecisionFilter{Scope: "Bad Scope"})
	wantError(t, "ListDecisions(bad scope)", err, CodeInvalid, "invalid scope")
	_, err = fx.s.ListDecisions(ctx, DecisionFilter{Limit: -1})
	wantError(t, "ListDecisions(limit -1)", err, CodeInvalid, "limit -1 is out of range", "between 1 and 500")
	_, err = fx.s.ListDecisions(ctx, DecisionFilter{BeforeID: -1})
	wantError(t, "ListDecisions(before -1)", err, CodeInvalid, "invalid page cursor -1", "positive decision id")
	_, err = fx.s.ListDecisions(ctx, DecisionFilter{Query: strings.Repeat("é", 201)})
	wantError(t, "ListDecisions(long query)", err, CodeInvalid, "the text search is 201 characters long", "at most 200")
}

func TestRefusedWritesAndLockFor(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	for i, actor := range []Actor{bot, System("extraction"), System("import")} {
		fx.advance(time.Minute)
		_, _, err := fx.s.CreateFact(ctx, actor, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy", Content: fmt.Sprint("attempt ", i)})
		wantLocked(t, "CreateFact()", err, d)
	}
	got, err := fx.s.RefusedWrites(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, r := range got {
		summary = append(summary, r.Source+":"+r.Content)
		if r.Reason != "decision_locked" || r.RunID != nil || r.Phase != nil || r.DecisionID == nil || *r.DecisionID != d.ID {
			t.Errorf("RefusedWrites() row = %+v, want a run-less decision_locked row for decision %d", r, d.ID)
		}
		var props map[string]any
		if err := json.Unmarshal(r.Properties, &props); err != nil || props["key"] != "rma_policy" || props["actor"] == nil {
			t.Errorf("rejection properties = %s, want key and actor", r.Properties)
		}
	}
	if want := "import:attempt 2 extraction:attempt 1 api:attempt 0"; strings.Join(summary, " ") != want {
		t.Errorf("RefusedWrites() = %v, want newest first %q", summary, want)
	}
	_, err = fx.s.RefusedWrites(ctx, 999999)
	wantError(t, "RefusedWrites(999999)", err, CodeNotFound, "no decision with id 999999")

	for _, c := range []struct {
		scope, key string
		entity     int64
		want       bool
	}{
		{"acme", "rma_policy", d.EntityID, true},
		{"acme", "", d.EntityID, false},
		{"acme", "shipping", d.EntityID, false},
		{"other", "rma_policy", d.EntityID, false},
	} {
		lock, err := fx.s.LockFor(ctx, c.scope, c.entity, c.key)
		if err != nil || (lock != nil) != c.want || lock != nil && (lock.ID != d.ID || lock.Reasoning != d.Reasoning) {
			t.Errorf("LockFor(%s, %d, %q) = %v, %v; want lock %t", c.scope, c.entity, c.key, lock, err, c.want)
		}
	}
}
