package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// ovwIDs reads the ids of the rows with testid from attribute attr.
func ovwIDs(doc *goquery.Document, testid, attr string) []int64 {
	var out []int64
	doc.Find(`[data-testid="` + testid + `"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := strconv.ParseInt(s.AttrOr(attr, ""), 10, 64)
		out = append(out, id)
	})
	return out
}

func ovwSame(a, b []int64) bool {
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

func TestOverviewMatrix(t *testing.T) {
	f := newFixture(t, true)
	viewer := f.login(t, "viewer")
	rec := viewer.get(t, "/")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET / = %d, want 200", rec.Code)
	}
	doc := parse(t, rec)
	if h1 := doc.Find("h1"); h1.Length() != 1 || strings.TrimSpace(h1.Text()) != "Overview" {
		t.Errorf("h1 = %q (%d), want one Overview", h1.Text(), h1.Length())
	}
	matrix := doc.Find(`table.matrix[data-testid="matrix"]`)
	if matrix.Length() != 1 {
		t.Fatal("no matrix")
	}
	// Rows are the four durabilities, columns start with the suggested categories.
	var heads []string
	matrix.Find("thead th").Each(func(_ int, s *goquery.Selection) { heads = append(heads, strings.TrimSpace(s.Text())) })
	if want := "observation,preference,identity,mood,decision,routine,state,obligation"; !strings.HasPrefix(strings.Join(heads[1:], ","), want) {
		t.Errorf("columns = %v, want the suggested categories first", heads)
	}
	if got := matrix.Find("tbody tr").Length(); got != 4 {
		t.Errorf("%d matrix rows, want the 4 durabilities", got)
	}

	cell := func(d, c string) *goquery.Selection {
		return matrix.Find(`[data-testid="matrix-cell"][data-durability="` + d + `"][data-category="` + c + `"]`)
	}
	for _, tt := range []struct{ d, c string }{
		{"ephemeral", "mood"}, {"ephemeral", "state"}, {"short_term", "obligation"}, {"permanent", "identity"},
		{"long_term", "observation"}, {"permanent", "decision"},
	} {
		want := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND durability = $1 AND category = $2`, tt.d, tt.c)
		if want == 0 {
			t.Fatalf("the demo has no active %s %s facts", tt.d, tt.c)
		}
		td := cell(tt.d, tt.c)
		if got := strings.TrimSpace(td.Text()); got != strconv.Itoa(want) {
			t.Errorf("cell %s × %s = %q, want %d", tt.d, tt.c, got, want)
		}
		href, ok := td.Find("a").Attr("href")
		if !ok {
			t.Errorf("cell %s × %s is not a link", tt.d, tt.c)
			continue
		}
		u, _ := url.Parse(href)
		if u.Path != "/facts" || u.Query().Get("durability") != tt.d || u.Query().Get("category") != tt.c {
			t.Errorf("cell %s × %s links to %q, want /facts filtered on both", tt.d, tt.c, href)
		}
		// The link shows exactly as many facts (first page) as the count.
		if got := len(rows(t, parse(t, viewer.get(t, href)))); got != min(want, 50) {
			t.Errorf("%s shows %d facts, the cell says %d", href, got, want)
		}
	}
	zero := cell("permanent", "mood")
	if dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND durability = 'permanent' AND category = 'mood'`) != 0 {
		t.Fatal("the demo has a permanent mood")
	}
	if !zero.HasClass("zero") || zero.Find("a").Length() != 0 || strings.TrimSpace(zero.Text()) != "0" {
		t.Errorf("zero cell = %q (class %q), want a muted 0 without a link", zero.Text(), zero.AttrOr("class", ""))
	}

	active := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE status = 'active'`)
	if got := strings.TrimSpace(matrix.Find(`[data-testid="matrix-total"]`).Text()); got != strconv.Itoa(active) {
		t.Errorf("matrix total = %q, want %d active facts", got, active)
	}
	rowTotal := matrix.Find(`[data-testid="matrix-row-total"][data-durability="ephemeral"]`)
	if want := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND durability = 'ephemeral'`); strings.TrimSpace(rowTotal.Text()) != strconv.Itoa(want) ||
		rowTotal.Find("a").AttrOr("href", "") != "/facts?durability=ephemeral" {
		t.Errorf("ephemeral total = %q → %q, want %d → /facts?durability=ephemeral", rowTotal.Text(), rowTotal.Find("a").AttrOr("href", ""), want)
	}
	colTotal := matrix.Find(`[data-testid="matrix-col-total"][data-category="mood"]`)
	if want := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND category = 'mood'`); strings.TrimSpace(colTotal.Text()) != strconv.Itoa(want) ||
		colTotal.Find("a").AttrOr("href", "") != "/facts?category=mood" {
		t.Errorf("mood total = %q, want %d → /facts?category=mood", colTotal.Text(), want)
	}
}

