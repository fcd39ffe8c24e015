package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// factsStore is the engine over the fixture's database, on the fixture's clock.
func factsStore(f fixture) *memory.Store {
	return memory.NewStore(f.pool, memory.Options{
		Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

// writeFact writes a fact through the engine as a person.
func writeFact(t *testing.T, f fixture, in memory.NewFact) memory.Fact {
	t.Helper()
	fact, _, err := factsStore(f).CreateFact(context.Background(), memory.Human("setup@example.com"), in)
	if err != nil {
		t.Fatalf("CreateFact(%+v): %v", in, err)
	}
	return fact
}

// plainFactIDs returns n active demo facts that record no decision, oldest first.
func plainFactIDs(t *testing.T, f fixture, n int) []int64 {
	t.Helper()
	ids := dbIDs(t, f, `
		SELECT f.id FROM entity_facts f
		WHERE f.status = 'active' AND f.category <> 'decision'
		  AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.fact_id = f.id)
		ORDER BY f.id LIMIT $1`, n)
	if len(ids) != n {
		t.Fatalf("found %d plain facts, want %d", len(ids), n)
	}
	return ids
}

func idStrings(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return out
}

// followFlash follows a 303 and returns where it led and the flash shown there.
func followFlash(t *testing.T, c *client, rec *httptest.ResponseRecorder) (string, string) {
	t.Helper()
	loc, _, flash := follow(t, c, rec)
	return loc, flash
}

// factsSnapshot is every fact's status, classification and version, and the
// audit log's length (sign-ins and sign-outs, audited too, aside): what a
// refused change must leave as it was.
func factsSnapshot(t *testing.T, f fixture) string {
	t.Helper()
	var s string
	err := f.pool.QueryRow(context.Background(), `
		SELECT (SELECT string_agg(id || status || durability || category || version, ',' ORDER BY id) FROM entity_facts)
			|| '/' || (SELECT count(*) FROM audit_log WHERE action NOT LIKE 'auth.%')`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFactsListForViewer(t *testing.T) {
	f := newFixture(t, true)
	viewer := f.login(t, "viewer")
	rec := viewer.get(t, "/facts")
	if rec.Code != http.StatusOK {
		t.Fatalf("viewer GET /facts = %d, want 200", rec.Code)
	}
	doc := parse(t, rec)
	if n := doc.Find(`[data-testid="fact-row"]`).Length(); n != 50 {
		t.Errorf("viewer sees %d rows, want 50", n)
	}
	for _, sel := range []string{`[data-testid="bulk-form"]`, `[data-testid="bulk-bar"]`, `[data-testid="fact-select"]`, `form[action="/facts/bulk"]`} {
		if doc.Find(sel).Length() != 0 {
			t.Errorf("viewer's facts list has %s; bulk controls are for reviewers", sel)
		}
	}
	doc.Find(`[data-testid="fact-row"]`).Each(func(i int, row *goquery.Selection) {
		id := row.AttrOr("data-fact-id", "")
		if href := row.Find(`[data-testid="fact-link"]`).AttrOr("href", ""); href != "/facts/"+id {
			t.Errorf("row %d links to %q, want /facts/%s", i, href, id)
		}
	})
}

func TestFactsListBulkControlsForReviewer(t *testing.T) {
	f := newFixture(t, true)
	doc := parse(t, f.get(t, "/facts?durability=ephemeral&category=mood"))
	form := doc.Find(`form[data-testid="bulk-form"]`)
	if form.Length() != 1 || form.AttrOr("method", "") != "post" || form.AttrOr("action", "") != "/facts/bulk" {
		t.Fatalf("reviewer's facts list has no POST /facts/bulk form")
	}
	if form.Find(`input[name="_csrf"]`).AttrOr("value", "") == "" {
		t.Error("bulk form has no CSRF token")
	}
	ret := form.Find(`input[name="return"]`).AttrOr("value", "")
	if u, err := url.Parse(ret); err != nil || u.Path != "/facts" || u.Query().Get("durability") != "ephemeral" || u.Query().Get("category") != "mood" {
		t.Errorf("bulk form returns to %q, want the filtered list", ret)
	}
	rows := form.Find(`[data-testid="fact-row"]`)
	boxes := form.Find(`input[type="checkbox"][name="ids"]`)
	if rows.Length() == 0 || boxes.Length() != rows.Length() {
		t.Errorf("%d checkboxes for %d rows, want one per row", boxes.Length(), rows.Length())
	}
	for _, action := range []string{"reclassify", "archive", "restore"} {
		if form.Find(`button[name="action"][value="`+action+`"]`).Length() != 1 {
			t.Errorf("bulk bar has no %s button", action)
		}
	}
	// The filter form is separate from the bulk form: no nesting.
	if form.Find(`form`).Length() != 0 || form.ParentsFiltered(`form`).Length() != 0 {
		t.Error("the bulk form is nested in or around another form")
	}
}

func TestFactsListEntityFilter(t *testing.T) {
	f := newFixture(t, true)
	writeFact(t, f, memory.NewFact{Scope: "other-scope", Entity: "Edmund Hale", Content: "A namesake in another scope."})

	t.Run("within a scope", func(t *testing.T) {
		doc := parse(t, f.get(t, "/facts?scope=personal-assistant&entity=Edmund+Hale&status=all"))
		rows := doc.Find(`[data-testid="fact-row"]`)
		if rows.Length() == 0 {
			t.Fatal("entity filter shows no facts; the demo has many about Edmund Hale")
		}
		rows.Each(func(_ int, r *goquery.Selection) {
			if e := strings.TrimSpace(r.Find("td").Eq(2).Text()); e != "Edmund Hale" {
				t.Errorf("fact %s is about %q, want Edmund Hale", r.AttrOr("data-fact-id", ""), e)
			}
			if s := strings.TrimSpace(r.Find("td").Last().Text()); s != "personal-assistant" {
				t.Errorf("fact %s is in scope %q, want personal-assistant", r.AttrOr("data-fact-id", ""), s)
			}
		})
		if v := doc.Find(`[data-testid="filter-entity"]`).AttrOr("value", ""); v != "Edmund Hale" {
			t.Errorf("entity filter shows %q, want it kept", v)
		}
		if doc.Find(`datalist#filter-entity-names option[value="Edmund Hale"]`).Length() != 1 {
			t.Error("the scope's entity names are not suggested")
		}
		next := doc.Find(`[data-testid="next-page"]`).AttrOr("href", "")
		if next != "" && !strings.Contains(next, "entity=Edmund+Hale") {
			t.Errorf("next page %q drops the entity filter", next)
		}
	})

	t.Run("every scope", func(t *testing.T) {
		doc := parse(t, f.get(t, "/facts?entity=Edmund+Hale&q=namesake"))
		if got := doc.Find(`[data-testid="fact-row"]`).Length(); got != 1 {
			t.Errorf("entity filter without a scope finds %d namesake facts, want 1", got)
		}
	})

	t.Run("unknown entity", func(t *testing.T) {
		rec := f.get(t, "/facts?scope=personal-assistant&entity=Nobody")
		if rec.Code != http.StatusOK {
			t.Fatalf("GET = %d, want 200", rec.Code)
		}
		msg := parse(t, rec).Find(`[data-testid="facts-empty"]`).Text()
		if !strings.Contains(msg, "Nobody") || !strings.Contains(msg, "personal-assistant") {
			t.Errorf("empty state = %q, want it to name the entity and scope", msg)
		}
	})

	t.Run("too long", func(t *testing.T) {
		if rec := f.get(t, "/facts?entity="+strings.Repeat("x", 201)); rec.Code != http.StatusBadRequest {
			t.Errorf("GET with a 201-character entity = %d, want 400", rec.Code)
		}
	})
}

func TestFactsBulkArchiveThenRestore(t *testing.T) {
	f := newFixture(t, true)
	ids := plainFactIDs(t, f, 3)
	back := "/facts?durability=long_term&status=all"
	form := url.Values{"ids": idStrings(ids), "action": {"archive"}, "reason": {"duplicates of newer facts"}, "return": {back}}
	loc, flash := followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", form))
	if loc != back {
		t.Errorf("archive redirects to %q, want back to %q", loc, back)
	}
	if flash != "3 facts archived." {
		t.Errorf("flash = %q, want \"3 facts archived.\"", flash)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = ANY($1) AND status = 'archived'`, ids); n != 3 {
		t.Errorf("%d of the 3 facts archived", n)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'fact.archive' AND target_type = 'fact'
		AND target_id = ANY($1) AND actor = 'user:reviewer@example.com' AND reason = 'duplicates of newer facts'`, idStrings(ids)); n != 3 {
		t.Errorf("%d fact.archive audit rows by the reviewer with the reason, want 3", n)
	}

	// Archiving again changes nothing and says so.
	_, flash = followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", url.Values{"ids": idStrings(ids[:1]), "action": {"archive"}}))
	if flash != "0 facts archived; 1 fact unchanged (already archived)." {
		t.Errorf("archiving an archived fact: flash = %q", flash)
	}

	form.Set("action", "restore")
	form.Set("reason", "archived by mistake")
	_, flash = followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", form))
	if flash != "3 facts restored." {
		t.Errorf("flash = %q, want \"3 facts restored.\"", flash)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = ANY($1) AND status = 'active'`, ids); n != 3 {
		t.Errorf("%d of the 3 facts active again", n)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'fact.restore' AND target_id = ANY($1)
		AND actor = 'user:reviewer@example.com' AND reason = 'archived by mistake'`, idStrings(ids)); n != 3 {
		t.Errorf("%d fact.restore audit rows, want 3", n)
	}
}

func TestFactsBulkReclassify(t *testing.T) {
	f := newFixture(t, true)
	ids := plainFactIDs(t, f, 2)
	form := url.Values{"ids[]": idStrings(ids), "action": {"reclassify"}, "durability": {"short_term"},
		"category": {"state"}, "reason": {"these change often"}, "return": {"/facts?category=state"}}
	loc, flash := followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", form))
	if loc != "/facts?category=state" || flash != "2 facts reclassified." {
		t.Errorf("reclassify led to %q with flash %q, want /facts?category=state and \"2 facts reclassified.\"", loc, flash)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = ANY($1) AND durability = 'short_term' AND category = 'state'`, ids); n != 2 {
		t.Errorf("%d of 2 facts reclassified in the database", n)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'fact.reclassify' AND target_id = ANY($1)
		AND reason = 'these change often'`, idStrings(ids)); n != 2 {
		t.Errorf("%d fact.reclassify audit rows, want 2", n)
	}

	t.Run("durability only", func(t *testing.T) {
		_, flash := followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", url.Values{
			"ids": idStrings(ids), "action": {"reclassify"}, "durability": {"ephemeral"}, "category": {""}}))
		if flash != "2 facts reclassified." {
			t.Errorf("flash = %q", flash)
		}
		if n := dbInt(t, f, `SELECT count(*) FROM entity_facts WHERE id = ANY($1) AND durability = 'ephemeral' AND category = 'state'`, ids); n != 2 {
			t.Errorf("%d of 2 facts ephemeral and still state", n)
		}
	})
}

func TestFactsBulkRefusalsWriteNothing(t *testing.T) {
	f := newFixture(t, true)
	ids := plainFactIDs(t, f, 2)
	var decisionFact int64
	if err := f.pool.QueryRow(context.Background(), `SELECT fact_id FROM decisions ORDER BY id LIMIT 1`).Scan(&decisionFact); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		form url.Values
		want string
	}{
		{"no ids", url.Values{"action": {"archive"}}, "no facts were selected"},
		{"bad durability", url.Values{"ids": idStrings(ids), "action": {"reclassify"}, "durability": {"forever"}},
			"unknown durability \"forever\""},
		{"nothing to change", url.Values{"ids": idStrings(ids), "action": {"reclassify"}}, "choose a durability, a category or both"},
		{"bad category", url.Values{"ids": idStrings(ids), "action": {"reclassify"}, "category": {"Not A Slug"}}, "lowercase slug"},
		{"decision category", url.Values{"ids": idStrings(ids), "action": {"reclassify"}, "category": {"decision"}}, "reserved for recorded decisions"},
		{"decision fact", url.Values{"ids": append(idStrings(ids), strconv.FormatInt(decisionFact, 10)), "action": {"reclassify"},
			"durability": {"ephemeral"}}, "records decision"},
		{"unknown id", url.Values{"ids": append(idStrings(ids), "99999999"), "action": {"archive"}}, "no fact with id 99999999"},
		{"not an id", url.Values{"ids": {"12abc"}, "action": {"archive"}}, `"12abc" is not a fact id`},
		{"unknown action", url.Values{"ids": idStrings(ids), "action": {"delete"}}, `unknown action "delete"`},
		{"reason too long", url.Values{"ids": idStrings(ids), "action": {"archive"}, "reason": {strings.Repeat("x", 2001)}}, "at most 2000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := factsSnapshot(t, f)
			tt.form.Set("return", "/facts?status=all")
			loc, flash := followFlash(t, f.signedIn, f.signedIn.post(t, "/facts/bulk", tt.form))
			if loc != "/facts?status=all" {
				t.Errorf("refusal leads to %q, want back to the list", loc)
			}
			if !strings.Contains(flash, tt.want) || !strings.HasPrefix(flash, "Nothing was changed") {
				t.Errorf("flash = %q, want it to say nothing changed and %q", flash, tt.want)
			}
			if after := factsSnapshot(t, f); after != before {
				t.Error("a refused bulk change wrote to the database")
			}
		})
	}
}

