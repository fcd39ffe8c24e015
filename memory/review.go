package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// The review queue holds what a person must decide because no
// automated process may: consolidation and the refusal paths open items, a
// reviewer resolves each one with an action. The kinds and their actions:
//
// near_duplicate: two active facts on the same entity, key and category that
// say different things (Fact is the newer, OtherFact the older).
//   - merge: they say the same thing. The newer is archived ("merged into
//     fact N") and the older survives, reinforced by the newer's effective
//     confidence and counting its observations, as the merge phase does with
//     exact duplicates. Both facts must still be active.
//   - accept: they are distinct facts; both stay as they are.
//   - dismiss: close the item without a judgement; nothing changes.
//
// decision_refusal: an automated write refused because a locked decision
// settles its scope, entity and key (Rejection is the refused write, Decision
// the decision it hit).
//   - dismiss: the decision stands; nothing changes.
//   - accept: the refused write was right to ask: the decision is reopened
//     (do_not_reopen = false) with the reviewer's reason, which is required,
//     so that the next write on its key goes through. A decision someone
//     already reopened stays open.
//
// repeated_mood: a mood observed many times (Fact is the mood; its
// extraction count says how often).
//   - accept: the reviewer raises what lies behind it to a lasting fact: a new
//     fact on the mood's entity with the category (not mood, not decision) and
//     durability (not ephemeral) the reviewer chooses, written as a human act
//     and audited. The mood itself stays ephemeral and untouched: moods never
//     harden.
//   - dismiss: the mood stays a mood; nothing changes.
//
// Every action runs in one transaction with its effects, resolves the item
// (status, resolved_at, resolved_by) and writes a review.<action> audit row
// beside the audit rows of what it changed. Only people resolve items, and an
// item is resolved once: a second resolution is a *Error (CodeConflict).
// A dismissal alone can be undone, since it changed nothing but the item:
// UndismissReviewItem opens the item again (review.undismiss), and the
// dismissed items stay listed (ReviewFilter.Status dismissed).

// The kinds of review item.
const (
	ReviewNearDuplicate   = "near_duplicate"
	ReviewDecisionRefusal = "decision_refusal"
	ReviewRepeatedMood    = "repeated_mood"
)

// ReviewKinds lists the kinds of review item.
func ReviewKinds() []string {
	return []string{ReviewNearDuplicate, ReviewDecisionRefusal, ReviewRepeatedMood}
}

// ParseReviewKind validates a review item's kind.
func ParseReviewKind(s string) (string, error) {
	if slices.Contains(ReviewKinds(), s) {
		return s, nil
	}
	return "", Invalidf("kind", "unknown review kind %q: allowed values are near_duplicate, decision_refusal, repeated_mood", s)
}

// ReviewAction is what a reviewer does with a review item.
type ReviewAction string

// The actions on review items.
const (
	ActionAccept  ReviewAction = "accept"
	ActionMerge   ReviewAction = "merge"
	ActionDismiss ReviewAction = "dismiss"
)

// ReviewActions returns the actions that apply to items of kind, in the
// order the console offers them.
func ReviewActions(kind string) []ReviewAction {
	switch kind {
	case ReviewNearDuplicate:
		return []ReviewAction{ActionMerge, ActionAccept, ActionDismiss}
	case ReviewDecisionRefusal, ReviewRepeatedMood:
		return []ReviewAction{ActionAccept, ActionDismiss}
	}
	return nil
}

// resolvedStatus is the status an action leaves its item in.
func resolvedStatus(a ReviewAction) string {
	switch a {
	case ActionAccept:
		return "accepted"
	case ActionMerge:
		return "merged"
	}
	return "dismissed"
}

