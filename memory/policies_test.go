package memory

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// policy returns the policy whose Target is target.
func (fx *fixture) policy(t *testing.T, target string) Policy {
	t.Helper()
	ps, err := fx.s.ListPolicies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Target() == target {
			return p
		}
	}
	t.Fatalf("no policy for %s", target)
	return Policy{}
}

func TestListPolicies(t *testing.T) {
	fx := newFixture(t)
	ps, err := fx.s.ListPolicies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		hl := "never"
		if p.HalfLife != nil {
			hl = p.HalfLife.String()
		}
		got = append(got, p.Target()+"="+hl+"/"+p.Anchor)
	}
	want := []string{
		"durability permanent=87600h0m0s/confirmed_at", "durability long_term=4320h0m0s/confirmed_at",
		"durability short_term=240h0m0s/confirmed_at", "durability ephemeral=36h0m0s/confirmed_at",
		"category decision=never/confirmed_at", "category obligation=36h0m0s/deadline", "category routine=never/confirmed_at",
	}
	if len(got) != len(want) {
		t.Fatalf("ListPolicies() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ListPolicies()[%d] = %s, want %s", i, got[i], want[i])
		}
	}
}

// TestDecayMirrorAgreesWithSQL holds the Go mirror of the decay formula to
// tenure_effective_confidence and tenure_forget_at.
func TestDecayMirrorAgreesWithSQL(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	policies, err := fx.s.ListPolicies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Make one floor other than the default, to be sure it is read.
	short := fx.policy(t, "durability short_term")
	if _, _, err := fx.s.UpdatePolicy(ctx, reviewer, short.ID, PolicyChanges{Floor: pointerTo(0.25)}, ""); err != nil {
		t.Fatal(err)
	}
	if policies, err = fx.s.ListPolicies(ctx); err != nil {
		t.Fatal(err)
	}
	h, d := time.Hour, 24*time.Hour
	at := func(off time.Duration) *time.Time { return pointerTo(fxStart.Add(off)) }
	cases := []struct {
		name       string
		durability Durability
		category   string
		c0         float64
		deadline   *time.Time
		expires    *time.Time
		at         time.Duration // after confirmation (fxStart)
	}{
		{"long-term observation", LongTerm, "observation", 0.8, nil, nil, 30 * d},
		{"permanent identity", Permanent, "identity", 0.95, nil, nil, 5 * 365 * d},
		{"short-term state, raised floor", ShortTerm, "state", 0.6, nil, nil, 36 * h},
		{"ephemeral mood", Ephemeral, "mood", 0.9, nil, nil, 90 * time.Minute},
		{"odd seconds", Ephemeral, "mood", 0.7331, nil, nil, 12345*time.Second + 678*time.Microsecond},
		{"before confirmation", Ephemeral, "mood", 0.9, nil, nil, -h},
		{"decision never decays", Permanent, "decision", 1, nil, nil, 50 * 365 * d},
		{"routine never decays", LongTerm, "routine", 0.7, nil, nil, 400 * d},
		{"obligation before deadline", ShortTerm, "obligation", 0.9, at(10 * d), nil, 9 * d},
		{"obligation after deadline", ShortTerm, "obligation", 0.9, at(10 * d), nil, 10*d + 12*h},
		{"obligation deadline passed before confirmation", ShortTerm, "obligation", 0.9, at(-3 * d), nil, 12 * h},
		{"obligation without deadline", ShortTerm, "obligation", 0.9, nil, nil, 5 * d},
		{"confidence at the floor", LongTerm, "observation", 0.1, nil, nil, d},
		{"confidence below the floor", LongTerm, "observation", 0.05, nil, nil, d},
		{"zero confidence", LongTerm, "observation", 0, nil, nil, d},
		{"expires sooner", LongTerm, "observation", 0.8, nil, at(7 * d), 3 * d},
		{"expires later", Ephemeral, "mood", 0.8, nil, at(365 * d), 3 * d},
		{"never decays but expires", Permanent, "decision", 1, nil, at(2 * d), d},
		{"certain", LongTerm, "preference", 1, nil, nil, 180 * d},
		{"unknown category uses durability", Ephemeral, "weather", 0.5, nil, nil, 18 * h},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			when := fxStart.Add(c.at)
			var sqlConf float64
			var sqlForget *time.Time
			err := fx.pool.QueryRow(ctx, `SELECT tenure_effective_confidence($1, $2, $3, $4, $5, $6),
				tenure_forget_at($1, $2, $3, $4, $7, $5)`,
				string(c.durability), c.category, c.c0, fxStart, c.deadline, when, c.expires).Scan(&sqlConf, &sqlForget)
			if err != nil {
				t.Fatal(err)
			}
			p, ok := PolicyFor(policies, c.durability, c.category, c.deadline)
			if !ok {
				t.Fatalf("PolicyFor(%s, %s) found none", c.durability, c.category)
			}
			goConf := p.Confidence(c.c0, fxStart, c.deadline, when)
			if math.Abs(goConf-sqlConf) > 1e-12 {
				t.Errorf("Policy.Confidence(%v at %v) = %.15f, want SQL %.15f", c.c0, c.at, goConf, sqlConf)
			}
			goForget := p.ForgetAt(c.c0, fxStart, c.expires, c.deadline)
			if (goForget == nil) != (sqlForget == nil) || goForget != nil && goForget.Sub(*sqlForget).Abs() > time.Microsecond {
				t.Errorf("Policy.ForgetAt(%v) = %v, want SQL %v", c.c0, goForget, sqlForget)
			}
			// A stored fact carries the same decay: the trigger's terms give
			// the same effective confidence through tenure_decayed, and the
			// same forget_at.
			var rowConf float64
			var rowForget *time.Time
			err = fx.pool.QueryRow(ctx, `WITH e AS (
					INSERT INTO entities (scope, name) VALUES ('mirror', $7) RETURNING id
				), f AS (
					INSERT INTO entity_facts (scope, entity_id, content, durability, category, confidence,
						confirmed_at, deadline, expires_at)
					SELECT 'mirror', e.id, 'mirror case', $1, $2, $3, $4, $5, $8 FROM e
					RETURNING confidence, decay_from, decay_half_life, forget_at
				)
				SELECT tenure_decayed(confidence, decay_from, decay_half_life, $6), forget_at FROM f`,
				string(c.durability), c.category, c.c0, fxStart, c.deadline, when, c.name, c.expires).Scan(&rowConf, &rowForget)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(rowConf-sqlConf) > 1e-12 {
				t.Errorf("tenure_decayed of the stored fact = %.15f, want %.15f", rowConf, sqlConf)
			}
			if (rowForget == nil) != (sqlForget == nil) || rowForget != nil && !rowForget.Equal(*sqlForget) {
				t.Errorf("stored forget_at = %v, want %v", rowForget, sqlForget)
			}
			if goForget != nil && p.HalfLife != nil && c.c0 > p.Floor && (c.expires == nil || c.expires.After(*goForget)) {
				// At forget_at the effective confidence is the floor.
				if got := p.Confidence(c.c0, fxStart, c.deadline, *goForget); math.Abs(got-p.Floor) > 1e-9 {
					t.Errorf("Policy.Confidence(at forget_at) = %v, want the floor %v", got, p.Floor)
				}
			}
		})
	}
}

