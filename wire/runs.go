package wire

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/tenurehq/tenure/memory"
)

// Run is a consolidation run and its report.
type Run struct {
	ID                int64      `json:"id"`
	Trigger           string     `json:"trigger"`
	Status            string     `json:"status"`
	StartedAt         time.Time  `json:"started_at"`
	FinishedAt        *time.Time `json:"finished_at"`
	Phase             *int16     `json:"phase"`
	Phases            []RunPhase `json:"phases"`
	TransientRejected int        `json:"transient_rejected"`
	ExpiredRejected   int        `json:"expired_rejected"`
	DecisionLocked    int        `json:"decision_locked"`
	// SetAside counts the working rows the run set aside after a failure of
	// their own (status partial), to be retried from the console.
	SetAside int    `json:"set_aside"`
	Error    string `json:"error"`
	// Scope is the one scope the run consolidated, null for a run of every
	// scope (of which a token reads only its own scope's refusals).
	Scope *string `json:"scope"`
}

// RunPhase is one phase's counts of outcomes, such as promoted or
// transient_rejected.
type RunPhase struct {
	Phase  int            `json:"phase"`
	Name   string         `json:"name"`
	Counts map[string]int `json:"counts"`
}

// NewRun is r as the API shows it.
func NewRun(r memory.Run) Run {
	out := Run{
		ID: r.ID, Trigger: r.Trigger, Status: r.Status, StartedAt: UTC(r.StartedAt),
		FinishedAt: UTCPtr(r.FinishedAt), Phase: r.Phase, Phases: []RunPhase{},
		TransientRejected: r.TransientRejected, ExpiredRejected: r.ExpiredRejected,
		DecisionLocked: r.DecisionLocked, SetAside: r.SetAside, Error: r.Error, Scope: r.Scope,
	}
	for _, p := range memory.PhaseOrder {
		counts := r.Report[strconv.Itoa(p)]
		if counts == nil {
			counts = map[string]int{}
		}
		out.Phases = append(out.Phases, RunPhase{Phase: p, Name: memory.PhaseName(p), Counts: counts})
	}
	return out
}

// Rejection is one refused write.
type Rejection struct {
	ID         int64           `json:"id"`
	RunID      *int64          `json:"run_id"`
	Phase      *int16          `json:"phase"`
	PhaseName  *string         `json:"phase_name"`
	NodeID     *int64          `json:"node_id"`
	Scope      string          `json:"scope"`
	Reason     string          `json:"reason"`
	Source     string          `json:"source"`
	Content    string          `json:"content"`
	Properties json.RawMessage `json:"properties"`
	DecisionID *int64          `json:"decision_id"`
	CreatedAt  time.Time       `json:"created_at"`
}

// NewRejection is r as the API shows it.
func NewRejection(r memory.Rejection) Rejection {
	out := Rejection{
		ID: r.ID, RunID: r.RunID, Phase: r.Phase, NodeID: r.NodeID, Scope: r.Scope, Reason: r.Reason,
		Source: r.Source, Content: r.Content, Properties: r.Properties, DecisionID: r.DecisionID,
		CreatedAt: UTC(r.CreatedAt),
	}
	if len(out.Properties) == 0 {
		out.Properties = json.RawMessage("{}")
	}
	if r.Phase != nil {
		name := memory.PhaseName(int(*r.Phase))
		out.PhaseName = &name
	}
	return out
}
