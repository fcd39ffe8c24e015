package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/components"
	"github.com/tenurehq/tenure/views/pages"
)

// factShow shows one fact: its fields, its confidence over time, its history
// and, for reviewers, its edit form.
func (s *Console) factShow(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	f, err := s.store.GetFact(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return s.renderFact(c, http.StatusOK, f, factFormOf(f), nil)
}

// factMove moves a fact to another entity or key through the engine, with
// the reason typed beside it: 303 back to the fact on success, 422 with the
// form and the error beside its field when the engine refuses a value, 409
// when a locked decision settles the entity and key or someone else saved
// the fact first.
func (s *Console) factMove(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cur, err := s.store.GetFact(ctx, id)
	if err != nil {
		return err
	}
	form := pages.FactMoveForm{
		Version: c.FormValue("version"), Entity: c.FormValue("entity"),
		Key: strings.TrimSpace(c.FormValue("key")), Reason: c.FormValue("reason"),
	}
	moveFailed := func(status int, field, msg string) error {
		switch field {
		case "entity", "key", "reason":
		default:
			field = ""
		}
		form.Errors = map[string]string{field: msg}
		return s.renderFactPage(c, status, cur, func(v *pages.FactPage) { v.Move = form })
	}
	version, err := strconv.ParseInt(form.Version, 10, 32)
	if err != nil || version <= 0 {
		return moveFailed(http.StatusUnprocessableEntity, "",
			"The form does not say which version of the fact it moves: reload the page and move it again.")
	}
	if err = checkForm(c); err == nil {
		var moved memory.Fact
		moved, err = s.store.MoveFact(ctx, actor(c), id, int32(version), form.Entity, form.Key, form.Reason)
		if err == nil {
			if moved.Version == int32(version) {
				return s.redirectWithFlash(c, factPath(id), "info", "Nothing to move: the fact is already there.")
			}
			where := "about " + moved.Entity + ", without a key"
			if moved.Key != "" {
				where = "about " + moved.Entity + ", key " + moved.Key
			}
			return s.redirectWithFlash(c, factPath(id), "ok",
				fmt.Sprintf("Fact %d moved: now %s (version %d).", id, where, moved.Version))
		}
	}
	me := memory.AsError(err)
	switch {
	case me != nil && me.CurrentFact != nil:
		cur = *me.CurrentFact
		kept := form
		form = factMoveFormOf(cur)
		form.Reason = kept.Reason
		form.Errors = map[string]string{"": fmt.Sprintf("Someone else changed this fact while you were moving it (it is now at version %d): "+
			"the form shows where it is now; you asked for %s%s. Check and move it again.", cur.Version, kept.Entity, keySuffix(kept.Key))}
		return s.renderFactPage(c, http.StatusConflict, cur, func(v *pages.FactPage) { v.Move = form })
	case me != nil && me.Code == memory.CodeDecisionLocked:
		return moveFailed(http.StatusConflict, me.Field, me.Message)
	case me != nil && me.Code == memory.CodeInvalid:
		return moveFailed(http.StatusUnprocessableEntity, me.Field, me.Message)
	}
	return err
}

// keySuffix is ", key k" for a key, and nothing for none.
func keySuffix(key string) string {
	if key == "" {
		return " without a key"
	}
	return ", key " + key
}

// factMoveFormOf is the move form filled with where f is.
func factMoveFormOf(f memory.Fact) pages.FactMoveForm {
	return pages.FactMoveForm{Version: strconv.FormatInt(int64(f.Version), 10), Entity: f.Entity, Key: f.Key}
}

// factSave applies the edit form through the engine: 303 back to the fact
// on success, 422 with the form and the error beside its field when the
// engine refuses a value, 409 with the current values when someone else
// saved the fact first.
func (s *Console) factSave(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cur, err := s.store.GetFact(ctx, id)
	if err != nil {
		return err
	}
	form := pages.FactForm{
		Version:    c.FormValue("version"),
		Content:    c.FormValue("content"),
		Durability: strings.TrimSpace(c.FormValue("durability")),
		Category:   strings.TrimSpace(c.FormValue("category")),
		Confidence: strings.TrimSpace(c.FormValue("confidence")),
		Deadline:   strings.TrimSpace(c.FormValue("deadline")),
		Reason:     c.FormValue("reason"),
	}
	version, err := strconv.ParseInt(form.Version, 10, 32)
	if err != nil || version <= 0 {
		form.Errors = map[string]string{"": "The form does not say which version of the fact it edits: reload the page and apply your change again."}
		return s.renderFact(c, http.StatusUnprocessableEntity, cur, form, nil)
	}
	var ch memory.FactChanges
	err = checkForm(c)
	if err == nil {
		ch, err = factChangesFrom(form, cur)
	}
	if err == nil {
		var saved memory.Fact
		saved, err = s.store.UpdateFact(ctx, actor(c), id, int32(version), ch, form.Reason)
		if err == nil {
			if saved.Version == int32(version) {
				return s.redirectWithFlash(c, factPath(id), "info", "Nothing to save: the fact already has these values.")
			}
			return s.redirectWithFlash(c, factPath(id), "ok",
				fmt.Sprintf("Fact %d saved (version %d).", id, saved.Version))
		}
	}
	if stale := memory.AsError(err); stale != nil && stale.CurrentFact != nil {
		now := *stale.CurrentFact
		return s.renderFact(c, http.StatusConflict, now, factFormOf(now), &pages.FactConflict{
			Message: fmt.Sprintf("Someone else changed this fact while you were editing it (it is now at version %d). "+
				"The form shows the current values: check them and apply your change again.", now.Version),
			Yours: form,
		})
	}
	var me *memory.Error
	if errors.As(err, &me) && me.Code == memory.CodeInvalid {
		field := me.Field
		switch field {
		case "content", "durability", "category", "confidence", "deadline", "reason":
		default:
			field = ""
		}
		form.Errors = map[string]string{field: me.Message}
		return s.renderFact(c, http.StatusUnprocessableEntity, cur, form, nil)
	}
	return err
}

// checkForm refuses a posted form, query string included, that holds text the
// store cannot take: bytes that are not UTF-8, a NUL or another control
// character than tab, newline and carriage return, in any field. The error
// is memory's CodeInvalid naming the field, so each form answers it as it
// answers any invalid value (422 with the error beside the field, or a flash
// message on the lists), before anything reaches the database.
func checkForm(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return memory.Invalidf("", "the form could not be read: %v", err)
	}
	return memory.CheckParams(form)
}

