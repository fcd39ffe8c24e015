package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

const decisionsPageSize = 50

// decisionList shows decisions, newest first, filtered by the query string,
// one keyset page at a time, with the number of writes each one refused.
func (s *Console) decisionList(c echo.Context) error {
	ctx := c.Request().Context()
	filter, before, err := parseDecisionsFilter(c.QueryParams())
	if err != nil {
		return err
	}
	mf := memory.DecisionFilter{Scope: filter.Scope, Entity: filter.Entity, State: filter.State, Query: filter.Query,
		Limit: decisionsPageSize + 1, BeforeID: before}
	if filter.Lock != "" {
		locked := filter.Lock == "locked"
		mf.Locked = &locked
	}
	list, err := s.store.ListDecisions(ctx, mf)
	if err != nil {
		return err
	}
	view := pages.DecisionsPage{Filter: filter, Now: s.now(), CanEdit: signedInAs(c, auth.RoleReviewer)}
	if len(list) > decisionsPageSize {
		list = list[:decisionsPageSize]
		view.NextURL = decisionsURL(filter, list[len(list)-1].ID)
	}
	if before != 0 {
		view.FirstURL = decisionsURL(filter, 0)
	}
	ids := make([]int64, len(list))
	for i, d := range list {
		ids[i] = d.ID
	}
	refusals, err := s.store.CountRefusals(ctx, ids)
	if err != nil {
		return err
	}
	for _, d := range list {
		view.Decisions = append(view.Decisions, pages.DecisionListRow{
			ID: d.ID, Scope: d.Scope, Entity: d.Entity, Key: d.Key, Decision: d.Decision,
			DecidedBy: d.DecidedBy, DecidedAt: d.DecidedAt, Locked: d.DoNotReopen, Reopened: d.ReopenedAt != nil, Refusals: refusals[d.ID],
			SupersededBy: d.SupersededBy,
		})
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Decisions", "decisions", nil, pages.DecisionsResults(view))
	}
	if view.Scopes, err = s.store.Scopes(ctx); err != nil {
		return err
	}
	return s.page(c, http.StatusOK, "Decisions", "decisions", pages.Decisions(view), nil)
}

// parseDecisionsFilter reads and validates the decisions filter; a bad value
// is a 400 that names the parameter and what it accepts, text the store
// cannot take (memory.CheckParams) first.
func parseDecisionsFilter(v url.Values) (pages.DecisionsFilter, int64, error) {
	if err := memory.CheckParams(v); err != nil {
		return pages.DecisionsFilter{}, 0, err
	}
	f := pages.DecisionsFilter{
		Scope:  strings.TrimSpace(v.Get("scope")),
		Entity: strings.TrimSpace(v.Get("entity")),
		Lock:   strings.TrimSpace(v.Get("lock")),
		State:  strings.TrimSpace(v.Get("state")),
		Query:  strings.TrimSpace(v.Get("q")),
	}
	if f.Scope != "" {
		if _, err := memory.ParseScope(f.Scope); err != nil {
			return f, 0, err
		}
	}
	if n := utf8.RuneCountInString(f.Entity); n > 200 {
		return f, 0, memory.Invalidf("entity", "the entity is %d characters long: at most 200 are allowed", n)
	}
	switch f.Lock {
	case "", "locked", "open":
	default:
		return f, 0, memory.Invalidf("lock", "unknown lock %q: allowed values are locked, open (or none for both)", f.Lock)
	}
	switch f.State {
	case "all":
		f.State = ""
	case "", memory.DecisionCurrent, memory.DecisionSuperseded, memory.DecisionReopened, memory.DecisionOpen:
	default:
		return f, 0, memory.Invalidf("state", "unknown state %q: allowed values are %s, all", f.State, strings.Join(memory.DecisionFilterStates, ", "))
	}
	if n := utf8.RuneCountInString(f.Query); n > 200 {
		return f, 0, memory.Invalidf("q", "the text search is %d characters long: at most 200 are allowed", n)
	}
	before, err := keysetBefore(v, "decision")
	return f, before, err
}

// decisionsURL is the decisions list URL for filter, starting below id before.
func decisionsURL(f pages.DecisionsFilter, before int64) string {
	return pages.ListURL("/decisions", map[string]string{"scope": f.Scope, "entity": f.Entity, "lock": f.Lock, "state": f.State, "q": f.Query}, before)
}

// decisionShow shows one decision, its lock, the writes it refused and its
// history; reviewers also get the edit, reopen and relock forms.
func (s *Console) decisionShow(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	d, err := s.store.GetDecision(c.Request().Context(), id)
	if err != nil {
		return err
	}
	view := pages.DecisionPage{Form: decisionFormOf(d)}
	return s.renderDecision(c, http.StatusOK, d, view)
}

