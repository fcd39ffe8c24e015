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

// obligationRows returns the fact ids of one section of the obligations page, in order.
func obligationRows(t *testing.T, doc *goquery.Document, section string) []int64 {
	t.Helper()
	var ids []int64
	doc.Find(`[data-testid="` + section + `"] [data-testid="obligation-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, err := strconv.ParseInt(s.AttrOr("data-fact-id", ""), 10, 64)
		if err != nil {
			t.Errorf("obligation row without a numeric data-fact-id")
		}
		ids = append(ids, id)
		if href := s.Find(`[data-testid="obligation-content"] a`).AttrOr("href", ""); href != factPage(id) {
			t.Errorf("obligation %d links to %q, want its fact page", id, href)
		}
	})
	return ids
}

func deadlines(t *testing.T, f fixture, ids []int64) []time.Time {
	t.Helper()
	out := make([]time.Time, len(ids))
	for i, id := range ids {
		if err := f.pool.QueryRow(context.Background(), `SELECT deadline FROM entity_facts WHERE id = $1`, id).Scan(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestObligationsPage(t *testing.T) {
	f := newFixture(t, true)
	// An extra overdue obligation elsewhere, one without a deadline, and an
	// archived one, which is not shown.
	long := now.Add(-30 * 24 * time.Hour)
	oldest := writeFact(t, f, memory.NewFact{Scope: "elsewhere", Entity: "Bo", Content: "Return the library books.",
		Category: "obligation", Deadline: &long})
	open := writeFact(t, f, memory.NewFact{Scope: "elsewhere", Entity: "Bo", Content: "Call the plumber some day.", Category: "obligation"})
	soon := now.Add(24 * time.Hour)
	gone := writeFact(t, f, memory.NewFact{Scope: "elsewhere", Entity: "Bo", Content: "Archived obligation.", Category: "obligation", Deadline: &soon})
	if _, err := factsStore(f).ArchiveFacts(context.Background(), memory.Human("x@example.com"), []int64{gone.ID}, ""); err != nil {
		t.Fatal(err)
	}

	viewer := f.login(t, "viewer")
	rec := viewer.get(t, "/obligations")
	if rec.Code != http.StatusOK {
		t.Fatalf("viewer GET /obligations = %d, want 200", rec.Code)
	}
	doc := parse(t, rec)
	if doc.Find("h1").Length() != 1 {
		t.Error("want exactly one h1")
	}

	overdue := obligationRows(t, doc, "overdue")
	if len(overdue) < 3 || overdue[0] != oldest.ID {
		t.Errorf("overdue = %v, want the demo's overdue obligations after the oldest, %d", overdue, oldest.ID)
	}
	for i, d := range deadlines(t, f, overdue) {
		if !d.Before(now) {
			t.Errorf("overdue row %d has deadline %s, not before now", i, d)
		}
		if i > 0 && d.Before(deadlines(t, f, overdue[i-1:i])[0]) {
			t.Errorf("overdue row %d (deadline %s) comes after a later deadline; want oldest first", i, d)
		}
	}
	if by := strings.TrimSpace(doc.Find(`[data-testid="overdue"] [data-testid="overdue-by"]`).First().Text()); by != "30 d" {
		t.Errorf("oldest overdue by %q, want 30 d", by)
	}

	upcoming := obligationRows(t, doc, "upcoming")
	if len(upcoming) < 3 {
		t.Fatalf("upcoming = %v, want the demo's upcoming obligations", upcoming)
	}
	ds := deadlines(t, f, upcoming)
	for i, d := range ds {
		if d.Before(now) {
			t.Errorf("upcoming row %d has deadline %s, before now", i, d)
		}
		if i > 0 && d.Before(ds[i-1]) {
			t.Errorf("upcoming row %d (deadline %s) after %s; want soonest first", i, d, ds[i-1])
		}
	}
	dueIn := doc.Find(`[data-testid="upcoming"] [data-testid="due-in"]`)
	if dueIn.Length() != len(upcoming) || strings.TrimSpace(dueIn.First().Text()) == "" {
		t.Errorf("%d due-in cells for %d upcoming rows", dueIn.Length(), len(upcoming))
	}
	for _, id := range append(overdue, upcoming...) {
		if id == gone.ID {
			t.Error("an archived obligation is listed")
		}
	}
	if noDeadline := obligationRows(t, doc, "no-deadline"); len(noDeadline) != 1 || noDeadline[0] != open.ID {
		t.Errorf("without a deadline = %v, want [%d]", noDeadline, open.ID)
	}

	t.Run("scope filter", func(t *testing.T) {
		doc := parse(t, viewer.get(t, "/obligations?scope=elsewhere"))
		if got := obligationRows(t, doc, "overdue"); len(got) != 1 || got[0] != oldest.ID {
			t.Errorf("overdue in scope elsewhere = %v, want [%d]", got, oldest.ID)
		}
		if got := obligationRows(t, doc, "upcoming"); len(got) != 0 {
			t.Errorf("upcoming in scope elsewhere = %v, want none", got)
		}
		if doc.Find(`[data-testid="upcoming-empty"]`).Length() != 1 {
			t.Error("an empty section has no empty-state message")
		}
		if v := doc.Find(`[data-testid="filter-scope"] option[selected]`).AttrOr("value", ""); v != "elsewhere" {
			t.Errorf("selected scope = %q, want elsewhere", v)
		}
	})

	t.Run("bad scope", func(t *testing.T) {
		if rec := viewer.get(t, "/obligations?scope=Bad%20Scope"); rec.Code != http.StatusBadRequest {
			t.Errorf("GET /obligations?scope=Bad Scope = %d, want 400", rec.Code)
		}
	})

	t.Run("htmx fragment", func(t *testing.T) {
		rec := viewer.get(t, "/obligations?scope=elsewhere", "HX-Request", "true")
		body := rec.Body.String()
		if rec.Code != http.StatusOK || strings.Contains(body, "<html") || !strings.Contains(body, `id="obligations-results"`) {
			t.Errorf("htmx GET = %d, want the results fragment: %.200s", rec.Code, body)
		}
	})
}

// obligationRow is the row of obligation id in a section of the page.
func obligationRow(doc *goquery.Document, section string, id int64) *goquery.Selection {
	return doc.Find(`[data-testid="` + section + `"] [data-testid="obligation-row"][data-fact-id="` + strconv.FormatInt(id, 10) + `"]`)
}

// TestObligationActions: each obligation offers Done and Let go, and Keep
// where decay would reach it; each archives or keeps it through the engine,
// audited, and the page says what changed.
func TestObligationActions(t *testing.T) {
	f := newFixture(t, false)
	past, soon := now.Add(-6*24*time.Hour), now.Add(3*24*time.Hour)
	overdue := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Juniper", Content: "Juniper's booster vaccination.",
		Category: "obligation", Deadline: &past})
	gift := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Maya", Content: "Send Maya's birthday gift.",
		Category: "obligation", Deadline: &past})
	upcoming := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Edmund", Content: "Present the routing talk.",
		Category: "obligation", Deadline: &soon})
	someday := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Edmund", Content: "Call the plumber.", Category: "obligation"})

	doc := parse(t, f.get(t, "/obligations?scope=home"))
	for _, c := range []struct {
		section string
		id      int64
		keep    bool
	}{{"overdue", overdue.ID, true}, {"upcoming", upcoming.ID, false}, {"no-deadline", someday.ID, true}} {
		row := obligationRow(doc, c.section, c.id)
		if row.Find(`[data-testid="obligation-done"]`).Length() != 1 || row.Find(`[data-testid="obligation-let-go"]`).Length() != 1 ||
			(row.Find(`[data-testid="obligation-keep"]`).Length() == 1) != c.keep {
			t.Errorf("%s row %d offers %q, want Done, Let go and Keep %v", c.section, c.id, strings.Join(strings.Fields(row.Find("form").Text()), " "), c.keep)
		}
		if a := row.Find(`[data-testid="obligation-done"]`).AttrOr("aria-label", ""); !strings.HasPrefix(a, "Done: ") {
			t.Errorf("done button's name = %q, want it to name the obligation", a)
		}
	}
	if doc.Find(`[data-testid="overdue"] th`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.TrimSpace(s.Text()) == "Forgets"
	}).Length() != 0 {
		t.Error("the overdue section still says when its obligations are forgotten")
	}

	act := func(id int64, action string) (string, string) {
		t.Helper()
		return followFlash(t, f.signedIn, f.signedIn.post(t, "/obligations/"+strconv.FormatInt(id, 10),
			url.Values{"action": {action}, "scope": {"home"}}))
	}
	for _, c := range []struct {
		id             int64
		action, reason string
	}{{overdue.ID, "done", "done"}, {gift.ID, "let_go", "let go"}} {
		loc, flash := act(c.id, c.action)
		if loc != "/obligations?scope=home" || !strings.Contains(flash, "archived as "+c.reason) {
			t.Errorf("%s led to %q with %q", c.action, loc, flash)
		}
		if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = $1 AND status = 'archived' AND archive_reason = $2`, c.id, c.reason); n != 1 {
			t.Errorf("%s: the obligation is not archived as %s", c.action, c.reason)
		}
		if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'fact.archive' AND target_id = $1
			AND reason = $2 AND actor = 'user:reviewer@example.com'`, strconv.FormatInt(c.id, 10), c.reason); n != 1 {
			t.Errorf("%s: %d audit rows, want 1", c.action, n)
		}
	}
	doc = parse(t, f.get(t, "/obligations?scope=home"))
	if obligationRow(doc, "overdue", overdue.ID).Length() != 0 {
		t.Error("an obligation marked done is still listed")
	}

	// Keep: confirmed again, for the one without a deadline.
	if _, flash := act(someday.ID, "keep"); !strings.Contains(flash, "confirmed again") {
		t.Errorf("keep flash = %q", flash)
	}
	if _, flash := act(upcoming.ID, "keep"); !strings.Contains(flash, "Nothing was changed") || !strings.Contains(flash, "nothing to keep yet") {
		t.Errorf("keep of an upcoming obligation = %q, want a refusal", flash)
	}
	if _, flash := act(overdue.ID, "done"); !strings.Contains(flash, "already archived") {
		t.Errorf("second done = %q, want a refusal", flash)
	}
	if _, flash := act(upcoming.ID, "forget"); !strings.Contains(flash, "unknown action") {
		t.Errorf("unknown action = %q", flash)
	}

	viewer := f.login(t, "viewer")
	if doc := parse(t, viewer.get(t, "/obligations")); doc.Find(`[data-testid="obligation-actions"]`).Length() != 0 {
		t.Error("a viewer sees the obligation actions")
	}
	if rec := viewer.post(t, "/obligations/"+strconv.FormatInt(upcoming.ID, 10), url.Values{"action": {"done"}}); rec.Code != http.StatusForbidden {
		t.Errorf("viewer POST = %d, want 403", rec.Code)
	}
	if rec := f.signedIn.post(t, "/obligations/"+strconv.FormatInt(upcoming.ID, 10), url.Values{"action": {"done"}, "_csrf": {"forged"}}); rec.Code != http.StatusForbidden {
		t.Errorf("forged POST = %d, want 403", rec.Code)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = $1 AND status = 'active'`, upcoming.ID); n != 1 {
		t.Error("a refused post archived the obligation")
	}
}

