package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
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
	view := pages.ObligationsPage{Scope: strings.TrimSpace(c.QueryParam("scope")), Limit: obligationsLimit, Now: s.now(),
		CanEdit: signedInAs(c, auth.RoleReviewer)}
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

// obligationsPath is the obligations page, in scope when one is given.
func obligationsPath(scope string) string {
	if scope == "" {
		return "/obligations"
	}
	return "/obligations?" + url.Values{"scope": {scope}}.Encode()
}

// obligationAction settles or keeps one obligation through the engine:
// done and let_go archive it with that reason, keep gives an overdue one
// seven more days or confirms one without a deadline again. It goes back to
// the local page named by return, or to the obligations page (in the scope
// it showed), with a message saying what changed, or why nothing did.
func (s *Console) obligationAction(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	scope := strings.TrimSpace(c.FormValue("scope"))
	if _, err := memory.ParseScope(scope); err != nil {
		scope = ""
	}
	back := localReturnPath(c.FormValue("return"), obligationsPath(scope))
	if err := checkForm(c); err != nil {
		return s.redirectWithFlash(c, back, "error", "Nothing was changed: "+err.Error()+".")
	}
	ctx := c.Request().Context()
	var (
		f   memory.Fact
		msg string
	)
	switch action := c.FormValue("action"); action {
	case "done":
		f, err = s.store.SettleObligation(ctx, actor(c), id, memory.ObligationDone)
		msg = "Done: %s is archived as done."
	case "let_go":
		f, err = s.store.SettleObligation(ctx, actor(c), id, memory.ObligationLetGo)
		msg = "Let go: %s is archived as let go."
	case "keep":
		f, err = s.store.KeepObligation(ctx, actor(c), id)
		msg = "Kept: %s is confirmed again."
		if err == nil && f.Deadline != nil {
			msg = "Kept: %s is due again " + f.Deadline.UTC().Format("Mon 2 Jan 2006, 15:04 UTC") + "."
		}
	default:
		return s.redirectWithFlash(c, back, "error",
			fmt.Sprintf("Nothing was changed: unknown action %s; choose done, let go or keep.", quotedInput(action)))
	}
	if err != nil {
		if me := memory.AsError(err); me != nil && me.Code != "" {
			return s.redirectWithFlash(c, back, "error", "Nothing was changed: "+me.Message+".")
		}
		return err
	}
	return s.redirectWithFlash(c, back, "ok", fmt.Sprintf(msg, obligationName(f)))
}

// obligationName names an obligation in a message: its id and the start of
// its text.
func obligationName(f memory.Fact) string {
	text := f.Content
	if utf8.RuneCountInString(text) > 60 {
		text = string([]rune(text)[:59]) + "…"
	}
	return fmt.Sprintf("obligation %d (“%s”)", f.ID, text)
}