// ReviewItem is one item of the review queue, with the rows a reviewer needs
// to decide on it.
type ReviewItem struct {
	ID          int64           `json:"id"`
	Kind        string          `json:"kind"`
	Scope       string          `json:"scope"`
	FactID      *int64          `json:"fact_id"`
	OtherFactID *int64          `json:"other_fact_id"`
	RejectionID *int64          `json:"rejection_id"`
	Detail      json.RawMessage `json:"detail"`
	Status      string          `json:"status"` // open, accepted, merged, dismissed
	CreatedAt   time.Time       `json:"created_at"`
	ResolvedAt  *time.Time      `json:"resolved_at"`
	ResolvedBy  string          `json:"resolved_by"`

	// Fact is the newer fact of a near duplicate, or the repeated mood.
	Fact *Fact `json:"fact,omitempty"`
	// OtherFact is the older fact of a near duplicate.
	OtherFact *Fact `json:"other_fact,omitempty"`
	// Rejection is the refused write of a decision refusal.
	Rejection *Rejection `json:"rejection,omitempty"`
	// Decision is the decision a refused write hit, when it still exists.
	Decision *Decision `json:"decision,omitempty"`
}

// Open reports whether the item still waits for a reviewer.
func (it ReviewItem) Open() bool { return it.Status == "open" }

func newReviewItem(r queries.ReviewItem) ReviewItem {
	it := ReviewItem{
		ID: r.ID, Kind: r.Kind, Scope: r.Scope, FactID: r.FactID, OtherFactID: r.OtherFactID,
		RejectionID: r.RejectionID, Detail: r.Detail, Status: r.Status, CreatedAt: r.CreatedAt,
		ResolvedAt: r.ResolvedAt,
	}
	if r.ResolvedBy != nil {
		it.ResolvedBy = *r.ResolvedBy
	}
	return it
}

// Limits of the review queue.
const (
	defaultReviewPage = 50
	maxReviewPage     = 500
)

// The lists of the review queue (ReviewFilter.Status).
const (
	ReviewOpen      = "open"      // the items waiting for a reviewer, oldest first
	ReviewDismissed = "dismissed" // the items dismissed, the newest item first
)

// ParseReviewStatus validates the list of a review filter; "" is open.
func ParseReviewStatus(s string) (string, error) {
	switch s {
	case "", ReviewOpen:
		return ReviewOpen, nil
	case ReviewDismissed:
		return ReviewDismissed, nil
	}
	return "", Invalidf("status", "unknown review list %q: allowed values are open, dismissed", s)
}

// ReviewFilter selects review items; zero fields filter nothing.
type ReviewFilter struct {
	// Status is the list: open (the default) or dismissed.
	Status string
	Kind   string
	Scope  string
	// AfterID is the keyset cursor: only the items after it in the list's
	// order (a larger id when open, a smaller one when dismissed).
	AfterID int64
	Limit   int // default 50, at most 500
}

// ReviewQueue returns one page of review items, each with the facts,
// refused write and decision it names: the open ones oldest first, or with
// Status dismissed the dismissed ones, the newest item first. The next page
// starts after the last item's id.
func (s *Store) ReviewQueue(ctx context.Context, f ReviewFilter) ([]ReviewItem, error) {
	var p queries.ListOpenReviewItemsParams
	status, err := ParseReviewStatus(f.Status)
	if err != nil {
		return nil, err
	}
	if f.Kind != "" {
		k, err := ParseReviewKind(f.Kind)
		if err != nil {
			return nil, err
		}
		p.Kind = &k
	}
	if f.Scope != "" {
		sc, err := ParseScope(f.Scope)
		if err != nil {
			return nil, err
		}
		p.Scope = &sc
	}
	if p.PageSize, err = parsePageSize(f.Limit, defaultReviewPage, maxReviewPage); err != nil {
		return nil, err
	}
	if f.AfterID < 0 {
		return nil, Invalidf("after", "invalid page cursor %d: it must be a positive review item id", f.AfterID)
	}
	p.AfterID = f.AfterID
	var rows []queries.ReviewItem
	if status == ReviewDismissed {
		rows, err = s.q.ListDismissedReviewItems(ctx, queries.ListDismissedReviewItemsParams{
			Kind: p.Kind, Scope: p.Scope, BeforeID: p.AfterID, PageSize: p.PageSize,
		})
	} else {
		rows, err = s.q.ListOpenReviewItems(ctx, p)
	}
	if err != nil {
		return nil, fmt.Errorf("review queue: %w", err)
	}
	items := make([]ReviewItem, len(rows))
	for i, r := range rows {
		items[i] = newReviewItem(r)
	}
	if err := s.loadReviewRows(ctx, s.q, items); err != nil {
		return nil, fmt.Errorf("review queue: %w", err)
	}
	return items, nil
}

