package memory

import (
	"context"
	"errors"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestOneEntityHoweverSpelled: a row, a fact and a decision that spell an
// entity differently (case, white space, accents) or by its first name
// alone land on the scope's existing entity, so locks, duplicate notes,
// supersession and recall's entity filter see them as one; a first name
// shared by two full names, and a name of no entity, stay as written.
func TestOneEntityHoweverSpelled(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	// A decision's lock holds against any spelling of its entity.
	_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "acme  robotics", Key: "rma_policy",
		Content: "RMAs no longer need photos."})
	var me *Error
	if !errors.As(err, &me) || me.Code != CodeDecisionLocked {
		t.Errorf("CreateFact on 'acme  robotics' = %v, want refused by decision %d", err, d.ID)
	}
	// Facts written under variants are the entity's facts.
	zoe := fx.create(t, bot, NewFact{Scope: "acme", Entity: "Zoë Park", Key: "employer", Content: "Zoë works at Acme Robotics."})
	for _, spelling := range []string{"zoe park", "ZOË  PARK", "Zoe Park", "Zoë"} {
		got, err := canonicalEntity(ctx, fx.s.q, "acme", spelling)
		if err != nil || got != "Zoë Park" {
			t.Errorf("canonicalEntity(%q) = %q, %v; want Zoë Park", spelling, got, err)
		}
	}
	res, err := fx.s.PushNoted(ctx, bot, "acme", []NewNode{{Content: "zoë works at acme robotics.",
		Properties: map[string]any{"entity": "zoe park", "key": "employer"}}}, PushOptions{})
	if err != nil || len(res.Notes) != 1 || res.Notes[0].Code != NoteDuplicate || res.Notes[0].FactID != zoe.ID {
		t.Errorf("PushNoted(a variant's repeat) = %+v, %v; want the duplicate of fact %d", res, err, zoe.ID)
	}
	got, err := fx.s.Recall(ctx, RecallQuery{Scope: "acme", Query: "Where does she work?", Entity: "ZOE PARK"})
	if err != nil || len(got) != 1 || got[0].Fact.ID != zoe.ID {
		t.Errorf("Recall(entity ZOE PARK) = %+v, %v; want fact %d", got, err, zoe.ID)
	}
	// A first name shared by two full names is neither of them.
	fx.create(t, bot, NewFact{Scope: "acme", Entity: "Ana Ruiz", Key: "occupation", Content: "Ana Ruiz is a nurse."})
	if got, _ := canonicalEntity(ctx, fx.s.q, "acme", "ana"); got != "Ana Ruiz" {
		t.Errorf("canonicalEntity(ana) = %q, want Ana Ruiz", got)
	}
	fx.create(t, bot, NewFact{Scope: "acme", Entity: "Ana Lopez", Key: "occupation", Content: "Ana Lopez is a pilot."})
	for _, name := range []string{"Ana", "Globex", "Anastasia"} {
		if got, _ := canonicalEntity(ctx, fx.s.q, "acme", name); got != name {
			t.Errorf("canonicalEntity(%q) = %q, want it as written", name, got)
		}
	}
	// Another scope's entities are not this scope's.
	if got, _ := canonicalEntity(ctx, fx.s.q, "other", "acme robotics"); got != "acme robotics" {
		t.Errorf("canonicalEntity(other scope) = %q, want it as written", got)
	}
}

// TestOneEntityInABatch: two spellings of a new entity in one consolidation
// batch become one entity, the first spelling.
func TestOneEntityInABatch(t *testing.T) {
	e := newEnv(t)
	e.push(t, "ops",
		NewNode{Content: "The ops standup is at 09:30.", Properties: map[string]any{"entity": "Ops Team", "key": "standup"}},
		NewNode{Content: "The ops retro is on Fridays.", Properties: map[string]any{"entity": "ops  team", "key": "retro"}})
	e.consolidate(t)
	var names []string
	rows, err := e.pool.Query(context.Background(), `SELECT name FROM entities WHERE scope = 'ops' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if len(names) != 1 || names[0] != "Ops Team" {
		t.Errorf("entities = %q, want one, Ops Team", names)
	}
}

// TestEntityFold: the fold names are compared in takes case, surrounding
// and repeated white space, accents and the letters that do not decompose
// (ø ł đ ð ı æ œ ß) aside, and a curly apostrophe for a straight one, as the
// extractor's fold does.
func TestEntityFold(t *testing.T) {
	pool := pgtest.NewPool(t)
	for in, want := range map[string]string{
		"  Acme \t Robotics ": "acme robotics",
		"ZOË Park":            "zoe park",
		"Øystein Łukasz":      "oystein lukasz",
		"Straße":              "strasse",
		"Ærøskøbing":          "aeroskobing",
		"Œuvre Đorđe":         "oeuvre dorde",
		"O’Brien":             "o'brien",
		"José  Martínez":      "jose martinez",
		"billing-db":          "billing-db",
	} {
		var got string
		if err := pool.QueryRow(context.Background(), `SELECT tenure_entity_fold($1)`, in).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("tenure_entity_fold(%q) = %q, want %q", in, got, want)
		}
	}
}
