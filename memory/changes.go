package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// What changed: the changes to long-term memory a person must be able to
// check and undo, of one consolidation run or of any time range, by any
// writer: facts superseded (and obligations fulfilled, values denied: a
// later fact retired them), facts merged into an identical older one, facts
// archived (by hand or by decay), facts restored, and decisions recorded.
//
// They are read from the audit log, the one record of every change with
// its actor, time and reason, that keeps a fact's history when it changes
// again (a fact superseded, restored, superseded again is three changes;
// its columns hold only the last). A consolidation run's rows carry its id
// (after.run_id). Each change is shown with the fact or decision as it is
// now, so that the list says whether a change still holds, and offers to
// undo it while it does (UndoChange).

// The kinds of change, as the console filters them.
const (
	WhatSuperseded = "superseded"
	WhatMerged     = "merged"
	WhatArchived   = "archived"
	WhatRestored   = "restored"
	WhatDecision   = "decision"
)

// changeActions are the audit actions of each kind.
var changeActions = map[string][]string{
	WhatSuperseded: {"fact.supersede", "fact.fulfil", "fact.deny"},
	WhatMerged:     {"fact.merge"},
	WhatArchived:   {"fact.archive", "fact.decay"},
	WhatRestored:   {"fact.restore"},
	WhatDecision:   {"decision.create"},
}

// ChangeKinds lists the kinds of change in the order the console offers them.
func ChangeKinds() []string {
	return []string{WhatSuperseded, WhatMerged, WhatArchived, WhatRestored, WhatDecision}
}

// ParseChangeKind checks a kind of change.
func ParseChangeKind(s string) (string, error) {
	if _, ok := changeActions[s]; !ok {
		return "", Invalidf("kind", "invalid kind %q: use one of %s", s, strings.Join(ChangeKinds(), ", "))
	}
	return s, nil
}

// The undo a change offers (Change.Undo).
const (
	UndoRestore = "restore" // the fact comes back (a superseding fact is archived)
	UndoArchive = "archive" // a restored fact is archived again
	UndoReopen  = "reopen"  // a locked decision is reopened
)

// ChangeCursor is a place in the list of changes: an audit row and the
// place of the change in that row's list (0 for a row of one change).
type ChangeCursor struct {
	AuditID int64
	Ord     int64
}

// String is the cursor as a URL keeps it: "123", or "123.4" within a row.
func (c ChangeCursor) String() string {
	if c.Ord == 0 {
		return strconv.FormatInt(c.AuditID, 10)
	}
	return strconv.FormatInt(c.AuditID, 10) + "." + strconv.FormatInt(c.Ord, 10)
}

// ParseChangeCursor reads a cursor written by ChangeCursor.String.
func ParseChangeCursor(s string) (ChangeCursor, error) {
	id, ord, dotted := strings.Cut(s, ".")
	c := ChangeCursor{}
	var err error
	if c.AuditID, err = strconv.ParseInt(id, 10, 64); err != nil || c.AuditID <= 0 {
		return ChangeCursor{}, Invalidf("before", "invalid page cursor %q: it must be a change's position, such as 120 or 120.3", s)
	}
	if dotted {
		if c.Ord, err = strconv.ParseInt(ord, 10, 64); err != nil || c.Ord <= 0 {
			return ChangeCursor{}, Invalidf("before", "invalid page cursor %q: it must be a change's position, such as 120 or 120.3", s)
		}
	}
	return c, nil
}

// ChangeFilter selects changes. Zero fields leave their filter out.
type ChangeFilter struct {
	RunID  int64  // one consolidation run's changes
	Scope  string // the scope of the fact or decision changed
	Kind   string // one of ChangeKinds
	Since  *time.Time
	Until  *time.Time    // exclusive
	Before *ChangeCursor // keyset: the changes after this one in the list
	Limit  int           // default 50, at most 500
}

// ChangeFact is the other fact of a change, as it is now: the newer fact
// that superseded (fulfilled, denied) the fact changed, or the survivor it
// was merged into.
type ChangeFact struct {
	ID      int64  `json:"id"`
	Key     string `json:"key"`
	Content string `json:"content"`
	Status  Status `json:"status"` // "" when the fact is gone
}

