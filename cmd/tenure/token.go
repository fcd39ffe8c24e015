package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

const tokenUsage = "usage: tenure token create --scope S --name N [--role writer|reader] [--expires-days D]\n" +
	"       tenure token list [--json]\n" +
	"       tenure token revoke (--name N --scope S | --id ID)"

// runToken manages the API tokens of agents: create, list, revoke.
func runToken(ctx context.Context, env *environment, args []string) error {
	if len(args) == 0 {
		return usagef("%s", tokenUsage)
	}
	switch args[0] {
	case "create":
		return runTokenCreate(ctx, env, args[1:])
	case "list":
		return runTokenList(ctx, env, args[1:])
	case "revoke":
		return runTokenRevoke(ctx, env, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(env.stdout, tokenUsage)
		return nil
	}
	return usagef("token: unknown subcommand %q: allowed are create, list, revoke\n%s", args[0], tokenUsage)
}

// runTokenCreate creates an API token for an agent: it prints the token
// once and stores only its hash. The token reaches only its scope; a reader
// token may only read.
func runTokenCreate(ctx context.Context, env *environment, args []string) error {
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
	if err := parseFlags(fs, args, 0); err != nil {
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
		return commandError("token create", err)
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

// tokenRow is a token as tenure token list --json prints it: never the
// token, only its prefix.
type tokenRow struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope"`
	Role       string     `json:"role"`
	Prefix     string     `json:"prefix"`
	CreatedBy  string     `json:"created_by"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// runTokenList prints every API token, live ones first: never the token,
// only its prefix.
func runTokenList(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	var asJSON bool
	fs := flag.NewFlagSet("token list", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.BoolVar(&asJSON, "json", false, "print the tokens as a JSON array, for machines")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	db, err := openMigrated(ctx, &cfg, env.getenv, cfg.logger(env.stderr))
	if err != nil {
		return err
	}
	defer db.close()
	tokens, err := auth.NewAdmin(db.pool, time.Now).ListTokens(ctx)
	if err != nil {
		return commandError("token list", err)
	}
	if asJSON {
		rows := make([]tokenRow, len(tokens))
		for i, t := range tokens {
			rows[i] = tokenRow{ID: t.ID, Name: t.Name, Scope: t.Scope, Role: t.Role, Prefix: t.Prefix, CreatedBy: t.CreatedBy,
				CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt}
		}
		return printJSON(env.stdout, rows)
	}
	if len(tokens) == 0 {
		fmt.Fprintln(env.stdout, "No API tokens yet. Create one for each agent with:\n  tenure token create --scope S --name N")
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSCOPE\tROLE\tPREFIX\tCREATED\tLAST USED\tEXPIRES\tREVOKED")
	for _, t := range tokens {
		expires := cliTimeOr(t.ExpiresAt, "never")
		if t.ExpiresAt != nil && !t.ExpiresAt.After(now) {
			expires += " (expired)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s…\t%s\t%s\t%s\t%s\n", t.ID, cliText(t.Name, "-"), t.Scope, t.Role, t.Prefix,
			cliTime(t.CreatedAt), cliTimeOr(t.LastUsedAt, "never"), expires, cliTimeOr(t.RevokedAt, "no"))
	}
	return tw.Flush()
}

// runTokenRevoke revokes an API token at once, named by its scope and name
// (unique among the scope's live tokens) or by its id (tenure token list
// shows it).
func runTokenRevoke(ctx context.Context, env *environment, args []string) error {
	const command = "token revoke"
	var cfg baseConfig
	var scope, name string
	var id int64
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&name, "name", "", "the name of the live token to revoke, with --scope")
	fs.StringVar(&scope, "scope", "", "the scope of the token named by --name")
	fs.Int64Var(&id, "id", 0, "the id of the token to revoke, instead of --name and --scope (tenure token list shows ids)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	name, scope = strings.TrimSpace(name), strings.TrimSpace(scope)
	switch {
	case id < 0:
		return usagef("%s: invalid --id %d: token ids are positive numbers (tenure token list shows them)", command, id)
	case id > 0 && (name != "" || scope != ""):
		return usagef("%s: give either --id, or --name and --scope, not both", command)
	case id == 0 && name == "" && scope == "":
		return usagef("%s: name the token: --name N --scope S, or --id ID (tenure token list shows them)", command)
	case id == 0 && name == "":
		return usagef("%s: --name is required with --scope: the name of the token to revoke", command)
	case id == 0 && scope == "":
		return usagef("%s: --scope is required with --name: token names are unique within a scope", command)
	}
	if id == 0 {
		if _, err := memory.ParseScope(scope); err != nil {
			return usagef("%s: %v", command, err)
		}
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	db, err := openMigrated(ctx, &cfg, env.getenv, cfg.logger(env.stderr))
	if err != nil {
		return err
	}
	defer db.close()
	admin := auth.NewAdmin(db.pool, time.Now)
	if id == 0 {
		named, err := admin.TokensNamed(ctx, scope, name)
		if err != nil {
			return commandError(command, err)
		}
		if named[0].RevokedAt != nil {
			return fmt.Errorf("%s: the token %q in scope %s (%s…) was already revoked on %s: there is no live token of that name",
				command, name, scope, named[0].Prefix, cliTime(*named[0].RevokedAt))
		}
		id = named[0].ID
	}
	tok, err := admin.RevokeToken(ctx, auth.CLI, id)
	if err != nil {
		return commandError(command, err)
	}
	fmt.Fprintf(env.stdout, "Revoked %s token %q for scope %s (id %d, %s…): agents sending it are refused from now on.\n",
		tok.Role, tok.Name, tok.Scope, tok.ID, tok.Prefix)
	return nil
}
