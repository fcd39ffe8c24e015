package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

const nodesPageSize = 50

// nodeList shows working rows, newest first, filtered by scope, marker and
// state (pending by default), one keyset page at a time.
func (s *Console) nodeList(c echo.Context) error {
	ctx := c.Request().Context()
	filter, before, err := parseWorkingFilter(c.QueryParams())
	if err != nil {
		return err
	}
	f := memory.NodeFilter{Scope: filter.Scope, Marker: filter.Marker, State: filter.State,
		BeforeID: before, Limit: nodesPageSize + 1}
	if filter.State == "all" {
		f.State = ""
	}
	rows, err := s.store.ListNodes(ctx, f)
	if err != nil {
		return err
	}
	view := pages.WorkingPage{Filter: filter, Now: s.now(), ReturnURL: pages.WorkingURL(filter, before),
		CanEdit: signedInAs(c, auth.RoleReviewer)}
	for _, m := range memory.Markers() {
		view.Markers = append(view.Markers, string(m))
	}
	if len(rows) > nodesPageSize {
		rows = rows[:nodesPageSize]
		view.NextURL = pages.WorkingURL(filter, rows[len(rows)-1].ID)
	}
	if before != 0 {
		view.FirstURL = pages.WorkingURL(filter, 0)
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	faults, err := s.store.FaultsOf(ctx, ids)
	if err != nil {
		return err
	}
	for _, r := range rows {
		row := pages.WorkingRow{
			ID: r.ID, Scope: r.Scope, Content: r.Content, Importance: r.Importance,
			TTLSeconds: r.TTLSeconds, CreatedAt: r.CreatedAt, PromotedAt: r.PromotedAt, PromotedFactID: r.PromotedFactID,
		}
		if r.MarkerExplicit {
			row.Marker = string(r.Marker)
		}
		if f, ok := faults[r.ID]; ok {
			fr := faultRows([]memory.Fault{f})[0]
			row.Fault = &fr
		}
		view.Rows = append(view.Rows, row)
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Working memory", "working", nil, pages.WorkingResults(view))
	}
	if view.Scopes, err = s.store.NodeScopes(ctx); err != nil {
		return err
	}
	faultCounts, err := s.store.CountFaults(ctx)
	if err != nil {
		return err
	}
	view.SetAside.Waiting, view.SetAside.Held = faultCounts.Waiting, faultCounts.Held
	counts, err := s.store.CountPendingNodes(ctx)
	if err != nil {
		return err
	}
	for _, cnt := range counts {
		if len(view.Counts) == 0 || view.Counts[len(view.Counts)-1].Scope != cnt.Scope {
			view.Counts = append(view.Counts, pages.WorkingCount{Scope: cnt.Scope})
		}
		last := &view.Counts[len(view.Counts)-1]
		switch cnt.Marker {
		case memory.MarkerDurable:
			last.Durable = cnt.Rows
		case memory.MarkerTransient:
			last.Transient = cnt.Rows
		case memory.MarkerExpired:
			last.Expired = cnt.Rows
		}
	}
	return s.page(c, http.StatusOK, "Working memory", "working", pages.Working(view), nil)
}

// parseWorkingFilter reads and validates the working page's filter; a bad
// value is a 400 that names the parameter and what it accepts, text the
// store cannot take (memory.CheckParams) first.
func parseWorkingFilter(v url.Values) (pages.WorkingFilter, int64, error) {
	if err := memory.CheckParams(v); err != nil {
		return pages.WorkingFilter{}, 0, err
	}
	f := pages.WorkingFilter{
		Scope:  strings.TrimSpace(v.Get("scope")),
		Marker: strings.TrimSpace(v.Get("marker")),
		State:  strings.TrimSpace(v.Get("state")),
	}
	if f.Scope != "" {
		if _, err := memory.ParseScope(f.Scope); err != nil {
			return f, 0, err
		}
	}
	if f.Marker != "" {
		if _, err := memory.ParseMarker(f.Marker); err != nil {
			return f, 0, memory.Invalidf("marker", "unknown marker %q: allowed values are durable, transient, expired", f.Marker)
		}
	}
	switch f.State {
	case "":
		f.State = "pending"
	case "pending", "promoted", "set_aside", "all":
	default:
		return f, 0, memory.Invalidf("state", "unknown state %q: allowed values are pending, promoted, set_aside, all", f.State)
	}
	before, err := keysetBefore(v, "working row")
	return f, before, err
}

// keysetBefore reads the keyset cursor "before", a positive id of what the
// list shows.
func keysetBefore(v url.Values, what string) (int64, error) {
	b := v.Get("before")
	if b == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(b, 10, 64)
	if err != nil || n <= 0 {
		return 0, memory.Invalidf("before", "invalid page cursor %q: it must be a positive %s id", b, what)
	}
	return n, nil
}

// nodeMarkers sets the marker of the selected working rows (the promote and
// expire buttons), then goes back to the list with a message. Refusals by
// the engine (no row selected, an unknown or already promoted row) come back
// as an error message; nothing is written then.
func (s *Console) nodeMarkers(c echo.Context) error {
	back := listReturnURL(c.FormValue("return"), "/working")
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	if err := memory.CheckParams(form); err != nil {
		return s.redirectWithFlash(c, back, "error", sentenceCase(err.Error())+"; nothing was changed.")
	}
	raw := append(form["ids"], form["ids[]"]...)
	ids := make([]int64, 0, len(raw))
	for _, r := range raw {
		id, err := strconv.ParseInt(strings.TrimSpace(r), 10, 64)
		if err != nil || id <= 0 {
			return s.redirectWithFlash(c, back, "error", fmt.Sprintf("%s is not a working row id; nothing was changed.", quotedInput(r)))
		}
		ids = append(ids, id)
	}
	marker := c.FormValue("marker")
	n, err := s.store.SetMarkers(c.Request().Context(), actor(c), "", ids, marker, strings.TrimSpace(c.FormValue("reason")))
	var me *memory.Error
	if errors.As(err, &me) {
		msg := sentenceCase(me.Message)
		if me.Code == memory.CodeInvalid && me.Field == "ids" {
			msg = "No working rows selected, so nothing was changed: tick the rows to change first"
		}
		if !strings.Contains(strings.ToLower(msg), "nothing") {
			msg += "; nothing was changed"
		}
		return s.redirectWithFlash(c, back, "error", msg+".")
	}
	if err != nil {
		return err
	}
	rows := "rows"
	if n == 1 {
		rows = "row"
	}
	var msg string
	switch memory.Marker(marker) {
	case memory.MarkerDurable:
		msg = fmt.Sprintf("%s %s marked durable: the next consolidation run promotes them.", thousands(n), rows)
		if n == 1 {
			msg = "1 row marked durable: the next consolidation run promotes it."
		}
	case memory.MarkerExpired:
		msg = fmt.Sprintf("%s %s expired: the next cleanup prunes them, leaving tombstones.", thousands(n), rows)
		if n == 1 {
			msg = "1 row expired: the next cleanup prunes it, leaving a tombstone."
		}
	default:
		msg = fmt.Sprintf("%s %s marked %s.", thousands(n), rows, marker)
	}
	return s.redirectWithFlash(c, back, "ok", msg)
}

// nodeRetry forgets the recorded failures of the selected set-aside rows, so
// that the next consolidation run tries them again with a fresh count of
// attempts.
func (s *Console) nodeRetry(c echo.Context) error {
	back := listReturnURL(c.FormValue("return"), "/working")
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	if err := memory.CheckParams(form); err != nil {
		return s.redirectWithFlash(c, back, "error", sentenceCase(err.Error())+"; nothing was changed.")
	}
	var ids []int64
	for _, r := range append(form["ids"], form["ids[]"]...) {
		id, err := strconv.ParseInt(strings.TrimSpace(r), 10, 64)
		if err != nil || id <= 0 {
			return s.redirectWithFlash(c, back, "error", fmt.Sprintf("%s is not a working row id; nothing was changed.", quotedInput(r)))
		}
		ids = append(ids, id)
	}
	n, err := s.store.RetryFaults(c.Request().Context(), actor(c), "", ids, strings.TrimSpace(c.FormValue("reason")))
	if me, ok := errors.AsType[*memory.Error](err); ok {
		msg := sentenceCase(me.Message)
		if me.Code == memory.CodeInvalid && me.Field == "ids" {
			msg = "No working rows selected, so nothing was changed: tick the set-aside rows to retry first"
		}
		if !strings.Contains(strings.ToLower(msg), "nothing") {
			msg += "; nothing was changed"
		}
		return s.redirectWithFlash(c, back, "error", msg+".")
	}
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s set-aside rows will be tried again by the next consolidation run.", thousands(n))
	if n == 1 {
		msg = "1 set-aside row will be tried again by the next consolidation run."
	}
	return s.redirectWithFlash(c, back, "ok", msg)
}

// listReturnURL is where a form posted from a list goes back to: the list URL it
// carried when that is a page of base (so no form can redirect off site), or
// base.
func listReturnURL(target, base string) string {
	if target == base || strings.HasPrefix(target, base+"?") {
		return target
	}
	return base
}

// sentenceCase upper-cases the first letter of a message meant as a sentence.
func sentenceCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