// CountOpenReviewItems returns how many items of each kind are open, in
// scope or in every scope when scope is empty.
func (s *Store) CountOpenReviewItems(ctx context.Context, scope string) (map[string]int, error) {
	var sc *string
	if scope != "" {
		if _, err := ParseScope(scope); err != nil {
			return nil, err
		}
		sc = &scope
	}
	rows, err := s.q.CountOpenReviewItems(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("count review items: %w", err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Kind] = int(r.Items)
	}
	return out, nil
}

// CountDismissedReviewItems returns how many items of each kind were
// dismissed, in scope or in every scope when scope is empty.
func (s *Store) CountDismissedReviewItems(ctx context.Context, scope string) (map[string]int, error) {
	var sc *string
	if scope != "" {
		if _, err := ParseScope(scope); err != nil {
			return nil, err
		}
		sc = &scope
	}
	rows, err := s.q.CountDismissedReviewItems(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("count dismissed review items: %w", err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Kind] = int(r.Items)
	}
	return out, nil
}

// GetReviewItem returns the review item with id, open or resolved, with the
// rows it names.
func (s *Store) GetReviewItem(ctx context.Context, id int64) (ReviewItem, error) {
	row, err := s.q.ReviewItemByID(ctx, id)
	if isNoRows(err) {
		return ReviewItem{}, NotFoundf("no review item with id %d", id)
	}
	if err != nil {
		return ReviewItem{}, fmt.Errorf("get review item %d: %w", id, err)
	}
	items := []ReviewItem{newReviewItem(row)}
	if err := s.loadReviewRows(ctx, s.q, items); err != nil {
		return ReviewItem{}, fmt.Errorf("get review item %d: %w", id, err)
	}
	return items[0], nil
}

// loadReviewRows fills in the facts, refused writes and decisions the items
// name, with one query for each.
func (s *Store) loadReviewRows(ctx context.Context, q *queries.Queries, items []ReviewItem) error {
	var factIDs, rejectionIDs []int64
	for _, it := range items {
		for _, id := range []*int64{it.FactID, it.OtherFactID} {
			if id != nil {
				factIDs = append(factIDs, *id)
			}
		}
		if it.RejectionID != nil {
			rejectionIDs = append(rejectionIDs, *it.RejectionID)
		}
	}
	facts := map[int64]*Fact{}
	if len(factIDs) > 0 {
		rows, err := q.ReviewFacts(ctx, queries.ReviewFactsParams{Now: s.Now(), Ids: factIDs})
		if err != nil {
			return fmt.Errorf("facts: %w", err)
		}
		for _, f := range newFacts(rows) {
			facts[f.ID] = &f
		}
	}
	rejections := map[int64]*Rejection{}
	var decisionIDs []int64
	if len(rejectionIDs) > 0 {
		rows, err := q.ReviewRejections(ctx, rejectionIDs)
		if err != nil {
			return fmt.Errorf("refused writes: %w", err)
		}
		for _, r := range rows {
			rej := newRejection(r)
			rejections[rej.ID] = &rej
			if rej.DecisionID != nil {
				decisionIDs = append(decisionIDs, *rej.DecisionID)
			}
		}
	}
	decisions := map[int64]*Decision{}
	if len(decisionIDs) > 0 {
		rows, err := q.ReviewDecisions(ctx, decisionIDs)
		if err != nil {
			return fmt.Errorf("decisions: %w", err)
		}
		for _, r := range rows {
			d := newDecision(decisionRow(r))
			decisions[d.ID] = &d
		}
	}
	for i := range items {
		it := &items[i]
		if it.FactID != nil {
			it.Fact = facts[*it.FactID]
		}
		if it.OtherFactID != nil {
			it.OtherFact = facts[*it.OtherFactID]
		}
		if it.RejectionID != nil {
			it.Rejection = rejections[*it.RejectionID]
			if it.Rejection != nil && it.Rejection.DecisionID != nil {
				it.Decision = decisions[*it.Rejection.DecisionID]
			}
		}
	}
	return nil
}

