package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

const changesPageSize = 50

// changesList shows What changed: the facts superseded, merged, archived
// and restored and the decisions recorded, of one run or of a time range,
// filtered by scope and kind, newest first, one keyset page at a time; a
// reviewer may undo each change that still holds.
func (s *Console) changesList(c echo.Context) error {
	ctx := c.Request().Context()
	view, filter, err := parseChangesFilter(c.QueryParams())
	if err != nil {
		return err
	}
	filter.Limit = changesPageSize + 1
	changes, err := s.store.ListChanges(ctx, filter)
	if err != nil {
		return err
	}
	before := ""
	if filter.Before != nil {
		before = filter.Before.String()
	}
	page := pages.ChangesPage{Filter: view, Kinds: memory.ChangeKinds(), Now: s.now(),
		CanUndo: signedInAs(c, auth.RoleReviewer), ReturnURL: pages.ChangesURL(view, before)}
	if len(changes) > changesPageSize {
		changes = changes[:changesPageSize]
		page.NextURL = pages.ChangesURL(view, changes[len(changes)-1].Cursor.String())
	}
	if filter.Before != nil {
		page.FirstURL = pages.ChangesURL(view, "")
	}
	for _, ch := range changes {
		page.Rows = append(page.Rows, changeRow(ch))
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "What changed", "changes", nil, pages.ChangesResults(page))
	}
	if filter.RunID != 0 {
		run, err := s.store.GetRun(ctx, filter.RunID)
		if err != nil {
			return err
		}
		row := consRunRow(run)
		page.Run = &row
	}
	if page.Scopes, err = s.store.Scopes(ctx); err != nil {
		return err
	}
	if view.Scope != "" && !slices.Contains(page.Scopes, view.Scope) {
		page.Scopes = append(page.Scopes, view.Scope)
		slices.Sort(page.Scopes)
	}
	return s.page(c, http.StatusOK, "What changed", "changes", pages.Changes(page), nil)
}

// changeRow is a change as the page shows it.
func changeRow(ch memory.Change) pages.ChangeRow {
	row := pages.ChangeRow{
		Cursor: ch.Cursor.String(), At: ch.At, Actor: ch.Actor, Kind: ch.Kind, How: ch.How, Reason: ch.Reason,
		RunID: ch.RunID, Scope: ch.Scope, Entity: ch.Entity, DecisionID: ch.DecisionID, ArchiveReason: ch.ArchiveReason,
		Fact:          pages.ChangeSide{ID: ch.FactID, Key: ch.Key, Content: ch.Content, Status: string(ch.Status)},
		DecisionState: ch.DecisionState, Undo: ch.Undo, Since: ch.Since,
	}
	if ch.Other != nil {
		row.Other = &pages.ChangeSide{ID: ch.Other.ID, Key: ch.Other.Key, Content: ch.Other.Content, Status: string(ch.Other.Status)}
	}
	return row
}

// parseChangesFilter reads the filter from the URL. Text the store cannot
// take is refused first; the run, the dates and the cursor are read here;
// the engine validates the rest. A bad value is a 400 naming it.
func parseChangesFilter(v url.Values) (pages.ChangesFilter, memory.ChangeFilter, error) {
	if err := memory.CheckParams(v); err != nil {
		return pages.ChangesFilter{}, memory.ChangeFilter{}, err
	}
	view := pages.ChangesFilter{
		Run: strings.TrimSpace(v.Get("run")), Scope: strings.TrimSpace(v.Get("scope")),
		Kind: strings.TrimSpace(v.Get("kind")), From: strings.TrimSpace(v.Get("from")), To: strings.TrimSpace(v.Get("to")),
	}
	f := memory.ChangeFilter{Scope: view.Scope, Kind: view.Kind}
	if view.Run != "" {
		id, err := strconv.ParseInt(view.Run, 10, 64)
		if err != nil || id <= 0 {
			return view, f, memory.Invalidf("run", "invalid run %q: it must be a positive run id", view.Run)
		}
		f.RunID = id
	}
	var err error
	if f.Since, err = parseAuditLogTime("from", view.From, false); err != nil {
		return view, f, err
	}
	if f.Until, err = parseAuditLogTime("to", view.To, true); err != nil {
		return view, f, err
	}
	if b := v.Get("before"); b != "" {
		cur, err := memory.ParseChangeCursor(b)
		if err != nil {
			return view, f, err
		}
		f.Before = &cur
	}
	return view, f, nil
}

// changeUndo undoes one change (a POST from What changed): the engine
// checks it still holds, and audits every step as the reviewer. It goes back
// to the page it came from with a message saying what was done; a change
// that no longer holds comes back as an error message, nothing written.
func (s *Console) changeUndo(c echo.Context) error {
	back := listReturnURL(c.FormValue("return"), "/changes")
	if err := checkForm(c); err != nil {
		return s.redirectWithFlash(c, back, "error", sentenceCase(err.Error())+"; nothing was changed.")
	}
	kind := strings.TrimSpace(c.FormValue("kind"))
	id, err := strconv.ParseInt(strings.TrimSpace(c.FormValue("id")), 10, 64)
	if err != nil || id <= 0 {
		return s.redirectWithFlash(c, back, "error", "Nothing was changed: the change to undo names no fact or decision.")
	}
	// The change's time: a fact changed after it is not this change's to
	// undo (a page read before a later change).
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(c.FormValue("at")))
	if err != nil {
		return s.redirectWithFlash(c, back, "error", "Nothing was changed: the undo does not say when the change was made; reload What changed and try again.")
	}
	done, err := s.store.UndoChange(c.Request().Context(), actor(c), kind, id, at, strings.TrimSpace(c.FormValue("reason")))
	switch memory.ErrorCode(err) {
	case memory.CodeConflict, memory.CodeInvalid, memory.CodeNotFound, memory.CodeForbidden:
		return s.redirectWithFlash(c, back, "error", "Not undone: "+memory.AsError(err).Message+".")
	}
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, back, "ok", undoneMessage(done))
}

// undoneMessage says what an undo did.
func undoneMessage(d memory.Undone) string {
	var parts []string
	if len(d.Restored) > 0 {
		parts = append(parts, "fact "+joinInts(d.Restored)+" restored")
	}
	if len(d.Archived) > 0 {
		parts = append(parts, "fact "+joinInts(d.Archived)+" archived")
	}
	if d.Unmerged != 0 {
		parts = append(parts, fmt.Sprintf("fact %d gave back the sightings it had taken in", d.Unmerged))
	}
	if d.Reopened != 0 {
		parts = append(parts, fmt.Sprintf("decision %d reopened", d.Reopened))
	}
	if len(parts) == 0 {
		return "Nothing needed undoing."
	}
	return "Undone: " + strings.Join(parts, ", ") + ". The audit log records it."
}

func joinInts(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}