func TestOverviewMatrixOtherCategories(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	var entity int64
	if err := f.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ('x', 'Eve') RETURNING id`).Scan(&entity); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, category)
		VALUES ('x', $1, 'a', 'long_term', 'hobby'), ('x', $1, 'b', 'long_term', 'hobby'), ('x', $1, 'c', 'permanent', 'allergy')`, entity); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, f.get(t, "/"))
	var heads []string
	doc.Find(`[data-testid="matrix"] thead th`).Each(func(_ int, s *goquery.Selection) { heads = append(heads, strings.TrimSpace(s.Text())) })
	if got := strings.Join(heads[len(heads)-3:], ","); got != "allergy,hobby,Total" {
		t.Errorf("last columns = %s, want the other categories in use, sorted, then Total", got)
	}
	if got := doc.Find(`[data-testid="matrix-cell"][data-durability="long_term"][data-category="hobby"] a`).Text(); got != "2" {
		t.Errorf("long_term × hobby = %q, want 2", got)
	}
}

func TestOverviewPanels(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	doc := parse(t, f.get(t, "/"))

	t.Run("about to be forgotten", func(t *testing.T) {
		want := dbIDs(t, f, `SELECT id FROM entity_facts WHERE status = 'active' AND forget_at <= $1
			AND NOT (category = 'obligation' AND deadline IS NOT NULL AND deadline <= forget_at)
			ORDER BY forget_at, id LIMIT 10`, now.Add(7*24*time.Hour))
		if len(want) == 0 {
			t.Fatal("the demo has nothing about to be forgotten")
		}
		got := ovwIDs(doc, "forgetting-row", "data-fact-id")
		if !ovwSame(got, want) {
			t.Errorf("about to be forgotten = %v, want %v (soonest first)", got, want)
		}
		first := doc.Find(`[data-testid="forgetting-row"]`).First()
		if href := first.Find("a").AttrOr("href", ""); href != "/facts/"+strconv.FormatInt(want[0], 10) {
			t.Errorf("first row links to %q", href)
		}
		if txt := first.Find(`[data-testid="forgets-in"]`).Text(); !strings.HasPrefix(strings.TrimSpace(txt), "in ") && strings.TrimSpace(txt) != "due now" {
			t.Errorf("forgets in = %q, want a relative time", txt)
		}
	})

	t.Run("obligations", func(t *testing.T) {
		upcoming := dbIDs(t, f, `SELECT id FROM entity_facts WHERE status = 'active' AND category = 'obligation'
			AND deadline >= $1 AND deadline < $2 ORDER BY deadline, id LIMIT 10`, now, now.Add(14*24*time.Hour))
		overdue := dbIDs(t, f, `SELECT id FROM entity_facts WHERE status = 'active' AND category = 'obligation'
			AND deadline < $1 ORDER BY deadline, id LIMIT 10`, now)
		if len(upcoming) == 0 || len(overdue) == 0 {
			t.Fatalf("the demo has %d upcoming and %d overdue obligations, want some of each", len(upcoming), len(overdue))
		}
		if got := ovwIDs(doc, "obligation-upcoming-row", "data-fact-id"); !ovwSame(got, upcoming) {
			t.Errorf("upcoming = %v, want %v", got, upcoming)
		}
		if got := ovwIDs(doc, "obligation-overdue-row", "data-fact-id"); !ovwSame(got, overdue) {
			t.Errorf("overdue = %v, want %v", got, overdue)
		}
		if got := strings.TrimSpace(doc.Find(`[data-testid="stat-overdue"]`).Text()); got != strconv.Itoa(len(overdue)) {
			t.Errorf("overdue stat = %q, want %d", got, len(overdue))
		}
	})

	t.Run("queues", func(t *testing.T) {
		for _, marker := range []string{"durable", "transient", "expired"} {
			want := dbInt(t, f, `SELECT count(*) FROM memory_nodes WHERE promoted_at IS NULL
				AND coalesce(properties->>'durability', 'durable') = $1`, marker)
			dd := doc.Find(`[data-testid="markers-count"][data-key="` + marker + `"]`)
			if got := strings.TrimSpace(dd.Text()); got != strconv.Itoa(want) {
				t.Errorf("pending %s = %q, want %d", marker, got, want)
			}
			if want > 0 && dd.Find("a").AttrOr("href", "") != "/working?marker="+marker {
				t.Errorf("pending %s links to %q", marker, dd.Find("a").AttrOr("href", ""))
			}
		}
		for _, kind := range []string{"near_duplicate", "decision_refusal", "repeated_mood"} {
			if doc.Find(`[data-testid="review-count"][data-key="`+kind+`"]`).Length() != 1 {
				t.Errorf("no count of open %s review items", kind)
			}
		}
	})

	t.Run("runs", func(t *testing.T) {
		if doc.Find(`[data-testid="runs-empty"]`).Length() != 1 {
			t.Error("no empty state before any run")
		}
		store := memory.NewStore(f.pool, memory.Options{Now: func() time.Time { return now },
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		var runs []memory.Run
		for range 6 {
			run, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerTest})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, run)
		}
		first := runs[0]
		if first.TransientRejected+first.ExpiredRejected == 0 {
			t.Fatalf("the first run refused nothing: %+v", first)
		}
		doc := parse(t, f.get(t, "/"))
		got := ovwIDs(doc, "run-row", "data-run-id")
		want := []int64{runs[5].ID, runs[4].ID, runs[3].ID, runs[2].ID, runs[1].ID}
		if !ovwSame(got, want) {
			t.Errorf("runs shown = %v, want the last five, newest first: %v", got, want)
		}
		review := dbInt(t, f, `SELECT count(*) FROM review_items WHERE status = 'open'`)
		if got := strings.TrimSpace(doc.Find(`[data-testid="stat-review"]`).Text()); got != strconv.Itoa(review) {
			t.Errorf("open review items stat = %q, want %d", got, review)
		}

		// The first run, with its refusals, is the oldest of six: make it one of five.
		if _, err := f.pool.Exec(ctx, `DELETE FROM consolidation_runs WHERE id = $1`, runs[5].ID); err != nil {
			t.Fatal(err)
		}
		doc = parse(t, f.get(t, "/"))
		row := doc.Find(`[data-testid="run-row"][data-run-id="` + strconv.FormatInt(first.ID, 10) + `"]`)
		if row.Length() != 1 {
			t.Fatalf("the run with refusals is not listed")
		}
		if href := row.Find("a").AttrOr("href", ""); href != "/consolidation/runs/"+strconv.FormatInt(first.ID, 10) {
			t.Errorf("run links to %q", href)
		}
		if got := row.Find(`[data-testid="run-status"]`).Text(); got != "succeeded" {
			t.Errorf("run status = %q", got)
		}
		for testid, n := range map[string]int{"run-transient": first.TransientRejected, "run-expired": first.ExpiredRejected, "run-locked": first.DecisionLocked} {
			if got := row.Find(`[data-testid="` + testid + `"]`).Text(); !strings.HasSuffix(got, " "+strconv.Itoa(n)) {
				t.Errorf("%s = %q, want %d", testid, got, n)
			}
		}
		logged := dbInt(t, f, `SELECT count(*) FROM consolidation_rejections WHERE run_id = $1 AND reason = 'transient'`, first.ID)
		if logged != first.TransientRejected {
			t.Errorf("the run's transient counter %d disagrees with its %d logged refusals", first.TransientRejected, logged)
		}
	})
}