// Resolution is a reviewer's action on a review item.
type Resolution struct {
	Action ReviewAction
	// Reason is recorded in the audit log; it is required to accept a
	// decision refusal, where it becomes the decision's reopen reason.
	Reason string

	// The lasting fact a reviewer raises from a repeated mood (accept).
	// Category and Durability are required; Content and Key default to the
	// mood's.
	Content    string
	Key        *string
	Category   string
	Durability Durability
}

// ReviewOutcome is what resolving an item did.
type ReviewOutcome struct {
	Item ReviewItem
	// Fact is the surviving fact of a merge or the fact raised from a mood.
	Fact *Fact
	// Decision is the decision a decision refusal hit, after the action.
	Decision *Decision
	// AlreadyOpen reports that an accepted refusal's decision had already
	// been reopened by someone else, and was left as it was.
	AlreadyOpen bool
}

func (r Resolution) validate(kind string) (Resolution, error) {
	actions := ReviewActions(kind)
	if !slices.Contains(actions, r.Action) {
		names := make([]string, len(actions))
		for i, a := range actions {
			names[i] = string(a)
		}
		return r, Invalidf("action", "action %q does not apply to a %s item: allowed actions are %s",
			r.Action, kind, strings.Join(names, ", "))
	}
	var err error
	if r.Reason, err = parseReason(r.Reason); err != nil {
		return r, err
	}
	if kind == ReviewDecisionRefusal && r.Action == ActionAccept && r.Reason == "" {
		return r, Invalidf("reason", "a reason is required to reopen the decision: say why the refused write should be allowed")
	}
	if kind == ReviewRepeatedMood && r.Action == ActionAccept {
		r.Category = strings.TrimSpace(r.Category)
		switch r.Category {
		case "":
			return r, Invalidf("category", "choose the category of the lasting fact (for example state, preference or identity)")
		case CategoryMood:
			return r, Invalidf("category", "a mood stays a mood: choose the category of what lasts behind it (for example state, preference or identity), or dismiss the item")
		case CategoryDecision:
			return r, errDecisionCategory()
		}
		if _, err := ParseCategory(r.Category); err != nil {
			return r, err
		}
		if r.Durability == "" {
			return r, Invalidf("durability", "choose how long the lasting fact lives: permanent, long_term or short_term")
		}
		if _, err := ParseDurability(string(r.Durability)); err != nil {
			return r, err
		}
		if r.Durability == Ephemeral {
			return r, Invalidf("durability", "an ephemeral fact does not last: choose permanent, long_term or short_term, or dismiss the item")
		}
	}
	return r, nil
}