func TestConfidenceCurve(t *testing.T) {
	hl := 36 * time.Hour
	p := Policy{HalfLife: &hl, Anchor: AnchorConfirmedAt, Floor: 0.1}
	f := Fact{Confidence: 0.8, ConfirmedAt: fxStart}
	forget := p.ForgetAt(f.Confidence, f.ConfirmedAt, nil, nil)
	curve := ConfidenceCurve(f, p, f.ConfirmedAt, *forget, 5)
	if len(curve) != 5 || !curve[0].At.Equal(fxStart) || curve[0].Confidence != 0.8 || !curve[4].At.Equal(*forget) ||
		math.Abs(curve[4].Confidence-0.1) > 1e-9 {
		t.Fatalf("ConfidenceCurve() = %+v, want 5 points from 0.8 at confirmation to the floor at forget_at", curve)
	}
	// Three half-lives take 0.8 to 0.1: the middle point is 1.5 half-lives in.
	if want := 0.8 * math.Pow(2, -1.5); math.Abs(curve[2].Confidence-want) > 1e-12 {
		t.Errorf("ConfidenceCurve()[2] = %v, want %v", curve[2].Confidence, want)
	}
}

func TestUpdatePolicy(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	deadline := fxStart.Add(5 * 24 * time.Hour)
	mk := func(content string, d Durability, category string, deadline *time.Time) Fact {
		return fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: content, Durability: d, Category: category, Deadline: deadline})
	}
	facts := map[string]Fact{
		"observation":             mk("Lives in Lyon.", LongTerm, "observation", nil),
		"preference":              mk("Likes tea.", LongTerm, "preference", nil),
		"routine":                 mk("Runs on Sundays.", LongTerm, "routine", nil),
		"obligation with dl":      mk("Files taxes.", LongTerm, "obligation", &deadline),
		"obligation without dl":   mk("Calls grandma.", LongTerm, "obligation", nil),
		"short-term observation":  mk("Is in Rome.", ShortTerm, "observation", nil),
		"archived long-term":      mk("Owns a Fiat.", LongTerm, "observation", nil),
		"short-term obligation":   mk("Renews passport.", ShortTerm, "obligation", &deadline),
		"ephemeral mood":          mk("Is happy.", Ephemeral, "mood", nil),
		"long-term with expiry":   mk("Has a cold.", LongTerm, "state", nil),
		"permanent identity fact": mk("Was born in 1990.", Permanent, "identity", nil),
	}
	if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{facts["archived long-term"].ID}, ""); err != nil {
		t.Fatal(err)
	}
	fx.advance(time.Hour)
	forgetAt := func() map[string]*time.Time {
		out := map[string]*time.Time{}
		for name, f := range facts {
			var at *time.Time
			if err := fx.pool.QueryRow(ctx, `SELECT forget_at FROM entity_facts WHERE id = $1`, f.ID).Scan(&at); err != nil {
				t.Fatal(err)
			}
			out[name] = at
		}
		return out
	}

	steps := []struct {
		target  string
		ch      PolicyChanges
		changed []string // the facts whose forget_at must move
	}{
		{"durability long_term", PolicyChanges{HalfLife: pointerTo(30 * 24 * time.Hour)},
			[]string{"observation", "preference", "obligation without dl"}},
		{"category obligation", PolicyChanges{HalfLife: pointerTo(12 * time.Hour), Floor: pointerTo(0.2)},
			[]string{"obligation with dl", "short-term obligation"}},
		{"durability short_term", PolicyChanges{NeverDecays: true},
			[]string{"short-term observation", "long-term with expiry"}},
	}
	// "long-term with expiry" is a state: make it short-term so the last step
	// governs it, with no expiry (never decays after the change).
	st := facts["long-term with expiry"]
	if _, err := fx.s.UpdateFact(ctx, reviewer, st.ID, st.Version, FactChanges{Durability: pointerTo(ShortTerm)}, ""); err != nil {
		t.Fatal(err)
	}

	for _, step := range steps {
		t.Run(step.target, func(t *testing.T) {
			before := forgetAt()
			versions := fx.count(t, `SELECT sum(version) FROM entity_facts`)
			p := fx.policy(t, step.target)
			got, n, err := fx.s.UpdatePolicy(ctx, reviewer, p.ID, step.ch, "tuning")
			if err != nil {
				t.Fatalf("UpdatePolicy(%s) error = %v", step.target, err)
			}
			if n != len(step.changed) {
				t.Errorf("UpdatePolicy(%s) recomputed %d facts, want %d", step.target, n, len(step.changed))
			}
			if step.ch.NeverDecays && got.HalfLife != nil || step.ch.HalfLife != nil && *got.HalfLife != *step.ch.HalfLife ||
				got.UpdatedBy != reviewer.String() || !got.UpdatedAt.Equal(fx.clock()) {
				t.Errorf("UpdatePolicy(%s) = %+v", step.target, got)
			}
			after := forgetAt()
			for name, f := range facts {
				moved := !timeEqual(before[name], after[name])
				want := false
				for _, c := range step.changed {
					want = want || c == name
				}
				if moved != want {
					t.Errorf("UpdatePolicy(%s): forget_at of %s moved %t (%v -> %v), want %t", step.target, name, moved, before[name], after[name], want)
				}
				if f.Status == StatusActive && name != "archived long-term" && !timeEqual(after[name], fx.sqlForgetAt(t, f.ID)) {
					t.Errorf("forget_at of %s = %v, want tenure_forget_at %v", name, after[name], fx.sqlForgetAt(t, f.ID))
				}
				if name == "archived long-term" {
					continue
				}
				// The stored decay terms follow the policy too: effective
				// confidence from them equals the policy lookup's.
				var stored, looked float64
				if err := fx.pool.QueryRow(ctx, `SELECT tenure_decayed(confidence, decay_from, decay_half_life, $2),
						tenure_effective_confidence(durability, category, confidence, confirmed_at, deadline, $2)
					FROM entity_facts WHERE id = $1`, f.ID, fx.clock().Add(48*time.Hour)).Scan(&stored, &looked); err != nil {
					t.Fatal(err)
				}
				if math.Abs(stored-looked) > 1e-12 {
					t.Errorf("effective confidence of %s from its stored decay terms = %v, want %v", name, stored, looked)
				}
			}
			if v := fx.count(t, `SELECT sum(version) FROM entity_facts`); v != versions {
				t.Errorf("sum of fact versions = %d, want %d: recomputing forget_at is no edit", v, versions)
			}
			var audit struct {
				Before, After json.RawMessage
				Reason        string
			}
			if err := fx.pool.QueryRow(ctx, `SELECT before, after, reason FROM audit_log WHERE action = 'policy.update'
				AND target_id = $1::bigint::text ORDER BY id DESC LIMIT 1`, p.ID).Scan(&audit.Before, &audit.After, &audit.Reason); err != nil {
				t.Fatalf("no policy.update audit row: %v", err)
			}
			var a map[string]any
			_ = json.Unmarshal(audit.After, &a)
			if audit.Reason != "tuning" || a["facts_recomputed"] != float64(n) {
				t.Errorf("policy audit after %s reason %q, want facts_recomputed %d", audit.After, audit.Reason, n)
			}
		})
	}
	if f := fx.get(t, facts["short-term observation"].ID); f.ForgetAt != nil {
		t.Errorf("short-term fact under a never-decaying policy forget_at = %v, want nil", f.ForgetAt)
	}

	t.Run("refusals", func(t *testing.T) {
		p := fx.policy(t, "durability ephemeral")
		cases := []struct {
			name  string
			actor Actor
			id    int64
			ch    PolicyChanges
			code  Code
			parts []string
		}{
			{"agent", bot, p.ID, PolicyChanges{Floor: pointerTo(0.2)}, CodeForbidden, []string{"only a reviewer can change a decay policy"}},
			{"nothing", reviewer, p.ID, PolicyChanges{}, CodeInvalid, []string{"nothing to change"}},
			{"both", reviewer, p.ID, PolicyChanges{HalfLife: pointerTo(time.Hour), NeverDecays: true}, CodeInvalid, []string{"not both"}},
			{"too short", reviewer, p.ID, PolicyChanges{HalfLife: pointerTo(30 * time.Second)}, CodeInvalid, []string{"30s", "between 1 minute and 100 years"}},
			{"too long", reviewer, p.ID, PolicyChanges{HalfLife: pointerTo(101 * 365 * 24 * time.Hour)}, CodeInvalid, []string{"between 1 minute and 100 years"}},
			{"floor 0", reviewer, p.ID, PolicyChanges{Floor: pointerTo(0.0)}, CodeInvalid, []string{"floor 0 is out of range", "greater than 0 and less than 1"}},
			{"floor 1", reviewer, p.ID, PolicyChanges{Floor: pointerTo(1.0)}, CodeInvalid, []string{"less than 1"}},
			{"floor NaN", reviewer, p.ID, PolicyChanges{Floor: pointerTo(math.NaN())}, CodeInvalid, []string{"out of range"}},
			{"unknown", reviewer, 999999, PolicyChanges{Floor: pointerTo(0.2)}, CodeNotFound, []string{"no decay policy with id 999999"}},
		}
		for _, c := range cases {
			_, n, err := fx.s.UpdatePolicy(ctx, c.actor, c.id, c.ch, "")
			if n != 0 {
				t.Errorf("UpdatePolicy(%s) = %d facts, want 0", c.name, n)
			}
			wantError(t, "UpdatePolicy("+c.name+")", err, c.code, c.parts...)
		}
		if got := fx.policy(t, "durability ephemeral"); got.Floor != p.Floor || *got.HalfLife != *p.HalfLife {
			t.Errorf("ephemeral policy after refusals = %+v, want unchanged", got)
		}
		if _, n, err := fx.s.UpdatePolicy(ctx, reviewer, p.ID, PolicyChanges{HalfLife: p.HalfLife}, ""); err != nil || n != 0 {
			t.Errorf("UpdatePolicy(same half-life) = %d, %v; want nothing done", n, err)
		}
	})
}