func TestFactsBulkRefusesViewersAndBadTokens(t *testing.T) {
	f := newFixture(t, true)
	ids := plainFactIDs(t, f, 1)
	before := factsSnapshot(t, f)
	viewer := f.login(t, "viewer")
	form := url.Values{"ids": idStrings(ids), "action": {"archive"}}
	if rec := viewer.post(t, "/facts/bulk", form); rec.Code != http.StatusForbidden {
		t.Errorf("viewer POST /facts/bulk = %d, want 403", rec.Code)
	}
	for name, token := range map[string]string{"wrong": "not-the-token", "missing": ""} {
		form := url.Values{"ids": idStrings(ids), "action": {"archive"}, "_csrf": {token}}
		if rec := f.signedIn.post(t, "/facts/bulk", form); rec.Code != http.StatusForbidden {
			t.Errorf("POST /facts/bulk with a %s CSRF token = %d, want 403", name, rec.Code)
		}
	}
	if after := factsSnapshot(t, f); after != before {
		t.Error("a refused POST wrote to the database")
	}
}

func TestFactsBulkReturnStaysLocal(t *testing.T) {
	f := newFixture(t, true)
	ids := plainFactIDs(t, f, 1)
	for _, ret := range []string{"https://evil.example/", "//evil.example/facts", "/\\evil.example", "javascript:alert(1)", "facts", "/facts\r\nX: y"} {
		rec := f.signedIn.post(t, "/facts/bulk", url.Values{"ids": idStrings(ids), "action": {"restore"}, "return": {ret}})
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != "/facts" {
			t.Errorf("return=%q: %d to %q, want 303 to /facts", ret, rec.Code, loc)
		}
	}
	rec := f.signedIn.post(t, "/facts/bulk", url.Values{"ids": idStrings(ids), "action": {"restore"}, "return": {"/facts/" + strconv.FormatInt(ids[0], 10)}})
	if loc := rec.Header().Get("Location"); loc != "/facts/"+strconv.FormatInt(ids[0], 10) {
		t.Errorf("a local return leads to %q, want the fact page", loc)
	}
}

func TestFactsListRowsAreSortedAndSelectable(t *testing.T) {
	f := newFixture(t, true)
	doc := parse(t, f.get(t, "/facts?category=obligation"))
	var ids []int64
	doc.Find(`[data-testid="fact-select"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := strconv.ParseInt(s.AttrOr("value", ""), 10, 64)
		ids = append(ids, id)
		if label := s.AttrOr("aria-label", ""); label == "" {
			t.Errorf("checkbox for fact %d has no accessible name", id)
		}
	})
	if len(ids) == 0 || !slices.IsSortedFunc(ids, func(a, b int64) int { return int(b - a) }) {
		t.Errorf("checkbox values %v, want the facts' ids, newest first", ids)
	}
}
