package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// fixture is a Store over a fresh database with a settable clock, and the
// logs and counters it wrote.
type fixture struct {
	s       *Store
	pool    *pgxpool.Pool
	mu      sync.Mutex
	now     time.Time
	logs    *logBuffer
	metrics *countingMetrics
}

var fxStart = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fx := &fixture{pool: pgtest.NewPool(t), now: fxStart, logs: &logBuffer{}, metrics: &countingMetrics{}}
	fx.s = NewStore(fx.pool, Options{
		Logger:  slog.New(slog.NewJSONHandler(fx.logs, nil)),
		Now:     fx.clock,
		Metrics: fx.metrics,
	})
	return fx
}

func (fx *fixture) clock() time.Time {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	return fx.now
}

func (fx *fixture) advance(d time.Duration) {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	fx.now = fx.now.Add(d)
}

// count runs a query that returns one integer.
func (fx *fixture) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := fx.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// create writes a fact that must be written.
func (fx *fixture) create(t *testing.T, actor Actor, in NewFact) Fact {
	t.Helper()
	f, _, err := fx.s.CreateFact(context.Background(), actor, in)
	if err != nil {
		t.Fatalf("CreateFact(%+v) error = %v", in, err)
	}
	return f
}

// get reads a fact that must exist.
func (fx *fixture) get(t *testing.T, id int64) Fact {
	t.Helper()
	f, err := fx.s.GetFact(context.Background(), id)
	if err != nil {
		t.Fatalf("GetFact(%d) error = %v", id, err)
	}
	return f
}

// sqlForgetAt is tenure_forget_at for the stored fact id.
func (fx *fixture) sqlForgetAt(t *testing.T, id int64) *time.Time {
	t.Helper()
	var at *time.Time
	err := fx.pool.QueryRow(context.Background(), `SELECT tenure_forget_at(durability, category, confidence,
		confirmed_at, expires_at, deadline) FROM entity_facts WHERE id = $1`, id).Scan(&at)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// logLines returns the decoded log records whose msg is msg.
func (fx *fixture) logLines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	return fx.logs.lines(t, msg)
}

var (
	reviewer = Human("ann@example.com")
	bot      = Token("laptop-agent")
)

// wantError checks that err is an *Error with code whose message contains
// every one of parts, and returns it.
func wantError(t *testing.T, call string, err error, code Code, parts ...string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s = %v, want a %s error", call, err, code)
	}
	if e.Code != code || ErrorCode(err) != code {
		t.Errorf("%s code = %s, want %s (%v)", call, e.Code, code, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s = %q, want it to mention %q", call, err.Error(), p)
		}
	}
	return e
}

func timeEqual(a, b *time.Time) bool { return timePtrEqual(a, b) }

func TestCreateFactDefaults(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	f, reinforced, err := fx.s.CreateFact(ctx, reviewer, NewFact{Scope: "home", Entity: "Mia", Key: "lives_in", Content: "  Lives in Lyon.  "})
	if err != nil || reinforced {
		t.Fatalf("CreateFact() = %v, reinforced %t, want a new fact", err, reinforced)
	}
	now := fxStart
	wantForget := now.Add(time.Duration(180 * 86400 * math.Log2(0.8/0.1) * float64(time.Second))).Round(time.Microsecond)
	checks := []struct {
		name      string
		got, want any
	}{
		{"content", f.Content, "Lives in Lyon."},
		{"entity", f.Entity, "Mia"},
		{"durability", f.Durability, LongTerm},
		{"category", f.Category, CategoryObservation},
		{"confidence", f.Confidence, 0.8},
		{"effective confidence", f.EffectiveConfidence, 0.8},
		{"importance", f.Importance, 0.5},
		{"source", f.Source, SourceHuman},
		{"status", f.Status, StatusActive},
		{"version", f.Version, int32(1)},
		{"extraction count", f.ExtractionCount, int32(1)},
		{"confirmed_at", f.ConfirmedAt.Equal(now), true},
		{"forget_at", f.ForgetAt != nil && f.ForgetAt.Sub(wantForget).Abs() <= time.Microsecond, true},
		{"forget_at = tenure_forget_at", timeEqual(f.ForgetAt, fx.sqlForgetAt(t, f.ID)), true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("CreateFact() %s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if got := fx.get(t, f.ID); got.Content != f.Content || got.Version != 1 {
		t.Errorf("GetFact(%d) = %+v, want the created fact", f.ID, got)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.create' AND target_id = $1::bigint::text AND actor = 'user:ann@example.com'`, f.ID); n != 1 {
		t.Errorf("fact.create audit rows = %d, want 1", n)
	}

	t.Run("durability by category", func(t *testing.T) {
		for _, c := range []struct {
			category string
			want     Durability
		}{
			{CategoryMood, Ephemeral}, {CategoryState, ShortTerm}, {CategoryIdentity, Permanent},
			{CategoryObligation, ShortTerm}, {CategoryPreference, LongTerm}, {CategoryRoutine, LongTerm},
		} {
			f := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "about " + c.category, Category: c.category})
			if f.Durability != c.want {
				t.Errorf("CreateFact(category %s) durability = %s, want %s", c.category, f.Durability, c.want)
			}
		}
	})

	t.Run("source by actor", func(t *testing.T) {
		for _, c := range []struct {
			actor Actor
			want  string
		}{
			{reviewer, SourceHuman}, {bot, SourceAPI}, {System("extraction"), SourceExtraction},
			{System("import"), SourceImport}, {System("consolidation"), SourceConsolidation},
		} {
			f := fx.create(t, c.actor, NewFact{Scope: "home", Entity: "Mia", Content: "written by " + c.actor.String()})
			if f.Source != c.want {
				t.Errorf("CreateFact(by %s) source = %s, want %s", c.actor, f.Source, c.want)
			}
		}
	})

	t.Run("not found", func(t *testing.T) {
		_, err := fx.s.GetFact(ctx, 424242)
		wantError(t, "GetFact(424242)", err, CodeNotFound, "no fact with id 424242")
	})
}

