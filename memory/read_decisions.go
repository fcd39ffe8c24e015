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

// listWalk is one row of a walk over the newest rows of a list: its id,
// whether it passes every filter, and whether it is the walk's last row.
type listWalk struct {
	ID   int64
	Hit  bool
	Last bool
}

// walkThenSearch picks the ids of one page of a list, newest first, as the
// fact list does: walk reads the newest rows passing the cheap filters, at
// most factsWalkRows(want) of them, and marks those passing every filter;
// when they fill fewer than want rows and older rows remain, search returns
// the rest below the walk's last row, found through the indexes of the
// filters. Each step reads a bounded number of rows: the walk its cap, the
// search the matches below the walk, which are few whenever the walk came
// back short.
func walkThenSearch(want int32, walk func(rows int32) ([]listWalk, error),
	search func(before int64, rows int32) ([]int64, error)) ([]int64, error) {
	walked, err := walk(factsWalkRows(want))
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, want)
	var walkEnd int64
	for _, r := range walked {
		if r.Hit && int32(len(ids)) < want {
			ids = append(ids, r.ID)
		}
		if r.Last {
			walkEnd = r.ID
		}
	}
	if int32(len(ids)) < want && walkEnd != 0 {
		more, err := search(walkEnd, want-int32(len(ids)))
		if err != nil {
			return nil, err
		}
		ids = append(ids, more...)
	}
	return ids, nil
}
