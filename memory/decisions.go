package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// Decision is a settled question: a fact of category decision plus what was
// decided, the alternatives considered and the reasoning. While DoNotReopen
// holds, no automated writer may write a fact on its scope, entity and key.
type Decision struct {
	ID           int64      `json:"id"`
	FactID       int64      `json:"fact_id"`
	Scope        string     `json:"scope"`
	EntityID     int64      `json:"entity_id"`
	Entity       string     `json:"entity"`
	Key          string     `json:"key"`
	Decision     string     `json:"decision"`
	Alternatives []string   `json:"alternatives"`
	Reasoning    string     `json:"reasoning"`
	DecidedBy    string     `json:"decided_by"`
	DecidedAt    time.Time  `json:"decided_at"`
	DoNotReopen  bool       `json:"do_not_reopen"`
	ReopenedAt   *time.Time `json:"reopened_at"`
	ReopenedBy   string     `json:"reopened_by"`
	ReopenReason string     `json:"reopen_reason"`
	Version      int32      `json:"version"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	// SupersededBy is the later decision on the same entity and key that
	// replaced this one, if any.
	SupersededBy *int64 `json:"superseded_by"`
}

// The states a decision list may be filtered by.
const (
	DecisionCurrent    = "current"    // locked, not replaced
	DecisionSuperseded = "superseded" // a later decision on its key replaced it
	DecisionReopened   = "reopened"   // locked once, reopened by a reviewer, not replaced yet
	DecisionOpen       = "open"       // recorded without a lock, never locked, not replaced
)

// DecisionFilterStates are the values of DecisionFilter.State.
var DecisionFilterStates = []string{DecisionCurrent, DecisionSuperseded, DecisionReopened, DecisionOpen}

// withSupersededBy fills SupersededBy of ds.
func (s *Store) withSupersededBy(ctx context.Context, q *queries.Queries, ds []Decision) error {
	if len(ds) == 0 {
		return nil
	}
	ids := make([]int64, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	rows, err := q.DecisionsSupersededBy(ctx, ids)
	if err != nil {
		return fmt.Errorf("superseded decisions: %w", err)
	}
	by := make(map[int64]int64, len(rows))
	for _, r := range rows {
		by[r.ID] = r.SupersededBy
	}
	for i := range ds {
		if n, ok := by[ds[i].ID]; ok {
			ds[i].SupersededBy = &n
		}
	}
	return nil
}

// decisionRow is the one shape every decision query returns; the other
// generated row types convert to it because their fields are identical.
type decisionRow = queries.DecisionByIDRow

func newDecision(r decisionRow) Decision {
	d := Decision{
		ID: r.ID, FactID: r.FactID, Scope: r.Scope, EntityID: r.EntityID, Entity: r.EntityName,
		Key: r.Key, Decision: r.Decision, Alternatives: r.Alternatives, Reasoning: r.Reasoning,
		DecidedBy: r.DecidedBy, DecidedAt: r.DecidedAt, DoNotReopen: r.DoNotReopen,
		ReopenedAt: r.ReopenedAt, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if d.Alternatives == nil {
		d.Alternatives = []string{}
	}
	if r.ReopenedBy != nil {
		d.ReopenedBy = *r.ReopenedBy
	}
	if r.ReopenReason != nil {
		d.ReopenReason = *r.ReopenReason
	}
	return d
}

// decisionAudit is the audit log's picture of a decision.
func decisionAudit(d Decision) map[string]any {
	return map[string]any{
		"fact_id": d.FactID, "entity": d.Entity, "key": d.Key, "decision": d.Decision,
		"alternatives": d.Alternatives, "reasoning": d.Reasoning, "decided_by": d.DecidedBy,
		"decided_at": d.DecidedAt, "do_not_reopen": d.DoNotReopen, "version": d.Version,
	}
}

// Limits of a decision's fields.
const (
	maxAlternatives   = 20
	maxAlternative    = 1000
	maxDecidedBy      = 200
	maxRefusedWrites  = 1000
	defaultDecisions  = 50
	maxDecisionsPage  = 500
	maxDecisionsQuery = 200
)

// parseDecisionKey validates a decision's key, which, unlike a fact's, is
// required: the lock is on (scope, entity, key).
func parseDecisionKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Invalidf("key", "the key is empty: a decision needs a key (such as database or vet_practice), the question it settles and the key its lock holds")
	}
	return ParseKey(s)
}

func parseReasoning(s string) (string, error) {
	if err := CheckText("reasoning", s); err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Invalidf("reasoning", "the reasoning is empty: a decision keeps why it was made, so that nobody reopens it without knowing")
	}
	if n := utf8.RuneCountInString(s); n > maxContent {
		return "", Invalidf("reasoning", "the reasoning is %d characters long: at most %d are allowed", n, maxContent)
	}
	return s, nil
}

// Lockable reports whether an automated writer may lock a decision with
// this reasoning against reopening: it takes at least two words. One word
// ("transactions") or none is no reasoning a later session can weigh, so
// such a decision is kept, open, for a person to lock.
func Lockable(reasoning string) bool {
	return len(strings.Fields(reasoning)) >= 2
}

// parseAlternatives trims the alternatives and drops empty ones, as a form's
// blank inputs send them.
func parseAlternatives(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for i, a := range in {
		if err := CheckText(fmt.Sprintf("alternatives[%d]", i), a); err != nil {
			return nil, err
		}
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if n := utf8.RuneCountInString(a); n > maxAlternative {
			return nil, Invalidf("alternatives", "alternative %d is %d characters long: at most %d are allowed", len(out)+1, n, maxAlternative)
		}
		out = append(out, a)
	}
	if len(out) > maxAlternatives {
		return nil, Invalidf("alternatives", "%d alternatives given: at most %d are allowed", len(out), maxAlternatives)
	}
	return out, nil
}

func parseDecidedBy(s string) (string, error) {
	if err := CheckText("decided_by", s); err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n > maxDecidedBy {
		return "", Invalidf("decided_by", "decided_by is %d characters long: at most %d are allowed", n, maxDecidedBy)
	}
	return s, nil
}

func checkDecidedAt(t, now time.Time) error {
	if err := CheckTime("decided_at", t); err != nil {
		return err
	}
	if t.After(now) {
		return Invalidf("decided_at", "decided_at %s is in the future: record a decision once it is made", t.UTC().Format(time.RFC3339))
	}
	return nil
}

// NewDecision is a decision to record.
type NewDecision struct {
	Scope        string
	Entity       string // created in Scope when missing
	EntityKind   string // for a new entity; default thing
	Key          string // required
	Decision     string // required
	Alternatives []string
	Reasoning    string    // required, for every writer
	DecidedBy    string    // default the actor's name
	DecidedAt    time.Time // zero means now
	DoNotReopen  *bool     // default true
}

func (in NewDecision) validate(actor Actor, now time.Time) (NewDecision, error) {
	var err error
	if in.Scope, err = ParseScope(in.Scope); err != nil {
		return in, err
	}
	if in.Entity, err = parseEntity(in.Entity); err != nil {
		return in, err
	}
	if in.EntityKind, err = parseEntityKind(in.EntityKind); err != nil {
		return in, err
	}
	if in.Key, err = parseDecisionKey(in.Key); err != nil {
		return in, err
	}
	if in.Decision, err = parseContent("decision", in.Decision); err != nil {
		return in, err
	}
	if in.Alternatives, err = parseAlternatives(in.Alternatives); err != nil {
		return in, err
	}
	if in.Reasoning, err = parseReasoning(in.Reasoning); err != nil {
		return in, err
	}
	if in.DecidedBy, err = parseDecidedBy(in.DecidedBy); err != nil {
		return in, err
	}
	if in.DecidedBy == "" {
		in.DecidedBy = actor.Name
	}
	if in.DecidedAt.IsZero() {
		in.DecidedAt = now
	}
	in.DecidedAt = in.DecidedAt.UTC().Truncate(time.Microsecond)
	if err := checkDecidedAt(in.DecidedAt, now); err != nil {
		return in, err
	}
	if in.DoNotReopen == nil {
		in.DoNotReopen = pointerTo(true)
	}
	return in, nil
}

// RecordDecision records a decision in one transaction: its fact (category
// decision, durability permanent, confidence 1), its decisions row and their
// audit rows. Reasoning is required from every writer.
//
// When a locked decision already settles the same scope, entity and key, an
// automated actor is refused with a *Error (and the refusal logged),
// a person with CodeConflict: reopen the old decision first. A decision that
// was reopened is superseded by the new one: its fact is archived ("superseded
// by decision N") and its decisions row stays as history.
func (s *Store) RecordDecision(ctx context.Context, actor Actor, in NewDecision) (Decision, error) {
	now := s.Now()
	in, err := in.validate(actor, now)
	if err != nil {
		return Decision{}, err
	}
	var (
		d      Decision
		locked *Error
	)
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		// One entity however it is spelled (entities.go).
		var err error
		if in.Entity, err = canonicalEntity(ctx, q, in.Scope, in.Entity); err != nil {
			return err
		}
		if err := q.LockFactKey(ctx, lockKey(in.Scope, in.Entity, in.Key)); err != nil {
			return fmt.Errorf("lock key: %w", err)
		}
		ent, err := q.EntityByName(ctx, queries.EntityByNameParams{Scope: in.Scope, Name: in.Entity})
		known := err == nil
		if err != nil && !isNoRows(err) {
			return fmt.Errorf("entity: %w", err)
		}
		var lock *lockInfo
		if known {
			if lock, err = lockingDecision(ctx, q, in.Scope, ent.ID, in.Key); err != nil {
				return err
			}
		}
		if lock == nil && actor.Automated() {
			// The same question settled on another key, or by another
			// entity of the scope (topics.go).
			if lock, err = topicLock(ctx, q, lockProbe{scope: in.Scope, entity: in.Entity, key: in.Key, content: in.Decision,
				decision: true, alternatives: in.Alternatives}); err != nil {
				return err
			}
		}
		if lock != nil && actor.Automated() {
			locked, err = s.rejectLocked(ctx, q, actor, *lock, in.Scope, in.Decision, map[string]any{
				"action": "decision.create", "entity": in.Entity, "key": in.Key,
				"reasoning": in.Reasoning, "alternatives": in.Alternatives,
			})
			return err
		}
		if lock != nil {
			return &Error{Code: CodeConflict, Field: "key", Message: fmt.Sprintf(
				"decision %d already settles %s/%s: reopen it first, giving a reason", lock.ID, in.Entity, in.Key)}
		}
		if !known {
			if ent, err = q.UpsertEntity(ctx, queries.UpsertEntityParams{Scope: in.Scope, Name: in.Entity, Kind: in.EntityKind}); err != nil {
				return fmt.Errorf("entity: %w", err)
			}
		}
		superseded, err := q.OpenDecisionFactsOnKey(ctx, queries.OpenDecisionFactsOnKeyParams{
			Scope: in.Scope, EntityID: ent.ID, Key: in.Key,
		})
		if err != nil {
			return fmt.Errorf("reopened decisions: %w", err)
		}
		// The decision's fact is confirmed when the decision was made.
		fact, err := q.InsertFact(ctx, queries.InsertFactParams{
			Now: now, ObservedAt: in.DecidedAt, Scope: in.Scope, EntityID: ent.ID, Key: in.Key, Content: in.Decision,
			Durability: string(Permanent), Category: CategoryDecision, Confidence: 1,
			Importance: defaultImportance, Source: sourceOf(actor),
		})
		if err != nil {
			return fmt.Errorf("insert fact: %w", err)
		}
		row, err := q.CreateDecision(ctx, queries.CreateDecisionParams{
			FactID: fact.ID, Scope: in.Scope, EntityID: ent.ID, Key: in.Key, Decision: in.Decision,
			Alternatives: in.Alternatives, Reasoning: in.Reasoning, DecidedBy: in.DecidedBy,
			DecidedAt: in.DecidedAt, DoNotReopen: *in.DoNotReopen,
		})
		if err != nil {
			return fmt.Errorf("insert decision: %w", err)
		}
		d = newDecision(decisionRow{
			ID: row.ID, FactID: row.FactID, Scope: row.Scope, EntityID: row.EntityID,
			EntityName: ent.Name, Key: row.Key, Decision: row.Decision, Alternatives: row.Alternatives,
			Reasoning: row.Reasoning, DecidedBy: row.DecidedBy, DecidedAt: row.DecidedAt,
			DoNotReopen: row.DoNotReopen, ReopenedAt: row.ReopenedAt, ReopenedBy: row.ReopenedBy,
			ReopenReason: row.ReopenReason, Version: row.Version, CreatedAt: row.CreatedAt,
			UpdatedAt: row.UpdatedAt,
		})
		f := newFact(factRow(fact))
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.create", targetType: "fact", targetID: strconv.FormatInt(f.ID, 10),
			scope: f.Scope, after: factAudit(f), reason: fmt.Sprintf("records decision %d", d.ID),
		}); err != nil {
			return err
		}
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "decision.create", targetType: "decision", targetID: strconv.FormatInt(d.ID, 10),
			scope: d.Scope, after: decisionAudit(d),
		}); err != nil {
			return err
		}
		if len(superseded) > 0 {
			if _, err := q.ArchiveFactsByID(ctx, queries.ArchiveFactsByIDParams{
				Now: now, ArchiveReason: fmt.Sprintf("superseded by decision %d", d.ID), Ids: superseded,
				Actor: actor.String(), Reason: fmt.Sprintf("superseded by decision %d", d.ID),
			}); err != nil {
				return fmt.Errorf("archive superseded decisions: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return Decision{}, fmt.Errorf("record decision: %w", err)
	}
	if locked != nil {
		s.reportLocked(actor, in.Scope, locked)
		return Decision{}, locked
	}
	return d, nil
}

// GetDecision returns the decision with id.
func (s *Store) GetDecision(ctx context.Context, id int64) (Decision, error) {
	var d []Decision
	err := s.read(ctx, func(ctx context.Context, db *queries.Queries) error {
		row, err := db.DecisionByID(ctx, id)
		if err != nil {
			return err
		}
		d = []Decision{newDecision(row)}
		return s.withSupersededBy(ctx, db, d)
	})
	if isNoRows(err) {
		return Decision{}, NotFoundf("no decision with id %d", id)
	}
	if err != nil {
		return Decision{}, fmt.Errorf("get decision %d: %w", id, err)
	}
	return d[0], nil
}

func decisionForUpdate(ctx context.Context, q *queries.Queries, id int64) (Decision, error) {
	row, err := q.DecisionByIDForUpdate(ctx, id)
	if isNoRows(err) {
		return Decision{}, NotFoundf("no decision with id %d", id)
	}
	if err != nil {
		return Decision{}, fmt.Errorf("decision %d: %w", id, err)
	}
	return newDecision(decisionRow(row)), nil
}

// DecisionFilter selects decisions; zero fields filter nothing.
type DecisionFilter struct {
	Scope    string
	Entity   string // the entity's exact name
	Locked   *bool  // true: do_not_reopen; false: reopened
	State    string // current, superseded or reopened; empty for all
	Query    string // text found in the decision, reasoning, alternatives or key
	Limit    int    // default 50, at most 500
	BeforeID int64  // keyset cursor: only decisions with a smaller id
}

// ListDecisions returns one page of decisions, newest first. The next page
// starts before the last decision's id. Whatever the filters, it reads a
// bounded number of decisions (walkThenSearch): the newest ones passing the
// scope and lock filters, then, when the entity, text or state filters
// matched few of them, only the matches the indexes find below them (the
// text through a trigram index, so a search that finds nothing costs little
// more than one that finds a page). A text of one or two characters has no
// trigram: its search below the walk reads the decisions newest first,
// which such short text, found in nearly every decision, seldom needs.
func (s *Store) ListDecisions(ctx context.Context, f DecisionFilter) ([]Decision, error) {
	var scope, pattern *string
	if f.Scope != "" {
		if _, err := ParseScope(f.Scope); err != nil {
			return nil, err
		}
		scope = &f.Scope
	}
	if err := CheckText("entity", f.Entity); err != nil {
		return nil, err
	}
	if err := CheckText("q", f.Query); err != nil {
		return nil, err
	}
	entity := strings.TrimSpace(f.Entity)
	locked := f.Locked
	var onlySuperseded, notSuperseded, contradicts bool
	var reopened *bool
	switch st := strings.TrimSpace(f.State); st {
	case "":
	case DecisionSuperseded:
		onlySuperseded = true
	case DecisionCurrent, DecisionReopened, DecisionOpen:
		notSuperseded = true
		want := st == DecisionCurrent
		// Locked and a contradicting state select nothing.
		contradicts = locked != nil && *locked != want
		locked = &want
		if !want {
			reopened = pointerTo(st == DecisionReopened)
		}
	default:
		return nil, Invalidf("state", "unknown decision state %q: allowed values are %s", st, strings.Join(DecisionFilterStates, ", "))
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		if n := utf8.RuneCountInString(q); n > maxDecisionsQuery {
			return nil, Invalidf("q", "the text search is %d characters long: at most %d are allowed", n, maxDecisionsQuery)
		}
		p := "%" + likeEscaper.Replace(q) + "%"
		pattern = &p
	}
	if err := f.validatePage(); err != nil {
		return nil, err
	}
	if contradicts {
		return []Decision{}, nil
	}
	pageSize, _ := parsePageSize(f.Limit, defaultDecisions, maxDecisionsPage)
	var out []Decision
	err := s.read(ctx, func(ctx context.Context, db *queries.Queries) error {
		out = []Decision{}
		var entityIDs []int64
		if entity != "" {
			ids, err := db.EntityIDsNamed(ctx, queries.EntityIDsNamedParams{Name: entity, Scope: scope})
			if err != nil {
				return fmt.Errorf("list decisions: entity %q: %w", entity, err)
			}
			if len(ids) == 0 {
				return nil
			}
			entityIDs = ids
		}
		ids, err := walkThenSearch(pageSize,
			func(rows int32) ([]listWalk, error) {
				walked, err := db.DecisionIDsWalk(ctx, queries.DecisionIDsWalkParams{
					WalkRows: rows, EntityIds: entityIDs, Pattern: pattern, OnlySuperseded: onlySuperseded,
					NotSuperseded: notSuperseded, Scope: scope, Locked: locked, Reopened: reopened, BeforeID: f.BeforeID, PageSize: pageSize})
				out := make([]listWalk, len(walked))
				for i, r := range walked {
					out[i] = listWalk(r)
				}
				return out, err
			},
			func(before int64, rows int32) ([]int64, error) {
				if onlySuperseded {
					return db.DecisionIDsSearchSuperseded(ctx, queries.DecisionIDsSearchSupersededParams{
						Scope: scope, EntityIds: entityIDs, Locked: locked, Pattern: pattern, BeforeID: before, PageSize: rows})
				}
				return db.DecisionIDsSearch(ctx, queries.DecisionIDsSearchParams{
					Scope: scope, EntityIds: entityIDs, Locked: locked, Reopened: reopened, Pattern: pattern,
					NotSuperseded: notSuperseded, BeforeID: before, PageSize: rows})
			})
		if err != nil {
			return fmt.Errorf("list decisions: %w", err)
		}
		if len(ids) > 0 {
			rows, err := db.ListDecisionsByIDs(ctx, ids)
			if err != nil {
				return fmt.Errorf("list decisions: %w", err)
			}
			out = make([]Decision, len(rows))
			for i, r := range rows {
				out[i] = newDecision(decisionRow(r))
			}
		}
		return s.withSupersededBy(ctx, db, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// validatePage checks the page size and the cursor of a decision filter.
func (f DecisionFilter) validatePage() error {
	if _, err := parsePageSize(f.Limit, defaultDecisions, maxDecisionsPage); err != nil {
		return err
	}
	if f.BeforeID < 0 {
		return Invalidf("before", "invalid page cursor %d: it must be a positive decision id", f.BeforeID)
	}
	return nil
}

// likeEscaper escapes ILIKE's wildcards (the default escape is backslash).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// DecisionChanges are the edits to a decision; a nil field is left unchanged.
type DecisionChanges struct {
	Decision     *string
	Alternatives *[]string
	Reasoning    *string
	DecidedBy    *string
	DecidedAt    *time.Time
}

func (ch DecisionChanges) validate(now time.Time) (DecisionChanges, error) {
	if ch.Decision != nil {
		v, err := parseContent("decision", *ch.Decision)
		if err != nil {
			return ch, err
		}
		ch.Decision = &v
	}
	if ch.Alternatives != nil {
		v, err := parseAlternatives(*ch.Alternatives)
		if err != nil {
			return ch, err
		}
		ch.Alternatives = &v
	}
	if ch.Reasoning != nil {
		v, err := parseReasoning(*ch.Reasoning)
		if err != nil {
			return ch, err
		}
		ch.Reasoning = &v
	}
	if ch.DecidedBy != nil {
		v, err := parseDecidedBy(*ch.DecidedBy)
		if err != nil {
			return ch, err
		}
		ch.DecidedBy = &v
	}
	if ch.DecidedAt != nil {
		if ch.DecidedAt.IsZero() {
			return ch, Invalidf("decided_at", "decided_at is not a valid time")
		}
		v := ch.DecidedAt.UTC().Truncate(time.Microsecond)
		if err := checkDecidedAt(v, now); err != nil {
			return ch, err
		}
		ch.DecidedAt = &v
	}
	return ch, nil
}

// errHumansOnly is the refusal of a reviewer's act by an automated actor.
func errHumansOnly(what string) error {
	return &Error{Code: CodeForbidden, Message: "only a reviewer can " + what + ", in the console"}
}

// EditDecision edits the decision with id if it is still at version;
// otherwise it returns a *Error (CodeConflict) holding the current decision
// and writes nothing. Only people edit decisions: an automated actor gets a
// *Error (refusal logged) when the decision is locked, CodeForbidden
// otherwise. A changed decision text is written to the decision's fact too.
// An edit that changes nothing returns the decision as it is.
func (s *Store) EditDecision(ctx context.Context, actor Actor, id int64, version int32, ch DecisionChanges, reason string) (Decision, error) {
	now := s.Now()
	ch, err := ch.validate(now)
	if err != nil {
		return Decision{}, err
	}
	if reason, err = parseReason(reason); err != nil {
		return Decision{}, err
	}
	var (
		d      Decision
		locked *Error
	)
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		cur, err := decisionForUpdate(ctx, q, id)
		if err != nil {
			return err
		}
		d = cur
		if actor.Automated() {
			if !cur.DoNotReopen {
				return errHumansOnly("edit a decision")
			}
			text := cur.Decision
			if ch.Decision != nil {
				text = *ch.Decision
			}
			locked, err = s.rejectLocked(ctx, q, actor, lockInfo{ID: cur.ID, Decision: cur.Decision, Reasoning: cur.Reasoning},
				cur.Scope, text, map[string]any{"action": "decision.update", "entity": cur.Entity, "key": cur.Key})
			return err
		}
		if cur.Version != version {
			return staleDecision(cur)
		}
		next := cur
		if ch.Decision != nil {
			next.Decision = *ch.Decision
		}
		if ch.Alternatives != nil {
			next.Alternatives = *ch.Alternatives
		}
		if ch.Reasoning != nil {
			next.Reasoning = *ch.Reasoning
		}
		if ch.DecidedBy != nil {
			next.DecidedBy = *ch.DecidedBy
		}
		if ch.DecidedAt != nil {
			next.DecidedAt = *ch.DecidedAt
		}
		before, after := decisionDiff(cur, next)
		if len(before) == 0 {
			return nil
		}
		row, err := q.UpdateDecisionFields(ctx, queries.UpdateDecisionFieldsParams{
			Decision: next.Decision, Alternatives: next.Alternatives, Reasoning: next.Reasoning,
			DecidedBy: next.DecidedBy, DecidedAt: next.DecidedAt, Now: now, ID: id, Version: version,
		})
		if isNoRows(err) {
			return staleDecision(cur)
		}
		if err != nil {
			return fmt.Errorf("update: %w", err)
		}
		d = newDecision(decisionRow(row))
		before["version"], after["version"] = cur.Version, d.Version
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "decision.update", targetType: "decision", targetID: strconv.FormatInt(id, 10),
			scope: d.Scope, before: before, after: after, reason: reason,
		}); err != nil {
			return err
		}
		if cur.Decision == next.Decision {
			return nil
		}
		fact, err := factForUpdate(ctx, q, now, cur.FactID)
		if err != nil {
			return err
		}
		updated, err := q.SetFactContent(ctx, queries.SetFactContentParams{Content: next.Decision, Now: now, ID: fact.ID})
		if err != nil {
			return fmt.Errorf("fact content: %w", err)
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.update", targetType: "fact", targetID: strconv.FormatInt(fact.ID, 10),
			scope:  fact.Scope,
			before: map[string]any{"content": fact.Content, "version": fact.Version},
			after:  map[string]any{"content": updated.Content, "version": updated.Version},
			reason: strings.TrimSpace(fmt.Sprintf("decision %d edited. %s", id, reason)),
		})
	})
	if err != nil {
		return Decision{}, fmt.Errorf("edit decision: %w", err)
	}
	if locked != nil {
		s.reportLocked(actor, d.Scope, locked)
		return Decision{}, locked
	}
	return d, nil
}

func decisionDiff(a, b Decision) (before, after map[string]any) {
	before, after = map[string]any{}, map[string]any{}
	if a.Decision != b.Decision {
		before["decision"], after["decision"] = a.Decision, b.Decision
	}
	if !slices.Equal(a.Alternatives, b.Alternatives) {
		before["alternatives"], after["alternatives"] = a.Alternatives, b.Alternatives
	}
	if a.Reasoning != b.Reasoning {
		before["reasoning"], after["reasoning"] = a.Reasoning, b.Reasoning
	}
	if a.DecidedBy != b.DecidedBy {
		before["decided_by"], after["decided_by"] = a.DecidedBy, b.DecidedBy
	}
	if !a.DecidedAt.Equal(b.DecidedAt) {
		before["decided_at"], after["decided_at"] = a.DecidedAt, b.DecidedAt
	}
	return before, after
}

// ReopenDecision lifts the lock of the decision with id (do_not_reopen =
// false) so that it may be revisited: only a person may, giving a reason,
// and it is audited. Reopening an open decision is a conflict.
func (s *Store) ReopenDecision(ctx context.Context, actor Actor, id int64, reason string) (Decision, error) {
	if actor.Automated() {
		return Decision{}, errHumansOnly("reopen a decision")
	}
	reason, err := parseReason(reason)
	if err != nil {
		return Decision{}, err
	}
	if reason == "" {
		return Decision{}, Invalidf("reason", "a reason is required to reopen a decision")
	}
	var d Decision
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		cur, err := decisionForUpdate(ctx, q, id)
		if err != nil {
			return err
		}
		if !cur.DoNotReopen {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf("decision %d is already open (reopened by %s: %s)", id, cur.ReopenedBy, cur.ReopenReason)}
		}
		row, err := q.ReopenDecisionByID(ctx, queries.ReopenDecisionByIDParams{
			Now: s.Now(), ReopenedBy: actor.Name, ReopenReason: reason, ID: id,
		})
		if err != nil {
			return fmt.Errorf("reopen: %w", err)
		}
		d = newDecision(decisionRow(row))
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "decision.reopen", targetType: "decision", targetID: strconv.FormatInt(id, 10),
			scope:  d.Scope,
			before: map[string]any{"do_not_reopen": true, "version": cur.Version},
			after: map[string]any{"do_not_reopen": false, "reopened_at": d.ReopenedAt,
				"reopened_by": d.ReopenedBy, "reopen_reason": d.ReopenReason, "version": d.Version},
			reason: reason,
		})
	})
	if err != nil {
		return Decision{}, fmt.Errorf("reopen decision: %w", err)
	}
	return d, nil
}

// RelockDecision locks the decision with id again (do_not_reopen = true):
// only a person may, and it is audited. It is a conflict when the decision is
// locked already or a newer locked decision now settles the same key.
func (s *Store) RelockDecision(ctx context.Context, actor Actor, id int64, reason string) (Decision, error) {
	if actor.Automated() {
		return Decision{}, errHumansOnly("lock a decision")
	}
	reason, err := parseReason(reason)
	if err != nil {
		return Decision{}, err
	}
	var d Decision
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		cur, err := decisionForUpdate(ctx, q, id)
		if err != nil {
			return err
		}
		if cur.DoNotReopen {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf("decision %d is already locked", id)}
		}
		if err := q.LockFactKey(ctx, lockKey(cur.Scope, cur.Entity, cur.Key)); err != nil {
			return fmt.Errorf("lock key: %w", err)
		}
		other, err := lockingDecision(ctx, q, cur.Scope, cur.EntityID, cur.Key)
		if err != nil {
			return err
		}
		if other != nil {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf(
				"decision %d now settles %s/%s: decision %d cannot be locked again while it holds", other.ID, cur.Entity, cur.Key, id)}
		}
		row, err := q.RelockDecisionByID(ctx, queries.RelockDecisionByIDParams{Now: s.Now(), ID: id})
		if err != nil {
			return fmt.Errorf("relock: %w", err)
		}
		d = newDecision(decisionRow(row))
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "decision.relock", targetType: "decision", targetID: strconv.FormatInt(id, 10),
			scope:  d.Scope,
			before: map[string]any{"do_not_reopen": false, "version": cur.Version},
			after:  map[string]any{"do_not_reopen": true, "version": d.Version},
			reason: reason,
		})
	})
	if err != nil {
		return Decision{}, fmt.Errorf("relock decision: %w", err)
	}
	return d, nil
}

// DecisionHistory returns the audit rows of the decision with id, newest first.
func (s *Store) DecisionHistory(ctx context.Context, id int64) ([]AuditRecord, error) {
	if _, err := s.GetDecision(ctx, id); err != nil {
		return nil, err
	}
	return s.history(ctx, "decision", id)
}

// Rejection is one refused write, by consolidation (RunID and Phase set) or
// by another automated writer (both nil).
type Rejection struct {
	ID     int64  `json:"id"`
	RunID  *int64 `json:"run_id"`
	Phase  *int16 `json:"phase"`
	NodeID *int64 `json:"node_id"`
	Scope  string `json:"scope"`
	Reason string `json:"reason"` // transient, expired, decision_locked
	Source string `json:"source"` // consolidation, api, extraction, mcp, import
	// Content is a snapshot of what was refused.
	Content string `json:"content"`
	// Properties are the refused row's properties, or for a refused write
	// outside consolidation the action, actor, entity and key.
	Properties json.RawMessage `json:"properties"`
	DecisionID *int64          `json:"decision_id"`
	CreatedAt  time.Time       `json:"created_at"`
}

func newRejection(r queries.ConsolidationRejection) Rejection {
	return Rejection{
		ID: r.ID, RunID: r.RunID, Phase: r.Phase, NodeID: r.NodeID, Scope: r.Scope, Reason: r.Reason,
		Source: r.Source, Content: r.Content, Properties: r.Properties, DecisionID: r.DecisionID,
		CreatedAt: r.CreatedAt,
	}
}

// RefusedWrites returns the writes refused because of the decision with id,
// newest first (at most the newest 1000).
func (s *Store) RefusedWrites(ctx context.Context, decisionID int64) ([]Rejection, error) {
	if _, err := s.GetDecision(ctx, decisionID); err != nil {
		return nil, err
	}
	rows, err := s.q.ListRejectionsForDecision(ctx, queries.ListRejectionsForDecisionParams{
		DecisionID: decisionID, MaxRows: maxRefusedWrites,
	})
	if err != nil {
		return nil, fmt.Errorf("refused writes of decision %d: %w", decisionID, err)
	}
	out := make([]Rejection, len(rows))
	for i, r := range rows {
		out[i] = newRejection(r)
	}
	return out, nil
}

// LockFor returns the locked decision on (scope, entity, key), or nil when
// none holds it. An empty key is never locked.
func (s *Store) LockFor(ctx context.Context, scope string, entityID int64, key string) (*Decision, error) {
	if key == "" {
		return nil, nil
	}
	row, err := s.q.LockingDecision(ctx, queries.LockingDecisionParams{Scope: scope, EntityID: entityID, Key: key})
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("decision lock: %w", err)
	}
	d := newDecision(decisionRow(row))
	return &d, nil
}

// The states a decision is in (Decision.State).
const (
	StateLocked     = "locked"     // do_not_reopen: only a reviewer reopens it
	StateOpen       = "open"       // recorded without a lock, never locked
	StateReopened   = "reopened"   // locked once, reopened by a reviewer
	StateSuperseded = "superseded" // a later decision on its key replaced it
)

// State is the state d is in: superseded once replaced, else locked, or
// open and reopened told apart by whether a reviewer reopened it.
func (d Decision) State() string {
	switch {
	case d.SupersededBy != nil:
		return StateSuperseded
	case d.DoNotReopen:
		return StateLocked
	case d.ReopenedAt != nil:
		return StateReopened
	}
	return StateOpen
}