func TestCreateFactValidation(t *testing.T) {
	fx := newFixture(t)
	past := fxStart.Add(-time.Hour)
	soon := fxStart.Add(time.Hour)
	base := func(mod func(*NewFact)) NewFact {
		in := NewFact{Scope: "home", Entity: "Mia", Key: "lives_in", Content: "Lives in Lyon."}
		mod(&in)
		return in
	}
	cases := []struct {
		name  string
		actor Actor
		in    NewFact
		field string
		parts []string
	}{
		{"bad scope", reviewer, base(func(in *NewFact) { in.Scope = "Home Base" }), "scope", []string{`"Home Base"`, "lowercase"}},
		{"empty entity", reviewer, base(func(in *NewFact) { in.Entity = "  " }), "entity", []string{"entity is empty"}},
		{"long entity", reviewer, base(func(in *NewFact) { in.Entity = strings.Repeat("x", 201) }), "entity", []string{"201 characters", "at most 200"}},
		{"bad entity kind", reviewer, base(func(in *NewFact) { in.EntityKind = "Person" }), "entity_kind", []string{`"Person"`}},
		{"bad key", reviewer, base(func(in *NewFact) { in.Key = "Lives In" }), "key", []string{`"Lives In"`, "up to 64 lowercase"}},
		{"empty content", reviewer, base(func(in *NewFact) { in.Content = " \n " }), "content", []string{"content is empty"}},
		{"long content", reviewer, base(func(in *NewFact) { in.Content = strings.Repeat("é", 10001) }), "content", []string{"10001 characters", "at most 10000"}},
		{"confidence above 1", reviewer, base(func(in *NewFact) { in.Confidence = pointerTo(1.5) }), "confidence", []string{"1.5", "0, or a number from 0.001 to 1"}},
		{"confidence below 0", reviewer, base(func(in *NewFact) { in.Confidence = pointerTo(-0.1) }), "confidence", []string{"0, or a number from 0.001 to 1"}},
		{"confidence NaN", reviewer, base(func(in *NewFact) { in.Confidence = pointerTo(math.NaN()) }), "confidence", []string{"0, or a number from 0.001 to 1"}},
		{"importance", reviewer, base(func(in *NewFact) { in.Importance = pointerTo(2.0) }), "importance", []string{"0, or a number from 0.001 to 1"}},
		{"durability", reviewer, base(func(in *NewFact) { in.Durability = "forever" }), "durability", []string{`"forever"`, "permanent, long_term, short_term, ephemeral"}},
		{"category", reviewer, base(func(in *NewFact) { in.Category = "Mood!" }), "category", []string{`"Mood!"`, "lowercase slug"}},
		{"category decision", reviewer, base(func(in *NewFact) { in.Category = CategoryDecision }), "category", []string{"record a decision"}},
		{"expired", reviewer, base(func(in *NewFact) { in.ExpiresAt = &past }), "expires_at", []string{"not in the future"}},
		{"deadline on observation", reviewer, base(func(in *NewFact) { in.Deadline = &soon }), "deadline", []string{"only to obligations", "expires_at"}},
		{"source", reviewer, base(func(in *NewFact) { in.Source = "robot" }), "source", []string{`"robot"`, "api, human, extraction, import, consolidation"}},
		{"token claims human", bot, base(func(in *NewFact) { in.Source = SourceHuman }), "source", []string{"source human"}},
		{"source node", reviewer, base(func(in *NewFact) { in.SourceNodeID = pointerTo(int64(-1)) }), "source_node_id", []string{"positive"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := fx.s.CreateFact(context.Background(), c.actor, c.in)
			e := wantError(t, "CreateFact()", err, CodeInvalid, c.parts...)
			if e.Field != c.field {
				t.Errorf("CreateFact() field = %q, want %q", e.Field, c.field)
			}
		})
	}
	if n := fx.count(t, `SELECT count(*) FROM entity_facts`) + fx.count(t, `SELECT count(*) FROM entities`); n != 0 {
		t.Errorf("rows written by refused creates = %d, want 0", n)
	}
	obligation := fx.create(t, reviewer, base(func(in *NewFact) { in.Category = CategoryObligation; in.Deadline = &soon }))
	if !timeEqual(obligation.Deadline, &soon) {
		t.Errorf("CreateFact(obligation).Deadline = %v, want %v", obligation.Deadline, soon)
	}
}

