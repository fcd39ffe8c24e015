package memory

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"
)

func TestSeedWritesHistoryAndSettles(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	now := fxStart
	ago := func(days int) time.Time { return now.Add(-time.Duration(days) * 24 * time.Hour) }

	var ids struct{ ann, lyon, paris, tea, teaAgain, baking, decisionFact, decision, node int64 }
	var settled Settled
	err := fx.s.Seed(ctx, now, func(s *Seeder) error {
		var err error
		if ids.ann, err = s.Entity(ctx, "home", "Ann", "person"); err != nil {
			return err
		}
		if again, err := s.Entity(ctx, "home", "Ann", "person"); err != nil || again != ids.ann {
			t.Errorf("Entity() again = %d, %v; want the same id %d", again, err, ids.ann)
		}
		fact := func(key, content, durability, category string, days int) int64 {
			t.Helper()
			id, err := s.Fact(ctx, SeedFact{Scope: "home", EntityID: ids.ann, Key: key, Content: content,
				Durability: durability, Category: category, Confidence: 0.9, Importance: 0.5,
				ConfirmedAt: ago(days), CreatedAt: ago(days + 1), Source: "human"})
			if err != nil {
				t.Fatalf("Fact(%q) = %v", content, err)
			}
			return id
		}
		ids.lyon = fact("lives_in", "Ann lives in Lyon.", "long_term", "identity", 300)
		ids.paris = fact("lives_in", "Ann lives in Paris.", "long_term", "identity", 30)
		ids.tea = fact("drinks", "Ann drinks tea.", "long_term", "observation", 20)
		ids.teaAgain = fact("drinks", "ann drinks TEA.", "long_term", "observation", 10)
		ids.baking = fact("doing", "Ann is baking.", "ephemeral", "observation", 30)
		ids.decisionFact = fact("school", "Ann's children go to the local school.", "permanent", "decision", 40)
		if ids.decision, err = s.Decision(ctx, SeedDecision{
			FactID: ids.decisionFact, Scope: "home", EntityID: ids.ann, Key: "school",
			Decision: "Ann's children go to the local school.", Alternatives: []string{"the bilingual school"},
			Reasoning: "It is a walk away.", DecidedBy: "ann@example.com", DecidedAt: ago(40),
			Reopened: &SeedReopening{At: ago(5), By: "ann@example.com", Reason: "A new school opened."},
		}); err != nil {
			return err
		}
		ttl := int32(3600)
		if ids.node, err = s.Node(ctx, SeedNode{Scope: "home", Content: "Ann asked about the weather.",
			Properties: map[string]string{"durability": "transient"}, Importance: 0.3, TTLSeconds: &ttl,
			CreatedAt: now.Add(-time.Hour)}); err != nil {
			return err
		}
		if settled, err = s.Settle(ctx); err != nil {
			return err
		}
		return s.Audit(ctx, SeedAudit{Actor: System("test"), Action: "test.seed", TargetType: "database",
			TargetID: "test", After: map[string]int{"facts": 6}, Reason: "seeded by a test"})
	})
	if err != nil {
		t.Fatalf("Seed() = %v", err)
	}
	if settled != (Settled{Merged: 1, Superseded: 1, Archived: 1}) {
		t.Errorf("Settle() = %+v, want one merged, one superseded, one decayed", settled)
	}

	for _, tt := range []struct {
		id             int64
		status, reason string
	}{
		{ids.lyon, "archived", "superseded by fact " + strconv.FormatInt(ids.paris, 10)},
		{ids.paris, "active", ""},
		{ids.tea, "active", ""},
		{ids.teaAgain, "archived", "merged into fact " + strconv.FormatInt(ids.tea, 10)},
		{ids.baking, "archived", "decayed"},
		{ids.decisionFact, "active", ""},
	} {
		f := fx.get(t, tt.id)
		if string(f.Status) != tt.status || f.ArchiveReason != tt.reason {
			t.Errorf("fact %d %q: status %s (%q), want %s (%q)", f.ID, f.Content, f.Status, f.ArchiveReason, tt.status, tt.reason)
		}
	}
	if f := fx.get(t, ids.paris); !f.ConfirmedAt.Equal(ago(30)) || f.Source != "human" {
		t.Errorf("fact %d confirmed at %s from %s, want the seeded time and source", f.ID, f.ConfirmedAt, f.Source)
	}
	if f := fx.get(t, ids.baking); f.ArchivedAt == nil || f.ForgetAt == nil || !f.ArchivedAt.Equal(*f.ForgetAt) {
		t.Errorf("decayed fact archived at %v, want its forget_at %v", f.ArchivedAt, f.ForgetAt)
	}

	d, err := fx.s.GetDecision(ctx, ids.decision)
	if err != nil {
		t.Fatal(err)
	}
	if d.ReopenedAt == nil || !d.ReopenedAt.Equal(ago(5)) || d.ReopenedBy != "ann@example.com" ||
		d.ReopenReason != "A new school opened." || d.DoNotReopen {
		t.Errorf("decision = %+v, want it reopened as seeded", d)
	}
	if n := fx.count(t, `SELECT count(*) FROM memory_nodes WHERE id = $1 AND properties->>'durability' = 'transient'
		AND ttl_seconds = 3600 AND promoted_at IS NULL`, ids.node); n != 1 {
		t.Errorf("seeded working row not found as written")
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log`); n != 1 {
		t.Errorf("%d audit rows, want only the seed's own", n)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE actor = 'system:test' AND action = 'test.seed'
		AND at = $1 AND after->>'facts' = '6'`, now); n != 1 {
		t.Error("the seed's audit row is not as written")
	}
}

func TestSeedNeedsAnEmptyDatabase(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	seedOne := func(s *Seeder) error {
		_, err := s.Entity(ctx, "home", "Ann", "person")
		return err
	}
	if err := fx.s.Seed(ctx, fxStart, seedOne); err != nil {
		t.Fatalf("first Seed() = %v", err)
	}
	called := false
	err := fx.s.Seed(ctx, fxStart, func(s *Seeder) error { called = true; return seedOne(s) })
	if !errors.Is(err, ErrDatabaseNotEmpty) || called {
		t.Errorf("second Seed() = %v (seed ran: %t), want ErrDatabaseNotEmpty without running", err, called)
	}
	if n := fx.count(t, `SELECT count(*) FROM entities`); n != 1 {
		t.Errorf("%d entities, want the first seed's only", n)
	}
}

func TestSeedWritesNothingOnError(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	boom := errors.New("boom")
	err := fx.s.Seed(ctx, fxStart, func(s *Seeder) error {
		if _, err := s.Entity(ctx, "home", "Ann", "person"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Seed() = %v, want the seed's error", err)
	}
	if n := fx.count(t, `SELECT count(*) FROM entities`); n != 0 {
		t.Errorf("%d entities after a failed seed, want none", n)
	}
	if err := fx.s.Seed(ctx, fxStart, func(*Seeder) error { return nil }); err != nil {
		t.Errorf("Seed() after a failed one = %v, want the database still empty", err)
	}
}
