package wire

import (
	"maps"
	"time"

	"github.com/tenurehq/tenure/memory"
)

// Node is a working row. Durability is its marker (durable when the row has
// none, which DurabilityExplicit tells); Metadata and Properties are what
// was pushed, without the marker.
type Node struct {
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

// NewNode is n as the surfaces show it.
func NewNode(n memory.Node) Node {
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
	return Node{
		ID: n.ID, Scope: n.Scope, Content: n.Content, Durability: string(n.Marker),
		DurabilityExplicit: n.MarkerExplicit, Metadata: meta, Properties: props, Importance: n.Importance,
		TTLSeconds: n.TTLSeconds, CreatedAt: UTC(n.CreatedAt), ObservedAt: UTC(n.ObservedAt), PromotedAt: UTCPtr(n.PromotedAt),
		PromotedFactID: n.PromotedFactID, PromotedRunID: n.PromotedRunID,
	}
}

// PushNote is a warning about one pushed row: decision_locked (the row
// names the entity and key of a locked decision, which consolidation will
// refuse it for) with the decision, or duplicate (the row repeats a live
// fact word for word, which consolidation will reinforce instead) with the
// fact, or forgotten (the row was observed so long ago that its fact is
// already past its forget date) with that date. Row is the row's index in
// the push (the candidate's in an extraction).
type PushNote struct {
	Row        int        `json:"row"`
	Code       string     `json:"code"`
	Message    string     `json:"message"`
	DecisionID *int64     `json:"decision_id,omitempty"`
	Decision   string     `json:"decision,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`
	FactID     *int64     `json:"fact_id,omitempty"`
	ForgetAt   *time.Time `json:"forget_at,omitempty"`
}

// NewPushNotes is notes as the surfaces show them; never nil.
func NewPushNotes(notes []memory.PushNote) []PushNote {
	out := make([]PushNote, len(notes))
	for i, n := range notes {
		out[i] = PushNote{Row: n.Row, Code: n.Code, Message: n.Message, Decision: n.Decision, Reasoning: n.Reasoning,
			DecisionID: nonZero(n.DecisionID), FactID: nonZero(n.FactID), ForgetAt: UTCPtr(n.ForgetAt)}
	}
	return out
}

// Push is the answer to a push: the ids of the rows written, in order, and
// the notes on them. Notes is always present, empty when there is nothing
// to say.
type Push struct {
	IDs   []int64    `json:"ids"`
	Notes []PushNote `json:"notes"`
}

// NewPush is r as the surfaces show it.
func NewPush(r memory.PushResult) Push {
	return Push{IDs: orEmpty(r.IDs), Notes: NewPushNotes(r.Notes)}
}
