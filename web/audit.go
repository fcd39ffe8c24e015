package web

import (
	"bytes"
	"encoding/json"
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

const auditLogPageSize = 50

// auditLogTargetTypes and auditLogActions feed the filter's choices; other values
// typed into the URL still work.
var (
	auditLogTargetTypes = []string{"fact", "facts", "decision", "node", "entity", "entity_merge", "policy",
		"review_item", "tombstone", "user", "token", "database"}
	auditLogActions = []string{"fact", "fact.create", "fact.update", "fact.reinforce", "fact.reclassify",
		"fact.archive", "fact.restore", "fact.decay", "decision", "decision.create", "decision.update",
		"decision.reopen", "decision.relock", "node", "node.push", "node.durability", "entity", "entity.merge",
		"entity.unmerge", "entity.alias_add", "entity.alias_remove", "policy.update",
		"user", "user.create", "user.role", "user.disable", "user.enable", "token", "token.create", "token.revoke",
		"auth", "auth.signin", "auth.signin_failed", "auth.signout", "auth.password_change",
		"auth.password_reset_issued", "auth.password_reset_used", "backup", "backup.create", "backup.restore"}
)

// auditList shows the audit log, newest first, filtered by the query string,
// one keyset page at a time.
func (s *Console) auditList(c echo.Context) error {
	view, filter, err := parseAuditLogFilter(c.QueryParams())
	if err != nil {
		return err
	}
	filter.Limit = auditLogPageSize + 1
	entries, err := s.store.ListAudit(c.Request().Context(), filter)
	if err != nil {
		return err
	}
	isAdmin := signedInAs(c, auth.RoleAdmin)
	p := pages.AuditLogPage{Now: s.now(), Filter: view, TargetTypes: auditLogTargetTypes, Actions: auditLogActions}
	if view.TargetType != "" && !slices.Contains(p.TargetTypes, view.TargetType) {
		p.TargetTypes = append(slices.Clone(p.TargetTypes), view.TargetType)
	}
	if len(entries) > auditLogPageSize {
		entries = entries[:auditLogPageSize]
		p.NextURL = auditLogURL(view, entries[len(entries)-1].ID)
	}
	if filter.BeforeID != 0 {
		p.FirstURL = auditLogURL(view, 0)
	}
	for _, e := range entries {
		before := auditLogFields(e.Before)
		row := pages.AuditLogRow{
			ID: e.ID, At: e.At, Actor: e.Actor, Action: e.Action, TargetType: e.TargetType,
			TargetID: e.TargetID, Reason: e.Reason, Changes: auditLogDiff(before, auditLogFields(e.After)),
		}
		if e.Scope != nil {
			row.Scope = *e.Scope
		}
		row.ActorName = e.Actor
		if kind, name, ok := strings.Cut(e.Actor, ":"); ok {
			row.ActorKind, row.ActorName = kind, name
		}
		row.Created = len(before) == 0 && len(row.Changes) > 0
		row.TargetLabel, row.TargetHref = auditLogTarget(e.TargetType, e.TargetID, row.Scope, isAdmin)
		p.Rows = append(p.Rows, row)
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Audit log", "audit", nil, pages.AuditLogResults(p))
	}
	return s.page(c, http.StatusOK, "Audit log", "audit", pages.AuditLog(p), nil)
}

// parseAuditLogFilter reads the audit filter from the URL. Text the store
// cannot take (memory.CheckParams) is refused first; dates are parsed here;
// the engine validates the rest. A bad value is a 400 naming it.
func parseAuditLogFilter(v url.Values) (pages.AuditLogFilter, memory.AuditFilter, error) {
	if err := memory.CheckParams(v); err != nil {
		return pages.AuditLogFilter{}, memory.AuditFilter{}, err
	}
	view := pages.AuditLogFilter{
		Actor:      strings.TrimSpace(v.Get("actor")),
		Action:     strings.TrimSpace(v.Get("action")),
		TargetType: strings.TrimSpace(v.Get("target_type")),
		TargetID:   strings.TrimSpace(v.Get("target_id")),
		Scope:      strings.TrimSpace(v.Get("scope")),
		Since:      strings.TrimSpace(v.Get("since")),
		Until:      strings.TrimSpace(v.Get("until")),
	}
	f := memory.AuditFilter{Actor: view.Actor, Action: view.Action, TargetType: view.TargetType,
		TargetID: view.TargetID, Scope: view.Scope}
	var err error
	if f.Since, err = parseAuditLogTime("since", view.Since, false); err != nil {
		return view, f, err
	}
	if f.Until, err = parseAuditLogTime("until", view.Until, true); err != nil {
		return view, f, err
	}
	f.BeforeID, err = keysetBefore(v, "audit row")
	return view, f, err
}

// parseAuditLogTime reads a date (YYYY-MM-DD, in UTC) or a timestamp. A date
// given as the end of a range includes that whole day.
func parseAuditLogTime(field, s string, end bool) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			t = t.Add(24 * time.Hour)
		}
		return &t, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t, nil
		}
	}
	return nil, memory.Invalidf(field, "invalid date %q: use YYYY-MM-DD (UTC), or a timestamp such as 2026-11-30T12:00:00Z", s)
}

