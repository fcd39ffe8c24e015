package e2e

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

// axeSource is axe-core (testdata/axe, MPL-2.0), the accessibility engine
// the page check runs in the browser.
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// TestEveryPageClean signs in as an admin, who sees every page, and walks
// the console from the overview by its own links: every page the walk finds
// (at most two of each kind, such as two facts' pages) is opened at 1366 and
// at 500 px wide, and must write nothing to the browser's console (no error,
// no exception, no refusal by the security policy), and must pass axe-core
// with no violation. With TENURE_SCREENSHOTS set it saves each page at both
// widths.
func TestEveryPageClean(t *testing.T) {
	pool := pgtest.NewPool(t)
	if _, err := demo.Load(context.Background(), pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.SeedUser(context.Background(), pool, auth.NewUser{
		Email: "admin@example.com", Name: "Ada Admin", Role: "admin", Password: password,
	}); err != nil {
		t.Fatal(err)
	}
	// A consolidation run, so that a run's page exists to be found.
	if _, err := memory.NewStore(pool, memory.Options{}).Consolidate(context.Background(),
		memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	s := openBrowser(t, pool)
	ctx, cancel := context.WithTimeout(s.ctx, 8*time.Minute)
	defer cancel()
	s.ctx = ctx

	var mu sync.Mutex
	var messages []string
	listen, stop := context.WithCancel(s.ctx)
	defer stop()
	console := chromedp.Console(listen)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				messages = append(messages, m.String())
				mu.Unlock()
			}
		}
	}()
	drain := func() []string {
		// The browser reports a page's messages as it loads: give the last
		// ones a moment to arrive.
		time.Sleep(150 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		out := messages
		messages = nil
		return out
	}

	s.do(chromedp.Navigate(s.base + "/"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	s.checkPage("login", drain)
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-email`), "admin@example.com"))
	s.do(chromedp.SendKeys(chromedp.CSS(`#login-password`), password))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="signed-in-as"]`)))
	drain()

	seen := map[string]int{}
	// The overview and what its links lead to; an error page besides.
	queue := []string{"/", "/facts/999999999"}
	visited := map[string]bool{}
	pages := 0
	for len(queue) > 0 && pages < 120 {
		path := queue[0]
		queue = queue[1:]
		if visited[path] {
			continue
		}
		visited[path] = true
		kind := pageKind(path)
		if seen[kind] >= 2 {
			continue
		}
		seen[kind]++
		pages++
		s.do(chromedp.Navigate(s.base + path))
		s.do(chromedp.WaitReady(chromedp.CSS(`body`)))
		if strings.Contains(s.eval(`location.pathname`), "/login") && path != "/login" {
			t.Fatalf("%s sent the admin to the sign-in page", path)
		}
		s.checkPage(path, drain)
		for _, link := range s.links() {
			if !visited[link] {
				queue = append(queue, link)
			}
		}
	}
	kinds := slices.Sorted(func(yield func(string) bool) {
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	})
	t.Logf("%d pages of %d kinds: %s", pages, len(kinds), strings.Join(kinds, " "))
	if len(kinds) < 15 {
		t.Errorf("the walk found %d kinds of page, want every page of the console (at least 15)", len(kinds))
	}
}

// checkPage fails the test for console messages and accessibility
// violations of the open page, at both widths.
func (s *session) checkPage(name string, drain func() []string) {
	s.t.Helper()
	expectMissing := name == "/facts/999999999"
	for _, width := range []int64{1366, 500} {
		s.do(chromedp.EmulateViewport(width, 900))
		msgs := drain()
		if expectMissing {
			// The browser reports the error page's own status.
			msgs = slices.DeleteFunc(msgs, func(m string) bool { return strings.Contains(m, "status of 404") })
		}
		if len(msgs) > 0 {
			s.t.Errorf("%s at %d px: the browser's console says:\n  %s", name, width, strings.Join(msgs, "\n  "))
		}
		s.screenshot(fmt.Sprintf("%s-%d", screenshotName(name), width))
	}
	s.do(chromedp.EmulateViewport(1366, 900))
	for _, v := range s.axe() {
		s.t.Errorf("%s: axe-core: %s", name, v)
	}
}

// axe runs axe-core on the open page and returns its violations, one line
// each: the rule, its impact, what it asks and where.
func (s *session) axe() []string {
	s.t.Helper()
	if _, err := chromedp.Run(s.ctx, chromedp.Evaluate[bool](axeSource+";true")); err != nil {
		s.t.Fatalf("load axe-core: %v", err)
	}
	raw, err := chromedp.Run(s.ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(
		r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, where: v.nodes.slice(0, 3).map(n => n.target.join(" ")), nodes: v.nodes.length}))))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		s.t.Fatalf("axe-core: %v", err)
	}
	var violations []struct {
		ID, Impact, Help string
		Where            []string
		Nodes            int
	}
	if err := json.Unmarshal([]byte(raw), &violations); err != nil {
		s.t.Fatalf("axe-core answered %q: %v", raw, err)
	}
	var out []string
	for _, v := range violations {
		out = append(out, fmt.Sprintf("%s (%s) %s: %d elements, such as %s", v.ID, v.Impact, v.Help, v.Nodes, strings.Join(v.Where, "; ")))
	}
	return out
}

// links are the console pages the open page links to: same-origin paths
// a GET may open, without fragments; no sign-out, no downloads, no assets.
func (s *session) links() []string {
	raw := s.eval(`JSON.stringify([...document.querySelectorAll("a[href]")].filter(a => !a.hasAttribute("download")).map(a => a.href))`)
	var hrefs []string
	if err := json.Unmarshal([]byte(raw), &hrefs); err != nil {
		s.t.Fatalf("links: %v", err)
	}
	base, _ := url.Parse(s.base)
	var out []string
	for _, h := range hrefs {
		u, err := url.Parse(h)
		if err != nil || u.Host != base.Host {
			continue
		}
		if strings.HasPrefix(u.Path, "/static/") || strings.HasPrefix(u.Path, "/api/") || strings.HasPrefix(u.Path, "/mcp") ||
			u.Path == "/logout" || u.Path == "/metrics" || strings.HasPrefix(u.Path, "/healthz") ||
			strings.HasSuffix(u.Path, ".json") || strings.HasSuffix(u.Path, ".csv") || strings.Contains(u.Path, "/export") {
			continue
		}
		u.Fragment = ""
		p := u.Path
		if u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
		out = append(out, p)
	}
	return out
}

var idSegment = regexp.MustCompile(`/[0-9]+(/|$)`)

// pageKind is what makes two paths the same kind of page: the path with
// its ids as {id}, and the names of its query parameters.
func pageKind(p string) string {
	u, err := url.Parse(p)
	if err != nil {
		return p
	}
	path := idSegment.ReplaceAllString(u.Path, "/{id}$1")
	path = idSegment.ReplaceAllString(path, "/{id}$1")
	var keys []string
	for k := range u.Query() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) > 0 {
		path += "?" + strings.Join(keys, "&")
	}
	return path
}

func screenshotName(path string) string {
	name := strings.Trim(strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "-").Replace(path), "_")
	if name == "" {
		name = "overview"
	}
	if len(name) > 60 {
		name = name[:60]
	}
	return name
}
