package memory

import (
	"context"
	"fmt"
)

// CountRefusals counts, for each of the decisions, the writes refused
// against it; a decision without refusals is absent from the map.
func (s *Store) CountRefusals(ctx context.Context, decisionIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(decisionIDs) == 0 {
		return out, nil
	}
	rows, err := s.q.CountRefusalsForDecisions(ctx, decisionIDs)
	if err != nil {
		return nil, fmt.Errorf("count refusals: %w", err)
	}
	for _, r := range rows {
		out[r.DecisionID] = r.Refusals
	}
	return out, nil
}

// DecisionsOfFacts returns, for each of the facts that records a decision,
// that decision's id (a fact records at most one); the other facts are
// absent from the map.
func (s *Store) DecisionsOfFacts(ctx context.Context, factIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(factIDs) == 0 {
		return out, nil
	}
	rows, err := s.q.DecisionsBackingFacts(ctx, factIDs)
	if err != nil {
		return nil, fmt.Errorf("decisions of facts: %w", err)
	}
	for _, r := range rows {
		out[r.FactID] = r.ID
	}
	return out, nil
}
