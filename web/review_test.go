package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// revQueue holds one open item of each kind.
type revQueue struct {
	nearDup, refusal, mood int64
	older, newer, moodFact int64
	decision               int64
}

// revSeed fills the queue: a near duplicate (two facts inserted as
// consolidation would leave them), a refused write against a locked decision
// (the engine opens the item itself) and a mood seen three times.
func revSeed(t *testing.T, f fixture) revQueue {
	t.Helper()
	ctx := context.Background()
	store := decStore(f)
	human := memory.Human("ann@example.com")
	var q revQueue
	older, _, err := store.CreateFact(ctx, human, memory.NewFact{Scope: "home", Entity: "Edmund", Key: "lives_in", Content: "Edmund lives in Austin."})
	if err != nil {
		t.Fatal(err)
	}
	newer, _, err := store.CreateFact(ctx, human, memory.NewFact{Scope: "home", Entity: "Edmund", Key: "lives_in", Content: "Edmund lives in Austin, Texas."})
	if err != nil {
		t.Fatal(err)
	}
	q.older, q.newer = older.ID, newer.ID
	if err := f.pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id, other_fact_id, detail)
		VALUES ('near_duplicate', 'home', $1, $2, '{"key": "lives_in"}') RETURNING id`, newer.ID, older.ID).Scan(&q.nearDup); err != nil {
		t.Fatal(err)
	}

	d := decRecord(t, f, "acme", "Acme Robotics", "rma_policy", "Cracked housings are replaced without photos.", "Photos delayed RMAs by a week.")
	q.decision = d.ID
	_, _, err = store.CreateFact(ctx, memory.Token("support-bot"), memory.NewFact{Scope: "acme", Entity: "Acme Robotics",
		Key: "rma_policy", Content: "RMAs need two photos first."})
	if memory.ErrorCode(err) != memory.CodeDecisionLocked {
		t.Fatalf("CreateFact(locked) = %v, want a refusal", err)
	}
	if err := f.pool.QueryRow(ctx, `SELECT id FROM review_items WHERE kind = 'decision_refusal'`).Scan(&q.refusal); err != nil {
		t.Fatal(err)
	}

	var mood memory.Fact
	for range 3 {
		if mood, _, err = store.CreateFact(ctx, memory.Token("chat"), memory.NewFact{Scope: "home", Entity: "Edmund", Key: "mood",
			Content: "Edmund is anxious about the move.", Category: memory.CategoryMood}); err != nil {
			t.Fatal(err)
		}
	}
	q.moodFact = mood.ID
	if err := f.pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id, detail)
		VALUES ('repeated_mood', 'home', $1, '{"extraction_count": 3}') RETURNING id`, mood.ID).Scan(&q.mood); err != nil {
		t.Fatal(err)
	}
	return q
}

func revItem(doc *goquery.Document, id int64) *goquery.Selection {
	return doc.Find(`[data-testid="review-item"][data-item-id="` + strconv.FormatInt(id, 10) + `"]`)
}

func revPost(id int64) string { return "/review/" + strconv.FormatInt(id, 10) }

func revStatus(t *testing.T, f fixture, id int64) (status, by string) {
	t.Helper()
	var resolvedBy *string
	if err := f.pool.QueryRow(context.Background(), `SELECT status, resolved_by FROM review_items WHERE id = $1`, id).
		Scan(&status, &resolvedBy); err != nil {
		t.Fatal(err)
	}
	if resolvedBy != nil {
		by = *resolvedBy
	}
	return status, by
}

