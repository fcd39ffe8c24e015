package memory

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// obligationDue writes an obligation with a deadline due from now.
func (fx *fixture) obligationDue(t *testing.T, content string, due time.Duration) Fact {
	t.Helper()
	deadline := fx.clock().Add(due)
	return fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ada", Content: content,
		Category: CategoryObligation, Deadline: &deadline})
}

func TestSettleObligation(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	done := fx.obligationDue(t, "File the tax return.", 24*time.Hour)
	letGo := fx.obligationDue(t, "Send the birthday card.", 48*time.Hour)
	fx.advance(10 * 24 * time.Hour) // both overdue, past their forget dates

	for _, c := range []struct {
		f       Fact
		outcome ObligationOutcome
	}{{done, ObligationDone}, {letGo, ObligationLetGo}} {
		got, err := fx.s.SettleObligation(ctx, reviewer, c.f.ID, c.outcome)
		if err != nil {
			t.Fatalf("SettleObligation(%s) error = %v", c.outcome, err)
		}
		if got.Status != StatusArchived || got.ArchiveReason != string(c.outcome) || got.ArchivedAt == nil ||
			!got.ArchivedAt.Equal(fx.clock()) || got.Version != c.f.Version+1 {
			t.Errorf("SettleObligation(%s) = %+v, want it archived now as %s", c.outcome, got, c.outcome)
		}
		if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.archive' AND target_id = $1
			AND actor = 'user:ann@example.com' AND reason = $2 AND after->>'archive_reason' = $2`, itoa(c.f.ID), string(c.outcome)); n != 1 {
			t.Errorf("%s: %d audit rows, want one fact.archive with the outcome as reason", c.outcome, n)
		}
	}

	t.Run("refusals", func(t *testing.T) {
		again := fx.obligationDue(t, "Renew the passport.", -time.Hour)
		note := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ada", Content: "Ada likes tea.", Category: "preference"})
		_, err := fx.s.SettleObligation(ctx, bot, again.ID, ObligationDone)
		wantError(t, "SettleObligation(agent)", err, CodeForbidden, "only a reviewer")
		_, err = fx.s.SettleObligation(ctx, reviewer, note.ID, ObligationDone)
		wantError(t, "SettleObligation(preference)", err, CodeInvalid, "not an obligation")
		_, err = fx.s.SettleObligation(ctx, reviewer, done.ID, ObligationLetGo)
		wantError(t, "SettleObligation(archived)", err, CodeConflict, "already archived (done)")
		_, err = fx.s.SettleObligation(ctx, reviewer, again.ID, "forgotten")
		wantError(t, "SettleObligation(forgotten)", err, CodeInvalid, "done or let go")
		_, err = fx.s.SettleObligation(ctx, reviewer, 99999999, ObligationDone)
		wantError(t, "SettleObligation(missing)", err, CodeNotFound)
		if f := fx.get(t, again.ID); f.Status != StatusActive || f.Version != again.Version {
			t.Errorf("refused settlements changed the obligation: %+v", f)
		}
	})
}

func TestKeepObligation(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	overdue := fx.obligationDue(t, "Book the vet.", 24*time.Hour)
	todo := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ada", Content: "Call the plumber.",
		Category: CategoryObligation})
	fx.advance(3 * 24 * time.Hour)
	now := fx.clock()

	kept, err := fx.s.KeepObligation(ctx, reviewer, overdue.ID)
	if err != nil {
		t.Fatal(err)
	}
	if kept.Deadline == nil || !kept.Deadline.Equal(now.Add(ObligationExtension)) || kept.Status != StatusActive ||
		kept.Overdue(now) || kept.ForgetAt == nil || !kept.ForgetAt.After(*kept.Deadline) {
		t.Errorf("kept overdue obligation = %+v, want it due again in 7 days", kept)
	}
	var before, after json.RawMessage
	var reason string
	if err := fx.pool.QueryRow(ctx, `SELECT before, after, reason FROM audit_log WHERE action = 'fact.update'
		AND target_id = $1`, itoa(overdue.ID)).Scan(&before, &after, &reason); err != nil {
		t.Fatalf("no audit row for the kept obligation: %v", err)
	}
	var a map[string]any
	if json.Unmarshal(after, &a) != nil || a["deadline"] == nil || reason != "kept: due again in 7 days" {
		t.Errorf("audit = %s → %s (%q), want the new deadline and the reason", before, after, reason)
	}

	// Without a deadline: confirmed again now, its decay starts afresh.
	if todo.ForgetAt == nil {
		t.Fatal("an obligation without a deadline should decay")
	}
	kept, err = fx.s.KeepObligation(ctx, reviewer, todo.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !kept.ConfirmedAt.Equal(now) || kept.Confidence != todo.Confidence || kept.ForgetAt == nil ||
		!kept.ForgetAt.Equal(todo.ForgetAt.Add(now.Sub(todo.ConfirmedAt))) {
		t.Errorf("kept obligation = %+v, want it confirmed now at %v, its forget date moved by 3 days", kept, todo.Confidence)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.update' AND target_id = $1
		AND reason = 'kept: confirmed again' AND actor = 'user:ann@example.com'`, itoa(todo.ID)); n != 1 {
		t.Errorf("%d audit rows for keeping the obligation without a deadline, want 1", n)
	}

	upcoming := fx.obligationDue(t, "Renew the insurance.", 5*24*time.Hour)
	_, err = fx.s.KeepObligation(ctx, reviewer, upcoming.ID)
	wantError(t, "KeepObligation(upcoming)", err, CodeInvalid, "nothing to keep yet")
	_, err = fx.s.KeepObligation(ctx, bot, todo.ID)
	wantError(t, "KeepObligation(agent)", err, CodeForbidden)
}

