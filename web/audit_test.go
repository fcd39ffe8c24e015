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

// audRows returns the ids and actions of the audit rows on a page.
func audRows(doc *goquery.Document) (ids []int64, actions []string) {
	doc.Find(`[data-testid="audit-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := strconv.ParseInt(s.AttrOr("data-audit-id", ""), 10, 64)
		ids = append(ids, id)
		actions = append(actions, strings.TrimSpace(s.Find(`[data-testid="audit-action"]`).Text()))
	})
	return ids, actions
}

// audChanges makes a few audited changes: an admin edits a policy and
// creates a user, a reviewer writes a fact, an agent another.
func audChanges(t *testing.T, f fixture) (policyID int64, factID int64) {
	t.Helper()
	ctx := context.Background()
	admin := f.login(t, "admin")
	policyID = polID(t, f, "durability", "short_term")
	admin.get(t, "/policies")
	rec := admin.post(t, "/policies/"+strconv.FormatInt(policyID, 10),
		url.Values{"half_life": {"20"}, "unit": {"days"}, "floor": {"0.2"}, "reason": {"<b>slower</b> decay"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("policy save = %d", rec.Code)
	}
	rec = admin.post(t, "/users", admNewUserForm("ann@example.com", "viewer", "a long enough secret", "a long enough secret"))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("user create = %d", rec.Code)
	}
	store := memory.NewStore(f.pool, memory.Options{Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	fact, _, err := store.CreateFact(ctx, memory.Human("reviewer@example.com"), memory.NewFact{
		Scope: "home", Entity: "Eve", Key: "note", Content: "<script>alert(1)</script>"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.CreateFact(ctx, memory.Token("laptop"), memory.NewFact{
		Scope: "work", Entity: "Bob", Key: "likes", Content: "Bob likes tea"}); err != nil {
		t.Fatal(err)
	}
	return policyID, fact.ID
}

func TestAuditLogListsAndFilters(t *testing.T) {
	f := newFixture(t, false)
	policyID, factID := audChanges(t, f)
	viewer := f.login(t, "viewer")
	// The sign-ins above are audited too (auth.signin); this test is about
	// the changes.
	if _, err := f.pool.Exec(context.Background(), `DELETE FROM audit_log WHERE action LIKE 'auth.%'`); err != nil {
		t.Fatal(err)
	}

	rec := viewer.get(t, "/audit")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /audit = %d", rec.Code)
	}
	doc := parse(t, rec)
	ids, actions := audRows(doc)
	if len(ids) != 4 {
		t.Fatalf("audit log shows %v, want 4 rows", actions)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] >= ids[i-1] {
			t.Errorf("row %d (id %d) after id %d: want newest first", i, ids[i], ids[i-1])
		}
	}
	if want := []string{"fact.create", "fact.create", "user.create", "policy.update"}; strings.Join(actions, ",") != strings.Join(want, ",") {
		t.Errorf("actions = %v, want %v", actions, want)
	}

	policyRow := doc.Find(`[data-testid="audit-row"]`).Last()
	if got := policyRow.Find(`[data-testid="audit-actor"]`).AttrOr("title", ""); got != "user:admin@example.com" {
		t.Errorf("policy row actor = %q", got)
	}
	if href := policyRow.Find(`[data-testid="audit-target-link"]`).AttrOr("href", ""); !strings.HasPrefix(href, "/policies") {
		t.Errorf("policy row links to %q, want /policies", href)
	}
	floor := policyRow.Find(`[data-testid="audit-change"][data-key="floor"]`)
	if old, cur := floor.Find(`[data-testid="audit-old"]`).Text(), floor.Find(`[data-testid="audit-new"]`).Text(); old != "0.1" || cur != "0.2" {
		t.Errorf("floor change shown %q → %q, want 0.1 → 0.2", old, cur)
	}
	if got := policyRow.Find(`[data-testid="audit-reason"]`).Text(); !strings.Contains(got, "<b>slower</b> decay") {
		t.Errorf("reason = %q", got)
	}
	factRow := doc.Find(`[data-testid="audit-row"]`).Eq(1)
	if href := factRow.Find(`[data-testid="audit-target-link"]`).AttrOr("href", ""); href != "/facts/"+strconv.FormatInt(factID, 10) {
		t.Errorf("fact row links to %q, want the fact's page", href)
	}
	if doc.Find(`[data-testid="audit-row"]`).Eq(2).Find(`[data-testid="audit-target-link"]`).Length() != 0 {
		t.Error("a viewer gets a link to the users page, which they may not open")
	}

	tests := []struct {
		query string
		want  []string
	}{
		{"actor=admin@example.com", []string{"user.create", "policy.update"}},
		{"actor=user:reviewer@example.com", []string{"fact.create"}},
		{"actor=laptop", []string{"fact.create"}},
		{"action=fact", []string{"fact.create", "fact.create"}},
		{"action=policy.update", []string{"policy.update"}},
		{"target_type=policy&target_id=" + strconv.FormatInt(policyID, 10), []string{"policy.update"}},
		{"target_type=fact&target_id=" + strconv.FormatInt(factID, 10), []string{"fact.create"}},
		{"scope=work", []string{"fact.create"}},
		{"since=2026-11-30&until=2026-11-30", []string{"fact.create", "fact.create", "user.create", "policy.update"}},
		{"since=2026-12-01", nil},
		{"until=2026-11-29", nil},
		{"actor=nobody@example.com", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rec := viewer.get(t, "/audit?"+tt.query)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET /audit?%s = %d", tt.query, rec.Code)
			}
			doc := parse(t, rec)
			_, got := audRows(doc)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("GET /audit?%s = %v, want %v", tt.query, got, tt.want)
			}
			if len(tt.want) == 0 && doc.Find(`[data-testid="audit-empty"]`).Length() != 1 {
				t.Error("no empty-state message")
			}
		})
	}

	t.Run("filter kept in the form", func(t *testing.T) {
		doc := parse(t, viewer.get(t, "/audit?actor=laptop&target_type=fact&since=2026-11-01"))
		if doc.Find(`[data-testid="filter-actor"]`).AttrOr("value", "") != "laptop" ||
			doc.Find(`[data-testid="filter-target-type"] option[selected]`).AttrOr("value", "") != "fact" ||
			doc.Find(`[data-testid="filter-since"]`).AttrOr("value", "") != "2026-11-01" {
			t.Error("the filter form does not show the filter in the URL")
		}
	})

	t.Run("htmx fragment", func(t *testing.T) {
		rec := viewer.get(t, "/audit?action=fact", "HX-Request", "true")
		body := rec.Body.String()
		if rec.Code != http.StatusOK || strings.Contains(body, "<html") || !strings.Contains(body, `id="audit-results"`) {
			t.Errorf("htmx GET = %d %.200s, want the results fragment", rec.Code, body)
		}
	})

	t.Run("admin links to users", func(t *testing.T) {
		admin := newClient(f)
		admin.get(t, "/login")
		admin.post(t, "/login", url.Values{"email": {"admin@example.com"}, "password": {"a long enough secret"}})
		doc := parse(t, admin.get(t, "/audit?action=user"))
		if href := doc.Find(`[data-testid="audit-target-link"]`).AttrOr("href", ""); !strings.HasPrefix(href, "/users") {
			t.Errorf("user row links to %q for an admin, want /users", href)
		}
	})
}

func TestAuditLogPages(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	for i := range 60 {
		if _, err := f.pool.Exec(ctx, `INSERT INTO audit_log (at, actor, action, target_type, target_id, reason)
			VALUES ($1, 'system:test', 'test.step', 'thing', $2, '')`, now, strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	doc := parse(t, f.get(t, "/audit?action=test"))
	first, _ := audRows(doc)
	if len(first) != 50 {
		t.Fatalf("first page has %d rows, want 50", len(first))
	}
	next, ok := doc.Find(`[data-testid="next-page"]`).Attr("href")
	if !ok || !strings.Contains(next, "action=test") {
		t.Fatalf("next page link = %q, want one keeping the filter", next)
	}
	second, _ := audRows(parse(t, f.get(t, next)))
	if len(second) != 10 || second[0] >= first[len(first)-1] {
		t.Errorf("second page = %d rows starting at %v, want the 10 older rows", len(second), second)
	}
}

func TestAuditLogRefusesBadFilters(t *testing.T) {
	f := newFixture(t, false)
	tests := []struct{ query, want string }{
		{"since=yesterday", "invalid date"},
		{"until=2026-13-45", "invalid date"},
		{"since=2026-12-01&until=2026-11-01", "must come before"},
		{"action=Fact%20Update", "invalid action"},
		{"target_type=fact%3Bdrop", "invalid target type"},
		{"scope=Bad%20Scope", "invalid scope"},
		{"target_id=" + strings.Repeat("9", 101), "at most 100"},
		{"before=-1", "positive audit row id"},
	}
	for _, tt := range tests {
		t.Run(tt.query[:min(len(tt.query), 24)], func(t *testing.T) {
			rec := f.get(t, "/audit?"+tt.query)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("GET /audit?%s = %d, want 400", tt.query, rec.Code)
			}
			if msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text(); !strings.Contains(msg, tt.want) {
				t.Errorf("GET /audit?%s says %q, want %q", tt.query, msg, tt.want)
			}
		})
	}
}

func TestAuditLogEscapesMemoryText(t *testing.T) {
	f := newFixture(t, false)
	audChanges(t, f)
	body := f.get(t, "/audit").Body.String()
	if strings.Contains(body, "<script>alert(1)</script>") || strings.Contains(body, "<b>slower</b>") {
		t.Error("memory text rendered as markup in the audit log")
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the escaped script text is not on the page")
	}
}
