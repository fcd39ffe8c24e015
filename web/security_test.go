package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newConfiguredFixture is newFixture (without demo data) for a server built
// from cfg, on a clock the test moves.
func newConfiguredFixture(t *testing.T, cfg server.Config) (fixture, *testClock) {
	t.Helper()
	pool := pgtest.NewPool(t)
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{t: now}
	cfg.Pool, cfg.Assets, cfg.Now = pool, assets, clock.Now
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{pool: pool, server: srv}
	f.signedIn = f.login(t, "reviewer")
	return f, clock
}

// tryLogin fetches the sign-in form and posts it from addr (host:port).
func tryLogin(t *testing.T, c *client, addr, email, password string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	c.get(t, "/login")
	form := url.Values{"email": {email}, "password": {password}, "_csrf": {c.csrf}}
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = addr
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.do(t, req)
}

// TestLoginNextStaysOnSite: the next address after sign-in, from the query
// or the form, never leads off site, however a browser would read it.
func TestLoginNextStaysOnSite(t *testing.T) {
	f := newFixture(t, false)
	for _, next := range []string{"/%09/evil.example", "/%5Cevil.example", "//evil.example", "/%2F%2Fevil.example",
		"https:evil.example", "javascript:alert(1)", "/facts%0D%0ALocation:%20//evil.example"} {
		rec := f.get(t, "/login?next="+next)
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != "/" {
			t.Errorf("signed in, GET /login?next=%s = %d to %q, want 303 to /", next, rec.Code, loc)
		}
		raw, _ := url.QueryUnescape(next)
		anon := newClient(f)
		anon.get(t, "/login")
		rec = anon.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}, "next": {raw}})
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != "/" {
			t.Errorf("POST /login with next %q = %d to %q, want 303 to /", raw, rec.Code, loc)
		}
	}
	rec := f.get(t, "/login?next=%2Ffacts%3Fx%3D1")
	if loc := rec.Header().Get("Location"); loc != "/facts?x=1" {
		t.Errorf("signed in, GET /login?next=/facts?x=1 went to %q, want /facts?x=1", loc)
	}
}

// TestLoginThrottlePerAccount: after five failures the account is answered
// 429 with Retry-After, even with the right password, for a delay that
// doubles with each further failure; a success clears the count.
func TestLoginThrottlePerAccount(t *testing.T) {
	f, clock := newConfiguredFixture(t, server.Config{})
	c := newClient(f)
	const addr = "198.51.100.7:4000"
	for i := range 5 {
		if rec := tryLogin(t, c, addr, "reviewer@example.com", "wrong password!!"); rec.Code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d = %d, want 401", i+1, rec.Code)
		}
	}
	rec := tryLogin(t, c, addr, "Reviewer@Example.com", "a long enough secret")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("sign-in after 5 failures = %d, Retry-After %q; want 429 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	msg := parse(t, rec).Find(`[data-testid="login-error"]`).Text()
	if !strings.Contains(msg, "Too many failed sign-ins") || !strings.Contains(msg, "try again in 1 second") {
		t.Errorf("throttled sign-in message = %q, want it to say when to try again", msg)
	}
	if _, ok := c.cookies["tenure_session"]; ok {
		t.Fatal("a throttled sign-in opened a session")
	}
	// The delay doubles with each further failure.
	for _, want := range []string{"2", "4", "8"} {
		clock.Add(time.Minute)
		if rec := tryLogin(t, c, addr, "reviewer@example.com", "wrong password!!"); rec.Code != http.StatusUnauthorized {
			t.Fatalf("wrong password once the delay passed = %d, want 401", rec.Code)
		}
		rec := tryLogin(t, c, addr, "reviewer@example.com", "wrong password!!")
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != want {
			t.Errorf("Retry-After = %q (%d), want %s", rec.Header().Get("Retry-After"), rec.Code, want)
		}
	}
	// Another account from another address is not affected.
	if rec := tryLogin(t, newClient(f), "198.51.100.8:4000", "other@example.com", "wrong password!!"); rec.Code != http.StatusUnauthorized {
		t.Errorf("another account = %d, want 401", rec.Code)
	}
	clock.Add(time.Minute)
	if rec := tryLogin(t, c, addr, "reviewer@example.com", "a long enough secret"); rec.Code != http.StatusSeeOther {
		t.Fatalf("right password once the delay passed = %d, want 303", rec.Code)
	}
	// The success cleared the account's count: five failures are free again.
	c2 := newClient(f)
	for i := range 5 {
		if rec := tryLogin(t, c2, "198.51.100.9:4000", "reviewer@example.com", "wrong password!!"); rec.Code != http.StatusUnauthorized {
			t.Fatalf("after a success, wrong password %d = %d, want 401", i+1, rec.Code)
		}
	}
	if rec := tryLogin(t, c2, "198.51.100.9:4000", "reviewer@example.com", "wrong password!!"); rec.Code != http.StatusTooManyRequests {
		t.Errorf("sixth failure after the reset = %d, want 429", rec.Code)
	}
}

