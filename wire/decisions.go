package wire

import (
	"time"

	"github.com/tenurehq/tenure/memory"
)

// Decision is a recorded decision with its reasoning and the alternatives
// rejected. State is locked, open (never locked), reopened (locked once,
// reopened by a reviewer) or superseded (SupersededBy replaced it).
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
	State        string     `json:"state"`
	ReopenedAt   *time.Time `json:"reopened_at"`
	ReopenedBy   string     `json:"reopened_by"`
	ReopenReason string     `json:"reopen_reason"`
	Version      int32      `json:"version"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	// SupersededBy is the later decision on the same entity and key that
	// replaced this one; null while none has.
	SupersededBy *int64 `json:"superseded_by"`
}

// NewDecision is d as the surfaces show it.
func NewDecision(d memory.Decision) Decision {
	return Decision{
		ID: d.ID, FactID: d.FactID, Scope: d.Scope, EntityID: d.EntityID, Entity: d.Entity, Key: d.Key,
		Decision: d.Decision, Alternatives: orEmpty(d.Alternatives), Reasoning: d.Reasoning, DecidedBy: d.DecidedBy,
		DecidedAt: UTC(d.DecidedAt), DoNotReopen: d.DoNotReopen, State: d.State(), ReopenedAt: UTCPtr(d.ReopenedAt),
		ReopenedBy: d.ReopenedBy, ReopenReason: d.ReopenReason, Version: d.Version,
		CreatedAt: UTC(d.CreatedAt), UpdatedAt: UTC(d.UpdatedAt), SupersededBy: d.SupersededBy,
	}
}

// NewDecisions is ds as the surfaces show them.
func NewDecisions(ds []memory.Decision) []Decision {
	out := make([]Decision, len(ds))
	for i, d := range ds {
		out[i] = NewDecision(d)
	}
	return out
}
