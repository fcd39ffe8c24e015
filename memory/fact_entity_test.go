package memory

import (
	"context"
	"encoding/json"
	"testing"
)

func TestMoveFact(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	f := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ada", Key: "likes", Content: "Maya likes green tea.",
		Category: "preference"})
	maya := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Maya Hale", Content: "Maya is a nurse.", Category: "identity"})
	if _, err := fx.s.AddAlias(ctx, reviewer, "home", maya.EntityID, "my wife"); err != nil {
		t.Fatal(err)
	}

	// Named by an alias: the fact goes to the entity it names.
	moved, err := fx.s.MoveFact(ctx, reviewer, f.ID, f.Version, "my wife", "drink", "it was about Maya")
	if err != nil {
		t.Fatalf("MoveFact() error = %v", err)
	}
	if moved.Entity != "Maya Hale" || moved.EntityID != maya.EntityID || moved.Key != "drink" || moved.Version != f.Version+1 ||
		moved.Content != f.Content || moved.Confidence != f.Confidence {
		t.Errorf("moved = %+v, want it on Maya Hale, key drink, at the next version, otherwise unchanged", moved)
	}
	var before, after map[string]any
	var raw [2]json.RawMessage
	var reason string
	if err := fx.pool.QueryRow(ctx, `SELECT before, after, reason FROM audit_log WHERE action = 'fact.update'
		AND target_id = $1 AND actor = 'user:ann@example.com'`, itoa(f.ID)).Scan(&raw[0], &raw[1], &reason); err != nil {
		t.Fatalf("no audit row for the move: %v", err)
	}
	json.Unmarshal(raw[0], &before)
	json.Unmarshal(raw[1], &after)
	if before["entity"] != "Ada" || after["entity"] != "Maya Hale" || before["key"] != "likes" || after["key"] != "drink" ||
		reason != "it was about Maya" {
		t.Errorf("audit = %v → %v (%q), want entity and key before and after with the reason", before, after, reason)
	}

	// Recall finds it by its new entity's name.
	got := fx.get(t, f.ID)
	if got.Entity != "Maya Hale" {
		t.Errorf("stored entity = %q", got.Entity)
	}

	// A new name creates the entity.
	moved, err = fx.s.MoveFact(ctx, reviewer, f.ID, moved.Version, "Juniper", "", "")
	if err != nil || moved.Entity != "Juniper" || moved.Key != "" {
		t.Fatalf("MoveFact(new entity) = %+v, %v; want it on a new entity Juniper, without a key", moved, err)
	}
	if n := fx.count(t, `SELECT count(*) FROM entities WHERE scope = 'home' AND name = 'Juniper'`); n != 1 {
		t.Errorf("%d entities named Juniper, want 1", n)
	}

	t.Run("nothing to move", func(t *testing.T) {
		same, err := fx.s.MoveFact(ctx, reviewer, f.ID, moved.Version, "juniper", "", "")
		if err != nil || same.Version != moved.Version {
			t.Errorf("MoveFact(same place) = %+v, %v; want nothing written", same, err)
		}
	})

	t.Run("stale version", func(t *testing.T) {
		_, err := fx.s.MoveFact(ctx, reviewer, f.ID, moved.Version-1, "Ada", "", "")
		if e := wantError(t, "MoveFact(stale)", err, CodeConflict, "changed by someone else"); e.CurrentFact == nil ||
			e.CurrentFact.Entity != "Juniper" {
			t.Errorf("conflict = %+v, want the current fact", e)
		}
	})

	t.Run("invalid", func(t *testing.T) {
		_, err := fx.s.MoveFact(ctx, reviewer, f.ID, moved.Version, "  ", "", "")
		if e := wantError(t, "MoveFact(no entity)", err, CodeInvalid, "entity is empty"); e.Field != "entity" {
			t.Errorf("field = %q, want entity", e.Field)
		}
		_, err = fx.s.MoveFact(ctx, reviewer, f.ID, moved.Version, "Ada", "Not A Key", "")
		if e := wantError(t, "MoveFact(bad key)", err, CodeInvalid, "invalid key"); e.Field != "key" {
			t.Errorf("field = %q, want key", e.Field)
		}
	})
}

// TestMoveFactRefusesLockedDecision: a move never lands on a locked
// decision's entity and key; an agent's attempt is logged and queued for
// review like every refused write, a person's is refused naming the
// decision; the fact behind a decision moves only with its decision.
func TestMoveFactRefusesLockedDecision(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	f := fx.create(t, reviewer, NewFact{Scope: "acme", Entity: "Globex", Key: "rma_note", Content: "RMAs need two photos first."})

	_, err := fx.s.MoveFact(ctx, reviewer, f.ID, f.Version, "Acme Robotics", "rma_policy", "")
	e := wantError(t, "MoveFact(person onto a lock)", err, CodeDecisionLocked, "reopen it first")
	if e.Field != "key" || e.Locked == nil || e.Locked.ID != d.ID {
		t.Errorf("refusal = %+v, want the decision named beside the key", e)
	}
	if n := fx.count(t, `SELECT count(*) FROM review_items`); n != 0 {
		t.Errorf("a person's refused move queued %d review items, want none", n)
	}

	_, err = fx.s.MoveFact(ctx, bot, f.ID, f.Version, "Acme Robotics", "rma_policy", "")
	wantLocked(t, "MoveFact(agent onto a lock)", err, d)
	if n := fx.count(t, `SELECT count(*) FROM review_items WHERE kind = 'decision_refusal'`); n != 1 {
		t.Errorf("%d review items after the agent's refused move, want 1", n)
	}
	if got := fx.get(t, f.ID); got.Entity != "Globex" || got.Key != "rma_note" || got.Version != f.Version {
		t.Errorf("refused moves changed the fact: %+v", got)
	}

	// Another key of the decision's entity is free.
	moved, err := fx.s.MoveFact(ctx, reviewer, f.ID, f.Version, "Acme Robotics", "rma_note", "same customer")
	if err != nil || moved.Entity != "Acme Robotics" {
		t.Errorf("MoveFact(free key) = %+v, %v", moved, err)
	}

	_, err = fx.s.MoveFact(ctx, reviewer, d.FactID, 1, "Globex", "rma_policy", "")
	wantError(t, "MoveFact(decision's fact)", err, CodeInvalid, "edit the decision instead")
}
