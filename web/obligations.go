package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/views/pages"
)

// obligationsLimit bounds each section of the obligations page.
const obligationsLimit = 200

// The ends of time for the deadline ranges of the obligations page.
var (
	obligationsBeginning = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	obligationsEnd       = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// obligationList shows active obligations: overdue ones (oldest deadline
// first), upcoming ones (soonest first) and those without a deadline,
// optionally in one scope.
func (s *Server) obligationList(c echo.Context) error {
	ctx := c.Request().Context()
	view := pages.ObligationsPage{Scope: strings.TrimSpace(c.QueryParam("scope")), Limit: obligationsLimit, Now: s.now()}
	var scope *string
	if view.Scope != "" {
		if _, err := memory.ParseScope(view.Scope); err != nil {
			return err
		}
		scope = &view.Scope
	}
	due := func(from, before time.Time) ([]pages.ObligationRow, error) {
		rows, err := s.q.ListObligationsDue(ctx, queries.ListObligationsDueParams{
			Now: view.Now, DueFrom: from, DueBefore: before, Scope: scope, MaxRows: obligationsLimit,
		})
		out := make([]pages.ObligationRow, len(rows))
		for i, r := range rows {
			out[i] = pages.ObligationRow{
				ID: r.ID, Scope: r.Scope, Entity: r.EntityName, Key: r.Key, Content: r.Content,
				Durability: r.Durability, Effective: r.EffectiveConfidence, Deadline: &r.Deadline, ForgetAt: r.ForgetAt,
			}
		}
		return out, err
	}
	var err error
	if view.Overdue, err = due(obligationsBeginning, view.Now); err != nil {
		return err
	}
	if view.Upcoming, err = due(view.Now, obligationsEnd); err != nil {
		return err
	}
	rows, err := s.q.ListObligationsWithoutDeadline(ctx, queries.ListObligationsWithoutDeadlineParams{
		Now: view.Now, Scope: scope, MaxRows: obligationsLimit,
	})
	if err != nil {
		return err
	}
	for _, r := range rows {
		view.NoDeadline = append(view.NoDeadline, pages.ObligationRow{
			ID: r.ID, Scope: r.Scope, Entity: r.EntityName, Key: r.Key, Content: r.Content,
			Durability: r.Durability, Effective: r.EffectiveConfidence, ForgetAt: r.ForgetAt,
		})
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Obligations", "obligations", nil, pages.ObligationsResults(view))
	}
	if view.Scopes, err = s.q.ListScopes(ctx); err != nil {
		return err
	}
	return s.page(c, http.StatusOK, "Obligations", "obligations", pages.Obligations(view), nil)
}