// factChangesFrom turns the edit form into the engine's changes. Values the
// form shows rounded (confidence to three decimals, the deadline to the
// minute) count as changed only when they differ from what the form showed,
// so that saving an untouched form neither re-confirms the fact nor moves its
// deadline.
func factChangesFrom(form pages.FactForm, cur memory.Fact) (memory.FactChanges, error) {
	var ch memory.FactChanges
	content := form.Content
	ch.Content = &content
	if form.Durability != "" {
		d := memory.Durability(form.Durability)
		ch.Durability = &d
	}
	category := form.Category
	ch.Category = &category
	shown := factFormOf(cur)
	if form.Confidence == "" {
		return ch, memory.Invalidf("confidence", "the confidence is empty: %s, such as 0.8", memory.UnitBound.Allowed())
	}
	if form.Confidence != shown.Confidence {
		v, err := strconv.ParseFloat(form.Confidence, 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			// A number too large for a float (1e400): refused with the
			// bound, as the engine refuses one a float holds.
			return ch, memory.CheckNumber("confidence", "confidence", form.Confidence)
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			return ch, memory.Invalidf("confidence", "%q is not a number: %s, such as 0.8", form.Confidence, memory.UnitBound.Allowed())
		}
		ch.Confidence = &v
	}
	if form.Deadline != shown.Deadline {
		if form.Deadline == "" {
			ch.ClearDeadline = true
		} else {
			t, err := parseDatetimeLocal(form.Deadline)
			if err != nil {
				return ch, memory.Invalidf("deadline", "%q is not a date and time: use the form 2026-12-31T17:00 (UTC)", form.Deadline)
			}
			ch.Deadline = &t
		}
	}
	return ch, nil
}

