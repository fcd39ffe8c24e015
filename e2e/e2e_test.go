// Package e2e drives the console in a real headless Chromium against a real
// server on a real PostgreSQL database, as a reviewer would.
package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/client"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// chromiumPath finds the browser; the suite fails, never skips, without one.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	t.Fatal("no Chromium found: install it (apt-get install chromium) or set CHROMIUM to its path; the browser tests need a real browser")
	return ""
}

const password = "a long enough secret"

// session is one browser tab signed in to a fresh server with demo data.
type session struct {
	t    *testing.T
	ctx  context.Context
	base string
	pool *pgxpool.Pool
}

// newSession starts a server over a fresh database holding the demo memory,
// opens Chromium and signs in as a reviewer.
func newSession(t *testing.T) *session {
	t.Helper()
	pool := pgtest.NewPool(t)
	if _, err := demo.Load(context.Background(), pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.SeedUser(context.Background(), pool, auth.NewUser{
		Email: "reviewer@example.com", Name: "Rita Reviewer", Role: "reviewer", Password: password,
	}); err != nil {
		t.Fatal(err)
	}
	s := openBrowser(t, pool)
	s.do(chromedp.Navigate(s.base + "/facts"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-email`), "reviewer@example.com"))
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-password`), password))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	return s
}

// openBrowser starts a server over pool and opens Chromium on it, signed in
// as nobody.
func openBrowser(t *testing.T, pool *pgxpool.Pool) *session {
	t.Helper()
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	app, err := server.New(server.Config{Pool: pool, Assets: assets, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-sync", true),
	)
	// A browser that fails to start on a loaded machine is started again,
	// up to three times; any other failure fails the test at once.
	var ctx context.Context
	for attempt := 1; ; attempt++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		tctx, cancelTab := chromedp.NewContext(actx)
		_, err := chromedp.Run(tctx, chromedp.Sleep(0))
		if err == nil {
			t.Cleanup(cancelAlloc)
			t.Cleanup(cancelTab)
			ctx = tctx
			break
		}
		cancelTab()
		cancelAlloc()
		if attempt == 3 || !strings.Contains(err.Error(), "failed to start") {
			t.Fatalf("browser: %v", err)
		}
		t.Logf("browser did not start (attempt %d): %v", attempt, err)
		time.Sleep(time.Second)
	}
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	return &session{t: t, ctx: ctx, base: srv.URL, pool: pool}
}

// do runs browser steps, failing the test with the step's error.
func (s *session) do(steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	if err := chromedp.Do(s.ctx, steps...); err != nil {
		s.screenshot("failure")
		s.t.Fatalf("browser: %v", err)
	}
}

func (s *session) text(sel string) string {
	s.t.Helper()
	v, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		s.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(v)
}