// TestLoginThrottlePerAddress: one address guessing across many accounts is
// throttled after twenty failures, whatever the account; other addresses
// are not.
func TestLoginThrottlePerAddress(t *testing.T) {
	f, clock := newConfiguredFixture(t, server.Config{})
	c := newClient(f)
	const addr = "203.0.113.50:5000"
	for i := range 20 {
		if rec := tryLogin(t, c, addr, fmt.Sprintf("user%d@example.com", i), "wrong password!!"); rec.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d = %d, want 401", i+1, rec.Code)
		}
	}
	rec := tryLogin(t, c, addr, "reviewer@example.com", "a long enough secret")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("21st sign-in from the address = %d, Retry-After %q; want 429 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := tryLogin(t, newClient(f), "203.0.113.51:5000", "reviewer@example.com", "a long enough secret"); rec.Code != http.StatusSeeOther {
		t.Errorf("sign-in from another address = %d, want 303", rec.Code)
	}
	clock.Add(time.Second)
	if rec := tryLogin(t, c, addr, "reviewer@example.com", "a long enough secret"); rec.Code != http.StatusSeeOther {
		t.Errorf("sign-in from the address once the delay passed = %d, want 303", rec.Code)
	}
	// A success does not clear the address: its next failure waits longer.
	tryLogin(t, newClient(f), addr, "user0@example.com", "wrong password!!")
	if rec := tryLogin(t, newClient(f), addr, "user1@example.com", "wrong password!!"); rec.Header().Get("Retry-After") != "2" {
		t.Errorf("after a success and a failure from the address: %d, Retry-After %q; want 429 and 2", rec.Code, rec.Header().Get("Retry-After"))
	}
}

// TestConcurrentLoginsBoundHashing: 32 sign-ins at once are all answered,
// and no more than auth.MaxConcurrentHashes run argon2id at a time.
func TestConcurrentLoginsBoundHashing(t *testing.T) {
	f, _ := newConfiguredFixture(t, server.Config{})
	concurrentLogins(t, f, 32, func() {})
}