func TestCreateFactReinforces(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	mood := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Key: "mood", Content: "Feels tired today.",
		Category: CategoryMood, Confidence: pointerTo(0.6)})
	if mood.Durability != Ephemeral {
		t.Fatalf("mood durability = %s, want ephemeral", mood.Durability)
	}

	fx.advance(12 * time.Hour)
	got, reinforced, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "home", Entity: "Mia", Key: "mood",
		Content: "  feels TIRED today. ", Category: CategoryIdentity, Durability: Permanent, Confidence: pointerTo(0.5)})
	if err != nil || !reinforced {
		t.Fatalf("CreateFact(same mood) = %v, reinforced %t, want a reinforcement", err, reinforced)
	}
	cNow := 0.6 * math.Pow(2, -12.0/36.0)
	want := 1 - (1-cNow)*(1-0.5)
	if got.ID != mood.ID || math.Abs(got.Confidence-want) > 1e-12 {
		t.Errorf("reinforced fact %d confidence = %.15f, want fact %d at %.15f", got.ID, got.Confidence, mood.ID, want)
	}
	if !got.ConfirmedAt.Equal(fx.clock()) || got.ExtractionCount != 2 || got.Version != 2 {
		t.Errorf("reinforced confirmed_at %v count %d version %d, want %v, 2, 2", got.ConfirmedAt, got.ExtractionCount, got.Version, fx.clock())
	}
	if got.Durability != Ephemeral || got.Category != CategoryMood || got.Content != mood.Content {
		t.Errorf("reinforced = %s/%s %q, want ephemeral/mood %q unchanged", got.Durability, got.Category, got.Content, mood.Content)
	}
	if !timeEqual(got.ForgetAt, fx.sqlForgetAt(t, got.ID)) {
		t.Errorf("forget_at = %v, want tenure_forget_at %v", got.ForgetAt, fx.sqlForgetAt(t, got.ID))
	}

	for i := range 10 {
		fx.advance(time.Hour)
		prev := got.Confidence
		got, reinforced, err = fx.s.CreateFact(ctx, System("extraction"), NewFact{Scope: "home", Entity: "Mia", Key: "mood",
			Content: "Feels tired today.", Category: CategoryMood, Durability: LongTerm, Confidence: pointerTo(0.7)})
		if err != nil || !reinforced {
			t.Fatalf("reinforcement %d = %v, reinforced %t", i, err, reinforced)
		}
		want := 1 - (1-prev*math.Pow(2, -1.0/36.0))*(1-0.7)
		if math.Abs(got.Confidence-want) > 1e-12 {
			t.Errorf("reinforcement %d confidence = %.15f, want %.15f", i, got.Confidence, want)
		}
	}
	if got.Durability != Ephemeral || got.Category != CategoryMood || got.ExtractionCount != 12 {
		t.Errorf("after 12 observations = %s/%s count %d, want ephemeral/mood count 12", got.Durability, got.Category, got.ExtractionCount)
	}
	if n := fx.count(t, `SELECT count(*) FROM entity_facts`); n != 1 {
		t.Errorf("facts = %d, want the one mood", n)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.reinforce' AND target_id = $1::bigint::text`, mood.ID); n != 11 {
		t.Errorf("fact.reinforce audit rows = %d, want 11", n)
	}

	t.Run("different key or archived fact writes anew", func(t *testing.T) {
		other := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Key: "feeling", Content: "Feels tired today.", Category: CategoryMood})
		if other.ID == mood.ID {
			t.Errorf("CreateFact(other key) reinforced fact %d, want a new fact", mood.ID)
		}
		if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{mood.ID}, "passed"); err != nil {
			t.Fatal(err)
		}
		again, reinforced, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "home", Entity: "Mia", Key: "mood", Content: "Feels tired today.", Category: CategoryMood})
		if err != nil || reinforced || again.ID == mood.ID {
			t.Errorf("CreateFact(like an archived fact) = %d, reinforced %t, %v; want a new fact", again.ID, reinforced, err)
		}
	})
}

// recordLock records a locked decision through the reviewer and returns it.
func (fx *fixture) recordLock(t *testing.T, scope, entity, key string) Decision {
	t.Helper()
	d, err := fx.s.RecordDecision(context.Background(), reviewer, NewDecision{
		Scope: scope, Entity: entity, Key: key, Decision: "Cracked housings are replaced without photos.",
		Alternatives: []string{"require photos"}, Reasoning: "Photos delayed RMAs by a week.",
	})
	if err != nil {
		t.Fatalf("RecordDecision() error = %v", err)
	}
	return d
}

// wantLocked checks err is the refusal of decision d.
func wantLocked(t *testing.T, call string, err error, d Decision) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Locked == nil {
		t.Fatalf("%s = %v, want a refusal carrying the locked decision", call, err)
	}
	if l := e.Locked; l.ID != d.ID || l.Reasoning != d.Reasoning || l.Decision != d.Decision || ErrorCode(err) != CodeDecisionLocked {
		t.Errorf("%s = %+v (code %s), want decision %d with its reasoning", call, l, ErrorCode(err), d.ID)
	}
}

func TestCreateFactDecisionLocked(t *testing.T) {
	cases := []struct {
		actor  Actor
		source string
	}{
		{bot, "api"},
		{System("extraction"), "extraction"},
		{System("import"), "import"},
	}
	for _, c := range cases {
		t.Run(c.actor.String(), func(t *testing.T) {
			fx := newFixture(t)
			ctx := context.Background()
			d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
			facts := fx.count(t, `SELECT count(*) FROM entity_facts`)

			_, _, err := fx.s.CreateFact(ctx, c.actor, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy",
				Content: "RMAs should wait for photos."})
			wantLocked(t, "CreateFact(locked key)", err, d)

			if n := fx.count(t, `SELECT count(*) FROM entity_facts`); n != facts {
				t.Errorf("facts = %d, want %d: the refused fact must not be written", n, facts)
			}
			var (
				runID, nodeID       *int64
				phase               *int16
				scope, reason, src  string
				content             string
				decisionID, rejects int64
			)
			err = fx.pool.QueryRow(ctx, `SELECT run_id, phase, node_id, scope, reason, source, content, decision_id,
				(SELECT count(*) FROM consolidation_rejections) FROM consolidation_rejections`).
				Scan(&runID, &phase, &nodeID, &scope, &reason, &src, &content, &decisionID, &rejects)
			if err != nil {
				t.Fatalf("want one rejection row: %v", err)
			}
			if rejects != 1 || runID != nil || phase != nil || nodeID != nil || scope != "acme" || reason != "decision_locked" ||
				src != c.source || content != "RMAs should wait for photos." || decisionID != d.ID {
				t.Errorf("rejection = run %v phase %v node %v %s %s %s %q decision %d (of %d rows), want one run-less decision_locked row from %s for decision %d",
					runID, phase, nodeID, scope, reason, src, content, decisionID, rejects, c.source, d.ID)
			}
			if n := fx.count(t, `SELECT count(*) FROM review_items WHERE kind = 'decision_refusal' AND status = 'open'`); n != 1 {
				t.Errorf("open decision_refusal review items = %d, want 1", n)
			}
			logs := fx.logLines(t, "decision_locked")
			if len(logs) != 1 || logs[0]["level"] != "WARN" || logs[0]["scope"] != "acme" ||
				logs[0]["decision_id"] != float64(d.ID) || logs[0]["actor"] != c.actor.String() {
				t.Errorf("decision_locked logs = %v, want one WARN with scope, decision_id and actor", logs)
			}
			if n := fx.metrics.rejections("decision_locked"); n != 1 {
				t.Errorf("Rejected(decision_locked) calls = %d, want 1", n)
			}
		})
	}

	t.Run("who and what passes", func(t *testing.T) {
		fx := newFixture(t)
		fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
		for _, c := range []struct {
			actor Actor
			key   string
		}{
			{reviewer, "rma_policy"}, // people act deliberately
			{bot, "shipping"},        // another key
			{bot, ""},                // no key, no lock
		} {
			if _, _, err := fx.s.CreateFact(context.Background(), c.actor, NewFact{Scope: "acme", Entity: "Acme Robotics",
				Key: c.key, Content: "RMAs should wait for photos."}); err != nil {
				t.Errorf("CreateFact(by %s, key %q) = %v, want it written", c.actor, c.key, err)
			}
		}
		if n := fx.count(t, `SELECT count(*) FROM consolidation_rejections`); n != 0 {
			t.Errorf("rejections = %d, want 0", n)
		}
	})
}