func (s *session) eval(js string) string {
	s.t.Helper()
	v, err := chromedp.Run(s.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		s.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// screenshot saves a PNG of the page into $TENURE_SCREENSHOTS, when set,
// for people to look at.
func (s *session) screenshot(name string) {
	dir := os.Getenv("TENURE_SCREENSHOTS")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(s.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.t.Logf("screenshot dir: %v", err)
		return
	}
	file := filepath.Join(dir, strings.ReplaceAll(s.t.Name(), "/", "_")+"-"+name+".png")
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
	}
}

func TestSignIn(t *testing.T) {
	s := newSession(t)
	if who := s.text(`[data-testid="signed-in-as"]`); !strings.Contains(who, "reviewer@example.com") {
		t.Errorf("signed in as %q", who)
	}
	s.screenshot("signed-in")
}

func TestFilterFactsByDurabilityAndCategory(t *testing.T) {
	s := newSession(t)
	s.do(chromedp.Navigate(s.base + "/facts"))
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="filter-durability"]`), "ephemeral"))
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="filter-category"]`), "mood"))
	s.do(chromedp.Click(chromedp.CSS(`form.filter-bar button[type="submit"]`)))
	s.do(chromedp.Sleep(300 * time.Millisecond))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="fact-row"]`)))
	url := s.eval(`location.href`)
	if !strings.Contains(url, "durability=ephemeral") || !strings.Contains(url, "category=mood") {
		t.Errorf("URL after filtering = %s, want both filters kept in it", url)
	}
	rows := s.eval(`String(document.querySelectorAll('[data-testid="fact-row"]').length)`)
	off := s.eval(`String([...document.querySelectorAll('[data-testid="fact-row"]')].filter(r =>
		r.querySelector('[data-testid="durability"]').textContent.trim() !== 'ephemeral' ||
		r.querySelector('[data-testid="category"]').textContent.trim() !== 'mood').length)`)
	if rows == "0" || off != "0" {
		t.Errorf("%s rows shown, %s of them not ephemeral moods", rows, off)
	}
	s.screenshot("filtered")
}

func TestScriptTagRendersInert(t *testing.T) {
	s := newSession(t)
	ctx := context.Background()
	var entity int64
	if err := s.pool.QueryRow(ctx, `SELECT id FROM entities WHERE scope = 'acme-support' LIMIT 1`).Scan(&entity); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content) VALUES ('acme-support', $1, '<script>alert(1)</script>')`, entity); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO memory_nodes (scope, content) VALUES ('acme-support', '<script>alert(1)</script>')`); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/facts", "/working"} {
		s.do(chromedp.Navigate(s.base + path))
		s.do(chromedp.Sleep(200 * time.Millisecond))
		if n := s.eval(`String([...document.querySelectorAll('main script')].length)`); n != "0" {
			t.Errorf("%s: %s script elements inside main", path, n)
		}
		if body := s.eval(`document.querySelector('main').textContent`); !strings.Contains(body, "<script>alert(1)</script>") {
			t.Errorf("%s: the script text is not shown as text", path)
		}
	}
	s.screenshot("inert")
}

// waitText waits until the element sel exists and its text contains want:
// after a click that navigates, the old page may still be on screen.
func (s *session) waitText(sel, want string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _ := chromedp.Run(s.ctx, chromedp.Evaluate[string](fmt.Sprintf(
			`(document.querySelector(%q) || {textContent: ""}).textContent`, sel)))
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			s.screenshot("timeout")
			s.t.Fatalf("%s never showed %q (last: %q)", sel, want, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *session) queryInt(sql string, args ...any) int64 {
	s.t.Helper()
	var n int64
	if err := s.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func TestEditFactAndSeeItsHistory(t *testing.T) {
	s := newSession(t)
	id := s.queryInt(`SELECT id FROM entity_facts WHERE status = 'active' AND category = 'preference' ORDER BY id LIMIT 1`)
	s.do(chromedp.Navigate(fmt.Sprintf("%s/facts/%d", s.base, id)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="fact-form"]`)))
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="fact-form-content"]`), "Edmund prefers light mode since his eye surgery."))
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="fact-form-reason"]`), "He said so on the call"))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="fact-save"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)))
	if got := s.text(`[data-testid="fact-detail-content"]`); !strings.Contains(got, "light mode") {
		t.Errorf("fact content after the edit = %q", got)
	}
	history := s.text(`[data-testid="history-table"]`)
	if !strings.Contains(history, "He said so on the call") || !strings.Contains(history, "reviewer@example.com") {
		t.Errorf("history after the edit = %q, want the reason and the reviewer", history)
	}
	var content string
	s.pool.QueryRow(context.Background(), `SELECT content FROM entity_facts WHERE id = $1`, id).Scan(&content)
	if !strings.Contains(content, "light mode") {
		t.Errorf("stored content = %q", content)
	}
	s.screenshot("edited")
}

