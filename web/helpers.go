package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/layouts"
)

// actor is the signed-in person as the engine records them.
func actor(c echo.Context) memory.Actor {
	if sess := currentSession(c); sess != nil {
		return memory.Human(sess.Email)
	}
	return memory.System("web")
}

// signedInAs reports whether the signed-in person has at least role.
func signedInAs(c echo.Context, role auth.Role) bool {
	sess := currentSession(c)
	return sess != nil && sess.Role.Allows(role)
}

// pathID reads a positive numeric path parameter; anything else is a 404.
func pathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.NewHTTPError(http.StatusNotFound, "No such page: "+name+" must be a positive number.")
	}
	return id, nil
}

const flashCookie = "tenure_flash"

// The flash cookie. Its value is mode "." payload "." mac, the payload and
// mac in unpadded URL-safe base64; the payload is expiry "|" kind "|"
// message (expiry in Unix seconds). The mac is HMAC-SHA256 over mode "."
// payload, keyed by the session's secret when someone is signed in (mode
// s: the CSRF token the sessions table keeps, so every replica can check
// it, and a flash set for one session is nobody else's) and by a key of this
// process otherwise (mode p: the setup page's message, which no session can
// carry; behind several replicas it may be lost, never forged). A cookie
// that does not verify is cleared and nothing is shown, so text planted in
// the cookie never reaches a page.
const (
	// flashMaxAge is the cookie's lifetime in seconds; the signature is
	// honoured a little longer, for clocks of replicas that differ.
	flashMaxAge   = 60
	flashValidity = 2 * flashMaxAge * time.Second
	// maxFlashMessage is the most bytes of message a flash carries: any
	// longer one is cut, ending with "…". The whole cookie value stays
	// under maxFlashCookie, well below the 4 KB browsers keep per cookie and
	// what proxies take in a header.
	maxFlashMessage = 800
	maxFlashCookie  = 1536
	// flashListShown is how many numbers of a list ("ids 4, 9, 12, ...") a
	// flash shows; the rest are counted ("and 990 more").
	flashListShown = 10
)

// flashList is a list of two numbers or more, as messages name ids.
var flashList = regexp.MustCompile(`\d+(?:, \d+)+`)

// boundFlash is message as a flash carries it: valid UTF-8, lists of
// numbers past flashListShown counted rather than listed, and at most
// maxFlashMessage bytes.
func boundFlash(message string) string {
	message = strings.ToValidUTF8(message, "\uFFFD")
	message = flashList.ReplaceAllStringFunc(message, func(list string) string {
		items := strings.Split(list, ", ")
		if len(items) <= flashListShown {
			return list
		}
		return strings.Join(items[:flashListShown], ", ") + ", and " + thousands(len(items)-flashListShown) + " more"
	})
	if len(message) <= maxFlashMessage {
		return message
	}
	const more = "…"
	cut := maxFlashMessage - len(more)
	for cut > 0 && !utf8.RuneStart(message[cut]) {
		cut--
	}
	return message[:cut] + more
}

// thousands writes n with a comma between groups of three digits: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// quotedInput quotes a value a client sent, for a message about it: at most
// 40 characters of it, then "…".
func quotedInput(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return strconv.Quote(s)
}

// flashKey is the key of the flash's mode: s for the signed-in session's,
// p for the process's. ok is false for mode s without a session, or an
// unknown mode.
func (s *Console) flashKey(c echo.Context, mode string) (key []byte, ok bool) {
	switch mode {
	case "s":
		sess := currentSession(c)
		if sess == nil || sess.CSRF == "" {
			return nil, false
		}
		m := hmac.New(sha256.New, []byte(sess.CSRF))
		m.Write([]byte("tenure flash"))
		return m.Sum(nil), true
	case "p":
		return s.flashSecret, len(s.flashSecret) > 0
	}
	return nil, false
}

func flashMAC(key []byte, signed string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(signed))
	return m.Sum(nil)
}

// setFlash sets the one-line message the next page shows, bounded
// (boundFlash) and signed. Every flash goes through here.
func (s *Console) setFlash(c echo.Context, kind, message string) {
	mode := "p"
	if currentSession(c) != nil {
		mode = "s"
	}
	key, ok := s.flashKey(c, mode)
	if !ok {
		return
	}
	expiry := s.now().Add(flashValidity).Unix()
	payload := strconv.FormatInt(expiry, 10) + "|" + kind + "|" + boundFlash(message)
	signed := mode + "." + base64.RawURLEncoding.EncodeToString([]byte(payload))
	value := signed + "." + base64.RawURLEncoding.EncodeToString(flashMAC(key, signed))
	if len(value) > maxFlashCookie {
		// Not reached: boundFlash keeps every message short enough.
		s.logger.Error("flash.too_long", "bytes", len(value))
		return
	}
	s.setCookie(c, flashCookie, value, flashMaxAge)
}

// redirectWithFlash answers a successful form post: 303 to target, with a
// one-line message shown on the next page (POST, then redirect, then GET).
func (s *Console) redirectWithFlash(c echo.Context, target, kind, message string) error {
	s.setFlash(c, kind, message)
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", target)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// takeFlash reads and clears the flash message, if any: one whose signature
// does not verify, that has expired or that is longer than any setFlash
// writes is cleared and not shown.
func (s *Console) takeFlash(c echo.Context) layouts.Flash {
	ck, err := c.Cookie(flashCookie)
	if err != nil || ck.Value == "" {
		return layouts.Flash{}
	}
	s.setCookie(c, flashCookie, "", -1)
	if len(ck.Value) > maxFlashCookie {
		return layouts.Flash{}
	}
	cut := strings.LastIndexByte(ck.Value, '.')
	if cut < 0 {
		return layouts.Flash{}
	}
	signed := ck.Value[:cut]
	mode, encoded, ok := strings.Cut(signed, ".")
	if !ok {
		return layouts.Flash{}
	}
	key, ok := s.flashKey(c, mode)
	if !ok {
		return layouts.Flash{}
	}
	mac, err := base64.RawURLEncoding.DecodeString(ck.Value[cut+1:])
	if err != nil || !hmac.Equal(mac, flashMAC(key, signed)) {
		return layouts.Flash{}
	}
	raw, err := base64.RawURLEncoding.DecodeString(encoded)
	if err != nil {
		return layouts.Flash{}
	}
	parts := strings.SplitN(string(raw), "|", 3)
	if len(parts) != 3 {
		return layouts.Flash{}
	}
	expiry, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || s.now().Unix() > expiry {
		return layouts.Flash{}
	}
	kind := parts[1]
	if kind != "ok" && kind != "error" {
		kind = "info"
	}
	return layouts.Flash{Kind: kind, Message: parts[2]}
}

// unionKeys is every key of a and b, once each, sorted: the fields an audit
// row's before and after documents mention.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
