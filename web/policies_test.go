package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// polID returns the id of the policy for a durability or category.
func polID(t *testing.T, f fixture, column, value string) int64 {
	t.Helper()
	var id int64
	if err := f.pool.QueryRow(context.Background(),
		`SELECT id FROM decay_policies WHERE `+column+` = $1`, value).Scan(&id); err != nil {
		t.Fatalf("policy %s %s: %v", column, value, err)
	}
	return id
}

// polForm is the edit form of policy id as the page fills it.
func polForm(t *testing.T, doc *goquery.Document, id int64) url.Values {
	t.Helper()
	form := doc.Find(`[data-testid="policy-form"][data-policy-id="` + strconv.FormatInt(id, 10) + `"]`)
	if form.Length() != 1 {
		t.Fatalf("no edit form for policy %d", id)
	}
	v := url.Values{}
	form.Find("input").Each(func(_ int, s *goquery.Selection) {
		name := s.AttrOr("name", "")
		if s.AttrOr("type", "") == "checkbox" {
			if _, on := s.Attr("checked"); on {
				v.Set(name, s.AttrOr("value", "on"))
			}
			return
		}
		v.Set(name, s.AttrOr("value", ""))
	})
	form.Find("select").Each(func(_ int, s *goquery.Selection) {
		v.Set(s.AttrOr("name", ""), s.Find("option[selected]").AttrOr("value", ""))
	})
	return v
}

func TestPoliciesPageForViewer(t *testing.T) {
	f := newFixture(t, false)
	viewer := f.login(t, "viewer")
	rec := viewer.get(t, "/policies")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /policies = %d", rec.Code)
	}
	doc := parse(t, rec)
	if got := doc.Find(`[data-testid="policy-row"]`).Length(); got != 7 {
		t.Errorf("%d policy rows, want 7", got)
	}
	want := map[string]string{"permanent": "10 years", "long_term": "180 days", "short_term": "10 days", "ephemeral": "36 hours"}
	for d, hl := range want {
		row := doc.Find(`[data-testid="policy-row"][data-policy-id="` + strconv.FormatInt(polID(t, f, "durability", d), 10) + `"]`)
		if got := strings.TrimSpace(row.Find(`[data-testid="policy-half-life"]`).Text()); got != hl {
			t.Errorf("%s half-life shown %q, want %q", d, got, hl)
		}
		if got := strings.TrimSpace(row.Find(`[data-testid="policy-floor"]`).Text()); got != "0.10" {
			t.Errorf("%s floor shown %q, want 0.10", d, got)
		}
	}
	row := doc.Find(`[data-testid="policy-row"][data-policy-id="` + strconv.FormatInt(polID(t, f, "category", "decision"), 10) + `"]`)
	if got := strings.TrimSpace(row.Find(`[data-testid="policy-half-life"]`).Text()); got != "never decays" {
		t.Errorf("decision half-life shown %q, want never decays", got)
	}
	if n := doc.Find(`form[action^="/policies/"]`).Length() + doc.Find(`[data-testid="policy-save"]`).Length(); n != 0 {
		t.Errorf("a viewer sees %d policy forms or buttons, want none", n)
	}
	if n := parse(t, f.get(t, "/policies")).Find(`[data-testid="policy-form"]`).Length(); n != 0 {
		t.Errorf("a reviewer sees %d policy forms, want none", n)
	}
}

