package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// wmEngine is the memory engine over the fixture's database with a clock
// fixed at at, for pushing rows and running consolidation in tests.
func wmEngine(f fixture, at time.Time) *memory.Store {
	return memory.NewStore(f.pool, memory.Options{
		Now: func() time.Time { return at }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

// wmPush pushes working rows to scope as an agent, at the instant at.
func wmPush(t *testing.T, f fixture, at time.Time, scope string, nodes ...memory.NewNode) []int64 {
	t.Helper()
	ids, err := wmEngine(f, at).Push(context.Background(), memory.Token("test-agent"), scope, nodes)
	if err != nil {
		t.Fatalf("Push(%s) error = %v", scope, err)
	}
	return ids
}

// wmConsolidate runs consolidation at the instant at.
func wmConsolidate(t *testing.T, f fixture, at time.Time) memory.Run {
	t.Helper()
	run, err := wmEngine(f, at).Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest})
	if err != nil {
		t.Fatalf("Consolidate() error = %v", err)
	}
	return run
}

// wmMarker reads a working row's stored marker ("" when none).
func wmMarker(t *testing.T, f fixture, id int64) string {
	t.Helper()
	var m *string
	if err := f.pool.QueryRow(context.Background(), `SELECT properties->>'durability' FROM memory_nodes WHERE id = $1`, id).Scan(&m); err != nil {
		t.Fatal(err)
	}
	if m == nil {
		return ""
	}
	return *m
}

type wmRowView struct {
	id       int64
	content  string
	marker   string
	promoted string
	checkbox bool
}

func wmRows(t *testing.T, doc *goquery.Document) []wmRowView {
	t.Helper()
	var out []wmRowView
	doc.Find(`[data-testid="node-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, err := strconv.ParseInt(s.AttrOr("data-node-id", ""), 10, 64)
		if err != nil {
			t.Errorf("node row without a numeric data-node-id: %v", err)
		}
		out = append(out, wmRowView{
			id:       id,
			content:  strings.TrimSpace(s.Find(`[data-testid="node-content"]`).Text()),
			marker:   strings.TrimSpace(s.Find(`[data-testid="node-marker"]`).Text()),
			promoted: strings.TrimSpace(s.Find(`[data-testid="node-promoted"]`).Text()),
			checkbox: s.Find(`[data-testid="node-select"]`).Length() == 1,
		})
	})
	return out
}

func TestWorkingPageFilters(t *testing.T) {
	f := newFixture(t, false)
	earlier := now.Add(-10 * time.Minute)
	wmPush(t, f, earlier, "acme", memory.NewNode{Content: "Acme's invoices go to finance@acme.test"})
	wmConsolidate(t, f, earlier) // promotes it
	plain := wmPush(t, f, now, "acme", memory.NewNode{Content: "Acme prefers email over phone"})[0]
	transient := wmPush(t, f, now, "acme", memory.NewNode{Content: "build 812 is running", Durability: "transient"})[0]
	expired := wmPush(t, f, now, "globex", memory.NewNode{Content: "queue was draining", Durability: "expired",
		TTLSeconds: wmPtr(int32(5400)), Importance: wmPtr(0.9)})[0]

	rec := f.get(t, "/working")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /working = %d; body %s", rec.Code, rec.Body)
	}
	doc := parse(t, rec)
	got := wmRows(t, doc)
	var ids []int64
	for _, r := range got {
		ids = append(ids, r.id)
	}
	if !slices.Equal(ids, []int64{expired, transient, plain}) {
		t.Fatalf("GET /working shows rows %v, want the pending rows newest first %v", ids, []int64{expired, transient, plain})
	}
	if got[2].marker != "durable (default)" || got[1].marker != "transient" || got[0].marker != "expired" {
		t.Errorf("markers = %q, %q, %q; want expired, transient, durable (default)", got[0].marker, got[1].marker, got[2].marker)
	}
	if !got[0].checkbox || got[0].promoted != "pending" {
		t.Errorf("a pending row shows checkbox %t, promoted %q; want a checkbox and pending", got[0].checkbox, got[0].promoted)
	}
	if doc.Find(`[data-testid="promote-button"]`).Length() != 1 || doc.Find(`[data-testid="expire-button"]`).Length() != 1 {
		t.Error("a reviewer sees no promote and expire buttons")
	}
	row := doc.Find(`[data-node-id="` + strconv.FormatInt(expired, 10) + `"]`).Text()
	if !strings.Contains(row, "1 h 30 min") || !strings.Contains(row, "0.90") || !strings.Contains(row, "globex") {
		t.Errorf("expired row = %q, want its ttl 1 h 30 min, importance 0.90 and scope", row)
	}
	if cell := doc.Find(`[data-testid="count-acme-transient"]`).Text(); cell != "1" {
		t.Errorf("pending count for acme/transient = %q, want 1", cell)
	}

	tests := []struct {
		query string
		want  []int64 // nil: check promoted instead
	}{
		{"marker=transient", []int64{transient}},
		{"marker=durable", []int64{plain}},
		{"scope=globex", []int64{expired}},
		{"scope=acme&marker=expired", nil},
		{"state=all&scope=acme&marker=durable", []int64{plain, plain - 1}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rec := f.get(t, "/working?"+tt.query)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET /working?%s = %d", tt.query, rec.Code)
			}
			var ids []int64
			for _, r := range wmRows(t, parse(t, rec)) {
				ids = append(ids, r.id)
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("GET /working?%s shows %v, want %v", tt.query, ids, tt.want)
			}
		})
	}

	t.Run("promoted", func(t *testing.T) {
		doc := parse(t, f.get(t, "/working?state=promoted"))
		got := wmRows(t, doc)
		if len(got) != 1 || got[0].checkbox || !strings.HasPrefix(got[0].promoted, "fact ") {
			t.Fatalf("state=promoted rows = %+v, want the one promoted row, without a checkbox, linking its fact", got)
		}
		href := doc.Find(`[data-testid="node-promoted"] a`).AttrOr("href", "")
		var factID int64
		if err := f.pool.QueryRow(context.Background(), `SELECT promoted_fact_id FROM memory_nodes WHERE id = $1`, got[0].id).Scan(&factID); err != nil {
			t.Fatal(err)
		}
		if href != "/facts/"+strconv.FormatInt(factID, 10) {
			t.Errorf("promoted row links %q, want /facts/%d", href, factID)
		}
	})

	t.Run("filter kept in the form", func(t *testing.T) {
		doc := parse(t, f.get(t, "/working?scope=acme&marker=transient&state=all"))
		for sel, want := range map[string]string{"filter-scope": "acme", "filter-marker": "transient", "filter-state": "all"} {
			if v := doc.Find(`[data-testid="`+sel+`"] option[selected]`).AttrOr("value", ""); v != want {
				t.Errorf("%s selected = %q, want %q", sel, v, want)
			}
		}
	})

	t.Run("htmx fragment", func(t *testing.T) {
		rec := f.get(t, "/working?marker=transient", "HX-Request", "true")
		body := rec.Body.String()
		if rec.Code != http.StatusOK || strings.Contains(body, "<html") || !strings.Contains(body, `id="working-results"`) {
			t.Errorf("htmx GET = %d, not the results fragment: %.200s", rec.Code, body)
		}
	})

	t.Run("empty", func(t *testing.T) {
		if parse(t, f.get(t, "/working?scope=nobody")).Find(`[data-testid="working-empty"]`).Length() != 1 {
			t.Error("an empty result shows no empty-state message")
		}
	})
}

func TestWorkingPagePaginates(t *testing.T) {
	f := newFixture(t, false)
	nodes := make([]memory.NewNode, 60)
	for i := range nodes {
		nodes[i] = memory.NewNode{Content: "row " + strconv.Itoa(i)}
	}
	wmPush(t, f, now, "acme", nodes...)
	doc := parse(t, f.get(t, "/working"))
	first := wmRows(t, doc)
	next, ok := doc.Find(`[data-testid="next-page"]`).Attr("href")
	if len(first) != 50 || !ok {
		t.Fatalf("first page: %d rows, next link %t; want 50 and a link", len(first), ok)
	}
	second := wmRows(t, parse(t, f.get(t, next)))
	if len(second) != 10 || second[0].id >= first[49].id {
		t.Errorf("second page: %d rows starting at %d, want 10 older than %d", len(second), second[0].id, first[49].id)
	}
}

func TestWorkingPageRefusesBadFilters(t *testing.T) {
	f := newFixture(t, false)
	tests := []struct{ query, want string }{
		{"marker=permanent", "allowed values are durable, transient, expired"},
		{"state=deleted", "allowed values are pending, promoted, set_aside, all"},
		{"scope=Bad%20Scope", "invalid scope"},
		{"before=x", "positive working row id"},
	}
	for _, tt := range tests {
		rec := f.get(t, "/working?"+tt.query)
		msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text()
		if rec.Code != http.StatusBadRequest || !strings.Contains(msg, tt.want) {
			t.Errorf("GET /working?%s = %d %q, want 400 containing %q", tt.query, rec.Code, msg, tt.want)
		}
	}
}

func wmMarkerForm(marker string, ids ...int64) url.Values {
	v := url.Values{"marker": {marker}, "return": {"/working?scope=acme"}}
	for _, id := range ids {
		v.Add("ids", strconv.FormatInt(id, 10))
	}
	return v
}

func TestWorkingMarkersExpireAndPromote(t *testing.T) {
	f := newFixture(t, false)
	ids := wmPush(t, f, now, "acme",
		memory.NewNode{Content: "deploy 1 running", Durability: "transient"},
		memory.NewNode{Content: "deploy 2 running", Durability: "transient"},
		memory.NewNode{Content: "Acme's fiscal year ends in March"},
		memory.NewNode{Content: "untouched", Durability: "transient"})
	f.get(t, "/working")

	rec := f.signedIn.post(t, "/working/markers", wmMarkerForm("expired", ids[0], ids[1]))
	loc, doc, flash := follow(t, f.signedIn, rec)
	if loc != "/working?scope=acme" {
		t.Errorf("redirect to %q, want back to the list the form came from", loc)
	}
	if !strings.Contains(flash, "2 rows expired") || doc.Find(`.flash-ok`).Length() != 1 {
		t.Errorf("flash = %q, want an ok message saying 2 rows expired", flash)
	}
	for _, id := range ids[:2] {
		if m := wmMarker(t, f, id); m != "expired" {
			t.Errorf("row %d marker = %q, want expired", id, m)
		}
	}
	if m := wmMarker(t, f, ids[3]); m != "transient" {
		t.Errorf("unselected row marker = %q, want transient unchanged", m)
	}
	audits := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'node.durability' AND actor = 'user:reviewer@example.com'
		AND target_id = ANY($1) AND after->>'durability' = 'expired' AND before->>'durability' = 'transient'`,
		[]string{strconv.FormatInt(ids[0], 10), strconv.FormatInt(ids[1], 10)})
	if audits != 2 {
		t.Errorf("%d audit rows for the two expired rows, want 2 naming the reviewer, before and after", audits)
	}

	form := wmMarkerForm("durable", ids[2])
	form.Set("reason", "a lasting fact")
	_, _, flash = follow(t, f.signedIn, f.signedIn.post(t, "/working/markers", form))
	if !strings.Contains(flash, "1 row marked durable") {
		t.Errorf("flash = %q, want 1 row marked durable", flash)
	}
	if m := wmMarker(t, f, ids[2]); m != "durable" {
		t.Errorf("promoted row marker = %q, want durable", m)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'node.durability' AND target_id = $1
		AND reason = 'a lasting fact' AND before->>'durability' LIKE '(none%'`, strconv.FormatInt(ids[2], 10)); n != 1 {
		t.Errorf("%d audit rows for the promoted row with its reason, want 1", n)
	}

	t.Run("ids[] works too", func(t *testing.T) {
		v := url.Values{"marker": {"expired"}, "ids[]": {strconv.FormatInt(ids[3], 10)}}
		_, _, flash := follow(t, f.signedIn, f.signedIn.post(t, "/working/markers", v))
		if !strings.Contains(flash, "1 row expired") || wmMarker(t, f, ids[3]) != "expired" {
			t.Errorf("flash = %q, marker %q; want the row expired", flash, wmMarker(t, f, ids[3]))
		}
	})
}

func TestWorkingMarkersRefusals(t *testing.T) {
	f := newFixture(t, false)
	earlier := now.Add(-time.Minute)
	promoted := wmPush(t, f, earlier, "acme", memory.NewNode{Content: "Acme is based in Lyon"})[0]
	wmConsolidate(t, f, earlier)
	pending := wmPush(t, f, now, "acme", memory.NewNode{Content: "ticket 4 is open", Durability: "transient"})[0]
	f.get(t, "/working")
	audits := func() int { return dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'node.durability'`) }
	before := audits()

	tests := []struct {
		name string
		form url.Values
		want string
	}{
		{"already promoted", wmMarkerForm("expired", pending, promoted), "already promoted"},
		{"unknown row", wmMarkerForm("expired", pending, promoted+1000), "not found"},
		{"nothing selected", wmMarkerForm("expired"), "No working rows selected"},
		{"bad id", wmMarkerForm("expired", pending), ""},
		{"bad marker", wmMarkerForm("permanent", pending), "allowed values are durable, transient, expired"},
	}
	tests[3].form.Add("ids", "12abc")
	tests[3].want = `"12abc" is not a working row id`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, doc, flash := follow(t, f.signedIn, f.signedIn.post(t, "/working/markers", tt.form))
			if doc.Find(`.flash-error`).Length() != 1 || !strings.Contains(flash, tt.want) || !strings.Contains(flash, "othing") {
				t.Errorf("flash = %q, want an error containing %q that says nothing changed", flash, tt.want)
			}
			if m := wmMarker(t, f, pending); m != "transient" {
				t.Errorf("pending row marker = %q after a refused change, want transient", m)
			}
			if got := audits(); got != before {
				t.Errorf("%d audit rows after a refused change, want %d", got, before)
			}
		})
	}
}

