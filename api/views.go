package api

import (
	"encoding/json"
	"maps"
	"time"

	"github.com/tenurehq/tenure/memory"
)

// The API's response types. They are the contract documented in
// openapi.json, kept apart from the engine's types so that neither changes
// the other by accident. Every time is UTC.

func utc(t time.Time) time.Time { return t.UTC() }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// page is one page of a keyset-paginated list; NextCursor is null on the
// last page.
type page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// factJSON is a fact in long-term memory.
type factJSON struct {
	ID                  int64      `json:"id"`
	Scope               string     `json:"scope"`
	EntityID            int64      `json:"entity_id"`
	Entity              string     `json:"entity"`
	Key                 string     `json:"key"`
	Content             string     `json:"content"`
	Durability          string     `json:"durability"`
	Category            string     `json:"category"`
	Confidence          float64    `json:"confidence"`
	EffectiveConfidence float64    `json:"effective_confidence"`
	Importance          float64    `json:"importance"`
	ConfirmedAt         time.Time  `json:"confirmed_at"`
	ExpiresAt           *time.Time `json:"expires_at"`
	Deadline            *time.Time `json:"deadline"`
	ForgetAt            *time.Time `json:"forget_at"`
	Status              string     `json:"status"`
	ArchivedAt          *time.Time `json:"archived_at"`
	ArchiveReason       string     `json:"archive_reason"`
	Source              string     `json:"source"`
	SourceNodeID        *int64     `json:"source_node_id"`
	ExtractionCount     int32      `json:"extraction_count"`
	Version             int32      `json:"version"`
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
}

func newFactJSON(f memory.Fact) factJSON {
	return factJSON{
		ID: f.ID, Scope: f.Scope, EntityID: f.EntityID, Entity: f.Entity, Key: f.Key, Content: f.Content,
		Durability: string(f.Durability), Category: f.Category, Confidence: f.Confidence,
		EffectiveConfidence: f.EffectiveConfidence, Importance: f.Importance,
		ConfirmedAt: utc(f.ConfirmedAt), ExpiresAt: utcPtr(f.ExpiresAt), Deadline: utcPtr(f.Deadline),
		ForgetAt: utcPtr(f.ForgetAt), Status: string(f.Status), ArchivedAt: utcPtr(f.ArchivedAt),
		ArchiveReason: f.ArchiveReason, Source: f.Source, SourceNodeID: f.SourceNodeID,
		ExtractionCount: f.ExtractionCount, Version: f.Version, CreatedAt: utc(f.CreatedAt),
		UpdatedAt: utc(f.UpdatedAt),
	}
}

// factSummaryJSON is a fact as lists show it; GET the fact for its expiry,
// archive state and source row.
type factSummaryJSON struct {
	ID                  int64      `json:"id"`
	Scope               string     `json:"scope"`
	EntityID            int64      `json:"entity_id"`
	Entity              string     `json:"entity"`
	Key                 string     `json:"key"`
	Content             string     `json:"content"`
	Durability          string     `json:"durability"`
	Category            string     `json:"category"`
	Confidence          float64    `json:"confidence"`
	EffectiveConfidence float64    `json:"effective_confidence"`
	Importance          float64    `json:"importance"`
	ConfirmedAt         time.Time  `json:"confirmed_at"`
	Deadline            *time.Time `json:"deadline"`
	ForgetAt            *time.Time `json:"forget_at"`
	Status              string     `json:"status"`
	Source              string     `json:"source"`
	ExtractionCount     int32      `json:"extraction_count"`
	Version             int32      `json:"version"`
	CreatedAt           time.Time  `json:"created_at"`
}

func newFactSummaryJSON(f memory.FactSummary) factSummaryJSON {
	return factSummaryJSON{
		ID: f.ID, Scope: f.Scope, EntityID: f.EntityID, Entity: f.Entity, Key: f.Key, Content: f.Content,
		Durability: string(f.Durability), Category: f.Category, Confidence: f.Confidence,
		EffectiveConfidence: f.EffectiveConfidence, Importance: f.Importance,
		ConfirmedAt: utc(f.ConfirmedAt), Deadline: utcPtr(f.Deadline), ForgetAt: utcPtr(f.ForgetAt),
		Status: string(f.Status), Source: f.Source, ExtractionCount: f.ExtractionCount, Version: f.Version,
		CreatedAt: utc(f.CreatedAt),
	}
}

// decisionJSON is a recorded decision.
type decisionJSON struct {
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
	// replaced this one; null while none has.
	SupersededBy *int64 `json:"superseded_by"`
}

func newDecisionJSON(d memory.Decision) decisionJSON {
	alts := d.Alternatives
	if alts == nil {
		alts = []string{}
	}
	return decisionJSON{
		ID: d.ID, FactID: d.FactID, Scope: d.Scope, EntityID: d.EntityID, Entity: d.Entity, Key: d.Key,
		Decision: d.Decision, Alternatives: alts, Reasoning: d.Reasoning, DecidedBy: d.DecidedBy,
		DecidedAt: utc(d.DecidedAt), DoNotReopen: d.DoNotReopen, ReopenedAt: utcPtr(d.ReopenedAt),
		ReopenedBy: d.ReopenedBy, ReopenReason: d.ReopenReason, Version: d.Version,
		CreatedAt: utc(d.CreatedAt), UpdatedAt: utc(d.UpdatedAt), SupersededBy: d.SupersededBy,
	}
}

