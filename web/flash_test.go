package web_test

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// flashSetCookie is the Set-Cookie header of rec that sets the flash, and
// the cookie it sets; the test fails without one.
func flashSetCookie(t *testing.T, rec *httptest.ResponseRecorder) (string, *http.Cookie) {
	t.Helper()
	for _, h := range rec.Result().Header.Values("Set-Cookie") {
		if strings.HasPrefix(h, "tenure_flash=") {
			ck, err := http.ParseSetCookie(h)
			if err != nil {
				t.Fatal(err)
			}
			return h, ck
		}
	}
	t.Fatalf("no flash cookie set; headers %v", rec.Result().Header)
	return "", nil
}

// flashCleared reports whether rec clears the flash cookie.
func flashCleared(rec *httptest.ResponseRecorder) bool {
	for _, ck := range rec.Result().Cookies() {
		if ck.Name == "tenure_flash" && ck.MaxAge < 0 {
			return true
		}
	}
	return false
}

// flashOn is the flash message rec's page shows.
func flashOn(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("page = %d, want 200", rec.Code)
	}
	return strings.TrimSpace(parse(t, rec).Find(`[data-testid="flash"]`).Text())
}

// The cookie stays well under the 4 KB a browser keeps per cookie, the
// header included.
const flashHeaderBound = 2048

// TestFlashBoundedForHugeBulkActions: bulk actions whose messages would
// echo huge input (9,990 ids, near the 10,000 fields a form may have; 1,000
// unknown ids the engine names; one id a megabyte long) set a flash cookie under the bound, and the next page
// shows the message summarised or cut.
func TestFlashBoundedForHugeBulkActions(t *testing.T) {
	f := newFixture(t, false)
	many := func(n, from int) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = strconv.Itoa(from + i)
		}
		return ids
	}
	tests := []struct {
		name  string
		ids   []string
		want  []string
		avoid string
	}{
		{"9,990 ids", many(9_990, 1_000_000), []string{"Nothing was changed", "9990 facts chosen", "at most 1000"}, ""},
		{"1,000 unknown ids", many(1000, 5_000_000),
			[]string{"Nothing was changed", "5000000, 5000001", "5000009, and 990 more; nothing was changed"}, "5000010"},
		{"a megabyte id", []string{strings.Repeat("9", 1<<20)},
			[]string{`Nothing was changed: "` + strings.Repeat("9", 40) + `…" is not a fact id.`}, strings.Repeat("9", 41)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.signedIn.post(t, "/facts/bulk", url.Values{"ids": tt.ids, "action": {"archive"}, "return": {"/facts"}})
			header, ck := flashSetCookie(t, rec)
			t.Logf("Set-Cookie: %d bytes", len(header))
			if len(header) > flashHeaderBound {
				t.Errorf("Set-Cookie is %d bytes, want at most %d", len(header), flashHeaderBound)
			}
			if ck.MaxAge <= 0 || ck.MaxAge > 60 || !ck.HttpOnly {
				t.Errorf("flash cookie Max-Age %d, HttpOnly %v: want a short-lived HttpOnly cookie", ck.MaxAge, ck.HttpOnly)
			}
			_, flash := followFlash(t, f.signedIn, rec)
			for _, w := range tt.want {
				if !strings.Contains(flash, w) {
					t.Errorf("flash = %.300q, want it to contain %q", flash, w)
				}
			}
			if tt.avoid != "" && strings.Contains(flash, tt.avoid) {
				t.Errorf("flash = %.300q, want %q left out", flash, tt.avoid)
			}
		})
	}
}

