package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// flashConsole is a console with what setFlash and takeFlash need, on the
// clock *at.
func flashConsole(at *time.Time) *Console {
	return &Console{
		logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		now:         func() time.Time { return *at },
		flashSecret: []byte("0123456789abcdef0123456789abcdef"),
	}
}

// setThenTake sets message as a flash on one response and reads it on the
// next request, as a browser would carry the cookie; it returns the
// Set-Cookie header and what the next page shows.
func setThenTake(t *testing.T, s *Console, message string, between func()) (string, string) {
	t.Helper()
	e := echo.New()
	rec := httptest.NewRecorder()
	s.setFlash(e.NewContext(httptest.NewRequest(http.MethodPost, "/facts/bulk", nil), rec), "ok", message)
	header := rec.Header().Get("Set-Cookie")
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("setFlash set %d cookies, want 1", len(cookies))
	}
	if between != nil {
		between()
	}
	req := httptest.NewRequest(http.MethodGet, "/facts", nil)
	req.AddCookie(cookies[0])
	return header, s.takeFlash(e.NewContext(req, httptest.NewRecorder())).Message
}

func TestFlashOfAMegabyteIsCut(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := flashConsole(&at)
	// Two-byte characters, so that a cut in the middle of one would show.
	message := strings.Repeat("é", 1<<19)
	header, got := setThenTake(t, s, message, nil)
	t.Logf("Set-Cookie of a 1 MB message: %d bytes", len(header))
	if len(header) > 2048 {
		t.Errorf("Set-Cookie of a 1 MB message is %d bytes, want at most 2048", len(header))
	}
	if !strings.HasSuffix(got, "…") || !strings.HasPrefix(message, strings.TrimSuffix(got, "…")) {
		t.Errorf("shown %.80q…, want the message's start, cut, ending with …", got)
	}
	if len(got) > maxFlashMessage {
		t.Errorf("shown %d bytes, want at most %d", len(got), maxFlashMessage)
	}
}

func TestFlashExpires(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := flashConsole(&at)
	if _, got := setThenTake(t, s, "Saved.", func() { at = at.Add(flashValidity) }); got != "Saved." {
		t.Errorf("flash read within its validity = %q, want it shown", got)
	}
	if _, got := setThenTake(t, s, "Saved.", func() { at = at.Add(flashValidity + time.Second) }); got != "" {
		t.Errorf("flash read after its validity = %q, want nothing", got)
	}
}

func TestBoundFlash(t *testing.T) {
	var ids []string
	for i := range 100_000 {
		ids = append(ids, strconv.Itoa(i+1))
	}
	tests := []struct{ in, want string }{
		{"Saved.", "Saved."},
		{"no facts with ids 1, 2, 3; nothing was changed", "no facts with ids 1, 2, 3; nothing was changed"},
		{"no facts with ids " + strings.Join(ids, ", ") + "; nothing was changed",
			"no facts with ids 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 99,990 more; nothing was changed"},
		{"Run 3 finished: 4 promoted, 5 reinforced.", "Run 3 finished: 4 promoted, 5 reinforced."},
		{"bad \xff byte", "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		if got := boundFlash(tt.in); got != tt.want {
			t.Errorf("boundFlash(%.60q) = %.200q, want %q", tt.in, got, tt.want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
