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

	"github.com/tenurehq/tenure/memory"
)

func factPage(id int64) string { return "/facts/" + strconv.FormatInt(id, 10) }

// editForm is the fact page's edit form as a browser would submit it untouched.
func editForm(t *testing.T, doc *goquery.Document) url.Values {
	t.Helper()
	form := doc.Find(`form[data-testid="fact-form"]`)
	if form.Length() != 1 {
		t.Fatal("no edit form on the fact page")
	}
	v := url.Values{}
	form.Find("input[name], textarea[name], select[name]").Each(func(_ int, s *goquery.Selection) {
		name := s.AttrOr("name", "")
		switch {
		case goquery.NodeName(s) == "textarea":
			v.Set(name, s.Text())
		case goquery.NodeName(s) == "select":
			v.Set(name, s.Find("option[selected]").AttrOr("value", ""))
		default:
			v.Set(name, s.AttrOr("value", ""))
		}
	})
	return v
}

func factVersion(t *testing.T, f fixture, id int64) int {
	t.Helper()
	return dbInt(t, f, `SELECT version FROM entity_facts WHERE id = $1`, id)
}

func text(doc *goquery.Document, testid string) string {
	return strings.Join(strings.Fields(doc.Find(`[data-testid="`+testid+`"]`).Text()), " ")
}

func TestFactPageForViewer(t *testing.T) {
	f := newFixture(t, true)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Key: "lives_in",
		Content: "Ada lives in Lisbon.", Durability: memory.ShortTerm, Category: "state"})
	viewer := f.login(t, "viewer")
	rec := viewer.get(t, factPage(fact.ID))
	if rec.Code != http.StatusOK {
		t.Fatalf("viewer GET %s = %d, want 200; %s", factPage(fact.ID), rec.Code, rec.Body)
	}
	doc := parse(t, rec)
	for testid, want := range map[string]string{
		"fact-title":            "Fact " + strconv.FormatInt(fact.ID, 10),
		"fact-detail-content":   "Ada lives in Lisbon.",
		"fact-entity":           "Ada",
		"fact-scope":            "home",
		"fact-source":           "human",
		"fact-source-node":      "none",
		"fact-extraction-count": "once",
		"fact-version":          "1",
		"fact-status":           "active",
		"fact-confidence":       "80% now · 80% when confirmed",
	} {
		if got := text(doc, testid); got != want {
			t.Errorf("%s = %q, want %q", testid, got, want)
		}
	}
	if got := doc.Find("h1").Length(); got != 1 {
		t.Errorf("page has %d h1, want 1", got)
	}
	if title := doc.Find("title").Text(); !strings.Contains(title, "Fact "+strconv.FormatInt(fact.ID, 10)) {
		t.Errorf("title = %q, want it to name the fact", title)
	}
	for _, sel := range []string{`[data-testid="fact-form"]`, `[data-testid="fact-archive-form"]`, `form[method="post"][action^="/facts"]`} {
		if doc.Find(sel).Length() != 0 {
			t.Errorf("viewer's fact page has %s; edit controls are for reviewers", sel)
		}
	}

	// History: the creation.
	rows := doc.Find(`[data-testid="history-row"]`)
	if rows.Length() != 1 || strings.TrimSpace(rows.Find(`[data-testid="history-action"]`).Text()) != "fact.create" {
		t.Errorf("history = %d rows (%q), want the creation", rows.Length(), rows.Text())
	}

	// The plot: 80% halving every 10 days, confirmed now: forgotten in 30 days.
	svg := doc.Find(`svg[data-testid="confidence-plot"]`)
	if svg.Length() != 1 {
		t.Fatal("no confidence plot")
	}
	if label := svg.AttrOr("aria-label", ""); label != "Confidence 80% now, forgotten in 30 days" {
		t.Errorf("plot label = %q", label)
	}
	if svg.Find(`title`).Text() != svg.AttrOr("aria-label", "") {
		t.Error("plot's <title> differs from its aria-label")
	}
	if svg.Find(`[data-testid="plot-now"] line`).Length() != 1 || !strings.Contains(svg.Find(`[data-testid="plot-now"] text`).Text(), "now") {
		t.Error("plot does not mark now")
	}
	if svg.Find(`[data-testid="plot-floor"]`).Length() != 1 || svg.Find(`[data-testid="plot-curve"]`).Length() != 1 {
		t.Error("plot lacks its floor or its curve")
	}
}