func TestOverviewEscapesMemoryText(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	var entity int64
	if err := f.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ('x', '<b>Eve</b>') RETURNING id`).Scan(&entity); err != nil {
		t.Fatal(err)
	}
	// An ephemeral fact confirmed now is forgotten within days; an obligation due tomorrow.
	if _, err := f.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, category, confirmed_at, deadline)
		VALUES ('x', $1, '<script>alert(1)</script>', 'ephemeral', 'mood', $2, NULL),
		       ('x', $1, '<img src=x onerror=alert(2)>', 'short_term', 'obligation', $2, $3)`,
		entity, now, now.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	rec := f.get(t, "/")
	body := rec.Body.String()
	doc := parse(t, rec)
	if got := doc.Find(`[data-testid="forgetting-content"]`).First().Text(); got != "<script>alert(1)</script>" {
		t.Errorf("about-to-be-forgotten content = %q, want the text as written", got)
	}
	for _, raw := range []string{"<script>alert(1)</script>", "<b>Eve</b>", "<img src=x"} {
		if strings.Contains(body, raw) {
			t.Errorf("memory text %q rendered as markup", raw)
		}
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the escaped script text is not on the page")
	}
	if doc.Find(`[data-testid="obligation-upcoming-row"]`).Length() != 1 {
		t.Error("the obligation due tomorrow is not listed")
	}
}

