package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// chRenewals writes n customers' contract renewals in scope, then, an hour
// later, a line about the dashboard on each one's key: the second run
// supersedes every renewal with it. It returns both runs.
func chRenewals(t *testing.T, f fixture, scope string, n int) (memory.Run, memory.Run) {
	t.Helper()
	at := now.Add(-3 * time.Hour)
	nodes := make([]memory.NewNode, n)
	for i := range nodes {
		nodes[i] = memory.NewNode{Content: fmt.Sprintf("Customer %d renews the contract in March.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "contract_renewal", "category": "state"}}
	}
	wmPush(t, f, at, scope, nodes...)
	first := wmConsolidate(t, f, at)
	at = at.Add(time.Hour)
	for i := range nodes {
		nodes[i] = memory.NewNode{Content: fmt.Sprintf("The dashboard is slow today for customer %d.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "contract_renewal", "category": "state"}}
	}
	wmPush(t, f, at, scope, nodes...)
	second := wmConsolidate(t, f, at)
	if got := second.Count(memory.PhasePromote, "superseded"); got != n {
		t.Fatalf("second run superseded %d, want %d", got, n)
	}
	return first, second
}

// chItems reads the changes listed as "how:fact id".
func chItems(doc *goquery.Document) []string {
	var out []string
	doc.Find(`[data-testid="change"]`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.AttrOr("data-how", "")+":"+s.AttrOr("data-fact-id", ""))
	})
	return out
}

func TestChangesOfARun(t *testing.T) {
	f := newFixture(t, false)
	first, second := chRenewals(t, f, "crm", 3)
	runID := strconv.FormatInt(second.ID, 10)

	// The run page and the consolidation page link to the run's changes.
	run := parse(t, f.get(t, "/consolidation/runs/"+runID))
	if href := run.Find(`[data-testid="run-changes-link"]`).AttrOr("href", ""); href != "/changes?run="+runID {
		t.Errorf("run page links to %q, want /changes?run=%s", href, runID)
	}
	if got := strings.TrimSpace(run.Find(`[data-testid="counter-superseded"]`).Text()); got != "3" {
		t.Errorf("run page superseded = %q, want 3", got)
	}
	cons := parse(t, f.get(t, "/consolidation"))
	row := cons.Find(`[data-testid="run-row"][data-run-id="` + runID + `"]`)
	if href := row.Find(`[data-testid="run-changes"]`).AttrOr("href", ""); href != "/changes?run="+runID {
		t.Errorf("runs table links to %q", href)
	}
	if got := strings.TrimSpace(row.Find(`[data-testid="run-superseded"]`).Text()); got != "3" {
		t.Errorf("runs table superseded = %q, want 3", got)
	}

	doc := parse(t, f.get(t, "/changes?run="+runID))
	if doc.Find(`[data-testid="changes-run"]`).Length() != 1 {
		t.Error("no summary of the run filtered on")
	}
	items := doc.Find(`[data-testid="change"]`)
	if items.Length() != 3 {
		t.Fatalf("changes of run %s = %v, want its 3 supersessions", runID, chItems(doc))
	}
	items.Each(func(_ int, s *goquery.Selection) {
		old := s.Find(`[data-testid="change-old-text"]`).Text()
		newer := s.Find(`[data-testid="change-new-text"]`).Text()
		if s.AttrOr("data-how", "") != "superseded" || !strings.Contains(old, "renews the contract") ||
			!strings.Contains(newer, "dashboard is slow") || s.Find(`[data-testid="change-key"]`).Text() != "contract_renewal" ||
			s.Find(`[data-testid="undo"]`).Length() != 1 || !strings.Contains(s.Find(`[data-testid="change-run"]`).Text(), runID) {
			t.Errorf("change = %q, want the renewal beside the dashboard line, with an undo", strings.Join(strings.Fields(s.Text()), " "))
		}
	})
	if n := parse(t, f.get(t, "/changes?run="+strconv.FormatInt(first.ID, 10))).Find(`[data-testid="change"]`).Length(); n != 0 {
		t.Errorf("the first run (promotions only) lists %d changes", n)
	}

	// Filters: kind, scope and a time range.
	for _, tt := range []struct {
		query string
		want  int
	}{
		{"run=" + runID + "&kind=superseded", 3},
		{"run=" + runID + "&kind=merged", 0},
		{"scope=crm", 3},
		{"scope=elsewhere", 0},
		{"from=2026-11-30&to=2026-11-30", 3},
		{"from=2026-12-01", 0},
		{"to=2026-11-29", 0},
	} {
		rec := f.get(t, "/changes?"+tt.query)
		doc := parse(t, rec)
		if n := doc.Find(`[data-testid="change"]`).Length(); rec.Code != http.StatusOK || n != tt.want {
			t.Errorf("GET /changes?%s = %d with %d changes, want %d", tt.query, rec.Code, n, tt.want)
		}
		if tt.want == 0 && doc.Find(`[data-testid="changes-empty"]`).Length() != 1 {
			t.Errorf("GET /changes?%s: no empty state", tt.query)
		}
	}
	// The filter form keeps what was chosen; an HTMX request gets the results alone.
	doc = parse(t, f.get(t, "/changes?scope=crm&kind=superseded"))
	if v := doc.Find(`[data-testid="filter-kind"] option[selected]`).AttrOr("value", ""); v != "superseded" {
		t.Errorf("kind filter shows %q", v)
	}
	if v := doc.Find(`[data-testid="filter-scope"] option[selected]`).AttrOr("value", ""); v != "crm" {
		t.Errorf("scope filter shows %q", v)
	}
	frag := f.get(t, "/changes?scope=crm", "HX-Request", "true").Body.String()
	if !strings.Contains(frag, `id="changes-results"`) || strings.Contains(frag, `class="filter-bar"`) {
		t.Error("an HTMX request is not answered with the results alone")
	}

	// Refused filters are a 400 naming the value.
	for _, tt := range []struct{ query, want string }{
		{"run=abc", "positive run id"},
		{"kind=forgotten", "invalid kind"},
		{"scope=Not%20A%20Scope", "invalid scope"},
		{"before=x", "invalid page cursor"},
		{"from=2026-12-01&to=2026-11-01", "time range is empty"},
		{"from=yesterday", "invalid date"},
	} {
		rec := f.get(t, "/changes?"+tt.query)
		msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text()
		if rec.Code != http.StatusBadRequest || !strings.Contains(msg, tt.want) {
			t.Errorf("GET /changes?%s = %d %q, want 400 containing %q", tt.query, rec.Code, msg, tt.want)
		}
	}
}

func TestChangesPaginate(t *testing.T) {
	f := newFixture(t, false)
	_, second := chRenewals(t, f, "crm", 55)
	first := parse(t, f.get(t, "/changes?run="+strconv.FormatInt(second.ID, 10)))
	page1 := chItems(first)
	next, ok := first.Find(`[data-testid="next-page"]`).Attr("href")
	if len(page1) != 50 || !ok {
		t.Fatalf("first page = %d changes, next %q; want 50 and a next page", len(page1), next)
	}
	u, err := url.Parse(next)
	if err != nil || u.Query().Get("run") != strconv.FormatInt(second.ID, 10) || !strings.Contains(u.Query().Get("before"), ".") {
		t.Errorf("next page %q, want the run kept and a cursor inside the run's audit row", next)
	}
	doc := parse(t, f.get(t, next))
	page2 := chItems(doc)
	if len(page2) != 5 || doc.Find(`[data-testid="next-page"]`).Length() != 0 {
		t.Errorf("second page = %d changes, want the last 5 and no next page", len(page2))
	}
	seen := map[string]bool{}
	for _, it := range append(page1, page2...) {
		if seen[it] {
			t.Errorf("change %s listed twice", it)
		}
		seen[it] = true
	}
	if len(seen) != 55 {
		t.Errorf("%d distinct changes over two pages, want 55", len(seen))
	}
}

func TestChangeUndo(t *testing.T) {
	f := newFixture(t, false)
	_, second := chRenewals(t, f, "crm", 2)
	back := "/changes?run=" + strconv.FormatInt(second.ID, 10)
	doc := parse(t, f.get(t, back))
	item := doc.Find(`[data-testid="change"]`).First()
	old, _ := strconv.ParseInt(item.AttrOr("data-fact-id", ""), 10, 64)
	newer := dbInt(t, f, `SELECT id FROM entity_facts WHERE status = 'active' AND entity_id =
		(SELECT entity_id FROM entity_facts WHERE id = $1)`, old)
	form := item.Find(`[data-testid="undo-form"]`)
	if form.AttrOr("action", "") != "/changes/undo" || form.Find(`input[name="_csrf"]`).Length() != 1 {
		t.Fatalf("undo form = %q, want a POST to /changes/undo with a CSRF token", form.AttrOr("action", ""))
	}
	values := url.Values{}
	form.Find("input").Each(func(_ int, s *goquery.Selection) { values.Set(s.AttrOr("name", ""), s.AttrOr("value", "")) })

	// A viewer sees no undo and may not post one.
	viewer := f.login(t, "viewer")
	if n := parse(t, viewer.get(t, back)).Find(`[data-testid="undo"]`).Length(); n != 0 {
		t.Errorf("a viewer sees %d undo buttons", n)
	}
	if rec := viewer.post(t, "/changes/undo", url.Values{"kind": {"superseded"}, "id": {strconv.FormatInt(old, 10)}}); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's undo = %d, want 403", rec.Code)
	}
	// Without the CSRF token nothing happens.
	bad := url.Values{"kind": {"superseded"}, "id": {strconv.FormatInt(old, 10)}, "_csrf": {"forged"}}
	if rec := f.signedIn.post(t, "/changes/undo", bad); rec.Code != http.StatusForbidden {
		t.Errorf("an undo with a forged token = %d, want 403", rec.Code)
	}

	// An undo that does not say when its change was made changes nothing.
	undated := url.Values{}
	for k, v := range values {
		if k != "at" {
			undated[k] = v
		}
	}
	if _, _, flash := follow(t, f.signedIn, f.signedIn.post(t, "/changes/undo", undated)); !strings.Contains(flash, "does not say when the change was made") ||
		dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = $1 AND status = 'archived'`, old) != 1 {
		t.Errorf("an undo without the change's time: flash %q, want it refused and the fact left archived", flash)
	}

	loc, doc, flash := follow(t, f.signedIn, f.signedIn.post(t, "/changes/undo", values))
	if loc != back {
		t.Errorf("undo went to %q, want back to %q", loc, back)
	}
	if !strings.Contains(flash, fmt.Sprintf("fact %d restored", old)) || !strings.Contains(flash, fmt.Sprintf("fact %d archived", newer)) {
		t.Errorf("flash = %q, want fact %d restored and %d archived", flash, old, newer)
	}
	if dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = $1 AND status = 'active'`, old) != 1 ||
		dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = $1 AND status = 'archived'`, newer) != 1 {
		t.Error("after the undo the renewal is not active again and the dashboard line not archived")
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE actor = 'user:reviewer@example.com' AND action = 'fact.restore'
		AND target_id = $1 AND reason LIKE 'undone in What changed:%'`, strconv.FormatInt(old, 10)); n != 1 {
		t.Errorf("audit rows of the undo = %d, want 1 restore by the reviewer", n)
	}
	undone := doc.Find(`[data-testid="change"][data-fact-id="` + strconv.FormatInt(old, 10) + `"]`)
	if undone.Find(`[data-testid="undo"]`).Length() != 0 || !strings.Contains(undone.Find(`[data-testid="change-since"]`).Text(), "restored since") {
		t.Errorf("undone change = %q, want no undo and 'restored since'", strings.Join(strings.Fields(undone.Text()), " "))
	}
	// The undo is a change itself, listed first and undoable.
	latest := parse(t, f.get(t, "/changes"))
	if got := chItems(latest); len(got) < 2 || got[0] != "archived:"+strconv.Itoa(newer) || got[1] != "restored:"+strconv.FormatInt(old, 10) {
		t.Errorf("latest changes = %v, want the dashboard line archived and the renewal restored", got)
	}

	// Undoing again: nothing holds any more.
	_, _, flash = follow(t, f.signedIn, f.signedIn.post(t, "/changes/undo", values))
	if !strings.Contains(flash, "Not undone") || !strings.Contains(flash, "restored since") {
		t.Errorf("second undo flash = %q, want it refused", flash)
	}
	// A return address elsewhere is not followed.
	values.Set("return", "https://example.com/")
	if rec := f.signedIn.post(t, "/changes/undo", values); rec.Header().Get("Location") != "/changes" {
		t.Errorf("undo with a foreign return went to %q", rec.Header().Get("Location"))
	}
}