func TestFactPagePlotNeverDecays(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada runs every Sunday.", Category: "routine"})
	doc := parse(t, f.get(t, factPage(fact.ID)))
	svg := doc.Find(`svg[data-testid="confidence-plot"]`)
	if label := svg.AttrOr("aria-label", ""); !strings.Contains(label, "never forgotten") {
		t.Errorf("plot label = %q, want it to say the fact is never forgotten", label)
	}
	if svg.Find(`[data-testid="plot-now"] line`).Length() != 1 {
		t.Error("plot of a fact that never decays does not mark now")
	}
	if got := text(doc, "fact-forget-at"); !strings.Contains(got, "never") {
		t.Errorf("forget-at = %q, want never", got)
	}
}

func TestFactPageNotFound(t *testing.T) {
	f := newFixture(t, false)
	for _, path := range []string{"/facts/99999999", "/facts/0", "/facts/abc"} {
		if rec := f.get(t, path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, rec.Code)
		}
	}
	rec := f.signedIn.post(t, "/facts/99999999", url.Values{"version": {"1"}, "content": {"x"}, "category": {"state"}, "confidence": {"0.5"}})
	if rec.Code != http.StatusNotFound {
		t.Errorf("POST /facts/99999999 = %d, want 404", rec.Code)
	}
}

func TestFactEditSaves(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada likes tea.", Category: "preference"})
	doc := parse(t, f.get(t, factPage(fact.ID)))
	form := editForm(t, doc)
	if form.Get("version") != "1" || form.Get("content") != "Ada likes tea." || form.Get("confidence") != "0.8" ||
		form.Get("durability") != "long_term" || form.Get("category") != "preference" {
		t.Fatalf("edit form = %v, want the fact's current values", form)
	}
	form.Set("content", "Ada likes green tea.")
	form.Set("durability", "permanent")
	form.Set("confidence", "0.95")
	form.Set("reason", "she said so twice")
	rec := f.signedIn.post(t, factPage(fact.ID), form)
	loc, flash := followFlash(t, f.signedIn, rec)
	if loc != factPage(fact.ID) || !strings.Contains(flash, "saved") {
		t.Errorf("save led to %q with flash %q, want the fact page saying saved", loc, flash)
	}
	if v := factVersion(t, f, fact.ID); v != 2 {
		t.Errorf("version after the edit = %d, want 2", v)
	}
	var content, durability string
	var confidence float64
	if err := f.pool.QueryRow(context.Background(), `SELECT content, durability, confidence FROM entity_facts WHERE id = $1`, fact.ID).
		Scan(&content, &durability, &confidence); err != nil {
		t.Fatal(err)
	}
	if content != "Ada likes green tea." || durability != "permanent" || confidence != 0.95 {
		t.Errorf("stored fact = %q, %s, %v; want the edit", content, durability, confidence)
	}

	doc = parse(t, f.get(t, factPage(fact.ID)))
	rows := doc.Find(`[data-testid="history-row"]`)
	if rows.Length() != 2 {
		t.Fatalf("history has %d rows, want the creation and the edit", rows.Length())
	}
	first := rows.First()
	if a := strings.TrimSpace(first.Find(`[data-testid="history-action"]`).Text()); a != "fact.update" {
		t.Errorf("newest history row is %q, want fact.update first", a)
	}
	if r := strings.TrimSpace(first.Find(`[data-testid="history-reason"]`).Text()); r != "she said so twice" {
		t.Errorf("history reason = %q", r)
	}
	if a := strings.TrimSpace(first.Find(`[data-testid="history-actor"]`).Text()); a != "user:reviewer@example.com" {
		t.Errorf("history actor = %q", a)
	}
	change := strings.Join(strings.Fields(first.Find(`[data-field="content"]`).Text()), " ")
	if change != "content: Ada likes tea. → changed to Ada likes green tea." {
		t.Errorf("content change = %q", change)
	}
	if got := editForm(t, doc).Get("version"); got != "2" {
		t.Errorf("form version after the edit = %q, want 2", got)
	}

	t.Run("untouched form changes nothing", func(t *testing.T) {
		_, flash := followFlash(t, f.signedIn, f.signedIn.post(t, factPage(fact.ID), editForm(t, doc)))
		if !strings.Contains(flash, "Nothing to save") {
			t.Errorf("flash = %q, want nothing to save", flash)
		}
		if v := factVersion(t, f, fact.ID); v != 2 {
			t.Errorf("version = %d, want 2 still", v)
		}
	})
}

