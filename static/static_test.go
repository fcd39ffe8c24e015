package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func mustNew(t *testing.T) *Assets {
	t.Helper()
	a, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

func embeddedText(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(embedded, name)
	if err != nil {
		t.Fatalf("read embedded %s: %v", name, err)
	}
	return string(b)
}

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestContentHash(t *testing.T) {
	a := contentHash([]byte("body { color: red }"))
	b := contentHash([]byte("body { color: blue }"))
	if a == b {
		t.Fatalf("different content gave the same hash %q", a)
	}
	if a != contentHash([]byte("body { color: red }")) {
		t.Fatal("hash is not deterministic")
	}
	for _, h := range []string{a, b} {
		if !isHash(h) {
			t.Errorf("hash %q is not %d lowercase hex characters", h, hashLen)
		}
	}
	sum := sha256.Sum256([]byte("body { color: red }"))
	if want := hex.EncodeToString(sum[:])[:10]; a != want {
		t.Errorf("contentHash = %q, want first 10 hex of sha256 %q", a, want)
	}
}

func TestHashedNameRoundTrip(t *testing.T) {
	const h = "0123456789"
	cases := []struct{ name, hashed string }{
		{"css/app.css", "css/app." + h + ".css"},
		{"js/htmx.min.js", "js/htmx.min." + h + ".js"},
		{"favicon.svg", "favicon." + h + ".svg"},
		{"js/HTMX-LICENSE", "js/HTMX-LICENSE." + h},
	}
	for _, c := range cases {
		if got := hashedName(c.name, h); got != c.hashed {
			t.Errorf("hashedName(%q) = %q, want %q", c.name, got, c.hashed)
		}
		name, hash, ok := splitHash(c.hashed)
		if !ok || name != c.name || hash != h {
			t.Errorf("splitHash(%q) = %q, %q, %v; want %q, %q, true", c.hashed, name, hash, ok, c.name, h)
		}
	}
	for _, p := range []string{"css/app.css", "css/app.v2.css", "css/app.0123456789abc.css", "css/app.ABCDEF0123.css", ".0123456789"} {
		if name, hash, ok := splitHash(p); ok {
			t.Errorf("splitHash(%q) = %q, %q, true; want no hash", p, name, hash)
		}
	}
}

func TestPathIsHashedFromContent(t *testing.T) {
	a := mustNew(t)
	for _, name := range []string{"css/app.css", "js/htmx.min.js", "favicon.svg"} {
		p := a.Path(name)
		want := Prefix + hashedName(name, contentHash([]byte(embeddedText(t, name))))
		if p != want {
			t.Errorf("Path(%q) = %q, want %q", name, p, want)
		}
	}
	re := regexp.MustCompile(`^/static/css/app\.[0-9a-f]{10}\.css$`)
	if p := a.Path("css/app.css"); !re.MatchString(p) {
		t.Errorf("Path(css/app.css) = %q, want match %s", p, re)
	}
}

func TestPathChangesWithContent(t *testing.T) {
	one, err := newAssets(fstest.MapFS{"css/app.css": {Data: []byte("a{color:red}")}})
	if err != nil {
		t.Fatal(err)
	}
	two, err := newAssets(fstest.MapFS{"css/app.css": {Data: []byte("a{color:blue}")}})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := one.Path("css/app.css"), two.Path("css/app.css")
	if p1 == p2 {
		t.Fatalf("same Path %q for different content", p1)
	}
	same, err := newAssets(fstest.MapFS{"css/app.css": {Data: []byte("a{color:red}")}})
	if err != nil {
		t.Fatal(err)
	}
	if p := same.Path("css/app.css"); p != p1 {
		t.Errorf("same content gave %q and %q", p1, p)
	}
}

func TestNewEmpty(t *testing.T) {
	if _, err := newAssets(fstest.MapFS{}); err == nil {
		t.Error("newAssets on an empty FS: want error")
	}
}

func TestPathUnknownPanics(t *testing.T) {
	a := mustNew(t)
	for _, name := range []string{"css/missing.css", "/static/css/app.css", "app.css", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Path(%q) did not panic", name)
				}
			}()
			a.Path(name)
		}()
	}
}

func TestNames(t *testing.T) {
	a := mustNew(t)
	got := strings.Join(a.Names(), " ")
	for _, want := range []string{"css/app.css", "favicon.svg", "js/HTMX-LICENSE", "js/htmx.min.js"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("Names() = %q, missing %q", got, want)
		}
	}
}

func TestHandlerServesHashedImmutable(t *testing.T) {
	a := mustNew(t)
	h := a.Handler()
	cases := []struct{ name, ctype string }{
		{"css/app.css", "text/css; charset=utf-8"},
		{"js/htmx.min.js", "text/javascript; charset=utf-8"},
		{"favicon.svg", "image/svg+xml"},
		{"js/HTMX-LICENSE", "text/plain; charset=utf-8"},
	}
	for _, c := range cases {
		rec := get(t, h, http.MethodGet, a.Path(c.name), nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: status %d", a.Path(c.name), rec.Code)
		}
		if got := rec.Header().Get("Content-Type"); got != c.ctype {
			t.Errorf("%s: Content-Type %q, want %q", c.name, got, c.ctype)
		}
		if got := rec.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q, want immutable", c.name, got)
		}
		if got, want := rec.Header().Get("ETag"), `"`+contentHash([]byte(embeddedText(t, c.name)))+`"`; got != want {
			t.Errorf("%s: ETag %q, want %q", c.name, got, want)
		}
		if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", c.name, got)
		}
		if rec.Body.String() != embeddedText(t, c.name) {
			t.Errorf("%s: body differs from the embedded file", c.name)
		}
	}
}

