package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNewerStateSupersedesOlder: through the API's path, a newer state on a
// key archives the older one with the reason, audited and restorable;
// observations on one key accumulate; a short-term observation supersedes
// the short-term one before it; facts on other keys or entities stay.
func TestNewerStateSupersedesOlder(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	lag := fx.create(t, bot, NewFact{Scope: "ops", Entity: "billing-db", Key: "replication_lag",
		Content: "billing-db replication lag is 4 s.", Category: CategoryState})
	other := fx.create(t, bot, NewFact{Scope: "ops", Entity: "api-gateway", Key: "replication_lag",
		Content: "api-gateway replication lag is 1 s.", Category: CategoryState})
	obs1 := fx.create(t, bot, NewFact{Scope: "ops", Entity: "billing-db", Key: "replication_lag",
		Content: "Lag spikes during the nightly backup.", Category: CategoryObservation})
	fx.advance(time.Hour)
	recovered := fx.create(t, bot, NewFact{Scope: "ops", Entity: "billing-db", Key: "replication_lag",
		Content: "billing-db replication lag recovered.", Category: CategoryState})
	obs2 := fx.create(t, bot, NewFact{Scope: "ops", Entity: "billing-db", Key: "replication_lag",
		Content: "Lag also spikes during reindexing.", Category: CategoryObservation})

	old := fx.get(t, lag.ID)
	if old.Status != StatusArchived || old.ArchiveReason != fmt.Sprintf("superseded by fact %d", recovered.ID) {
		t.Errorf("older state = %s (%q), want archived as superseded by fact %d", old.Status, old.ArchiveReason, recovered.ID)
	}
	for _, id := range []int64{recovered.ID, other.ID, obs1.ID, obs2.ID} {
		if f := fx.get(t, id); f.Status != StatusActive {
			t.Errorf("fact %d (%s) = %s, want active", id, f.Content, f.Status)
		}
	}
	hist, err := fx.s.FactHistory(ctx, lag.ID)
	if err != nil || len(hist) == 0 || hist[0].Action != "fact.supersede" || hist[0].Actor != bot.String() {
		t.Errorf("history of the superseded fact = %+v, %v; want a fact.supersede row by the writer", hist, err)
	}
	// Restorable like any archived fact.
	if n, err := fx.s.RestoreFacts(ctx, reviewer, []int64{lag.ID}, "needed for the postmortem"); err != nil || n != 1 {
		t.Errorf("RestoreFacts(superseded) = %d, %v", n, err)
	}

	// Short-term facts supersede whatever their category.
	s1 := fx.create(t, bot, NewFact{Scope: "ops", Entity: "deploy", Key: "rollout", Content: "Rollout at 40%.",
		Category: CategoryObservation, Durability: ShortTerm})
	fx.advance(time.Minute)
	s2 := fx.create(t, bot, NewFact{Scope: "ops", Entity: "deploy", Key: "rollout", Content: "Rollout at 80%.",
		Category: CategoryObservation, Durability: ShortTerm})
	if f := fx.get(t, s1.ID); f.Status != StatusArchived || !strings.Contains(f.ArchiveReason, fmt.Sprint(s2.ID)) {
		t.Errorf("older short-term fact = %s (%q), want superseded by %d", f.Status, f.ArchiveReason, s2.ID)
	}

	// The setting: observations may be made to supersede.
	if _, err := fx.s.SetCategorySupersedes(ctx, reviewer, CategoryObservation, true, "one observation a key"); err != nil {
		t.Fatal(err)
	}
	fx.advance(time.Minute)
	obs3 := fx.create(t, bot, NewFact{Scope: "ops", Entity: "billing-db", Key: "replication_lag",
		Content: "Lag no longer spikes.", Category: CategoryObservation})
	for _, id := range []int64{obs1.ID, obs2.ID} {
		if f := fx.get(t, id); f.Status != StatusArchived || !strings.Contains(f.ArchiveReason, fmt.Sprint(obs3.ID)) {
			t.Errorf("observation %d = %s (%q), want superseded by %d once observations supersede", id, f.Status, f.ArchiveReason, obs3.ID)
		}
	}
	if _, err := fx.s.SetCategorySupersedes(ctx, reviewer, CategoryDecision, true, ""); err == nil {
		t.Error("SetCategorySupersedes(decision) succeeded")
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'category.update'`); n != 1 {
		t.Errorf("%d category.update audit rows, want 1", n)
	}
}

// TestConsolidationSupersedes: states pushed as working rows, in one batch
// and across runs, leave one current fact per key; the same state repeated
// reinforces, and is not superseded.
func TestConsolidationSupersedes(t *testing.T) {
	e := newEnv(t)
	state := func(content string) NewNode {
		return NewNode{Content: content, Properties: map[string]any{
			"entity": "api-gateway", "key": "p99_latency", "category": "state"}}
	}
	e.push(t, "ops", state("api-gateway p99 latency is 180 ms"), state("api-gateway p99 latency is 180 ms"),
		state("api-gateway p99 back under 120 ms"))
	run := e.consolidate(t)
	// The repeat reinforces the first row's fact before the newer state
	// supersedes it, as if each row had come in a run of its own.
	if run.Count(PhasePromote, "superseded") != 1 || run.Count(PhasePromote, "reinforced") != 1 {
		t.Errorf("first run report = %v, want the repeated state reinforced, then superseded once", run.Report)
	}
	active := func() []string {
		rows, err := e.pool.Query(context.Background(),
			`SELECT content FROM entity_facts WHERE status = 'active' AND key = 'p99_latency' ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var c string
			_ = rows.Scan(&c)
			out = append(out, c)
		}
		return out
	}
	if got := active(); len(got) != 1 || got[0] != "api-gateway p99 back under 120 ms" {
		t.Errorf("active after run 1 = %q, want only the newest state", got)
	}
	e.clock.Advance(time.Hour)
	e.push(t, "ops", state("api-gateway p99 latency is 240 ms"))
	e.consolidate(t)
	if got := active(); len(got) != 1 || got[0] != "api-gateway p99 latency is 240 ms" {
		t.Errorf("active after run 2 = %q, want only the newest state", got)
	}
	e.clock.Advance(time.Hour)
	e.push(t, "ops", state("api-gateway p99 latency is 240 ms"))
	run = e.consolidate(t)
	if run.Count(PhasePromote, "reinforced") != 1 || run.Count(PhasePromote, "superseded") != 0 {
		t.Errorf("repeating the current state: report %v, want it reinforced, nothing superseded", run.Report)
	}
}