func TestReviewQueueShowsEachKind(t *testing.T) {
	f := newFixture(t, false)
	q := revSeed(t, f)
	rec := f.get(t, "/review")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /review = %d", rec.Code)
	}
	doc := parse(t, rec)
	var ids []int64
	doc.Find(`[data-testid="review-item"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := strconv.ParseInt(s.AttrOr("data-item-id", ""), 10, 64)
		ids = append(ids, id)
	})
	if len(ids) != 3 || ids[0] != q.nearDup || ids[1] != q.refusal || ids[2] != q.mood {
		t.Fatalf("items = %v, want %d, %d, %d, oldest first", ids, q.nearDup, q.refusal, q.mood)
	}
	if s := decText(doc, "review-summary"); !strings.Contains(s, "3 open items") {
		t.Errorf("summary = %q", s)
	}

	nd := revItem(doc, q.nearDup)
	older, newer := nd.Find(`[data-testid="review-older"]`), nd.Find(`[data-testid="review-newer"]`)
	if !strings.Contains(older.Find(`[data-testid="review-fact-content"]`).Text(), "Edmund lives in Austin.") ||
		!strings.Contains(newer.Find(`[data-testid="review-fact-content"]`).Text(), "Edmund lives in Austin, Texas.") {
		t.Errorf("near duplicate shows %q and %q, want the older and the newer fact", older.Text(), newer.Text())
	}
	for _, side := range []*goquery.Selection{older, newer} {
		if side.Find(`[data-testid="durability"]`).Length() != 1 || side.Find(`[data-testid="category"]`).Length() != 1 ||
			side.Find(`[data-testid="review-fact-confidence"]`).Length() != 1 || !strings.Contains(side.Text(), "seen once") {
			t.Errorf("fact side %q lacks durability, category, confidence or confirmations", side.Text())
		}
	}
	if nd.Find(`[data-testid="review-merge"]`).Length() != 1 || nd.Find(`[data-testid="review-accept"]`).Length() != 1 ||
		nd.Find(`[data-testid="review-dismiss"]`).Length() != 1 {
		t.Error("near duplicate lacks merge, accept and dismiss")
	}

	rf := revItem(doc, q.refusal)
	if c := strings.TrimSpace(rf.Find(`[data-testid="review-refused-content"]`).Text()); c != "RMAs need two photos first." {
		t.Errorf("refused content = %q", c)
	}
	if r := strings.TrimSpace(rf.Find(`[data-testid="review-decision-reasoning"]`).Text()); r != "Photos delayed RMAs by a week." {
		t.Errorf("decision reasoning = %q", r)
	}
	if _, ok := rf.Find(`textarea[name="reason"]`).Attr("required"); !ok {
		t.Error("the reason to reopen is not required")
	}
	if _, ok := rf.Find(`[data-testid="review-dismiss"]`).Attr("formnovalidate"); !ok {
		t.Error("keeping the decision should not need the reason")
	}
	if rf.Find(`[data-testid="review-merge"]`).Length() != 0 {
		t.Error("a refusal offers merge")
	}

	md := revItem(doc, q.mood)
	if s := md.Find(`[data-testid="review-mood-seen"]`).Text(); !strings.Contains(s, "3 times") {
		t.Errorf("mood seen = %q, want 3 times", s)
	}
	if md.Find(`[data-testid="review-category"] option[value="mood"]`).Length() != 0 ||
		md.Find(`[data-testid="review-durability"] option[value="ephemeral"]`).Length() != 0 {
		t.Error("raising a mood offers mood or ephemeral")
	}
	if v := md.Find(`[data-testid="review-content"]`).Text(); v != "Edmund is anxious about the move." {
		t.Errorf("raise form content = %q, want the mood's", v)
	}

	t.Run("keyboard shortcuts", func(t *testing.T) {
		panel := doc.Find(`[data-testid="review-shortcuts"]`)
		if !strings.Contains(panel.Text(), "Keyboard shortcuts") {
			t.Error("no keyboard shortcuts panel")
		}
		var keys []string
		panel.Find("kbd").Each(func(_ int, s *goquery.Selection) { keys = append(keys, s.Text()) })
		for _, k := range []string{"j", "k", "m", "a", "d", "?"} {
			if !strings.Contains(" "+strings.Join(keys, " ")+" ", " "+k+" ") {
				t.Errorf("shortcut %s not listed (got %v)", k, keys)
			}
		}
		if doc.Find(`[data-shortcut="m"]`).Length() != 1 || doc.Find(`[data-shortcut="a"]`).Length() != 3 ||
			doc.Find(`[data-shortcut="d"]`).Length() != 3 {
			t.Error("buttons do not carry their shortcut keys")
		}
		src, ok := doc.Find(`script[src*="review"]`).Attr("src")
		if !ok {
			t.Fatal("review.js is not loaded")
		}
		if doc.Find("script:not([src])").Length() != 0 {
			t.Error("inline script on the page; the CSP blocks it")
		}
		rec := f.get(t, src)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/javascript") ||
			!strings.Contains(rec.Body.String(), "keydown") {
			t.Errorf("GET %s = %d %s, want the shortcuts script", src, rec.Code, rec.Header().Get("Content-Type"))
		}
		if other := parse(t, f.get(t, "/decisions")); other.Find(`script[src*="review"]`).Length() != 0 {
			t.Error("review.js is loaded outside the review page")
		}
	})

	t.Run("filters", func(t *testing.T) {
		for query, want := range map[string]int{"kind=repeated_mood": 1, "scope=acme": 1, "scope=home": 2,
			"kind=near_duplicate&scope=acme": 0} {
			doc := parse(t, f.get(t, "/review?"+query))
			if n := doc.Find(`[data-testid="review-item"]`).Length(); n != want {
				t.Errorf("GET /review?%s shows %d items, want %d", query, n, want)
			}
		}
		if parse(t, f.get(t, "/review?scope=nowhere")).Find(`[data-testid="review-empty"]`).Length() != 1 {
			t.Error("empty queue shows no empty state")
		}
		if rec := f.get(t, "/review?kind=bogus"); rec.Code != http.StatusBadRequest {
			t.Errorf("GET /review?kind=bogus = %d, want 400", rec.Code)
		}
	})
}

func TestReviewActions(t *testing.T) {
	f := newFixture(t, false)
	q := revSeed(t, f)
	ctx := context.Background()

	t.Run("merge, then 409", func(t *testing.T) {
		rec := f.signedIn.post(t, revPost(q.nearDup), url.Values{"action": {"merge"}, "reason": {"same city"},
			"filter_kind": {"near_duplicate"}})
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/review?kind=near_duplicate" {
			t.Fatalf("merge = %d to %q, want 303 back to the filtered queue", rec.Code, rec.Header().Get("Location"))
		}
		if status, by := revStatus(t, f, q.nearDup); status != "merged" || by != "reviewer@example.com" {
			t.Errorf("item = %s by %s, want merged by the reviewer", status, by)
		}
		if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = $1 AND status = 'archived'
			AND archive_reason = 'merged into fact '||$2::bigint`, q.newer, q.older); n != 1 {
			t.Error("the newer fact is not archived into the older")
		}
		if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'review.merge' AND reason = 'same city'
			AND actor = 'user:reviewer@example.com'`); n != 1 {
			t.Errorf("review.merge audit rows = %d, want 1", n)
		}
		if !strings.Contains(decText(parse(t, f.get(t, "/review")), "flash"), "merged") {
			t.Error("no flash after the merge")
		}

		rec = f.signedIn.post(t, revPost(q.nearDup), url.Values{"action": {"dismiss"}})
		if rec.Code != http.StatusConflict || !strings.Contains(decText(parse(t, rec), "review-alert"), "already merged") {
			t.Errorf("second action = %d, want 409 saying it was merged", rec.Code)
		}
		rec = f.signedIn.post(t, revPost(q.nearDup), url.Values{"action": {"dismiss"}}, "HX-Request", "true")
		if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "review-item-stale") {
			t.Errorf("htmx second action = %d %.200s, want 409 with the stale notice", rec.Code, rec.Body)
		}
	})

	t.Run("refusal needs a reason to reopen", func(t *testing.T) {
		rec := f.signedIn.post(t, revPost(q.refusal), url.Values{"action": {"accept"}, "reason": {""}})
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("accept without reason = %d, want 422", rec.Code)
		}
		item := revItem(parse(t, rec), q.refusal)
		if msg := item.Find(`[data-testid="error-reason-` + strconv.FormatInt(q.refusal, 10) + `"]`).Text(); !strings.Contains(msg, "reason is required") {
			t.Errorf("error beside the reason = %q", msg)
		}
		if status, _ := revStatus(t, f, q.refusal); status != "open" {
			t.Errorf("item status = %s, want open", status)
		}
		if !decGet(t, f, q.decision).DoNotReopen {
			t.Error("decision reopened without a reason")
		}

		rec = f.signedIn.post(t, revPost(q.refusal), url.Values{"action": {"accept"}, "reason": {"Photos are cheap now."}})
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("accept = %d, want 303", rec.Code)
		}
		d := decGet(t, f, q.decision)
		if d.DoNotReopen || d.ReopenReason != "Photos are cheap now." {
			t.Errorf("decision = %+v, want it reopened with the reason", d)
		}
		if status, _ := revStatus(t, f, q.refusal); status != "accepted" {
			t.Errorf("item status = %s, want accepted", status)
		}
	})

	t.Run("mood through htmx", func(t *testing.T) {
		rec := f.signedIn.post(t, revPost(q.mood), url.Values{"action": {"accept"}, "durability": {"long_term"},
			"content": {"Edmund dreads moving."}, "key": {"mood"}}, "HX-Request", "true")
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("accept without a category = %d, want 422", rec.Code)
		}
		body := rec.Body.String()
		if strings.Contains(body, "<html") {
			t.Error("htmx 422 is a whole page, want the item")
		}
		frag := parse(t, rec)
		if msg := frag.Find(`[data-testid="error-category-` + strconv.FormatInt(q.mood, 10) + `"]`).Text(); !strings.Contains(msg, "choose the category") {
			t.Errorf("error beside the category = %q", msg)
		}
		if v := frag.Find(`[data-testid="review-content"]`).Text(); v != "Edmund dreads moving." {
			t.Errorf("typed content = %q, want it kept", v)
		}
		if v := frag.Find(`[data-testid="review-durability"] option[selected]`).AttrOr("value", ""); v != "long_term" {
			t.Errorf("chosen durability = %q, want it kept", v)
		}

		rec = f.signedIn.post(t, revPost(q.mood), url.Values{"action": {"accept"}, "durability": {"long_term"},
			"category": {"state"}, "content": {"Edmund dreads moving."}, "key": {"feelings_about_move"}}, "HX-Request", "true")
		if rec.Code != http.StatusOK {
			t.Fatalf("htmx accept = %d, want 200; body %.300s", rec.Code, rec.Body)
		}
		body = rec.Body.String()
		if strings.Contains(body, "<html") || strings.Contains(body, `data-testid="review-item"`) {
			t.Errorf("htmx answer = %.300s, want no page and no item", body)
		}
		frag = parse(t, rec)
		if msg := decText(frag, "review-live-message"); !strings.Contains(msg, "accepted") || !strings.Contains(msg, "long-term state") {
			t.Errorf("live message = %q", msg)
		}
		if s := frag.Find(`#review-summary`).AttrOr("hx-swap-oob", ""); s == "" {
			t.Error("the count is not updated out of band")
		}
		var category, durability, source string
		if err := f.pool.QueryRow(ctx, `SELECT category, durability, source FROM entity_facts
			WHERE key = 'feelings_about_move' AND content = 'Edmund dreads moving.'`).Scan(&category, &durability, &source); err != nil {
			t.Fatalf("no raised fact: %v", err)
		}
		if category != "state" || durability != "long_term" || source != "human" {
			t.Errorf("raised fact = %s %s %s, want a human long-term state", category, durability, source)
		}
		var moodCategory, moodDurability string
		if err := f.pool.QueryRow(ctx, `SELECT category, durability FROM entity_facts WHERE id = $1`, q.moodFact).
			Scan(&moodCategory, &moodDurability); err != nil || moodCategory != "mood" || moodDurability != "ephemeral" {
			t.Errorf("mood = %s %s, %v; want it still an ephemeral mood", moodCategory, moodDurability, err)
		}
	})

	t.Run("dismiss and unknown", func(t *testing.T) {
		var id int64
		if err := f.pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id) VALUES ('repeated_mood', 'home', $1) RETURNING id`,
			q.moodFact).Scan(&id); err != nil {
			t.Fatal(err)
		}
		rec := f.signedIn.post(t, revPost(id), url.Values{"action": {"merge"}})
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(revItem(parse(t, rec), id).Find(`[data-testid="review-item-error"]`).Text(), "does not apply") {
			t.Errorf("merge on a mood = %d, want 422 on the item", rec.Code)
		}
		if rec := f.signedIn.post(t, revPost(id), url.Values{"action": {"dismiss"}}); rec.Code != http.StatusSeeOther {
			t.Errorf("dismiss = %d, want 303", rec.Code)
		}
		if status, _ := revStatus(t, f, id); status != "dismissed" {
			t.Errorf("status = %s, want dismissed", status)
		}
		if rec := f.signedIn.post(t, revPost(999999), url.Values{"action": {"dismiss"}}); rec.Code != http.StatusNotFound {
			t.Errorf("unknown item = %d, want 404", rec.Code)
		}
	})
}

func TestReviewRolesAndCSRF(t *testing.T) {
	f := newFixture(t, false)
	q := revSeed(t, f)
	viewer := f.login(t, "viewer")
	doc := parse(t, viewer.get(t, "/review"))
	if doc.Find(`[data-testid="review-item"]`).Length() != 3 {
		t.Error("a viewer does not see the queue")
	}
	if doc.Find(`[data-testid="review-form"]`).Length() != 0 || doc.Find("[data-shortcut]").Length() != 0 {
		t.Error("a viewer sees action forms")
	}
	if rec := viewer.post(t, revPost(q.mood), url.Values{"action": {"dismiss"}}); rec.Code != http.StatusForbidden {
		t.Errorf("viewer POST = %d, want 403", rec.Code)
	}
	for _, token := range []string{"forged", ""} {
		if rec := f.signedIn.post(t, revPost(q.mood), url.Values{"action": {"dismiss"}, "_csrf": {token}}); rec.Code != http.StatusForbidden {
			t.Errorf("POST with _csrf %q = %d, want 403", token, rec.Code)
		}
	}
	if status, _ := revStatus(t, f, q.mood); status != "open" {
		t.Errorf("item status = %s after refused posts, want open", status)
	}
}

func TestReviewTextIsEscaped(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	store := decStore(f)
	decRecord(t, f, "x", "Eve", "k", "<script>alert(1)</script>", "<b>bold</b>")
	if _, _, err := store.CreateFact(ctx, memory.Token("bot"), memory.NewFact{Scope: "x", Entity: "Eve", Key: "k",
		Content: "<img src=x onerror=alert(3)>"}); err == nil {
		t.Fatal("want a refusal")
	}
	body := f.get(t, "/review").Body.String()
	for _, raw := range []string{"<script>alert(1)</script>", "<b>bold</b>", "<img src=x"} {
		if strings.Contains(body, raw) {
			t.Errorf("review page renders %q as markup", raw)
		}
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("escaped decision text not found on the review page")
	}
}

// revHTMX posts form to path as htmx does.
func revHTMX(t *testing.T, f fixture, path string, form url.Values) *goquery.Document {
	t.Helper()
	rec := f.signedIn.post(t, path, form, "HX-Request", "true")
	if rec.Code != http.StatusOK {
		t.Fatalf("htmx POST %s = %d, want 200; %.300s", path, rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), "<html") {
		t.Fatalf("htmx POST %s answers a whole page", path)
	}
	return parse(t, rec)
}

// revOption is the text of an option of the filter's select.
func revOption(doc *goquery.Selection, sel, value string) string {
	return strings.Join(strings.Fields(doc.Find(sel+` option[value="`+value+`"]`).Text()), " ")
}

// TestReviewDismissUndo: a dismissal through htmx answers with a message
// that offers Undo and with the filter's counts out of band; Undo puts the
// item back in its place in the list, audited; the dismissed filter lists
// the dismissed items, each with a way back.
func TestReviewDismissUndo(t *testing.T) {
	f := newFixture(t, false)
	q := revSeed(t, f)

	frag := revHTMX(t, f, revPost(q.refusal), url.Values{"action": {"dismiss"}})
	toast := frag.Find(`[data-testid="review-live-message"]`)
	if !strings.Contains(toast.Text(), "dismissed") {
		t.Errorf("message = %q", toast.Text())
	}
	undo := toast.Find(`form[data-testid="review-undo-form"]`)
	if undo.AttrOr("hx-post", "") != revPost(q.refusal)+"/undismiss" || undo.Find(`[data-shortcut="u"]`).Length() != 1 {
		t.Fatalf("undo form = %q, want it to undismiss the item, on the u key", undo.AttrOr("hx-post", ""))
	}
	filter := frag.Find(`form#review-filter`)
	if filter.AttrOr("hx-swap-oob", "") == "" {
		t.Fatal("the filter is not swapped out of band")
	}
	if o := revOption(filter, "#review-kind", "decision_refusal"); o != "Refused write (0)" {
		t.Errorf("kind option after the dismissal = %q, want its count down to 0", o)
	}
	if o := revOption(filter, "#review-status", "dismissed"); o != "Dismissed (1)" {
		t.Errorf("status option = %q, want 1 dismissed", o)
	}
	if s := strings.TrimSpace(frag.Find(`#review-summary`).Text()); s != "2 open items, oldest first." {
		t.Errorf("summary = %q", s)
	}

	form := url.Values{}
	undo.Find("input[name]").Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("name", "") != "_csrf" {
			form.Set(s.AttrOr("name", ""), s.AttrOr("value", ""))
		}
	})
	frag = revHTMX(t, f, revPost(q.refusal)+"/undismiss", form)
	list := frag.Find(`#review-items`)
	if list.AttrOr("hx-swap-oob", "") != "innerHTML" || revItem(frag, q.refusal).Length() != 1 ||
		list.Find(`[data-testid="review-item"]`).Length() != 3 {
		t.Errorf("undo answer lists %d items, want the three again, out of band", list.Find(`[data-testid="review-item"]`).Length())
	}
	if o := revOption(frag.Find(`form#review-filter`), "#review-kind", "decision_refusal"); o != "Refused write (1)" {
		t.Errorf("kind option after the undo = %q", o)
	}
	if status, by := revStatus(t, f, q.refusal); status != "open" || by != "" {
		t.Errorf("item after undo = %s by %q, want open", status, by)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'review.undismiss' AND target_id = $1
		AND actor = 'user:reviewer@example.com'`, strconv.FormatInt(q.refusal, 10)); n != 1 {
		t.Errorf("%d undismiss audit rows, want 1", n)
	}

	t.Run("without htmx", func(t *testing.T) {
		rec := f.signedIn.post(t, revPost(q.mood), url.Values{"action": {"dismiss"}})
		want := "/review?undo=" + strconv.FormatInt(q.mood, 10)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Fatalf("dismiss = %d to %q, want 303 to %s", rec.Code, rec.Header().Get("Location"), want)
		}
		doc := parse(t, f.get(t, want))
		if doc.Find(`#review-live [data-testid="review-undo"]`).Length() != 1 {
			t.Error("the queue does not offer to undo the dismissal")
		}
	})

	t.Run("dismissed filter", func(t *testing.T) {
		doc := parse(t, f.get(t, "/review?status=dismissed"))
		items := doc.Find(`[data-testid="review-item"]`)
		if items.Length() != 1 || revItem(doc, q.mood).Length() != 1 {
			t.Fatalf("dismissed list has %d items, want the dismissed mood", items.Length())
		}
		if by := decText(doc, "review-dismissed-by"); !strings.Contains(by, "reviewer@example.com") {
			t.Errorf("dismissed by = %q", by)
		}
		if doc.Find(`[data-testid="review-form"]`).Length() != 0 {
			t.Error("a dismissed item offers the actions of an open one")
		}
		restore := revItem(doc, q.mood).Find(`form[data-testid="review-undismiss-form"]`)
		if restore.Find(`[data-testid="review-undismiss"][data-shortcut="u"]`).Length() != 1 {
			t.Fatal("a dismissed item cannot be restored")
		}
		if v := doc.Find(`#review-status option[selected]`).AttrOr("value", ""); v != "dismissed" {
			t.Errorf("selected status = %q", v)
		}
		frag := revHTMX(t, f, revPost(q.mood)+"/undismiss", url.Values{"filter_status": {"dismissed"}})
		if frag.Find(`#review-items`).Length() != 0 || revItem(frag, q.mood).Length() != 0 {
			t.Error("restoring from the dismissed list answers with the list; the item should just go")
		}
		if o := revOption(frag.Find(`form#review-filter`), "#review-status", "dismissed"); o != "Dismissed (0)" {
			t.Errorf("status option after the restore = %q", o)
		}
		if status, _ := revStatus(t, f, q.mood); status != "open" {
			t.Errorf("mood item = %s, want open", status)
		}
		if doc := parse(t, f.get(t, "/review?status=dismissed")); doc.Find(`[data-testid="review-empty"]`).Length() != 1 {
			t.Error("the empty dismissed list says nothing")
		}
	})

	t.Run("refusals", func(t *testing.T) {
		rec := f.signedIn.post(t, revPost(q.nearDup)+"/undismiss", url.Values{}, "HX-Request", "true")
		if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "open already") {
			t.Errorf("undismiss of an open item = %d %.200s, want 409 saying so", rec.Code, rec.Body)
		}
		viewer := f.login(t, "viewer")
		if rec := viewer.post(t, revPost(q.nearDup)+"/undismiss", url.Values{}); rec.Code != http.StatusForbidden {
			t.Errorf("viewer undismiss = %d, want 403", rec.Code)
		}
		if rec := f.get(t, "/review?status=closed"); rec.Code != http.StatusBadRequest {
			t.Errorf("GET /review?status=closed = %d, want 400", rec.Code)
		}
	})
}