func TestFactEditDeadline(t *testing.T) {
	f := newFixture(t, false)
	deadline := now.Add(72*time.Hour + 17*time.Second + 3*time.Millisecond)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "File the tax return.", Category: "obligation", Deadline: &deadline})
	form := editForm(t, parse(t, f.get(t, factPage(fact.ID))))
	if got, want := form.Get("deadline"), deadline.Format("2006-01-02T15:04"); got != want {
		t.Fatalf("deadline field = %q, want %q", got, want)
	}
	// Saving the untouched form keeps the deadline to the microsecond.
	followFlash(t, f.signedIn, f.signedIn.post(t, factPage(fact.ID), form))
	var stored time.Time
	read := func() {
		if err := f.pool.QueryRow(context.Background(), `SELECT deadline FROM entity_facts WHERE id = $1`, fact.ID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
	}
	if read(); !stored.Equal(deadline.Truncate(time.Microsecond)) {
		t.Errorf("deadline after an untouched save = %s, want %s", stored, deadline)
	}
	form.Set("deadline", "2026-12-24T18:30")
	followFlash(t, f.signedIn, f.signedIn.post(t, factPage(fact.ID), form))
	if read(); !stored.Equal(time.Date(2026, 12, 24, 18, 30, 0, 0, time.UTC)) {
		t.Errorf("deadline = %s, want 2026-12-24 18:30 UTC", stored)
	}
}

func TestFactEditInvalid(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada likes tea.", Category: "preference"})
	base := editForm(t, parse(t, f.get(t, factPage(fact.ID))))
	tests := []struct {
		field, value, want string
	}{
		{"confidence", "1.5", "out of range"},
		{"confidence", "lots", "not a number"},
		{"confidence", "", "empty"},
		{"content", "   ", "empty"},
		{"durability", "forever", "unknown durability"},
		{"category", "Not A Slug", "lowercase slug"},
		{"category", "decision", "reserved for recorded decisions"},
		{"deadline", "2026-12-24T18:30", "only to obligations"},
		{"deadline", "soon", "not a date"},
		{"reason", strings.Repeat("r", 2001), "at most 2000"},
	}
	for _, tt := range tests {
		t.Run(tt.field+"="+tt.value[:min(len(tt.value), 12)], func(t *testing.T) {
			form := url.Values{}
			for k, v := range base {
				form[k] = v
			}
			form.Set("content", "Ada likes rooibos.")
			form.Set(tt.field, tt.value)
			rec := f.signedIn.post(t, factPage(fact.ID), form)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("POST with %s=%q = %d, want 422", tt.field, tt.value, rec.Code)
			}
			doc := parse(t, rec)
			msg := doc.Find(`[data-testid="error-` + tt.field + `"]`)
			if msg.Length() != 1 || !strings.Contains(msg.Text(), tt.want) {
				t.Errorf("error beside %s = %q, want it to contain %q", tt.field, msg.Text(), tt.want)
			}
			control := doc.Find(`[data-testid="fact-form-` + tt.field + `"]`)
			if control.AttrOr("aria-invalid", "") != "true" || !strings.Contains(control.AttrOr("aria-describedby", ""), tt.field) {
				t.Errorf("%s control: aria-invalid %q, aria-describedby %q; want it marked and linked to the error",
					tt.field, control.AttrOr("aria-invalid", ""), control.AttrOr("aria-describedby", ""))
			}
			if tt.field != "content" {
				if got := doc.Find(`[data-testid="fact-form-content"]`).Text(); got != "Ada likes rooibos." {
					t.Errorf("re-rendered content = %q, want what was typed", got)
				}
			}
			if v := factVersion(t, f, fact.ID); v != 1 {
				t.Errorf("a refused edit changed the version to %d", v)
			}
		})
	}
}