// TestImportedStatesSupersede: an imported state older than the live one on
// its key is archived at once; a newer one archives the live one.
func TestImportedStatesSupersede(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	live := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Key: "location", Content: "Mia is in Lisbon.", Category: CategoryState})
	line := func(content string, at time.Time) ImportLine {
		return ImportLine{Fact: TransferFact{Scope: "home", Entity: "Mia", Key: "location", Content: content,
			Durability: "short_term", Category: CategoryState, Confidence: pointerTo(0.8),
			ConfirmedAt: &at, CreatedAt: &at}, Line: 1}
	}
	report, err := fx.s.Import(ctx, reviewer, []ImportLine{line("Mia is in Porto.", fx.clock().Add(-48*time.Hour))}, ImportOptions{})
	if err != nil || report.Superseded != 1 {
		t.Fatalf("import of an older state = %+v, %v; want it superseded at once", report, err)
	}
	if f := fx.get(t, live.ID); f.Status != StatusActive {
		t.Errorf("live state = %s, want still active", f.Status)
	}
	report, err = fx.s.Import(ctx, reviewer, []ImportLine{line("Mia is in Madrid.", fx.clock().Add(time.Minute))}, ImportOptions{})
	if err != nil || report.Superseded != 1 {
		t.Fatalf("import of a newer state = %+v, %v", report, err)
	}
	if f := fx.get(t, live.ID); f.Status != StatusArchived {
		t.Errorf("live state after a newer import = %s, want archived", f.Status)
	}
}

// TestImportedDuplicatesMerge: an imported fact that repeats a live one word
// for word (another created_at, so not "already present") merges into the
// older of the two instead of standing beside it.
func TestImportedDuplicatesMerge(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	live := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Key: "hq", Content: "The office is on Larimer Street.",
		Category: CategoryObservation})
	at := fx.clock().Add(-time.Hour)
	report, err := fx.s.Import(ctx, reviewer, []ImportLine{{Line: 1, Fact: TransferFact{Scope: "home", Entity: "Mia", Key: "hq",
		Content: "the office is on Larimer Street. ", Durability: "long_term", Category: CategoryObservation,
		Confidence: pointerTo(0.6), ConfirmedAt: &at, CreatedAt: &at}}}, ImportOptions{})
	if err != nil || report.Merged != 1 {
		t.Fatalf("import of a duplicate = %+v, %v; want one merged", report, err)
	}
	if n := fx.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND key = 'hq'`); n != 1 {
		t.Errorf("%d active facts on the key, want 1", n)
	}
	if f := fx.get(t, live.ID); f.Status != StatusActive || f.ExtractionCount != 2 || f.Confidence <= live.Confidence {
		t.Errorf("survivor = %s, count %d, confidence %v; want active, reinforced by the duplicate", f.Status, f.ExtractionCount, f.Confidence)
	}
}