func TestEditDecisionReasoningAndReopen(t *testing.T) {
	s := newSession(t)
	id := s.queryInt(`SELECT id FROM decisions WHERE do_not_reopen ORDER BY id LIMIT 1`)
	s.do(chromedp.Navigate(fmt.Sprintf("%s/decisions/%d", s.base, id)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="decision-form"]`)))
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="decision-form-reasoning"]`), "pnpm's store saves 4 GB on the laptop."))
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="decision-form-reason"]`), "Measured the disk savings"))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="decision-save"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)))
	if got := s.text(`[data-testid="decision-reasoning"]`); !strings.Contains(got, "saves 4 GB") {
		t.Errorf("reasoning after the edit = %q", got)
	}
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="reopen-reason"]`), "The team wants to try Bun"))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="reopen-submit"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="decision-reopen-reason"]`)))
	if got := s.text(`[data-testid="decision-reopen-reason"]`); !strings.Contains(got, "try Bun") {
		t.Errorf("reopen reason shown = %q", got)
	}
	if locked := s.queryInt(`SELECT count(*) FROM decisions WHERE id = $1 AND do_not_reopen`, id); locked != 0 {
		t.Error("the decision is still locked after reopening")
	}
	if n := s.queryInt(`SELECT count(*) FROM audit_log WHERE target_type = 'decision' AND target_id = $1::text
		AND reason = 'The team wants to try Bun'`, fmt.Sprint(id)); n != 1 {
		t.Errorf("%d audit rows for the reopening, want 1", n)
	}
	s.screenshot("reopened")
}

func TestExpireTwoWorkingRowsAndPromoteOne(t *testing.T) {
	s := newSession(t)
	ctx := context.Background()
	rows, err := s.pool.Query(ctx, `SELECT id FROM memory_nodes WHERE promoted_at IS NULL
		AND coalesce(properties->>'durability', 'durable') = 'durable' ORDER BY id LIMIT 2`)
	if err != nil {
		t.Fatal(err)
	}
	var expire []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		expire = append(expire, id)
	}
	if len(expire) != 2 {
		t.Fatalf("the demo has %d durable pending rows, want 2", len(expire))
	}
	promote := s.queryInt(`SELECT id FROM memory_nodes WHERE promoted_at IS NULL AND properties->>'durability' = 'transient' ORDER BY id LIMIT 1`)

	s.do(chromedp.Navigate(s.base + "/working"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="markers-form"]`)))
	for _, id := range expire {
		s.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[data-testid="node-select"][value="%d"]`, id))))
	}
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="expire-button"]`)))
	s.waitText(`[data-testid="flash"]`, "expired")
	if n := s.queryInt(`SELECT count(*) FROM memory_nodes WHERE id = ANY($1) AND properties->>'durability' = 'expired'`, expire); n != 2 {
		t.Errorf("%d of the two selected rows expired", n)
	}
	s.screenshot("expired")

	s.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[data-testid="node-select"][value="%d"]`, promote))))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="promote-button"]`)))
	s.waitText(`[data-testid="flash"]`, "durable")
	if n := s.queryInt(`SELECT count(*) FROM memory_nodes WHERE id = $1 AND properties->>'durability' = 'durable'`, promote); n != 1 {
		t.Error("the transient row was not promoted to durable")
	}
	if n := s.queryInt(`SELECT count(*) FROM audit_log WHERE action = 'node.durability' AND actor = 'user:reviewer@example.com'`); n != 3 {
		t.Errorf("%d audit rows for the three marker changes, want 3", n)
	}
	s.screenshot("promoted")
}

func TestRunConsolidationNowAndFindItsRejections(t *testing.T) {
	s := newSession(t)
	s.do(chromedp.Navigate(s.base + "/consolidation"))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="run-now"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="run-summary"]`)))
	if status := s.text(`[data-testid="run-status"]`); !strings.Contains(status, "succeeded") {
		t.Errorf("run status = %q, want succeeded", status)
	}
	run := s.queryInt(`SELECT max(id) FROM consolidation_runs`)
	if !strings.Contains(s.eval(`location.pathname`), fmt.Sprintf("/consolidation/runs/%d", run)) {
		t.Errorf("after run now the browser is at %s, want the run's page", s.eval(`location.pathname`))
	}
	s.screenshot("run")
	want := s.queryInt(`SELECT count(*) FROM consolidation_rejections WHERE run_id = $1`, run)
	if want == 0 {
		t.Fatal("the demo's transient and expired rows produced no refusals")
	}
	s.do(chromedp.Navigate(fmt.Sprintf("%s/consolidation/rejections?run=%d", s.base, run)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="rejections-table"]`)))
	got := s.eval(`String(document.querySelectorAll('[data-testid="rejection-row"]').length)`)
	if got != fmt.Sprint(min(want, 50)) {
		t.Errorf("rejection log shows %s rows for run %d, want %d", got, run, want)
	}
	s.screenshot("rejections")
}