// pushNoteJSON is a warning about one pushed row: decision_locked (the row
// names the entity and key of a locked decision, which consolidation will
// refuse it for) with the decision, or duplicate (the row repeats a live
// fact word for word, which consolidation will reinforce instead) with the
// fact, or forgotten (the row was observed so long ago that its fact is
// already past its forget date) with that date.
type pushNoteJSON struct {
	Row        int        `json:"row"`
	Code       string     `json:"code"`
	Message    string     `json:"message"`
	DecisionID *int64     `json:"decision_id,omitempty"`
	Decision   string     `json:"decision,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`
	FactID     *int64     `json:"fact_id,omitempty"`
	ForgetAt   *time.Time `json:"forget_at,omitempty"`
}

func newPushNotesJSON(notes []memory.PushNote) []pushNoteJSON {
	out := make([]pushNoteJSON, len(notes))
	for i, n := range notes {
		out[i] = pushNoteJSON{Row: n.Row, Code: n.Code, Message: n.Message, Decision: n.Decision, Reasoning: n.Reasoning,
			ForgetAt: utcPtr(n.ForgetAt)}
		if n.DecisionID != 0 {
			out[i].DecisionID = pointerTo(n.DecisionID)
		}
		if n.FactID != 0 {
			out[i].FactID = pointerTo(n.FactID)
		}
	}
	return out
}

func newPushResponse(r memory.PushResult) pushResponse {
	ids := r.IDs
	if ids == nil {
		ids = []int64{}
	}
	return pushResponse{IDs: ids, Notes: newPushNotesJSON(r.Notes)}
}

// nodeJSON is a working row. Durability is its marker (durable when the row
// has none, which DurabilityExplicit tells); Metadata and Properties are
// what was pushed, without the marker.
type nodeJSON struct {
	ID                 int64          `json:"id"`
	Scope              string         `json:"scope"`
	Content            string         `json:"content"`
	Durability         string         `json:"durability"`
	DurabilityExplicit bool           `json:"durability_explicit"`
	Metadata           map[string]any `json:"metadata"`
	Properties         map[string]any `json:"properties"`
	Importance         float64        `json:"importance"`
	TTLSeconds         *int32         `json:"ttl_seconds"`
	CreatedAt          time.Time      `json:"created_at"`
	ObservedAt         time.Time      `json:"observed_at"`
	PromotedAt         *time.Time     `json:"promoted_at"`
	PromotedFactID     *int64         `json:"promoted_fact_id"`
	PromotedRunID      *int64         `json:"promoted_run_id"`
}

func newNodeJSON(n memory.Node) nodeJSON {
	props := maps.Clone(n.Properties)
	if props == nil {
		props = map[string]any{}
	}
	delete(props, "durability")
	meta, _ := props["metadata"].(map[string]any)
	delete(props, "metadata")
	if meta == nil {
		meta = map[string]any{}
	}
	return nodeJSON{
		ID: n.ID, Scope: n.Scope, Content: n.Content, Durability: string(n.Marker),
		DurabilityExplicit: n.MarkerExplicit, Metadata: meta, Properties: props, Importance: n.Importance,
		TTLSeconds: n.TTLSeconds, CreatedAt: utc(n.CreatedAt), ObservedAt: utc(n.ObservedAt), PromotedAt: utcPtr(n.PromotedAt),
		PromotedFactID: n.PromotedFactID, PromotedRunID: n.PromotedRunID,
	}
}

// runJSON is a consolidation run and its report.
type runJSON struct {
	ID                int64          `json:"id"`
	Trigger           string         `json:"trigger"`
	Status            string         `json:"status"`
	StartedAt         time.Time      `json:"started_at"`
	FinishedAt        *time.Time     `json:"finished_at"`
	Phase             *int16         `json:"phase"`
	Phases            []runPhaseJSON `json:"phases"`
	TransientRejected int            `json:"transient_rejected"`
	ExpiredRejected   int            `json:"expired_rejected"`
	DecisionLocked    int            `json:"decision_locked"`
	// SetAside counts the working rows the run set aside after a failure of
	// their own (status partial), to be retried from the console.
	SetAside int    `json:"set_aside"`
	Error    string `json:"error"`
	// Scope is the one scope the run consolidated, null for a run of every
	// scope (of which a token reads only its own scope's refusals).
	Scope *string `json:"scope"`
}

// runPhaseJSON is one phase's counts of outcomes, such as promoted or
// transient_rejected.
type runPhaseJSON struct {
	Phase  int            `json:"phase"`
	Name   string         `json:"name"`
	Counts map[string]int `json:"counts"`
}

func newRunJSON(r memory.Run) runJSON {
	out := runJSON{
		ID: r.ID, Trigger: r.Trigger, Status: r.Status, StartedAt: utc(r.StartedAt),
		FinishedAt: utcPtr(r.FinishedAt), Phase: r.Phase, Phases: []runPhaseJSON{},
		TransientRejected: r.TransientRejected, ExpiredRejected: r.ExpiredRejected,
		DecisionLocked: r.DecisionLocked, SetAside: r.SetAside, Error: r.Error, Scope: r.Scope,
	}
	for _, p := range memory.PhaseOrder {
		counts := r.Report[itoa(int64(p))]
		if counts == nil {
			counts = map[string]int{}
		}
		out.Phases = append(out.Phases, runPhaseJSON{Phase: p, Name: memory.PhaseName(p), Counts: counts})
	}
	return out
}

// rejectionJSON is one refused write.
type rejectionJSON struct {
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

func newRejectionJSON(r memory.Rejection) rejectionJSON {
	out := rejectionJSON{
		ID: r.ID, RunID: r.RunID, Phase: r.Phase, NodeID: r.NodeID, Scope: r.Scope, Reason: r.Reason,
		Source: r.Source, Content: r.Content, Properties: r.Properties, DecisionID: r.DecisionID,
		CreatedAt: utc(r.CreatedAt),
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
