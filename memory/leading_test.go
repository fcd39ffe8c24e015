package memory

import (
	"context"
	"testing"
)

// TestLeadingWord: a lower-case first word followed by a verb may be a
// name; words that are no name, and sentences with a subject, give none.
func TestLeadingWord(t *testing.T) {
	for text, want := range map[string]string{
		"jun renewed the pager contract.": "jun",
		"ana paid the invoice":            "ana",
		"sam is on call":                  "sam",
		"paid the invoice":                "",
		"the build is broken":             "",
		"yesterday we shipped":            "",
		"Ana paid the invoice":            "", // a capital: SubjectOf names her
		"deploys are frozen":              "",
	} {
		if got := LeadingWord(text); got != want {
			t.Errorf("LeadingWord(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestLowerCaseNameIsTheKnownEntity: a row that names no entity and starts
// with a known entity's name in lower case ("jun renewed ...") is about that
// entity, so it fulfils that entity's obligation; an unknown lower-case
// word leaves the row about no one in particular.
func TestLowerCaseNameIsTheKnownEntity(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.push(t, "ops", NewNode{Content: "Jun must renew the pager contract before the 15th.",
		Properties: map[string]any{"entity": "Jun Park", "key": "pager_contract", "category": "obligation"}})
	e.consolidate(t)
	e.push(t, "ops",
		NewNode{Content: "jun renewed the pager contract."},
		NewNode{Content: "zed renewed the gym membership."})
	e.consolidate(t)
	rows, err := e.pool.Query(ctx, `SELECT f.content, e.name, f.status FROM entity_facts f JOIN entities e ON e.id = f.entity_id ORDER BY f.id`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for rows.Next() {
		var content, entity, status string
		if err := rows.Scan(&content, &entity, &status); err != nil {
			t.Fatal(err)
		}
		got[content] = [2]string{entity, status}
	}
	if g := got["jun renewed the pager contract."]; g[0] != "Jun Park" {
		t.Errorf("the lower-case row is about %q, want Jun Park", g[0])
	}
	if g := got["Jun must renew the pager contract before the 15th."]; g[1] == "active" {
		t.Errorf("the obligation is %s after its fulfilment, want it archived", g[1])
	}
	if g := got["zed renewed the gym membership."]; g[0] != defaultEntity {
		t.Errorf("the row about an unknown word is about %q, want %s", g[0], defaultEntity)
	}
}
