package web

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

// What the overview shows: how far ahead it looks and how many rows a panel
// lists.
const (
	overviewForgetWindow     = 7 * 24 * time.Hour
	overviewObligationWindow = 14 * 24 * time.Hour
	overviewPanelRows        = 10
	// overviewForgettingMost bounds the count of facts forgotten within the
	// window: a large store forgets hundreds of thousands a week (791,198 of
	// the 5,000,000-fact bench seed), and counting them all took 0.8 to
	// 2.8 s; up to 10,000 took 21 ms, up to 1,000 a tenth of that.
	overviewForgettingMost = 1_000
	overviewRuns           = 5
)

// overviewMarkers and overviewReviewKinds are listed even when their count
// is zero, so the panels keep their shape.
var (
	overviewMarkers = []struct{ key, label string }{
		{"durable", "Durable (will be promoted)"}, {"transient", "Transient (will be refused)"},
		{"expired", "Expired (will be pruned)"},
	}
	overviewReviewKinds = []struct{ key, label string }{
		{"near_duplicate", "Near duplicates"}, {"decision_refusal", "Refused writes against decisions"},
		{"repeated_mood", "Moods seen many times"},
	}
)

// overviewShow is the console's landing page: the durability × category
// matrix, facts about to be forgotten, obligations, the last runs and the
// queues waiting for people. Every query reads an index or one GROUP BY.
func (s *Console) overviewShow(c echo.Context) error {
	now := s.now().UTC()
	ctx := c.Request().Context()
	o, err := s.store.Overview(ctx, memory.OverviewOptions{At: now,
		ForgetWithin: overviewForgetWindow, DueWithin: overviewObligationWindow, Rows: overviewPanelRows, Runs: overviewRuns})
	if err != nil {
		return err
	}
	view := pages.OverviewPage{Now: now, CanSettle: signedInAs(c, auth.RoleReviewer), Matrix: overviewMatrix(o.Axes),
		MoreForgetting: o.MoreForgetting, MoreUpcoming: o.MoreUpcoming, MoreOverdue: o.MoreOverdue,
		SetAsideWaiting: o.SetAside.Waiting, SetAsideHeld: o.SetAside.Held, ForgettingCount: int64(len(o.Forgetting))}
	// The panel lists the first few; the figure counts them, up to
	// overviewForgettingMost, which is worth a query only when there are more.
	if o.MoreForgetting {
		if view.ForgettingCount, view.ForgettingMore, err = s.store.CountForgettingSoon(ctx, now.Add(overviewForgetWindow),
			overviewForgettingMost); err != nil {
			return err
		}
	}
	for _, f := range o.Forgetting {
		view.Forgetting = append(view.Forgetting, pages.OverviewFact{
			ID: f.ID, Scope: f.Scope, Entity: f.Entity, Content: f.Content, Durability: string(f.Durability),
			Category: f.Category, ForgetAt: f.ForgetAt, Effective: f.EffectiveConfidence,
		})
	}
	for _, d := range o.Upcoming {
		view.Upcoming = append(view.Upcoming, pages.OverviewObligation{
			ID: d.ID, Scope: d.Scope, Entity: d.Entity, Content: d.Content, Deadline: d.Deadline})
	}
	for _, d := range o.Overdue {
		view.Overdue = append(view.Overdue, pages.OverviewObligation{
			ID: d.ID, Scope: d.Scope, Entity: d.Entity, Content: d.Content, Deadline: d.Deadline})
	}
	if len(o.Runs) > 0 {
		last := o.Runs[0]
		view.LastRun = &pages.OverviewRun{ID: last.ID, TransientRejected: last.TransientRejected,
			ExpiredRejected: last.ExpiredRejected, DecisionLocked: last.DecisionLocked}
	}
	for _, r := range o.Runs {
		view.Runs = append(view.Runs, pages.OverviewRun{
			ID: r.ID, Trigger: r.Trigger, Status: r.Status, StartedAt: r.StartedAt, Promoted: r.Promoted,
			Reinforced: r.Reinforced, Archived: r.Archived, TransientRejected: r.TransientRejected,
			ExpiredRejected: r.ExpiredRejected, DecisionLocked: r.DecisionLocked,
		})
	}
	for _, n := range o.Pending {
		view.PendingTotal += n
	}
	for _, m := range overviewMarkers {
		view.Markers = append(view.Markers, pages.OverviewCount{Key: m.key, Label: m.label,
			Count: o.Pending[memory.Marker(m.key)], Href: "/working?marker=" + url.QueryEscape(m.key)})
	}
	for _, n := range o.OpenReview {
		view.ReviewTotal += n
	}
	for _, k := range overviewReviewKinds {
		view.Review = append(view.Review, pages.OverviewCount{Key: k.key, Label: k.label,
			Count: o.OpenReview[k.key], Href: "/review?kind=" + url.QueryEscape(k.key)})
	}
	return s.page(c, http.StatusOK, "Overview", "overview", pages.Overview(view), nil)
}

// overviewMatrix lays the counts out with the four durabilities as rows and
// the categories as columns: the suggested ones first, in their own order,
// then any other category in use, alphabetically.
func overviewMatrix(rows []memory.AxesCount) pages.OverviewMatrix {
	var m pages.OverviewMatrix
	for _, d := range memory.Durabilities() {
		m.Durabilities = append(m.Durabilities, string(d))
	}
	m.Categories = memory.SuggestedCategories()
	var others []string
	counts := map[[2]string]int64{}
	for _, r := range rows {
		counts[[2]string{string(r.Durability), r.Category}] += r.Facts
		if !slices.Contains(m.Categories, r.Category) && !slices.Contains(others, r.Category) {
			others = append(others, r.Category)
		}
	}
	slices.Sort(others)
	m.Categories = append(slices.Clone(m.Categories), others...)

	link := func(n int64, d, c string) pages.OverviewCell {
		if n == 0 {
			return pages.OverviewCell{}
		}
		v := url.Values{}
		if d != "" {
			v.Set("durability", d)
		}
		if c != "" {
			v.Set("category", c)
		}
		href := "/facts"
		if len(v) > 0 {
			href += "?" + v.Encode()
		}
		return pages.OverviewCell{Count: n, Href: href}
	}
	colTotals := make([]int64, len(m.Categories))
	var total int64
	for _, d := range m.Durabilities {
		cells := make([]pages.OverviewCell, len(m.Categories))
		var rowTotal int64
		for j, c := range m.Categories {
			n := counts[[2]string{d, c}]
			cells[j] = link(n, d, c)
			rowTotal += n
			colTotals[j] += n
		}
		m.Cells = append(m.Cells, cells)
		m.RowTotals = append(m.RowTotals, link(rowTotal, d, ""))
		total += rowTotal
	}
	for j, c := range m.Categories {
		m.ColTotals = append(m.ColTotals, link(colTotals[j], "", c))
	}
	m.Total = link(total, "", "")
	return m
}