// concurrentLogins signs n people in at once, every other one with a wrong
// password, each from its own address, and checks every answer and the
// hashing bound. ready is called just before the sign-ins start.
func concurrentLogins(t *testing.T, f fixture, n int, ready func()) {
	t.Helper()
	hash, err := auth.HashPassword("a long enough secret")
	if err != nil {
		t.Fatal(err)
	}
	clients := make([]*client, n)
	for i := range n {
		if _, err := f.pool.Exec(context.Background(), `INSERT INTO users (email, role, password_hash) VALUES ($1, 'viewer', $2)`,
			fmt.Sprintf("crowd%d@example.com", i), hash); err != nil {
			t.Fatal(err)
		}
		clients[i] = newClient(f)
		clients[i].get(t, "/login")
	}
	auth.ResetHashingPeak()
	ready()
	codes := make([]int, n)
	start := time.Now()
	var slowest atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			defer func() {
				took := int64(time.Since(start))
				for old := slowest.Load(); took > old && !slowest.CompareAndSwap(old, took); old = slowest.Load() {
				}
			}()
			password := "a long enough secret"
			if i%2 == 1 {
				password = "wrong password!!"
			}
			form := url.Values{"email": {fmt.Sprintf("crowd%d@example.com", i)}, "password": {password}, "_csrf": {clients[i].csrf}}
			req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.RemoteAddr = fmt.Sprintf("198.18.0.%d:1000", i+1)
			codes[i] = clients[i].do(t, req).Code
		})
	}
	wg.Wait()
	for i, code := range codes {
		want := http.StatusSeeOther
		if i%2 == 1 {
			want = http.StatusUnauthorized
		}
		if code != want {
			t.Errorf("sign-in %d = %d, want %d", i, code, want)
		}
	}
	running, peak := auth.HashingStats()
	if running != 0 || peak < 1 || peak > auth.MaxConcurrentHashes {
		t.Errorf("argon2id: %d running after, at most %d at once; want 0 after and 1 to %d at once", running, peak, auth.MaxConcurrentHashes)
	}
	t.Logf("%d concurrent sign-ins: at most %d argon2id computations at once; slowest answer %s",
		n, peak, time.Duration(slowest.Load()).Round(time.Millisecond))
}

// TestClientAddress: X-Forwarded-For and X-Real-IP are ignored unless the
// connection comes from a trusted proxy; then X-Forwarded-For gives the
// nearest untrusted address.
func TestClientAddress(t *testing.T) {
	_, trusted, _ := net.ParseCIDR("10.0.0.0/8")
	tests := []struct {
		name    string
		proxies []*net.IPNet
		remote  string
		header  []string
		want    string
	}{
		{"no proxies, spoofed XFF", nil, "198.51.100.1:1", []string{"X-Forwarded-For", "203.0.113.9"}, "198.51.100.1"},
		{"no proxies, spoofed X-Real-IP", nil, "198.51.100.1:1", []string{"X-Real-IP", "203.0.113.9"}, "198.51.100.1"},
		{"no proxies, private peer", nil, "10.1.2.3:1", []string{"X-Forwarded-For", "203.0.113.9"}, "10.1.2.3"},
		{"trusted proxy", []*net.IPNet{trusted}, "10.1.2.3:1", []string{"X-Forwarded-For", "203.0.113.9"}, "203.0.113.9"},
		{"trusted proxy, client's own XFF entry ignored", []*net.IPNet{trusted}, "10.1.2.3:1",
			[]string{"X-Forwarded-For", "1.2.3.4, 203.0.113.9, 10.9.9.9"}, "203.0.113.9"},
		{"trusted proxies, X-Real-IP ignored", []*net.IPNet{trusted}, "10.1.2.3:1", []string{"X-Real-IP", "203.0.113.9"}, "10.1.2.3"},
		{"untrusted peer with proxies configured", []*net.IPNet{trusted}, "198.51.100.1:1",
			[]string{"X-Forwarded-For", "203.0.113.9"}, "198.51.100.1"},
		{"loopback is not trusted unless configured", []*net.IPNet{trusted}, "127.0.0.1:1",
			[]string{"X-Forwarded-For", "203.0.113.9"}, "127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newConfiguredFixture(t, server.Config{TrustedProxies: tt.proxies})
			if _, err := f.pool.Exec(context.Background(), `DELETE FROM sessions`); err != nil {
				t.Fatal(err)
			}
			if rec := tryLogin(t, newClient(f), tt.remote, "reviewer@example.com", "a long enough secret", tt.header...); rec.Code != http.StatusSeeOther {
				t.Fatalf("sign in = %d", rec.Code)
			}
			var ip string
			if err := f.pool.QueryRow(context.Background(), `SELECT ip FROM sessions`).Scan(&ip); err != nil {
				t.Fatal(err)
			}
			if ip != tt.want {
				t.Errorf("session ip = %q, want %q", ip, tt.want)
			}
		})
	}
}