// datetimeLocal is the value format of <input type="datetime-local">.
const datetimeLocal = "2006-01-02T15:04"

func parseDatetimeLocal(s string) (time.Time, error) {
	for _, layout := range []string{datetimeLocal, "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid datetime-local %q", s)
}

// factFormOf is the edit form filled with f's current values.
func factFormOf(f memory.Fact) pages.FactForm {
	form := pages.FactForm{
		Version:    strconv.FormatInt(int64(f.Version), 10),
		Content:    f.Content,
		Durability: string(f.Durability),
		Category:   f.Category,
		Confidence: strconv.FormatFloat(math.Round(f.Confidence*1000)/1000, 'f', -1, 64),
	}
	if f.Deadline != nil {
		form.Deadline = f.Deadline.UTC().Format(datetimeLocal)
	}
	return form
}

func factPath(id int64) string { return "/facts/" + strconv.FormatInt(id, 10) }

// renderFact renders the fact page with status, the form as given and, after
// a 409, the conflict.
func (s *Console) renderFact(c echo.Context, status int, f memory.Fact, form pages.FactForm, conflict *pages.FactConflict) error {
	return s.renderFactPage(c, status, f, func(v *pages.FactPage) { v.Form, v.Conflict = form, conflict })
}

// renderFactPage renders the fact page with status, its forms filled with
// f's values, and then changed by with (a form as typed, with its errors).
func (s *Console) renderFactPage(c echo.Context, status int, f memory.Fact, with func(*pages.FactPage)) error {
	ctx := c.Request().Context()
	now := s.now()
	history, err := s.store.FactHistory(ctx, f.ID)
	if err != nil {
		return err
	}
	decisions, err := s.store.DecisionsOfFacts(ctx, []int64{f.ID})
	if err != nil {
		return err
	}
	policies, err := s.store.ListPolicies(ctx)
	if err != nil {
		return err
	}
	cats, err := s.store.Categories(ctx)
	if err != nil {
		return err
	}
	view := pages.FactPage{
		Fact: factDetailOf(f, now), Form: factFormOf(f), Move: factMoveFormOf(f), CanEdit: signedInAs(c, auth.RoleReviewer),
		Categories: mergeSorted(memory.SuggestedCategories(), cats), Now: now,
	}
	with(&view)
	if id, ok := decisions[f.ID]; ok {
		view.DecisionID = id
	}
	view.Durabilities = durabilityNames
	for _, h := range history {
		view.History = append(view.History, historyRowOf(h))
	}
	if p, ok := memory.PolicyFor(policies, f.Durability, f.Category, f.Deadline); ok {
		plot := factPlot(f, p, now)
		view.Plot = &plot
	}
	return s.page(c, status, fmt.Sprintf("Fact %d", f.ID), "facts", pages.Fact(view), nil)
}

