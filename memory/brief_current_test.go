package memory

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestBriefShowsOnlyWhatIsCurrent: old data with several states on one key
// (written before supersession) shows one line, the newest; an ephemeral
// state older than its half-life and a mood older than 48 hours are left
// out; no line appears twice.
func TestBriefShowsOnlyWhatIsCurrent(t *testing.T) {
	rf := newRecallFixture(t)
	rf.insert(t, recallFact{entity: "billing-db", key: "replication_lag", content: "billing-db replication lag is 4 s.",
		durability: "short_term", category: "state", age: 3 * time.Hour})
	rf.insert(t, recallFact{entity: "billing-db", key: "replication_lag", content: "billing-db replication lag is 4 s.",
		durability: "short_term", category: "state", age: 2 * time.Hour})
	newest := rf.insert(t, recallFact{entity: "billing-db", key: "replication_lag", content: "billing-db replication lag recovered.",
		durability: "short_term", category: "state", age: time.Hour})
	rf.insert(t, recallFact{entity: "api-gateway", key: "p99_latency", content: "api-gateway p99 latency is 180 ms",
		durability: "ephemeral", category: "state", age: 40 * time.Hour}) // ephemeral half-life is 36 h
	rf.insert(t, recallFact{entity: "User", key: "mood", content: "User is grumpy", durability: "ephemeral", category: "mood", age: 50 * time.Hour})
	rf.insert(t, recallFact{entity: "Ann", content: "Ann likes jazz", confidence: 0.9})
	rf.insert(t, recallFact{entity: "Ann", content: "Ann likes jazz", confidence: 0.8})

	b := rf.brief(t, BriefOptions{Scope: "acme"})
	text := b.Text()
	if got := briefItemIDs(b.States); len(got) != 1 || got[0] != newest {
		t.Errorf("states = %v, want only the newest on the key (%d):\n%s", got, newest, text)
	}
	if !strings.Contains(text, "billing-db replication lag recovered. (as of 1 h ago)") {
		t.Errorf("the current state does not say how old it is:\n%s", text)
	}
	for _, stale := range []string{"lag is 4 s", "180 ms", "grumpy"} {
		if strings.Contains(text, stale) {
			t.Errorf("brief recites %q, which is no longer current:\n%s", stale, text)
		}
	}
	if n := strings.Count(text, "Ann likes jazz"); n != 1 {
		t.Errorf("\"Ann likes jazz\" shown %d times:\n%s", n, text)
	}
}

// TestBriefSince: a brief asked with since lists only what changed after it:
// the new state, the state it superseded, an archived fact and a reopened
// decision; nothing from before.
func TestBriefSince(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.create(t, bot, NewFact{Scope: "ops", Entity: "billing-db", Key: "replication_lag",
		Content: "billing-db replication lag is 4 s.", Category: CategoryState})
	old := fx.create(t, bot, NewFact{Scope: "ops", Entity: "billing-db", Key: "owner", Content: "Owned by the data team."})
	d, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "ops", Entity: "billing-db", Key: "engine",
		Decision: "Stay on PostgreSQL 15.", Reasoning: "The upgrade waits for the extension."})
	if err != nil {
		t.Fatal(err)
	}
	fx.advance(time.Hour)
	since := fx.clock()
	fx.advance(time.Minute)
	fx.create(t, bot, NewFact{Scope: "ops", Entity: "billing-db", Key: "replication_lag",
		Content: "billing-db replication lag recovered.", Category: CategoryState})
	if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{old.ID}, "the team was dissolved"); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.s.ReopenDecision(ctx, reviewer, d.ID, "the extension shipped"); err != nil {
		t.Fatal(err)
	}

	b, err := fx.s.ContextBrief(ctx, BriefOptions{Scope: "ops", Since: &since})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, ch := range b.Changes {
		kinds[ch.Content] = ch.Kind
	}
	want := map[string]string{
		"billing-db replication lag recovered.": ChangeNew,
		"billing-db replication lag is 4 s.":    ChangeSuperseded,
		"Owned by the data team.":               ChangeArchived,
		"Stay on PostgreSQL 15.":                ChangeDecisionReopened,
	}
	for content, kind := range want {
		if kinds[content] != kind {
			t.Errorf("change of %q = %q, want %q; changes %+v", content, kinds[content], kind, b.Changes)
		}
	}
	if len(b.Changes) != len(want) || len(b.States)+len(b.Facts)+len(b.Decisions) != 0 {
		t.Errorf("brief since = %d changes (%+v) and %d other items, want only the %d changes",
			len(b.Changes), b.Changes, len(b.States)+len(b.Facts)+len(b.Decisions), len(want))
	}
	text := b.Text()
	for _, line := range []string{"+ [billing-db] billing-db replication lag recovered.",
		"- [billing-db] billing-db replication lag is 4 s. (superseded by fact",
		"! decision reopened [billing-db] Stay on PostgreSQL 15. (the extension shipped)"} {
		if !strings.Contains(text, line) {
			t.Errorf("brief since lacks %q:\n%s", line, text)
		}
	}
	later := fx.clock().Add(time.Minute)
	b, err = fx.s.ContextBrief(ctx, BriefOptions{Scope: "ops", Since: &later})
	if err != nil || len(b.Changes) != 0 || !strings.Contains(b.Text(), "Nothing changed.") {
		t.Errorf("brief since now = %+v, %v; want nothing changed", b.Changes, err)
	}
}