// Change is one change to long-term memory with what it changed, as it is now.
type Change struct {
	Cursor ChangeCursor `json:"-"`
	At     time.Time    `json:"at"`
	Actor  string       `json:"actor"`
	Action string       `json:"action"` // the audit action, e.g. fact.supersede
	Kind   string       `json:"kind"`   // one of ChangeKinds
	// How says what happened within the kind: superseded, fulfilled,
	// denied, merged, archived, decayed, restored or recorded.
	How    string `json:"how"`
	Reason string `json:"reason"`
	RunID  int64  `json:"run_id,omitempty"` // the consolidation run that made it, 0 for none
	Scope  string `json:"scope"`
	// FactID is the fact changed, DecisionID the decision recorded (one of
	// them is 0).
	FactID     int64 `json:"fact_id,omitempty"`
	DecisionID int64 `json:"decision_id,omitempty"`
	Entity     string
	Key        string
	Content    string // the fact's text, or the decision
	Category   string
	// Status and ArchiveReason are the fact's now; Found is false when the
	// fact or decision no longer exists.
	Status        Status
	ArchiveReason string
	// FactUpdated is when the fact last changed: after At, the change no
	// longer holds as it was made.
	FactUpdated *time.Time `json:"-"`
	Found       bool
	Other       *ChangeFact
	// DecisionState is the recorded decision's state now: locked, open or
	// reopened.
	DecisionState string
	// Undo is what undoing the change does now (UndoRestore, UndoArchive,
	// UndoReopen), "" when it no longer holds; Since then says what became
	// of it.
	Undo  string
	Since string
}

// Limits of a page of changes.
const (
	defaultChanges = 50
	maxChanges     = 500
)

// ListChanges returns one page of changes, newest first. A malformed filter
// is a CodeInvalid error naming the filter at fault.
func (s *Store) ListChanges(ctx context.Context, f ChangeFilter) ([]Change, error) {
	p := queries.ListChangesParams{PageSize: int32(f.Limit), Since: f.Since, Until: f.Until}
	if f.Limit <= 0 {
		p.PageSize = defaultChanges
	}
	if f.Limit > maxChanges {
		return nil, Invalidf("limit", "limit %d is too large: at most %d", f.Limit, maxChanges)
	}
	if f.RunID < 0 {
		return nil, Invalidf("run", "invalid run %d: it must be a positive run id", f.RunID)
	}
	if f.RunID > 0 {
		p.RunID = pointerTo(strconv.FormatInt(f.RunID, 10))
	}
	if f.Scope != "" {
		scope, err := ParseScope(f.Scope)
		if err != nil {
			return nil, err
		}
		p.Scope = &scope
	}
	if f.Kind != "" {
		kind, err := ParseChangeKind(f.Kind)
		if err != nil {
			return nil, err
		}
		p.Actions = changeActions[kind]
	} else {
		for _, k := range ChangeKinds() {
			p.Actions = append(p.Actions, changeActions[k]...)
		}
	}
	if f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until) {
		return nil, Invalidf("to", "the time range is empty: from (%s) must come before to (%s)",
			f.Since.UTC().Format(time.RFC3339), f.Until.UTC().Format(time.RFC3339))
	}
	if f.Before != nil {
		p.BeforeID, p.BeforeOrd = f.Before.AuditID, f.Before.Ord
	}
	rows, err := s.q.ListChanges(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list changes: %w", err)
	}
	out := make([]Change, len(rows))
	for i, r := range rows {
		out[i] = newChange(r)
	}
	return out, nil
}

// howOf names what an audit action did.
var howOf = map[string]string{
	"fact.supersede": "superseded", "fact.fulfil": "fulfilled", "fact.deny": "denied",
	"fact.merge": "merged", "fact.archive": "archived", "fact.decay": "decayed",
	"fact.restore": "restored", "decision.create": "recorded",
}

func newChange(r queries.ListChangesRow) Change {
	c := Change{
		Cursor: ChangeCursor{AuditID: r.AuditID, Ord: r.Ord}, At: r.At, Actor: r.Actor, Action: r.Action,
		How: howOf[r.Action], Reason: r.Reason, RunID: r.RunID, Scope: r.Scope, FactID: r.FactID,
		DecisionID: r.DecisionID, Entity: r.Entity, Key: r.Key, Content: r.Content, Category: r.Category,
		Status: Status(r.Status), ArchiveReason: r.ArchiveReason, FactUpdated: r.FactUpdatedAt, Found: r.Found,
	}
	for k, actions := range changeActions {
		if slices.Contains(actions, r.Action) {
			c.Kind = k
		}
	}
	if r.OtherID != 0 {
		c.Other = &ChangeFact{ID: r.OtherID, Key: r.OtherKey, Content: r.OtherContent, Status: Status(r.OtherStatus)}
	}
	if c.DecisionID != 0 && c.Found {
		switch {
		case r.DecisionLocked:
			c.DecisionState = StateLocked
		case r.DecisionReopenedAt != nil:
			c.DecisionState = StateReopened
		default:
			c.DecisionState = StateOpen
		}
	}
	c.Undo, c.Since = undoOf(c)
	return c
}