func TestOverviewNeedsSignIn(t *testing.T) {
	f := newFixture(t, false)
	rec := newClient(f).get(t, "/")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/login") {
		t.Errorf("GET / signed out = %d %s, want a redirect to sign in", rec.Code, rec.Header().Get("Location"))
	}
}

// TestOverviewSettlesObligations: the overview's obligation lists offer the
// obligations page's actions (Done, Let go; Keep on an overdue one), which
// come back to the overview; a viewer gets none.
func TestOverviewSettlesObligations(t *testing.T) {
	f := newFixture(t, true)
	doc := parse(t, f.get(t, "/"))
	row := doc.Find(`[data-testid="obligation-overdue-row"]`).First()
	id, err := strconv.ParseInt(row.AttrOr("data-fact-id", ""), 10, 64)
	if err != nil {
		t.Fatalf("no overdue obligation on the overview: %v", err)
	}
	form := row.Find(`[data-testid="overview-obligation-actions"]`)
	if form.AttrOr("action", "") != "/obligations/"+strconv.FormatInt(id, 10) ||
		form.Find(`input[name="return"]`).AttrOr("value", "") != "/" ||
		form.Find(`button[value="done"]`).Length() != 1 || form.Find(`button[value="let_go"]`).Length() != 1 ||
		form.Find(`button[value="keep"]`).Length() != 1 {
		t.Fatalf("the overdue row's actions are wrong: %s", ovwHTML(form))
	}
	if n := doc.Find(`[data-testid="obligation-upcoming-row"] button[value="keep"]`).Length(); n != 0 {
		t.Errorf("%d upcoming obligations offer Keep, which is for overdue ones", n)
	}
	loc, flash := followFlash(t, f.signedIn, f.signedIn.post(t, "/obligations/"+strconv.FormatInt(id, 10),
		url.Values{"action": {"done"}, "return": {"/"}}))
	if loc != "/" || !strings.Contains(flash, "archived as done") {
		t.Errorf("done from the overview led to %q with %q", loc, flash)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = $1 AND status = 'archived' AND archive_reason = 'done'`, id); n != 1 {
		t.Error("the obligation was not archived as done")
	}
	viewer := f.login(t, "viewer")
	if n := parse(t, viewer.get(t, "/")).Find(`[data-testid="overview-obligation-actions"]`).Length(); n != 0 {
		t.Errorf("a viewer is offered %d obligation actions", n)
	}
}

func ovwHTML(s *goquery.Selection) string {
	h, _ := goquery.OuterHtml(s)
	return h
}
