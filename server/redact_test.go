package server

import "testing"

func TestRedactURI(t *testing.T) {
	for in, want := range map[string]string{
		"/reset-password?token=abc123":        "/reset-password?token=REDACTED",
		"/setup?x=1&token=s3cret&y=2":         "/setup?x=1&token=REDACTED&y=2",
		"/facts?scope=acme":                   "/facts?scope=acme",
		"/facts":                              "/facts",
		"/facts?mytoken=keep&token_hint=keep": "/facts?mytoken=keep&token_hint=keep",
	} {
		if got := redactURI(in); got != want {
			t.Errorf("redactURI(%q) = %q, want %q", in, got, want)
		}
	}
}
