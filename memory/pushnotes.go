package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

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
	// NoteForgotten is a row observed so long ago that the fact it becomes
	// is already past its forget date: consolidation promotes it, and the
	// decay job archives it as decayed at once (restorable).
	NoteForgotten = "forgotten"
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
	// ForgetAt is, for a forgotten note, when the row's fact was forgotten.
	ForgetAt *time.Time `json:"forget_at,omitempty"`
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
			switch key, _ := nodes[n.Row].Properties["key"].(string); {
			case n.Code == NoteForgotten:
				field = "observed_at"
			case strings.TrimSpace(key) == "":
				field = "content" // a repeat found by its text alone
			}
			if len(nodes) > 1 {
				field = fmt.Sprintf("nodes[%d].%s", n.Row, field)
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
// the locked decision and the identical live fact on that key, and for the
// durable rows observed in the past whether their fact is already forgotten.
func (s *Store) pushNotes(ctx context.Context, q *queries.Queries, scope string, nodes []NewNode) ([]PushNote, error) {
	entities, err := noteEntities(ctx, q, scope, nodes)
	if err != nil {
		return nil, err
	}
	notes, err := s.keyNotes(ctx, q, scope, nodes, entities)
	if err != nil {
		return nil, err
	}
	noted := map[int]bool{}
	for _, n := range notes {
		noted[n.Row] = true
	}
	reopen, err := topicNotes(ctx, q, scope, nodes, noted, s.Now())
	if err != nil {
		return nil, err
	}
	notes = append(notes, reopen...)
	repeats, err := s.contentNotes(ctx, q, scope, nodes, entities)
	if err != nil {
		return nil, err
	}
	notes = append(notes, repeats...)
	forgotten, err := s.forgottenNotes(ctx, q, scope, nodes)
	if err != nil {
		return nil, err
	}
	notes = append(notes, forgotten...)
	slices.SortStableFunc(notes, func(a, b PushNote) int { return cmp.Compare(a.Row, b.Row) })
	return notes, nil
}

// contentNotes notes the durable rows that name no key and repeat a live
// fact of the scope word for word (about the entity they name, when they
// name one): a repeat is a repeat whether or not its writer knew the key.
func (s *Store) contentNotes(ctx context.Context, q *queries.Queries, scope string, nodes []NewNode, entities []string) ([]PushNote, error) {
	var p queries.PushContentNotesParams
	p.Scope = scope
	for i, n := range nodes {
		key, _ := n.Properties["key"].(string)
		if m, _ := markerOf(n); strings.TrimSpace(key) != "" || (m != "" && m != MarkerDurable) {
			continue
		}
		p.Rows = append(p.Rows, int32(i))
		p.Entities = append(p.Entities, entities[i])
		p.Contents = append(p.Contents, n.Content)
	}
	if len(p.Rows) == 0 {
		return nil, nil
	}
	rows, err := q.PushContentNotes(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("push notes: %w", err)
	}
	notes := make([]PushNote, len(rows))
	for i, r := range rows {
		notes[i] = PushNote{Row: int(r.RowNo), Code: NoteDuplicate, FactID: r.FactID, Message: fmt.Sprintf(
			"this row repeats live fact %d (entity %q, key %q) word for word; name that entity and key to have "+
				"consolidation reinforce the fact rather than write the row as another", r.FactID, r.EntityName, r.FactKey)}
	}
	return notes, nil
}

// forgottenNotes notes the durable rows of a push observed so long ago that
// the fact consolidation plans to make of each (as its classifier and the
// row's properties say, confirmed when the row was observed) is already past
// its forget date. Only rows that say when they were observed in the past
// are planned: a live push costs nothing here.
func (s *Store) forgottenNotes(ctx context.Context, q *queries.Queries, scope string, nodes []NewNode) ([]PushNote, error) {
	now := s.Now()
	var p queries.ForgetDatesParams
	for i, n := range nodes {
		if n.ObservedAt == nil || !n.ObservedAt.Before(now) {
			continue
		}
		if m, _ := markerOf(n); m != "" && m != MarkerDurable {
			continue
		}
		props, err := nodeProperties(n)
		if err != nil {
			return nil, err
		}
		plan := planNode(queries.PeekPendingNodesRow{Scope: scope, Content: strings.TrimSpace(n.Content), Properties: props,
			Marker: string(MarkerDurable), CreatedAt: now, ObservedAt: *n.ObservedAt}, now)
		if plan.decision || plan.denies != "" {
			continue // decisions never decay; a denial becomes no current fact (retract.go)
		}
		p.Rows = append(p.Rows, int32(i))
		p.Durabilities = append(p.Durabilities, string(plan.durability))
		p.Categories = append(p.Categories, plan.category)
		p.Confidences = append(p.Confidences, plan.confidence)
		p.Deadlines = append(p.Deadlines, plan.deadline)
		p.ObservedAts = append(p.ObservedAts, n.ObservedAt.UTC())
	}
	if len(p.Rows) == 0 {
		return nil, nil
	}
	rows, err := q.ForgetDates(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("push notes: forget dates: %w", err)
	}
	var notes []PushNote
	for _, r := range rows {
		if r.ForgetAt.After(now) {
			continue
		}
		at := r.ForgetAt.UTC()
		i := int(r.RowNo)
		notes = append(notes, PushNote{Row: i, Code: NoteForgotten, ForgetAt: &at, Message: fmt.Sprintf(
			"this row was observed at %s: the %s %s it becomes was forgotten at %s (its confidence fell below the floor), "+
				"so consolidation will promote it and archive it as decayed at once; it stays restorable",
			nodes[i].ObservedAt.UTC().Format(time.RFC3339), p.Durabilities[indexOf(p.Rows, r.RowNo)],
			p.Categories[indexOf(p.Rows, r.RowNo)], at.Format(time.RFC3339))})
	}
	return notes, nil
}

func indexOf(rows []int32, row int32) int {
	i, _ := slices.BinarySearch(rows, row)
	return i
}

// noteEntities is, for each row of a push, the entity it names as the
// scope's entity of that name (entities.go), "" for a row that names none
// or will never be promoted: one look-up for all the push's notes.
func noteEntities(ctx context.Context, q *queries.Queries, scope string, nodes []NewNode) ([]string, error) {
	out := make([]string, len(nodes))
	var rows []int
	var scopes, names []string
	for i, n := range nodes {
		entity, _ := n.Properties["entity"].(string)
		if m, _ := markerOf(n); strings.TrimSpace(entity) == "" || (m != "" && m != MarkerDurable) {
			continue
		}
		rows, scopes, names = append(rows, i), append(scopes, scope), append(names, strings.TrimSpace(entity))
	}
	if len(rows) == 0 {
		return out, nil
	}
	names, err := canonicalEntities(ctx, q, scopes, names)
	if err != nil {
		return nil, fmt.Errorf("push notes: %w", err)
	}
	for j, i := range rows {
		out[i] = names[j]
	}
	return out, nil
}

// keyNotes looks up, for the durable rows that name an entity and a key,
// the locked decision and the identical live fact on that key.
func (s *Store) keyNotes(ctx context.Context, q *queries.Queries, scope string, nodes []NewNode, entities []string) ([]PushNote, error) {
	var p queries.PushNotesParams
	p.Scope = scope
	for i, n := range nodes {
		key, _ := n.Properties["key"].(string)
		key = CanonicalKey(strings.TrimSpace(key))
		// Only rows consolidation may promote: no marker, or durable (the
		// batch is validated, so markerOf cannot fail here).
		if m, _ := markerOf(n); entities[i] == "" || key == "" || (m != "" && m != MarkerDurable) {
			continue
		}
		p.Rows = append(p.Rows, int32(i))
		p.Entities = append(p.Entities, entities[i])
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
