package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

const tokenUsage = "usage: tenure token create --scope S --name N [--role writer|reader] [--expires-days D]"

// runToken creates an API token for an agent: it prints the token once and
// stores only its hash. The token reaches only its scope; a reader token
// may only read.
func runToken(ctx context.Context, env *environment, args []string) error {
	if len(args) == 0 || args[0] != "create" {
		return usagef("%s", tokenUsage)
	}
	var cfg baseConfig
	var scope, name, role string
	var expiresDays int
	fs := flag.NewFlagSet("token create", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&scope, "scope", "", "the one scope the token reaches, such as home or acme")
	fs.StringVar(&name, "name", "", "the agent or machine that will use the token; unique among the scope's live tokens")
	fs.StringVar(&role, "role", auth.TokenWriter, "writer (pushes, records, recalls) or reader (reads only)")
	fs.IntVar(&expiresDays, "expires-days", 0, "days until the token expires; 0 for never")
	if err := parseFlags(fs, args[1:], 0); err != nil {
		return err
	}
	name = strings.TrimSpace(name)
	scope = strings.TrimSpace(scope)
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return usagef("token create: --name is required: name the agent or machine that will use the token")
	case n > 100:
		return usagef("token create: --name is %d characters long: at most 100 are allowed", n)
	}
	if scope == "" {
		return usagef("token create: --scope is required: the token reaches that scope only")
	}
	if _, err := memory.ParseScope(scope); err != nil {
		return usagef("token create: %v", err)
	}
	if role != auth.TokenWriter && role != auth.TokenReader {
		return usagef("token create: invalid role %q: allowed values are writer, reader", role)
	}
	if expiresDays < 0 || expiresDays > auth.MaxTokenExpiryDays {
		return usagef("token create: --expires-days %d is out of range: give 1 to %d, or 0 for a token that never expires",
			expiresDays, auth.MaxTokenExpiryDays)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	logger := cfg.logger(env.stderr)
	db, err := openMigrated(ctx, &cfg, env.getenv, logger)
	if err != nil {
		return err
	}
	defer db.close()

	secret, tok, err := auth.NewAdmin(db.pool, time.Now).CreateToken(ctx, auth.CLI,
		auth.NewToken{Name: name, Scope: scope, Role: role, ExpiresInDays: expiresDays})
	if err != nil {
		return fmt.Errorf("token create: %w", err)
	}
	lifetime := "never expires"
	if tok.ExpiresAt != nil {
		lifetime = "expires " + tok.ExpiresAt.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(env.stdout, "Created %s token %q for scope %s (id %d, %s).\n\n    %s\n\n", tok.Role, tok.Name, tok.Scope, tok.ID, lifetime, secret)
	fmt.Fprintf(env.stdout, "Copy it now: it is shown only this once, and Tenure stores only its hash.\n"+
		"Agents send it as the header  Authorization: Bearer %s…\n", tok.Prefix)
	return nil
}