// undoOf says what undoing c does now, or what became of it since when it
// no longer holds: a fact that changed after c (archived again, restored
// and archived again, edited) is not c's to undo.
func undoOf(c Change) (undo, since string) {
	undo, since = undoOfState(c)
	if undo != "" && c.Kind != WhatDecision && c.FactUpdated != nil && c.FactUpdated.After(c.At) {
		return "", "changed since"
	}
	return undo, since
}

// undoOfState is undoOf as the fact's or decision's state alone tells.
func undoOfState(c Change) (undo, since string) {
	if !c.Found {
		return "", "no longer exists"
	}
	switch c.Kind {
	case WhatDecision:
		switch c.DecisionState {
		case StateLocked:
			return UndoReopen, ""
		case StateReopened:
			return "", "reopened since"
		}
		return "", "recorded open: it locks nothing"
	case WhatRestored:
		if c.Status == StatusActive {
			return UndoArchive, ""
		}
		return "", "archived again since"
	}
	if c.Status == StatusActive {
		return "", "restored since"
	}
	if c.Kind == WhatArchived || archivedBy(c.ArchiveReason, c.How, c.Other) {
		return UndoRestore, ""
	}
	return "", "archived since for another reason"
}

// archivedBy says whether a fact archived with reason is still archived by
// the change that superseded (fulfilled, denied) or merged it into other.
func archivedBy(reason, how string, other *ChangeFact) bool {
	if other == nil {
		return false
	}
	id := strconv.FormatInt(other.ID, 10)
	switch how {
	case "superseded":
		return reason == "superseded by fact "+id
	case "fulfilled":
		return reason == "fulfilled by fact "+id
	case "denied":
		return strings.HasPrefix(reason, "denied by fact "+id+":")
	case "merged":
		return reason == "merged into fact "+id
	}
	return false
}

// Undone is what UndoChange did.
type Undone struct {
	Restored []int64 // facts made active again
	Archived []int64 // facts archived
	Reopened int64   // the decision reopened, 0 for none
	// Unmerged is the survivor that gave back the sightings of the fact
	// restored from it, 0 for none.
	Unmerged int64
}

// archiveReasonBy reads the fact an archive reason names: "superseded by
// fact 12", "merged into fact 12", "fulfilled by fact 12", "denied by fact
// 12: ...".
var archiveReasonBy = regexp.MustCompile(`^(superseded by|merged into|fulfilled by|denied by) fact (\d+)(:|$)`)