// TestOverviewLeavesOutHeldObligations: the overview's "about to be
// forgotten" never lists an obligation with a deadline (decay holds it once
// overdue); it lists it as overdue instead, while facts that will be
// forgotten, obligations without a deadline among them, are listed.
func TestOverviewLeavesOutHeldObligations(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	held := fx.obligationDue(t, "Send Maya's birthday gift.", 24*time.Hour)
	soon := fx.obligationDue(t, "Pay the parking fine.", 5*24*time.Hour)
	mood := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ada", Content: "Ada is tired.", Category: CategoryMood})
	fx.advance(3 * 24 * time.Hour)
	todo := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ada", Content: "Call the plumber.",
		Category: CategoryObligation, Durability: Ephemeral})

	o, err := fx.s.Overview(ctx, OverviewOptions{ForgetWithin: 7 * 24 * time.Hour, DueWithin: 14 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	forgetting := map[int64]bool{}
	for _, f := range o.Forgetting {
		forgetting[f.ID] = true
	}
	if forgetting[held.ID] || forgetting[soon.ID] {
		t.Errorf("about to be forgotten lists obligations with a deadline: %+v", o.Forgetting)
	}
	if !forgetting[mood.ID] || !forgetting[todo.ID] {
		t.Errorf("about to be forgotten = %+v, want the mood and the obligation without a deadline", o.Forgetting)
	}
	if len(o.Overdue) != 1 || o.Overdue[0].ID != held.ID || len(o.Upcoming) != 1 || o.Upcoming[0].ID != soon.ID {
		t.Errorf("overdue = %+v, upcoming = %+v; want each obligation in its list", o.Overdue, o.Upcoming)
	}

	// Past its forget date, the held obligation is still listed as overdue.
	fx.advance(30 * 24 * time.Hour)
	if _, err := fx.s.Decay(ctx, System("decay")); err != nil {
		t.Fatal(err)
	}
	list, err := fx.s.ListObligations(ctx, ObligationFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Overdue) != 2 || fx.get(t, held.ID).Status != StatusActive {
		t.Errorf("overdue obligations after decay = %+v, want both still active", list.Overdue)
	}
	if fx.get(t, mood.ID).Status != StatusArchived || fx.get(t, todo.ID).Status != StatusArchived {
		t.Error("decay left the mood or the obligation without a deadline active")
	}
}
