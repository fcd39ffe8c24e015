package wire

import (
	"time"

	"github.com/tenurehq/tenure/memory"
)

// Recall is the answer to a recall: the facts that answer the query, best
// first.
type Recall struct {
	Query   string         `json:"query"`
	Results []RecallResult `json:"results"`
}

// RecallResult is one recalled fact. Score is relevance times the fact's
// effective confidence now, what results are ranked by; a decision's fact
// carries the decision, with its reasoning. A pending result is a durable
// working row not consolidated yet: NodeID is the row's id, and Fact the
// fact consolidation plans to make of it (id 0).
type RecallResult struct {
	Fact                Fact      `json:"fact"`
	EffectiveConfidence float64   `json:"effective_confidence"`
	Relevance           float64   `json:"relevance"`
	Score               float64   `json:"score"`
	Decision            *Decision `json:"decision"`
	Pending             bool      `json:"pending"`
	NodeID              *int64    `json:"node_id"`
}

// NewRecall is the answer to query.
func NewRecall(query string, results []memory.RecallResult) Recall {
	out := Recall{Query: query, Results: make([]RecallResult, len(results))}
	for i, r := range results {
		out.Results[i] = RecallResult{
			Fact: NewFact(r.Fact), EffectiveConfidence: r.Fact.EffectiveConfidence,
			Relevance: r.Relevance, Score: r.Score, Pending: r.Pending,
		}
		if r.Pending {
			out.Results[i].NodeID = &r.NodeID
		}
		if r.Decision != nil {
			d := NewDecision(*r.Decision)
			out.Results[i].Decision = &d
		}
	}
	return out
}

// Brief is the context brief: what an agent must not forget at the start of
// a turn, within a budget of characters. Text is the same brief as a block
// ready to paste into a prompt; Used counts its characters and never
// exceeds Budget. AsOf is when it was read, the since of the next brief.
// Asked with since, it is only what changed after that time: Since and
// Changes are then present and the four lists empty.
type Brief struct {
	memory.Brief
	Since   *time.Time     `json:"since,omitempty"`
	Changes *[]BriefChange `json:"changes,omitempty"`
	Text    string         `json:"text"`
}

// BriefChange is one change since the time a brief was asked with: a new
// fact, a fact superseded or archived, a decision recorded, reopened or
// locked again. FactID is null for a decision's change, DecisionID for a
// fact's.
type BriefChange struct {
	Kind       string    `json:"kind"`
	FactID     *int64    `json:"fact_id"`
	DecisionID *int64    `json:"decision_id"`
	Entity     string    `json:"entity"`
	Key        string    `json:"key"`
	Content    string    `json:"content"`
	Category   string    `json:"category"`
	Reason     string    `json:"reason"`
	At         time.Time `json:"at"`
}

// NewBrief is b as the surfaces show it.
func NewBrief(b memory.Brief) Brief {
	out := Brief{Brief: b, Text: b.Text(), Since: UTCPtr(b.Since)}
	out.AsOf = UTC(b.AsOf)
	out.Decisions = make([]memory.BriefDecision, len(b.Decisions))
	for i, d := range b.Decisions {
		d.Alternatives = orEmpty(d.Alternatives)
		d.DecidedAt = UTC(d.DecidedAt)
		out.Decisions[i] = d
	}
	for _, items := range []*[]memory.BriefItem{&out.Obligations, &out.States, &out.Facts} {
		utcItems := make([]memory.BriefItem, len(*items))
		for i, it := range *items {
			it.Deadline = UTCPtr(it.Deadline)
			it.ConfirmedAt = UTC(it.ConfirmedAt)
			utcItems[i] = it
		}
		*items = utcItems
	}
	if b.Since != nil {
		changes := make([]BriefChange, len(b.Changes))
		for i, ch := range b.Changes {
			changes[i] = BriefChange{Kind: ch.Kind, Entity: ch.Entity, Key: ch.Key, Content: ch.Content,
				Category: ch.Category, Reason: ch.Reason, At: UTC(ch.At),
				FactID: nonZero(ch.FactID), DecisionID: nonZero(ch.DecisionID)}
		}
		out.Changes = &changes
	}
	return out
}