func TestFactEditStaleVersion(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada likes tea.", Category: "preference"})
	form := editForm(t, parse(t, f.get(t, factPage(fact.ID))))

	// Someone else saves first.
	other := "Ada likes coffee now."
	if _, err := factsStore(f).UpdateFact(context.Background(), memory.Human("other@example.com"), fact.ID, 1,
		memory.FactChanges{Content: &other}, "she switched"); err != nil {
		t.Fatal(err)
	}
	form.Set("content", "Ada likes green tea.")
	rec := f.signedIn.post(t, factPage(fact.ID), form)
	if rec.Code != http.StatusConflict {
		t.Fatalf("POST with a stale version = %d, want 409", rec.Code)
	}
	doc := parse(t, rec)
	if msg := text(doc, "conflict-message"); !strings.Contains(msg, "Someone else changed this fact") || !strings.Contains(msg, "Ada likes green tea.") {
		t.Errorf("conflict message = %q, want it to explain and keep the unsaved change", msg)
	}
	if got := doc.Find(`[data-testid="fact-form-content"]`).Text(); got != other {
		t.Errorf("form content = %q, want the current %q", got, other)
	}
	if got := doc.Find(`[data-testid="fact-form-version"]`).AttrOr("value", ""); got != "2" {
		t.Errorf("form version = %q, want the current 2", got)
	}
	var stored string
	if err := f.pool.QueryRow(context.Background(), `SELECT content FROM entity_facts WHERE id = $1`, fact.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != other {
		t.Errorf("stored content = %q, want the other person's edit kept", stored)
	}
}

func TestFactEditRefusesViewersAndBadTokens(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada likes tea.", Category: "preference"})
	form := editForm(t, parse(t, f.get(t, factPage(fact.ID))))
	form.Set("content", "changed")
	viewer := f.login(t, "viewer")
	viewer.get(t, factPage(fact.ID))
	if rec := viewer.post(t, factPage(fact.ID), form); rec.Code != http.StatusForbidden {
		t.Errorf("viewer POST = %d, want 403", rec.Code)
	}
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("_csrf", "forged")
	if rec := f.signedIn.post(t, factPage(fact.ID), bad); rec.Code != http.StatusForbidden {
		t.Errorf("POST with a wrong CSRF token = %d, want 403", rec.Code)
	}
	if v := factVersion(t, f, fact.ID); v != 1 {
		t.Errorf("refused posts changed the fact to version %d", v)
	}
}

func TestFactPageOfDecision(t *testing.T) {
	f := newFixture(t, true)
	var factID, decisionID int64
	if err := f.pool.QueryRow(context.Background(), `SELECT fact_id, id FROM decisions ORDER BY id LIMIT 1`).Scan(&factID, &decisionID); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, f.get(t, factPage(factID)))
	link := doc.Find(`[data-testid="decision-link"] a`)
	if link.AttrOr("href", "") != "/decisions/"+strconv.FormatInt(decisionID, 10) {
		t.Errorf("decision fact links to %q, want /decisions/%d", link.AttrOr("href", ""), decisionID)
	}
	if doc.Find(`[data-testid="fact-form"]`).Length() != 0 || doc.Find(`[data-testid="fact-archive-form"]`).Length() != 0 {
		t.Error("a decision's fact shows edit controls; it is edited through its decision")
	}
	rec := f.signedIn.post(t, factPage(factID), url.Values{"version": {strconv.Itoa(factVersion(t, f, factID))},
		"content": {"changed"}, "durability": {"permanent"}, "category": {"decision"}, "confidence": {"1"}})
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("POST to a decision's fact = %d, want 422", rec.Code)
	}
	if msg := text(parse(t, rec), "form-error"); !strings.Contains(msg, "edit the decision instead") {
		t.Errorf("refusal = %q, want it to point to the decision", msg)
	}
}