func TestUpdateFact(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	f := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Key: "lives_in", Content: "Lives in Lyon.", Confidence: pointerTo(0.7)})
	fx.advance(48 * time.Hour)

	got, err := fx.s.UpdateFact(ctx, reviewer, f.ID, 1, FactChanges{Content: pointerTo("Lives in Paris."), Confidence: pointerTo(0.9)}, "moved in March")
	if err != nil {
		t.Fatalf("UpdateFact() error = %v", err)
	}
	if got.Content != "Lives in Paris." || got.Confidence != 0.9 || got.Version != 2 || !got.ConfirmedAt.Equal(fx.clock()) ||
		got.Durability != LongTerm || got.Key != "lives_in" {
		t.Errorf("UpdateFact() = %+v, want new content, confidence 0.9 confirmed now, version 2, rest unchanged", got)
	}
	if !timeEqual(got.ForgetAt, fx.sqlForgetAt(t, f.ID)) || !got.ForgetAt.After(*f.ForgetAt) {
		t.Errorf("forget_at = %v, want tenure_forget_at %v, later than %v", got.ForgetAt, fx.sqlForgetAt(t, f.ID), f.ForgetAt)
	}
	hist, err := fx.s.FactHistory(ctx, f.ID)
	if err != nil || len(hist) != 2 || hist[0].Action != "fact.update" || hist[1].Action != "fact.create" {
		t.Fatalf("FactHistory() = %+v, %v; want update then create", hist, err)
	}
	var before, after map[string]any
	if err := json.Unmarshal(hist[0].Before, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(hist[0].After, &after); err != nil {
		t.Fatal(err)
	}
	if before["content"] != "Lives in Lyon." || after["content"] != "Lives in Paris." || before["confidence"] != 0.7 ||
		after["confidence"] != 0.9 || after["version"] != 2.0 || before["key"] != nil || after["durability"] != nil {
		t.Errorf("audit before %v after %v, want only the changed fields and versions", before, after)
	}
	if hist[0].Reason != "moved in March" || hist[0].Actor != "user:ann@example.com" {
		t.Errorf("audit reason %q actor %q, want the reviewer's reason", hist[0].Reason, hist[0].Actor)
	}

	t.Run("stale version", func(t *testing.T) {
		audits := fx.count(t, `SELECT count(*) FROM audit_log`)
		_, err := fx.s.UpdateFact(ctx, reviewer, f.ID, 1, FactChanges{Content: pointerTo("Lives in Nice.")}, "")
		var c *Error
		if !errors.As(err, &c) || c.CurrentFact == nil {
			t.Fatalf("UpdateFact(version 1) = %v, want a conflict carrying the current fact", err)
		}
		wantError(t, "UpdateFact(version 1)", err, CodeConflict, "changed by someone else", "now version 2")
		if c.CurrentFact.Content != "Lives in Paris." || c.CurrentFact.Version != 2 {
			t.Errorf("conflict's CurrentFact = %q v%d, want the current fact at version 2", c.CurrentFact.Content, c.CurrentFact.Version)
		}
		if now := fx.get(t, f.ID); now.Content != "Lives in Paris." || now.Version != 2 || fx.count(t, `SELECT count(*) FROM audit_log`) != audits {
			t.Errorf("after a conflict the fact is %q v%d, want nothing written", now.Content, now.Version)
		}
	})

	t.Run("no change", func(t *testing.T) {
		got, err := fx.s.UpdateFact(ctx, reviewer, f.ID, 2, FactChanges{Content: pointerTo(" Lives in Paris. "), Confidence: pointerTo(0.9)}, "")
		if err != nil || got.Version != 2 {
			t.Errorf("UpdateFact(same values) = v%d, %v; want version 2 and nothing written", got.Version, err)
		}
	})

	t.Run("deadline and expiry", func(t *testing.T) {
		deadline := fx.clock().Add(72 * time.Hour)
		_, err := fx.s.UpdateFact(ctx, reviewer, f.ID, 2, FactChanges{Deadline: &deadline}, "")
		wantError(t, "UpdateFact(deadline on observation)", err, CodeInvalid, "only to obligations")
		ob, err := fx.s.UpdateFact(ctx, reviewer, f.ID, 2, FactChanges{Category: pointerTo(CategoryObligation), Deadline: &deadline}, "")
		if err != nil || !timeEqual(ob.Deadline, &deadline) || !timeEqual(ob.ForgetAt, fx.sqlForgetAt(t, f.ID)) {
			t.Fatalf("UpdateFact(obligation with deadline) = %v, %v", ob.Deadline, err)
		}
		// A deadline-anchored obligation does not decay before its deadline.
		if want := deadline.Add(time.Duration(36 * 3600 * math.Log2(0.9/0.1) * float64(time.Second))); ob.ForgetAt.Sub(want).Abs() > time.Microsecond {
			t.Errorf("obligation forget_at = %v, want %v", ob.ForgetAt, want)
		}
		expires := fx.clock().Add(24 * time.Hour)
		ex, err := fx.s.UpdateFact(ctx, reviewer, f.ID, 3, FactChanges{ClearDeadline: true, ExpiresAt: &expires}, "")
		if err != nil || ex.Deadline != nil || !timeEqual(ex.ExpiresAt, &expires) || !timeEqual(ex.ForgetAt, &expires) {
			t.Fatalf("UpdateFact(clear deadline, expire) = deadline %v expires %v forget %v, %v", ex.Deadline, ex.ExpiresAt, ex.ForgetAt, err)
		}
		cl, err := fx.s.UpdateFact(ctx, reviewer, f.ID, 4, FactChanges{ClearExpiresAt: true}, "")
		if err != nil || cl.ExpiresAt != nil || !timeEqual(cl.ForgetAt, fx.sqlForgetAt(t, f.ID)) {
			t.Errorf("UpdateFact(clear expires_at) = %v, %v", cl.ExpiresAt, err)
		}
		_, err = fx.s.UpdateFact(ctx, reviewer, f.ID, 5, FactChanges{Deadline: &deadline, ClearDeadline: true}, "")
		wantError(t, "UpdateFact(set and clear deadline)", err, CodeInvalid, "not both")
	})

	t.Run("validation and not found", func(t *testing.T) {
		_, err := fx.s.UpdateFact(ctx, reviewer, f.ID, 5, FactChanges{Durability: pointerTo(Durability("forever"))}, "")
		wantError(t, "UpdateFact(durability forever)", err, CodeInvalid, "allowed values are permanent")
		_, err = fx.s.UpdateFact(ctx, reviewer, f.ID, 5, FactChanges{Category: pointerTo(CategoryDecision)}, "")
		wantError(t, "UpdateFact(category decision)", err, CodeInvalid, "record a decision")
		_, err = fx.s.UpdateFact(ctx, reviewer, 999999, 1, FactChanges{Content: pointerTo("x")}, "")
		wantError(t, "UpdateFact(999999)", err, CodeNotFound, "no fact with id 999999")
	})
}

