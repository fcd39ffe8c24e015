package memory

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/tenurehq/tenure/memory/classify"
	"github.com/tenurehq/tenure/queries"
)

// Supersession: a newer fact of a category that supersedes (state, mood,
// identity, preference and routine by default; a setting per category) or
// any short-term or ephemeral fact archives the older facts of such kinds on
// the same scope, entity and key that say something else, with the reason
// "superseded by fact N" (one that says the same is merged instead). A fact
// is archived only by one that states a new value of the same attribute, so
// the key must name one (occupation, drink, replication_lag, mood): a
// generic key, which names a category or a catch-all (status, routine,
// likes, obligation, note: classify.GenericKeys), never supersedes and is
// never superseded. Facts of categories that accumulate (observation,
// obligation by default) stay side by side; decisions are replaced through
// the decision log. Every writer of facts applies it: consolidation, the
// API, import and the console.

// genericKeys are the keys supersession leaves alone, and singleKeys those
// it applies to in any category.
var (
	genericKeys = classify.GenericKeys()
	singleKeys  = classify.SingleValuedKeys()
)

// Superseded is a fact archived because a newer one on its key replaced it.
type Superseded struct {
	FactID int64  `json:"fact_id"`
	Scope  string `json:"scope"`
	By     int64  `json:"superseded_by"`
}

// supersede applies supersession around ids, in q's transaction, and audits
// each archived fact (one row for the lot when many, as consolidation
// writes them).
func (s *Store) supersede(ctx context.Context, q *queries.Queries, actor Actor, now time.Time, ids []int64) ([]Superseded, error) {
	return s.supersedeRun(ctx, q, actor, now, ids, 0)
}

// supersedeRun is supersede for consolidation run runID (0 for none), whose
// id its audit rows carry (after.run_id), so that what the run changed can
// be listed and undone (changes.go).
func (s *Store) supersedeRun(ctx context.Context, q *queries.Queries, actor Actor, now time.Time, ids []int64, runID int64) ([]Superseded, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := q.SupersedeFacts(ctx, queries.SupersedeFactsParams{Ids: ids, GenericKeys: genericKeys, SingleKeys: singleKeys, Now: now})
	if err != nil {
		return nil, fmt.Errorf("supersede: %w", err)
	}
	out := make([]Superseded, len(rows))
	for i, r := range rows {
		out[i] = Superseded{FactID: r.ID, Scope: r.Scope, By: r.WinnerID}
	}
	if err := s.auditSuperseded(ctx, q, actor, out, runID); err != nil {
		return out, err
	}
	fulfilled, err := s.fulfil(ctx, q, actor, now, ids, runID)
	return append(out, fulfilled...), err
}

// auditSuperseded audits each fact supersession archived (one row for the
// lot when many, as consolidation writes them; with their scope when they
// share one), with the run that archived them, if any.
func (s *Store) auditSuperseded(ctx context.Context, q *queries.Queries, actor Actor, out []Superseded, runID int64) error {
	if len(out) > 20 {
		facts := make([]int64, len(out))
		by := make([]int64, len(out))
		scope := out[0].Scope
		for i, x := range out {
			facts[i], by[i] = x.FactID, x.By
			if x.Scope != scope {
				scope = ""
			}
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.supersede", targetType: "facts", targetID: strconv.FormatInt(facts[0], 10),
			scope:  scope,
			after:  withRun(map[string]any{"status": "archived", "facts": facts, "superseded_by": by}, runID),
			reason: "a newer fact on the same key replaced them",
		})
	}
	for _, x := range out {
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.supersede", targetType: "fact", targetID: strconv.FormatInt(x.FactID, 10),
			scope:  x.Scope,
			before: map[string]any{"status": "active"},
			after: withRun(map[string]any{"status": "archived", "archive_reason": "superseded by fact " + strconv.FormatInt(x.By, 10),
				"superseded_by": x.By}, runID),
			reason: "a newer fact on the same key replaced it",
		}); err != nil {
			return err
		}
	}
	return nil
}

// fulfil archives the obligations that facts ids say are done ("Paid the
// water bill" closes "I must pay the water bill by Friday", on the same
// entity: classify.Fulfils), each with reason "fulfilled by fact N", and
// audits them. The fulfilment supersedes the obligation: it is restorable
// like any archived fact.
func (s *Store) fulfil(ctx context.Context, q *queries.Queries, actor Actor, now time.Time, ids []int64, runID int64) ([]Superseded, error) {
	pairs, err := q.OpenObligationsBeside(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("fulfilled obligations: %w", err)
	}
	var done, by []int64
	for _, p := range pairs {
		if (len(done) == 0 || done[len(done)-1] != p.ObligationID) && classify.Fulfils(p.Obligation, p.Statement) {
			done, by = append(done, p.ObligationID), append(by, p.FactID)
		}
	}
	if len(done) == 0 {
		return nil, nil
	}
	rows, err := q.ArchiveFulfilled(ctx, queries.ArchiveFulfilledParams{Ids: done, By: by, Now: now})
	if err != nil {
		return nil, fmt.Errorf("fulfilled obligations: %w", err)
	}
	out := make([]Superseded, len(rows))
	for i, r := range rows {
		out[i] = Superseded{FactID: r.ID, Scope: r.Scope, By: r.ByID}
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.fulfil", targetType: "fact", targetID: strconv.FormatInt(r.ID, 10),
			scope:  r.Scope,
			before: map[string]any{"status": "active"},
			after: withRun(map[string]any{"status": "archived", "archive_reason": "fulfilled by fact " + strconv.FormatInt(r.ByID, 10),
				"fulfilled_by": r.ByID}, runID),
			reason: "a later fact says the obligation was done",
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}
