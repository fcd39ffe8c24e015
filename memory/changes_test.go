package memory

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// renewals pushes one contract-renewal state for each of n customers of
// scope, then, an hour later, a line about the dashboard on the same key of
// each: consolidation supersedes every renewal with it.
func (e *env) renewals(t *testing.T, scope string, n int) (first, second Run) {
	t.Helper()
	nodes := make([]NewNode, n)
	for i := range nodes {
		nodes[i] = NewNode{Content: fmt.Sprintf("Customer %d renews the contract in March.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "contract_renewal", "category": "state"}}
	}
	e.push(t, scope, nodes...)
	first = e.consolidate(t)
	e.clock.Advance(time.Hour)
	for i := range nodes {
		nodes[i] = NewNode{Content: fmt.Sprintf("The dashboard is slow today for customer %d.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "contract_renewal", "category": "state"}}
	}
	e.push(t, scope, nodes...)
	second = e.consolidate(t)
	if got := second.Count(PhasePromote, "superseded"); got != n {
		t.Fatalf("second run superseded %d, want %d (report %v)", got, n, second.Report)
	}
	return first, second
}

func (e *env) changes(t *testing.T, f ChangeFilter) []Change {
	t.Helper()
	out, err := e.store.ListChanges(context.Background(), f)
	if err != nil {
		t.Fatalf("ListChanges(%+v) = %v", f, err)
	}
	return out
}

// TestRunChangesListedAndUndone: a run's supersessions and decisions are
// listed as that run's, old and new side by side; undoing a supersession
// restores the old fact and archives the new one, audited by the reviewer,
// and the change then says it was restored since; a second undo is a
// conflict; a locked decision recorded by the run is reopened.
func TestRunChangesListedAndUndone(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	first, second := e.renewals(t, "crm", 3)
	e.clock.Advance(time.Hour)
	e.push(t, "other", NewNode{Content: "Ops prefers dark mode.",
		Properties: map[string]any{"entity": "Ops", "key": "theme", "category": "preference"}})
	e.push(t, "crm", NewNode{Content: "We bill customers yearly, not monthly.",
		Properties: map[string]any{"entity": "Billing", "key": "billing_cycle", "category": "decision",
			"alternatives": []any{"monthly"}, "reasoning": "Yearly invoices cut churn.", "decided_by": "Finance"}})
	third := e.consolidate(t)

	if got := e.changes(t, ChangeFilter{RunID: first.ID}); len(got) != 0 {
		t.Errorf("first run's changes = %+v, want none (it only promoted)", got)
	}
	got := e.changes(t, ChangeFilter{RunID: second.ID})
	if len(got) != 3 {
		t.Fatalf("second run's changes = %d, want its 3 supersessions: %+v", len(got), got)
	}
	for _, c := range got {
		if c.Kind != WhatSuperseded || c.How != "superseded" || c.RunID != second.ID || c.Scope != "crm" ||
			c.Key != "contract_renewal" || c.Status != StatusArchived || c.Other == nil ||
			c.Other.Status != StatusActive || c.Undo != UndoRestore || c.Actor != "system:consolidation" {
			t.Errorf("change = %+v, want a supersession of run %d, undoable", c, second.ID)
		}
		if c.Other != nil && (c.Content == "" || c.Other.Content == "" || c.Content == c.Other.Content) {
			t.Errorf("change shows %q replaced by %q, want both texts", c.Content, c.Other.Content)
		}
	}
	decisions := e.changes(t, ChangeFilter{RunID: third.ID, Kind: WhatDecision})
	if len(decisions) != 1 || decisions[0].DecisionID == 0 || decisions[0].DecisionState != StateLocked ||
		decisions[0].Undo != UndoReopen || decisions[0].Scope != "crm" || decisions[0].Entity != "Billing" {
		t.Fatalf("third run's decisions = %+v, want the locked billing decision", decisions)
	}
	if other := e.changes(t, ChangeFilter{Scope: "other"}); len(other) != 0 {
		t.Errorf("scope other's changes = %+v, want none", other)
	}
	if n := len(e.changes(t, ChangeFilter{Scope: "crm", Kind: WhatSuperseded})); n != 3 {
		t.Errorf("crm's supersessions = %d, want 3", n)
	}
	// A time range: the second run's changes are at its time.
	from, to := start.Add(30*time.Minute), start.Add(90*time.Minute)
	if n := len(e.changes(t, ChangeFilter{Since: &from, Until: &to})); n != 3 {
		t.Errorf("changes between %s and %s = %d, want 3", from, to, n)
	}
	if _, err := e.store.ListChanges(ctx, ChangeFilter{Since: &to, Until: &from}); ErrorCode(err) != CodeInvalid {
		t.Errorf("an empty range = %v, want invalid", err)
	}

	// Undo one supersession.
	c := got[0]
	if _, err := e.store.UndoChange(ctx, agent, WhatSuperseded, c.FactID, c.At, ""); ErrorCode(err) != CodeForbidden {
		t.Errorf("an agent's undo = %v, want forbidden", err)
	}
	done, err := e.store.UndoChange(ctx, reviewer, WhatSuperseded, c.FactID, c.At, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(done.Restored, []int64{c.FactID}) || !slices.Equal(done.Archived, []int64{c.Other.ID}) {
		t.Errorf("undo = %+v, want fact %d restored and %d archived", done, c.FactID, c.Other.ID)
	}
	if e.status(t, c.FactID) != "active" || e.status(t, c.Other.ID) != "archived" {
		t.Errorf("after the undo: old %s, new %s; want active and archived", e.status(t, c.FactID), e.status(t, c.Other.ID))
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE actor = $1 AND action = 'fact.restore' AND target_id = $2
		AND reason LIKE 'undone in What changed:%'`, reviewer.String(), fmt.Sprint(c.FactID)); n != 1 {
		t.Errorf("restore audit rows = %d, want 1", n)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE actor = $1 AND action = 'fact.archive' AND target_id = $2
		AND after->>'archive_reason' = $3`, reviewer.String(), fmt.Sprint(c.Other.ID),
		fmt.Sprintf("supersession of fact %d undone by %s", c.FactID, reviewer)); n != 1 {
		t.Errorf("archive audit rows of the newer fact = %d, want 1", n)
	}
	after := e.changes(t, ChangeFilter{RunID: second.ID})
	for _, a := range after {
		if a.FactID == c.FactID && (a.Undo != "" || a.Since != "restored since") {
			t.Errorf("undone change = %+v, want no undo and 'restored since'", a)
		}
	}
	// The undo is itself listed: the restore (undoable by archiving again)
	// and the newer fact archived.
	latest := e.changes(t, ChangeFilter{Limit: 2})
	if len(latest) != 2 || latest[0].How != "archived" || latest[0].FactID != c.Other.ID ||
		latest[1].How != "restored" || latest[1].FactID != c.FactID || latest[1].Undo != UndoArchive {
		t.Errorf("latest changes = %+v, want the archive of %d and the restore of %d", latest, c.Other.ID, c.FactID)
	}
	if _, err := e.store.UndoChange(ctx, reviewer, WhatSuperseded, c.FactID, c.At, ""); ErrorCode(err) != CodeConflict {
		t.Errorf("a second undo = %v, want a conflict", err)
	}

	// The decision is reopened.
	if done, err := e.store.UndoChange(ctx, reviewer, WhatDecision, decisions[0].DecisionID, decisions[0].At, ""); err != nil || done.Reopened != decisions[0].DecisionID {
		t.Errorf("undo decision = %+v, %v", done, err)
	}
	if d := e.changes(t, ChangeFilter{RunID: third.ID, Kind: WhatDecision}); len(d) != 1 || d[0].DecisionState != StateReopened || d[0].Undo != "" {
		t.Errorf("reopened decision's change = %+v", d)
	}

	// A restore is undone by archiving again.
	if done, err := e.store.UndoChange(ctx, reviewer, WhatRestored, c.FactID, latest[1].At, ""); err != nil || !slices.Equal(done.Archived, []int64{c.FactID}) {
		t.Errorf("undo restore = %+v, %v", done, err)
	}
	// And an archive by restoring.
	archived := e.changes(t, ChangeFilter{Limit: 1})
	if len(archived) != 1 || archived[0].FactID != c.FactID || archived[0].Kind != WhatArchived {
		t.Fatalf("newest change = %+v, want the archive of fact %d", archived, c.FactID)
	}
	if done, err := e.store.UndoChange(ctx, reviewer, WhatArchived, c.FactID, archived[0].At, "wanted after all"); err != nil || !slices.Equal(done.Restored, []int64{c.FactID}) {
		t.Errorf("undo archive = %+v, %v", done, err)
	}
}

// TestManySupersessionsPageThroughOneAuditRow: a run that supersedes more
// than 20 facts audits them in one row; they are listed one by one, with
// their run and scope, and pages of the list go through the row without
// repeating or skipping one.
func TestManySupersessionsPageThroughOneAuditRow(t *testing.T) {
	e := newEnv(t)
	_, second := e.renewals(t, "crm", 25)
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.supersede' AND target_type = 'facts'
		AND (after->>'run_id')::bigint = $1 AND scope = 'crm'`, second.ID); n != 1 {
		t.Fatalf("batched supersession rows of the run = %d, want 1", n)
	}
	all := e.changes(t, ChangeFilter{RunID: second.ID, Scope: "crm", Kind: WhatSuperseded})
	if len(all) != 25 {
		t.Fatalf("changes = %d, want 25", len(all))
	}
	var paged []int64
	var cur *ChangeCursor
	for pages := 0; pages < 5; pages++ {
		page := e.changes(t, ChangeFilter{RunID: second.ID, Limit: 10, Before: cur})
		for _, c := range page {
			paged = append(paged, c.FactID)
			if c.Other == nil || c.Other.Status != StatusActive || c.Undo != UndoRestore {
				t.Errorf("change %+v, want its superseding fact", c)
			}
		}
		if len(page) < 10 {
			break
		}
		cur = &page[len(page)-1].Cursor
		if back, err := ParseChangeCursor(cur.String()); err != nil || back != *cur {
			t.Errorf("cursor %v reads back as %v, %v", cur, back, err)
		}
	}
	want := make([]int64, len(all))
	for i, c := range all {
		want[i] = c.FactID
	}
	if !slices.Equal(paged, want) {
		t.Errorf("paged = %v, want %v", paged, want)
	}
}

// TestMergeListedAndUndone: a duplicate merged by a run is listed with the
// fact it was merged into; undoing it restores it and gives back its
// sightings, audited.
func TestMergeListedAndUndone(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	props := map[string]any{"entity": "Edmund", "key": "visited_city", "category": "observation"}
	e.push(t, "pa", NewNode{Content: "Edmund visited Austin.", Properties: props})
	e.consolidate(t)
	// A copy written beside consolidation, merged when a row repeats it.
	if _, err := e.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, key, content, durability,
		category, confidence, confirmed_at) SELECT scope, entity_id, key, content, durability, category, confidence, confirmed_at
		FROM entity_facts`); err != nil {
		t.Fatal(err)
	}
	e.push(t, "pa", NewNode{Content: "Edmund visited Austin.", Properties: props})
	run := e.consolidate(t)
	got := e.changes(t, ChangeFilter{RunID: run.ID, Kind: WhatMerged})
	if len(got) != 1 || got[0].How != "merged" || got[0].Other == nil || got[0].Undo != UndoRestore {
		t.Fatalf("run's merges = %+v, want one undoable merge", got)
	}
	c := got[0]
	before := e.count(t, `SELECT extraction_count FROM entity_facts WHERE id = $1`, c.Other.ID)
	taken := e.count(t, `SELECT extraction_count FROM entity_facts WHERE id = $1`, c.FactID)
	if _, err := e.store.UndoChange(ctx, reviewer, WhatSuperseded, c.FactID, c.At, ""); ErrorCode(err) != CodeConflict {
		t.Errorf("undoing a merge as a supersession = %v, want a conflict", err)
	}
	done, err := e.store.UndoChange(ctx, reviewer, WhatMerged, c.FactID, c.At, "")
	if err != nil || done.Unmerged != c.Other.ID || !slices.Equal(done.Restored, []int64{c.FactID}) {
		t.Fatalf("undo merge = %+v, %v", done, err)
	}
	if e.status(t, c.FactID) != "active" || e.status(t, c.Other.ID) != "active" {
		t.Error("want both facts active after the undo")
	}
	if n := e.count(t, `SELECT extraction_count FROM entity_facts WHERE id = $1`, c.Other.ID); n != max(1, before-taken) {
		t.Errorf("survivor's extraction count = %d, want %d", n, max(1, before-taken))
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.unmerge' AND target_id = $1 AND actor = $2`,
		fmt.Sprint(c.Other.ID), reviewer.String()); n != 1 {
		t.Errorf("unmerge audit rows = %d, want 1", n)
	}
}

// TestForgettingSoonIsCounted: the count is every active fact due within
// the window up to the bound asked for, and says when there are more.
func TestForgettingSoonIsCounted(t *testing.T) {
	e := newEnv(t)
	for range 12 {
		e.insertFact(t, "ephemeral", "mood", 0.5, nil)
	}
	e.insertFact(t, "permanent", "identity", 0.9, nil)
	week := start.Add(7 * 24 * time.Hour)
	for _, tt := range []struct {
		most     int64
		want     int64
		wantMore bool
	}{{100, 12, false}, {12, 12, false}, {11, 11, true}, {5, 5, true}} {
		n, more, err := e.store.CountForgettingSoon(context.Background(), week, tt.most)
		if err != nil || n != tt.want || more != tt.wantMore {
			t.Errorf("CountForgettingSoon(most %d) = %d, more %t, %v; want %d, more %t", tt.most, n, more, err, tt.want, tt.wantMore)
		}
	}
}

// TestUndoRefusesAChangeOvertaken: a fact archived by hand, restored and
// archived again is the last archive's to undo: the first archive's row no
// longer offers an undo ("changed since"), and an undo sent with its time
// (a page read before the later changes) is refused, changing nothing.
func TestUndoRefusesAChangeOvertaken(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.insertFact(t, "long_term", "preference", 0.9, nil)
	archive := func(reason string) Change {
		t.Helper()
		e.clock.Advance(time.Minute)
		if _, err := e.store.ArchiveFacts(ctx, reviewer, []int64{id}, reason); err != nil {
			t.Fatal(err)
		}
		return e.changes(t, ChangeFilter{Limit: 1})[0]
	}
	first := archive("not needed")
	e.clock.Advance(time.Minute)
	if _, err := e.store.RestoreFacts(ctx, reviewer, []int64{id}, "needed after all"); err != nil {
		t.Fatal(err)
	}
	last := archive("not needed, really")

	var old *Change
	for _, c := range e.changes(t, ChangeFilter{}) {
		if c.FactID == id && c.At.Equal(first.At) && c.Kind == WhatArchived {
			old = &c
		}
	}
	if old == nil || old.Undo != "" || old.Since != "changed since" {
		t.Errorf("the first archive's row = %+v, want no undo, changed since", old)
	}
	_, err := e.store.UndoChange(ctx, reviewer, WhatArchived, id, first.At, "")
	wantError(t, "UndoChange(the first archive)", err, CodeConflict, "changed after this change")
	if got := e.status(t, id); got != "archived" {
		t.Errorf("after the refused undo the fact is %s, want archived", got)
	}
	if last.Undo != UndoRestore {
		t.Errorf("the last archive's row = %+v, want its undo offered", last)
	}
	if done, err := e.store.UndoChange(ctx, reviewer, WhatArchived, id, last.At, ""); err != nil || !slices.Equal(done.Restored, []int64{id}) {
		t.Errorf("undo of the last archive = %+v, %v", done, err)
	}
}