func TestWorkingMarkersRoles(t *testing.T) {
	f := newFixture(t, false)
	id := wmPush(t, f, now, "acme", memory.NewNode{Content: "status ok", Durability: "transient"})[0]
	viewer := f.login(t, "viewer")
	doc := parse(t, viewer.get(t, "/working"))
	if n := doc.Find(`[data-testid="node-row"]`).Length(); n != 1 {
		t.Fatalf("the viewer sees %d rows, want 1", n)
	}
	if doc.Find(`[data-testid="promote-button"], [data-testid="expire-button"], [data-testid="node-select"], form[action="/working/markers"]`).Length() != 0 {
		t.Error("a viewer sees the promote or expire controls")
	}
	rec := viewer.post(t, "/working/markers", wmMarkerForm("expired", id))
	if rec.Code != http.StatusForbidden || wmMarker(t, f, id) != "transient" {
		t.Errorf("viewer POST = %d (marker %q), want 403 and nothing written", rec.Code, wmMarker(t, f, id))
	}

	f.get(t, "/working")
	for name, token := range map[string]string{"missing": "", "wrong": "not-the-token"} {
		form := wmMarkerForm("expired", id)
		form.Set("_csrf", token)
		rec := f.signedIn.post(t, "/working/markers", form)
		if rec.Code != http.StatusForbidden || wmMarker(t, f, id) != "transient" {
			t.Errorf("POST with a %s CSRF token = %d (marker %q), want 403 and nothing written", name, rec.Code, wmMarker(t, f, id))
		}
	}
}

