package web

import (
	"net/url"
	"strings"
)

// maxReturnPath bounds a return address taken from a request.
const maxReturnPath = 2048

// localReturnPath is the one check for every redirect target taken from a
// request (the sign-in form's next, a form's return field): it returns raw
// when raw is a path on this site and fallback otherwise.
//
// A path on this site starts with exactly one slash and has no scheme, host
// or user. Browsers are lenient in ways that turn such a string into another
// site, so it must also hold no backslash (read as a slash), no control
// character (tabs and newlines are dropped, so "/\t/evil.example" becomes
// "//evil.example"), and its path must not start with "//" or "/\" once
// percent-decoded either ("/%2F%2Fevil.example").
func localReturnPath(raw, fallback string) string {
	if raw == "" || len(raw) > maxReturnPath || raw[0] != '/' || strings.HasPrefix(raw, "//") ||
		strings.ContainsRune(raw, '\\') || hasControl(raw) {
		return fallback
	}
	path := raw
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	decoded, err := url.PathUnescape(path)
	if err != nil || strings.HasPrefix(decoded, "//") || strings.ContainsRune(decoded, '\\') || hasControl(decoded) {
		return fallback
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return fallback
	}
	return raw
}

// hasControl reports whether s holds an ASCII control character or DEL.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}
