package memory

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// entityFacts returns the ids of the facts of the entity named name in
// scope, in id order.
func (fx *fixture) entityFacts(t *testing.T, scope, name string) []int64 {
	t.Helper()
	rows, err := fx.pool.Query(context.Background(), `SELECT f.id FROM entity_facts f
		JOIN entities e ON e.id = f.entity_id WHERE e.scope = $1 AND e.name = $2 ORDER BY f.id`, scope, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// wantCanonical checks that each name reads as want in scope.
func (fx *fixture) wantCanonical(t *testing.T, scope, want string, names ...string) {
	t.Helper()
	for _, name := range names {
		got, err := canonicalEntity(context.Background(), fx.s.q, scope, name)
		if err != nil || got != want {
			t.Errorf("canonicalEntity(%s, %q) = %q, %v; want %q", scope, name, got, err, want)
		}
	}
}

// TestEntityAliasesResolve: an alias (a handle, a relation) reads as its
// entity for every writer, before the fold and the first-name rule; an
// entity merged into another no longer takes a first name alone.
func TestEntityAliasesResolve(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	ana := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ana Ruiz", Key: "occupation", Content: "Ana is a nurse."})
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ana Lopez", Key: "occupation", Content: "Ana Lopez is a pilot."})
	fx.wantCanonical(t, "home", "Ana", "Ana") // two full names: neither
	for _, alias := range []string{"@ana", "my wife"} {
		if _, err := fx.s.AddAlias(ctx, reviewer, "home", ana.EntityID, alias); err != nil {
			t.Fatalf("AddAlias(%q) error = %v", alias, err)
		}
	}
	fx.wantCanonical(t, "home", "Ana Ruiz", "@ana", "@ANA", "My  Wife", " my wife ")
	// Another scope has no such alias.
	fx.wantCanonical(t, "work", "my wife", "my wife")
	f := fx.create(t, bot, NewFact{Scope: "home", Entity: "my wife", Key: "drink", Content: "Prefers green tea."})
	if f.EntityID != ana.EntityID || f.Entity != "Ana Ruiz" {
		t.Errorf("a fact written under an alias is on %s (%d), want Ana Ruiz (%d)", f.Entity, f.EntityID, ana.EntityID)
	}
	got, err := fx.s.Recall(ctx, RecallQuery{Scope: "home", Query: "tea", Entity: "@ana"})
	if err != nil || len(got) != 1 || got[0].Fact.ID != f.ID {
		t.Errorf("Recall(entity @ana) = %+v, %v; want fact %d", got, err, f.ID)
	}
	aliases, err := fx.s.Aliases(ctx, "home", ana.EntityID)
	if err != nil || len(aliases) != 2 || aliases[0].Alias != "@ana" || aliases[1].Alias != "my wife" || aliases[0].CreatedBy != reviewer.String() {
		t.Errorf("Aliases() = %+v, %v; want @ana and my wife by %s", aliases, err, reviewer)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'entity.alias_add' AND target_id = $1`,
		itoa(ana.EntityID)); n != 2 {
		t.Errorf("alias audit rows = %d, want 2", n)
	}

	// Merged into Ana Ruiz, Ana Lopez no longer takes "Ana".
	if _, err := fx.s.MergeEntities(ctx, "home", "Ana Lopez", "Ana Ruiz", reviewer); err != nil {
		t.Fatal(err)
	}
	fx.wantCanonical(t, "home", "Ana Ruiz", "Ana", "ana lopez", "ANA LOPEZ")

	// A removed alias is a new name again.
	if _, err := fx.s.RemoveAlias(ctx, reviewer, "home", ana.EntityID, "@Ana"); err != nil {
		t.Fatal(err)
	}
	fx.wantCanonical(t, "home", "@ana", "@ana")
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'entity.alias_remove'`); n != 1 {
		t.Errorf("alias removal audit rows = %d, want 1", n)
	}
}

// TestMergeEntities: a merge moves every fact, decision and pending
// working row of one entity onto another, applies supersession between
// their facts, keeps the merged name as an alias (writes under it land on
// the target, and the target's lock refuses them), and is audited; the
// undo puts back exactly what it moved.
func TestMergeEntities(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	lisbon := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ana Ruiz", EntityKind: "person", Key: "home_city",
		Content: "Ana lives in Lisbon."})
	lock := fx.recordLock(t, "home", "Ana Ruiz", "wedding_venue")
	fx.advance(time.Hour)
	porto := fx.create(t, bot, NewFact{Scope: "home", Entity: "Wife", Key: "home_city", Content: "Wife lives in Porto."})
	fx.create(t, bot, NewFact{Scope: "home", Entity: "Wife", Key: "hobby", Content: "Wife climbs on Sundays."})
	trip, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "home", Entity: "Wife", Key: "honeymoon",
		Decision: "The honeymoon is in Japan.", Reasoning: "She always wanted to see Kyoto."})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := fx.s.Push(ctx, bot, "home", []NewNode{
		{Content: "Wife starts a new job in May.", Properties: map[string]any{"entity": "wife", "key": "employer_change"}},
		{Content: "Bob fixed the sink.", Properties: map[string]any{"entity": "Bob"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wifeFacts := fx.entityFacts(t, "home", "Wife")
	anaFacts := fx.entityFacts(t, "home", "Ana Ruiz")
	fx.advance(time.Minute)

	m, err := fx.s.MergeEntities(ctx, "home", "wife", "ana ruiz", reviewer)
	if err != nil {
		t.Fatalf("MergeEntities() error = %v", err)
	}
	if m.From != "Wife" || m.Into != "Ana Ruiz" || m.Facts != len(wifeFacts) || m.Decisions != 1 || m.Nodes != 1 || m.Archived != 1 {
		t.Errorf("merge = %+v, want Wife into Ana Ruiz with %d facts, 1 decision, 1 row, 1 archived", m, len(wifeFacts))
	}
	if got := fx.entityFacts(t, "home", "Ana Ruiz"); len(got) != len(wifeFacts)+len(anaFacts) {
		t.Errorf("Ana Ruiz's facts = %v, want hers %v and Wife's %v", got, anaFacts, wifeFacts)
	}
	if got := fx.entityFacts(t, "home", "Wife"); len(got) != 0 {
		t.Errorf("Wife still holds facts %v", got)
	}
	// Porto, observed later, supersedes Lisbon.
	if f := fx.get(t, lisbon.ID); f.Status != StatusArchived || f.ArchiveReason != "superseded by fact "+itoa(porto.ID) {
		t.Errorf("Lisbon after the merge = %s (%s), want superseded by fact %d", f.Status, f.ArchiveReason, porto.ID)
	}
	if d, err := fx.s.GetDecision(ctx, trip.ID); err != nil || d.Entity != "Ana Ruiz" {
		t.Errorf("decision %d after the merge = %+v, %v; want it on Ana Ruiz", trip.ID, d, err)
	}
	if got, _ := fx.s.GetNodes(ctx, nodes[:1]); len(got) != 1 || got[0].Properties["entity"] != "Ana Ruiz" {
		t.Errorf("pending row after the merge = %+v, want it naming Ana Ruiz", got)
	}
	fx.wantCanonical(t, "home", "Ana Ruiz", "Wife", "wife", "WIFE")
	// A write naming the merged entity lands on the target, and the
	// target's lock refuses an automated one on its key.
	drink := fx.create(t, bot, NewFact{Scope: "home", Entity: "wife", Key: "drink", Content: "She drinks green tea."})
	if drink.Entity != "Ana Ruiz" {
		t.Errorf("a fact written under the merged name is on %s, want Ana Ruiz", drink.Entity)
	}
	_, _, err = fx.s.CreateFact(ctx, bot, NewFact{Scope: "home", Entity: "Wife", Key: "wedding_venue", Content: "The wedding is at the beach."})
	wantLocked(t, "CreateFact(under the alias, on the target's locked key)", err, lock)
	_, err = fx.s.RecordDecision(ctx, bot, NewDecision{Scope: "home", Entity: "wife", Key: "wedding_venue",
		Decision: "The wedding is at the beach.", Reasoning: "The beach is cheaper than the hall."})
	wantLocked(t, "RecordDecision(under the alias, on the target's locked key)", err, lock)
	list, err := fx.s.ListEntities(ctx, EntityFilter{Scope: "home"})
	if err != nil || len(list) != 1 || list[0].Name != "Ana Ruiz" || !slices.Equal(list[0].Aliases, []string{"Wife"}) ||
		list[0].Decisions != 2 {
		t.Errorf("ListEntities() = %+v, %v; want Ana Ruiz alone, alias Wife, 2 decisions", list, err)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'entity.merge' AND target_type = 'entity_merge'
		AND target_id = $1 AND actor = $2 AND scope = 'home'`, itoa(m.ID), reviewer.String()); n != 1 {
		t.Errorf("merge audit rows = %d, want 1", n)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.supersede' AND target_id = $1`, itoa(lisbon.ID)); n != 1 {
		t.Errorf("supersession audit rows of the merge = %d, want 1", n)
	}
	merges, err := fx.s.ListMerges(ctx, "home", 0, 0)
	if err != nil || len(merges) != 1 || merges[0].ID != m.ID || merges[0].Undone() {
		t.Errorf("ListMerges() = %+v, %v; want merge %d", merges, err, m.ID)
	}

	fx.advance(time.Minute)
	undone, err := fx.s.UndoMerge(ctx, m.ID, reviewer)
	if err != nil {
		t.Fatalf("UndoMerge() error = %v", err)
	}
	if !undone.Undone() || undone.UndoneBy != reviewer.String() {
		t.Errorf("undone merge = %+v, want undone by %s", undone, reviewer)
	}
	if got := fx.entityFacts(t, "home", "Wife"); !slices.Equal(got, wifeFacts) {
		t.Errorf("Wife's facts after the undo = %v, want %v", got, wifeFacts)
	}
	if got := fx.entityFacts(t, "home", "Ana Ruiz"); !slices.Equal(got, append(slices.Clone(anaFacts), drink.ID)) {
		t.Errorf("Ana Ruiz's facts after the undo = %v, want %v and the fact written since, %d", got, anaFacts, drink.ID)
	}
	if f := fx.get(t, lisbon.ID); f.Status != StatusActive {
		t.Errorf("Lisbon after the undo = %s (%s), want active again", f.Status, f.ArchiveReason)
	}
	if d, err := fx.s.GetDecision(ctx, trip.ID); err != nil || d.Entity != "Wife" {
		t.Errorf("decision %d after the undo = %+v, %v; want it on Wife", trip.ID, d, err)
	}
	if got, _ := fx.s.GetNodes(ctx, nodes[:1]); len(got) != 1 || got[0].Properties["entity"] != "wife" {
		t.Errorf("pending row after the undo = %+v, want it naming wife as it was written", got)
	}
	fx.wantCanonical(t, "home", "Wife", "wife")
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'entity.unmerge' AND target_id = $1`, itoa(m.ID)); n != 1 {
		t.Errorf("undo audit rows = %d, want 1", n)
	}
	_, err = fx.s.UndoMerge(ctx, m.ID, reviewer)
	wantError(t, "UndoMerge(twice)", err, CodeConflict, "already undone")
}

// TestMergeRefusals: each refusal of a merge, an undo and an alias says
// what is wrong.
func TestMergeRefusals(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	ana := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ana Ruiz", Key: "occupation", Content: "Ana is a nurse."})
	bob := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Bob", Key: "occupation", Content: "Bob is a plumber."})
	fx.create(t, reviewer, NewFact{Scope: "work", Entity: "Carla", Key: "occupation", Content: "Carla leads the team."})
	if _, err := fx.s.AddAlias(ctx, reviewer, "home", ana.EntityID, "my wife"); err != nil {
		t.Fatal(err)
	}

	_, err := fx.s.MergeEntities(ctx, "home", "Zed", "Ana Ruiz", reviewer)
	wantError(t, "MergeEntities(unknown from)", err, CodeNotFound, `no entity "Zed" in scope home`)
	_, err = fx.s.MergeEntities(ctx, "home", "Bob", "Carla", reviewer)
	wantError(t, "MergeEntities(into another scope's entity)", err, CodeNotFound, `no entity "Carla" in scope home`)
	_, err = fx.s.MergeEntities(ctx, "home", "ana ruiz", "Ana Ruiz", reviewer)
	wantError(t, "MergeEntities(into itself)", err, CodeInvalid, "one entity already")
	_, err = fx.s.MergeEntities(ctx, "home", "my wife", "Ana Ruiz", reviewer)
	wantError(t, "MergeEntities(an alias into its entity)", err, CodeInvalid, "one entity already")
	_, err = fx.s.MergeEntities(ctx, "home", " ", "Ana Ruiz", reviewer)
	wantError(t, "MergeEntities(empty from)", err, CodeInvalid, "from entity is empty")
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: defaultEntity, Content: "The boiler is serviced in May."})
	_, err = fx.s.MergeEntities(ctx, "home", "Bob", defaultEntity, reviewer)
	wantError(t, "MergeEntities(into general)", err, CodeInvalid, "no one in particular")
	_, err = fx.s.MergeEntities(ctx, "Home!", "Bob", "Ana Ruiz", reviewer)
	wantError(t, "MergeEntities(bad scope)", err, CodeInvalid, "invalid scope")
	a := fx.recordLock(t, "home", "Ana Ruiz", "venue")
	b := fx.recordLock(t, "home", "Bob", "venue")
	_, err = fx.s.MergeEntities(ctx, "home", "Bob", "Ana Ruiz", reviewer)
	wantError(t, "MergeEntities(both locked on one key)", err, CodeConflict, "reopen one", itoa(a.ID), itoa(b.ID))
	if n := fx.count(t, `SELECT count(*) FROM entity_merges`); n != 0 {
		t.Errorf("refused merges recorded %d rows", n)
	}

	_, err = fx.s.AddAlias(ctx, reviewer, "home", bob.EntityID, "My Wife")
	wantError(t, "AddAlias(pointing elsewhere)", err, CodeConflict, "already an alias of another entity, Ana Ruiz")
	_, err = fx.s.AddAlias(ctx, reviewer, "home", ana.EntityID, "my wife")
	wantError(t, "AddAlias(again)", err, CodeConflict, "already an alias of Ana Ruiz")
	_, err = fx.s.AddAlias(ctx, reviewer, "home", bob.EntityID, "ana  ruiz")
	wantError(t, "AddAlias(another entity's name)", err, CodeConflict, "merge the two entities")
	_, err = fx.s.AddAlias(ctx, reviewer, "home", bob.EntityID, "BOB")
	wantError(t, "AddAlias(own name)", err, CodeInvalid, "own name")
	_, err = fx.s.AddAlias(ctx, reviewer, "home", bob.EntityID, "  ")
	wantError(t, "AddAlias(empty)", err, CodeInvalid, "alias is empty")
	_, err = fx.s.AddAlias(ctx, reviewer, "work", bob.EntityID, "bobby")
	wantError(t, "AddAlias(entity of another scope)", err, CodeNotFound, "no entity with id")
	_, err = fx.s.RemoveAlias(ctx, reviewer, "home", bob.EntityID, "my wife")
	wantError(t, "RemoveAlias(another entity's alias)", err, CodeNotFound, `Bob has no alias "my wife"`)

	// Bob's lock reopened, the merge goes through; its alias goes only
	// with an undo, and a merged entity takes no alias.
	if _, err := fx.s.ReopenDecision(ctx, reviewer, b.ID, "the venue is Ana's call"); err != nil {
		t.Fatal(err)
	}
	m, err := fx.s.MergeEntities(ctx, "home", "Bob", "my wife", reviewer)
	if err != nil {
		t.Fatalf("MergeEntities(Bob into my wife) error = %v", err)
	}
	_, err = fx.s.RemoveAlias(ctx, reviewer, "home", ana.EntityID, "bob")
	wantError(t, "RemoveAlias(a merge's alias)", err, CodeConflict, "undo the merge")
	_, err = fx.s.AddAlias(ctx, reviewer, "home", bob.EntityID, "bobby")
	wantError(t, "AddAlias(to a merged entity)", err, CodeConflict, "was merged into Ana Ruiz")
	// Merged on, Ana Ruiz's merge must be undone first.
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ana Maria Ruiz", Key: "hobby", Content: "Ana paints."})
	later, err := fx.s.MergeEntities(ctx, "home", "Ana Ruiz", "Ana Maria Ruiz", reviewer)
	if err != nil {
		t.Fatal(err)
	}
	fx.wantCanonical(t, "home", "Ana Maria Ruiz", "bob", "my wife", "ana ruiz")
	_, err = fx.s.UndoMerge(ctx, m.ID, reviewer)
	wantError(t, "UndoMerge(into merged on since)", err, CodeConflict, "undo merge "+itoa(later.ID)+" first")
	if _, err := fx.s.UndoMerge(ctx, later.ID, reviewer); err != nil {
		t.Fatal(err)
	}
	fx.wantCanonical(t, "home", "Ana Ruiz", "bob", "my wife", "ana ruiz")
	if _, err := fx.s.UndoMerge(ctx, m.ID, reviewer); err != nil {
		t.Fatal(err)
	}
	fx.wantCanonical(t, "home", "Bob", "bob")
	fx.wantCanonical(t, "home", "Ana Ruiz", "my wife")
	_, err = fx.s.UndoMerge(ctx, 999, reviewer)
	wantError(t, "UndoMerge(unknown)", err, CodeNotFound, "no merge with id 999")
}

// TestCanonicalEntityNamesPlan: reading names through aliases stays one
// statement that probes indexes: the aliases by their key, the entities by
// their fold, never a scan of either table.
func TestCanonicalEntityNamesPlan(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	rec := &statementRecorder{}
	cfg.ConnConfig.Tracer = rec
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for _, sql := range []string{
		`INSERT INTO entities (scope, name) SELECT 'big', 'Person ' || i FROM generate_series(1, 20000) i`,
		`INSERT INTO entity_aliases (scope, fold, alias, entity_id, created_by, created_at)
		 SELECT 'big', '@p' || e.id, '@p' || e.id, e.id, 'system:test', now() FROM entities e WHERE e.scope = 'big'`,
		`ANALYZE entities`, `ANALYZE entity_aliases`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	s := NewStore(pool, Options{Now: func() time.Time { return fxStart }})
	rec.take()
	got, err := canonicalEntities(ctx, s.q, []string{"big", "big", "big", "big"}, []string{"@P5", "person  7", "Person", "Nobody"})
	if err != nil {
		t.Fatal(err)
	}
	stmts := rec.take()
	var p5 string
	if err := pool.QueryRow(ctx, `SELECT e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
		WHERE a.scope = 'big' AND a.fold = '@p5'`).Scan(&p5); err != nil {
		t.Fatal(err)
	}
	if got[0] != p5 || got[1] != "Person 7" || got[2] != "Person" || got[3] != "Nobody" {
		t.Errorf("canonicalEntities = %q", got)
	}
	if len(stmts) != 1 {
		t.Fatalf("canonicalEntities ran %d statements, want 1: %v", len(stmts), stmts)
	}
	plan := explain(t, pool, stmts[0].sql, stmts[0].args...)
	for _, want := range []string{"entity_aliases_pkey", "entities_scope_fold_idx"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan does not read %s:\n%s", want, plan)
		}
	}
	for _, scan := range []string{"Seq Scan on entity_aliases", "Seq Scan on entities"} {
		if strings.Contains(plan, scan) {
			t.Errorf("plan has a %s:\n%s", scan, plan)
		}
	}
}
