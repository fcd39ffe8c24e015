package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// reviewWidths are the widths the fact, obligations and review pages are
// looked at: a laptop and a phone held upright.
var reviewWidths = []int64{1366, 500}

// pageShots saves the page at each of reviewWidths as name-WIDTH, and checks
// that the page itself never scrolls sideways (a wide table scrolls in its
// own frame).
func (s *session) pageShots(name string) {
	s.t.Helper()
	for _, w := range reviewWidths {
		s.do(chromedp.EmulateViewport(w, 900))
		s.do(chromedp.Sleep(150 * time.Millisecond))
		s.eval(`window.scrollTo(0, 0), ""`)
		if got := s.eval(`String(document.documentElement.scrollWidth)`); got != fmt.Sprint(w) {
			s.t.Errorf("%s at %d px: the page is %s px wide, want no sideways scroll", name, w, got)
		}
		s.screenshot(fmt.Sprintf("%s-%d", name, w))
	}
	s.do(chromedp.EmulateViewport(1366, 900))
}

// key presses one key on the page, as a person would, outside any field.
func (s *session) key(k string) {
	s.t.Helper()
	s.do(chromedp.KeyEvent(k))
}

// TestFactEditReasonAndForgetMoment: a reviewer edits a fact with a reason
// typed in the edit form and finds that reason in its history; the
// confidence chart of a fact forgotten decades from now reaches the moment
// it is forgotten, marked inside the chart.
func TestFactEditReasonAndForgetMoment(t *testing.T) {
	s := newSession(t)
	id := s.queryInt(`SELECT f.id FROM entity_facts f WHERE f.status = 'active' AND f.durability = 'permanent'
		AND f.category = 'identity' AND f.forget_at > now() + interval '20 years'
		AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.fact_id = f.id) ORDER BY f.forget_at DESC, f.id LIMIT 1`)
	forgetYear := s.queryInt(`SELECT extract(year FROM forget_at)::bigint FROM entity_facts WHERE id = $1`, id)
	s.do(chromedp.Navigate(fmt.Sprintf("%s/facts/%d", s.base, id)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="fact-form"]`)))

	// The forget moment is drawn inside the chart, with its year on the axis.
	inside := s.eval(`(() => {
		const svg = document.querySelector('[data-testid="confidence-plot"]').getBoundingClientRect();
		const m = document.querySelector('[data-testid="plot-forget"] line');
		if (!m) return "no marker";
		const r = m.getBoundingClientRect();
		return (r.left >= svg.left && r.right <= svg.right + 1 && r.width >= 0) ? "inside" : "outside";
	})()`)
	if inside != "inside" {
		t.Errorf("forget marker: %s the chart", inside)
	}
	if last := s.eval(`[...document.querySelectorAll('[data-testid="plot-x-axis"] text')].pop().textContent`); !strings.HasSuffix(last, fmt.Sprint(forgetYear)) {
		t.Errorf("last date on the chart = %q, want the forget year %d", last, forgetYear)
	}
	if note := s.text(`[data-testid="plot-axis-note"]`); !strings.Contains(note, "compressed") {
		t.Errorf("axis note = %q", note)
	}
	s.pageShots("fact")

	// The archive form's reason is its own: text typed there is not what the
	// edit saves.
	s.do(chromedp.SendKeys(chromedp.CSS(`[data-testid="fact-archive-reason"]`), "not this one"))
	content := s.eval(`document.querySelector('[data-testid="fact-form-content"]').value`) + " (checked on the call)"
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="fact-form-content"]`), content))
	s.do(chromedp.SendKeys(chromedp.CSS(`[data-testid="fact-form-reason"]`), "He spelled it out on the call"))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="fact-save"]`)))
	s.waitText(`[data-testid="flash"]`, "saved")
	history := s.text(`[data-testid="history-table"]`)
	if !strings.Contains(history, "He spelled it out on the call") || strings.Contains(history, "not this one") {
		t.Errorf("history = %q, want the edit's reason and only it", history)
	}
	if n := s.queryInt(`SELECT count(*) FROM audit_log WHERE action = 'fact.update' AND target_id = $1::bigint::text
		AND reason = 'He spelled it out on the call'`, id); n != 1 {
		t.Errorf("%d audit rows with the reason, want 1", n)
	}

	// Move it to another entity, with a reason of its own.
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="fact-move-entity"]`), "Edmund"))
	s.do(chromedp.SetValue(chromedp.CSS(`[data-testid="fact-move-key"]`), "job"))
	s.do(chromedp.SendKeys(chromedp.CSS(`[data-testid="fact-move-reason"]`), "Key it like the others"))
	s.do(chromedp.Click(chromedp.CSS(`[data-testid="fact-move"]`)))
	s.waitText(`[data-testid="flash"]`, "moved")
	if h := s.text(`[data-testid="history-table"]`); !strings.Contains(h, "Key it like the others") || !strings.Contains(h, "job") {
		t.Errorf("history after the move = %q", h)
	}
	s.screenshot("fact-moved")
}

