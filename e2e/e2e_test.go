// Package e2e drives the console in a real headless Chromium against a real
// server on a real PostgreSQL database, as a reviewer would.
package e2e

import (
	"context"
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
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/static"
	"github.com/tenurehq/tenure/web"
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
	hash, err := auth.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queries.New(pool).CreateUser(context.Background(), queries.CreateUserParams{
		Email: "reviewer@example.com", Name: "Rita Reviewer", Role: "reviewer", PasswordHash: hash,
	}); err != nil {
		t.Fatal(err)
	}
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	app, err := web.New(web.Config{Pool: pool, Assets: assets, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
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
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	s := &session{t: t, ctx: ctx, base: srv.URL, pool: pool}
	s.do(chromedp.Navigate(s.base + "/facts"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-email`), "reviewer@example.com"))
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-password`), password))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	return s
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
