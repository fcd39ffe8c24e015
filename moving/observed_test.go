package moving

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/memory"
)

// TestNovaReportsForgottenFacts: a NOVA database whose facts are partly past
// their forget date at the import: the dry run and the import list each of
// them by its NOVA row; they are written archived with the reason, and no
// later decay archives anything the import brought in.
func TestNovaReportsForgottenFacts(t *testing.T) {
	url := novaSource(t, novaTwoAxis,
		`INSERT INTO entities (name, type) VALUES ('Ann', 'Person')`,
		`INSERT INTO entity_facts (entity_id, key, value, confidence, learned_at, last_confirmed_at, durability, category) VALUES
		 (1, 'occupation', 'Ann is a nurse.', 0.9, '2025-01-10T08:00:00Z', '2026-03-01T09:00:00Z', 'permanent', 'identity'),
		 (1, 'mood', 'Ann is tired.', 0.6, '2026-04-20T20:00:00Z', NULL, 'ephemeral', 'mood'),
		 (1, 'project', 'Ann is migrating the ledger.', 0.8, '2026-02-01T08:00:00Z', '2026-02-03T08:00:00Z', 'short_term', 'state'),
		 (1, 'drink', 'Ann prefers tea.', 0.7, '2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z', 'long_term', 'preference'),
		 (1, 'city', 'Ann lives in Porto.', 0.7, '2026-04-01T00:00:00Z', NULL, 'long_term', 'observation')`)
	pool, store := tenure(t)

	for _, dry := range []bool{true, false} {
		report, err := importNova(t, store, url, "home", dry)
		if err != nil {
			t.Fatalf("import (dry run %v): %v", dry, err)
		}
		if report.Forgotten != 3 || len(report.ForgottenLines) != 3 {
			t.Fatalf("report (dry run %v) = %+v, want 3 facts past their forget date", dry, report)
		}
		for i, want := range []struct{ where, content string }{
			{"entity_facts id 2", "Ann is tired."},
			{"entity_facts id 3", "Ann is migrating the ledger."},
			{"entity_facts id 4", "Ann prefers tea."},
		} {
			f := report.ForgottenLines[i]
			if f.Where != want.where || f.Content != want.content || !f.ForgetAt.Before(novaNow) {
				t.Errorf("forgotten[%d] = %+v, want %s %q, forgotten before the import", i, f, want.where, want.content)
			}
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM entity_facts WHERE status = 'archived' AND archive_reason = $1`, memory.ForgottenReason); n != 3 {
		t.Errorf("facts written archived as forgotten = %d, want 3", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM entity_facts WHERE status = 'active'`); n != 2 {
		t.Errorf("active facts = %d, want the nurse and Porto", n)
	}
	if rep, err := store.Decay(context.Background(), memory.System("decay")); err != nil || rep.Archived != 0 {
		t.Errorf("decay after the import = %+v, %v; want nothing archived", rep, err)
	}
}

// mem0Old holds memories Mem0 last touched long before the import.
const mem0Old = `{"results": [
  {"id": "m1", "memory": "Is a vegetarian", "created_at": "2024-01-01T00:00:00Z", "updated_at": null, "user_id": "alex"},
  {"id": "m2", "memory": "Prefers dark mode in every editor", "created_at": "2023-01-01T00:00:00Z", "updated_at": "2023-06-01T00:00:00Z", "user_id": "alex"},
  {"id": "m3", "memory": "Lives in Porto", "created_at": "2022-01-01T00:00:00Z", "updated_at": "2026-04-20T00:00:00Z", "user_id": "alex"},
  {"id": "m4", "memory": "Goes running every morning", "created_at": "2026-04-01T07:00:00Z", "updated_at": null, "user_id": "alex"}
]}`

// TestMem0ObservedAtAndForgotten: each Mem0 memory is observed when Mem0
// last touched it (updated_at, else created_at); the dry run and the import
// list the memories whose facts are already past their forget date, and
// consolidation archives those as decayed, as the report said.
func TestMem0ObservedAtAndForgotten(t *testing.T) {
	ctx := context.Background()
	pool, store := tenure(t)
	mems := readMem0(t, mem0Old)
	rows, err := PlanMem0(mems, Mem0Options{Scope: "alex"}, mem0Now)
	if err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		rep, err := ImportMem0(ctx, store, memory.System("mem0"), rows, Mem0Options{Scope: "alex", DryRun: dry})
		if err != nil {
			t.Fatalf("import (dry run %v): %v", dry, err)
		}
		if rep.Notes[memory.NoteForgotten] != 1 || len(rep.Forgotten) != 1 || !strings.HasPrefix(rep.Forgotten[0].Memory, "results[1]") ||
			rep.Forgotten[0].Text != "Prefers dark mode in every editor" || !rep.Forgotten[0].ObservedAt.Equal(time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("report (dry run %v) = %+v, want the dark-mode memory of 2023 reported forgotten", dry, rep)
		}
	}
	for _, want := range []struct {
		content string
		at      time.Time
	}{
		{"Is a vegetarian", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"Prefers dark mode in every editor", time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)},
		{"Lives in Porto", time.Date(2026, 4, 20, 0, 0, 0, 0, time.UTC)},
		{"Goes running every morning", time.Date(2026, 4, 1, 7, 0, 0, 0, time.UTC)},
	} {
		if n := count(t, pool, `SELECT count(*) FROM memory_nodes WHERE content = $1 AND observed_at = $2`, want.content, want.at); n != 1 {
			t.Errorf("%q not observed at %s", want.content, want.at)
		}
	}
	if _, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Decay(ctx, memory.System("decay")); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM entity_facts WHERE content = 'Prefers dark mode in every editor'
		AND status = 'archived' AND archive_reason = 'decayed' AND confirmed_at = '2023-06-01T00:00:00Z'`); n != 1 {
		t.Errorf("the forgotten memory's fact is not archived as decayed, confirmed when Mem0 last touched it")
	}
	if n := count(t, pool, `SELECT count(*) FROM entity_facts WHERE status = 'active'`); n != 3 {
		t.Errorf("active facts = %d, want the other 3", n)
	}
}