func TestOverviewLinksChangesAndCounts(t *testing.T) {
	f := newFixture(t, true)
	// More facts fading this week than the panel lists.
	if _, err := f.pool.Exec(context.Background(), `INSERT INTO entity_facts (scope, entity_id, content, durability, category, confidence, confirmed_at)
		SELECT e.scope, e.id, 'Passing remark ' || g, 'ephemeral', 'observation', 0.8, $1
		FROM (SELECT scope, id FROM entities ORDER BY id LIMIT 1) e, generate_series(1, 15) g`, now); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, f.get(t, "/"))
	if n := doc.Find(`[data-testid="forgetting-row"]`).Length(); n != 10 {
		t.Errorf("the panel lists %d facts, want its first 10", n)
	}
	if href := doc.Find(`[data-testid="overview-changes"]`).AttrOr("href", ""); href != "/changes" {
		t.Errorf("overview links What changed at %q", href)
	}
	want := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND forget_at <= $1
		AND NOT (category = 'obligation' AND deadline IS NOT NULL AND deadline <= forget_at)`, now.Add(7*24*time.Hour))
	got := strings.TrimSpace(doc.Find(`[data-testid="stat-forgetting"]`).Text())
	if got != strconv.Itoa(want) || strings.Contains(got, "+") {
		t.Errorf("forgotten within 7 days = %q, want the real count %d", got, want)
	}
	stats := doc.Find(`[data-testid="overview-stats"]`)
	if n := stats.Find(`.stat-hint`).Length(); n < 2 || !strings.Contains(stats.Text(), "kept out by rule") ||
		!strings.Contains(stats.Text(), "failed on their own") {
		t.Errorf("stats = %q, want refused and set aside each told what it counts", strings.Join(strings.Fields(stats.Text()), " "))
	}
}