// TestAgentWritesReviewerReads: an agent writes a fact and records a
// decision through the API with the Go client; the reviewer finds both in
// the console as the agent wrote them.
func TestAgentWritesReviewerReads(t *testing.T) {
	s := newSession(t)
	ctx := context.Background()
	token, _, err := auth.SeedToken(ctx, s.pool, auth.NewToken{Name: "support-agent", Scope: "acme-support", Role: auth.TokenWriter}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewWithToken(s.base, token)
	if err != nil {
		t.Fatal(err)
	}
	key := "support_hours"
	fact, err := c.CreateFactWithResponse(ctx, "acme-support", nil, client.FactRequest{
		Entity: "Acme Robotics", Key: &key, Content: "Acme Robotics wants support answered 8:00 to 18:00 CET."})
	if err != nil {
		t.Fatal(err)
	}
	if fact.JSON201 == nil {
		t.Fatalf("create fact answered %d: %s", fact.StatusCode(), fact.Body)
	}
	decision, err := c.RecordDecisionWithResponse(ctx, "acme-support", nil, client.DecisionRequest{
		Entity: "Acme Robotics", Key: "rma_carrier", Decision: "Acme Robotics RMA returns ship with a prepaid DHL label.",
		Reasoning: "Their warehouse only receives DHL.", Alternatives: &[]string{"UPS"}})
	if err != nil {
		t.Fatal(err)
	}
	if decision.JSON201 == nil {
		t.Fatalf("record decision answered %d: %s", decision.StatusCode(), decision.Body)
	}

	s.do(chromedp.Navigate(fmt.Sprintf("%s/facts/%d", s.base, fact.JSON201.Fact.ID)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="fact-detail-content"]`)))
	if got := s.text(`[data-testid="fact-detail-content"]`); got != "Acme Robotics wants support answered 8:00 to 18:00 CET." {
		t.Errorf("the console shows the fact as %q", got)
	}
	if got := s.text(`[data-testid="fact-source"]`); got != string(client.FactSourceAPI) {
		t.Errorf("the console shows the fact's source as %q, want api", got)
	}
	s.screenshot("fact")

	s.do(chromedp.Navigate(fmt.Sprintf("%s/decisions/%d", s.base, decision.JSON201.ID)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="decision-reasoning"]`)))
	for sel, want := range map[string]string{
		"decision-decision":    "Acme Robotics RMA returns ship with a prepaid DHL label.",
		"decision-reasoning":   "Their warehouse only receives DHL.",
		"decision-alternative": "UPS",
		"decision-decided-by":  "support-agent",
	} {
		if got := s.text(`[data-testid="` + sel + `"]`); !strings.Contains(got, want) {
			t.Errorf("%s shows %q, want %q", sel, got, want)
		}
	}
	s.screenshot("decision")
}

// TestFirstRunSetup: on an empty database the sign-in page says no account
// exists; the setup link creates the first admin, who then signs in; the
// link and the setup page are closed afterwards.
func TestFirstRunSetup(t *testing.T) {
	pool := pgtest.NewPool(t)
	token, _, err := auth.NewSetupLink(context.Background(), pool, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s := openBrowser(t, pool)
	s.do(chromedp.Navigate(s.base + "/login"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="setup-pending"]`)))
	if got := s.text(`[data-testid="setup-pending"]`); !strings.Contains(got, "No account exists yet") {
		t.Errorf("sign-in page notice = %q, want it to say no account exists", got)
	}

	s.do(chromedp.Navigate(s.base + "/setup?token=" + token))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="setup-form"]`)))
	s.screenshot("form")
	// A password too short is refused beside its field; the link still works.
	s.do(chromedp.SendKeys(chromedp.CSS(`#setup-email`), "owner@example.com"))
	s.do(chromedp.SendKeys(chromedp.CSS(`#setup-password`), "short"))
	s.do(chromedp.SendKeys(chromedp.CSS(`#setup-confirm`), "short"))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="setup-submit"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-password"]`)))
	s.do(chromedp.SendKeys(chromedp.CSS(`#setup-name`), "Olga Owner"))
	s.do(chromedp.SendKeys(chromedp.CSS(`#setup-password`), password))
	s.do(chromedp.SendKeys(chromedp.CSS(`#setup-confirm`), password))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="setup-submit"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	if got := s.text(`.flash-ok`); !strings.Contains(got, "owner@example.com") {
		t.Errorf("after setup the flash says %q, want the admin named", got)
	}

	s.do(chromedp.SendKeys(chromedp.CSS(`#login-email`), "owner@example.com"))
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-password`), password))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	s.do(chromedp.Navigate(s.base + "/users"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`h1`)))
	if got := s.text(`h1`); got != "Users" {
		t.Errorf("the first admin opens /users and sees %q, want the users page", got)
	}
	var n int
	if err := pool.QueryRow(context.Background(),
		`SELECT count(*) FROM audit_log WHERE action = 'user.create' AND actor = 'system:setup' AND reason = 'first-run setup'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("setup audit rows = %d (%v), want 1", n, err)
	}

	// Setup is closed for good: the link, and the page itself.
	s.do(chromedp.Navigate(s.base + "/setup?token=" + token))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="setup-closed"]`)))
}
