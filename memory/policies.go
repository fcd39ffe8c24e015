package memory

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// The anchors of a decay policy: the instant decay counts from.
const (
	AnchorConfirmedAt = "confirmed_at" // decay from the last confirmation
	AnchorDeadline    = "deadline"     // no decay before the deadline, then decay from it
)

// Policy is one decay policy: for a durability, or an override for a
// category. A category policy anchored on the deadline governs only facts
// that have a deadline.
type Policy struct {
	ID         int64   `json:"id"`
	Durability *string `json:"durability"`
	Category   *string `json:"category"`
	// HalfLife is the time for the effective confidence to halve; nil means
	// facts under this policy never decay.
	HalfLife    *time.Duration `json:"half_life"`
	Anchor      string         `json:"anchor"`
	Floor       float64        `json:"floor"`
	Description string         `json:"description"`
	UpdatedAt   time.Time      `json:"updated_at"`
	UpdatedBy   string         `json:"updated_by"`
}

// Target names what the policy governs, e.g. "durability long_term" or
// "category obligation".
func (p Policy) Target() string {
	if p.Category != nil {
		return "category " + *p.Category
	}
	if p.Durability != nil {
		return "durability " + *p.Durability
	}
	return "nothing"
}

func newPolicy(r queries.DecayPolicy) Policy {
	p := Policy{
		ID: r.ID, Durability: r.Durability, Category: r.Category, Anchor: r.Anchor, Floor: r.Floor,
		Description: r.Description, UpdatedAt: r.UpdatedAt, UpdatedBy: r.UpdatedBy,
	}
	if r.HalfLifeSeconds != nil {
		p.HalfLife = pointerTo(secondsDuration(*r.HalfLifeSeconds))
	}
	return p
}

func secondsDuration(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

// ListPolicies returns every decay policy: durabilities first, from
// permanent to ephemeral, then the category overrides.
func (s *Store) ListPolicies(ctx context.Context) ([]Policy, error) {
	rows, err := s.q.ListDecayPolicies(ctx)
	if err != nil {
		return nil, fmt.Errorf("list policies: %w", err)
	}
	out := make([]Policy, len(rows))
	for i, r := range rows {
		out[i] = newPolicy(r)
	}
	return out, nil
}

// Bounds of a policy's half-life.
const (
	minHalfLife = time.Minute
	maxHalfLife = 100 * 365 * 24 * time.Hour
)

// PolicyChanges are the edits to a decay policy; nil fields are unchanged.
type PolicyChanges struct {
	HalfLife *time.Duration // between 1 minute and 100 years
	// NeverDecays removes the half-life: facts under the policy stop decaying.
	// It may not be combined with HalfLife.
	NeverDecays bool
	Floor       *float64 // greater than 0 and less than 1
	// Seen, when set, is the policy's UpdatedAt as the writer last saw it:
	// a policy changed since is a conflict, never a silent overwrite.
	Seen *time.Time
}

func (ch PolicyChanges) validate() error {
	if ch.HalfLife == nil && !ch.NeverDecays && ch.Floor == nil {
		return Invalidf("half_life", "nothing to change: give a half-life, never, or a floor")
	}
	if ch.HalfLife != nil && ch.NeverDecays {
		return Invalidf("half_life", "give a half-life or never, not both")
	}
	if ch.HalfLife != nil && (*ch.HalfLife < minHalfLife || *ch.HalfLife > maxHalfLife) {
		return Invalidf("half_life", "half-life %s is out of range: it must be between 1 minute and 100 years", *ch.HalfLife)
	}
	if ch.Floor != nil && (math.IsNaN(*ch.Floor) || *ch.Floor <= 0 || *ch.Floor >= 1) {
		return Invalidf("floor", "floor %v is out of range: it must be greater than 0 and less than 1 (the default is 0.10)", *ch.Floor)
	}
	return nil
}

// UpdatePolicy changes the decay policy with id and, in the same
// transaction, recomputes forget_at for exactly the active facts it governs
// (one statement), returning the policy and how many facts were recomputed.
// Only people change policies (the console lets admins); it is audited.
// Recomputing leaves the facts' versions alone: forget_at is derived, and a
// policy change must not make reviewers' open forms stale.
func (s *Store) UpdatePolicy(ctx context.Context, actor Actor, id int64, ch PolicyChanges, reason string) (Policy, int, error) {
	if actor.Automated() {
		return Policy{}, 0, errHumansOnly("change a decay policy")
	}
	if err := ch.validate(); err != nil {
		return Policy{}, 0, err
	}
	reason, err := parseReason(reason)
	if err != nil {
		return Policy{}, 0, err
	}
	var (
		p Policy
		n int64
	)
	err = s.tx(ctx, func(q *queries.Queries, tx pgx.Tx) error {
		cur, err := q.DecayPolicyForUpdate(ctx, id)
		if isNoRows(err) {
			return NotFoundf("no decay policy with id %d", id)
		}
		if err != nil {
			return fmt.Errorf("policy %d: %w", id, err)
		}
		if ch.Seen != nil && !cur.UpdatedAt.Equal(*ch.Seen) {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf(
				"the policy was changed by %s after you read it; review its current values and apply your change again", cur.UpdatedBy)}
		}
		halfLife, floor := cur.HalfLifeSeconds, cur.Floor
		switch {
		case ch.NeverDecays:
			halfLife = nil
		case ch.HalfLife != nil:
			halfLife = pointerTo(ch.HalfLife.Seconds())
		}
		if ch.Floor != nil {
			floor = *ch.Floor
		}
		if floatPtrEqual(halfLife, cur.HalfLifeSeconds) && floor == cur.Floor {
			p = newPolicy(cur)
			return nil
		}
		// Every fact keeps its decay terms, set by a trigger from the policy
		// it reads. A fact written by a transaction still open now would
		// miss the recompute below and keep the old terms for good, so
		// writers are waited for and held off until this commits (readers
		// are not).
		if _, err := tx.Exec(ctx, "LOCK TABLE entity_facts IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return fmt.Errorf("lock facts: %w", err)
		}
		row, err := q.UpdateDecayPolicy(ctx, queries.UpdateDecayPolicyParams{
			HalfLifeSeconds: halfLife, Floor: floor, Now: s.Now(), UpdatedBy: actor.String(), ID: id,
		})
		if err != nil {
			return fmt.Errorf("update: %w", err)
		}
		p = newPolicy(row)
		if p.Category != nil {
			n, err = q.RecomputeForgetAtForCategory(ctx, queries.RecomputeForgetAtForCategoryParams{
				Category: *p.Category, Anchor: p.Anchor,
			})
		} else {
			n, err = q.RecomputeForgetAtForDurability(ctx, *p.Durability)
		}
		if err != nil {
			return fmt.Errorf("recompute forget_at: %w", err)
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "policy.update", targetType: "policy", targetID: strconv.FormatInt(id, 10),
			before: map[string]any{"target": p.Target(), "half_life_seconds": cur.HalfLifeSeconds, "floor": cur.Floor},
			after: map[string]any{"target": p.Target(), "half_life_seconds": row.HalfLifeSeconds, "floor": row.Floor,
				"facts_recomputed": n},
			reason: reason,
		})
	})
	if err != nil {
		return Policy{}, 0, fmt.Errorf("update policy: %w", err)
	}
	return p, int(n), nil
}

