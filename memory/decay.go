package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// decayBatch is how many due facts one decay transaction archives.
const decayBatch = 1000

// DecayReport says what a decay pass did.
type DecayReport struct {
	At       time.Time `json:"at"`
	Archived int       `json:"archived"`
	Batches  int       `json:"batches"`
}

// Decay archives every active fact whose forget_at has passed: its effective
// confidence fell below its policy's floor, or its expires_at came. Facts are
// never deleted. The work follows the facts due, not the table: each batch
// reads the forget_at index. One audit row per batch lists the facts.
//
// An obligation past its deadline is never archived here, however far it
// decayed: it stays active, listed as overdue, until a person marks it done
// or lets it go, or keeps it (obligations.go). An obligation without a
// deadline decays like any fact, and one whose expires_at comes before its
// deadline expires then.
func (s *Store) Decay(ctx context.Context, actor Actor) (DecayReport, error) {
	rep := DecayReport{At: s.Now()}
	for {
		n, err := s.decayBatch(ctx, actor, rep.At, nil)
		if err != nil {
			return rep, err
		}
		rep.Archived += n
		if n > 0 {
			rep.Batches++
		}
		if n < decayBatch {
			// The tick also folds the document frequencies recall reads:
			// a failure there loses nothing, and the next tick folds.
			if err := s.FoldRecallTerms(ctx); err != nil {
				s.logger.Warn("decay.fold_recall_terms", "error", err.Error())
			}
			return rep, nil
		}
	}
}

// decayBatch archives one batch of due facts in its own transaction.
func (s *Store) decayBatch(ctx context.Context, actor Actor, now time.Time, runID *int64) (int, error) {
	var n int
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		rows, err := q.ArchiveDueFacts(ctx, queries.ArchiveDueFactsParams{Now: now, BatchSize: decayBatch})
		if err != nil {
			return fmt.Errorf("decay: %w", err)
		}
		n = len(rows)
		if n == 0 {
			return nil
		}
		ids := make([]int64, n)
		for i, r := range rows {
			ids[i] = r.ID
		}
		after := map[string]any{"status": "archived", "facts": ids}
		if runID != nil {
			after["run_id"] = *runID
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.decay", targetType: "facts", targetID: fmt.Sprint(ids[0]),
			after: after, reason: "effective confidence fell below the floor, or the fact expired",
		})
	})
	if err != nil {
		return 0, err
	}
	s.metrics.Archived(n)
	return n, nil
}