func TestFactPageArchiveAndRestore(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada is tired.", Category: "mood"})
	doc := parse(t, f.get(t, factPage(fact.ID)))
	archive := doc.Find(`form[data-testid="fact-archive-form"]`)
	if archive.AttrOr("action", "") != "/facts/bulk" || archive.Find(`[data-testid="fact-archive"]`).Length() != 1 {
		t.Fatal("fact page has no archive button posting to /facts/bulk")
	}
	form := url.Values{}
	archive.Find("input[name]").Each(func(_ int, s *goquery.Selection) { form.Set(s.AttrOr("name", ""), s.AttrOr("value", "")) })
	form.Set("action", "archive")
	form.Set("reason", "a passing mood")
	loc, flash := followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", form))
	if loc != factPage(fact.ID) || flash != "1 fact archived." {
		t.Errorf("archive led to %q with %q, want back to the fact saying 1 fact archived", loc, flash)
	}
	doc = parse(t, f.get(t, factPage(fact.ID)))
	if s := text(doc, "fact-status"); !strings.HasPrefix(s, "archived") || !strings.Contains(s, "a passing mood") {
		t.Errorf("status = %q, want archived with the reason", s)
	}
	if doc.Find(`[data-testid="fact-restore"]`).Length() != 1 {
		t.Fatal("an archived fact offers no restore button")
	}
	form.Set("action", "restore")
	form.Set("reason", "")
	if _, flash := followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", form)); flash != "1 fact restored." {
		t.Errorf("restore flash = %q", flash)
	}
	if s := text(parse(t, f.get(t, factPage(fact.ID))), "fact-status"); s != "active" {
		t.Errorf("status after restore = %q, want active", s)
	}
}

func TestMemoryTextIsEscapedOnFactPages(t *testing.T) {
	f := newFixture(t, false)
	const script = "<script>alert(1)</script>"
	deadline := now.Add(48 * time.Hour)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "<b>Eve</b>", Key: "todo", Content: script,
		Category: "obligation", Deadline: &deadline})
	// The history shows the content too: edit it once so it appears before and after.
	changed := script + " <img src=x onerror=alert(2)>"
	if _, err := factsStore(f).UpdateFact(context.Background(), memory.Human("other@example.com"), fact.ID, 1,
		memory.FactChanges{Content: &changed}, "<i>why</i>"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/facts", factPage(fact.ID), "/obligations", "/facts?entity=%3Cb%3EEve%3C%2Fb%3E&scope=home"} {
		rec := f.get(t, path)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, rec.Code)
		}
		body := rec.Body.String()
		for _, raw := range []string{"<script>alert(1)</script>", "<b>Eve</b>", "<img src=x", "<i>why</i>"} {
			if strings.Contains(body, raw) {
				t.Errorf("GET %s renders %q as markup", path, raw)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("GET %s does not show the escaped script text", path)
		}
	}
}