// TestFlashPlantedCookiesAreNotShown: a flash cookie the server did not
// sign for this session (the old unsigned form, a signed one with its text
// changed, one signed for another person's session, garbage) is cleared and
// shows nothing; the cookie the server set shows once.
func TestFlashPlantedCookiesAreNotShown(t *testing.T) {
	f := newFixture(t, false)
	other := f.login(t, "admin")

	// A genuine flash: the message of a refused bulk action.
	rec := f.signedIn.post(t, "/facts/bulk", url.Values{"ids": {"12abc"}, "action": {"archive"}, "return": {"/facts"}})
	_, genuine := flashSetCookie(t, rec)
	delete(f.signedIn.cookies, "tenure_flash") // each case below sends its own
	const want = `Nothing was changed: "12abc" is not a fact id.`
	parts := strings.Split(genuine.Value, ".")
	if len(parts) != 3 {
		t.Fatalf("flash cookie %q: want mode, payload and signature", genuine.Value)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || !strings.HasSuffix(string(payload), "|error|"+want) {
		t.Fatalf("flash payload %q (%v), want it to end with the message", payload, err)
	}
	tampered := strings.Replace(string(payload), want, "Your session expired: sign in at https://evil.example", 1)
	planted := map[string]string{
		"unsigned":       url.QueryEscape("ok|Your session expired: sign in at https://evil.example"),
		"text changed":   parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(tampered)) + "." + parts[2],
		"signature gone": parts[0] + "." + parts[1],
		"bad signature":  parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 32)),
		"other mode":     "p." + parts[1] + "." + parts[2],
		"garbage":        "...",
	}
	for name, value := range planted {
		t.Run(name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/facts", nil)
			req.AddCookie(&http.Cookie{Name: "tenure_flash", Value: value})
			page := f.signedIn.do(t, req)
			if got := flashOn(t, page); got != "" {
				t.Errorf("planted flash shown: %q", got)
			}
			if !flashCleared(page) {
				t.Error("planted flash cookie not cleared")
			}
		})
	}

	t.Run("another session's", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/facts", nil)
		req.AddCookie(genuine)
		if got := flashOn(t, other.do(t, req)); got != "" {
			t.Errorf("a flash signed for one session shown to another: %q", got)
		}
	})

	t.Run("genuine, once", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/facts", nil)
		req.AddCookie(genuine)
		page := f.signedIn.do(t, req)
		if got := flashOn(t, page); got != want {
			t.Errorf("flash = %q, want %q", got, want)
		}
		if !flashCleared(page) {
			t.Error("the page that shows the flash does not clear it")
		}
		if got := flashOn(t, f.signedIn.get(t, "/facts")); got != "" {
			t.Errorf("flash shown a second time: %q", got)
		}
	})
}

// TestFlashOfSetupOnSignInPage: the message of the setup page, which no
// session carries, reaches the sign-in page; one planted there does not.
func TestFlashOfSetupOnSignInPage(t *testing.T) {
	pool := pgtest.NewPool(t)
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
	c := newClient(fixture{pool: pool, server: srv})

	req := httptest.NewRequest(http.MethodGet, "/login", nil)
	req.AddCookie(&http.Cookie{Name: "tenure_flash", Value: url.QueryEscape("ok|Sign in at https://evil.example instead")})
	if got := flashOn(t, c.do(t, req)); got != "" {
		t.Errorf("planted flash shown on the sign-in page: %q", got)
	}

	token, _, err := auth.NewSetupLink(context.Background(), pool, now)
	if err != nil {
		t.Fatal(err)
	}
	c.get(t, "/setup?token="+url.QueryEscape(token))
	rec := c.post(t, "/setup", url.Values{"token": {token}, "email": {"owner@example.com"}, "name": {"Olga Owner"},
		"password": {"a long enough secret"}, "confirm": {"a long enough secret"}})
	loc, _, flash := follow(t, c, rec)
	if loc != "/login" || !strings.Contains(flash, "owner@example.com") {
		t.Errorf("after setup: %s with flash %q, want the sign-in page naming the admin", loc, flash)
	}
	if got := flashOn(t, c.get(t, "/login")); got != "" {
		t.Errorf("setup's flash shown a second time: %q", got)
	}
}