// UndoChange undoes a change of kind to the fact (or, for a decision, the
// decision) with id, as a reviewer expects an undo to leave memory: as it
// was before the change. Only a person may, and every step is audited with
// reason (a default naming the undo when empty).
//
//   - superseded: the fact is restored. When a newer fact on its key
//     superseded it, that fact is archived ("supersession of fact N undone"):
//     the change said the newer fact replaced the older, and the undo says
//     it did not, so the key holds the older value again, as before the
//     change; the newer fact stays on record, restorable. A fact fulfilled
//     or denied by a later statement is restored alone: that statement is
//     not a replacement on its key and stays as it is.
//   - merged: the fact is restored beside the fact it was merged into,
//     which gives back the sightings the fact brought it (its extraction
//     count). Its confidence, raised by the merge, is left as it is: the
//     merge's reinforcement cannot be told apart from the sightings since.
//   - archived: the fact is restored (re-confirmed if it had decayed).
//   - restored: the fact is archived again.
//   - decision: the locked decision is reopened (ReopenDecision).
//
// A change that no longer holds (the fact restored or archived since for
// another reason) is a CodeConflict error, and nothing is written. Facts
// that record decisions are refused: a decision is undone by reopening it.
//
// at is the time of the change undone, as ListChanges gave it: a fact that
// changed after it is refused (a conflict), so that a page read before a
// later change cannot undo that one instead. Zero skips the check.
func (s *Store) UndoChange(ctx context.Context, actor Actor, kind string, id int64, at time.Time, reason string) (Undone, error) {
	var done Undone
	if actor.Automated() {
		return done, errHumansOnly("undo a change")
	}
	kind, err := ParseChangeKind(kind)
	if err != nil {
		return done, err
	}
	if id <= 0 {
		return done, Invalidf("id", "invalid id %d: it must be a positive fact or decision id", id)
	}
	if reason, err = parseReason(reason); err != nil {
		return done, err
	}
	if kind == WhatDecision {
		if reason == "" {
			reason = "undone in What changed: the decision recorded is reopened"
		}
		if _, err := s.ReopenDecision(ctx, actor, id, reason); err != nil {
			return done, err
		}
		done.Reopened = id
		return done, nil
	}
	now := s.Now()
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		facts, err := lockFacts(ctx, q, now, []int64{id})
		if err != nil {
			return err
		}
		fact := facts[0]
		// Checked after the refusals that say what became of the fact,
		// which are more telling.
		overtaken := func() error {
			if at.IsZero() || !fact.UpdatedAt.After(at) {
				return nil
			}
			return &Error{Code: CodeConflict, Message: fmt.Sprintf("fact %d changed after this change (at %s); nothing was changed: "+
				"reload What changed to undo its latest change", id, fact.UpdatedAt.UTC().Format(time.RFC3339))}
		}
		if err := checkNotDecisionFacts(ctx, q, []int64{id}); err != nil {
			return err
		}
		if kind == WhatRestored {
			if fact.Status == StatusArchived {
				return &Error{Code: CodeConflict, Message: fmt.Sprintf("fact %d is archived already (%s); nothing was changed", id, fact.ArchiveReason)}
			}
			if err := overtaken(); err != nil {
				return err
			}
			if reason == "" {
				reason = "undone in What changed: the restore is taken back"
			}
			rows, err := q.ArchiveFactsByID(ctx, queries.ArchiveFactsByIDParams{
				Now: now, ArchiveReason: "restore undone by " + actor.String(), Ids: []int64{id}, Actor: actor.String(), Reason: reason,
			})
			if err != nil {
				return fmt.Errorf("archive: %w", err)
			}
			for _, r := range rows {
				done.Archived = append(done.Archived, r.ID)
			}
			return nil
		}
		if fact.Status != StatusArchived {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf("fact %d is active: it was restored since; nothing was changed", id)}
		}
		if err := overtaken(); err != nil {
			return err
		}
		m := archiveReasonBy.FindStringSubmatch(fact.ArchiveReason)
		var other int64
		if m != nil {
			other, _ = strconv.ParseInt(m[2], 10, 64)
		}
		switch kind {
		case WhatSuperseded:
			if m == nil || m[1] == "merged into" {
				return &Error{Code: CodeConflict, Message: fmt.Sprintf("fact %d is no longer archived as superseded (%s); nothing was changed", id, fact.ArchiveReason)}
			}
		case WhatMerged:
			if m == nil || m[1] != "merged into" {
				return &Error{Code: CodeConflict, Message: fmt.Sprintf("fact %d is no longer archived as merged (%s); nothing was changed", id, fact.ArchiveReason)}
			}
		}
		if reason == "" {
			reason = "undone in What changed: " + undoReason(kind, fact.ArchiveReason)
		}
		// The other fact, locked with the first, in id order as lockFacts
		// locks them.
		var peer *Fact
		if other != 0 && (kind == WhatMerged || (kind == WhatSuperseded && m[1] == "superseded by")) {
			both, err := lockFacts(ctx, q, now, []int64{id, other})
			if err != nil && ErrorCode(err) != CodeNotFound {
				return err
			}
			for i := range both {
				if both[i].ID == other && both[i].Status == StatusActive {
					peer = &both[i]
				}
			}
		}
		rows, err := q.RestoreFactsByID(ctx, queries.RestoreFactsByIDParams{Now: now, Ids: []int64{id}, Actor: actor.String(), Reason: reason})
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		for _, r := range rows {
			done.Restored = append(done.Restored, r.ID)
		}
		if peer == nil {
			return nil
		}
		if kind == WhatMerged {
			u, err := q.UnmergeSurvivor(ctx, queries.UnmergeSurvivorParams{Taken: fact.ExtractionCount, Now: now, ID: peer.ID})
			if err != nil {
				return fmt.Errorf("unmerge: %w", err)
			}
			done.Unmerged = peer.ID
			return s.audit(ctx, q, auditEntry{
				actor: actor, action: "fact.unmerge", targetType: "fact", targetID: strconv.FormatInt(peer.ID, 10),
				scope:  u.Scope,
				before: map[string]any{"extraction_count": peer.ExtractionCount, "version": peer.Version},
				after:  map[string]any{"extraction_count": u.ExtractionCount, "version": u.Version, "restored": id},
				reason: reason,
			})
		}
		if backing, err := q.DecisionsBackingFacts(ctx, []int64{peer.ID}); err != nil {
			return fmt.Errorf("decisions of facts: %w", err)
		} else if len(backing) > 0 {
			return nil // a decision's fact is the decision's to change: it stays
		}
		archived, err := q.ArchiveFactsByID(ctx, queries.ArchiveFactsByIDParams{
			Now: now, ArchiveReason: fmt.Sprintf("supersession of fact %d undone by %s", id, actor.String()),
			Ids: []int64{peer.ID}, Actor: actor.String(), Reason: reason,
		})
		if err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		for _, r := range archived {
			done.Archived = append(done.Archived, r.ID)
		}
		return nil
	})
	if err != nil {
		return Undone{}, fmt.Errorf("undo %s: %w", kind, err)
	}
	return done, nil
}