func TestPolicySaveRecomputesForgetAt(t *testing.T) {
	f := newFixture(t, true)
	admin := f.login(t, "admin")
	ctx := context.Background()
	id := polID(t, f, "durability", "ephemeral")

	// An active ephemeral mood: governed by the ephemeral policy.
	var factID int64
	var before, confirmed time.Time
	if err := f.pool.QueryRow(ctx, `SELECT id, forget_at, confirmed_at FROM entity_facts
		WHERE status = 'active' AND durability = 'ephemeral' AND category = 'mood' AND expires_at IS NULL
		ORDER BY id LIMIT 1`).Scan(&factID, &before, &confirmed); err != nil {
		t.Fatal(err)
	}
	governed := dbInt(t, f, `SELECT count(*) FROM entity_facts f WHERE f.status = 'active' AND f.durability = 'ephemeral'
		AND NOT EXISTS (SELECT 1 FROM decay_policies dp WHERE dp.category = f.category
			AND (dp.anchor <> 'deadline' OR f.deadline IS NOT NULL))`)
	if governed == 0 {
		t.Fatal("the demo has no fact under the ephemeral policy")
	}

	doc := parse(t, admin.get(t, "/policies"))
	form := polForm(t, doc, id)
	if form.Get("half_life") != "36" || form.Get("unit") != "hours" || form.Get("floor") != "0.10" {
		t.Errorf("ephemeral form prefilled with %v, want 36 hours, floor 0.10", form)
	}
	form.Set("half_life", "3")
	form.Set("unit", "days")
	form.Set("reason", "moods linger a little longer")
	page, flash := admFollow(t, admin, admin.post(t, "/policies/"+strconv.FormatInt(id, 10), form))
	if want := "Policy updated; " + strconv.Itoa(governed) + " facts recomputed"; flash != want {
		t.Errorf("flash = %q, want %q", flash, want)
	}
	row := page.Find(`[data-testid="policy-row"][data-policy-id="` + strconv.FormatInt(id, 10) + `"]`)
	if got := strings.TrimSpace(row.Find(`[data-testid="policy-half-life"]`).Text()); got != "3 days" {
		t.Errorf("half-life shown after saving = %q, want 3 days", got)
	}
	if !strings.Contains(row.Text(), "admin@example.com") {
		t.Error("the row does not say who updated the policy")
	}

	var after time.Time
	if err := f.pool.QueryRow(ctx, `SELECT forget_at FROM entity_facts WHERE id = $1`, factID).Scan(&after); err != nil {
		t.Fatal(err)
	}
	// Doubling the half-life doubles the time from confirmation to forgetting.
	if got, want := after.Sub(confirmed), 2*before.Sub(confirmed); got-want > time.Second || want-got > time.Second {
		t.Errorf("fact %d forget_at = %v after doubling the half-life, want %v", factID, after, confirmed.Add(want))
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'policy.update' AND target_id = $1::bigint::text
		AND actor = 'user:admin@example.com' AND reason = 'moods linger a little longer'
		AND (after->>'half_life_seconds')::float = 259200`, id); n != 1 {
		t.Errorf("%d policy.update audit rows, want 1", n)
	}

	t.Run("never decays", func(t *testing.T) {
		form := polForm(t, parse(t, admin.get(t, "/policies")), id)
		form.Set("never", "on")
		if _, flash := admFollow(t, admin, admin.post(t, "/policies/"+strconv.FormatInt(id, 10), form)); !strings.Contains(flash, "recomputed") {
			t.Errorf("flash = %q", flash)
		}
		if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = $1 AND forget_at IS NULL`, factID); n != 1 {
			t.Error("a fact under a policy that never decays still has a forget_at")
		}
		doc := parse(t, admin.get(t, "/policies"))
		if form := polForm(t, doc, id); form.Get("never") == "" {
			t.Error("the never-decays box is not ticked for a policy that never decays")
		}
	})
}

