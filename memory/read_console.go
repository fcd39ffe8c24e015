package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/tenurehq/tenure/queries"
)

// Scopes returns every scope that holds entities or working rows, sorted.
func (s *Store) Scopes(ctx context.Context) ([]string, error) {
	scopes, err := s.q.ListScopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list scopes: %w", err)
	}
	return scopes, nil
}

// ObligationFilter selects the active obligations to list.
type ObligationFilter struct {
	Scope string // "" for every scope
	Limit int32  // the most rows of each section; default 200, at most 1000
	// At is the moment that tells overdue from upcoming and that effective
	// confidences are computed for; zero means the store's now.
	At time.Time
}

// Obligation is an active fact of category obligation.
type Obligation struct {
	ID                  int64
	Scope               string
	Entity              string
	Key                 string
	Content             string
	Durability          Durability
	Confidence          float64 // at ConfirmedAt
	EffectiveConfidence float64 // at the filter's moment, after decay
	ConfirmedAt         time.Time
	Deadline            *time.Time // nil in the section without deadline
	ForgetAt            *time.Time
}

// Obligations are the active obligations in three sections.
type Obligations struct {
	Overdue    []Obligation // the deadline has passed: the oldest deadline first
	Upcoming   []Obligation // the deadline is ahead: the soonest first
	NoDeadline []Obligation // no deadline: the newest first
}

