package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// decReplace reopens first and records a later decision on its key, which
// replaces it.
func decReplace(t *testing.T, f fixture, first memory.Decision, decision string) memory.Decision {
	t.Helper()
	ctx := context.Background()
	s := decStore(f)
	if _, err := s.ReopenDecision(ctx, memory.Human("ann@example.com"), first.ID, "the question came back"); err != nil {
		t.Fatal(err)
	}
	d, err := s.RecordDecision(ctx, memory.Human("ann@example.com"), memory.NewDecision{
		Scope: first.Scope, Entity: first.Entity, Key: first.Key, Decision: decision, Reasoning: "It changed.",
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDecisionsStateFilterAndReplacedLink(t *testing.T) {
	f := newFixture(t, false)
	first := decRecord(t, f, "acme", "backend", "database", "Use PostgreSQL", "We already run it")
	second := decReplace(t, f, first, "Use PostgreSQL 18")
	open := decRecord(t, f, "acme", "backend", "queue", "Use river", "It runs on Postgres")
	if _, err := decStore(f).ReopenDecision(context.Background(), memory.Human("ann@example.com"), open.ID, "a second look"); err != nil {
		t.Fatal(err)
	}
	unlocked := false
	never, err := decStore(f).RecordDecision(context.Background(), memory.Human("ann@example.com"), memory.NewDecision{Scope: "acme",
		Entity: "backend", Key: "cache", Decision: "No cache yet", Reasoning: "Too early to tell", DoNotReopen: &unlocked})
	if err != nil {
		t.Fatal(err)
	}

	for state, want := range map[string][]int64{
		"":           {never.ID, open.ID, second.ID, first.ID},
		"all":        {never.ID, open.ID, second.ID, first.ID},
		"current":    {second.ID},
		"superseded": {first.ID},
		"reopened":   {open.ID},
		"open":       {never.ID},
	} {
		rec := f.get(t, "/decisions?state="+state)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /decisions?state=%s = %d", state, rec.Code)
		}
		if got := decRows(t, rec); !equalIDs(got, want) {
			t.Errorf("decisions?state=%s = %v, want %v", state, got, want)
		}
	}

	doc := parse(t, f.get(t, "/decisions"))
	row := doc.Find(`[data-testid="decision-row"][data-decision-id="` + strconv.FormatInt(first.ID, 10) + `"]`)
	link := row.Find(`[data-testid="decision-replaced-by"] a`)
	if got := strings.Join(strings.Fields(row.Find(`[data-testid="decision-replaced-by"]`).Text()), " "); got != "replaced by decision "+strconv.FormatInt(second.ID, 10) ||
		link.AttrOr("href", "") != decPage(second.ID) {
		t.Errorf("replaced row says %q linking %q, want replaced by decision %d linking its page", got, link.AttrOr("href", ""), second.ID)
	}
	if n := doc.Find(`[data-testid="decision-replaced-by"]`).Length(); n != 1 {
		t.Errorf("%d rows say they were replaced, want 1", n)
	}
	if sel := doc.Find(`[data-testid="decisions-filter-state"] option`); sel.Length() != 5 {
		t.Errorf("state filter offers %d options, want all, current, superseded, reopened, open", sel.Length())
	}
	labels := map[string]string{}
	doc.Find(`[data-testid="decision-row"]`).Each(func(_ int, r *goquery.Selection) {
		labels[r.AttrOr("data-decision-id", "")] = strings.TrimSpace(r.Find(`[data-testid="decision-lock"]`).Text())
	})
	if labels[strconv.FormatInt(never.ID, 10)] != "open" || labels[strconv.FormatInt(open.ID, 10)] != "reopened" ||
		labels[strconv.FormatInt(second.ID, 10)] != "locked" {
		t.Errorf("lock labels = %v, want never-locked %d open, %d reopened, %d locked", labels, never.ID, open.ID, second.ID)
	}
	doc = parse(t, f.get(t, "/decisions?state=superseded"))
	if v := doc.Find(`[data-testid="decisions-filter-state"] option[selected]`).AttrOr("value", ""); v != "superseded" {
		t.Errorf("state filter shows %q selected, want superseded", v)
	}

	page := parse(t, f.get(t, decPage(first.ID)))
	note := page.Find(`[data-testid="decision-superseded-by"]`)
	if !strings.Contains(note.Text(), "replaced by") || note.Find("a").AttrOr("href", "") != decPage(second.ID) {
		t.Errorf("replaced decision's page says %q, want a link to decision %d", note.Text(), second.ID)
	}
	if n := parse(t, f.get(t, decPage(second.ID))).Find(`[data-testid="decision-superseded-by"]`).Length(); n != 0 {
		t.Error("the current decision's page says it was replaced")
	}

	rec := f.get(t, "/decisions?state=old")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "current, superseded, reopened, open, all") {
		t.Errorf("GET /decisions?state=old = %d, want 400 naming the allowed states", rec.Code)
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPoliciesCategoryToggle(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	doc := parse(t, admin.get(t, "/policies"))
	section := doc.Find(`[data-testid="categories"]`)
	if !strings.Contains(section.Find("h2").Text(), "Categories: supersede or accumulate") ||
		!strings.Contains(section.Text(), "superseded by fact N") || !strings.Contains(section.Text(), "Short-term and ephemeral facts always supersede") {
		t.Errorf("categories section = %q, want it to explain supersession", strings.Join(strings.Fields(section.Text()), " "))
	}
	modeOf := func(category string) string {
		d := parse(t, admin.get(t, "/policies"))
		return strings.TrimSpace(d.Find(`[data-testid="category-row"][data-category="` + category + `"] [data-testid="category-mode"]`).Text())
	}
	if got := modeOf("observation"); got != "accumulate" {
		t.Fatalf("observation shown as %q, want accumulate", got)
	}
	if got := modeOf("state"); got != "supersede" {
		t.Fatalf("state shown as %q, want supersede", got)
	}
	if n := doc.Find(`[data-testid="category-form"][data-category="decision"]`).Length(); n != 0 {
		t.Error("the page offers to toggle decisions")
	}

	admin.get(t, "/policies")
	_, _, flash := follow(t, admin, admin.post(t, "/policies/categories/observation",
		url.Values{"supersedes": {"true"}, "reason": {"one observation per key is enough"}}))
	if !strings.Contains(flash, "observation now supersedes") {
		t.Errorf("flash = %q", flash)
	}
	if got := modeOf("observation"); got != "supersede" {
		t.Errorf("observation shown as %q after the toggle, want supersede", got)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'category.update' AND target_id = 'observation'
		AND actor = 'user:admin@example.com' AND reason = 'one observation per key is enough'`); n != 1 {
		t.Errorf("audit rows for the toggle = %d, want 1", n)
	}

	rec := admin.post(t, "/policies/categories/decision", url.Values{"supersedes": {"true"}})
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("toggling decision = %d, want 422", rec.Code)
	}
	if alert := parse(t, rec).Find(`[data-testid="category-alert"], [data-testid="category-error"]`).Text(); !strings.Contains(alert, "decision") {
		t.Errorf("refusal shown as %q, want the engine's reason", alert)
	}
	rec = admin.post(t, "/policies/categories/state", url.Values{"supersedes": {"maybe"}, "reason": {"typed"}})
	d := parse(t, rec)
	row := d.Find(`[data-testid="category-row"][data-category="state"]`)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(row.Find(`[data-testid="category-error"]`).Text(), "maybe") ||
		row.Find(`[data-testid="category-reason"]`).AttrOr("value", "") != "typed" {
		t.Errorf("bad choice = %d, row %q; want 422 with the error and the reason kept", rec.Code, row.Text())
	}

	// A reviewer sees the settings but may not change them.
	doc = parse(t, f.get(t, "/policies"))
	if doc.Find(`[data-testid="category-row"]`).Length() == 0 || doc.Find(`[data-testid="category-form"]`).Length() != 0 {
		t.Error("a reviewer should see the categories without their forms")
	}
	if rec := f.signedIn.post(t, "/policies/categories/state", url.Values{"supersedes": {"false"}}); rec.Code != http.StatusForbidden {
		t.Errorf("reviewer toggle = %d, want 403", rec.Code)
	}
	if got := modeOf("state"); got != "supersede" {
		t.Errorf("state shown as %q after a refused toggle, want supersede", got)
	}
	// Without the CSRF token, nothing changes either.
	if rec := admin.post(t, "/policies/categories/state", url.Values{"supersedes": {"false"}, "_csrf": {"forged"}}); rec.Code != http.StatusForbidden {
		t.Errorf("toggle without CSRF token = %d, want 403", rec.Code)
	}
}

func TestFactPageLinksTheSupersedingFact(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	s := decStore(f)
	old, _, err := s.CreateFact(ctx, memory.Human("ann@example.com"), memory.NewFact{Scope: "acme", Entity: "Ann",
		Key: "home_city", Content: "Ann lives in Lisbon.", Category: "identity"})
	if err != nil {
		t.Fatal(err)
	}
	newer, _, err := s.CreateFact(ctx, memory.Human("ann@example.com"), memory.NewFact{Scope: "acme", Entity: "Ann",
		Key: "home_city", Content: "Ann lives in Berlin.", Category: "identity"})
	if err != nil {
		t.Fatal(err)
	}
	doc := parse(t, f.get(t, "/facts/"+strconv.FormatInt(old.ID, 10)))
	by := doc.Find(`[data-testid="fact-superseded-by"]`)
	if !strings.Contains(strings.Join(strings.Fields(by.Text()), " "), "Superseded by fact "+strconv.FormatInt(newer.ID, 10)) ||
		by.Find("a").AttrOr("href", "") != "/facts/"+strconv.FormatInt(newer.ID, 10) {
		t.Errorf("superseded fact's page says %q, want a link to fact %d", by.Text(), newer.ID)
	}
	if n := parse(t, f.get(t, "/facts/"+strconv.FormatInt(newer.ID, 10))).Find(`[data-testid="fact-superseded-by"]`).Length(); n != 0 {
		t.Error("the current fact's page says it was superseded")
	}
}