// TestMarkObligationDone: an overdue obligation past its forget date is
// still listed; the reviewer marks it done and it goes, archived as done.
func TestMarkObligationDone(t *testing.T) {
	s := newSession(t)
	ctx := context.Background()
	id := s.queryInt(`SELECT id FROM entity_facts WHERE status = 'active' AND category = 'obligation'
		AND deadline < now() ORDER BY deadline, id LIMIT 1`)
	// Long past its forget date, the decay job has run: it is still there.
	if _, err := s.pool.Exec(ctx, `UPDATE entity_facts SET confirmed_at = confirmed_at - interval '30 days',
		deadline = deadline - interval '30 days' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	// Its page says it is kept, and its chart marks the deadline.
	s.do(chromedp.Navigate(fmt.Sprintf("%s/facts/%d", s.base, id)))
	s.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="fact-held"]`)))
	if n := s.eval(`String(document.querySelectorAll('[data-testid="plot-due"]').length)`); n != "1" {
		t.Error("the chart of an overdue obligation does not mark its deadline")
	}
	s.screenshot("obligation-fact")

	s.do(chromedp.Navigate(s.base + "/obligations"))
	row := fmt.Sprintf(`[data-testid="overdue"] [data-testid="obligation-row"][data-fact-id="%d"]`, id)
	s.do(chromedp.WaitVisible(chromedp.CSS(row)))
	s.pageShots("obligations")

	s.do(chromedp.Click(chromedp.CSS(row + ` [data-testid="obligation-done"]`)))
	s.waitText(`[data-testid="flash"]`, "archived as done")
	if n := s.eval(fmt.Sprintf(`String(document.querySelectorAll('%s').length)`, row)); n != "0" {
		t.Error("the obligation marked done is still listed")
	}
	if n := s.queryInt(`SELECT count(*) FROM entity_facts WHERE id = $1 AND status = 'archived' AND archive_reason = 'done'`, id); n != 1 {
		t.Error("the obligation is not archived as done")
	}
	if n := s.queryInt(`SELECT count(*) FROM audit_log WHERE action = 'fact.archive' AND target_id = $1::bigint::text
		AND reason = 'done' AND actor = 'user:reviewer@example.com'`, id); n != 1 {
		t.Errorf("%d audit rows for done, want 1", n)
	}
	s.screenshot("obligation-done")
}