func factDetailOf(f memory.Fact, now time.Time) pages.FactDetail {
	d := pages.FactDetail{
		Held: f.Status == memory.StatusActive && f.Held(), Overdue: f.Status == memory.StatusActive && f.Overdue(now),
		ID: f.ID, Scope: f.Scope, Entity: f.Entity, Key: f.Key, Content: f.Content,
		Durability: string(f.Durability), Category: f.Category, Status: string(f.Status), Source: f.Source,
		Confidence: f.Confidence, Effective: f.EffectiveConfidence, Importance: f.Importance,
		ConfirmedAt: f.ConfirmedAt, ExpiresAt: f.ExpiresAt, Deadline: f.Deadline, ForgetAt: f.ForgetAt,
		ArchivedAt: f.ArchivedAt, ArchiveReason: f.ArchiveReason, SourceNodeID: f.SourceNodeID,
		ExtractionCount: f.ExtractionCount, Version: f.Version, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
	if f.Status == memory.StatusArchived {
		d.SupersededBy = supersededBy(f.ArchiveReason)
	}
	return d
}

// supersededBy reads the newer fact out of the archive reason "superseded
// by fact N" that supersession writes; 0 for any other reason.
func supersededBy(reason string) int64 {
	rest, ok := strings.CutPrefix(reason, "superseded by fact ")
	if !ok {
		return 0
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id <= 0 {
		return 0
	}
	return id
}

// The span of the confidence plot.
const (
	plotSamples      = 120
	plotNearSamples  = 90                       // of a piecewise plot, before its break
	plotScaleSpan    = 2 * 365 * 24 * time.Hour // a longer plot may compress its far part
	plotMinSpan      = 60 * 24 * time.Hour      // the span of a curve that never decays
	plotMinAfterNow  = time.Hour
	plotNowMarginDiv = 8                    // after now, keep an eighth of the elapsed span in view
	plotMinToScale   = 365 * 24 * time.Hour // a compressed plot keeps at least a year to scale
)

// factPlot samples f's effective confidence under p from its confirmation to
// the moment it is forgotten (forget_at), which is always on the plot, however
// far: a plot longer than two years whose far part is longer than its near
// part keeps the time from confirmation to well past now to scale (at least
// a year, and half as long again after now as before it) and compresses the
// rest, to forget_at, into the right part of the plot, shaded and labelled.
// A fact that never decays is drawn over one half-life (at least 60 days,
// at most two years). An obligation that decay holds once overdue is drawn
// with its deadline marked rather than a forget date. The span always
// reaches past now, so now is marked.
func factPlot(f memory.Fact, p memory.Policy, now time.Time) pages.FactPlot {
	from := f.ConfirmedAt
	held := f.Status == memory.StatusActive && f.Held()
	var end time.Time
	switch {
	case f.ForgetAt != nil:
		end = *f.ForgetAt
	case p.HalfLife != nil:
		end = from.Add(min(max(*p.HalfLife, plotMinSpan), plotScaleSpan))
	default:
		end = from.Add(plotMinSpan)
	}
	if !now.Before(end) {
		end = now.Add(max(now.Sub(from)/plotNowMarginDiv, plotMinAfterNow))
	}
	if !end.After(from) {
		end = from.Add(24 * time.Hour)
	}
	var brk time.Time
	if end.Sub(from) > plotScaleSpan {
		split := now.Add(now.Sub(from) / 2)
		if least := from.Add(plotMinToScale); split.Before(least) {
			split = least
		}
		if split.Before(end) && end.Sub(split) > split.Sub(from) {
			brk = split
		}
	}
	var curve []memory.ConfidencePoint
	if brk.IsZero() {
		curve = memory.ConfidenceCurve(f, p, from, end, plotSamples)
	} else {
		curve = append(memory.ConfidenceCurve(f, p, from, brk, plotNearSamples),
			memory.ConfidenceCurve(f, p, brk, end, plotSamples-plotNearSamples)[1:]...)
	}
	// Sample the kinks and now exactly: a deadline-anchored curve bends at
	// its deadline, and the now marker reads the curve at now.
	for _, at := range []time.Time{p.AnchorAt(f.ConfirmedAt, f.Deadline), now} {
		if at.After(from) && at.Before(end) {
			curve = append(curve, memory.ConfidencePoint{At: at, Confidence: p.Confidence(f.Confidence, f.ConfirmedAt, f.Deadline, at)})
		}
	}
	slices.SortFunc(curve, func(a, b memory.ConfidencePoint) int { return a.At.Compare(b.At) })
	points := make([]components.PlotPoint, len(curve))
	for i, pt := range curve {
		points[i] = components.PlotPoint{At: pt.At, Value: pt.Confidence}
	}
	plot := pages.FactPlot{
		Points:  points,
		Floor:   p.Floor,
		Label:   plotLabel(f, now),
		Caption: policyCaption(p),
		Options: components.PlotOptions{Break: brk},
	}
	switch {
	case held:
		plot.Options.Markers = append(plot.Options.Markers, components.PlotMarker{At: *f.Deadline, Label: "due", TestID: "plot-due"})
		plot.Caption += " An obligation is never forgotten once overdue: it stays until someone marks it done or lets it go."
	case f.ForgetAt != nil && f.Status == memory.StatusActive:
		label := "forgotten"
		if !f.ForgetAt.After(now) {
			label = "forget date"
		}
		plot.Options.Markers = append(plot.Options.Markers, components.PlotMarker{
			At: *f.ForgetAt, Label: label, TestID: "plot-forget", Danger: true})
	}
	if !brk.IsZero() {
		plot.AxisNote = fmt.Sprintf("Time axis: to scale until %s; compressed after it (the shaded part) to reach %s.",
			brk.UTC().Format("2 Jan 2006"), end.UTC().Format("2 Jan 2006"))
		if f.ForgetAt != nil && end.Equal(*f.ForgetAt) && !held {
			plot.AxisNote = fmt.Sprintf("Time axis: to scale until %s; compressed after it (the shaded part) to reach the forget date, %s.",
				brk.UTC().Format("2 Jan 2006"), end.UTC().Format("2 Jan 2006"))
		}
	}
	return plot
}

// plotLabel describes the plot in one sentence, for its title and for
// screen readers: "Confidence 64% now, forgotten in 12 days".
func plotLabel(f memory.Fact, now time.Time) string {
	head := fmt.Sprintf("Confidence %.0f%% now", f.EffectiveConfidence*100)
	switch {
	case f.Status == memory.StatusArchived && f.ArchivedAt != nil:
		return head + ", archived " + humanDuration(now.Sub(*f.ArchivedAt)) + " ago"
	case f.Held() && f.Overdue(now):
		return head + ", overdue by " + humanDuration(now.Sub(*f.Deadline)) + ": kept until someone marks it done or lets it go"
	case f.Held():
		return head + ", due in " + humanDuration(f.Deadline.Sub(now)) + ": once overdue it is kept until someone marks it done or lets it go"
	case f.ForgetAt == nil:
		return head + ", never forgotten: it does not decay"
	case f.ForgetAt.After(now):
		return head + ", forgotten in " + humanDuration(f.ForgetAt.Sub(now))
	default:
		return head + ", due to be forgotten at the next decay run"
	}
}

// policyCaption names the policy behind the curve.
func policyCaption(p memory.Policy) string {
	var b strings.Builder
	b.WriteString("Decay policy: " + strings.ReplaceAll(p.Target(), "_", "-") + ", ")
	if p.HalfLife == nil {
		b.WriteString("no decay")
	} else {
		b.WriteString("half-life " + humanDuration(*p.HalfLife))
		if p.Anchor == memory.AnchorDeadline {
			b.WriteString(" from the deadline")
		}
	}
	fmt.Fprintf(&b, "; archived below the %.0f%% floor (dashed line).", p.Floor*100)
	return b.String()
}

// humanDuration is d in the largest whole unit that fits: "12 days",
// "5 hours", "1 year".
func humanDuration(d time.Duration) string {
	d = d.Abs()
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + one + "s"
	}
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return unit(int64(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return unit(int64(d/time.Hour), "hour")
	case d < 730*24*time.Hour:
		return unit(int64(d/(24*time.Hour)), "day")
	default:
		return unit(int64(d/(365*24*time.Hour)), "year")
	}
}

// historyRowOf turns an audit row into a line of the history: one change per
// field present before or after.
func historyRowOf(r memory.AuditRecord) pages.HistoryRow {
	row := pages.HistoryRow{At: r.At, Actor: r.Actor, Action: r.Action, Reason: r.Reason}
	before, after := auditFields(r.Before), auditFields(r.After)
	fields := unionKeys(before, after)
	slices.SortStableFunc(fields, func(a, b string) int {
		if ra, rb := historyFieldRank(a), historyFieldRank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	for _, k := range fields {
		b, hasBefore := before[k]
		a, hasAfter := after[k]
		row.Changes = append(row.Changes, pages.HistoryChange{
			Field: k, Before: auditValue(b), After: auditValue(a), HasBefore: hasBefore, HasAfter: hasAfter,
		})
	}
	return row
}

// historyFieldRank puts the fields people edit first and the derived ones
// (forget_at, version) last.
func historyFieldRank(field string) int {
	switch field {
	case "content":
		return 0
	case "forget_at":
		return 2
	case "version":
		return 3
	}
	return 1
}

func auditFields(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return map[string]json.RawMessage{"value": raw}
	}
	return m
}

// auditValue shows one audited JSON value: strings unquoted, times as UTC
// stamps, null as "none".
func auditValue(raw json.RawMessage) string {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "none"
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC().Format("2006-01-02 15:04 UTC")
		}
		if s == "" {
			return `""`
		}
		return s
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// factBulk reclassifies, archives or restores the checked facts through the
// engine, in one transaction, and goes back to where the form came from with
// a message saying what changed. A refusal writes nothing and comes back
// with the engine's explanation.
func (s *Console) factBulk(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	back := localReturnPath(form.Get("return"), "/facts")
	if err := memory.CheckParams(form); err != nil {
		return s.redirectWithFlash(c, back, "error", "Nothing was changed: "+err.Error()+".")
	}
	var ids []int64
	for _, raw := range slices.Concat(form["ids"], form["ids[]"]) {
		id, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil || id <= 0 {
			return s.redirectWithFlash(c, back, "error", fmt.Sprintf("Nothing was changed: %s is not a fact id.", quotedInput(raw)))
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return s.redirectWithFlash(c, back, "error", "Nothing was changed: no facts were selected. Tick the facts to change first.")
	}
	ctx := c.Request().Context()
	reason := form.Get("reason")
	var (
		n         int
		done      string
		unchanged string
	)
	switch action := form.Get("action"); action {
	case "archive":
		n, err = s.store.ArchiveFacts(ctx, actor(c), ids, reason)
		done, unchanged = "archived", "already archived"
	case "restore":
		n, err = s.store.RestoreFacts(ctx, actor(c), ids, reason)
		done, unchanged = "restored", "already active"
	case "reclassify":
		var durability *memory.Durability
		if d := strings.TrimSpace(form.Get("durability")); d != "" {
			durability = (*memory.Durability)(&d)
		}
		var category *string
		if cat := strings.TrimSpace(form.Get("category")); cat != "" {
			category = &cat
		}
		n, err = s.store.ReclassifyFacts(ctx, actor(c), ids, durability, category, reason)
		done, unchanged = "reclassified", "already classified that way"
	default:
		return s.redirectWithFlash(c, back, "error",
			fmt.Sprintf("Nothing was changed: unknown action %s; choose reclassify, archive or restore.", quotedInput(action)))
	}
	if err != nil {
		var me *memory.Error
		if errors.As(err, &me) && me.Code != "" {
			return s.redirectWithFlash(c, back, "error", "Nothing was changed: "+me.Message)
		}
		return err
	}
	msg := fmt.Sprintf("%s %s.", countFacts(n), done)
	if skipped := len(slices.Compact(slices.Sorted(slices.Values(ids)))) - n; skipped > 0 {
		msg = fmt.Sprintf("%s %s; %s unchanged (%s).", countFacts(n), done, countFacts(skipped), unchanged)
	}
	return s.redirectWithFlash(c, back, "ok", strings.ToUpper(msg[:1])+msg[1:])
}

func countFacts(n int) string {
	if n == 1 {
		return "1 fact"
	}
	return thousands(n) + " facts"
}