func TestUpdateFactMoodsNeverHarden(t *testing.T) {
	cases := []struct {
		name     string
		actor    Actor
		category string
		durab    Durability
		ch       FactChanges
		forbid   []string // nil: allowed
	}{
		{"agent raises durability", bot, CategoryObservation, ShortTerm, FactChanges{Durability: pointerTo(LongTerm)},
			[]string{"short_term", "may not raise its durability to long_term", "only a reviewer can do that, in the console"}},
		{"agent hardens a mood", bot, CategoryMood, Ephemeral, FactChanges{Category: pointerTo(CategoryIdentity)},
			[]string{"is a mood", "may not turn it into identity", "only a reviewer"}},
		{"agent reclassifies a state", bot, CategoryState, ShortTerm, FactChanges{Category: pointerTo(CategoryObservation)},
			[]string{"is a state", "only a reviewer"}},
		{"extraction raises a mood", System("extraction"), CategoryMood, Ephemeral, FactChanges{Durability: pointerTo(ShortTerm)},
			[]string{"only a reviewer"}},
		{"agent lowers durability", bot, CategoryObservation, LongTerm, FactChanges{Durability: pointerTo(Ephemeral)}, nil},
		{"agent recategorises an observation", bot, CategoryObservation, LongTerm, FactChanges{Category: pointerTo(CategoryPreference)}, nil},
		{"reviewer hardens a mood", reviewer, CategoryMood, Ephemeral, FactChanges{Category: pointerTo(CategoryIdentity), Durability: pointerTo(Permanent)}, nil},
	}
	fx := newFixture(t)
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: c.name, Category: c.category, Durability: c.durab})
			audits := fx.count(t, `SELECT count(*) FROM audit_log WHERE target_id = $1::bigint::text`, f.ID)
			got, err := fx.s.UpdateFact(ctx, c.actor, f.ID, f.Version, c.ch, "reclassified")
			if c.forbid != nil {
				wantError(t, "UpdateFact()", err, CodeForbidden, c.forbid...)
				if now := fx.get(t, f.ID); now.Version != 1 || now.Durability != c.durab || now.Category != c.category {
					t.Errorf("after refusal fact = %s/%s v%d, want unchanged", now.Durability, now.Category, now.Version)
				}
				return
			}
			if err != nil {
				t.Fatalf("UpdateFact() = %v, want it allowed", err)
			}
			if c.ch.Category != nil && got.Category != *c.ch.Category || c.ch.Durability != nil && got.Durability != *c.ch.Durability {
				t.Errorf("UpdateFact() = %s/%s, want the change applied", got.Durability, got.Category)
			}
			if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE target_id = $1::bigint::text AND action = 'fact.update' AND actor = $2`, f.ID, c.actor.String()); n != 1 || audits != 1 {
				t.Errorf("fact.update audit rows by %s = %d, want 1", c.actor, n)
			}
		})
	}
}

func TestUpdateFactLocked(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	// A person may write on the locked key; an agent may then not edit it.
	onKey := fx.create(t, reviewer, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy", Content: "Photos help triage."})
	free := fx.create(t, bot, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "shipping", Content: "Ships from Lyon."})

	_, err := fx.s.UpdateFact(ctx, bot, onKey.ID, 1, FactChanges{Content: pointerTo("RMAs need photos.")}, "")
	wantLocked(t, "UpdateFact(agent, locked key)", err, d)
	_, err = fx.s.UpdateFact(ctx, bot, free.ID, 1, FactChanges{Key: pointerTo("rma_policy")}, "")
	wantLocked(t, "UpdateFact(agent, move onto locked key)", err, d)
	if n := fx.count(t, `SELECT count(*) FROM consolidation_rejections WHERE decision_id = $1`, d.ID); n != 2 {
		t.Errorf("rejections = %d, want 2", n)
	}
	if a, b := fx.get(t, onKey.ID), fx.get(t, free.ID); a.Version != 1 || b.Version != 1 || b.Key != "shipping" {
		t.Errorf("after refusals versions %d %d key %q, want both untouched", a.Version, b.Version, b.Key)
	}
	if _, err := fx.s.UpdateFact(ctx, reviewer, onKey.ID, 1, FactChanges{Content: pointerTo("RMAs need photos.")}, ""); err != nil {
		t.Errorf("UpdateFact(reviewer, locked key) = %v, want allowed", err)
	}
	_, err = fx.s.UpdateFact(ctx, reviewer, d.FactID, 1, FactChanges{Content: pointerTo("Photos required.")}, "")
	wantError(t, "UpdateFact(decision's fact)", err, CodeInvalid, "records decision", "edit the decision")
}

func TestReinforceFact(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	f := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Key: "state", Content: "Is travelling.", Category: CategoryState, Confidence: pointerTo(0.5)})
	fx.advance(5 * 24 * time.Hour)
	got, err := fx.s.ReinforceFact(ctx, bot, f.ID, 0.4)
	if err != nil {
		t.Fatalf("ReinforceFact() error = %v", err)
	}
	want := 1 - (1-0.5*math.Pow(2, -5.0/10.0))*(1-0.4)
	if math.Abs(got.Confidence-want) > 1e-12 || got.Durability != ShortTerm || got.Category != CategoryState || got.ExtractionCount != 2 {
		t.Errorf("ReinforceFact(0.4) = %.15f %s/%s count %d, want %.15f short_term/state count 2",
			got.Confidence, got.Durability, got.Category, got.ExtractionCount, want)
	}
	_, err = fx.s.ReinforceFact(ctx, bot, f.ID, 1.2)
	wantError(t, "ReinforceFact(1.2)", err, CodeInvalid, "0, or a number from 0.001 to 1")
	if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{f.ID}, ""); err != nil {
		t.Fatal(err)
	}
	_, err = fx.s.ReinforceFact(ctx, bot, f.ID, 0.4)
	wantError(t, "ReinforceFact(archived)", err, CodeConflict, "archived", "restore it")

	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	onKey := fx.create(t, reviewer, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy", Content: "Photos help triage."})
	_, err = fx.s.ReinforceFact(ctx, bot, onKey.ID, 0.4)
	wantLocked(t, "ReinforceFact(locked key)", err, d)
}

func TestBulkArchiveRestore(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	var ids []int64
	for _, c := range []string{"tea", "jazz", "rain"} {
		ids = append(ids, fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Key: c, Content: "Likes " + c + ".", Category: CategoryPreference}).ID)
	}
	keep := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "Keeps a diary."})

	t.Run("unknown ids change nothing", func(t *testing.T) {
		audits := fx.count(t, `SELECT count(*) FROM audit_log`)
		for name, call := range map[string]func() (int, error){
			"ArchiveFacts": func() (int, error) { return fx.s.ArchiveFacts(ctx, reviewer, []int64{ids[0], 999998, 999999}, "") },
			"RestoreFacts": func() (int, error) { return fx.s.RestoreFacts(ctx, reviewer, []int64{999999, ids[0]}, "") },
			"ReclassifyFacts": func() (int, error) {
				return fx.s.ReclassifyFacts(ctx, reviewer, []int64{ids[1], 999999}, pointerTo(ShortTerm), nil, "")
			},
		} {
			n, err := call()
			if n != 0 {
				t.Errorf("%s() = %d, want 0", name, n)
			}
			wantError(t, name+"()", err, CodeNotFound, "999999", "nothing was changed")
		}
		if got := fx.count(t, `SELECT count(*) FROM audit_log`); got != audits {
			t.Errorf("audit rows = %d, want %d", got, audits)
		}
		if got := fx.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND version = 1`); got != 4 {
			t.Errorf("untouched active facts = %d, want 4", got)
		}
		_, err := fx.s.ArchiveFacts(ctx, reviewer, nil, "")
		wantError(t, "ArchiveFacts(no ids)", err, CodeInvalid, "no facts chosen")
	})

	fx.advance(time.Hour)
	n, err := fx.s.ArchiveFacts(ctx, reviewer, append(ids, ids[0]), "duplicates of the diary")
	if err != nil || n != 3 {
		t.Fatalf("ArchiveFacts() = %d, %v; want 3", n, err)
	}
	for _, id := range ids {
		f := fx.get(t, id)
		if f.Status != StatusArchived || f.ArchivedAt == nil || !f.ArchivedAt.Equal(fx.clock()) || f.ArchiveReason != "duplicates of the diary" || f.Version != 2 {
			t.Errorf("archived fact %d = %s at %v (%q) v%d, want archived now with the reason, v2", id, f.Status, f.ArchivedAt, f.ArchiveReason, f.Version)
		}
		hist, err := fx.s.FactHistory(ctx, id)
		if err != nil || len(hist) != 2 || hist[0].Action != "fact.archive" || hist[0].Reason != "duplicates of the diary" || hist[0].Actor != reviewer.String() {
			t.Errorf("FactHistory(%d) = %+v, %v; want fact.archive first", id, hist, err)
		}
	}
	if f := fx.get(t, keep.ID); f.Status != StatusActive {
		t.Errorf("fact %d not named = %s, want active", keep.ID, f.Status)
	}
	if n, err := fx.s.ArchiveFacts(ctx, reviewer, ids, ""); err != nil || n != 0 {
		t.Errorf("ArchiveFacts(already archived) = %d, %v; want 0", n, err)
	}
	if n, err := fx.s.ArchiveFacts(ctx, bot, []int64{keep.ID}, ""); err != nil || n != 1 || fx.get(t, keep.ID).ArchiveReason != "archived by token:laptop-agent" {
		t.Errorf("ArchiveFacts(no reason) = %d, %v, reason %q", n, err, fx.get(t, keep.ID).ArchiveReason)
	}

	// Restore two: one still well before its forget_at, and one long past it,
	// which must be re-confirmed or the next decay tick archives it again.
	fx.advance(3 * 365 * 24 * time.Hour)
	stale := fx.get(t, ids[1])
	n, err = fx.s.RestoreFacts(ctx, reviewer, []int64{ids[1]}, "still true")
	if err != nil || n != 1 {
		t.Fatalf("RestoreFacts() = %d, %v; want 1", n, err)
	}
	got := fx.get(t, ids[1])
	if got.Status != StatusActive || got.ArchivedAt != nil || got.ArchiveReason != "" || !got.ConfirmedAt.Equal(fx.clock()) ||
		!got.ForgetAt.After(fx.clock()) || !timeEqual(got.ForgetAt, fx.sqlForgetAt(t, got.ID)) || got.Confidence != stale.Confidence {
		t.Errorf("restored fact = %s archived %v (%q) confirmed %v forget %v c0 %v, want active, re-confirmed now, forget_at ahead, c0 kept",
			got.Status, got.ArchivedAt, got.ArchiveReason, got.ConfirmedAt, got.ForgetAt, got.Confidence)
	}
	if due := fx.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND forget_at <= $1`, fx.clock()); due != 0 {
		t.Errorf("facts due for decay after restore = %d, want 0", due)
	}
	hist, _ := fx.s.FactHistory(ctx, ids[1])
	var after map[string]any
	_ = json.Unmarshal(hist[0].After, &after)
	if hist[0].Action != "fact.restore" || hist[0].Reason != "still true" || after["status"] != "active" || after["confirmed_at"] == nil {
		t.Errorf("restore audit = %s %q after %v, want fact.restore with the re-confirmation", hist[0].Action, hist[0].Reason, after)
	}

	t.Run("restore within forget_at keeps confirmed_at", func(t *testing.T) {
		f := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "Owns a bike."})
		if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{f.ID}, "by mistake"); err != nil {
			t.Fatal(err)
		}
		fx.advance(time.Hour)
		if _, err := fx.s.RestoreFacts(ctx, reviewer, []int64{f.ID}, ""); err != nil {
			t.Fatal(err)
		}
		if got := fx.get(t, f.ID); !got.ConfirmedAt.Equal(f.ConfirmedAt) || got.Status != StatusActive || !timeEqual(got.ForgetAt, f.ForgetAt) {
			t.Errorf("restored fact confirmed %v forget %v, want %v and %v unchanged", got.ConfirmedAt, got.ForgetAt, f.ConfirmedAt, f.ForgetAt)
		}
	})

	t.Run("restore clears a passed expiry", func(t *testing.T) {
		expires := fx.clock().Add(time.Hour)
		f := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "Is at the dentist.", ExpiresAt: &expires})
		if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{f.ID}, "expired"); err != nil {
			t.Fatal(err)
		}
		fx.advance(2 * time.Hour)
		if _, err := fx.s.RestoreFacts(ctx, reviewer, []int64{f.ID}, ""); err != nil {
			t.Fatal(err)
		}
		if got := fx.get(t, f.ID); got.ExpiresAt != nil || got.ForgetAt == nil || !got.ForgetAt.After(fx.clock()) {
			t.Errorf("restored expired fact expires %v forget %v, want no expiry and forget_at ahead", got.ExpiresAt, got.ForgetAt)
		}
	})
}

func TestReclassifyFacts(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	a := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "Is learning Go.", Category: CategoryState})
	b := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "Likes Go.", Category: CategoryPreference})
	mood := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "Is cheerful.", Category: CategoryMood})
	ids := []int64{a.ID, b.ID}

	n, err := fx.s.ReclassifyFacts(ctx, reviewer, ids, pointerTo(Permanent), pointerTo(CategoryIdentity), "part of who she is")
	if err != nil || n != 2 {
		t.Fatalf("ReclassifyFacts() = %d, %v; want 2", n, err)
	}
	for _, id := range ids {
		f := fx.get(t, id)
		if f.Durability != Permanent || f.Category != CategoryIdentity || f.Version != 2 || !timeEqual(f.ForgetAt, fx.sqlForgetAt(t, id)) {
			t.Errorf("fact %d = %s/%s v%d forget %v, want permanent/identity v2 and forget_at recomputed", id, f.Durability, f.Category, f.Version, f.ForgetAt)
		}
		hist, _ := fx.s.FactHistory(ctx, id)
		var before, after map[string]any
		_ = json.Unmarshal(hist[0].Before, &before)
		_ = json.Unmarshal(hist[0].After, &after)
		if hist[0].Action != "fact.reclassify" || hist[0].Reason != "part of who she is" || after["durability"] != "permanent" ||
			after["category"] != "identity" || before["category"] == nil || before["durability"] == nil {
			t.Errorf("reclassify audit of %d = %s before %v after %v", id, hist[0].Action, before, after)
		}
	}
	if n, err := fx.s.ReclassifyFacts(ctx, reviewer, ids, pointerTo(Permanent), nil, ""); err != nil || n != 0 {
		t.Errorf("ReclassifyFacts(already there) = %d, %v; want 0", n, err)
	}

	refusals := []struct {
		name       string
		actor      Actor
		ids        []int64
		durability *Durability
		category   *string
		code       Code
		parts      []string
	}{
		{"nothing", reviewer, ids, nil, nil, CodeInvalid, []string{"nothing to change"}},
		{"bad durability", reviewer, ids, pointerTo(Durability("x")), nil, CodeInvalid, []string{"allowed values"}},
		{"to decision", reviewer, ids, nil, pointerTo(CategoryDecision), CodeInvalid, []string{"record a decision"}},
		{"agent raises", bot, []int64{mood.ID, b.ID}, pointerTo(LongTerm), nil, CodeForbidden, []string{"only a reviewer"}},
		{"agent moves a mood", bot, []int64{mood.ID}, nil, pointerTo(CategoryObservation), CodeForbidden, []string{"is a mood"}},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			n, err := fx.s.ReclassifyFacts(ctx, c.actor, c.ids, c.durability, c.category, "")
			if n != 0 {
				t.Errorf("ReclassifyFacts() = %d, want 0", n)
			}
			wantError(t, "ReclassifyFacts()", err, c.code, c.parts...)
		})
	}
	if f := fx.get(t, mood.ID); f.Durability != Ephemeral || f.Category != CategoryMood || f.Version != 1 {
		t.Errorf("mood after refusals = %s/%s v%d, want untouched", f.Durability, f.Category, f.Version)
	}

	t.Run("decisions and locks", func(t *testing.T) {
		d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
		_, err := fx.s.ReclassifyFacts(ctx, reviewer, []int64{a.ID, d.FactID}, pointerTo(LongTerm), nil, "")
		wantError(t, "ReclassifyFacts(decision's fact)", err, CodeInvalid, "records decision")
		other := fx.recordLock(t, "acme", "Acme Robotics", "warranty")
		aBefore := fx.get(t, a.ID)
		_, err = fx.s.ReclassifyFacts(ctx, reviewer, []int64{other.FactID, a.ID, d.FactID}, pointerTo(LongTerm), nil, "")
		wantError(t, "ReclassifyFacts(decisions' facts)", err, CodeInvalid,
			fmt.Sprintf("facts %d, %d record decisions", d.FactID, other.FactID), "edit those decisions instead", "nothing was changed")
		if got := fx.get(t, a.ID); got.Version != aBefore.Version || got.Durability != aBefore.Durability {
			t.Errorf("fact after a refused reclassify = %s v%d, want untouched", got.Durability, got.Version)
		}
		onKey := fx.create(t, reviewer, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy", Content: "Photos help."})
		_, err = fx.s.ReclassifyFacts(ctx, bot, []int64{onKey.ID, mood.ID}, pointerTo(Ephemeral), nil, "")
		wantLocked(t, "ReclassifyFacts(agent, locked key)", err, d)
		if n := fx.count(t, `SELECT count(*) FROM consolidation_rejections WHERE decision_id = $1`, d.ID); n != 1 {
			t.Errorf("rejections = %d, want 1", n)
		}
		if f := fx.get(t, onKey.ID); f.Durability != LongTerm || f.Version != 1 {
			t.Errorf("locked fact = %s v%d, want untouched", f.Durability, f.Version)
		}
	})
}

func TestFactHistory(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	f := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Content: "Plays chess."})
	fx.advance(time.Minute)
	if _, err := fx.s.ReinforceFact(ctx, bot, f.ID, 0.5); err != nil {
		t.Fatal(err)
	}
	fx.advance(time.Minute)
	if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{f.ID}, "stopped"); err != nil {
		t.Fatal(err)
	}
	hist, err := fx.s.FactHistory(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hist {
		got = append(got, h.Action+"/"+h.Actor)
	}
	want := []string{"fact.archive/user:ann@example.com", "fact.reinforce/token:laptop-agent", "fact.create/token:laptop-agent"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("FactHistory() = %v, want %v", got, want)
	}
	if !hist[0].At.After(hist[2].At) || hist[2].Before != nil || hist[2].After == nil {
		t.Errorf("FactHistory() times %v..%v, create before %s after %s", hist[2].At, hist[0].At, hist[2].Before, hist[2].After)
	}
	_, err = fx.s.FactHistory(ctx, 999999)
	wantError(t, "FactHistory(999999)", err, CodeNotFound, "no fact with id 999999")
}

// TestCreateFactConcurrent writes the same fact from many writers at once:
// the key lock makes them reinforce one fact rather than insert several.
func TestCreateFactConcurrent(t *testing.T) {
	fx := newFixture(t)
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "Exists."})
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := fx.s.CreateFact(context.Background(), bot, NewFact{Scope: "home", Entity: "Mia", Key: "city", Content: "Lives in Lyon."})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("CreateFact() error = %v", err)
		}
	}
	var n, count int
	if err := fx.pool.QueryRow(context.Background(), `SELECT count(*), max(extraction_count) FROM entity_facts WHERE key = 'city'`).Scan(&n, &count); err != nil {
		t.Fatal(err)
	}
	if n != 1 || count != writers {
		t.Errorf("concurrent writes = %d facts, extraction_count %d; want 1 fact observed %d times", n, count, writers)
	}
}