// TestDismissWithKeyAndUndo: on the review queue, j selects the first item,
// d dismisses it and the message offers Undo; u undoes it and the item is
// back; dismissed again, it is listed under the dismissed filter, where it
// can be restored.
func TestDismissWithKeyAndUndo(t *testing.T) {
	s := newSession(t)
	ctx := context.Background()
	// Two open items: two facts of one entity as a near duplicate, and a
	// mood seen many times.
	var first, second int64
	if err := s.pool.QueryRow(ctx, `
		WITH pair AS (
			SELECT a.id AS older, b.id AS newer, a.scope FROM entity_facts a
			JOIN entity_facts b ON b.entity_id = a.entity_id AND b.id > a.id
			WHERE a.status = 'active' AND b.status = 'active' AND a.category = 'preference' AND b.category = 'preference'
			ORDER BY a.id, b.id LIMIT 1)
		INSERT INTO review_items (kind, scope, fact_id, other_fact_id, detail)
		SELECT 'near_duplicate', scope, newer, older, '{"similarity": 0.4}' FROM pair RETURNING id`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	if err := s.pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id, detail)
		SELECT 'repeated_mood', scope, id, '{"extraction_count": 4}' FROM entity_facts
		WHERE category = 'mood' AND status = 'active' ORDER BY id LIMIT 1 RETURNING id`).Scan(&second); err != nil {
		t.Fatal(err)
	}
	item := func(id int64) string {
		return fmt.Sprintf(`[data-testid="review-item"][data-item-id="%d"]`, id)
	}
	count := func(id int64) string {
		return s.eval(fmt.Sprintf(`String(document.querySelectorAll('%s').length)`, item(id)))
	}

	s.do(chromedp.Navigate(s.base + "/review"))
	s.do(chromedp.WaitVisible(chromedp.CSS(item(first))))
	if keys := s.text(`[data-testid="review-shortcuts"]`); !strings.Contains(keys, "a accept") || !strings.Contains(keys, "d dismiss") ||
		!strings.Contains(keys, "u undo the dismissal") {
		t.Errorf("shortcuts = %q", keys)
	}
	s.pageShots("review")

	s.key("j")
	s.waitAttr(item(first), "aria-current", "true")
	s.key("d")
	s.waitText(`[data-testid="review-live-message"]`, "dismissed")
	if n := count(first); n != "0" {
		t.Error("the dismissed item is still in the queue")
	}
	if o := s.eval(`document.querySelector('#review-kind option[value="near_duplicate"]').textContent.replace(/\s+/g, ' ').trim()`); o != "Near duplicate (0)" {
		t.Errorf("kind filter after the dismissal = %q, want its count to follow", o)
	}
	if n := s.queryInt(`SELECT count(*) FROM review_items WHERE id = $1 AND status = 'dismissed'`, first); n != 1 {
		t.Fatal("the item is not dismissed")
	}
	s.pageShots("review-dismissed")

	s.key("u")
	s.waitText(`[data-testid="review-live-message"]`, "back in the queue")
	s.do(chromedp.WaitVisible(chromedp.CSS(item(first))))
	if n := s.queryInt(`SELECT count(*) FROM review_items WHERE id = $1 AND status = 'open'`, first); n != 1 {
		t.Error("undo did not open the item again")
	}
	if o := s.eval(`document.querySelector('#review-kind option[value="near_duplicate"]').textContent.replace(/\s+/g, ' ').trim()`); o != "Near duplicate (1)" {
		t.Errorf("kind filter after the undo = %q", o)
	}
	if n := s.queryInt(`SELECT count(*) FROM audit_log WHERE action = 'review.undismiss' AND target_id = $1::bigint::text`, first); n != 1 {
		t.Errorf("%d undismiss audit rows, want 1", n)
	}

	// Dismissed again with the button, it is listed under the dismissed filter.
	s.do(chromedp.Click(chromedp.CSS(item(first) + ` [data-testid="review-dismiss"]`)))
	s.waitText(`[data-testid="review-live-message"]`, "dismissed")
	s.do(chromedp.SetValue(chromedp.CSS(`#review-status`), "dismissed"))
	s.do(chromedp.Click(chromedp.CSS(`#review-filter button[type="submit"]`)))
	s.waitText(`[data-testid="review-summary"]`, "dismissed item")
	s.do(chromedp.WaitVisible(chromedp.CSS(item(first) + ` [data-testid="review-undismiss"]`)))
	if n := count(second); n != "0" {
		t.Error("an open item is listed among the dismissed")
	}
	s.pageShots("review-dismissed-filter")
	s.do(chromedp.Click(chromedp.CSS(item(first) + ` [data-testid="review-undismiss"]`)))
	s.waitText(`[data-testid="review-live-message"]`, "back in the queue")
	if n := count(first); n != "0" {
		t.Error("the restored item is still listed among the dismissed")
	}
	if n := s.queryInt(`SELECT count(*) FROM review_items WHERE id = $1 AND status = 'open'`, first); n != 1 {
		t.Error("restoring from the dismissed list did not open the item")
	}
}

// waitAttr waits until the element sel has attribute name set to want.
func (s *session) waitAttr(sel, name, want string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _ := chromedp.Run(s.ctx, chromedp.Evaluate[string](fmt.Sprintf(
			`((document.querySelector(%q) || {getAttribute: () => ""}).getAttribute(%q) || "")`, sel, name)))
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			s.screenshot("timeout")
			s.t.Fatalf("%s never had %s=%q (last: %q)", sel, name, want, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
