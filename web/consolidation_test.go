package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/jobs"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
	"github.com/tenurehq/tenure/views/pages"
	"github.com/tenurehq/tenure/web"
)

// fixedJobs is a scheduler stand-in that reports fixed job states.
type fixedJobs []jobs.JobStatus

func (j fixedJobs) Status() []jobs.JobStatus { return j }
func (j fixedJobs) RunNow(string) error      { return nil }

// consFixtureWithJobs is newFixture (without demo data) with a scheduler.
func consFixtureWithJobs(t *testing.T, j web.Jobs) fixture {
	t.Helper()
	pool := pgtest.NewPool(t)
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{
		Pool: pool, Assets: assets, Now: func() time.Time { return now }, Jobs: j,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{pool: pool, server: srv}
	f.signedIn = f.login(t, "reviewer")
	return f
}

// consRejections reads the rejection log's rows as "run/phase/reason/content".
func consRejections(t *testing.T, doc *goquery.Document) []string {
	t.Helper()
	var out []string
	doc.Find(`[data-testid="rejection-row"]`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, strings.Join([]string{
			strings.TrimSpace(s.Find(`[data-testid="rejection-run"]`).Text()),
			strings.TrimSpace(s.Find(`[data-testid="rejection-phase"]`).Text()),
			strings.TrimSpace(s.Find(`[data-testid="rejection-reason"]`).Text()),
			strings.TrimSpace(s.Find(`[data-testid="rejection-content"]`).Text()),
		}, "/"))
	})
	return out
}

func TestConsolidationRunNow(t *testing.T) {
	f := newFixture(t, false)
	wmPush(t, f, now.Add(-time.Minute), "acme",
		memory.NewNode{Content: "Acme's contract renews every January"},
		memory.NewNode{Content: "sync still running", Durability: "transient"},
		memory.NewNode{Content: "old status line", Durability: "expired"})

	doc := parse(t, f.get(t, "/consolidation"))
	if doc.Find(`[data-testid="runs-empty"]`).Length() != 1 {
		t.Error("no empty state before the first run")
	}
	if doc.Find(`[data-testid="run-now"]`).Length() != 1 {
		t.Fatal("a reviewer sees no Run now button")
	}
	rec := f.signedIn.post(t, "/consolidation/run", nil)
	loc, doc, flash := follow(t, f.signedIn, rec)
	var runID int64
	if err := f.pool.QueryRow(context.Background(), `SELECT id FROM consolidation_runs WHERE trigger = 'manual'`).Scan(&runID); err != nil {
		t.Fatalf("no manual run recorded: %v", err)
	}
	if loc != "/consolidation/runs/"+strconv.FormatInt(runID, 10) {
		t.Errorf("redirect to %q, want the run's page", loc)
	}
	if !strings.Contains(flash, "Run "+strconv.FormatInt(runID, 10)+" finished") || !strings.Contains(flash, "1 promoted") ||
		!strings.Contains(flash, "2 refused") {
		t.Errorf("flash = %q, want the run's summary", flash)
	}
	if s := strings.TrimSpace(doc.Find(`[data-testid="run-status"]`).Text()); s != "succeeded" {
		t.Errorf("run status = %q, want succeeded", s)
	}
	counters := map[string]string{"promoted": "1", "pruned": "1", "transient": "1", "expired": "1", "decision_locked": "0"}
	for id, want := range counters {
		if got := strings.TrimSpace(doc.Find(`[data-testid="counter-` + id + `"]`).Text()); got != want {
			t.Errorf("counter %s = %q, want %s", id, got, want)
		}
	}
	var phases []string
	doc.Find(`[data-testid="phase-row"]`).Each(func(_ int, s *goquery.Selection) { phases = append(phases, s.AttrOr("data-phase", "")) })
	if strings.Join(phases, ",") != "9,10,11,12,8" {
		t.Errorf("report phases = %v, want the order a run executes them: 9,10,11,12,8", phases)
	}
	promote := doc.Find(`[data-testid="phase-row"][data-phase="10"]`)
	if !strings.Contains(promote.Text(), "promote") || strings.TrimSpace(promote.Find(`[data-testid="outcome-promoted"]`).Text()) != "1 promoted" {
		t.Errorf("phase 10 row = %q, want its name and 1 promoted", promote.Text())
	}
	if got := strings.TrimSpace(doc.Find(`[data-testid="phase-row"][data-phase="8"] [data-testid="outcome-pruned_expired"]`).Text()); got != "1 pruned_expired" {
		t.Errorf("phase 8 pruned_expired = %q, want 1", got)
	}
	got := consRejections(t, doc)
	if len(got) != 2 || !strings.Contains(strings.Join(got, " "), "10 · promote/expired/old status line") {
		t.Errorf("run page refusals = %v, want the two refused rows", got)
	}
	if href := doc.Find(`[data-testid="run-rejections-link"]`).AttrOr("href", ""); href != "/consolidation/rejections?run="+strconv.FormatInt(runID, 10) {
		t.Errorf("link to the log = %q, want it filtered by the run", href)
	}

	doc = parse(t, f.get(t, "/consolidation"))
	row := doc.Find(`[data-testid="run-row"]`)
	if row.Length() != 1 || row.AttrOr("data-run-id", "") != strconv.FormatInt(runID, 10) ||
		strings.TrimSpace(row.Find(`[data-testid="run-promoted"]`).Text()) != "1" ||
		strings.TrimSpace(row.Find(`[data-testid="run-transient"]`).Text()) != "1" ||
		!strings.Contains(row.Text(), "manual") {
		t.Errorf("runs table row = %q, want the manual run with 1 promoted and 1 transient refusal", row.Text())
	}
}

