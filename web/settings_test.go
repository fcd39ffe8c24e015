package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// settingsFixture is a server whose extraction is configured by set.
func settingsFixture(t *testing.T, set *extract.Set) fixture {
	t.Helper()
	pool := pgtest.NewPool(t)
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{
		Pool: pool, Assets: assets, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Extract: set,
	})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{pool: pool, server: srv}
}

func TestSettingsWithoutLLM(t *testing.T) {
	f := settingsFixture(t, nil)
	rec := f.login(t, "viewer").get(t, "/settings")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /settings = %d, want 200; body %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	doc := parse(t, rec)
	field := func(id string) string {
		return strings.Join(strings.Fields(doc.Find(`[data-testid="`+id+`"]`).Text()), " ")
	}
	if got := field("default-mode"); !strings.HasPrefix(got, "rules") {
		t.Errorf("default mode = %q, want rules", got)
	}
	if got := field("llm-url"); !strings.Contains(got, "not configured") || !strings.Contains(got, "TENURE_LLM_URL") {
		t.Errorf("LLM endpoint = %q, want not configured and how to configure it", got)
	}
	if got := field("llm-model"); got != "not configured" {
		t.Errorf("LLM model = %q", got)
	}
	if got := field("llm-key-set"); got != "no" {
		t.Errorf("key set = %q, want no", got)
	}
	if got := field("prompt-version"); got != extract.PromptVersion {
		t.Errorf("prompt version = %q, want %q", got, extract.PromptVersion)
	}
	// The prompt is shown whole, as text: its <<< and quotes are escaped.
	if got := doc.Find(`pre[data-testid="prompt-text"]`).Text(); got != extract.Prompt() {
		t.Errorf("the prompt shown differs from the embedded one:\n%q", got)
	}
	if !strings.Contains(body, "between &lt;&lt;&lt; and &gt;&gt;&gt;") || strings.Contains(body, "between <<< and >>>") {
		t.Errorf("the prompt is not escaped")
	}
	if doc.Find("h1").Length() != 1 || !strings.Contains(doc.Find("title").Text(), "Settings") {
		t.Errorf("want one h1 and a title naming the page")
	}
	if strings.TrimSpace(doc.Find(`a[aria-current="page"]`).Text()) != "Settings" {
		t.Errorf("the nav does not mark Settings as the current page")
	}
	if doc.Find("form").Length() > 1 || doc.Find(`button[type="submit"]:not(form[action="/logout"] button)`).Length() > 0 {
		t.Errorf("the settings page offers edits; it is read-only")
	}
}

func TestSettingsWithLLM(t *testing.T) {
	set, err := extract.NewSet(extract.Config{URL: "https://proxy:hunter2@llm.example.com/v1", Model: "gpt-4o-mini",
		Key: "sk-very-secret", Timeout: 45 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f := settingsFixture(t, set)
	rec := f.login(t, "viewer").get(t, "/settings")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /settings = %d", rec.Code)
	}
	body := rec.Body.String()
	doc := parse(t, rec)
	field := func(id string) string {
		return strings.TrimSpace(doc.Find(`[data-testid="` + id + `"]`).Text())
	}
	if got := field("llm-url"); !strings.Contains(got, "llm.example.com/v1") {
		t.Errorf("LLM endpoint = %q", got)
	}
	if got := field("llm-model"); got != "gpt-4o-mini" {
		t.Errorf("LLM model = %q", got)
	}
	if got := field("llm-key-set"); got != "yes" {
		t.Errorf("key set = %q, want yes", got)
	}
	if got := field("llm-timeout"); got != "45s" {
		t.Errorf("timeout = %q", got)
	}
	if strings.Contains(body, "sk-very-secret") || strings.Contains(body, "hunter2") {
		t.Errorf("the settings page shows a secret")
	}
}

func TestSettingsAccess(t *testing.T) {
	f := settingsFixture(t, nil)
	rec := newClient(f).get(t, "/settings")
	if rec.Code != http.StatusSeeOther && rec.Code != http.StatusFound {
		t.Errorf("GET /settings signed out = %d, want a redirect to the login page", rec.Code)
	}
	rec = f.login(t, "admin").get(t, "/settings", "HX-Request", "true")
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "<html") ||
		!strings.Contains(rec.Body.String(), `data-testid="extraction-settings"`) {
		t.Errorf("htmx GET /settings = %d, want the fragment without the layout", rec.Code)
	}
	if !strings.Contains(rec.Header().Get("Vary"), "HX-Request") {
		t.Errorf("Vary = %q, want HX-Request", rec.Header().Get("Vary"))
	}
}