func TestPolicySaveInvalid(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	id := polID(t, f, "durability", "long_term")
	target := "/policies/" + strconv.FormatInt(id, 10)
	doc := parse(t, admin.get(t, "/policies"))
	base := polForm(t, doc, id)

	tests := []struct {
		name, field, value, errField, want string
	}{
		{"zero half-life", "half_life", "0", "half_life", "greater than 0"},
		{"negative half-life", "half_life", "-5", "half_life", "greater than 0"},
		{"not a number", "half_life", "soon", "half_life", "not a number"},
		{"too long", "half_life", "500", "half_life", "out of range"},
		{"too short", "half_life", "0.000001", "half_life", "out of range"},
		{"empty half-life", "half_life", "", "half_life", "Never decays"},
		{"floor one", "floor", "1", "floor", "greater than 0 and less than 1"},
		{"floor zero", "floor", "0", "floor", "greater than 0 and less than 1"},
		{"floor text", "floor", "low", "floor", "not a number"},
		{"unit", "unit", "weeks", "half_life", "unknown unit"},
		{"reason too long", "reason", strings.Repeat("why ", 501), "reason", "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{}
			for k, v := range base {
				form[k] = v
			}
			form.Set("half_life", "1")
			form.Set("unit", "years")
			form.Set(tt.field, tt.value)
			rec := admin.post(t, target, form)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("POST %s %s=%q = %d, want 422", target, tt.field, tt.value, rec.Code)
			}
			doc := parse(t, rec)
			edit := doc.Find(`[data-testid="policy-form"][data-policy-id="` + strconv.FormatInt(id, 10) + `"]`)
			msg := edit.Find(`[data-testid="error-` + tt.errField + `"]`)
			if !strings.Contains(msg.Text(), tt.want) {
				t.Errorf("error beside %s = %q, want it to contain %q", tt.errField, msg.Text(), tt.want)
			}
			if _, open := edit.Closest("details").Attr("open"); !open {
				t.Error("the refused form is folded away")
			}
			invalid := msg.Parent().Find(`[aria-invalid="true"]`)
			if invalid.Length() != 1 || invalid.AttrOr("aria-describedby", "") != msg.AttrOr("id", "-") {
				t.Errorf("the %s input is not marked invalid and described by its error", tt.errField)
			}
			if tt.field != "unit" {
				if got := edit.Find(`[name="`+tt.field+`"]`).AttrOr("value", ""); got != tt.value {
					t.Errorf("%s kept as %q, want %q", tt.field, got, tt.value)
				}
			}
		})
	}
	if n := dbInt(t, f, `SELECT count(*) FROM decay_policies WHERE id = $1 AND half_life_seconds = 180 * 86400 AND floor = 0.10`, id); n != 1 {
		t.Error("a refused save changed the policy")
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'policy.update'`); n != 0 {
		t.Errorf("%d audit rows after refused saves, want 0", n)
	}
	if rec := admin.post(t, "/policies/99999", base); rec.Code != http.StatusNotFound {
		t.Errorf("POST to an unknown policy = %d, want 404", rec.Code)
	}
}

func TestPolicySaveRefusals(t *testing.T) {
	f := newFixture(t, false)
	id := polID(t, f, "durability", "short_term")
	target := "/policies/" + strconv.FormatInt(id, 10)
	form := url.Values{"half_life": {"20"}, "unit": {"days"}, "floor": {"0.10"}}
	viewer := f.login(t, "viewer")
	for name, c := range map[string]*client{"viewer": viewer, "reviewer": f.signedIn} {
		if rec := c.post(t, target, form); rec.Code != http.StatusForbidden {
			t.Errorf("%s POST %s = %d, want 403", name, target, rec.Code)
		}
	}
	admin := f.login(t, "admin")
	admin.get(t, "/policies")
	for _, token := range []string{"", "forged"} {
		form := url.Values{"half_life": {"20"}, "unit": {"days"}, "floor": {"0.10"}, "_csrf": {token}}
		if rec := admin.post(t, target, form); rec.Code != http.StatusForbidden {
			t.Errorf("admin POST with _csrf=%q = %d, want 403", token, rec.Code)
		}
	}
	if n := dbInt(t, f, `SELECT count(*) FROM decay_policies WHERE id = $1 AND half_life_seconds = 10 * 86400`, id); n != 1 {
		t.Error("a refused request changed the policy")
	}
}

func TestPolicySaveStaleForm(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	id := polID(t, f, "durability", "short_term")
	target := "/policies/" + strconv.FormatInt(id, 10)
	stale := polForm(t, parse(t, admin.get(t, "/policies")), id)
	if stale.Get("seen") == "" {
		t.Fatal("the policy form carries no updated_at")
	}

	// Someone else saves first, from a fresh form.
	fresh := polForm(t, parse(t, admin.get(t, "/policies")), id)
	fresh.Set("half_life", "20")
	if rec := admin.post(t, target, fresh); rec.Code != http.StatusSeeOther {
		t.Fatalf("first save = %d", rec.Code)
	}

	stale.Set("floor", "0.3")
	rec := admin.post(t, target, stale)
	if rec.Code != http.StatusConflict {
		t.Fatalf("stale save = %d, want 409", rec.Code)
	}
	doc := parse(t, rec)
	form := doc.Find(`[data-testid="policy-form"][data-policy-id="` + strconv.FormatInt(id, 10) + `"]`)
	if msg := form.Find(`[data-testid="error-form"]`).Text(); !strings.Contains(msg, "changed this policy") {
		t.Errorf("stale save says %q, want it to say someone else changed the policy", msg)
	}
	if got := form.Find(`[name="half_life"]`).AttrOr("value", ""); got != "20" {
		t.Errorf("stale form shows half-life %q, want the current 20", got)
	}
	if got := form.Find(`[name="floor"]`).AttrOr("value", ""); got != "0.10" {
		t.Errorf("stale form shows floor %q, want the current 0.10", got)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM decay_policies WHERE id = $1 AND floor = 0.1 AND half_life_seconds = 20 * 86400`, id); n != 1 {
		t.Error("the stale save overwrote the policy")
	}
	// The re-rendered form is current: saving it works.
	again := polForm(t, doc, id)
	again.Set("floor", "0.3")
	if _, flash := admFollow(t, admin, admin.post(t, target, again)); !strings.HasPrefix(flash, "Policy updated") {
		t.Errorf("saving the refreshed form: flash %q", flash)
	}
}