func TestFactPagePlotAfterForgetAt(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada is sleepy.", Category: "mood"})
	// Confirmed ten days ago at a 36-hour half-life: far below the floor, but
	// the decay job has not run yet.
	if _, err := f.pool.Exec(context.Background(), `UPDATE entity_facts SET confirmed_at = $2 WHERE id = $1`,
		fact.ID, now.Add(-10*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, f.get(t, factPage(fact.ID)))
	svg := doc.Find(`svg[data-testid="confidence-plot"]`)
	if label := svg.AttrOr("aria-label", ""); !strings.HasPrefix(label, "Confidence 1% now") || !strings.Contains(label, "next decay run") {
		t.Errorf("plot label = %q, want 1%% now and due at the next decay run", label)
	}
	if svg.Find(`[data-testid="plot-now"] line`).Length() != 1 {
		t.Error("a plot past forget_at does not mark now")
	}
}

// A form that does not carry a usable version is refused beside the form,
// keeping what was typed, and changes nothing.
func TestFactEditWithoutVersion(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada likes tea.", Category: "preference"})
	form := editForm(t, parse(t, f.get(t, factPage(fact.ID))))
	form.Set("content", "Ada likes rooibos.")
	for _, version := range []string{"", "0", "two"} {
		form.Set("version", version)
		rec := f.signedIn.post(t, factPage(fact.ID), form)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("POST with version %q = %d, want 422", version, rec.Code)
		}
		doc := parse(t, rec)
		if msg := text(doc, "form-error"); !strings.Contains(msg, "does not say which version") {
			t.Errorf("version %q: form error = %q, want it to ask for a reload", version, msg)
		}
		if got := doc.Find(`[data-testid="fact-form-content"]`).Text(); got != "Ada likes rooibos." {
			t.Errorf("version %q: re-rendered content = %q, want what was typed", version, got)
		}
	}
	if v := factVersion(t, f, fact.ID); v != 1 {
		t.Errorf("refused edits changed the version to %d", v)
	}
}

// Each action of the fact page carries its own reason: the edit, the move
// and the archive each have a reason field inside their own form, labelled
// for that action, and the reason typed for an action is the one its
// history row shows.
func TestFactPageReasonPerAction(t *testing.T) {
	f := newFixture(t, false)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Key: "drink", Content: "Ada likes tea.", Category: "preference"})
	doc := parse(t, f.get(t, factPage(fact.ID)))
	reasons := doc.Find(`input[name="reason"], textarea[name="reason"]`)
	if reasons.Length() != 3 {
		t.Fatalf("fact page has %d reason fields, want 3: edit, move and archive", reasons.Length())
	}
	labels := map[string]string{}
	reasons.Each(func(_ int, s *goquery.Selection) {
		form := s.Closest("form").AttrOr("data-testid", "")
		if form == "" {
			t.Errorf("reason field %q is outside any form", s.AttrOr("id", ""))
		}
		label := strings.TrimSpace(doc.Find(`label[for="` + s.AttrOr("id", "") + `"]`).Text())
		labels[form] = label
	})
	want := map[string]string{"fact-form": "Reason for this edit", "fact-move-form": "Reason for the move",
		"fact-archive-form": "Reason for archiving"}
	for form, label := range want {
		if labels[form] != label {
			t.Errorf("reason of %s labelled %q, want %q", form, labels[form], label)
		}
	}

	// The edit's reason, then the archive's, each in its own history row.
	form := editForm(t, doc)
	form.Set("content", "Ada likes green tea.")
	form.Set("reason", "she said so twice")
	followFlash(t, f.signedIn, f.signedIn.post(t, factPage(fact.ID), form))
	archive := url.Values{"ids": {strconv.FormatInt(fact.ID, 10)}, "return": {factPage(fact.ID)},
		"action": {"archive"}, "reason": {"she stopped drinking tea"}}
	followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", archive))
	doc = parse(t, f.get(t, factPage(fact.ID)))
	got := map[string]string{}
	doc.Find(`[data-testid="history-row"]`).Each(func(_ int, s *goquery.Selection) {
		got[strings.TrimSpace(s.Find(`[data-testid="history-action"]`).Text())] = strings.TrimSpace(s.Find(`[data-testid="history-reason"]`).Text())
	})
	if got["fact.update"] != "she said so twice" || got["fact.archive"] != "she stopped drinking tea" {
		t.Errorf("history reasons = %v, want each action's own", got)
	}
	if l := strings.TrimSpace(doc.Find(`label[for="archive-reason"]`).Text()); l != "Reason for restoring" {
		t.Errorf("archived fact's reason label = %q, want Reason for restoring", l)
	}
}

