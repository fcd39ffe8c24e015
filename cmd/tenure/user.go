package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/migrations"
	"github.com/tenurehq/tenure/queries"
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
	hash, err := auth.HashPassword(password)
	if err != nil {
		return usagef("user create: %v", err)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	logger := cfg.logger(env.stderr)
	db, err := openDatabase(ctx, &cfg, env.getenv, logger)
	if err != nil {
		return err
	}
	defer db.close()
	if err := migrations.Up(ctx, db.pool, logger); err != nil {
		return err
	}
	var u queries.User
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		q := queries.New(tx)
		var err error
		u, err = q.CreateUser(ctx, queries.CreateUserParams{Email: email, Name: name, Role: role, PasswordHash: hash})
		if err != nil {
			return err
		}
		after, _ := json.Marshal(map[string]string{"email": u.Email, "role": u.Role, "name": u.Name})
		return q.InsertAudit(ctx, queries.InsertAuditParams{
			At: u.CreatedAt, Actor: "cli", Action: "user.create", TargetType: "user",
			TargetID: fmt.Sprint(u.ID), After: after, Reason: "created with tenure user create",
		})
	})
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			return fmt.Errorf("user create: a user with email %s already exists", email)
		}
		if errors.As(err, &pgErr) && pgErr.ConstraintName == "users_email_format" {
			return usagef("user create: invalid email %q", email)
		}
		return fmt.Errorf("user create: %w", err)
	}
	fmt.Fprintf(env.stdout, "created %s user %s (id %d)\n", u.Role, u.Email, u.ID)
	return nil
}
