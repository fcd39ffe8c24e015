package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/auth"
)

func runUser(ctx context.Context, env *environment, args []string) error {
	if len(args) == 0 || args[0] != "create" {
		return usagef("usage: tenure user create --email E --role viewer|reviewer|admin --password-stdin")
	}
	var cfg baseConfig
	var email, role, name string
	var passwordStdin bool
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&email, "email", "", "the user's email, used to sign in")
	fs.StringVar(&name, "name", "", "the user's display name")
	fs.StringVar(&role, "role", "viewer", "viewer (reads), reviewer (edits memory) or admin (users, tokens, policies)")
	fs.BoolVar(&passwordStdin, "password-stdin", false, "read the password from the first line of standard input")
	if err := parseFlags(fs, args[1:], 0); err != nil {
		return err
	}
	email = strings.TrimSpace(email)
	if email == "" || !strings.Contains(email, "@") {
		return usagef("user create: --email is required and must be an email address")
	}
	switch role {
	case "viewer", "reviewer", "admin":
	default:
		return usagef("user create: invalid role %q: allowed values are viewer, reviewer, admin", role)
	}
	if !passwordStdin {
		return usagef("user create: pass --password-stdin and the password on standard input (passwords are never taken as arguments)")
	}
	line, err := bufio.NewReader(env.stdin).ReadString('\n')
	if err != nil && line == "" {
		return usagef("user create: no password on standard input")
	}
	password := strings.TrimRight(line, "\r\n")
	if n := utf8.RuneCountInString(password); n < auth.MinPasswordLength {
		return usagef("user create: the password is %d characters long: use at least %d characters", n, auth.MinPasswordLength)
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
	u, err := auth.NewAdmin(db.pool, time.Now).CreateUser(ctx, auth.CLI,
		auth.NewUser{Email: email, Name: name, Role: role, Password: password, Confirm: password})
	if err != nil {
		return fmt.Errorf("user create: %w", err)
	}
	fmt.Fprintf(env.stdout, "created %s user %s (id %d)\n", u.Role, u.Email, u.ID)
	return nil
}