// TestSecureCookies: cookies are Secure when the public URL is https or the
// request came over TLS, never because of a client's header.
func TestSecureCookies(t *testing.T) {
	for _, tt := range []struct {
		name, publicURL string
		tls             bool
		header          []string
		want            bool
	}{
		{"plain", "", false, nil, false},
		{"spoofed X-Forwarded-Proto", "", false, []string{"X-Forwarded-Proto", "https"}, false},
		{"http public URL", "http://tenure.example.com", false, []string{"X-Forwarded-Proto", "https"}, false},
		{"https public URL", "https://tenure.example.com", false, nil, true},
		{"TLS", "", true, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newConfiguredFixture(t, server.Config{PublicURL: tt.publicURL})
			req := httptest.NewRequest(http.MethodGet, "/login", nil)
			if tt.tls {
				req = httptest.NewRequest(http.MethodGet, "https://tenure.example.com/login", nil)
			}
			for i := 0; i+1 < len(tt.header); i += 2 {
				req.Header.Set(tt.header[i], tt.header[i+1])
			}
			rec := httptest.NewRecorder()
			f.server.ServeHTTP(rec, req)
			cookies := rec.Result().Cookies()
			if len(cookies) == 0 {
				t.Fatal("GET /login set no cookie")
			}
			for _, ck := range cookies {
				if ck.Secure != tt.want {
					t.Errorf("cookie %s Secure = %t, want %t", ck.Name, ck.Secure, tt.want)
				}
			}
		})
	}
	for _, bad := range []string{"tenure.example.com", "ftp://tenure.example.com", "https://"} {
		if _, err := server.New(server.Config{PublicURL: bad}); err == nil || !strings.Contains(err.Error(), "public URL") {
			t.Errorf("server.New(PublicURL %q) = %v, want an error naming the public URL", bad, err)
		}
	}
}

// TestSessionCookieLifetime: the session cookie lasts as long as a session
// can at most; the server ends it earlier when unused.
func TestSessionCookieLifetime(t *testing.T) {
	f := newFixture(t, false)
	c := newClient(f)
	tryLogin(t, c, "192.0.2.1:1234", "reviewer@example.com", "a long enough secret")
	ck := c.cookies["tenure_session"]
	if ck == nil || time.Duration(ck.MaxAge)*time.Second != auth.SessionMaxAge {
		t.Errorf("session cookie = %+v, want Max-Age %s", ck, auth.SessionMaxAge)
	}
}

// TestNoStoreWhenSignedIn: every answer to a signed-in person, pages and
// redirects alike, and the sign-in exchange, carry Cache-Control: no-store;
// static assets keep their long cache.
func TestNoStoreWhenSignedIn(t *testing.T) {
	f := newFixture(t, false)
	for _, tt := range []struct {
		name string
		rec  *httptest.ResponseRecorder
		code int
	}{
		{"page", f.get(t, "/facts"), http.StatusOK},
		{"htmx fragment", f.get(t, "/facts", "HX-Request", "true"), http.StatusOK},
		{"redirect", f.get(t, "/login?next=/facts"), http.StatusSeeOther},
		{"error page", f.get(t, "/no/such/page"), http.StatusNotFound},
		{"form redirect", f.signedIn.post(t, "/facts/bulk", url.Values{"action": {"archive"}}), http.StatusSeeOther},
		{"sign-in form", newClient(f).get(t, "/login"), http.StatusOK},
	} {
		if tt.rec.Code != tt.code || tt.rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d, Cache-Control %q; want %d and no-store", tt.name, tt.rec.Code, tt.rec.Header().Get("Cache-Control"), tt.code)
		}
	}
	anon := newClient(f)
	anon.get(t, "/login")
	rec := anon.post(t, "/login", url.Values{"email": {"reviewer@example.com"}, "password": {"a long enough secret"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("sign-in redirect: %d, Cache-Control %q; want 303 and no-store", rec.Code, rec.Header().Get("Cache-Control"))
	}
	css, _ := parse(t, f.get(t, "/facts")).Find(`link[rel="stylesheet"]`).Attr("href")
	if cc := f.get(t, css).Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("stylesheet Cache-Control = %q, want immutable", cc)
	}
}