func TestConsolidationRunInProgress(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	conn, err := f.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	// The engine's consolidation lock ("tenure-consolidate"), held as another run would.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(0x74656e757265_63)); err != nil {
		t.Fatal(err)
	}
	f.get(t, "/consolidation")
	loc, doc, flash := follow(t, f.signedIn, f.signedIn.post(t, "/consolidation/run", nil))
	if loc != "/consolidation" || doc.Find(`.flash-error`).Length() != 1 || !strings.Contains(flash, "another run is in progress") {
		t.Errorf("redirect %q, flash %q; want back to /consolidation saying another run is in progress", loc, flash)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM consolidation_runs`); n != 0 {
		t.Errorf("%d runs recorded, want none", n)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, int64(0x74656e757265_63)); err != nil {
		t.Fatal(err)
	}
}

func TestConsolidationRoles(t *testing.T) {
	f := newFixture(t, false)
	viewer := f.login(t, "viewer")
	doc := parse(t, viewer.get(t, "/consolidation"))
	if doc.Find(`[data-testid="run-now"], form[action="/consolidation/run"]`).Length() != 0 {
		t.Error("a viewer sees the Run now button")
	}
	if rec := viewer.post(t, "/consolidation/run", nil); rec.Code != http.StatusForbidden {
		t.Errorf("viewer POST /consolidation/run = %d, want 403", rec.Code)
	}
	f.get(t, "/consolidation")
	for name, token := range map[string]string{"missing": "", "wrong": "not-the-token"} {
		rec := f.signedIn.post(t, "/consolidation/run", url.Values{"_csrf": {token}})
		if rec.Code != http.StatusForbidden {
			t.Errorf("POST with a %s CSRF token = %d, want 403", name, rec.Code)
		}
	}
	if n := dbInt(t, f, `SELECT count(*) FROM consolidation_runs`); n != 0 {
		t.Errorf("%d runs started by refused requests, want none", n)
	}
	if rec := f.get(t, "/consolidation/runs/999"); rec.Code != http.StatusNotFound {
		t.Errorf("GET an unknown run = %d, want 404", rec.Code)
	}
}

func TestRejectionLogFilters(t *testing.T) {
	f := newFixture(t, false)
	early := now.Add(-3 * time.Hour)
	wmPush(t, f, early, "acme",
		memory.NewNode{Content: "build 7 is running", Durability: "transient"},
		memory.NewNode{Content: "We decided to deploy on Tuesdays", Durability: "transient",
			Properties: map[string]any{"category": "decision", "entity": "release", "key": "deploy_day"}})
	run1 := wmConsolidate(t, f, early).ID // refuses both in phase 10, the decision row in 12 too
	wmPush(t, f, now.Add(-time.Minute), "globex", memory.NewNode{Content: "<script>alert(1)</script>", Durability: "expired"})
	f.get(t, "/consolidation")
	follow(t, f.signedIn, f.signedIn.post(t, "/consolidation/run", nil)) // prunes the stale transient rows, refuses the expired one
	run2 := run1 + 1

	r1, r2 := "#"+strconv.FormatInt(run1, 10), "#"+strconv.FormatInt(run2, 10)
	tests := []struct {
		query string
		want  []string
	}{
		// Each refusal is logged once: run 2 skips the rows run 1 refused.
		{"", []string{
			r2 + "/10 · promote/expired/<script>alert(1)</script>",
			r1 + "/12 · decide/transient/We decided to deploy on Tuesdays",
			r1 + "/10 · promote/transient/We decided to deploy on Tuesdays",
			r1 + "/10 · promote/transient/build 7 is running",
		}},
		{"phase=12", []string{r1 + "/12 · decide/transient/We decided to deploy on Tuesdays"}},
		{"phase=decide&run=" + strconv.FormatInt(run1, 10), []string{r1 + "/12 · decide/transient/We decided to deploy on Tuesdays"}},
		{"reason=expired", []string{r2 + "/10 · promote/expired/<script>alert(1)</script>"}},
		{"run=" + strconv.FormatInt(run1, 10) + "&reason=transient&phase=10", []string{
			r1 + "/10 · promote/transient/We decided to deploy on Tuesdays", r1 + "/10 · promote/transient/build 7 is running",
		}},
		{"scope=globex", []string{r2 + "/10 · promote/expired/<script>alert(1)</script>"}},
		{"source=api", nil},
		{"reason=decision_locked", nil},
	}
	for _, tt := range tests {
		t.Run("?"+tt.query, func(t *testing.T) {
			rec := f.get(t, "/consolidation/rejections?"+tt.query)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET /consolidation/rejections?%s = %d: %s", tt.query, rec.Code, rec.Body)
			}
			doc := parse(t, rec)
			got := consRejections(t, doc)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("GET ?%s rows:\n%s\nwant:\n%s", tt.query, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(tt.want) == 0 && doc.Find(`[data-testid="rejections-empty"]`).Length() != 1 {
				t.Error("no empty-state message")
			}
		})
	}

	t.Run("filter kept in the form", func(t *testing.T) {
		doc := parse(t, f.get(t, "/consolidation/rejections?phase=decide&reason=transient&scope=acme&run="+strconv.FormatInt(run1, 10)))
		for sel, want := range map[string]string{"filter-phase": "12", "filter-reason": "transient", "filter-scope": "acme"} {
			if v := doc.Find(`[data-testid="`+sel+`"] option[selected]`).AttrOr("value", ""); v != want {
				t.Errorf("%s selected = %q, want %q", sel, v, want)
			}
		}
		if v := doc.Find(`[data-testid="filter-run"]`).AttrOr("value", ""); v != strconv.FormatInt(run1, 10) {
			t.Errorf("run filter = %q, want %d", v, run1)
		}
	})

	t.Run("script content is inert", func(t *testing.T) {
		body := f.get(t, "/consolidation/rejections").Body.String()
		if strings.Contains(body, "<script>alert(1)</script>") || !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Error("refused content rendered as markup on the rejection log")
		}
		body = f.get(t, "/consolidation/runs/"+strconv.FormatInt(run2, 10)).Body.String()
		if strings.Contains(body, "<script>alert(1)</script>") {
			t.Error("refused content rendered as markup on the run page")
		}
	})

	t.Run("pages", func(t *testing.T) {
		doc := parse(t, f.get(t, "/consolidation/rejections?run="+strconv.FormatInt(run2, 10)))
		if doc.Find(`[data-testid="next-page"]`).Length() != 0 {
			t.Error("a short log links a next page")
		}
		rec := f.get(t, "/consolidation/rejections?reason=transient", "HX-Request", "true")
		if body := rec.Body.String(); strings.Contains(body, "<html") || !strings.Contains(body, `id="rejections-results"`) {
			t.Errorf("htmx GET is not the results fragment: %.200s", body)
		}
	})
}

func TestRejectionLogPaginates(t *testing.T) {
	f := newFixture(t, false)
	nodes := make([]memory.NewNode, 60)
	for i := range nodes {
		nodes[i] = memory.NewNode{Content: "status " + strconv.Itoa(i), Durability: "expired"}
	}
	wmPush(t, f, now, "acme", nodes...)
	wmConsolidate(t, f, now)
	doc := parse(t, f.get(t, "/consolidation/rejections?reason=expired"))
	first := consRejections(t, doc)
	next, ok := doc.Find(`[data-testid="next-page"]`).Attr("href")
	if len(first) != 50 || !ok || !strings.Contains(next, "reason=expired") {
		t.Fatalf("first page: %d rows, next %q; want 50 and a link keeping the filter", len(first), next)
	}
	if second := consRejections(t, parse(t, f.get(t, next))); len(second) != 10 {
		t.Errorf("second page: %d rows, want 10", len(second))
	}
	// The run page lists the first 50 and says how many there are.
	runPage := parse(t, f.get(t, "/consolidation/runs/1"))
	if n := runPage.Find(`[data-testid="run-rejections"] [data-testid="rejection-row"]`).Length(); n != 50 ||
		!strings.Contains(runPage.Text(), "first 50 of 60") {
		t.Errorf("run page lists %d refusals, want the first 50 of 60", n)
	}
}

func TestRejectionLogRefusesBadFilters(t *testing.T) {
	f := newFixture(t, false)
	tests := []struct{ query, want string }{
		{"phase=7", "8 (cleanup), 9 (decay), 10 (promote), 11 (merge), 12 (decide)"},
		{"phase=gate", "a phase must be 8 to 12"},
		{"reason=stale", "allowed values are transient, expired, decision_locked"},
		{"source=cron", "allowed values are consolidation, api, extraction, mcp, import"},
		{"run=abc", "positive run id"},
		{"scope=Not%20A%20Scope", "invalid scope"},
		{"before=-1", "positive rejection id"},
	}
	for _, tt := range tests {
		rec := f.get(t, "/consolidation/rejections?"+tt.query)
		msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text()
		if rec.Code != http.StatusBadRequest || !strings.Contains(msg, tt.want) {
			t.Errorf("GET /consolidation/rejections?%s = %d %q, want 400 containing %q", tt.query, rec.Code, msg, tt.want)
		}
	}
}

func TestConsolidationChart(t *testing.T) {
	f := newFixture(t, false)
	doc := parse(t, f.get(t, "/consolidation"))
	chart := doc.Find(`[data-testid="runs-chart"]`)
	if chart.Length() != 1 || chart.Find(`[data-testid="chart-empty"]`).Length() != 1 {
		t.Errorf("before any run the chart is not empty: %s", chart.Text())
	}

	for i := range 3 {
		at := now.Add(time.Duration(i-3) * time.Hour)
		wmPush(t, f, at, "acme", memory.NewNode{Content: "a", Durability: "expired"}, memory.NewNode{Content: "b", Durability: "expired"},
			memory.NewNode{Content: fmt.Sprintf("Acme's plan is tier %d.", i),
				Properties: map[string]any{"entity": "Acme", "key": "plan_tier", "category": "state"}})
		wmConsolidate(t, f, at)
	}
	doc = parse(t, f.get(t, "/consolidation"))
	chart = doc.Find(`[data-testid="runs-chart"]`)
	if !chart.Is("figure") || chart.AttrOr("aria-labelledby", "") == "" || !strings.Contains(chart.Find("figcaption").Text(), "What each consolidation run did") {
		t.Fatal("the chart is not a figure with a caption")
	}
	rows := chart.Find(`[data-testid="chart-row"]`)
	if rows.Length() != 3 {
		t.Fatalf("chart draws %d rows, want one per run (3)", rows.Length())
	}
	// Newest first: the last run promoted a plan that superseded the one before.
	newest := rows.First()
	figures := map[string]string{}
	newest.Find(`[data-testid="chart-figure"]`).Each(func(_ int, s *goquery.Selection) {
		figures[s.AttrOr("data-series", "")] = strings.TrimSpace(s.Find("strong").Text())
	})
	want := map[string]string{"promoted": "1", "superseded": "1", "merged": "0", "refused": "2", "set aside": "0"}
	for series, n := range want {
		if figures[series] != n {
			t.Errorf("newest run's %s = %q, want %s (figures %v)", series, figures[series], n, figures)
		}
	}
	if newest.Find(`rect[data-series="superseded"][data-value="1"]`).Length() != 1 ||
		newest.Find(`rect[data-series="refused"][data-value="2"]`).Length() != 1 {
		t.Error("the newest run's bar lacks its superseded or refused segment")
	}
	if note := strings.TrimSpace(newest.Find(`[data-testid="chart-note"]`).Text()); !strings.HasSuffix(note, "ms") && !strings.HasSuffix(note, "s") {
		t.Errorf("the run's duration reads %q", note)
	}
	legend := chart.Find(`[data-testid="chart-legend"]`).Text()
	for _, series := range []string{"promoted", "superseded", "merged", "refused", "set aside"} {
		if !strings.Contains(legend, series) {
			t.Errorf("legend %q lacks %s", legend, series)
		}
	}
}

func TestConsolidationJobs(t *testing.T) {
	t.Run("no scheduler", func(t *testing.T) {
		f := newFixture(t, false)
		doc := parse(t, f.get(t, "/consolidation"))
		if msg := doc.Find(`[data-testid="jobs-disabled"]`).Text(); !strings.Contains(msg, "do not run in this process") {
			t.Errorf("jobs section = %q, want it to say scheduled jobs do not run here", doc.Find(`[data-testid="jobs"]`).Text())
		}
	})
	t.Run("with a scheduler", func(t *testing.T) {
		f := consFixtureWithJobs(t, fixedJobs{
			{Name: "consolidation", Interval: 5 * time.Minute, LastRun: now.Add(-3 * time.Minute), LastDuration: 1200 * time.Millisecond,
				NextRun: now.Add(2 * time.Minute), Runs: 12},
			{Name: "decay", Interval: time.Hour, Running: true, LastRun: now.Add(-2 * time.Hour), LastDuration: 40 * time.Millisecond,
				LastError: "decay: <b>connection refused</b>", NextRun: now.Add(time.Hour), Runs: 4, Failures: 1},
			{Name: "tombstone_purge", Interval: 24 * time.Hour},
		})
		rec := f.get(t, "/consolidation")
		doc := parse(t, rec)
		rows := doc.Find(`[data-testid="job-row"]`)
		if rows.Length() != 3 {
			t.Fatalf("%d job rows, want 3", rows.Length())
		}
		cons := doc.Find(`[data-job="consolidation"]`).Text()
		for _, want := range []string{"5 min", "3 min ago", "1.2 s", "in 2 min", "12", "idle"} {
			if !strings.Contains(cons, want) {
				t.Errorf("consolidation job row %q lacks %q", cons, want)
			}
		}
		decay := doc.Find(`[data-job="decay"]`)
		if s := decay.Find(`[data-testid="job-state"]`).Text(); s != "running" {
			t.Errorf("decay state = %q, want running", s)
		}
		if e := strings.TrimSpace(decay.Find(`[data-testid="job-error"]`).Text()); e != "decay: <b>connection refused</b>" {
			t.Errorf("decay error = %q, want it shown as text", e)
		}
		if strings.Contains(rec.Body.String(), "<b>connection refused</b>") {
			t.Error("a job error rendered as markup")
		}
		purge := doc.Find(`[data-job="tombstone_purge"]`).Text()
		if !strings.Contains(purge, "never") || !strings.Contains(purge, "24 h") || !strings.Contains(purge, "not scheduled") {
			t.Errorf("tombstone_purge row %q, want never run, every 24 h, not scheduled", purge)
		}
	})
}

// TestSetAsideRowsShown: a run that set rows aside says so in the runs
// table, on its page (each row with its error and next try) and on the
// overview.
func TestSetAsideRowsShown(t *testing.T) {
	f := newFixture(t, false)
	bad := pushPoisoned(t, f)
	at := now.Add(-time.Hour)
	run := wmConsolidate(t, f, at)
	if run.Status != memory.RunPartial || run.SetAside != 1 {
		t.Fatalf("run = %s with %d set aside, want partial with 1", run.Status, run.SetAside)
	}

	doc := parse(t, f.get(t, "/consolidation"))
	row := doc.Find(`[data-testid="run-row"]`).First()
	if got := strings.TrimSpace(row.Find(`[data-testid="run-status"]`).Text()); got != "partial" {
		t.Errorf("runs table status = %q, want partial", got)
	}
	if got := strings.TrimSpace(row.Find(`[data-testid="run-set_aside"]`).Text()); got != "1" {
		t.Errorf("runs table set aside = %q, want 1", got)
	}

	doc = parse(t, f.get(t, pages.RunURL(run.ID)))
	if got := strings.TrimSpace(doc.Find(`[data-testid="counter-set_aside"]`).Text()); got != "1" {
		t.Errorf("run page set-aside counter = %q, want 1", got)
	}
	fault := doc.Find(`[data-testid="fault-row"]`)
	if fault.Length() != 1 || fault.AttrOr("data-node-id", "") != strconv.FormatInt(bad[0], 10) ||
		!strings.Contains(fault.Find(`[data-testid="fault-error"]`).Text(), "poisoned row") {
		t.Errorf("run page set-aside rows = %d (%q), want row %d with its error", fault.Length(), fault.Text(), bad[0])
	}
	if !strings.Contains(doc.Find(`[data-testid="run-error"]`).Text(), "set aside") {
		t.Errorf("run page does not explain the partial status: %q", doc.Find(`[data-testid="run-error"]`).Text())
	}

	doc = parse(t, f.get(t, "/"))
	if got := strings.TrimSpace(doc.Find(`[data-testid="stat-set-aside"]`).Text()); !strings.HasPrefix(got, "1") {
		t.Errorf("overview set-aside stat = %q, want 1", got)
	}
}

// pushPoisoned makes every fact written into scope "poison" fail in
// PostgreSQL (a trigger raises), then pushes one row into a clean scope and
// one into the poisoned one, an hour ago; it returns the poisoned row's id.
func pushPoisoned(t *testing.T, f fixture) []int64 {
	t.Helper()
	for _, sql := range []string{
		`CREATE FUNCTION test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.scope = 'poison' THEN RAISE EXCEPTION 'poisoned row'; END IF;
			RETURN NEW;
		END $$`,
		`CREATE TRIGGER test_poison BEFORE INSERT ON entity_facts FOR EACH ROW EXECUTE FUNCTION test_poison()`,
	} {
		if _, err := f.pool.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	at := now.Add(-time.Hour)
	wmPush(t, f, at, "clean", memory.NewNode{Content: "Acme prefers email."})
	return wmPush(t, f, at, "poison", memory.NewNode{Content: "Globex prefers phone."})
}
