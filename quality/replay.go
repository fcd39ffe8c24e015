package quality

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// Replay writes the script's month through the API as a writer replaying a
// history does, at the month's end rather than as it happens: the clock
// stands at the end, every push says when its rows were observed
// (observed_at, the event's time), every decision when it was made
// (decided_at), a person's reopening happens in the script's order, and one
// consolidation run then promotes everything, followed by the decay job. It
// scores nothing: the memory it leaves is what the live month (Run) leaves,
// which TestReplayedMonthMatchesLive checks fact by fact and in the brief.
func Replay(ctx context.Context, pool *pgxpool.Pool, o Options) error {
	sc, err := scenarioNamed(o.Scenario)
	if err != nil {
		return err
	}
	if o.Days <= 0 {
		o.Days = sc.days
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	end := Start.Add(time.Duration(o.Days) * 24 * time.Hour)
	s := &sim{o: o, sc: sc, clock: &clock{t: end}, truth: newTruth(), locked: map[int64]decisionEvent{}, decided: map[string]int64{}, replay: true}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s.store = memory.NewStore(pool, memory.Options{Logger: logger, Now: s.clock.Now})
	assets, err := static.New()
	if err != nil {
		return err
	}
	app, err := server.New(server.Config{Pool: pool, Assets: assets, Logger: logger, Now: s.clock.Now, Store: s.store})
	if err != nil {
		return err
	}
	s.srv = httptest.NewServer(app)
	defer s.srv.Close()
	if err := s.tokens(ctx, pool); err != nil {
		return err
	}
	for _, e := range s.sortedEvents() {
		if err := s.apply(ctx, e); err != nil {
			return err
		}
	}
	if s.rep.Tenure.UnwarnedLockedWrites > 0 {
		return fmt.Errorf("quality: replay: a write on a locked decision's key was not warned of: %v", s.rep.Examples)
	}
	if _, err := s.store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerManual}); err != nil {
		return fmt.Errorf("quality: replay: consolidate: %w", err)
	}
	if _, err := s.store.Decay(ctx, memory.System("decay")); err != nil {
		return fmt.Errorf("quality: replay: decay: %w", err)
	}
	return nil
}
