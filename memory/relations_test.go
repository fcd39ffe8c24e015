package memory_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// TestRelationNamedInText: a relation of the speaker that names one person
// and a name given with it, in any of the ways a text gives them; a group,
// a relation of several people, an adjective, a possession and a clause
// that only follows the relation give none.
func TestRelationNamedInText(t *testing.T) {
	for text, want := range map[string][]memory.NamedRelation{
		"My wife Maria is a nurse.":                   {{Alias: "my wife", Name: "Maria"}},
		"My wife, Maria, is a nurse.":                 {{Alias: "my wife", Name: "Maria"}},
		"Maria, my wife, loves jazz.":                 {{Alias: "my wife", Name: "Maria"}},
		"Dana Whitfield, my boss, moved to Leeds.":    {{Alias: "my boss", Name: "Dana Whitfield"}},
		"Update: my boss, Dana Whitfield, moved.":     {{Alias: "my boss", Name: "Dana Whitfield"}},
		"I had lunch with my boss, Dana.":             {{Alias: "my boss", Name: "Dana"}},
		"Our CTO Priya Nair approved the budget.":     {{Alias: "our CTO", Name: "Priya Nair"}},
		"My manager is Tom Reid.":                     {{Alias: "my manager", Name: "Tom Reid"}},
		"my sister is called Ana and lives in Porto.": {{Alias: "my sister", Name: "Ana"}},
		"My husband's name is Kofi.":                  {{Alias: "my husband", Name: "Kofi"}},
		"Maria is my wife.":                           {{Alias: "my wife", Name: "Maria"}},
		"Tom Reid's also my manager now.":             {{Alias: "my manager", Name: "Tom Reid"}},
		"My new boss, Dana, starts Monday.":           {{Alias: "my boss", Name: "Dana"}},
		"My team lead Sam Ortiz is out today.":        {{Alias: "my team lead", Name: "Sam Ortiz"}},
		"My son Leo's school called.":                 {{Alias: "my son", Name: "Leo"}},
		"My sister-in-law Ana O'Neill visited.":       {{Alias: "my sister-in-law", Name: "Ana O'Neill"}},
		"Met my mum Jane and my dad Olu for lunch.": {
			{Alias: "my mum", Name: "Jane"}, {Alias: "my dad", Name: "Olu"}},
		"My kids Leo and Mia love Lego.":       nil, // several people
		"My team, Platform, owns billing.":     nil, // a group
		"My colleague Sam is great.":           nil, // one of several
		"My friends Sam and Ana came over.":    nil,
		"My wife is French.":                   nil, // no name
		"My boss OK'd the budget.":             nil,
		"I told my boss Monday.":               nil,
		"Unlike Maria, my wife hates jazz.":    nil, // the relation starts a clause
		"Thanks to my boss, Dana agreed.":      nil,
		"Maria is my wife's sister.":           nil, // a possession
		"My mother tongue is Polish.":          nil,
		"Her husband Tom is a pilot.":          nil, // not the speaker's
		"My ex-wife was Maria, years ago.":     nil,
		"I love my job and my wife loves hers": nil,
	} {
		if got := memory.NamedRelations(text); !slices.Equal(got, want) {
			t.Errorf("NamedRelations(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestRelationSubjectOf: a name set off by a relation is the subject, and
// so is the name after "our CTO".
func TestRelationSubjectOf(t *testing.T) {
	for text, want := range map[string]memory.Subject{
		"Maria, my wife, loves jazz.":              {Kind: memory.SubjectNamed, Name: "Maria"},
		"Dana Whitfield, my boss, moved to Leeds.": {Kind: memory.SubjectNamed, Name: "Dana Whitfield"},
		"Our CTO Priya Nair approved the budget.":  {Kind: memory.SubjectNamed, Name: "Priya Nair"},
		"My new boss, Dana, starts Monday.":        {Kind: memory.SubjectNamed, Name: "Dana"},
		"My boss OK'd the budget.":                 {Kind: memory.SubjectRelation, Name: "boss"},
		"My CTO approved the budget.":              {Kind: memory.SubjectRelation, Name: "cto"},
		"Unlike Maria, my wife hates jazz.":        {Kind: memory.SubjectFirstPerson},
		"I love my job.":                           {Kind: memory.SubjectFirstPerson},
	} {
		if got := memory.SubjectOf(text); got != want {
			t.Errorf("SubjectOf(%q) = %s %q, want %s %q", text, got.Kind, got.Name, want.Kind, want.Name)
		}
	}
}

// factEntity is the entity of the fact with content in scope "me".
func (e *denyEnv) factEntity(t *testing.T, content string) string {
	t.Helper()
	var name string
	if err := e.pool.QueryRow(context.Background(), `SELECT e.name FROM entity_facts f
		JOIN entities e ON e.id = f.entity_id WHERE f.scope = 'me' AND f.content = $1`, content).Scan(&name); err != nil {
		t.Fatalf("the fact %q: %v", content, err)
	}
	return name
}

// aliases are the aliases of scope "me": alias → entity name and maker.
func (e *denyEnv) aliases(t *testing.T) map[string][2]string {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT a.alias, e.name, a.created_by FROM entity_aliases a
		JOIN entities e ON e.id = a.entity_id WHERE a.scope = 'me'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]string{}
	for rows.Next() {
		var alias, entity, by string
		if err := rows.Scan(&alias, &entity, &by); err != nil {
			t.Fatal(err)
		}
		out[alias] = [2]string{entity, by}
	}
	return out
}

func node(content string, props map[string]any) memory.NewNode {
	return memory.NewNode{Content: content, Properties: props}
}

// TestRelationAliasLearned: "my wife Maria" teaches that "my wife" is
// Maria, recorded and audited as consolidation's alias; later rows about
// "my wife" (their subject, their entity property) are Maria's facts, on
// her keys. A row about the speaker stays the user's.
func TestRelationAliasLearned(t *testing.T) {
	e := newDenyEnv(t)
	e.push(t, node("My wife Maria is a nurse.", nil), node("Maria works at Initech.", nil))
	e.consolidate(t)
	want := [2]string{"Maria", "system:consolidation"}
	if got := e.aliases(t); got["my wife"] != want || len(got) != 1 {
		t.Fatalf("aliases = %v, want my wife for Maria by consolidation", got)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'entity.alias_add'
		AND actor = 'system:consolidation' AND after->>'alias' = 'my wife'`); n != 1 {
		t.Errorf("alias audit rows = %d, want 1", n)
	}
	e.advance(time.Hour)
	e.push(t, node("My wife started a new job at Acme.", nil), node("My wife loves jazz.", nil),
		node("Prefers aisle seats.", map[string]any{"entity": "my wife", "key": "seat"}),
		node("I love my job.", nil))
	e.consolidate(t)
	for content, want := range map[string]string{
		"My wife started a new job at Acme.": "Maria",
		"My wife loves jazz.":                "Maria",
		"Prefers aisle seats.":               "Maria",
		"I love my job.":                     memory.UserEntity,
	} {
		if got := e.factEntity(t, content); got != want {
			t.Errorf("the fact %q is about %q, want %q", content, got, want)
		}
	}
	// The new job is Maria's employer, the key of her earlier one.
	if n := e.count(t, `SELECT count(*) FROM entity_facts f JOIN entities e ON e.id = f.entity_id
		WHERE e.name = 'Maria' AND f.key = 'employer'`); n != 2 {
		t.Errorf("Maria has %d employer facts, want 2", n)
	}
}

// TestRelationAliasOneBatch: the naming and a row about the relation in one
// batch; a name set off by commas; "our CTO".
func TestRelationAliasOneBatch(t *testing.T) {
	e := newDenyEnv(t)
	e.push(t, node("Dana Whitfield, my boss, moved to Leeds.", nil), node("My boss loves golf.", nil),
		node("Our CTO Priya Nair approved the budget.", nil), node("Our CTO is in Leeds this week.", nil))
	e.consolidate(t)
	got := e.aliases(t)
	if got["my boss"][0] != "Dana Whitfield" || got["our CTO"][0] != "Priya Nair" || len(got) != 2 {
		t.Errorf("aliases = %v, want my boss for Dana Whitfield and our CTO for Priya Nair", got)
	}
	for content, want := range map[string]string{
		"Dana Whitfield, my boss, moved to Leeds.": "Dana Whitfield",
		"My boss loves golf.":                      "Dana Whitfield",
		"Our CTO Priya Nair approved the budget.":  "Priya Nair",
		"Our CTO is in Leeds this week.":           "Priya Nair",
	} {
		if got := e.factEntity(t, content); got != want {
			t.Errorf("the fact %q is about %q, want %q", content, got, want)
		}
	}
}

// TestRelationAliasNeverStolen: an alias that names another entity, or an
// entity called so, is kept as it is; groups and relations of several
// people teach nothing.
func TestRelationAliasNeverStolen(t *testing.T) {
	e := newDenyEnv(t)
	ctx := context.Background()
	ana, _, err := e.store.CreateFact(ctx, memory.Human("ann@example.com"), memory.NewFact{Scope: "me",
		Entity: "Ana", Key: "occupation", Content: "Ana is a pilot."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.AddAlias(ctx, memory.Human("ann@example.com"), "me", ana.EntityID, "my wife"); err != nil {
		t.Fatal(err)
	}
	e.push(t, node("Notes on my boss.", map[string]any{"entity": "my boss"}))
	e.consolidate(t)
	e.push(t, node("My wife Maria is a nurse.", nil), node("Dana, my boss, is in Leeds.", nil),
		node("My kids Leo and Mia love Lego.", nil), node("My colleague Sam is great.", nil),
		node("My team, Platform, owns billing.", nil))
	e.consolidate(t)
	e.push(t, node("My wife loves jazz.", nil))
	e.consolidate(t)
	got := e.aliases(t)
	if want := [2]string{"Ana", "user:ann@example.com"}; got["my wife"] != want || len(got) != 1 {
		t.Errorf("aliases = %v, want only my wife for Ana, by the person who made it", got)
	}
	if got := e.factEntity(t, "My wife Maria is a nurse."); got != "Maria" {
		t.Errorf("the naming row is about %q, want Maria", got)
	}
	if got := e.factEntity(t, "My wife loves jazz."); got != "Ana" {
		t.Errorf("the row about my wife is about %q, want Ana", got)
	}
}

// TestRelationAliasFromExtraction: what the extractor finds, pushed and
// consolidated, teaches and reads the alias too, whoever it is told speaks.
func TestRelationAliasFromExtraction(t *testing.T) {
	e := newDenyEnv(t)
	ctx := context.Background()
	store := func(text, speaker string) {
		t.Helper()
		cands, err := extract.Rules{}.ExtractAs(ctx, text, "", speaker, e.Now())
		if err != nil || len(cands) == 0 {
			t.Fatalf("ExtractAs(%q) = %v, %v", text, cands, err)
		}
		e.push(t, extract.Nodes(extract.ModeRules, cands)...)
		e.consolidate(t)
	}
	store("My wife Maria is a nurse.", "")
	store("My wife started a new job at Acme.", "")
	store("My wife loves jazz.", "Grace")
	for content, want := range map[string]string{
		"My wife Maria is a nurse.":          "Maria",
		"My wife started a new job at Acme.": "Maria",
		"My wife loves jazz.":                "Maria",
	} {
		if got := e.factEntity(t, content); got != want {
			t.Errorf("the fact %q is about %q, want %q", content, got, want)
		}
	}
}