// TestHeadOnGetRoutes: HEAD is answered on every GET route with the GET's
// status and headers and no body.
func TestHeadOnGetRoutes(t *testing.T) {
	f := newFixture(t, false)
	css, _ := parse(t, f.get(t, "/facts")).Find(`link[rel="stylesheet"]`).Attr("href")
	head := func(c *client, target string) *httptest.ResponseRecorder {
		return c.do(t, httptest.NewRequest(http.MethodHead, target, nil))
	}
	for _, tt := range []struct {
		name, target string
		c            *client
		code         int
		contentType  string
	}{
		{"health", "/healthz", newClient(f), http.StatusOK, "application/json"},
		{"readiness", "/readyz", newClient(f), http.StatusOK, "application/json"},
		{"signed-in page", "/facts", f.signedIn, http.StatusOK, "text/html"},
		{"sign-in form", "/login", newClient(f), http.StatusOK, "text/html"},
		{"anonymous page", "/facts", newClient(f), http.StatusSeeOther, ""},
		{"asset", css, newClient(f), http.StatusOK, "text/css"},
		{"missing", "/no/such/page", f.signedIn, http.StatusNotFound, ""},
		{"API document", "/api/openapi.json", newClient(f), http.StatusOK, "application/json"},
	} {
		rec := head(tt.c, tt.target)
		if rec.Code != tt.code || rec.Body.Len() != 0 || !strings.HasPrefix(rec.Header().Get("Content-Type"), tt.contentType) {
			t.Errorf("HEAD %s (%s) = %d, %d body bytes, Content-Type %q; want %d, none, %q",
				tt.target, tt.name, rec.Code, rec.Body.Len(), rec.Header().Get("Content-Type"), tt.code, tt.contentType)
		}
	}
	if rec := head(f.signedIn, "/facts"); rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("HEAD /facts signed in: Cache-Control %q, want no-store", rec.Header().Get("Cache-Control"))
	}
	// A route with no GET still refuses HEAD.
	if rec := head(f.signedIn, "/logout"); rec.Code != http.StatusMethodNotAllowed || rec.Body.Len() != 0 {
		t.Errorf("HEAD /logout = %d with %d body bytes, want 405 and none", rec.Code, rec.Body.Len())
	}
}

// TestMetricsEndpoint: /metrics on the main address needs the bearer token,
// and without a token it is not served at all.
func TestMetricsEndpoint(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "go_goroutines 7\n") })
	get := func(f fixture, auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		f.server.ServeHTTP(rec, req)
		return rec
	}
	open, _ := newConfiguredFixture(t, server.Config{Metrics: metrics})
	if rec := get(open, ""); rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "go_goroutines") {
		t.Errorf("GET /metrics without a token configured = %d, want 404", rec.Code)
	}
	const token = "a-metrics-token-0123456789"
	guarded, _ := newConfiguredFixture(t, server.Config{Metrics: metrics, MetricsToken: token})
	for _, bad := range []string{"", "Bearer wrong", "Bearer " + token + "x", token} {
		if rec := get(guarded, bad); rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" ||
			strings.Contains(rec.Body.String(), "go_goroutines") {
			t.Errorf("GET /metrics with Authorization %q = %d, want 401", bad, rec.Code)
		}
	}
	if rec := get(guarded, "Bearer "+token); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "go_goroutines") {
		t.Errorf("GET /metrics with the token = %d %s, want the metrics", rec.Code, rec.Body)
	}
	// MetricsHandler without a token (a separate listener) passes through.
	rec := httptest.NewRecorder()
	server.MetricsHandler(metrics, "").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("MetricsHandler without a token = %d, want 200", rec.Code)
	}
}