// auditLogURL is the audit log URL for the filter, below row id before.
func auditLogURL(f pages.AuditLogFilter, before int64) string {
	return pages.ListURL("/audit", map[string]string{"actor": f.Actor, "action": f.Action, "target_type": f.TargetType,
		"target_id": f.TargetID, "scope": f.Scope, "since": f.Since, "until": f.Until}, before)
}

// auditLogTarget names an audit row's target and links it to its page, where
// one exists (users and tokens only for admins, who may open them).
func auditLogTarget(typ, id, scope string, isAdmin bool) (string, string) {
	if id == "" {
		// A row about no row, such as a failed sign-in with an email that
		// names nobody.
		return "unknown " + typ, ""
	}
	label := typ + " " + id
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return label, ""
	}
	switch typ {
	case "fact":
		return label, "/facts/" + id
	case "facts":
		return "facts from " + id, "/facts/" + id
	case "decision":
		return label, "/decisions/" + id
	case "node":
		v := url.Values{"before": {strconv.FormatInt(n+1, 10)}}
		if scope != "" {
			v.Set("scope", scope)
		}
		return label, "/working?" + v.Encode()
	case "entity", "entity_merge":
		anchor := "#entity-"
		if typ == "entity_merge" {
			label, anchor = "merge "+id, "#merge-"
		}
		if scope != "" {
			return label, pages.EntitiesURL(scope, "") + anchor + id
		}
	case "policy":
		return label, "/policies#policy-" + id
	case "user":
		if isAdmin {
			return label, "/users#user-" + id
		}
	case "token":
		if isAdmin {
			return label, "/tokens#token-" + id
		}
	}
	return label, ""
}

// auditLogDiff lists every key of before ∪ after (as auditLogFields reads
// them), sorted, with its old and new values as compact JSON.
func auditLogDiff(b, a map[string]string) []pages.AuditLogChange {
	keys := unionKeys(b, a)
	out := make([]pages.AuditLogChange, 0, len(keys))
	for _, k := range keys {
		old, hadOld := b[k]
		cur, hasNew := a[k]
		ch := pages.AuditLogChange{Key: k, Old: old, New: cur, Changed: !(hadOld && hasNew && old == cur)}
		if !ch.Changed {
			ch.Old = ""
		}
		out = append(out, ch)
	}
	return out
}

// auditLogFields reads a JSON document as its keys and compact values; a
// value that is not an object shows as one key, "value".
func auditLogFields(raw json.RawMessage) map[string]string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return map[string]string{"value": auditLogCompact(raw)}
	}
	out := make(map[string]string, len(obj))
	for k, v := range obj {
		out[k] = auditLogCompact(v)
	}
	return out
}

func auditLogCompact(v json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return string(v)
	}
	return buf.String()
}