func TestFactMove(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Key: "drink", Content: "Maya likes green tea.", Category: "preference"})
	maya := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Maya Hale", Content: "Maya is a nurse.", Category: "identity"})
	if _, err := factsStore(f).AddAlias(ctx, memory.Human("setup@example.com"), "home", maya.EntityID, "my wife"); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, f.get(t, factPage(fact.ID)))
	move := doc.Find(`form[data-testid="fact-move-form"]`)
	if move.AttrOr("action", "") != factPage(fact.ID)+"/move" {
		t.Fatalf("move form posts to %q", move.AttrOr("action", ""))
	}
	if e, k := move.Find(`[data-testid="fact-move-entity"]`).AttrOr("value", ""), move.Find(`[data-testid="fact-move-key"]`).AttrOr("value", ""); e != "Ada" || k != "drink" {
		t.Errorf("move form shows %q, %q; want where the fact is", e, k)
	}
	form := url.Values{"version": {"1"}, "entity": {"my wife"}, "key": {"drink"}, "reason": {"it is about Maya"}}
	loc, flash := followFlash(t, f.signedIn, f.signedIn.post(t, factPage(fact.ID)+"/move", form))
	if loc != factPage(fact.ID) || !strings.Contains(flash, "about Maya Hale, key drink") {
		t.Errorf("move led to %q with %q, want the fact page saying where it went", loc, flash)
	}
	doc = parse(t, f.get(t, factPage(fact.ID)))
	if got := text(doc, "fact-entity"); got != "Maya Hale" {
		t.Errorf("entity after the move = %q", got)
	}
	first := doc.Find(`[data-testid="history-row"]`).First()
	if change := strings.Join(strings.Fields(first.Find(`[data-field="entity"]`).Text()), " "); change != "entity: Ada → changed to Maya Hale" ||
		strings.TrimSpace(first.Find(`[data-testid="history-reason"]`).Text()) != "it is about Maya" {
		t.Errorf("history of the move = %q, want the entity change with its reason", first.Text())
	}

	t.Run("refusals", func(t *testing.T) {
		decRecord(t, f, "home", "Maya Hale", "diet", "Maya eats no meat.", "She decided so in 2019.")
		for _, tt := range []struct {
			form  url.Values
			code  int
			field string
			want  string
		}{
			{url.Values{"version": {"2"}, "entity": {"Maya Hale"}, "key": {"Not A Key"}}, 422, "error-move-key-error", "invalid key"},
			{url.Values{"version": {"2"}, "entity": {" "}, "key": {""}}, 422, "error-move-entity-error", "entity is empty"},
			{url.Values{"version": {"2"}, "entity": {"Maya Hale"}, "key": {"diet"}}, 409, "error-move-key-error", "reopen it first"},
			{url.Values{"version": {"1"}, "entity": {"Bo"}, "key": {""}}, 409, "move-error", "Someone else changed this fact"},
		} {
			rec := f.signedIn.post(t, factPage(fact.ID)+"/move", tt.form)
			if rec.Code != tt.code {
				t.Errorf("move %v = %d, want %d", tt.form, rec.Code, tt.code)
				continue
			}
			if msg := text(parse(t, rec), tt.field); !strings.Contains(msg, tt.want) {
				t.Errorf("move %v: %s = %q, want %q", tt.form, tt.field, msg, tt.want)
			}
		}
		if v := factVersion(t, f, fact.ID); v != 2 {
			t.Errorf("refused moves changed the version to %d", v)
		}
		viewer := f.login(t, "viewer")
		if doc := parse(t, viewer.get(t, factPage(fact.ID))); doc.Find(`[data-testid="fact-move-form"]`).Length() != 0 {
			t.Error("a viewer sees the move form")
		}
		if rec := viewer.post(t, factPage(fact.ID)+"/move", url.Values{"version": {"2"}, "entity": {"Bo"}}); rec.Code != http.StatusForbidden {
			t.Errorf("viewer move = %d, want 403", rec.Code)
		}
	})
}

