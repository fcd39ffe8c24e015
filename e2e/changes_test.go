package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tenurehq/tenure/memory"
)

// TestUndoASupersessionInWhatChanged: a run supersedes customers' contract
// renewals with lines about the dashboard; the reviewer runs consolidation,
// opens what the run changed, sees each renewal beside the line that
// replaced it, undoes one, and sees the renewal restored.
func TestUndoASupersessionInWhatChanged(t *testing.T) {
	s := newSession(t)
	ctx := context.Background()
	store := memory.NewStore(s.pool, memory.Options{})
	agent := memory.Token("crm-agent")
	renewal := func(i int) memory.NewNode {
		return memory.NewNode{Content: fmt.Sprintf("Customer %d renews the contract in March.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "contract_renewal", "category": "state"}}
	}
	slow := func(i int) memory.NewNode {
		return memory.NewNode{Content: fmt.Sprintf("The dashboard is slow today for customer %d.", i),
			Properties: map[string]any{"entity": fmt.Sprintf("Customer %d", i), "key": "contract_renewal", "category": "state"}}
	}
	if _, err := store.Push(ctx, agent, "crm", []memory.NewNode{renewal(1), renewal(2), renewal(3)}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Push(ctx, agent, "crm", []memory.NewNode{slow(1), slow(2), slow(3)}); err != nil {
		t.Fatal(err)
	}

	// Run consolidation from the console.
	s.do(chromedp.Navigate(s.base + "/consolidation"))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="run-now"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="run-changes-link"]`)))
	runID := s.queryInt(`SELECT max(id) FROM consolidation_runs WHERE trigger = 'manual'`)
	if got := s.text(`[data-testid="counter-superseded"]`); got != "3" {
		t.Errorf("the run page says %s superseded, want 3", got)
	}
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="run-changes-link"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="changes-run"]`)))
	if url := s.eval(`location.pathname + location.search`); url != fmt.Sprintf("/changes?run=%d", runID) {
		t.Errorf("the run's changes are at %s", url)
	}
	renewals := s.eval(`String([...document.querySelectorAll('[data-testid="change"][data-how="superseded"]')].filter(c =>
		c.querySelector('[data-testid="change-old-text"]').textContent.includes('renews the contract') &&
		c.querySelector('[data-testid="change-new-text"]').textContent.includes('dashboard is slow')).length)`)
	if renewals != "3" {
		t.Fatalf("%s renewals listed beside the line that superseded them, want 3", renewals)
	}
	for _, width := range []int64{1366, 500} {
		s.do(chromedp.EmulateViewport(width, 900))
		if over := s.eval(`String(document.documentElement.scrollWidth > window.innerWidth)`); over != "false" {
			t.Errorf("What changed at %d px is wider than the window", width)
		}
		s.screenshot(fmt.Sprintf("changes-%d", width))
	}
	s.do(chromedp.EmulateViewport(1366, 900))

	// Undo the first renewal's supersession.
	fact := s.queryInt(`SELECT id FROM entity_facts WHERE content = 'Customer 1 renews the contract in March.'`)
	sel := fmt.Sprintf(`[data-testid="change"][data-how="superseded"][data-fact-id="%d"]`, fact)
	s.do(chromedp.Click(chromedp.CSS(sel + ` [data-testid="undo"]`)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)))
	if flash := s.text(`[data-testid="flash"]`); !strings.Contains(flash, fmt.Sprintf("fact %d restored", fact)) {
		t.Errorf("flash = %q, want the renewal restored", flash)
	}
	if since := s.text(sel + ` [data-testid="change-since"]`); since != "restored since" {
		t.Errorf("the undone change says %q, want restored since", since)
	}
	if status := s.queryInt(`SELECT (status = 'active')::int FROM entity_facts WHERE id = $1`, fact); status != 1 {
		t.Error("the renewal is not active after the undo")
	}
	if n := s.queryInt(`SELECT count(*) FROM entity_facts WHERE content = 'The dashboard is slow today for customer 1.' AND status = 'archived'`); n != 1 {
		t.Error("the dashboard line is not archived after the undo")
	}
	s.screenshot("changes-undone")

	// The fact page shows it restored.
	s.do(chromedp.Navigate(fmt.Sprintf("%s/facts/%d", s.base, fact)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="fact-detail-content"]`)))
	if got := s.text(`[data-testid="fact-detail-content"]`); !strings.Contains(got, "renews the contract") {
		t.Errorf("fact page = %q", got)
	}

	// The consolidation page and the overview, at both widths: the chart
	// says what each run did, the runs table fits its panel at 1366 px and
	// scrolls in its own frame at 500 px.
	s.do(chromedp.Navigate(s.base + "/consolidation"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="runs-chart"]`)))
	for _, width := range []int64{1366, 500} {
		s.do(chromedp.EmulateViewport(width, 900))
		s.do(chromedp.Sleep(100 * time.Millisecond))
		fits := s.eval(`(() => { const w = document.querySelector('.runs-wrap'); return String(w.scrollWidth <= w.clientWidth); })()`)
		page := s.eval(`String(document.documentElement.scrollWidth > window.innerWidth)`)
		if width == 1366 && fits != "true" {
			t.Errorf("the runs table is wider than its panel at %d px", width)
		}
		if page != "false" {
			t.Errorf("the consolidation page at %d px is wider than the window", width)
		}
		s.screenshot(fmt.Sprintf("consolidation-%d", width))
	}
	s.do(chromedp.EmulateViewport(1366, 900))
	s.do(chromedp.Navigate(s.base + "/"))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="overview-changes"]`)))
	for _, width := range []int64{1366, 500} {
		s.do(chromedp.EmulateViewport(width, 900))
		s.screenshot(fmt.Sprintf("overview-%d", width))
	}
}