// TestUpdatePolicyRefusesAStaleRead: a writer who read the policy before
// someone else changed it gets a conflict, and nothing is written.
func TestUpdatePolicyRefusesAStaleRead(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	policies, err := fx.s.ListPolicies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := policies[0]
	seen := p.UpdatedAt
	day := 24 * time.Hour
	if _, _, err := fx.s.UpdatePolicy(ctx, reviewer, p.ID, PolicyChanges{HalfLife: &day, Seen: &seen}, "first"); err != nil {
		t.Fatalf("UpdatePolicy with a fresh read = %v", err)
	}
	week := 7 * day
	_, _, err = fx.s.UpdatePolicy(ctx, reviewer, p.ID, PolicyChanges{HalfLife: &week, Seen: &seen}, "second")
	if ErrorCode(err) != CodeConflict || !strings.Contains(err.Error(), "changed by") {
		t.Fatalf("UpdatePolicy with a stale read = %v, want a conflict naming who changed it", err)
	}
	after, _ := fx.s.ListPolicies(ctx)
	if got := *after[0].HalfLife; got != day {
		t.Errorf("half-life after the refused write = %v, want %v (the first write's)", got, day)
	}
}

// TestUpdatePolicyWaitsForOpenWriters: a fact written by a transaction that
// is still open when a policy changes ends up with the new policy's decay
// terms, not the ones its trigger read before the change.
func TestUpdatePolicyWaitsForOpenWriters(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Mia", Content: "Lives in Lyon.", Durability: LongTerm, Category: "observation"})
	writer, err := fx.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Rollback(ctx)
	var id int64
	if err := writer.QueryRow(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, category)
		SELECT scope, entity_id, 'Works at the bakery.', 'long_term', 'observation' FROM entity_facts LIMIT 1
		RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	p := fx.policy(t, "durability long_term")
	done := make(chan error, 1)
	go func() {
		_, _, err := fx.s.UpdatePolicy(ctx, reviewer, p.ID, PolicyChanges{HalfLife: pointerTo(30 * 24 * time.Hour)}, "")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("UpdatePolicy returned (%v) while a writer of facts was still open", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := writer.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var halfLife float64
	if err := fx.pool.QueryRow(ctx, `SELECT decay_half_life FROM entity_facts WHERE id = $1`, id).Scan(&halfLife); err != nil {
		t.Fatal(err)
	}
	if want := (30 * 24 * time.Hour).Seconds(); halfLife != want {
		t.Errorf("half-life of the fact written during the change = %v s, want the new %v s", halfLife, want)
	}
}