// ResolveReviewItem applies a reviewer's action to the open review item with
// id, in one transaction with everything the action changes (see the kinds
// and actions above), and resolves the item. Only people resolve items; an
// action that does not apply to the item's kind or misses a required field is
// CodeInvalid naming the field; an item resolved already is a
// *Error (CodeConflict); facts that are no longer there to merge are
// CodeConflict.
func (s *Store) ResolveReviewItem(ctx context.Context, actor Actor, id int64, res Resolution) (ReviewOutcome, error) {
	if actor.Automated() {
		return ReviewOutcome{}, errHumansOnly("resolve review items")
	}
	if !slices.Contains([]ReviewAction{ActionAccept, ActionMerge, ActionDismiss}, res.Action) {
		return ReviewOutcome{}, Invalidf("action", "unknown action %q: allowed actions are accept, merge, dismiss", res.Action)
	}
	var out ReviewOutcome
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		row, err := q.ReviewItemByIDForUpdate(ctx, id)
		if isNoRows(err) {
			return NotFoundf("no review item with id %d", id)
		}
		if err != nil {
			return fmt.Errorf("review item %d: %w", id, err)
		}
		cur := newReviewItem(row)
		if !cur.Open() {
			return reviewResolved(cur)
		}
		if res, err = res.validate(cur.Kind); err != nil {
			return err
		}
		after := map[string]any{}
		switch {
		case cur.Kind == ReviewNearDuplicate && res.Action == ActionMerge:
			f, err := s.mergeNearDuplicate(ctx, q, actor, cur, res.Reason)
			if err != nil {
				return err
			}
			out.Fact = &f
			after["survivor_fact_id"] = f.ID
		case cur.Kind == ReviewDecisionRefusal && res.Action == ActionAccept:
			d, already, err := s.reopenForRefusal(ctx, q, actor, cur, res.Reason)
			if err != nil {
				return err
			}
			out.Decision, out.AlreadyOpen = &d, already
			after["decision_id"], after["reopened"] = d.ID, !already
		case cur.Kind == ReviewRepeatedMood && res.Action == ActionAccept:
			f, err := s.raiseMood(ctx, q, actor, cur, res)
			if err != nil {
				return err
			}
			out.Fact = &f
			after["fact_id"] = f.ID
		}
		resolved, err := q.ResolveReviewItem(ctx, queries.ResolveReviewItemParams{
			Status: resolvedStatus(res.Action), Now: s.Now(), ResolvedBy: actor.Name, ID: id,
		})
		if isNoRows(err) {
			return reviewResolved(cur)
		}
		if err != nil {
			return fmt.Errorf("resolve: %w", err)
		}
		out.Item = newReviewItem(resolved)
		after["status"], after["resolved_at"], after["resolved_by"] = out.Item.Status, out.Item.ResolvedAt, out.Item.ResolvedBy
		before := map[string]any{"status": cur.Status, "kind": cur.Kind, "fact_id": cur.FactID,
			"other_fact_id": cur.OtherFactID, "rejection_id": cur.RejectionID}
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "review." + string(res.Action), targetType: "review_item",
			targetID: strconv.FormatInt(id, 10), scope: cur.Scope, before: before, after: after,
			reason: res.Reason,
		}); err != nil {
			return err
		}
		items := []ReviewItem{out.Item}
		if err := s.loadReviewRows(ctx, q, items); err != nil {
			return err
		}
		out.Item = items[0]
		return nil
	})
	if err != nil {
		return ReviewOutcome{}, fmt.Errorf("resolve review item: %w", err)
	}
	return out, nil
}

// mergeNearDuplicate archives the newer fact of a near duplicate into the
// older one and reinforces the older, as the merge phase does.
func (s *Store) mergeNearDuplicate(ctx context.Context, q *queries.Queries, actor Actor, it ReviewItem, reason string) (Fact, error) {
	if it.FactID == nil || it.OtherFactID == nil {
		return Fact{}, &Error{Code: CodeConflict, Message: fmt.Sprintf("review item %d no longer names two facts: dismiss it", it.ID)}
	}
	now := s.Now()
	ids := []int64{min(*it.FactID, *it.OtherFactID), max(*it.FactID, *it.OtherFactID)}
	facts, err := lockFacts(ctx, q, now, ids)
	if err != nil {
		return Fact{}, err
	}
	for _, f := range facts {
		if f.Status != StatusActive {
			return Fact{}, &Error{Code: CodeConflict, Message: fmt.Sprintf(
				"fact %d is archived (%s): only active facts can be merged; restore it first or dismiss the item", f.ID, f.ArchiveReason)}
		}
	}
	if err := checkNotDecisionFacts(ctx, q, ids); err != nil {
		return Fact{}, err
	}
	survivor, merged := facts[0], facts[1]
	note := fmt.Sprintf("review item %d: merged fact %d into fact %d", it.ID, merged.ID, survivor.ID)
	if reason != "" {
		note += ". " + reason
	}
	if _, err := q.ArchiveFactsByID(ctx, queries.ArchiveFactsByIDParams{
		Now: now, ArchiveReason: fmt.Sprintf("merged into fact %d", survivor.ID), Ids: []int64{merged.ID},
		Actor: actor.String(), Reason: note,
	}); err != nil {
		return Fact{}, fmt.Errorf("archive merged fact: %w", err)
	}
	row, err := q.MergeFactInto(ctx, queries.MergeFactIntoParams{
		Now: now, OtherConfidence: merged.EffectiveConfidence, OtherCount: merged.ExtractionCount, ID: survivor.ID,
	})
	if err != nil {
		return Fact{}, fmt.Errorf("reinforce survivor: %w", err)
	}
	f := newFact(factRow(row))
	err = s.audit(ctx, q, auditEntry{
		actor: actor, action: "fact.reinforce", targetType: "fact", targetID: strconv.FormatInt(f.ID, 10),
		scope:  f.Scope,
		before: reinforceAudit(survivor),
		after: map[string]any{
			"confidence": f.Confidence, "merged_fact_id": merged.ID,
			"merged_confidence": merged.EffectiveConfidence, "confirmed_at": f.ConfirmedAt,
			"extraction_count": f.ExtractionCount, "forget_at": f.ForgetAt, "version": f.Version,
		},
		reason: note,
	})
	return f, err
}

