package quality

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

// endState is what a month leaves: its live facts, one line each with
// everything that ages or ranks them, and the brief an agent reads at the
// month's end.
func endState(t *testing.T, pool *pgxpool.Pool, end time.Time) (facts []string, brief string) {
	t.Helper()
	ctx := context.Background()
	store := memory.NewStore(pool, memory.Options{Now: func() time.Time { return end },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if _, err := store.Decay(ctx, memory.System("decay")); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `
		SELECT e.name, f.key, f.content, f.durability, f.category, round(f.confidence::numeric, 9)::text,
			f.confirmed_at, f.deadline, f.extraction_count, f.forget_at
		FROM entity_facts f JOIN entities e ON e.id = f.entity_id
		WHERE f.scope = $1 AND f.status = 'active'
		ORDER BY e.name, f.key, f.content`, scope)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var entity, key, content, durability, category, confidence string
		var confirmed time.Time
		var deadline, forget *time.Time
		var n int
		if err := rows.Scan(&entity, &key, &content, &durability, &category, &confidence, &confirmed, &deadline, &n, &forget); err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("[%s / %s] %q %s/%s c0=%s confirmed %s, %d statements", entity, key, content, durability, category,
			confidence, confirmed.UTC().Format(time.RFC3339), n)
		if deadline != nil {
			line += ", due " + deadline.UTC().Format(time.RFC3339)
		}
		if forget != nil {
			line += ", forgotten " + forget.UTC().Truncate(time.Second).Format(time.RFC3339)
		}
		facts = append(facts, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	b, err := store.ContextBrief(ctx, memory.BriefOptions{Scope: scope, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	return facts, b.Text()
}

// TestReplayedMonthMatchesLive: the scripted month written live (the clock
// moved hour by hour, consolidation every hour) and the same month replayed
// at its end through the API with each row's observed_at and each
// decision's decided_at (one consolidation run) end with the same live
// facts, confirmed at the same times with the same confidences, and the
// same brief.
func TestReplayedMonthMatchesLive(t *testing.T) {
	ctx := context.Background()
	const days = 30
	end := Start.Add(days * 24 * time.Hour)
	live, replayed := pgtest.NewPool(t), pgtest.NewPool(t)
	if _, err := Run(ctx, live, Options{Days: days}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := Replay(ctx, replayed, Options{Days: days}); err != nil {
		t.Fatal(err)
	}
	t.Logf("replayed the month in %s", time.Since(began).Round(time.Millisecond))
	liveFacts, liveBrief := endState(t, live, end)
	replayFacts, replayBrief := endState(t, replayed, end)
	if len(liveFacts) < 5 {
		t.Fatalf("the live month ends with %d facts: too few to compare", len(liveFacts))
	}
	if strings.Join(liveFacts, "\n") != strings.Join(replayFacts, "\n") {
		t.Errorf("live facts:\n%s\n\nreplayed facts:\n%s", strings.Join(liveFacts, "\n"), strings.Join(replayFacts, "\n"))
	}
	if liveBrief != replayBrief {
		t.Errorf("live brief:\n%s\n\nreplayed brief:\n%s", liveBrief, replayBrief)
	}
	if !strings.Contains(liveBrief, "as of") {
		t.Errorf("the brief shows no state with its age:\n%s", liveBrief)
	}
	t.Logf("facts:\n%s\nbrief:\n%s", strings.Join(liveFacts, "\n"), liveBrief)
}