func TestHandlerUnhashedOrWrongHashRevalidates(t *testing.T) {
	a := mustNew(t)
	h := a.Handler()
	css := embeddedText(t, "css/app.css")
	wrong := "0000000000"
	if strings.Contains(a.Path("css/app.css"), wrong) {
		wrong = "ffffffffff"
	}
	for _, target := range []string{"/static/css/app.css", "/static/css/app." + wrong + ".css"} {
		rec := get(t, h, http.MethodGet, target, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: status %d", target, rec.Code)
		}
		if got := rec.Header().Get("Cache-Control"); got != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", target, got)
		}
		if got := rec.Header().Get("Content-Type"); got != "text/css; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", target, got)
		}
		if rec.Body.String() != css {
			t.Errorf("GET %s: body differs from app.css", target)
		}
	}
}

func TestHandlerNotFound(t *testing.T) {
	a := mustNew(t)
	h := a.Handler()
	for _, target := range []string{
		"/static/css/missing.css",
		"/static/css/missing.0123456789.css",
		"/static/css/",
		"/static/css",
		"/static/",
		"/static/static.go",
		"/static/../static/static.go",
		"/css/app.css",
		"/favicon.svg",
	} {
		if rec := get(t, h, http.MethodGet, target, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", target, rec.Code)
		}
	}
}

func TestHandlerHead(t *testing.T) {
	a := mustNew(t)
	rec := get(t, a.Handler(), http.MethodHead, a.Path("js/htmx.min.js"), nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("HEAD: status %d", rec.Code)
	}
	if rec.Body.Len() != 0 {
		t.Errorf("HEAD: body of %d bytes, want none", rec.Body.Len())
	}
	if got := rec.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
		t.Errorf("HEAD: Cache-Control %q", got)
	}
	if rec.Header().Get("Content-Length") == "" {
		t.Error("HEAD: no Content-Length")
	}
}

func TestHandlerConditionalAndMethods(t *testing.T) {
	a := mustNew(t)
	h := a.Handler()
	p := a.Path("css/app.css")
	etag := get(t, h, http.MethodGet, p, nil).Header().Get("ETag")
	rec := get(t, h, http.MethodGet, p, map[string]string{"If-None-Match": etag})
	if rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", rec.Code)
	}
	rec = get(t, h, http.MethodPost, p, nil)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", rec.Code)
	}
	if got := rec.Header().Get("Allow"); got != "GET, HEAD" {
		t.Errorf("POST: Allow %q", got)
	}
}

func TestHandlerOnMux(t *testing.T) {
	a := mustNew(t)
	mux := http.NewServeMux()
	mux.Handle("GET "+Prefix, a.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + a.Path("favicon.svg"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "<svg") {
		t.Errorf("favicon through mux: status %d, body %.40q", res.StatusCode, body)
	}
}

func TestHtmxVendored(t *testing.T) {
	js := embeddedText(t, "js/htmx.min.js")
	if !strings.Contains(js, `version:"2.0.`) {
		t.Error(`htmx.min.js does not declare version:"2.0.x"`)
	}
	if !strings.Contains(js, "2.0.") {
		t.Error("htmx.min.js does not contain 2.0.")
	}
	if lic := embeddedText(t, "js/HTMX-LICENSE"); !strings.Contains(lic, "Zero-Clause BSD") {
		t.Error("HTMX-LICENSE does not hold htmx's 0BSD licence")
	}
}

// TestStylesheet guards the contract the page templates are written against.
func TestStylesheet(t *testing.T) {
	css := embeddedText(t, "css/app.css")
	if !strings.Contains(css, "prefers-color-scheme: dark") {
		t.Error("app.css has no dark theme (prefers-color-scheme: dark)")
	}
	if !strings.Contains(css, "prefers-reduced-motion") {
		t.Error("app.css ignores prefers-reduced-motion")
	}
	for _, bad := range []string{"@import", "url(http", "@font-face"} {
		if strings.Contains(css, bad) {
			t.Errorf("app.css contains %q: no external resources or web fonts", bad)
		}
	}
	for _, sel := range []string{
		".topbar", ".nav", ".user-menu", ".main", ".page-head",
		".filter-bar", "table.data", ".table-wrap", ".num", ".clip",
		".badge", ".d-permanent", ".d-long_term", ".d-short_term", ".d-ephemeral",
		".m-durable", ".m-transient", ".m-expired", ".s-active", ".s-archived", ".cat",
		".btn", ".btn-primary", ".btn-danger", ".btn-small",
		".field", ".field-error", ".help", `input[aria-invalid="true"]`,
		".flash", ".flash-ok", ".flash-error", ".pager", ".panel",
		"table.matrix", ".zero", ".empty", "kbd", ":focus-visible",
		".skip-link", ".visually-hidden", ".muted", ".mono", ".htmx-indicator",
	} {
		if !strings.Contains(css, sel) {
			t.Errorf("app.css does not define %s", sel)
		}
	}
	// Cheap syntax check: braces balance outside comments and strings.
	depth := 0
	for i := 0; i < len(css); i++ {
		switch c := css[i]; {
		case c == '/' && i+1 < len(css) && css[i+1] == '*':
			end := strings.Index(css[i+2:], "*/")
			if end < 0 {
				t.Fatal("app.css: unterminated comment")
			}
			i += end + 3
		case c == '"' || c == '\'':
			end := strings.IndexByte(css[i+1:], c)
			if end < 0 {
				t.Fatal("app.css: unterminated string")
			}
			i += end + 1
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth < 0 {
				t.Fatalf("app.css: unbalanced } at byte %d", i)
			}
		}
	}
	if depth != 0 {
		t.Errorf("app.css: %d unclosed {", depth)
	}
}