// TestObligationKeepOverdue: keeping an overdue obligation gives it seven
// more days.
func TestObligationKeepOverdue(t *testing.T) {
	f := newFixture(t, false)
	past := now.Add(-2 * 24 * time.Hour)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Priya", Content: "Send Priya the post-mortem.",
		Category: "obligation", Deadline: &past})
	_, flash := followFlash(t, f.signedIn, f.signedIn.post(t, "/obligations/"+strconv.FormatInt(fact.ID, 10), url.Values{"action": {"keep"}}))
	if !strings.Contains(flash, "due again") {
		t.Errorf("flash = %q", flash)
	}
	if got := deadlines(t, f, []int64{fact.ID})[0]; !got.Equal(now.Add(7 * 24 * time.Hour)) {
		t.Errorf("deadline = %s, want a week from now", got)
	}
	doc := parse(t, f.get(t, "/obligations"))
	if obligationRow(doc, "upcoming", fact.ID).Length() != 1 {
		t.Error("the kept obligation is not listed as upcoming")
	}
}

// TestObligationActionReturns: another page (the overview) may post the
// same actions and be sent back to itself; never to another site.
func TestObligationActionReturns(t *testing.T) {
	f := newFixture(t, false)
	past := now.Add(-24 * time.Hour)
	fact := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Bo", Content: "Return the books.", Category: "obligation", Deadline: &past})
	other := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Bo", Content: "Pay the fine.", Category: "obligation", Deadline: &past})
	path := "/obligations/" + strconv.FormatInt(fact.ID, 10)
	if loc, flash := followFlash(t, f.signedIn, f.signedIn.post(t, path, url.Values{"action": {"done"}, "return": {"/"}})); loc != "/" || !strings.Contains(flash, "done") {
		t.Errorf("done with return / led to %q (%q)", loc, flash)
	}
	path = "/obligations/" + strconv.FormatInt(other.ID, 10)
	rec := f.signedIn.post(t, path, url.Values{"action": {"let_go"}, "return": {"https://example.org/"}})
	if loc := rec.Header().Get("Location"); loc != "/obligations" {
		t.Errorf("a foreign return led to %q, want the obligations page", loc)
	}
}
