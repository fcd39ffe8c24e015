package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
)

// runTokenCmd runs tenure token with args, as run would.
func runTokenCmd(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := runToken(context.Background(), &environment{getenv: envFrom(env), stdin: strings.NewReader(""),
		stdout: &stdout, stderr: &stderr}, args)
	return stdout.String(), stderr.String(), err
}

var printedToken = regexp.MustCompile(`(?m)^\s+(tnr_\S+)$`)

func TestTokenCreate(t *testing.T) {
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	out, _, err := runTokenCmd(t, env, "create", "--scope", "home", "--name", "laptop")
	if err != nil {
		t.Fatalf("token create = %v", err)
	}
	m := printedToken.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, `writer token "laptop" for scope home`) || !strings.Contains(out, "only its hash") ||
		!strings.Contains(out, "never expires") {
		t.Fatalf("token create printed %q, want the token on its own line and a note that only its hash is kept", out)
	}
	secret := m[1]

	pool := pgtest.Connect(t, url)
	tokens := auth.NewTokens(pool, nil)
	ctx := context.Background()
	tok, err := tokens.Authenticate(ctx, secret)
	if err != nil || tok.Name != "laptop" || tok.Scope != "home" || tok.Role != "writer" || tok.ExpiresAt != nil {
		t.Fatalf("stored token = %+v, %v", tok, err)
	}
	var stored int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM api_tokens t WHERE t::text LIKE '%' || $1 || '%'", secret[len(auth.APITokenPrefix):]).Scan(&stored); err != nil || stored != 0 {
		t.Errorf("the token itself is stored (%d, %v), want only its hash", stored, err)
	}
	var audits int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM audit_log WHERE actor = 'system:cli' AND action = 'token.create' AND target_id = $1 AND scope = 'home'",
		strconv.FormatInt(tok.ID, 10)).Scan(&audits); err != nil || audits != 1 {
		t.Errorf("audit rows = %d, %v; want 1 by cli", audits, err)
	}

	t.Run("reader with expiry", func(t *testing.T) {
		out, _, err := runTokenCmd(t, env, "create", "--scope", "home", "--name", "dashboard", "--role", "reader", "--expires-days", "30")
		if err != nil || !strings.Contains(out, `reader token "dashboard"`) || !strings.Contains(out, "expires 20") {
			t.Fatalf("token create reader = %q, %v", out, err)
		}
		m := printedToken.FindStringSubmatch(out)
		tok, err := tokens.Authenticate(ctx, m[1])
		if err != nil || tok.Role != "reader" || tok.ExpiresAt == nil {
			t.Errorf("stored reader token = %+v, %v", tok, err)
		}
	})
	t.Run("duplicate live name", func(t *testing.T) {
		_, _, err := runTokenCmd(t, env, "create", "--scope", "home", "--name", "laptop")
		if err == nil || !strings.Contains(err.Error(), `a live token named "laptop" already exists in scope home`) || exitCode(err) != 1 {
			t.Errorf("duplicate token create error = %v, want the duplicate named", err)
		}
	})
	t.Run("same name in another scope", func(t *testing.T) {
		if _, _, err := runTokenCmd(t, env, "create", "--scope", "work", "--name", "laptop"); err != nil {
			t.Errorf("token create in another scope = %v", err)
		}
	})
}

func TestTokenCreateUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage: tenure token create"},
		{[]string{"frobnicate"}, "unknown subcommand \"frobnicate\": allowed are create, list, revoke"},
		{[]string{"create", "--scope", "home"}, "--name is required"},
		{[]string{"create", "--name", "x"}, "--scope is required"},
		{[]string{"create", "--name", "x", "--scope", "Home!"}, "invalid scope"},
		{[]string{"create", "--name", "x", "--scope", "home", "--role", "admin"}, "allowed values are writer, reader"},
		{[]string{"create", "--name", "x", "--scope", "home", "--expires-days", "-1"}, "out of range"},
		{[]string{"create", "--name", "x", "--scope", "home", "extra"}, "unexpected arguments"},
	}
	for _, tt := range tests {
		_, _, err := runTokenCmd(t, nil, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("token %q error = %v, want a usage error containing %q", tt.args, err, tt.want)
		}
	}
}
