package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tenurehq/tenure/queries"
)

// RejectionReasons lists the reasons a write can be refused for, as stored in
// consolidation_rejections.reason.
func RejectionReasons() []string {
	return []string{ReasonTransient, ReasonExpired, ReasonDecisionLocked}
}

// RejectionSources lists the writers whose refusals the rejection log holds.
func RejectionSources() []string {
	return []string{"consolidation", "api", "extraction", "mcp", "import"}
}

// Phases lists the consolidation phases by number, from 8 to 12.
func Phases() []int {
	return []int{PhaseCleanup, PhaseDecay, PhasePromote, PhaseMerge, PhaseDecide}
}

// phaseChoices is how an error message names the phases a filter accepts.
const phaseChoices = "8 (cleanup), 9 (decay), 10 (promote), 11 (merge), 12 (decide)"

// ParsePhase reads a phase given by number ("10") or by name ("promote").
func ParsePhase(s string) (int, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n >= PhaseCleanup && n <= PhaseDecide {
			return n, nil
		}
		return 0, Invalidf("phase", "unknown phase %d: a phase must be 8 to 12: %s", n, phaseChoices)
	}
	for _, p := range Phases() {
		if strings.EqualFold(s, PhaseName(p)) {
			return p, nil
		}
	}
	return 0, Invalidf("phase", "unknown phase %q: a phase must be 8 to 12: %s", s, phaseChoices)
}

// RejectionFilter selects entries of the rejection log. Zero values select
// everything.
type RejectionFilter struct {
	RunID    int64  // one consolidation run
	Phase    int    // 8 to 12
	Reason   string // transient, expired or decision_locked
	Scope    string
	Source   string // consolidation, api, extraction, mcp or import
	BeforeID int64  // keyset cursor: only entries with a smaller id
	Limit    int    // default 50, at most 500
}

const (
	defaultRejections = 50
	maxRejections     = 500
)

// validate checks every filter value and says what is allowed instead.
func (f RejectionFilter) validate() error {
	if f.RunID < 0 {
		return Invalidf("run", "invalid run %d: it must be a positive run id", f.RunID)
	}
	if f.Phase != 0 && (f.Phase < PhaseCleanup || f.Phase > PhaseDecide) {
		return Invalidf("phase", "unknown phase %d: a phase must be 8 to 12: %s", f.Phase, phaseChoices)
	}
	if f.Reason != "" && !slices.Contains(RejectionReasons(), f.Reason) {
		return Invalidf("reason", "unknown reason %q: allowed values are %s", f.Reason, strings.Join(RejectionReasons(), ", "))
	}
	if f.Source != "" && !slices.Contains(RejectionSources(), f.Source) {
		return Invalidf("source", "unknown source %q: allowed values are %s", f.Source, strings.Join(RejectionSources(), ", "))
	}
	if f.Scope != "" {
		if _, err := ParseScope(f.Scope); err != nil {
			return err
		}
	}
	if f.BeforeID < 0 {
		return Invalidf("before", "invalid page cursor %d: it must be a positive rejection id", f.BeforeID)
	}
	if f.Limit < 0 || f.Limit > maxRejections {
		return Invalidf("limit", "limit %d is out of range: it must be between 1 and %d", f.Limit, maxRejections)
	}
	return nil
}

// ListRejections returns one page of the rejection log, newest first: every
// write refused by consolidation (with its run and phase) or by another
// automated writer. The next page starts before the last entry's id.
// Whatever the filters, it reads a bounded number of entries
// (walkThenSearch): the newest entries of the scope, then, when the other
// filters matched few of them, only the matches that
// consolidation_rejections_filters_idx finds below them.
func (s *Store) ListRejections(ctx context.Context, f RejectionFilter) ([]Rejection, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	pageSize := int32(defaultRejections)
	if f.Limit > 0 {
		pageSize = int32(f.Limit)
	}
	var runID *int64
	var phase *int16
	var reason, scope, source *string
	if f.RunID != 0 {
		runID = &f.RunID
	}
	if f.Phase != 0 {
		phase = pointerTo(int16(f.Phase))
	}
	if f.Reason != "" {
		reason = &f.Reason
	}
	if f.Scope != "" {
		scope = &f.Scope
	}
	if f.Source != "" {
		source = &f.Source
	}
	ids, err := walkThenSearch(pageSize,
		func(rows int32) ([]listWalk, error) {
			walked, err := s.q.RejectionIDsWalk(ctx, queries.RejectionIDsWalkParams{WalkRows: rows, RunID: runID,
				Phase: phase, Reason: reason, Source: source, Scope: scope, BeforeID: f.BeforeID, PageSize: pageSize})
			out := make([]listWalk, len(walked))
			for i, r := range walked {
				out[i] = listWalk(r)
			}
			return out, err
		},
		func(before int64, rows int32) ([]int64, error) {
			return s.q.RejectionIDsSearch(ctx, queries.RejectionIDsSearchParams{RunID: runID, Phase: phase,
				Reason: reason, Scope: scope, Source: source, BeforeID: before, PageSize: rows})
		})
	if err != nil {
		return nil, fmt.Errorf("list rejections: %w", err)
	}
	if len(ids) == 0 {
		return []Rejection{}, nil
	}
	rows, err := s.q.ListRejectionsByIDs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("list rejections: %w", err)
	}
	out := make([]Rejection, len(rows))
	for i, r := range rows {
		out[i] = newRejection(r)
	}
	return out, nil
}

// RejectionScopes returns the scopes the rejection log holds entries for.
func (s *Store) RejectionScopes(ctx context.Context) ([]string, error) {
	scopes, err := s.q.ListRejectionScopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("rejection scopes: %w", err)
	}
	return scopes, nil
}
