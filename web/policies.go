package web

import (
	"context"
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
	"github.com/tenurehq/tenure/views/pages"
)

// policiesUnits are the units the policy form offers for a half-life.
var policiesUnits = map[string]time.Duration{
	"hours": time.Hour,
	"days":  24 * time.Hour,
	"years": 365 * 24 * time.Hour,
}

// policyList shows every decay policy; admins also get a form per policy.
func (s *Console) policyList(c echo.Context) error {
	return s.renderPolicies(c, http.StatusOK, 0, policiesSubmitted{})
}

// policiesSubmitted is a submitted policy form to show again. A stale one
// shows the policy's current values instead, with the error.
type policiesSubmitted struct {
	pages.PolicyForm
	Stale bool
}

// policiesStamp is a policy's updated_at as the form carries it.
func policiesStamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// renderPolicies renders the policies page; the form of policy formID (when
// not 0) shows form instead of the policy's own values.
func (s *Console) renderPolicies(c echo.Context, status int, formID int64, form policiesSubmitted) error {
	return s.renderPoliciesWith(c, status, formID, form, pages.CategoryForm{})
}

// renderPoliciesWith is renderPolicies with the category form cat shown
// again (with its error) when cat.Category is set.
func (s *Console) renderPoliciesWith(c echo.Context, status int, formID int64, form policiesSubmitted, cat pages.CategoryForm) error {
	ctx := c.Request().Context()
	policies, err := s.store.ListPolicies(ctx)
	if err != nil {
		return err
	}
	view := pages.PoliciesPage{Now: s.now(), CanEdit: signedInAs(c, auth.RoleAdmin)}
	if view.Categories, err = s.categoryRows(ctx, cat); err != nil {
		return err
	}
	// A refusal about a category without a form of its own is shown above
	// the table.
	if cat.Error != "" && !slices.ContainsFunc(view.Categories, func(r pages.CategoryRow) bool { return r.Category == cat.Category && r.Editable }) {
		view.CategoryAlert = cat.Category + ": " + cat.Error
	}
	for _, p := range policies {
		row := pages.PolicyRow{
			ID: p.ID, HalfLife: policiesHalfLifeText(p.HalfLife), Anchor: p.Anchor, Floor: policiesFloorText(p.Floor),
			Description: p.Description, UpdatedBy: p.UpdatedBy, UpdatedAt: p.UpdatedAt,
		}
		switch {
		case p.Category != nil:
			row.Kind, row.Name = "category", *p.Category
		case p.Durability != nil:
			row.Kind, row.Name = "durability", *p.Durability
		}
		if p.ID == formID && !form.Stale {
			row.Form = form.PolicyForm
		} else {
			row.Form = pages.PolicyForm{Floor: row.Floor, Seen: policiesStamp(p.UpdatedAt)}
			if p.HalfLife == nil {
				row.Form.Never, row.Form.Unit = true, "days"
			} else {
				row.Form.HalfLife, row.Form.Unit = policiesHalfLifeInput(*p.HalfLife)
			}
			if p.ID == formID {
				row.Form.Open, row.Form.Reason, row.Form.Errors = true, form.Reason, form.Errors
			}
		}
		view.Policies = append(view.Policies, row)
	}
	return s.page(c, status, "Decay policies", "policies", pages.Policies(view), nil)
}

