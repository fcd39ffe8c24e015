package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

// obligationsLimit bounds each section of the obligations page.
const obligationsLimit = 200

// obligationList shows active obligations: overdue ones (oldest deadline
// first), upcoming ones (soonest first) and those without a deadline,
// optionally in one scope.
func (s *Console) obligationList(c echo.Context) error {
	ctx := c.Request().Context()
	view := pages.ObligationsPage{Scope: strings.TrimSpace(c.QueryParam("scope")), Limit: obligationsLimit, Now: s.now()}
	list, err := s.store.ListObligations(ctx, memory.ObligationFilter{Scope: view.Scope, Limit: obligationsLimit, At: view.Now})
	if err != nil {
		return err
	}
	view.Overdue, view.Upcoming = obligationRows(list.Overdue), obligationRows(list.Upcoming)
	view.NoDeadline = obligationRows(list.NoDeadline)
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Obligations", "obligations", nil, pages.ObligationsResults(view))
	}
	if view.Scopes, err = s.store.Scopes(ctx); err != nil {
		return err
	}
	return s.page(c, http.StatusOK, "Obligations", "obligations", pages.Obligations(view), nil)
}

// obligationRows are obligations as the page lists them.
func obligationRows(obs []memory.Obligation) []pages.ObligationRow {
	out := make([]pages.ObligationRow, len(obs))
	for i, o := range obs {
		out[i] = pages.ObligationRow{
			ID: o.ID, Scope: o.Scope, Entity: o.Entity, Key: o.Key, Content: o.Content,
			Durability: string(o.Durability), Effective: o.EffectiveConfidence, Deadline: o.Deadline, ForgetAt: o.ForgetAt,
		}
	}
	return out
}