// TestReviewKeysMatchLabels: every action button's key is the first letter
// of its label's action word (merge m, accept a, dismiss d), the keys are
// listed on the page, and a decision refusal's accept says it reopens the
// decision.
func TestReviewKeysMatchLabels(t *testing.T) {
	f := newFixture(t, false)
	q := revSeed(t, f)
	doc := parse(t, f.get(t, "/review"))
	words := map[string]string{"m": "Merge", "a": "Accept", "d": "Dismiss"}
	buttons := doc.Find(`[data-review-item] button[data-shortcut]`)
	if buttons.Length() != 7 {
		t.Errorf("%d action buttons, want 7", buttons.Length())
	}
	buttons.Each(func(_ int, s *goquery.Selection) {
		key := s.AttrOr("data-shortcut", "")
		label := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s.Text()), key))
		if !strings.HasPrefix(label, words[key]) || s.AttrOr("aria-keyshortcuts", "") != key {
			t.Errorf("button %q is on key %q, want its label to start with %q", label, key, words[key])
		}
		if strings.TrimSpace(s.Find("kbd").Text()) != key {
			t.Errorf("button %q shows key %q", label, s.Find("kbd").Text())
		}
	})
	if l := strings.TrimSpace(revItem(doc, q.refusal).Find(`[data-testid="review-accept"]`).Text()); !strings.HasPrefix(l, "Accept: reopen the decision") {
		t.Errorf("refusal's accept = %q", l)
	}
	keys := strings.Join(strings.Fields(doc.Find(`[data-testid="review-shortcuts"]`).Text()), " ")
	for _, want := range []string{"j next item", "k previous item", "m merge", "a accept", "d dismiss", "u undo the dismissal", "? this help"} {
		if !strings.Contains(keys, want) {
			t.Errorf("shortcuts = %q, want %q", keys, want)
		}
	}
}
