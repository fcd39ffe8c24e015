package memory

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tenurehq/tenure/queries"
)

// RecallQuery asks for the facts of one scope that answer a query.
type RecallQuery struct {
	Scope string // required
	// Query is a full-text query in web search syntax ("postgres -mysql",
	// "\"exact phrase\"", "a or b"); empty ranks by confidence alone.
	Query      string
	Category   string // optional: only facts of this category
	Durability string // optional: only facts of this durability
	Entity     string // optional: only facts about the entity with this name
	Limit      int    // default 10, at most 100
}

// RecallResult is one recalled fact and why it ranks where it does.
type RecallResult struct {
	// Fact carries EffectiveConfidence, the decayed confidence now.
	Fact Fact `json:"fact"`
	// Relevance is the text match's ts_rank_cd (1 when the query is empty).
	Relevance float64 `json:"relevance"`
	// Score is relevance × effective confidence, what results are ranked by.
	Score float64 `json:"score"`
	// Decision is set for facts of category decision: what was decided, the
	// alternatives considered and the reasoning.
	Decision *Decision `json:"decision,omitempty"`
}

// Limits of a recall.
const (
	defaultRecallLimit = 10
	maxRecallLimit     = 100
	maxRecallQuery     = 1000
)

// recallParams is a validated RecallQuery in the shape of the queries'
// parameters.
type recallParams struct {
	scope                        string
	query                        string
	entity, category, durability *string
	limit                        int32
}

func (rq RecallQuery) validate() (recallParams, error) {
	var p recallParams
	var err error
	if strings.TrimSpace(rq.Scope) == "" {
		return p, Invalidf("scope", "the scope is empty: recall reads one scope, named by 1 to 63 lowercase letters, digits, '_', '.', ':' or '-'")
	}
	if p.scope, err = ParseScope(rq.Scope); err != nil {
		return p, err
	}
	p.query = strings.TrimSpace(rq.Query)
	if n := utf8.RuneCountInString(p.query); n > maxRecallQuery {
		return p, Invalidf("query", "the query is %d characters long: at most %d are allowed", n, maxRecallQuery)
	}
	if c := strings.TrimSpace(rq.Category); c != "" {
		if _, err := ParseCategory(c); err != nil {
			return p, Invalidf("category", "invalid category %q: use a lowercase slug such as %s", c, strings.Join(SuggestedCategories(), ", "))
		}
		p.category = &c
	}
	if d := strings.TrimSpace(rq.Durability); d != "" {
		if _, err := ParseDurability(d); err != nil {
			return p, err
		}
		p.durability = &d
	}
	if e := strings.TrimSpace(rq.Entity); e != "" {
		if n := utf8.RuneCountInString(e); n > maxEntityName {
			return p, Invalidf("entity", "the entity name is %d characters long: at most %d are allowed", n, maxEntityName)
		}
		p.entity = &e
	}
	switch {
	case rq.Limit == 0:
		p.limit = defaultRecallLimit
	case rq.Limit < 0 || rq.Limit > maxRecallLimit:
		return p, Invalidf("limit", "limit %d is out of range: use 1 to %d (default %d)", rq.Limit, maxRecallLimit, defaultRecallLimit)
	default:
		p.limit = int32(rq.Limit)
	}
	return p, nil
}

// Recall returns the live facts of q.Scope that answer q, best first. With a
// query, facts match by PostgreSQL full-text search and rank by relevance
// times their effective confidence now, so a faded fact ranks below a
// confident one that matches as well; without one, they rank by effective
// confidence alone. Archived facts are left out, and so are facts past their
// forget_at, which decay is about to archive. Facts that record decisions
// come with their decision (reasoning, alternatives, lock).
func (s *Store) Recall(ctx context.Context, q RecallQuery) ([]RecallResult, error) {
	p, err := q.validate()
	if err != nil {
		return nil, err
	}
	now := s.Now()
	var rows []queries.RecallSearchRow
	if p.query != "" {
		rows, err = s.q.RecallSearch(ctx, queries.RecallSearchParams{
			Now: now, Query: p.query, Scope: p.scope, Entity: p.entity, Category: p.category,
			Durability: p.durability, MaxRows: p.limit,
		})
	} else {
		var ranked []queries.RecallByConfidenceRow
		ranked, err = s.q.RecallByConfidence(ctx, queries.RecallByConfidenceParams{
			Now: now, Scope: p.scope, Entity: p.entity, Category: p.category,
			Durability: p.durability, MaxRows: p.limit,
		})
		rows = make([]queries.RecallSearchRow, len(ranked))
		for i, r := range ranked {
			rows[i] = queries.RecallSearchRow(r)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	out := make([]RecallResult, len(rows))
	var decisionFacts []int64
	byFact := make(map[int64]int, len(rows))
	for i, r := range rows {
		out[i] = RecallResult{Fact: newFact(recallFactRow(r)), Relevance: r.Relevance, Score: r.Score}
		if r.Category == CategoryDecision {
			decisionFacts = append(decisionFacts, r.ID)
			byFact[r.ID] = i
		}
	}
	if len(decisionFacts) > 0 {
		ds, err := s.q.DecisionsOfFacts(ctx, decisionFacts)
		if err != nil {
			return nil, fmt.Errorf("recall: decisions: %w", err)
		}
		for _, d := range ds {
			dec := newDecision(decisionRow(d))
			out[byFact[d.FactID]].Decision = &dec
		}
	}
	return out, nil
}

func recallFactRow(r queries.RecallSearchRow) factRow {
	return factRow{
		ID: r.ID, Scope: r.Scope, EntityID: r.EntityID, EntityName: r.EntityName, Key: r.Key,
		Content: r.Content, Durability: r.Durability, Category: r.Category, Confidence: r.Confidence,
		Importance: r.Importance, ConfirmedAt: r.ConfirmedAt, ExpiresAt: r.ExpiresAt,
		Deadline: r.Deadline, ForgetAt: r.ForgetAt, Status: r.Status, ArchivedAt: r.ArchivedAt,
		ArchiveReason: r.ArchiveReason, Source: r.Source, SourceNodeID: r.SourceNodeID,
		ExtractionCount: r.ExtractionCount, Version: r.Version, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, EffectiveConfidence: r.EffectiveConfidence,
	}
}
