package memory

import (
	"context"
	"fmt"
	"strings"
)

// ForgetFact archives one active fact of scope for an agent, with its
// reason (required: it becomes the archive reason a reviewer reads), and
// returns the fact as it is now and whether this call archived it (false
// when it was archived already, which changes nothing). A reviewer can
// restore it. The fact of a decision recorded open is refused: an agent
// replaces a decision by recording another; the fact of a locked decision
// is refused as decision_locked, logged and queued for review, as every
// automated write on its key. A fact of another scope is as unknown as a
// missing one. Errors name the fact as field.
func (s *Store) ForgetFact(ctx context.Context, actor Actor, scope string, id int64, reason, field string) (Fact, bool, error) {
	if err := RequireReason(reason); err != nil {
		return Fact{}, false, err
	}
	f, err := s.ScopedFact(ctx, scope, id, field)
	if err != nil {
		return Fact{}, false, err
	}
	if f.Status == StatusArchived {
		return f, false, nil
	}
	ds, err := s.DecisionsOfFacts(ctx, []int64{f.ID})
	if err != nil {
		return Fact{}, false, err
	}
	if did, ok := ds[f.ID]; ok {
		d, err := s.GetDecision(ctx, did)
		if err != nil {
			return Fact{}, false, err
		}
		if !d.DoNotReopen {
			return Fact{}, false, Invalidf(field, "fact %d records decision %d, which is not forgotten: record a new decision on its key "+
				"(this one is kept, superseded), or ask a reviewer", f.ID, d.ID)
		}
	}
	if _, err := s.ArchiveFacts(ctx, actor, []int64{f.ID}, reason); err != nil {
		if e := AsError(err); e != nil && e.Field == "id" {
			named := *e
			named.Field = field
			return Fact{}, false, &named
		}
		return Fact{}, false, err
	}
	f, err = s.GetFact(ctx, f.ID)
	return f, err == nil, err
}

// RequireReason refuses an agent's correction or archive without a reason:
// the audit log and the reviewer read it.
func RequireReason(reason string) error {
	if strings.TrimSpace(reason) == "" {
		return Invalidf("reason", "a reason is required: say why the fact is wrong or no longer holds; reviewers read it in the audit log")
	}
	return nil
}

// ScopedFact returns the fact with id if it lies in scope: a fact of
// another scope is as unknown as a missing one, in the same words. Errors
// name the id as field.
func (s *Store) ScopedFact(ctx context.Context, scope string, id int64, field string) (Fact, error) {
	if id <= 0 {
		return Fact{}, Invalidf(field, "%d is out of range: give the id of a fact, 1 or more, as recall returns it", id)
	}
	f, err := s.GetFact(ctx, id)
	if ErrorCode(err) == CodeNotFound || (err == nil && f.Scope != scope) {
		return Fact{}, &Error{Code: CodeNotFound, Field: field, Message: fmt.Sprintf(
			"no fact with id %d in scope %s: give the id of a fact of your scope, as recall returns it", id, scope)}
	}
	return f, err
}