// undoReason is the default reason of an undo, naming the change.
func undoReason(kind, archiveReason string) string {
	switch kind {
	case WhatSuperseded:
		return "the fact comes back; it was " + archiveReason
	case WhatMerged:
		return "the fact comes back on its own; it was " + archiveReason
	}
	return "the fact comes back; it was archived (" + archiveReason + ")"
}

// withRun adds the consolidation run's id to an audit row's after, when
// runID is a run's (not 0).
func withRun(after map[string]any, runID int64) map[string]any {
	if runID != 0 {
		after["run_id"] = runID
	}
	return after
}

// auditRunRows audits one change a run made to many rows: one audit row
// each (with its scope and after), or one for the lot when there are many,
// as supersession does (after names them in list, with the run's id).
func (r *runner) auditRunRows(ctx context.Context, q *queries.Queries, action, one, many string, ids []int64, scopes []string,
	each func(i int) map[string]any, lot map[string]any, reason string) error {
	if len(ids) == 0 {
		return nil
	}
	actor := System("consolidation")
	if len(ids) > 20 {
		scope := scopes[0]
		for _, sc := range scopes {
			if sc != scope {
				scope = ""
			}
		}
		return r.s.audit(ctx, q, auditEntry{actor: actor, action: action, targetType: many,
			targetID: strconv.FormatInt(ids[0], 10), scope: scope, after: withRun(lot, r.id), reason: reason})
	}
	afters := make([]json.RawMessage, len(ids))
	for i := range ids {
		raw, err := json.Marshal(withRun(each(i), r.id))
		if err != nil {
			return err
		}
		afters[i] = raw
	}
	if err := q.InsertChangeAudits(ctx, queries.InsertChangeAuditsParams{
		At: r.s.Now(), Actor: actor.String(), Action: action, TargetType: one, Reason: reason,
		TargetIds: ids, Scopes: scopes, Afters: afters,
	}); err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

// auditMerged audits the facts the merge phase merged into their survivors.
func (r *runner) auditMerged(ctx context.Context, q *queries.Queries, m queries.MergeDuplicateFactsRow) error {
	return r.auditRunRows(ctx, q, "fact.merge", "fact", "facts", m.MergedIds, m.MergedScopes,
		func(i int) map[string]any {
			return map[string]any{"status": "archived", "merged_into": m.SurvivorIds[i],
				"archive_reason": "merged into fact " + strconv.FormatInt(m.SurvivorIds[i], 10)}
		},
		map[string]any{"status": "archived", "facts": m.MergedIds, "merged_into": m.SurvivorIds},
		"an exact duplicate of an older fact: merged into it")
}

// auditDecided audits the decisions the decide phase recorded.
func (r *runner) auditDecided(ctx context.Context, q *queries.Queries, d queries.PromoteDecisionNodesRow) error {
	return r.auditRunRows(ctx, q, "decision.create", "decision", "decisions", d.DecisionIds, d.DecisionScopes,
		func(int) map[string]any { return map[string]any{} },
		map[string]any{"decisions": d.DecisionIds},
		"recorded from a working row")
}

// CountForgettingSoon counts the active facts decay archives by until
// (those already due included), up to most: more reports that there are
// more than most (n is then most).
func (s *Store) CountForgettingSoon(ctx context.Context, until time.Time, most int64) (n int64, more bool, err error) {
	n, err = s.q.CountForgettingSoon(ctx, queries.CountForgettingSoonParams{Until: until, MaxCount: most})
	if err != nil {
		return 0, false, fmt.Errorf("count facts forgetting soon: %w", err)
	}
	if n > most {
		return most, true, nil
	}
	return n, false, nil
}