// reopenForRefusal reopens the decision a refused write hit, with reason; a
// decision already open is left as it is (already reports it).
func (s *Store) reopenForRefusal(ctx context.Context, q *queries.Queries, actor Actor, it ReviewItem, reason string) (d Decision, already bool, err error) {
	var decisionID *int64
	if it.RejectionID != nil {
		rows, err := q.ReviewRejections(ctx, []int64{*it.RejectionID})
		if err != nil {
			return Decision{}, false, fmt.Errorf("refused write: %w", err)
		}
		if len(rows) == 1 {
			decisionID = rows[0].DecisionID
		}
	}
	if decisionID == nil {
		return Decision{}, false, &Error{Code: CodeConflict, Message: fmt.Sprintf(
			"the decision behind review item %d no longer exists: there is nothing to reopen; dismiss the item", it.ID)}
	}
	cur, err := decisionForUpdate(ctx, q, *decisionID)
	if err != nil {
		return Decision{}, false, err
	}
	if !cur.DoNotReopen {
		return cur, true, nil
	}
	row, err := q.ReopenDecisionByID(ctx, queries.ReopenDecisionByIDParams{
		Now: s.Now(), ReopenedBy: actor.Name, ReopenReason: reason, ID: cur.ID,
	})
	if err != nil {
		return Decision{}, false, fmt.Errorf("reopen: %w", err)
	}
	d = newDecision(decisionRow(row))
	err = s.audit(ctx, q, auditEntry{
		actor: actor, action: "decision.reopen", targetType: "decision", targetID: strconv.FormatInt(d.ID, 10),
		scope:  d.Scope,
		before: map[string]any{"do_not_reopen": true, "version": cur.Version},
		after: map[string]any{"do_not_reopen": false, "reopened_at": d.ReopenedAt,
			"reopened_by": d.ReopenedBy, "reopen_reason": d.ReopenReason, "version": d.Version,
			"review_item_id": it.ID},
		reason: reason,
	})
	return d, false, err
}

