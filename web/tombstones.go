package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

const tombstonesPageSize = 50

// tombstoneList shows the tombstones of pruned working rows, newest first,
// filtered by scope, reason and whether they were restored.
func (s *Console) tombstoneList(c echo.Context) error {
	ctx := c.Request().Context()
	filter, before, err := parseTombstonesFilter(c.QueryParams())
	if err != nil {
		return err
	}
	rows, err := s.store.ListTombstones(ctx, memory.TombstoneFilter{
		Scope: filter.Scope, Reason: filter.Reason, State: filter.State, BeforeID: before, Limit: tombstonesPageSize + 1,
	})
	if err != nil {
		return err
	}
	view := pages.TombstonesPage{Filter: filter, Now: s.now(), Reasons: memory.TombstoneReasons(),
		ReturnURL: pages.TombstonesURL(filter, before), CanRestore: signedInAs(c, auth.RoleReviewer)}
	if len(rows) > tombstonesPageSize {
		rows = rows[:tombstonesPageSize]
		view.NextURL = pages.TombstonesURL(filter, rows[len(rows)-1].ID)
	}
	if before != 0 {
		view.FirstURL = pages.TombstonesURL(filter, 0)
	}
	for _, t := range rows {
		row := pages.TombstoneRow{
			ID: t.ID, NodeID: t.NodeID, Scope: t.Scope, Content: t.Content, Properties: compactJSON(t.Properties),
			Importance: t.Importance, TTLSeconds: t.TTLSeconds, NodeCreatedAt: t.NodeCreatedAt, RunID: t.RunID,
			Reason: t.Reason, PrunedAt: t.PrunedAt, PurgeAfter: t.PurgeAfter, RestoredAt: t.RestoredAt,
		}
		if t.MarkerExplicit {
			row.Marker = string(t.Marker)
		}
		if t.RestoredBy != nil {
			row.RestoredBy = *t.RestoredBy
		}
		view.Rows = append(view.Rows, row)
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Tombstones", "tombstones", nil, pages.TombstonesResults(view))
	}
	if view.Scopes, err = s.store.TombstoneScopes(ctx); err != nil {
		return err
	}
	if filter.Scope != "" && !slices.Contains(view.Scopes, filter.Scope) {
		view.Scopes = append(view.Scopes, filter.Scope)
		slices.Sort(view.Scopes)
	}
	return s.page(c, http.StatusOK, "Tombstones", "tombstones", pages.Tombstones(view), nil)
}

// parseTombstonesFilter reads the tombstones filter from the URL; the engine
// validates its values.
func parseTombstonesFilter(v url.Values) (pages.TombstonesFilter, int64, error) {
	f := pages.TombstonesFilter{
		Scope:  strings.TrimSpace(v.Get("scope")),
		Reason: strings.TrimSpace(v.Get("reason")),
		State:  strings.TrimSpace(v.Get("state")),
	}
	if f.State == "" {
		f.State = memory.TombstonePruned
	}
	before, err := keysetBefore(v, "tombstone")
	return f, before, err
}

// compactJSON shows stored JSON on one line.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// tombstoneRestore brings a pruned row back into working memory, as durable
// when the reviewer ticked it. Restoring twice is a 409. A refused form
// (text the database cannot take in any field, or a reason the engine
// refuses) is a 422 page naming the field, and nothing is restored.
func (s *Console) tombstoneRestore(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := checkForm(c); err != nil {
		return tombRefused(err)
	}
	back := listReturnURL(c.FormValue("return"), "/tombstones")
	asDurable := c.FormValue("durable") != ""
	node, err := s.store.RestoreTombstone(c.Request().Context(), actor(c), id, memory.RestoreOptions{
		AsDurable: asDurable, Reason: strings.TrimSpace(c.FormValue("reason")),
	})
	if memory.ErrorCode(err) == memory.CodeInvalid {
		return tombRefused(err)
	}
	if err != nil {
		return err
	}
	var msg string
	switch {
	case asDurable:
		msg = fmt.Sprintf("Tombstone %d restored as working row %d, marked durable: the next consolidation run promotes it.", id, node.ID)
	case node.Marker == memory.MarkerExpired:
		msg = fmt.Sprintf("Tombstone %d restored as working row %d. Its marker is still expired: the next cleanup prunes it again.", id, node.ID)
	case node.Marker == memory.MarkerTransient:
		msg = fmt.Sprintf("Tombstone %d restored as working row %d. Its marker is still transient: cleanup prunes it again within the hour.", id, node.ID)
	default:
		msg = fmt.Sprintf("Tombstone %d restored as working row %d.", id, node.ID)
	}
	return s.redirectWithFlash(c, back, "ok", msg)
}

// tombRefused is the answer to a refused restore: the restore form has no
// place for an error, so a 422 page says what was wrong.
func tombRefused(err error) error {
	_, msg := refusedText(err, nil)
	return echo.NewHTTPError(http.StatusUnprocessableEntity, "Nothing was restored: "+msg+".")
}