// renderDecision completes view with d, its refused writes and its history,
// and renders the decision page with status.
func (s *Console) renderDecision(c echo.Context, status int, d memory.Decision, view pages.DecisionPage) error {
	ctx := c.Request().Context()
	refused, err := s.store.RefusedWrites(ctx, d.ID)
	if err != nil {
		return err
	}
	history, err := s.store.DecisionHistory(ctx, d.ID)
	if err != nil {
		return err
	}
	view.Decision = pages.DecisionDetail{
		ID: d.ID, FactID: d.FactID, Scope: d.Scope, Entity: d.Entity, Key: d.Key, Decision: d.Decision,
		Alternatives: d.Alternatives, Reasoning: d.Reasoning, DecidedBy: d.DecidedBy, DecidedAt: d.DecidedAt,
		Locked: d.DoNotReopen, ReopenedAt: d.ReopenedAt, ReopenedBy: d.ReopenedBy, ReopenReason: d.ReopenReason,
		Version: d.Version, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, SupersededBy: d.SupersededBy,
	}
	view.CanEdit = signedInAs(c, auth.RoleReviewer)
	view.Now = s.now()
	for _, r := range refused {
		view.Refused = append(view.Refused, decisionRefusedRow(r))
	}
	for _, h := range history {
		view.History = append(view.History, decisionHistoryRow(h))
	}
	title := "Decision " + strconv.FormatInt(d.ID, 10)
	return s.page(c, status, title, "decisions", pages.Decision(view), nil)
}

func decisionRefusedRow(r memory.Rejection) pages.DecisionRefusedRow {
	row := pages.DecisionRefusedRow{
		ID: r.ID, At: r.CreatedAt, Source: r.Source, RunID: r.RunID, Phase: r.Phase, NodeID: r.NodeID,
		Scope: r.Scope, Content: r.Content,
	}
	var props struct {
		Actor  string `json:"actor"`
		Action string `json:"action"`
	}
	if r.RunID == nil && json.Unmarshal(r.Properties, &props) == nil {
		row.Actor, row.Action = props.Actor, props.Action
	}
	return row
}

// decisionHistoryRow turns an audit row into the fields it changed.
func decisionHistoryRow(h memory.AuditRecord) pages.DecisionHistoryRow {
	row := pages.DecisionHistoryRow{At: h.At, Actor: h.Actor, Action: h.Action, Reason: h.Reason}
	var before, after map[string]json.RawMessage
	_ = json.Unmarshal(h.Before, &before)
	_ = json.Unmarshal(h.After, &after)
	for _, k := range unionKeys(before, after) {
		if k == "version" || k == "fact_id" {
			continue
		}
		b, hasBefore := before[k]
		a, hasAfter := after[k]
		row.Changes = append(row.Changes, pages.DecisionHistoryChange{
			Field: k, Before: decisionAuditValue(b), After: decisionAuditValue(a), HasBefore: hasBefore, HasAfter: hasAfter,
		})
	}
	return row
}

// auditValue shows one JSON value of an audit row: strings unquoted, lists
// joined, anything else as JSON.
func decisionAuditValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		if len(list) == 0 {
			return "none"
		}
		return strings.Join(list, "; ")
	}
	return string(raw)
}

// decidedAtLayout is how datetime-local inputs show a time (in UTC).
const decidedAtLayout = "2006-01-02T15:04:05"

func decisionFormOf(d memory.Decision) pages.DecisionForm {
	return pages.DecisionForm{
		Version:      strconv.Itoa(int(d.Version)),
		Decision:     d.Decision,
		Alternatives: strings.Join(d.Alternatives, "\n"),
		Reasoning:    d.Reasoning,
		DecidedBy:    d.DecidedBy,
		DecidedAt:    d.DecidedAt.UTC().Format(decidedAtLayout),
	}
}