// The ends of time for the deadline ranges of the obligation sections.
var (
	obligationsBeginning = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	obligationsEnd       = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// ListObligations returns the active obligations matching f: overdue,
// upcoming and without a deadline, each section bounded by f.Limit, read
// in one snapshot, on a standby when the context routes reads (reads.go).
func (s *Store) ListObligations(ctx context.Context, f ObligationFilter) (Obligations, error) {
	var scope *string
	if f.Scope != "" {
		if _, err := ParseScope(f.Scope); err != nil {
			return Obligations{}, err
		}
		scope = &f.Scope
	}
	limit := f.Limit
	if limit == 0 {
		limit = 200
	}
	if limit < 0 || limit > 1000 {
		return Obligations{}, Invalidf("limit", "invalid limit %d: use a whole number from 1 to 1000", limit)
	}
	at := f.At
	if at.IsZero() {
		at = s.Now()
	}
	due := func(ctx context.Context, q *queries.Queries, from, before time.Time) ([]Obligation, error) {
		rows, err := q.ListObligationsDue(ctx, queries.ListObligationsDueParams{
			Now: at, DueFrom: from, DueBefore: before, Scope: scope, MaxRows: limit,
		})
		if err != nil {
			return nil, fmt.Errorf("list obligations: %w", err)
		}
		out := make([]Obligation, len(rows))
		for i, r := range rows {
			out[i] = Obligation{
				ID: r.ID, Scope: r.Scope, Entity: r.EntityName, Key: r.Key, Content: r.Content,
				Durability: Durability(r.Durability), Confidence: r.Confidence,
				EffectiveConfidence: r.EffectiveConfidence, ConfirmedAt: r.ConfirmedAt,
				Deadline: &r.Deadline, ForgetAt: r.ForgetAt,
			}
		}
		return out, nil
	}
	var out Obligations
	err := s.readSnapshot(ctx, func(ctx context.Context, q *queries.Queries) error {
		var err error
		if out.Overdue, err = due(ctx, q, obligationsBeginning, at); err != nil {
			return err
		}
		if out.Upcoming, err = due(ctx, q, at, obligationsEnd); err != nil {
			return err
		}
		rows, err := q.ListObligationsWithoutDeadline(ctx, queries.ListObligationsWithoutDeadlineParams{
			Now: at, Scope: scope, MaxRows: limit,
		})
		if err != nil {
			return fmt.Errorf("list obligations without deadline: %w", err)
		}
		out.NoDeadline = make([]Obligation, len(rows))
		for i, r := range rows {
			out.NoDeadline[i] = Obligation{
				ID: r.ID, Scope: r.Scope, Entity: r.EntityName, Key: r.Key, Content: r.Content,
				Durability: Durability(r.Durability), Confidence: r.Confidence,
				EffectiveConfidence: r.EffectiveConfidence, ConfirmedAt: r.ConfirmedAt, ForgetAt: r.ForgetAt,
			}
		}
		return nil
	})
	if err != nil {
		return Obligations{}, err
	}
	return out, nil
}

// OverviewOptions say how far ahead the overview looks and how much it
// lists.
type OverviewOptions struct {
	// At is the overview's moment; zero means the store's now.
	At time.Time
	// ForgetWithin lists the facts decay archives before At+ForgetWithin.
	ForgetWithin time.Duration
	// DueWithin lists the obligations due before At+DueWithin.
	DueWithin time.Duration
	// Rows bounds each list of facts and obligations; default 10.
	Rows int
	// Runs is how many of the newest consolidation runs to list; default 5.
	Runs int
}

// Overview is what memory holds at a glance: active facts by axes, what is
// about to be forgotten or is due, the last runs and the queues waiting for
// people. No count reads the rows it counts: the facts by axes, the pending
// working rows, the rows set aside and the open review items are sums of the
// net changes that statement-level triggers append to small tables of counts
// in the writing transaction (factAxes, pendingNodeCounts, console_counts),
// so each is exact at the reader's snapshot, never stale, and costs the same
// at a thousand rows or a million.
type Overview struct {
	// Axes counts the active facts per durability and category, in that
	// order; a pair without facts is absent.
	Axes []AxesCount
	// Forgetting are the active facts decay archives before the window's
	// end (those already due included), soonest first; MoreForgetting is
	// set when more than Rows are.
	Forgetting     []ForgettingFact
	MoreForgetting bool
	// Upcoming are the active obligations due in the window, soonest
	// first; Overdue those whose deadline has passed, the longest overdue
	// first.
	Upcoming     []DueObligation
	MoreUpcoming bool
	Overdue      []DueObligation
	MoreOverdue  bool
	// Runs are the newest consolidation runs, newest first.
	Runs []RunSummary
	// Pending counts the working rows not promoted yet by marker (a row
	// without one counts as durable); a marker without rows is absent.
	Pending map[Marker]int64
	// SetAside counts the rows consolidation set aside.
	SetAside FaultCounts
	// OpenReview counts the open review items by kind; a kind without
	// items is absent.
	OpenReview map[string]int64
}

// AxesCount is how many facts have one durability and one category.
type AxesCount struct {
	Durability Durability
	Category   string
	Facts      int64
}

// ForgettingFact is an active fact that decay is about to archive.
type ForgettingFact struct {
	ID                  int64
	Scope               string
	Entity              string
	Key                 string
	Content             string
	Durability          Durability
	Category            string
	ForgetAt            time.Time
	EffectiveConfidence float64 // at the overview's moment
}

// DueObligation is an active obligation with a deadline.
type DueObligation struct {
	ID       int64
	Scope    string
	Entity   string
	Key      string
	Content  string
	Deadline time.Time
}

// RunSummary is a consolidation run with its headline outcomes.
type RunSummary struct {
	ID                int64
	Trigger           string
	Status            string
	StartedAt         time.Time
	FinishedAt        *time.Time
	Promoted          int32 // rows promoted into new facts
	Reinforced        int32 // rows that reinforced a live fact
	Archived          int32 // facts decay archived
	TransientRejected int32
	ExpiredRejected   int32
	DecisionLocked    int32
	SetAside          int32
	Error             string
}

// Overview reads the overview as o says.
func (s *Store) Overview(ctx context.Context, o OverviewOptions) (Overview, error) {
	at := o.At
	if at.IsZero() {
		at = s.Now()
	}
	rowsMax := o.Rows
	if rowsMax <= 0 {
		rowsMax = 10
	}
	runsMax := o.Runs
	if runsMax <= 0 {
		runsMax = 5
	}
	// One more row than a list shows tells whether there are more.
	fetch := int32(rowsMax + 1)
	var v Overview
	var err error

	if v.Axes, err = s.factAxes(ctx); err != nil {
		return Overview{}, err
	}

	forgetting, err := s.q.OverviewForgettingSoon(ctx, queries.OverviewForgettingSoonParams{
		Now: at, Until: at.Add(o.ForgetWithin), MaxRows: fetch})
	if err != nil {
		return Overview{}, fmt.Errorf("overview: forgetting soon: %w", err)
	}
	if len(forgetting) > rowsMax {
		forgetting, v.MoreForgetting = forgetting[:rowsMax], true
	}
	for _, r := range forgetting {
		v.Forgetting = append(v.Forgetting, ForgettingFact{
			ID: r.ID, Scope: r.Scope, Entity: r.EntityName, Key: r.Key, Content: r.Content,
			Durability: Durability(r.Durability), Category: r.Category, ForgetAt: r.ForgetAt,
			EffectiveConfidence: r.EffectiveConfidence,
		})
	}

	upcoming, err := s.q.OverviewUpcomingObligations(ctx, queries.OverviewUpcomingObligationsParams{
		Now: at, Until: at.Add(o.DueWithin), MaxRows: fetch})
	if err != nil {
		return Overview{}, fmt.Errorf("overview: upcoming obligations: %w", err)
	}
	if len(upcoming) > rowsMax {
		upcoming, v.MoreUpcoming = upcoming[:rowsMax], true
	}
	for _, r := range upcoming {
		v.Upcoming = append(v.Upcoming, DueObligation{
			ID: r.ID, Scope: r.Scope, Entity: r.EntityName, Key: r.Key, Content: r.Content, Deadline: r.Deadline})
	}
	overdue, err := s.q.OverviewOverdueObligations(ctx, queries.OverviewOverdueObligationsParams{
		Now: at, MaxRows: fetch})
	if err != nil {
		return Overview{}, fmt.Errorf("overview: overdue obligations: %w", err)
	}
	if len(overdue) > rowsMax {
		overdue, v.MoreOverdue = overdue[:rowsMax], true
	}
	for _, r := range overdue {
		v.Overdue = append(v.Overdue, DueObligation{
			ID: r.ID, Scope: r.Scope, Entity: r.EntityName, Key: r.Key, Content: r.Content, Deadline: r.Deadline})
	}

	runs, err := s.q.OverviewRecentRuns(ctx, int32(runsMax))
	if err != nil {
		return Overview{}, fmt.Errorf("overview: recent runs: %w", err)
	}
	for _, r := range runs {
		run := RunSummary{
			ID: r.ID, Trigger: r.Trigger, Status: r.Status, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt,
			Promoted: r.Promoted, Reinforced: r.Reinforced, Archived: r.Archived,
			TransientRejected: r.TransientRejected, ExpiredRejected: r.ExpiredRejected,
			DecisionLocked: r.DecisionLocked, SetAside: r.SetAside,
		}
		if r.Error != nil {
			run.Error = *r.Error
		}
		v.Runs = append(v.Runs, run)
	}

	// From the counts triggers keep (pendingNodeCounts): exact, never stale.
	pending, err := s.pendingNodeCounts(ctx)
	if err != nil {
		return Overview{}, fmt.Errorf("overview: pending rows: %w", err)
	}
	v.Pending = make(map[Marker]int64, 3)
	for _, p := range pending {
		v.Pending[p.Marker] += p.Rows
	}

	if v.SetAside, err = s.CountFaults(ctx); err != nil {
		return Overview{}, err
	}

	review, err := s.q.OverviewOpenReviewByKind(ctx)
	if err != nil {
		return Overview{}, fmt.Errorf("overview: open review items: %w", err)
	}
	v.OpenReview = make(map[string]int64, len(review))
	for _, r := range review {
		v.OpenReview[r.Kind] += r.Items
	}
	s.foldConsoleCounts(ctx)
	return v, nil
}

// foldFactAxesAt is how many rows fact_axes_counts may hold before a reader
// folds them into one per (status, durability, category): summing that many
// takes well under a millisecond.
const foldFactAxesAt = 1000

// factAxes counts the active facts per durability and category. Counting
// them in entity_facts reads every active fact (over 100 ms at a million),
// so it sums fact_axes_counts instead, where statement-level triggers on
// entity_facts append each statement's net change in the same transaction:
// the counts are exact at the reader's snapshot, never stale. Writers only
// append, so they never wait for each other there; when the appended rows
// pile up past foldFactAxesAt, this reader folds them (one reader at a time,
// and a failed fold changes nothing but is retried by the next reader).
func (s *Store) factAxes(ctx context.Context) ([]AxesCount, error) {
	rows, err := s.q.OverviewFactAxes(ctx)
	if err != nil {
		return nil, fmt.Errorf("overview: facts by axes: %w", err)
	}
	var out []AxesCount
	var parts int64
	for _, r := range rows {
		parts += r.Parts
		if r.Status == string(StatusActive) && r.Facts != 0 {
			out = append(out, AxesCount{Durability: Durability(r.Durability), Category: r.Category, Facts: r.Facts})
		}
	}
	if parts > foldFactAxesAt {
		if err := s.foldFactAxes(ctx); err != nil {
			s.logger.Warn("overview.fold_fact_axes", "error", err.Error())
		}
	}
	return out, nil
}

// foldFactAxesLock is the first key of the two-key advisory locks a reader
// holds while it folds a table of counts (the second key names the table:
// foldFactAxesKey, foldPendingKey, foldConsoleKey, foldRecallKey); no other
// lock uses it.
const foldFactAxesLock = 7322

// The second keys of the fold locks.
const (
	foldFactAxesKey = 0
	foldPendingKey  = 1
	foldConsoleKey  = 2
	foldRecallKey   = 3
)

// foldFactAxes folds fact_axes_counts unless another reader is folding it.
func (s *Store) foldFactAxes(ctx context.Context) error {
	return s.foldUnderLock(ctx, foldFactAxesKey, (*queries.Queries).FoldFactAxesCounts)
}

// foldUnderLock runs fold in a transaction holding the fold lock of key,
// unless another reader holds it: then the other reader folds and this one
// does nothing.
func (s *Store) foldUnderLock(ctx context.Context, key int, fold func(*queries.Queries, context.Context) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var mine bool
	if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1, $2)", foldFactAxesLock, key).Scan(&mine); err != nil {
		return err
	}
	if !mine {
		return nil
	}
	if err := fold(s.q.WithTx(tx), ctx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// foldConsoleAt is how many rows console_counts may hold before the
// overview folds them into one per (counter, key).
const foldConsoleAt = 1000

// foldConsoleCounts folds console_counts once its rows pile up past
// foldConsoleAt; a failed fold changes nothing and is only logged, since
// the next overview tries again.
func (s *Store) foldConsoleCounts(ctx context.Context) {
	parts, err := s.q.ConsoleCountsParts(ctx)
	if err == nil && parts > foldConsoleAt {
		err = s.foldUnderLock(ctx, foldConsoleKey, (*queries.Queries).FoldConsoleCounts)
	}
	if err != nil {
		s.logger.Warn("overview.fold_console_counts", "error", err.Error())
	}
}