func TestWorkingContentIsEscaped(t *testing.T) {
	f := newFixture(t, false)
	wmPush(t, f, now, "acme", memory.NewNode{Content: "<script>alert(1)</script>"})
	body := f.get(t, "/working").Body.String()
	if strings.Contains(body, "<script>alert(1)</script>") {
		t.Error("working row content rendered as markup")
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("escaped script text not found on the working page")
	}
}

func wmPtr[T any](v T) *T { return &v }

// TestSetAsideRowsOnWorkingPage: rows consolidation set aside are listed
// with their error under state=set_aside, announced at the top of the page,
// and a reviewer retries them from there.
func TestSetAsideRowsOnWorkingPage(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	bad := pushPoisoned(t, f)
	at := now.Add(-time.Hour)
	if run := wmConsolidate(t, f, at); run.SetAside != 1 {
		t.Fatalf("run set %d rows aside, want 1", run.SetAside)
	}

	doc := parse(t, f.get(t, "/working"))
	if !strings.Contains(doc.Find(`[data-testid="set-aside-notice"]`).Text(), "1 rows were set aside") {
		t.Errorf("no set-aside notice on the working page: %q", doc.Find(`[data-testid="set-aside-notice"]`).Text())
	}
	doc = parse(t, f.get(t, "/working?state=set_aside"))
	rows := doc.Find(`[data-testid="node-row"]`)
	if rows.Length() != 1 || rows.AttrOr("data-node-id", "") != strconv.FormatInt(bad[0], 10) ||
		!strings.Contains(rows.Find(`[data-testid="node-fault"]`).Text(), "poisoned row") {
		t.Fatalf("set-aside rows = %d (%q), want row %d with its error", rows.Length(), rows.Text(), bad[0])
	}
	if doc.Find(`[data-testid="retry-button"]`).Length() != 1 {
		t.Error("no retry button for a reviewer")
	}
	if rec := f.get(t, "/working?state=broken"); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "set_aside") {
		t.Errorf("GET ?state=broken = %d, want 400 naming set_aside among the allowed values", rec.Code)
	}

	rec := f.signedIn.post(t, "/working/retry", url.Values{"ids": {strconv.FormatInt(bad[0], 10)},
		"return": {"/working?state=set_aside"}})
	if _, _, flash := follow(t, f.signedIn, rec); !strings.Contains(flash, "tried again by the next consolidation run") {
		t.Errorf("retry flash = %q", flash)
	}
	var left int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM consolidation_faults`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d faults left after the retry (%v), want 0", left, err)
	}
	rec = f.signedIn.post(t, "/working/retry", url.Values{"ids": {strconv.FormatInt(bad[0], 10)}})
	if _, _, flash := follow(t, f.signedIn, rec); !strings.Contains(flash, "not set aside") {
		t.Errorf("retrying a row not set aside: flash %q", flash)
	}
}