// policySave changes one decay policy through the engine, which recomputes
// forget_at for the facts it governs and audits the change.
func (s *Console) policySave(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form := pages.PolicyForm{
		HalfLife: strings.TrimSpace(c.FormValue("half_life")),
		Unit:     c.FormValue("unit"),
		Never:    c.FormValue("never") != "",
		Floor:    strings.TrimSpace(c.FormValue("floor")),
		Reason:   c.FormValue("reason"),
		Seen:     c.FormValue("seen"),
		Errors:   map[string]string{},
		Open:     true,
	}
	ch, ok := parsePoliciesForm(form)
	if !ok {
		return s.renderPolicies(c, http.StatusUnprocessableEntity, id, policiesSubmitted{PolicyForm: form})
	}
	// A form rendered before someone else's change would silently undo it:
	// the engine refuses it in the update's own transaction.
	if form.Seen != "" {
		seen, err := time.Parse(time.RFC3339Nano, form.Seen)
		if err != nil {
			form.Errors["form"] = "The form is damaged (its version stamp is unreadable): reload the page."
			return s.renderPolicies(c, http.StatusUnprocessableEntity, id, policiesSubmitted{PolicyForm: form})
		}
		ch.Seen = &seen
	}
	_, n, err := s.store.UpdatePolicy(c.Request().Context(), actor(c), id, ch, form.Reason)
	var me *memory.Error
	if errors.As(err, &me) && me.Code == memory.CodeConflict {
		form.Errors["form"] = "Someone else changed this policy after you opened the page (" + me.Message +
			"). Its current values are shown below; make your change again if it is still needed."
		return s.renderPolicies(c, http.StatusConflict, id, policiesSubmitted{PolicyForm: form, Stale: true})
	}
	if errors.As(err, &me) && me.Code == memory.CodeInvalid {
		field := me.Field
		if field != "half_life" && field != "floor" && field != "reason" {
			field = "form"
		}
		form.Errors[field] = me.Message
		return s.renderPolicies(c, http.StatusUnprocessableEntity, id, policiesSubmitted{PolicyForm: form})
	}
	if err != nil {
		return err
	}
	facts := "facts"
	if n == 1 {
		facts = "fact"
	}
	return s.redirectWithFlash(c, "/policies", "ok", fmt.Sprintf("Policy updated; %d %s recomputed", n, facts))
}

// parsePoliciesForm reads the policy form into changes, or records in
// form.Errors why it cannot.
func parsePoliciesForm(form pages.PolicyForm) (memory.PolicyChanges, bool) {
	var ch memory.PolicyChanges
	if form.Never {
		ch.NeverDecays = true
	} else {
		unit, known := policiesUnits[form.Unit]
		v, err := strconv.ParseFloat(form.HalfLife, 64)
		switch {
		case !known:
			form.Errors["half_life"] = fmt.Sprintf("unknown unit %q: choose hours, days or years", form.Unit)
		case form.HalfLife == "":
			form.Errors["half_life"] = "give a half-life, or tick \"Never decays\""
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			form.Errors["half_life"] = fmt.Sprintf("%q is not a number: write the half-life as a number such as 180", form.HalfLife)
		case v <= 0:
			form.Errors["half_life"] = "the half-life must be greater than 0; to stop decay, tick \"Never decays\""
		case v*unit.Seconds() > float64(100*365*24*3600):
			form.Errors["half_life"] = fmt.Sprintf("a half-life of %s %s is out of range: at most 100 years", form.HalfLife, form.Unit)
		default:
			d := time.Duration(math.Round(v * float64(unit)))
			ch.HalfLife = &d
		}
	}
	v, err := strconv.ParseFloat(form.Floor, 64)
	switch {
	case form.Floor == "":
		form.Errors["floor"] = "give a floor between 0 and 1, such as 0.10"
	case err != nil || math.IsNaN(v):
		form.Errors["floor"] = fmt.Sprintf("%q is not a number: write the floor as a decimal such as 0.10", form.Floor)
	case v <= 0 || v >= 1:
		form.Errors["floor"] = fmt.Sprintf("floor %s is out of range: it must be greater than 0 and less than 1", form.Floor)
	default:
		ch.Floor = &v
	}
	return ch, len(form.Errors) == 0
}

// policiesHalfLifeInput splits a half-life into the form's number and unit:
// whole years, else whole days, else hours.
func policiesHalfLifeInput(d time.Duration) (string, string) {
	switch {
	case d%policiesUnits["years"] == 0:
		return strconv.FormatInt(int64(d/policiesUnits["years"]), 10), "years"
	case d%policiesUnits["days"] == 0:
		return strconv.FormatInt(int64(d/policiesUnits["days"]), 10), "days"
	}
	return strconv.FormatFloat(d.Hours(), 'f', -1, 64), "hours"
}

