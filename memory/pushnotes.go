package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// A push is answered honestly: a durable row that names the entity and key
// of a locked decision will be refused by consolidation, and a row that
// repeats a live fact word for word will only reinforce it. The push says so
// for that row at once, instead of the refusal appearing in a later run's
// log; with Strict, such a batch is refused and nothing is written.

// The codes of a push note.
const (
	NoteDecisionLocked = "decision_locked"
	NoteDuplicate      = "duplicate"
)

// PushNote is a warning about one pushed row.
type PushNote struct {
	Row        int    `json:"row"` // the row's index in the batch
	Code       string `json:"code"`
	Message    string `json:"message"`
	DecisionID int64  `json:"decision_id,omitempty"`
	Decision   string `json:"decision,omitempty"`
	Reasoning  string `json:"reasoning,omitempty"`
	FactID     int64  `json:"fact_id,omitempty"`
}

// PushOptions tune a push.
type PushOptions struct {
	// Strict refuses the whole batch (CodeConflict, nothing written) when
	// any row would get a note.
	Strict bool
}

// PushResult is what a push wrote and what it has to say about the rows.
type PushResult struct {
	IDs   []int64    `json:"ids"`
	Notes []PushNote `json:"notes"`
}

// PushNoted is Push that also answers, row by row, the writes that a locked
// decision will refuse and the rows that repeat a live fact.
func (s *Store) PushNoted(ctx context.Context, actor Actor, scope string, nodes []NewNode, opts PushOptions) (PushResult, error) {
	res := PushResult{Notes: []PushNote{}}
	var notes []PushNote
	err := s.pushTx(ctx, actor, scope, nodes, func(q *queries.Queries, tx pgx.Tx) error {
		var err error
		notes, err = s.pushNotes(ctx, q, scope, nodes)
		if err != nil {
			return err
		}
		if opts.Strict && len(notes) > 0 {
			n := notes[0]
			field := "key"
			if len(nodes) > 1 {
				field = fmt.Sprintf("nodes[%d].key", n.Row)
			}
			msg := n.Message + "; strict is set, so nothing of the batch was written"
			if len(notes) > 1 {
				msg += fmt.Sprintf(" (%d rows have such notes)", len(notes))
			}
			return &Error{Code: CodeConflict, Field: field, Message: msg}
		}
		return nil
	}, &res.IDs)
	if err != nil {
		return PushResult{}, err
	}
	res.Notes = append(res.Notes, notes...)
	return res, nil
}

// pushNotes looks up, for the durable rows that name an entity and a key,
// the locked decision and the identical live fact on that key.
func (s *Store) pushNotes(ctx context.Context, q *queries.Queries, scope string, nodes []NewNode) ([]PushNote, error) {
	var p queries.PushNotesParams
	p.Scope = scope
	for i, n := range nodes {
		entity, _ := n.Properties["entity"].(string)
		key, _ := n.Properties["key"].(string)
		entity, key = strings.TrimSpace(entity), strings.TrimSpace(key)
		// Only rows consolidation may promote: no marker, or durable (the
		// batch is validated, so markerOf cannot fail here).
		if m, _ := markerOf(n); entity == "" || key == "" || (m != "" && m != MarkerDurable) {
			continue
		}
		p.Rows = append(p.Rows, int32(i))
		p.Entities = append(p.Entities, entity)
		p.Keys = append(p.Keys, key)
		p.Contents = append(p.Contents, n.Content)
	}
	if len(p.Rows) == 0 {
		return nil, nil
	}
	rows, err := q.PushNotes(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("push notes: %w", err)
	}
	var notes []PushNote
	for _, r := range rows {
		if r.DecisionID != 0 {
			notes = append(notes, PushNote{Row: int(r.RowNo), Code: NoteDecisionLocked, DecisionID: r.DecisionID,
				Decision: r.Decision, Reasoning: r.Reasoning, Message: fmt.Sprintf(
					"this row names the key of locked decision %d (%q, because %s): consolidation will refuse it; "+
						"a person can reopen the decision in the console", r.DecisionID, r.Decision, r.Reasoning)})
			continue
		}
		notes = append(notes, PushNote{Row: int(r.RowNo), Code: NoteDuplicate, FactID: r.FactID, Message: fmt.Sprintf(
			"this row repeats live fact %d word for word: consolidation will reinforce that fact, not add one", r.FactID)})
	}
	return notes, nil
}
