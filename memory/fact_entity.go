package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// MoveFact moves the fact with id, if it is still at version, to another
// entity of its scope and to key, in one transaction, audited as a
// fact.update whose before and after name the entity and the key. The
// entity is read as every writer reads it (an alias, another spelling of a
// name, a first name alone: entities.go) and created, as written, when the
// scope holds none by that name. A stale version is a *Error (CodeConflict)
// holding the current fact; a move to where the fact already is changes
// nothing and returns it as it is.
//
// Like every write, a move never lands on the entity and key of a locked
// decision: an automated actor's move is refused as decision_locked, logged
// and queued for review (as is one off a locked key, as UpdateFact does);
// a person's is refused with the decision named, to reopen it first. The
// fact behind a decision moves with its decision, never here. Once moved,
// the fact meets the facts of its new entity and key: supersession runs.
func (s *Store) MoveFact(ctx context.Context, actor Actor, id int64, version int32, entity, key, reason string) (Fact, error) {
	if err := VersionBound.Check("version", float64(version)); err != nil {
		return Fact{}, err
	}
	entity, err := parseEntity(entity)
	if err != nil {
		return Fact{}, err
	}
	if key, err = ParseKey(strings.TrimSpace(key)); err != nil {
		return Fact{}, err
	}
	if reason, err = parseReason(reason); err != nil {
		return Fact{}, err
	}
	now := s.Now()
	var (
		f      Fact
		scope  string
		locked *Error
	)
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		seen, err := q.FactByID(ctx, queries.FactByIDParams{Now: now, ID: id})
		if isNoRows(err) {
			return NotFoundf("no fact with id %d", id)
		}
		if err != nil {
			return fmt.Errorf("fact %d: %w", id, err)
		}
		scope = seen.Scope
		name, err := canonicalEntity(ctx, q, seen.Scope, entity)
		if err != nil {
			return err
		}
		// The key locks before the row lock, in the order every writer of
		// facts takes them, so that a move cannot deadlock with a write.
		locks := []string{lockKey(seen.Scope, seen.EntityName, seen.Key), lockKey(seen.Scope, name, key)}
		slices.Sort(locks)
		for _, l := range slices.Compact(locks) {
			if err := q.LockFactKey(ctx, l); err != nil {
				return fmt.Errorf("lock key: %w", err)
			}
		}
		cur, err := factForUpdate(ctx, q, now, id)
		if err != nil {
			return err
		}
		if cur.Version != version {
			return staleFact(cur)
		}
		if err := checkNotDecisionFacts(ctx, q, []int64{cur.ID}); err != nil {
			return err
		}
		if cur.Entity == name && cur.Key == key {
			f = cur
			return nil
		}
		ent, err := q.EntityByName(ctx, queries.EntityByNameParams{Scope: cur.Scope, Name: name})
		switch {
		case isNoRows(err):
			if ent, err = q.UpsertEntity(ctx, queries.UpsertEntityParams{Scope: cur.Scope, Name: name, Kind: defaultEntityKind}); err != nil {
				return fmt.Errorf("entity: %w", err)
			}
		case err != nil:
			return fmt.Errorf("entity: %w", err)
		}
		// The locks that hold the move: the new place for everyone, the old
		// one for automated actors as well.
		type place struct {
			entityID    int64
			entity, key string
		}
		places := []place{{ent.ID, ent.Name, key}}
		if actor.Automated() {
			places = append(places, place{cur.EntityID, cur.Entity, cur.Key})
		}
		for _, p := range places {
			if p.key == "" {
				continue
			}
			d, err := lockingDecision(ctx, q, cur.Scope, p.entityID, p.key)
			if err != nil {
				return err
			}
			if d == nil {
				continue
			}
			if actor.Automated() {
				locked, err = s.rejectLocked(ctx, q, actor, *d, cur.Scope, cur.Content, map[string]any{
					"action": "fact.update", "fact_id": cur.ID, "entity": ent.Name, "key": key,
					"category": cur.Category, "durability": cur.Durability,
				})
				return err
			}
			return &Error{Code: CodeDecisionLocked, Field: "key", Locked: &LockedDecision{ID: d.ID, Decision: d.Decision, Reasoning: d.Reasoning},
				Message: fmt.Sprintf("decision %d (%q) settles %s · %s and is locked: reopen it first, or choose another entity or key",
					d.ID, d.Decision, p.entity, p.key)}
		}
		row, err := q.MoveFactToEntity(ctx, queries.MoveFactToEntityParams{
			EntityID: ent.ID, Key: key, Now: now, ID: cur.ID, Version: version,
		})
		if isNoRows(err) {
			return staleFact(cur)
		}
		if err != nil {
			return fmt.Errorf("move: %w", err)
		}
		f = newFact(factRow(row))
		before := map[string]any{"version": cur.Version}
		after := map[string]any{"version": f.Version}
		if cur.Entity != f.Entity {
			before["entity"], after["entity"] = cur.Entity, f.Entity
		}
		if cur.Key != f.Key {
			before["key"], after["key"] = cur.Key, f.Key
		}
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.update", targetType: "fact", targetID: strconv.FormatInt(f.ID, 10),
			scope: f.Scope, before: before, after: after, reason: reason,
		}); err != nil {
			return err
		}
		if _, err := s.supersede(ctx, q, actor, now, []int64{f.ID}); err != nil {
			return err
		}
		f, err = factForUpdate(ctx, q, now, f.ID)
		return err
	})
	if err != nil {
		return Fact{}, fmt.Errorf("move fact: %w", err)
	}
	if locked != nil {
		s.reportLocked(actor, scope, locked)
		return Fact{}, locked
	}
	return f, nil
}