// raiseMood writes the lasting fact a reviewer sees behind a repeated mood;
// the mood itself is left as it is.
func (s *Store) raiseMood(ctx context.Context, q *queries.Queries, actor Actor, it ReviewItem, res Resolution) (Fact, error) {
	if it.FactID == nil {
		return Fact{}, &Error{Code: CodeConflict, Message: fmt.Sprintf("review item %d no longer names its mood: dismiss it", it.ID)}
	}
	now := s.Now()
	row, err := q.FactByID(ctx, queries.FactByIDParams{Now: now, ID: *it.FactID})
	if isNoRows(err) {
		return Fact{}, NotFoundf("no fact with id %d", *it.FactID)
	}
	if err != nil {
		return Fact{}, fmt.Errorf("mood fact: %w", err)
	}
	mood := newFact(row)
	in := NewFact{
		Scope: mood.Scope, Entity: mood.Entity, Key: mood.Key, Content: mood.Content,
		Category: res.Category, Durability: res.Durability, Source: SourceHuman,
	}
	if strings.TrimSpace(res.Content) != "" {
		in.Content = res.Content
	}
	if res.Key != nil {
		in.Key = *res.Key
	}
	if in, err = in.validate(actor, now); err != nil {
		return Fact{}, err
	}
	if err := q.LockFactKey(ctx, lockKey(in.Scope, in.Entity, in.Key)); err != nil {
		return Fact{}, fmt.Errorf("lock key: %w", err)
	}
	ins, err := q.InsertFact(ctx, queries.InsertFactParams{
		Now: now, ObservedAt: now, Scope: in.Scope, EntityID: mood.EntityID, Key: in.Key, Content: in.Content,
		Durability: string(in.Durability), Category: in.Category, Confidence: *in.Confidence,
		Importance: mood.Importance, Source: in.Source,
	})
	if err != nil {
		return Fact{}, fmt.Errorf("insert fact: %w", err)
	}
	f := newFact(factRow(ins))
	note := fmt.Sprintf("review item %d: raised from mood fact %d, seen %d times", it.ID, mood.ID, mood.ExtractionCount)
	if res.Reason != "" {
		note += ". " + res.Reason
	}
	err = s.audit(ctx, q, auditEntry{
		actor: actor, action: "fact.create", targetType: "fact", targetID: strconv.FormatInt(f.ID, 10),
		scope: f.Scope, after: factAudit(f), reason: note,
	})
	return f, err
}

// UndismissReviewItem undoes a dismissal: the dismissed item with id is open
// again, waiting for a reviewer as before (a dismissal changed nothing
// else), audited as review.undismiss with reason. Only people undo
// dismissals. An item that is not dismissed (open, or accepted or merged)
// is a *Error (CodeConflict) naming it; so is one whose facts another open
// item names already.
func (s *Store) UndismissReviewItem(ctx context.Context, actor Actor, id int64, reason string) (ReviewItem, error) {
	if actor.Automated() {
		return ReviewItem{}, errHumansOnly("undo the dismissal of review items")
	}
	reason, err := parseReason(reason)
	if err != nil {
		return ReviewItem{}, err
	}
	var out ReviewItem
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		row, err := q.ReviewItemByIDForUpdate(ctx, id)
		if isNoRows(err) {
			return NotFoundf("no review item with id %d", id)
		}
		if err != nil {
			return fmt.Errorf("review item %d: %w", id, err)
		}
		cur := newReviewItem(row)
		switch cur.Status {
		case "open":
			return &Error{Code: CodeConflict, Review: &cur, Message: fmt.Sprintf(
				"review item %d is open already; nothing was changed", id)}
		case ReviewDismissed:
		default:
			return reviewResolved(cur)
		}
		reopened, err := q.UndismissReviewItem(ctx, id)
		if isNoRows(err) {
			return &Error{Code: CodeConflict, Review: &cur, Message: fmt.Sprintf(
				"review item %d stays dismissed: another open item names the same facts; nothing was changed", id)}
		}
		if err != nil {
			return fmt.Errorf("undismiss: %w", err)
		}
		out = newReviewItem(reopened)
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "review.undismiss", targetType: "review_item",
			targetID: strconv.FormatInt(id, 10), scope: cur.Scope,
			before: map[string]any{"status": cur.Status, "resolved_at": cur.ResolvedAt, "resolved_by": cur.ResolvedBy},
			after:  map[string]any{"status": out.Status, "resolved_at": nil, "resolved_by": nil},
			reason: reason,
		}); err != nil {
			return err
		}
		items := []ReviewItem{out}
		if err := s.loadReviewRows(ctx, q, items); err != nil {
			return err
		}
		out = items[0]
		return nil
	})
	if err != nil {
		return ReviewItem{}, fmt.Errorf("undismiss review item: %w", err)
	}
	return out, nil
}
