package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

type fixture struct {
	pool   *pgxpool.Pool
	server *server.Server
	// signedIn is a reviewer's session, used by get and post.
	signedIn *client
}

func newFixture(t *testing.T, withDemo bool) fixture {
	t.Helper()
	pool := pgtest.NewPool(t)
	if withDemo {
		if _, err := demo.Load(context.Background(), pool, now); err != nil {
			t.Fatal(err)
		}
	}
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{
		Pool: pool, Assets: assets, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{pool: pool, server: srv}
	f.signedIn = f.login(t, "reviewer")
	return f
}

func (f fixture) get(t *testing.T, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return f.signedIn.get(t, target, header...)
}

// dbInt runs a query returning one integer, such as a count.
func dbInt(t *testing.T, f fixture, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// dbIDs runs a query returning ids.
func dbIDs(t *testing.T, f fixture, query string, args ...any) []int64 {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// follow checks that rec is a 303 and follows it, returning where it led,
// the page there and its flash message.
func follow(t *testing.T, c *client, rec *httptest.ResponseRecorder) (string, *goquery.Document, string) {
	t.Helper()
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("POST answered %d, want 303; body: %.400s", rec.Code, rec.Body)
	}
	loc := rec.Header().Get("Location")
	next := c.get(t, loc)
	if next.Code != http.StatusOK {
		t.Fatalf("GET %s after the redirect = %d", loc, next.Code)
	}
	doc := parse(t, next)
	return loc, doc, strings.TrimSpace(doc.Find(`[data-testid="flash"]`).Text())
}

func parse(t *testing.T, rec *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

type row struct {
	id                   int64
	durability, category string
}

func rows(t *testing.T, doc *goquery.Document) []row {
	t.Helper()
	var out []row
	doc.Find(`[data-testid="fact-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, err := strconv.ParseInt(s.AttrOr("data-fact-id", ""), 10, 64)
		if err != nil {
			t.Errorf("fact row without a numeric data-fact-id: %v", err)
		}
		out = append(out, row{
			id:         id,
			durability: strings.TrimSpace(s.Find(`[data-testid="durability"]`).Text()),
			category:   strings.TrimSpace(s.Find(`[data-testid="category"]`).Text()),
		})
	})
	return out
}

func TestFactsPageListsDemoFactsNewestFirst(t *testing.T) {
	f := newFixture(t, true)
	rec := f.get(t, "/facts")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /facts = %d, want 200; body: %s", rec.Code, rec.Body)
	}
	doc := parse(t, rec)
	got := rows(t, doc)
	if len(got) != 50 {
		t.Fatalf("GET /facts shows %d facts, want a full page of 50", len(got))
	}
	for i, r := range got {
		if r.durability == "" || r.category == "" {
			t.Errorf("row %d (fact %d) shows durability %q, category %q; want both", i, r.id, r.durability, r.category)
		}
		if i > 0 && r.id >= got[i-1].id {
			t.Errorf("row %d: fact %d after fact %d, want newest (highest id) first", i, r.id, got[i-1].id)
		}
	}
	var newest int64
	if err := f.pool.QueryRow(context.Background(), `SELECT max(id) FROM entity_facts WHERE status = 'active'`).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	if got[0].id != newest {
		t.Errorf("first row is fact %d, want the newest active fact %d", got[0].id, newest)
	}
	if title := doc.Find("title").Text(); !strings.Contains(title, "Facts") {
		t.Errorf("title = %q, want it to name the page", title)
	}

	next, ok := doc.Find(`[data-testid="next-page"]`).Attr("href")
	if !ok {
		t.Fatal("no link to the next page")
	}
	older := rows(t, parse(t, f.get(t, next)))
	if len(older) == 0 || older[0].id >= got[len(got)-1].id {
		t.Errorf("next page starts at fact %v, want facts older than %d", older, got[len(got)-1].id)
	}
}

func TestFactsPageFilters(t *testing.T) {
	f := newFixture(t, true)
	tests := []struct {
		query      string
		durability string
		category   string
	}{
		{"durability=permanent", "permanent", ""},
		{"durability=long_term", "long-term", ""},
		{"durability=short_term", "short-term", ""},
		{"durability=ephemeral", "ephemeral", ""},
		{"category=mood", "", "mood"},
		{"category=decision", "", "decision"},
		{"durability=ephemeral&category=mood", "ephemeral", "mood"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rec := f.get(t, "/facts?"+tt.query)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET /facts?%s = %d", tt.query, rec.Code)
			}
			got := rows(t, parse(t, rec))
			if len(got) == 0 {
				t.Fatalf("GET /facts?%s shows no facts; the demo has some", tt.query)
			}
			for _, r := range got {
				if tt.durability != "" && r.durability != tt.durability {
					t.Errorf("fact %d durability = %s, want %s", r.id, r.durability, tt.durability)
				}
				if tt.category != "" && r.category != tt.category {
					t.Errorf("fact %d category = %s, want %s", r.id, r.category, tt.category)
				}
			}
		})
	}

	t.Run("filter kept in the form", func(t *testing.T) {
		doc := parse(t, f.get(t, "/facts?durability=ephemeral&category=mood"))
		if v := doc.Find(`[data-testid="filter-durability"] option[selected]`).AttrOr("value", ""); v != "ephemeral" {
			t.Errorf("selected durability = %q, want ephemeral", v)
		}
		if v := doc.Find(`[data-testid="filter-category"] option[selected]`).AttrOr("value", ""); v != "mood" {
			t.Errorf("selected category = %q, want mood", v)
		}
	})

	t.Run("archived", func(t *testing.T) {
		doc := parse(t, f.get(t, "/facts?status=archived"))
		statuses := doc.Find(`[data-testid="fact-row"] [data-testid="status"]`)
		if statuses.Length() == 0 || statuses.Length() != doc.Find(`[data-testid="fact-row"]`).Length() {
			t.Errorf("status=archived: %d rows marked archived of %d", statuses.Length(), doc.Find(`[data-testid="fact-row"]`).Length())
		}
	})

	t.Run("text search", func(t *testing.T) {
		got := parse(t, f.get(t, "/facts?q=penicillin"))
		contents := got.Find(`[data-testid="fact-content"]`)
		if contents.Length() != 1 || !strings.Contains(contents.Text(), "penicillin") {
			t.Errorf("q=penicillin: %d rows (%q), want the one allergy fact", contents.Length(), contents.Text())
		}
	})

	t.Run("no match", func(t *testing.T) {
		doc := parse(t, f.get(t, "/facts?category=nonexistent"))
		if doc.Find(`[data-testid="facts-empty"]`).Length() != 1 {
			t.Error("an empty result shows no empty-state message")
		}
	})
}

func TestFactsPageRefusesBadFilters(t *testing.T) {
	f := newFixture(t, false)
	tests := []struct{ query, want string }{
		{"durability=forever", "allowed values are permanent, long_term, short_term, ephemeral"},
		{"category=Not%20A%20Slug", "lowercase slug"},
		{"status=deleted", "allowed values are active, archived, all"},
		{"scope=Bad%20Scope", "invalid scope"},
		{"before=-3", "positive fact id"},
		{"q=" + strings.Repeat("x", 201), "at most 200"},
	}
	for _, tt := range tests {
		t.Run(tt.query[:min(len(tt.query), 20)], func(t *testing.T) {
			rec := f.get(t, "/facts?"+tt.query)
			if rec.Code != http.StatusBadRequest {
				t.Errorf("GET /facts?%s = %d, want 400", tt.query, rec.Code)
			}
			msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("GET /facts?%s message = %q, want it to contain %q", tt.query, msg, tt.want)
			}
		})
	}
}

func TestFactsPageHTMXFragment(t *testing.T) {
	f := newFixture(t, true)
	rec := f.get(t, "/facts?durability=ephemeral", "HX-Request", "true")
	if rec.Code != http.StatusOK {
		t.Fatalf("htmx GET = %d", rec.Code)
	}
	body := rec.Body.String()
	if strings.Contains(body, "<html") || !strings.Contains(body, `id="facts-results"`) {
		t.Errorf("htmx response is not the results fragment: %.200s", body)
	}
	if !strings.Contains(rec.Header().Get("Vary"), "HX-Request") {
		t.Errorf("Vary = %q, want HX-Request", rec.Header().Get("Vary"))
	}
}

func TestFactContentIsEscaped(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	var entity int64
	if err := f.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ('x', '<b>Eve</b>') RETURNING id`).Scan(&entity); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content) VALUES ('x', $1, '<script>alert(1)</script>')`, entity); err != nil {
		t.Fatal(err)
	}
	rec := f.get(t, "/facts")
	body := rec.Body.String()
	if strings.Contains(body, "<script>alert(1)</script>") || strings.Contains(body, "<b>Eve</b>") {
		t.Error("memory text rendered as markup")
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("escaped script text not found in the page")
	}
}

func TestHealth(t *testing.T) {
	f := newFixture(t, false)
	for _, path := range []string{"/healthz", "/readyz"} {
		if rec := f.get(t, path); rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", path, rec.Code)
		}
	}
	f.pool.Close()
	rec := f.get(t, "/readyz")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "unreachable") {
		t.Errorf("GET /readyz with the database gone = %d %s, want 503 naming the database", rec.Code, rec.Body)
	}
	if rec := f.get(t, "/healthz"); rec.Code != http.StatusOK {
		t.Errorf("GET /healthz with the database gone = %d, want 200 (liveness ignores the database)", rec.Code)
	}
}

func TestStaticAndErrors(t *testing.T) {
	f := newFixture(t, false)
	doc := parse(t, f.get(t, "/facts"))
	css, ok := doc.Find(`link[rel="stylesheet"]`).Attr("href")
	if !ok {
		t.Fatal("page links no stylesheet")
	}
	rec := f.get(t, css)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
		t.Errorf("GET %s = %d, Cache-Control %q; want 200 and immutable", css, rec.Code, rec.Header().Get("Cache-Control"))
	}
	rec = f.get(t, "/no/such/page")
	if rec.Code != http.StatusNotFound || parse(t, rec).Find(`[data-testid="error-page"]`).Length() != 1 {
		t.Errorf("GET /no/such/page = %d, want 404 with the error page", rec.Code)
	}
}

// TestAgentEndpointsMounted: the console's server also serves the JSON API
// and the MCP server, each behind its own bearer tokens, not sessions.
func TestAgentEndpointsMounted(t *testing.T) {
	f := newFixture(t, false)
	anon := newClient(f)
	if rec := anon.get(t, "/api/openapi.json"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"openapi"`) {
		t.Errorf("GET /api/openapi.json = %d", rec.Code)
	}
	rec := anon.get(t, "/api/v1/scopes/acme/facts")
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"error"`) {
		t.Errorf("API without a token = %d %s, want 401 with the JSON error shape", rec.Code, rec.Body)
	}
	// A signed-in session is not an API credential.
	if rec := f.get(t, "/api/v1/scopes/acme/facts"); rec.Code != http.StatusUnauthorized {
		t.Errorf("API with a console session only = %d, want 401", rec.Code)
	}
	if rec := anon.post(t, "/mcp", nil); rec.Code != http.StatusUnauthorized {
		t.Errorf("POST /mcp without a token = %d, want 401", rec.Code)
	}
}

// TestExtractionModesThroughTheServer: without an LLM configured, the API's
// llm mode is a clear 400 and the rules mode answers.
func TestExtractionModesThroughTheServer(t *testing.T) {
	f := newFixture(t, false)
	token, _, err := auth.SeedToken(context.Background(), f.pool, auth.NewToken{Name: "bot", Scope: "acme", Role: auth.TokenWriter}, now)
	if err != nil {
		t.Fatal(err)
	}
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/scopes/acme/extract", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		f.server.ServeHTTP(rec, req)
		return rec
	}
	rec := post(`{"text": "Priya is feeling stressed today.", "mode": "llm"}`)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "TENURE_LLM_URL") {
		t.Errorf("mode llm without an LLM = %d %s, want 400 saying how to configure one", rec.Code, rec.Body)
	}
	rec = post(`{"text": "Priya is feeling stressed today.", "mode": "rules"}`)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"mood"`) {
		t.Errorf("mode rules = %d %s, want a mood candidate", rec.Code, rec.Body)
	}
}

func TestFactsPageOffersEveryScope(t *testing.T) {
	f := newFixture(t, true)
	if _, err := f.pool.Exec(context.Background(), `INSERT INTO memory_nodes (scope, content) VALUES ('only-working', 'x')`); err != nil {
		t.Fatal(err)
	}
	var got []string
	parse(t, f.get(t, "/facts")).Find(`#filter-scope option`).Each(func(_ int, s *goquery.Selection) {
		if v := s.AttrOr("value", ""); v != "" {
			got = append(got, v)
		}
	})
	want := "acme-support only-working personal-assistant platform-ops"
	if strings.Join(got, " ") != want {
		t.Errorf("scope options = %v, want %s (scopes of entities and of working rows, sorted)", got, want)
	}
}