// parseFormTime reads a datetime-local value as UTC; seconds are optional.
func decisionFormTime(field, s string) (time.Time, error) {
	for _, layout := range []string{decidedAtLayout, "2006-01-02T15:04", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, memory.Invalidf(field, "%q is not a date and time: use the form YYYY-MM-DDTHH:MM, in UTC", s)
}

// splitLines is a textarea's non-empty lines.
func decisionLines(s string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// fieldErrorOf returns the form field an invalid-input error is about and
// its message; ok is false for any other error.
func decisionFieldError(err error, fields ...string) (field, msg string, ok bool) {
	var me *memory.Error
	if !errors.As(err, &me) || me.Code != memory.CodeInvalid {
		return "", "", false
	}
	if slices.Contains(fields, me.Field) {
		return me.Field, me.Message, true
	}
	return "", me.Error(), true
}

var decisionEditFields = []string{"decision", "alternatives", "reasoning", "decided_by", "decided_at", "reason"}

// decisionSave applies the edit form through the engine: 303 back to the
// decision when saved, 422 with the error beside its field, 409 with the
// current values when someone else saved first.
func (s *Console) decisionSave(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	cur, err := s.store.GetDecision(ctx, id)
	if err != nil {
		return err
	}
	form := pages.DecisionForm{
		Version:      c.FormValue("version"),
		Decision:     c.FormValue("decision"),
		Alternatives: c.FormValue("alternatives"),
		Reasoning:    c.FormValue("reasoning"),
		DecidedBy:    c.FormValue("decided_by"),
		DecidedAt:    strings.TrimSpace(c.FormValue("decided_at")),
		Reason:       c.FormValue("reason"),
	}
	invalid := func(field, msg string) error {
		form.Errors = map[string]string{field: msg}
		return s.renderDecision(c, http.StatusUnprocessableEntity, cur, pages.DecisionPage{Form: form})
	}
	if err := checkForm(c); err != nil {
		field, msg, _ := decisionFieldError(err, decisionEditFields...)
		return invalid(field, msg)
	}
	version, err := strconv.ParseInt(form.Version, 10, 32)
	if err != nil || version < 1 {
		return invalid("", "The form has no valid version: reload the page and apply your change again.")
	}
	alternatives := decisionLines(form.Alternatives)
	ch := memory.DecisionChanges{
		Decision: &form.Decision, Alternatives: &alternatives, Reasoning: &form.Reasoning,
		DecidedBy: &form.DecidedBy,
	}
	if form.DecidedAt != "" {
		at, err := decisionFormTime("decided_at", form.DecidedAt)
		if err != nil {
			return invalid("decided_at", messageOf(err))
		}
		// The form shows whole seconds: an untouched field keeps the stored instant.
		if !at.Equal(cur.DecidedAt.Truncate(time.Second)) {
			ch.DecidedAt = &at
		}
	}
	d, err := s.store.EditDecision(ctx, actor(c), id, int32(version), ch, form.Reason)
	switch stale := memory.AsError(err); {
	case stale != nil && stale.CurrentDecision != nil:
		current := *stale.CurrentDecision
		return s.renderDecision(c, http.StatusConflict, current, pages.DecisionPage{
			Form: decisionFormOf(current),
			Conflict: &pages.DecisionConflict{
				Message: "Someone else changed this decision while you were editing it. The form now shows the current values (version " +
					strconv.Itoa(int(current.Version)) + "); apply your change again if it still holds.",
				Yours: form,
			},
		})
	case err != nil:
		field, msg, ok := decisionFieldError(err, decisionEditFields...)
		if !ok {
			return err
		}
		return invalid(field, msg)
	}
	return s.redirectWithFlash(c, decisionPath(d.ID), "ok", "Decision "+strconv.FormatInt(d.ID, 10)+" saved.")
}

func decisionPath(id int64) string { return "/decisions/" + strconv.FormatInt(id, 10) }

// decisionReopen lifts a decision's lock; the reason is required (422 beside
// the field without one).
func (s *Console) decisionReopen(c echo.Context) error { return s.decisionLock(c, true) }

// decisionRelock locks a reopened decision again; the reason is optional.
func (s *Console) decisionRelock(c echo.Context) error { return s.decisionLock(c, false) }

// decisionLock reopens (reopen) or relocks the decision with the posted
// reason: 303 back to it with a message, or lockFailed's answer.
func (s *Console) decisionLock(c echo.Context, reopen bool) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	cur, err := s.store.GetDecision(ctx, id)
	if err != nil {
		return err
	}
	reason := c.FormValue("reason")
	change, view := s.store.RelockDecision, pages.DecisionPage{Relock: pages.DecisionLockForm{Reason: reason}}
	if reopen {
		change, view = s.store.ReopenDecision, pages.DecisionPage{Reopen: pages.DecisionLockForm{Reason: reason}}
	}
	err = checkForm(c)
	var d memory.Decision
	if err == nil {
		d, err = change(ctx, actor(c), id, reason)
	}
	if err != nil {
		return s.lockFailed(c, cur, err, view, reopen)
	}
	msg := "Decision " + strconv.FormatInt(d.ID, 10) + " locked again."
	if reopen {
		msg = "Decision " + strconv.FormatInt(d.ID, 10) + " reopened: automated writers may write on " + d.Key + " again."
	}
	return s.redirectWithFlash(c, decisionPath(d.ID), "ok", msg)
}

// lockFailed answers a refused reopen or relock: 422 with the error beside
// the reason, 409 with the page and the reason the lock could not change.
func (s *Console) lockFailed(c echo.Context, cur memory.Decision, err error, view pages.DecisionPage, reopen bool) error {
	view.Form = decisionFormOf(cur)
	if field, msg, ok := decisionFieldError(err, "reason"); ok {
		if field == "" {
			view.Alert = msg
		} else if reopen {
			view.Reopen.Error = msg
		} else {
			view.Relock.Error = msg
		}
		return s.renderDecision(c, http.StatusUnprocessableEntity, cur, view)
	}
	if memory.ErrorCode(err) == memory.CodeConflict {
		fresh, gerr := s.store.GetDecision(c.Request().Context(), cur.ID)
		if gerr != nil {
			return gerr
		}
		view.Form = decisionFormOf(fresh)
		var me *memory.Error
		errors.As(err, &me)
		view.Alert = me.Message
		return s.renderDecision(c, http.StatusConflict, fresh, view)
	}
	return err
}

var newDecisionFields = []string{"scope", "entity", "key", "decision", "alternatives", "reasoning", "decided_by", "decided_at"}

// decisionNew shows the form that records a decision.
func (s *Console) decisionNew(c echo.Context) error {
	return s.renderNewDecision(c, http.StatusOK, pages.NewDecisionForm{DoNotReopen: true, Scope: c.QueryParam("scope")})
}

func (s *Console) renderNewDecision(c echo.Context, status int, form pages.NewDecisionForm) error {
	scopes, err := s.store.Scopes(c.Request().Context())
	if err != nil {
		return err
	}
	view := pages.NewDecisionPage{Form: form, Scopes: scopes, Now: s.now()}
	return s.page(c, status, "Record a decision", "decisions", pages.NewDecision(view), nil)
}

// decisionCreate records a decision through the engine: 303 to its page, or
// the form again with the error beside its field (422, or 409 when a locked
// decision already settles the key).
func (s *Console) decisionCreate(c echo.Context) error {
	form := pages.NewDecisionForm{
		Scope:        strings.TrimSpace(c.FormValue("scope")),
		Entity:       c.FormValue("entity"),
		Key:          c.FormValue("key"),
		Decision:     c.FormValue("decision"),
		Alternatives: c.FormValue("alternatives"),
		Reasoning:    c.FormValue("reasoning"),
		DecidedBy:    c.FormValue("decided_by"),
		DecidedAt:    strings.TrimSpace(c.FormValue("decided_at")),
		DoNotReopen:  c.FormValue("do_not_reopen") != "",
	}
	in := memory.NewDecision{
		Scope: form.Scope, Entity: form.Entity, Key: form.Key, Decision: form.Decision,
		Alternatives: decisionLines(form.Alternatives), Reasoning: form.Reasoning, DecidedBy: form.DecidedBy,
		DoNotReopen: &form.DoNotReopen,
	}
	if err := checkForm(c); err != nil {
		field, msg, _ := decisionFieldError(err, newDecisionFields...)
		form.Errors = map[string]string{field: msg}
		return s.renderNewDecision(c, http.StatusUnprocessableEntity, form)
	}
	if form.DecidedAt != "" {
		at, err := decisionFormTime("decided_at", form.DecidedAt)
		if err != nil {
			form.Errors = map[string]string{"decided_at": messageOf(err)}
			return s.renderNewDecision(c, http.StatusUnprocessableEntity, form)
		}
		in.DecidedAt = at
	}
	d, err := s.store.RecordDecision(c.Request().Context(), actor(c), in)
	if err != nil {
		if field, msg, ok := decisionFieldError(err, newDecisionFields...); ok {
			form.Errors = map[string]string{field: msg}
			return s.renderNewDecision(c, http.StatusUnprocessableEntity, form)
		}
		var me *memory.Error
		if errors.As(err, &me) && me.Code == memory.CodeConflict {
			form.Errors = map[string]string{me.Field: me.Message}
			if !slices.Contains(newDecisionFields, me.Field) {
				form.Errors = map[string]string{"": me.Message}
			}
			return s.renderNewDecision(c, http.StatusConflict, form)
		}
		return err
	}
	return s.redirectWithFlash(c, decisionPath(d.ID), "ok", "Decision "+strconv.FormatInt(d.ID, 10)+" recorded.")
}
