package memory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// Aliases and merges. An alias is another name of an entity within its
// scope: a handle ("@ana"), a relation once named ("my wife"), or the name
// of an entity merged into it. Writers read a name through the aliases
// before the other rules (entities.go), so a row, fact or decision written
// under an alias lands on the entity, and locks, duplicate notes,
// supersession and recall's entity filter see one entity. A merge moves
// every fact, decision and pending working row of one entity onto another,
// keeps the first's name as an alias of the second, applies supersession
// between their facts, and records what it moved, so that UndoMerge puts
// back exactly those rows. Every change is audited. Migration 00037 holds
// the tables.

// Alias is one alias of an entity.
type Alias struct {
	Scope     string    `json:"scope"`
	Alias     string    `json:"alias"`
	EntityID  int64     `json:"entity_id"`
	Entity    string    `json:"entity"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	// MergeID is the merge that made the alias (the merged entity's name),
	// which only an undo of that merge removes.
	MergeID *int64 `json:"merge_id"`
}

// Merge is one merge of an entity into another.
type Merge struct {
	ID           int64      `json:"id"`
	Scope        string     `json:"scope"`
	FromEntityID int64      `json:"from_entity_id"`
	From         string     `json:"from"`
	IntoEntityID int64      `json:"into_entity_id"`
	Into         string     `json:"into"`
	Actor        string     `json:"actor"`
	CreatedAt    time.Time  `json:"created_at"`
	UndoneAt     *time.Time `json:"undone_at"`
	UndoneBy     string     `json:"undone_by"`
	// What the merge moved and what its supersession archived.
	Facts     int `json:"facts"`
	Decisions int `json:"decisions"`
	Nodes     int `json:"nodes"`
	Archived  int `json:"archived"`
}

// Undone reports whether the merge was undone.
func (m Merge) Undone() bool { return m.UndoneAt != nil }

// EntitySummary is one entity of a scope as the entities list shows it.
type EntitySummary struct {
	ID          int64     `json:"id"`
	Scope       string    `json:"scope"`
	Name        string    `json:"name"`
	Kind        string    `json:"kind"`
	CreatedAt   time.Time `json:"created_at"`
	ActiveFacts int64     `json:"active_facts"`
	Decisions   int64     `json:"decisions"`
	Aliases     []string  `json:"aliases"`
	// MergedAliases are the aliases that are names of entities merged into
	// this one, which only an undo of their merge removes.
	MergedAliases []string `json:"merged_aliases"`
}

// EntityFilter selects the entities of one scope.
type EntityFilter struct {
	Scope string
	// Query keeps the entities whose name holds it, compared as names are
	// (case, white space and accents aside).
	Query string
	Limit int // default 200, at most 1000
}

// Bounds of the entity and merge lists.
const (
	defaultEntityList = 200
	maxEntityList     = 1000
	defaultMergeList  = 20
	maxMergeList      = 500
)

// ListEntities returns the entities of a scope by name, each with its
// active facts, decisions and aliases; an entity merged into another is
// left out (ListMerges shows it).
func (s *Store) ListEntities(ctx context.Context, f EntityFilter) ([]EntitySummary, error) {
	scope, err := ParseScope(f.Scope)
	if err != nil {
		return nil, err
	}
	limit, err := parsePageSize(f.Limit, defaultEntityList, maxEntityList)
	if err != nil {
		return nil, err
	}
	if err := CheckText("query", f.Query); err != nil {
		return nil, err
	}
	query := strings.TrimSpace(f.Query)
	if n := utf8.RuneCountInString(query); n > maxEntityName {
		return nil, Invalidf("query", "the query is %d characters long: at most %d are allowed", n, maxEntityName)
	}
	var rows []queries.ListScopeEntitiesRow
	err = s.read(ctx, func(ctx context.Context, db *queries.Queries) error {
		var err error
		rows, err = db.ListScopeEntities(ctx, queries.ListScopeEntitiesParams{Scope: scope, Query: query, MaxRows: limit})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list entities: %w", err)
	}
	out := make([]EntitySummary, len(rows))
	for i, r := range rows {
		out[i] = EntitySummary{ID: r.ID, Scope: r.Scope, Name: r.Name, Kind: r.Kind, CreatedAt: r.CreatedAt,
			ActiveFacts: r.ActiveFacts, Decisions: r.Decisions, Aliases: r.Aliases, MergedAliases: r.MergedAliases}
	}
	return out, nil
}

// ListMerges returns one page of a scope's merges, newest first: those
// with ids below beforeID (0 for the first page), at most limit (default
// 20, at most 500).
func (s *Store) ListMerges(ctx context.Context, scope string, beforeID int64, limit int) ([]Merge, error) {
	scope, err := ParseScope(scope)
	if err != nil {
		return nil, err
	}
	n, err := parsePageSize(limit, defaultMergeList, maxMergeList)
	if err != nil {
		return nil, err
	}
	if beforeID < 0 {
		return nil, Invalidf("cursor", "invalid page cursor %d: it must be a positive merge id", beforeID)
	}
	rows, err := s.q.ListMerges(ctx, queries.ListMergesParams{Scope: scope, BeforeID: beforeID, MaxRows: n})
	if err != nil {
		return nil, fmt.Errorf("list merges: %w", err)
	}
	out := make([]Merge, len(rows))
	for i, r := range rows {
		out[i] = newMerge(queries.MergeByIDRow(r))
	}
	return out, nil
}

// GetMerge returns the merge with id.
func (s *Store) GetMerge(ctx context.Context, id int64) (Merge, error) {
	return getMerge(ctx, s.q, id)
}

func getMerge(ctx context.Context, q *queries.Queries, id int64) (Merge, error) {
	r, err := q.MergeByID(ctx, id)
	if isNoRows(err) {
		return Merge{}, NotFoundf("no merge with id %d", id)
	}
	if err != nil {
		return Merge{}, fmt.Errorf("merge %d: %w", id, err)
	}
	return newMerge(r), nil
}

func newMerge(r queries.MergeByIDRow) Merge {
	m := Merge{ID: r.ID, Scope: r.Scope, FromEntityID: r.FromEntityID, From: r.FromName,
		IntoEntityID: r.IntoEntityID, Into: r.IntoName, Actor: r.Actor, CreatedAt: r.CreatedAt,
		UndoneAt: r.UndoneAt, Facts: int(r.Facts), Decisions: int(r.Decisions), Nodes: int(r.Nodes),
		Archived: int(r.Archived)}
	if r.UndoneBy != nil {
		m.UndoneBy = *r.UndoneBy
	}
	return m
}

// parseEntityName reads the name of an entity to merge, given as field.
func parseEntityName(field, s string) (string, error) {
	if err := CheckText(field, s); err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Invalidf(field, "the %s entity is empty: name an entity of the scope, by its name or an alias", field)
	}
	if n := utf8.RuneCountInString(s); n > maxEntityName {
		return "", Invalidf(field, "the %s entity is %d characters long: at most %d are allowed", field, n, maxEntityName)
	}
	return s, nil
}

// resolveEntity returns the entity of scope that name names, read as every
// writer reads it (an alias, the same fold, a first name alone), or a
// CodeNotFound error naming field.
func resolveEntity(ctx context.Context, q *queries.Queries, scope, field, name string) (queries.Entity, error) {
	canonical, err := canonicalEntity(ctx, q, scope, name)
	if err != nil {
		return queries.Entity{}, err
	}
	e, err := q.EntityByName(ctx, queries.EntityByNameParams{Scope: scope, Name: canonical})
	if isNoRows(err) {
		return e, &Error{Code: CodeNotFound, Field: field, Message: fmt.Sprintf(
			"no entity %q in scope %s: name an entity the scope holds, by its name or one of its aliases", name, scope)}
	}
	if err != nil {
		return e, fmt.Errorf("entity %q: %w", name, err)
	}
	return e, nil
}

// MergeEntities merges the entity from into the entity into, both of
// scope and named as writers name them (by name, any spelling of it, or an
// alias), in one transaction: every fact, decision and pending working row
// of from moves to into, the aliases of from become into's, from's name
// becomes an alias of into, and supersession runs between the two
// entities' facts (the later-observed value of an attribute archives the
// other; exact duplicates stay side by side). The merge is recorded and
// audited; UndoMerge reverses it.
//
// It refuses (CodeNotFound) an entity the scope does not hold, (CodeInvalid)
// two names of one entity, and (CodeConflict) two entities that each hold
// a current locked decision on the same key: reopen one first.
func (s *Store) MergeEntities(ctx context.Context, scope, from, into string, actor Actor) (Merge, error) {
	scope, err := ParseScope(scope)
	if err != nil {
		return Merge{}, err
	}
	if from, err = parseEntityName("from", from); err != nil {
		return Merge{}, err
	}
	if into, err = parseEntityName("into", into); err != nil {
		return Merge{}, err
	}
	now := s.Now()
	var out Merge
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		src, err := resolveEntity(ctx, q, scope, "from", from)
		if err != nil {
			return err
		}
		dst, err := resolveEntity(ctx, q, scope, "into", into)
		if err != nil {
			return err
		}
		for _, e := range []struct {
			field string
			name  string
		}{{"from", src.Name}, {"into", dst.Name}} {
			if e.name == defaultEntity {
				return Invalidf(e.field, "%s holds what is about no one in particular: it cannot be merged with an entity", defaultEntity)
			}
		}
		if src.ID == dst.ID {
			return Invalidf("into", "%q and %q are one entity already (%s, id %d): pick two different entities",
				from, into, dst.Name, dst.ID)
		}
		// Writers naming either entity wait for the merge (their facts'
		// foreign keys share these rows).
		if _, err := q.LockEntities(ctx, []int64{src.ID, dst.ID}); err != nil {
			return fmt.Errorf("lock entities: %w", err)
		}
		// Another merge may have moved one of them while this one waited.
		for _, e := range []queries.Entity{src, dst} {
			if later, err := q.EntityMergedAway(ctx, e.ID); err == nil {
				return &Error{Code: CodeConflict, Message: fmt.Sprintf(
					"%s was just merged into %s (merge %d): nothing was changed; merge again naming the entities as they are now",
					e.Name, later.IntoName, later.ID)}
			} else if !isNoRows(err) {
				return fmt.Errorf("merge of entity %d: %w", e.ID, err)
			}
		}
		shared, err := q.LockedDecisionsOnSharedKeys(ctx, queries.LockedDecisionsOnSharedKeysParams{
			FromEntityID: src.ID, IntoEntityID: dst.ID})
		if err != nil {
			return fmt.Errorf("locked decisions: %w", err)
		}
		if len(shared) > 0 {
			d := shared[0]
			return &Error{Code: CodeConflict, Field: "from", Message: fmt.Sprintf(
				"%s and %s each hold a locked decision on key %s (decisions %d and %d): reopen one of them first, then merge",
				src.Name, dst.Name, d.Key, d.FromDecisionID, d.IntoDecisionID)}
		}
		entities := []int64{src.ID, dst.ID}
		if err := q.LockDecisionKeys(ctx, entities); err != nil {
			return fmt.Errorf("lock decision keys: %w", err)
		}

		facts, err := q.MoveEntityFacts(ctx, queries.MoveEntityFactsParams{IntoEntityID: dst.ID, Now: now, FromEntityID: src.ID})
		if err != nil {
			return fmt.Errorf("move facts: %w", err)
		}
		decisions, err := q.MoveEntityDecisions(ctx, queries.MoveEntityDecisionsParams{IntoEntityID: dst.ID, Now: now, FromEntityID: src.ID})
		if err != nil {
			return fmt.Errorf("move decisions: %w", err)
		}
		if err := q.RefreshDecisionsSuperseded(ctx, entities); err != nil {
			return fmt.Errorf("superseded decisions: %w", err)
		}
		aliasFolds, err := q.RepointAliases(ctx, queries.RepointAliasesParams{Scope: scope, FromEntityID: src.ID, IntoEntityID: dst.ID})
		if err != nil {
			return fmt.Errorf("move aliases: %w", err)
		}
		srcFold, err := q.EntityFold(ctx, src.Name)
		if err != nil {
			return fmt.Errorf("fold: %w", err)
		}
		nodes, err := q.MoveEntityNodes(ctx, queries.MoveEntityNodesParams{
			IntoName: dst.Name, Scope: scope, Folds: append([]string{srcFold}, aliasFolds...)})
		if err != nil {
			return fmt.Errorf("move working rows: %w", err)
		}
		nodeIDs, nodeEntities := make([]int64, len(nodes)), make([]string, len(nodes))
		for i, n := range nodes {
			nodeIDs[i], nodeEntities[i] = n.ID, n.OldEntity
		}

		// The two entities' facts now share keys: the later-observed value
		// of an attribute stays current, as for any writer (supersede.go).
		archived, err := s.supersede(ctx, q, actor, now, facts)
		if err != nil {
			return err
		}
		archivedIDs := make([]int64, len(archived))
		for i, a := range archived {
			archivedIDs[i] = a.FactID
		}

		row, err := q.InsertMerge(ctx, queries.InsertMergeParams{
			Scope: scope, FromEntityID: src.ID, IntoEntityID: dst.ID, Actor: actor.String(), Now: now,
			FactIds: facts, DecisionIds: decisions, NodeIds: nodeIDs, NodeEntities: nodeEntities,
			AliasFolds: aliasFolds, ArchivedIds: archivedIDs,
		})
		if err != nil {
			return fmt.Errorf("record merge: %w", err)
		}
		// from's name is an alias of into from now on. An alias of that
		// fold already there was from's and has just moved to into.
		if _, err := q.InsertAlias(ctx, queries.InsertAliasParams{
			Scope: scope, Alias: src.Name, EntityID: dst.ID, CreatedBy: actor.String(), Now: now, MergeID: &row.ID,
		}); err != nil && !isNoRows(err) {
			return fmt.Errorf("alias: %w", err)
		}
		if cur, err := q.AliasByFold(ctx, queries.AliasByFoldParams{Scope: scope, Fold: srcFold}); err != nil {
			return fmt.Errorf("alias: %w", err)
		} else if cur.EntityID != dst.ID {
			return &Error{Code: CodeConflict, Field: "from", Message: fmt.Sprintf(
				"the name %q is an alias of another entity, %s: remove that alias first", src.Name, cur.EntityName)}
		}

		if out, err = getMerge(ctx, q, row.ID); err != nil {
			return err
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "entity.merge", targetType: "entity_merge", targetID: strconv.FormatInt(row.ID, 10),
			scope:  scope,
			before: map[string]any{"from_entity_id": src.ID, "from": src.Name, "into_entity_id": dst.ID, "into": dst.Name},
			after: map[string]any{"facts": auditIDs(facts), "decisions": auditIDs(decisions), "nodes": auditIDs(nodeIDs),
				"alias": src.Name, "aliases_moved": aliasFolds, "archived_facts": auditIDs(archivedIDs)},
			reason: fmt.Sprintf("merged %s into %s", src.Name, dst.Name),
		})
	})
	if err != nil {
		return Merge{}, fmt.Errorf("merge entities: %w", err)
	}
	return out, nil
}

// auditIDs is a list of row ids as an audit row keeps it: the ids, up to
// 100 of them, and their count (the merge's row keeps every id).
func auditIDs(ids []int64) map[string]any {
	out := map[string]any{"count": len(ids)}
	if len(ids) <= 100 {
		out["ids"] = ids
	} else {
		out["first_ids"] = ids[:100]
	}
	return out
}

// UndoMerge reverses the merge with id, in one transaction: the facts,
// decisions and pending working rows it moved go back to the merged entity
// (those still on the entity it went into), the aliases it moved go back,
// the alias it made is removed, and the facts its supersession archived are
// restored while still archived by it. Audited.
//
// It refuses (CodeNotFound) an unknown merge and (CodeConflict) a merge
// undone already, or one whose entity was merged into another since: undo
// that later merge first.
func (s *Store) UndoMerge(ctx context.Context, mergeID int64, actor Actor) (Merge, error) {
	if mergeID <= 0 {
		return Merge{}, Invalidf("id", "invalid merge id %d: ids are positive whole numbers", mergeID)
	}
	now := s.Now()
	var out Merge
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		m, err := q.MergeByIDForUpdate(ctx, mergeID)
		if isNoRows(err) {
			return NotFoundf("no merge with id %d", mergeID)
		}
		if err != nil {
			return fmt.Errorf("merge %d: %w", mergeID, err)
		}
		if m.UndoneAt != nil {
			by := ""
			if m.UndoneBy != nil {
				by = " by " + *m.UndoneBy
			}
			return &Error{Code: CodeConflict, Message: fmt.Sprintf("merge %d was already undone%s at %s; nothing was changed",
				m.ID, by, m.UndoneAt.UTC().Format("2006-01-02 15:04 UTC"))}
		}
		if _, err := q.LockEntities(ctx, []int64{m.FromEntityID, m.IntoEntityID}); err != nil {
			return fmt.Errorf("lock entities: %w", err)
		}
		later, err := q.EntityMergedAway(ctx, m.IntoEntityID)
		if err == nil {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf(
				"the entity merge %d went into was merged into %s since (merge %d): undo merge %d first",
				m.ID, later.IntoName, later.ID, later.ID)}
		}
		if !isNoRows(err) {
			return fmt.Errorf("later merge: %w", err)
		}
		into, err := q.EntityByID(ctx, queries.EntityByIDParams{Scope: m.Scope, ID: m.IntoEntityID})
		if err != nil {
			return fmt.Errorf("entity %d: %w", m.IntoEntityID, err)
		}
		entities := []int64{m.FromEntityID, m.IntoEntityID}
		if err := q.LockDecisionKeys(ctx, entities); err != nil {
			return fmt.Errorf("lock decision keys: %w", err)
		}

		facts, err := q.MoveFactsBack(ctx, queries.MoveFactsBackParams{
			ToEntityID: m.FromEntityID, Now: now, Ids: m.FactIds, IntoEntityID: m.IntoEntityID})
		if err != nil {
			return fmt.Errorf("move facts back: %w", err)
		}
		decisions, err := q.MoveDecisionsBack(ctx, queries.MoveDecisionsBackParams{
			ToEntityID: m.FromEntityID, Now: now, Ids: m.DecisionIds, IntoEntityID: m.IntoEntityID})
		if err != nil {
			return fmt.Errorf("move decisions back: %w", err)
		}
		if err := q.RefreshDecisionsSuperseded(ctx, entities); err != nil {
			return fmt.Errorf("superseded decisions: %w", err)
		}
		nodes, err := q.MoveNodesBack(ctx, queries.MoveNodesBackParams{
			Ids: m.NodeIds, Entities: m.NodeEntities, IntoName: into.Name})
		if err != nil {
			return fmt.Errorf("move working rows back: %w", err)
		}
		removed, err := q.DeleteMergeAliases(ctx, &m.ID)
		if err != nil {
			return fmt.Errorf("remove alias: %w", err)
		}
		var aliases []string
		if len(m.AliasFolds) > 0 {
			if aliases, err = q.RepointAliases(ctx, queries.RepointAliasesParams{
				Scope: m.Scope, FromEntityID: m.IntoEntityID, IntoEntityID: m.FromEntityID, Folds: m.AliasFolds,
			}); err != nil {
				return fmt.Errorf("move aliases back: %w", err)
			}
		}
		var restored []int64
		if len(m.ArchivedIds) > 0 {
			if restored, err = q.FactsStillArchivedAt(ctx, queries.FactsStillArchivedAtParams{
				Ids: m.ArchivedIds, ArchivedAt: m.CreatedAt}); err != nil {
				return fmt.Errorf("archived facts: %w", err)
			}
		}
		if len(restored) > 0 {
			if _, err := q.RestoreFactsByID(ctx, queries.RestoreFactsByIDParams{
				Now: now, Ids: restored, Actor: actor.String(), Reason: fmt.Sprintf("undo of merge %d", m.ID),
			}); err != nil {
				return fmt.Errorf("restore facts: %w", err)
			}
		}
		if _, err := q.MarkMergeUndone(ctx, queries.MarkMergeUndoneParams{Now: now, Actor: actor.String(), ID: m.ID}); err != nil {
			return fmt.Errorf("mark merge undone: %w", err)
		}
		if out, err = getMerge(ctx, q, m.ID); err != nil {
			return err
		}
		removedAliases := make([]string, len(removed))
		for i, r := range removed {
			removedAliases[i] = r.Alias
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "entity.unmerge", targetType: "entity_merge", targetID: strconv.FormatInt(m.ID, 10),
			scope:  m.Scope,
			before: map[string]any{"from_entity_id": m.FromEntityID, "into_entity_id": m.IntoEntityID, "undone_at": nil},
			after: map[string]any{"undone_at": now, "facts": auditIDs(facts), "decisions": auditIDs(decisions),
				"nodes": auditIDs(nodes), "aliases_removed": removedAliases, "aliases_moved": aliases,
				"restored_facts": auditIDs(restored)},
			reason: fmt.Sprintf("undid merge %d of %s into %s", m.ID, out.From, out.Into),
		})
	})
	if err != nil {
		return Merge{}, fmt.Errorf("undo merge: %w", err)
	}
	return out, nil
}

// parseAlias reads an alias: a name of at most maxEntityName characters.
func parseAlias(s string) (string, error) {
	if err := CheckText("alias", s); err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Invalidf("alias", "the alias is empty: give another name of the entity, such as a handle (@ana) or a relation (my wife), in at most %d characters", maxEntityName)
	}
	if n := utf8.RuneCountInString(s); n > maxEntityName {
		return "", Invalidf("alias", "the alias is %d characters long: at most %d are allowed", n, maxEntityName)
	}
	return s, nil
}

// liveEntity returns the entity with id in scope, refusing one the scope
// does not hold (CodeNotFound) or one merged into another (CodeConflict,
// naming it).
func liveEntity(ctx context.Context, q *queries.Queries, scope string, id int64) (queries.Entity, error) {
	e, err := q.EntityByID(ctx, queries.EntityByIDParams{Scope: scope, ID: id})
	if isNoRows(err) {
		return e, NotFoundf("no entity with id %d in scope %s", id, scope)
	}
	if err != nil {
		return e, fmt.Errorf("entity %d: %w", id, err)
	}
	later, err := q.EntityMergedAway(ctx, id)
	if err == nil {
		return e, &Error{Code: CodeConflict, Message: fmt.Sprintf(
			"%s was merged into %s (merge %d): use %s, or undo the merge", e.Name, later.IntoName, later.ID, later.IntoName)}
	}
	if !isNoRows(err) {
		return e, fmt.Errorf("merge of entity %d: %w", id, err)
	}
	return e, nil
}

// Aliases returns the aliases of the entity with id in scope.
func (s *Store) Aliases(ctx context.Context, scope string, entityID int64) ([]Alias, error) {
	scope, err := ParseScope(scope)
	if err != nil {
		return nil, err
	}
	e, err := s.q.EntityByID(ctx, queries.EntityByIDParams{Scope: scope, ID: entityID})
	if isNoRows(err) {
		return nil, NotFoundf("no entity with id %d in scope %s", entityID, scope)
	}
	if err != nil {
		return nil, fmt.Errorf("entity %d: %w", entityID, err)
	}
	rows, err := s.q.AliasesOfEntity(ctx, entityID)
	if err != nil {
		return nil, fmt.Errorf("aliases: %w", err)
	}
	out := make([]Alias, len(rows))
	for i, r := range rows {
		out[i] = newAlias(r, e.Name)
	}
	return out, nil
}

func newAlias(r queries.EntityAlias, entity string) Alias {
	return Alias{Scope: r.Scope, Alias: r.Alias, EntityID: r.EntityID, Entity: entity,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, MergeID: r.MergeID}
}

// AddAlias records alias as another name of the entity with id in scope,
// audited: from then on every writer reads the alias as the entity. It
// refuses (CodeInvalid) an empty or overlong alias or one that is the
// entity's own name, (CodeNotFound) an entity the scope does not hold, and
// (CodeConflict) an alias that already names an entity, the name of another
// entity (merge the two instead), or an entity merged into another.
func (s *Store) AddAlias(ctx context.Context, actor Actor, scope string, entityID int64, alias string) (Alias, error) {
	scope, err := ParseScope(scope)
	if err != nil {
		return Alias{}, err
	}
	if alias, err = parseAlias(alias); err != nil {
		return Alias{}, err
	}
	var out Alias
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		e, err := liveEntity(ctx, q, scope, entityID)
		if err != nil {
			return err
		}
		fold, err := q.EntityFold(ctx, alias)
		if err != nil {
			return fmt.Errorf("fold: %w", err)
		}
		if fold == "" {
			return Invalidf("alias", "the alias %q holds no letter or digit: give another name of the entity", alias)
		}
		own, err := q.EntityFold(ctx, e.Name)
		if err != nil {
			return fmt.Errorf("fold: %w", err)
		}
		if fold == own {
			return Invalidf("alias", "%q is the entity's own name (%s), which already names it", alias, e.Name)
		}
		others, err := q.LiveEntitiesOfFold(ctx, queries.LiveEntitiesOfFoldParams{Scope: scope, Fold: fold})
		if err != nil {
			return fmt.Errorf("entities named %q: %w", alias, err)
		}
		if len(others) > 0 {
			return &Error{Code: CodeConflict, Field: "alias", Message: fmt.Sprintf(
				"%q is the name of another entity, %s (id %d): merge the two entities instead", alias, others[0].Name, others[0].ID)}
		}
		row, err := q.InsertAlias(ctx, queries.InsertAliasParams{
			Scope: scope, Alias: alias, EntityID: e.ID, CreatedBy: actor.String(), Now: s.Now(),
		})
		if isNoRows(err) {
			cur, err := q.AliasByFold(ctx, queries.AliasByFoldParams{Scope: scope, Fold: fold})
			if err != nil {
				return fmt.Errorf("alias %q: %w", alias, err)
			}
			if cur.EntityID == e.ID {
				return &Error{Code: CodeConflict, Field: "alias", Message: fmt.Sprintf(
					"%q is already an alias of %s (as %q)", alias, e.Name, cur.Alias)}
			}
			return &Error{Code: CodeConflict, Field: "alias", Message: fmt.Sprintf(
				"%q is already an alias of another entity, %s (id %d): remove it there first, or merge the two entities",
				alias, cur.EntityName, cur.EntityID)}
		}
		if err != nil {
			return fmt.Errorf("add alias: %w", err)
		}
		out = newAlias(row, e.Name)
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "entity.alias_add", targetType: "entity", targetID: strconv.FormatInt(e.ID, 10),
			scope: scope, after: map[string]any{"alias": alias, "entity": e.Name},
		})
	})
	if err != nil {
		return Alias{}, fmt.Errorf("add alias: %w", err)
	}
	return out, nil
}

// RemoveAlias removes alias (any spelling of it) from the entity with id in
// scope, audited. It refuses (CodeNotFound) an alias the entity does not
// have and (CodeConflict) the alias a merge made, which goes only with an
// undo of the merge.
func (s *Store) RemoveAlias(ctx context.Context, actor Actor, scope string, entityID int64, alias string) (Alias, error) {
	scope, err := ParseScope(scope)
	if err != nil {
		return Alias{}, err
	}
	if alias, err = parseAlias(alias); err != nil {
		return Alias{}, err
	}
	var out Alias
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		e, err := q.EntityByID(ctx, queries.EntityByIDParams{Scope: scope, ID: entityID})
		if isNoRows(err) {
			return NotFoundf("no entity with id %d in scope %s", entityID, scope)
		}
		if err != nil {
			return fmt.Errorf("entity %d: %w", entityID, err)
		}
		fold, err := q.EntityFold(ctx, alias)
		if err != nil {
			return fmt.Errorf("fold: %w", err)
		}
		cur, err := q.AliasByFold(ctx, queries.AliasByFoldParams{Scope: scope, Fold: fold})
		if isNoRows(err) || (err == nil && cur.EntityID != e.ID) {
			return &Error{Code: CodeNotFound, Field: "alias", Message: fmt.Sprintf("%s has no alias %q", e.Name, alias)}
		}
		if err != nil {
			return fmt.Errorf("alias %q: %w", alias, err)
		}
		if cur.MergeID != nil {
			return &Error{Code: CodeConflict, Field: "alias", Message: fmt.Sprintf(
				"%q was made by merge %d, which moved that entity into %s: undo the merge to remove it", cur.Alias, *cur.MergeID, e.Name)}
		}
		row, err := q.DeleteAlias(ctx, queries.DeleteAliasParams{Scope: scope, Fold: fold, EntityID: e.ID})
		if err != nil {
			return fmt.Errorf("remove alias: %w", err)
		}
		out = newAlias(row, e.Name)
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "entity.alias_remove", targetType: "entity", targetID: strconv.FormatInt(e.ID, 10),
			scope: scope, before: map[string]any{"alias": row.Alias, "entity": e.Name, "created_by": row.CreatedBy},
		})
	})
	if err != nil {
		return Alias{}, fmt.Errorf("remove alias: %w", err)
	}
	return out, nil
}