// policiesHalfLifeText is a half-life in words, such as "180 days".
func policiesHalfLifeText(d *time.Duration) string {
	if d == nil {
		return "never decays"
	}
	n, unit := policiesHalfLifeInput(*d)
	if n == "1" {
		unit = strings.TrimSuffix(unit, "s")
	}
	text := n + " " + unit
	if unit == "hours" && *d >= 48*time.Hour {
		text += " (" + strconv.FormatFloat(d.Hours()/24, 'f', 1, 64) + " days)"
	}
	return text
}

// policiesFloorText shows a floor with at least two decimals (0.10).
func policiesFloorText(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 || len(s)-i-1 < 2 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return s
}

// categoryRows lists every category with a setting, then the categories in
// use without one (they accumulate); cat is shown again in its row.
func (s *Console) categoryRows(ctx context.Context, cat pages.CategoryForm) ([]pages.CategoryRow, error) {
	settings, err := s.store.CategorySettings(ctx)
	if err != nil {
		return nil, err
	}
	inUse, err := s.store.Categories(ctx)
	if err != nil {
		return nil, err
	}
	var rows []pages.CategoryRow
	seen := map[string]bool{}
	for _, st := range settings {
		seen[st.Category] = true
		row := pages.CategoryRow{Category: st.Category, Supersedes: st.Supersedes, Description: st.Description,
			Listed: true, UpdatedAt: st.UpdatedAt, Editable: st.Category != memory.CategoryDecision}
		if st.UpdatedBy != nil {
			row.UpdatedBy = *st.UpdatedBy
		}
		rows = append(rows, row)
	}
	for _, name := range inUse {
		if !seen[name] {
			seen[name] = true
			rows = append(rows, pages.CategoryRow{Category: name, Editable: name != memory.CategoryDecision})
		}
	}
	slices.SortFunc(rows, func(a, b pages.CategoryRow) int { return strings.Compare(a.Category, b.Category) })
	for i := range rows {
		if rows[i].Category == cat.Category {
			rows[i].Form = cat
		}
	}
	return rows, nil
}

// categorySave sets whether facts of a category supersede each other on a
// key (supersedes=true) or accumulate (false), through the engine, which
// audits it: 303 back to the page, or the page again with the refusal
// beside the category (422).
func (s *Console) categorySave(c echo.Context) error {
	category := c.Param("category")
	form := pages.CategoryForm{Category: category, Reason: c.FormValue("reason")}
	refuse := func(msg string) error {
		form.Error = msg
		return s.renderPoliciesWith(c, http.StatusUnprocessableEntity, 0, policiesSubmitted{}, form)
	}
	if err := checkForm(c); err != nil {
		var me *memory.Error
		if errors.As(err, &me) {
			return refuse(me.Message)
		}
		return refuse(err.Error())
	}
	var supersedes bool
	switch v := c.FormValue("supersedes"); v {
	case "true":
		supersedes = true
	case "false":
	default:
		return refuse(fmt.Sprintf("unknown choice %q: supersedes is true (a newer fact archives the older ones on its key) or false (facts accumulate)", v))
	}
	_, err := s.store.SetCategorySupersedes(c.Request().Context(), actor(c), category, supersedes, form.Reason)
	var me *memory.Error
	if errors.As(err, &me) && me.Code == memory.CodeInvalid {
		return refuse(me.Message)
	}
	if err != nil {
		return err
	}
	msg := "Category " + category + " now supersedes: a newer fact on an entity and key archives the older ones from the next write on."
	if !supersedes {
		msg = "Category " + category + " now accumulates: facts on the same entity and key stay side by side."
	}
	return s.redirectWithFlash(c, "/policies", "ok", msg)
}
