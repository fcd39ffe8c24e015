package memory

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// Overdue obligations are never forgotten silently. An obligation keeps its
// confidence until its deadline and decays from it; once its deadline has
// passed, decay holds it however far it decayed (ArchiveDueFacts leaves it
// active, and the overview does not list it as about to be forgotten): it
// stays active, listed as overdue, until a person settles it. A person
//
//   - marks it done (SettleObligation with ObligationDone): archived with
//     the archive reason "done";
//   - lets it go (ObligationLetGo): archived with the archive reason
//     "let go";
//   - or keeps it (KeepObligation): an overdue obligation gets a new
//     deadline ObligationExtension from now; one without a deadline, which
//     decays like any fact of its durability, is confirmed again now.
//
// An obligation without a deadline is not held: it decays like any fact.
// Each of these is audited and may be done by people only.

// ObligationOutcome is how a person settles an obligation; it becomes the
// fact's archive reason.
type ObligationOutcome string

// The ways to settle an obligation.
const (
	ObligationDone  ObligationOutcome = "done"
	ObligationLetGo ObligationOutcome = "let go"
)

// ObligationExtension is how long KeepObligation gives an overdue obligation.
const ObligationExtension = 7 * 24 * time.Hour

// Overdue reports whether f is an obligation whose deadline has passed at
// now: decay holds it until a person settles it.
func (f Fact) Overdue(now time.Time) bool {
	return f.Category == CategoryObligation && f.Deadline != nil && !f.Deadline.After(now)
}

// Held reports whether decay will hold f once it is overdue: an obligation
// with a deadline that comes no later than its forget_at (one whose
// expires_at comes sooner ends before it is due).
func (f Fact) Held() bool {
	return f.Category == CategoryObligation && f.Deadline != nil && (f.ForgetAt == nil || !f.ForgetAt.Before(*f.Deadline))
}

// activeObligation locks the fact with id and checks that it is an active
// obligation.
func activeObligation(ctx context.Context, q *queries.Queries, now time.Time, id int64) (Fact, error) {
	if id <= 0 {
		return Fact{}, Invalidf("id", "%d is out of range: give the id of an obligation, 1 or more", id)
	}
	f, err := factForUpdate(ctx, q, now, id)
	if err != nil {
		return Fact{}, err
	}
	if f.Category != CategoryObligation {
		return Fact{}, Invalidf("id", "fact %d is a %s, not an obligation: archive it from its page instead", f.ID, f.Category)
	}
	if f.Status != StatusActive {
		return Fact{}, &Error{Code: CodeConflict, Message: fmt.Sprintf(
			"obligation %d is already archived (%s): restore it from its page first", f.ID, f.ArchiveReason)}
	}
	return f, nil
}

// SettleObligation archives the active obligation with id as done or let
// go, audited (fact.archive, with the outcome as reason and archive reason),
// and returns it as it is now. Only people settle obligations. A fact that
// is not an obligation is CodeInvalid; one archived already is CodeConflict.
func (s *Store) SettleObligation(ctx context.Context, actor Actor, id int64, outcome ObligationOutcome) (Fact, error) {
	if actor.Automated() {
		return Fact{}, errHumansOnly("mark an obligation done or let it go")
	}
	if outcome != ObligationDone && outcome != ObligationLetGo {
		return Fact{}, Invalidf("outcome", "unknown outcome %q: an obligation is done or let go", outcome)
	}
	now := s.Now()
	var f Fact
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		cur, err := activeObligation(ctx, q, now, id)
		if err != nil {
			return err
		}
		rows, err := q.ArchiveFactsByID(ctx, queries.ArchiveFactsByIDParams{
			Now: now, ArchiveReason: string(outcome), Ids: []int64{cur.ID}, Actor: actor.String(), Reason: string(outcome),
		})
		if err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		if len(rows) != 1 {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf("obligation %d was archived meanwhile", cur.ID)}
		}
		f = newFact(factRow(rows[0]))
		return nil
	})
	if err != nil {
		return Fact{}, fmt.Errorf("settle obligation: %w", err)
	}
	return f, nil
}

// KeepObligation keeps the active obligation with id, audited (fact.update):
// an overdue one is given a new deadline ObligationExtension from now; one
// without a deadline is confirmed again now with the confidence it has, so
// its decay starts afresh. An obligation not due yet keeps its confidence
// anyway, so keeping it is CodeInvalid. Only people keep obligations.
func (s *Store) KeepObligation(ctx context.Context, actor Actor, id int64) (Fact, error) {
	if actor.Automated() {
		return Fact{}, errHumansOnly("keep an obligation")
	}
	now := s.Now()
	var f Fact
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		cur, err := activeObligation(ctx, q, now, id)
		if err != nil {
			return err
		}
		var (
			before, after map[string]any
			reason        string
		)
		switch {
		case cur.Deadline == nil:
			row, err := q.ConfirmFactNow(ctx, queries.ConfirmFactNowParams{Now: now, ID: cur.ID})
			if err != nil {
				return fmt.Errorf("confirm: %w", err)
			}
			f = newFact(factRow(row))
			before = map[string]any{"confirmed_at": cur.ConfirmedAt}
			after = map[string]any{"confirmed_at": f.ConfirmedAt}
			reason = "kept: confirmed again"
		case cur.Overdue(now):
			deadline := now.Add(ObligationExtension)
			row, err := q.UpdateFactFields(ctx, queries.UpdateFactFieldsParams{
				Key: cur.Key, Content: cur.Content, Durability: string(cur.Durability),
				Category: cur.Category, Confidence: cur.Confidence, Importance: cur.Importance,
				ConfirmedAt: cur.ConfirmedAt, ExpiresAt: cur.ExpiresAt, Deadline: &deadline,
				Now: now, ID: cur.ID, Version: cur.Version,
			})
			if err != nil {
				return fmt.Errorf("extend: %w", err)
			}
			f = newFact(factRow(row))
			before = map[string]any{"deadline": cur.Deadline}
			after = map[string]any{"deadline": f.Deadline}
			reason = "kept: due again in 7 days"
		default:
			return Invalidf("id", "obligation %d is due %s: it keeps its confidence until its deadline, so there is nothing to keep yet",
				cur.ID, cur.Deadline.UTC().Format("2006-01-02 15:04 UTC"))
		}
		before["version"], after["version"] = cur.Version, f.Version
		if !timePtrEqual(cur.ForgetAt, f.ForgetAt) {
			before["forget_at"], after["forget_at"] = cur.ForgetAt, f.ForgetAt
		}
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.update", targetType: "fact", targetID: strconv.FormatInt(f.ID, 10),
			scope: f.Scope, before: before, after: after, reason: reason,
		}); err != nil {
			return err
		}
		if f.ConfirmedAt.Equal(cur.ConfirmedAt) {
			return nil
		}
		// Confirmed again, it is the newest on its key, as after an edit.
		if _, err := s.supersede(ctx, q, actor, now, []int64{f.ID}); err != nil {
			return err
		}
		f, err = factForUpdate(ctx, q, now, f.ID)
		return err
	})
	if err != nil {
		return Fact{}, fmt.Errorf("keep obligation: %w", err)
	}
	return f, nil
}