func floatPtrEqual(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// The Go mirror of the SQL decay functions (migrations/00001_memory.sql),
// for drawing a fact's confidence over time without a query per point. The
// tests hold it to agree with tenure_effective_confidence and tenure_forget_at.

// PolicyFor returns the policy that governs a fact, as tenure_decay_policy
// chooses it: its category's override when there is one (a deadline-anchored
// override only when the fact has a deadline), otherwise its durability's.
// ok is false when policies hold neither.
func PolicyFor(policies []Policy, durability Durability, category string, deadline *time.Time) (p Policy, ok bool) {
	for _, p := range policies {
		if p.Category != nil && *p.Category == category && (p.Anchor != AnchorDeadline || deadline != nil) {
			return p, true
		}
	}
	for _, p := range policies {
		if p.Durability != nil && *p.Durability == string(durability) {
			return p, true
		}
	}
	return Policy{}, false
}

// AnchorAt is the instant decay counts from for a fact under p: its
// confirmation, or for a deadline-anchored policy the later of its
// confirmation and its deadline.
func (p Policy) AnchorAt(confirmedAt time.Time, deadline *time.Time) time.Time {
	if p.Anchor == AnchorDeadline && deadline != nil && deadline.After(confirmedAt) {
		return *deadline
	}
	return confirmedAt
}

// EffectiveConfidence is c0 * 2^(-(at - anchorAt) / halfLife), in seconds,
// never counting negative elapsed time; c0 when halfLife is nil (no decay).
func EffectiveConfidence(c0 float64, anchorAt, at time.Time, halfLife *time.Duration) float64 {
	if halfLife == nil {
		return c0
	}
	elapsed := max(0, at.Sub(anchorAt).Seconds())
	return c0 * math.Pow(2, -elapsed/halfLife.Seconds())
}

// Confidence is the effective confidence at at of a fact under p with
// confidence c0 confirmed at confirmedAt.
func (p Policy) Confidence(c0 float64, confirmedAt time.Time, deadline *time.Time, at time.Time) float64 {
	return EffectiveConfidence(c0, p.AnchorAt(confirmedAt, deadline), at, p.HalfLife)
}

// ForgetAt is the instant a fact under p crosses p's floor, or its expiresAt
// when that comes sooner; nil when it never decays and never expires.
func (p Policy) ForgetAt(c0 float64, confirmedAt time.Time, expiresAt, deadline *time.Time) *time.Time {
	var t *time.Time
	if p.HalfLife != nil {
		anchor := p.AnchorAt(confirmedAt, deadline)
		if c0 <= p.Floor {
			t = &anchor
		} else {
			secs := p.HalfLife.Seconds() * math.Log(c0/p.Floor) / math.Ln2
			t = pointerTo(anchor.Add(time.Duration(math.Round(secs*1e6)) * time.Microsecond))
		}
	}
	if expiresAt != nil && (t == nil || expiresAt.Before(*t)) {
		t = expiresAt
	}
	return t
}

// ConfidencePoint is one point of a fact's confidence curve.
type ConfidencePoint struct {
	At         time.Time `json:"at"`
	Confidence float64   `json:"confidence"`
}

// ConfidenceCurve samples the effective confidence of f under p at points
// evenly spaced instants from from to to (both included), for the console's
// plot from confirmed_at to forget_at.
func ConfidenceCurve(f Fact, p Policy, from, to time.Time, points int) []ConfidencePoint {
	if points < 2 {
		points = 2
	}
	step := to.Sub(from) / time.Duration(points-1)
	out := make([]ConfidencePoint, points)
	for i := range out {
		at := from.Add(step * time.Duration(i))
		if i == points-1 {
			at = to
		}
		out[i] = ConfidencePoint{At: at, Confidence: p.Confidence(f.Confidence, f.ConfirmedAt, f.Deadline, at)}
	}
	return out
}