// A fact forgotten decades from now is drawn to its forget date: the time
// axis keeps the time around now to scale and compresses the rest, shaded
// and explained, and the forget date is marked within the plot.
func TestFactPagePlotReachesFarForgetDate(t *testing.T) {
	f := newFixture(t, false)
	confidence := 0.95
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada was born in Porto.",
		Category: "identity", Confidence: &confidence})
	if fact.ForgetAt == nil || fact.ForgetAt.Sub(now) < 30*365*24*time.Hour {
		t.Fatalf("forget_at = %v, want about 32 years ahead", fact.ForgetAt)
	}
	doc := parse(t, f.get(t, factPage(fact.ID)))
	svg := doc.Find(`svg[data-testid="confidence-plot"]`)
	forget := svg.Find(`[data-testid="plot-forget"] line`)
	if forget.Length() != 1 {
		t.Fatal("the forget date is not marked on the plot")
	}
	x, err := strconv.ParseFloat(forget.AttrOr("x1", ""), 64)
	if err != nil || x < 200 || x > 402 {
		t.Errorf("forget marker at x %q, want it inside the plot's right part (up to 402)", forget.AttrOr("x1", ""))
	}
	if svg.Find(`[data-testid="plot-break"]`).Length() != 1 || !strings.Contains(svg.Find(`[data-testid="plot-break"] text`).Text(), "compressed") {
		t.Error("the compressed part of the time axis is not shown and labelled")
	}
	dates := svg.Find(`[data-testid="plot-x-axis"] text`)
	if last := strings.TrimSpace(dates.Last().Text()); !strings.HasSuffix(last, strconv.Itoa(fact.ForgetAt.Year())) {
		t.Errorf("last date on the axis = %q, want the forget year %d", last, fact.ForgetAt.Year())
	}
	if note := text(doc, "plot-axis-note"); !strings.Contains(note, "compressed") || !strings.Contains(note, fact.ForgetAt.UTC().Format("2 Jan 2006")) {
		t.Errorf("axis note = %q, want it to explain the compression up to the forget date", note)
	}
	if svg.Find(`[data-testid="plot-now"] line`).Length() != 1 {
		t.Error("the plot does not mark now")
	}

	// A short-lived fact keeps a linear axis.
	mood := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ada", Content: "Ada is tired.", Category: "mood"})
	doc = parse(t, f.get(t, factPage(mood.ID)))
	if doc.Find(`[data-testid="plot-break"]`).Length() != 0 || doc.Find(`[data-testid="plot-axis-note"]`).Length() != 0 {
		t.Error("a plot of a few days is compressed")
	}
	if doc.Find(`[data-testid="plot-forget"]`).Length() != 1 {
		t.Error("the mood's forget date is not marked")
	}
}

// An overdue obligation is never forgotten: its page says it is kept until
// someone settles it, and its plot marks the deadline, not a forget date.
func TestFactPageHeldObligation(t *testing.T) {
	f := newFixture(t, false)
	deadline := now.Add(-6 * 24 * time.Hour)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Juniper", Content: "Juniper's booster vaccination.",
		Category: "obligation", Deadline: &deadline})
	// Written three weeks ago, it is past its forget date too.
	if _, err := f.pool.Exec(context.Background(), `UPDATE entity_facts SET confirmed_at = $2 WHERE id = $1`,
		fact.ID, now.Add(-21*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, f.get(t, factPage(fact.ID)))
	if got := text(doc, "fact-forget-at"); !strings.Contains(got, "kept until someone marks it done or lets it go") {
		t.Errorf("forgotten = %q, want it kept", got)
	}
	svg := doc.Find(`svg[data-testid="confidence-plot"]`)
	if label := svg.AttrOr("aria-label", ""); !strings.Contains(label, "overdue by 6 days") || !strings.Contains(label, "kept until") {
		t.Errorf("plot label = %q", label)
	}
	if svg.Find(`[data-testid="plot-due"]`).Length() != 1 || svg.Find(`[data-testid="plot-forget"]`).Length() != 0 {
		t.Error("the plot of an overdue obligation should mark its deadline and no forget date")
	}
}
