package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

const userUsage = "usage: tenure user create --email E --role viewer|reviewer|admin --password-stdin\n" +
	"       tenure user list [--json]\n" +
	"       tenure user disable --email E\n" +
	"       tenure user enable --email E\n" +
	"       tenure user reset-password --email E [--base-url URL]"

// runUser manages the people who sign in to the console: create, list,
// disable, enable, reset-password.
func runUser(ctx context.Context, env *environment, args []string) error {
	if len(args) == 0 {
		return usagef("%s", userUsage)
	}
	switch args[0] {
	case "create":
		return runUserCreate(ctx, env, args[1:])
	case "list":
		return runUserList(ctx, env, args[1:])
	case "disable":
		return runUserDisable(ctx, env, args[1:], true)
	case "enable":
		return runUserDisable(ctx, env, args[1:], false)
	case "reset-password":
		return runUserResetPassword(ctx, env, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(env.stdout, userUsage)
		return nil
	}
	return usagef("user: unknown subcommand %q: allowed are create, list, disable, enable, reset-password\n%s", args[0], userUsage)
}

func runUserCreate(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	var email, role, name string
	var passwordStdin bool
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&email, "email", "", "the user's email, used to sign in")
	fs.StringVar(&name, "name", "", "the user's display name")
	fs.StringVar(&role, "role", "viewer", "viewer (reads), reviewer (edits memory) or admin (users, tokens, policies)")
	fs.BoolVar(&passwordStdin, "password-stdin", false,
		"read the password from the first line of standard input (at a terminal it is asked for, twice, without echo)")
	if err := parseFlags(fs, args, 0); err != nil {
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
	password, err := readPassword(env, "user create")
	if err != nil {
		return err
	}
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
		return commandError("user create", err)
	}
	fmt.Fprintf(env.stdout, "created %s user %s (id %d)\n", u.Role, u.Email, u.ID)
	return nil
}

// readPassword reads the password of command from standard input: its
// first line, or, when standard input is a terminal, typed twice without
// echo after a prompt on standard error.
func readPassword(env *environment, command string) (string, error) {
	if f, ok := env.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(env.stderr, "Password (at least 12 characters, not shown): ")
		first, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.stderr)
		if err != nil {
			return "", fmt.Errorf("%s: read the password: %w", command, err)
		}
		fmt.Fprint(env.stderr, "The same password again: ")
		second, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.stderr)
		if err != nil {
			return "", fmt.Errorf("%s: read the password: %w", command, err)
		}
		if string(first) != string(second) {
			return "", usagef("%s: the two passwords differ: run the command again and type the same password twice", command)
		}
		return string(first), nil
	}
	line, err := bufio.NewReader(env.stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", usagef("%s: no password on standard input: pipe it in, such as printf '%%s\\n' \"$PASSWORD\" | tenure %s ... --password-stdin", command, command)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// userRow is a user as tenure user list --json prints it.
type userRow struct {
	ID          int64      `json:"id"`
	Email       string     `json:"email"`
	Name        string     `json:"name"`
	Role        string     `json:"role"`
	Disabled    bool       `json:"disabled"`
	DisabledAt  *time.Time `json:"disabled_at"`
	CreatedAt   time.Time  `json:"created_at"`
	LastLoginAt *time.Time `json:"last_sign_in_at"`
}

// runUserList prints every user: email, name, role, whether disabled, when
// created and last signed in.
func runUserList(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	var asJSON bool
	fs := flag.NewFlagSet("user list", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.BoolVar(&asJSON, "json", false, "print the users as a JSON array, for machines")
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
	users, err := auth.NewAdmin(db.pool, time.Now).ListUsers(ctx)
	if err != nil {
		return commandError("user list", err)
	}
	if asJSON {
		rows := make([]userRow, len(users))
		for i, u := range users {
			rows[i] = userRow{ID: u.ID, Email: u.Email, Name: u.Name, Role: string(u.Role), Disabled: u.DisabledAt != nil,
				DisabledAt: u.DisabledAt, CreatedAt: u.CreatedAt, LastLoginAt: u.LastLoginAt}
		}
		return printJSON(env.stdout, rows)
	}
	if len(users) == 0 {
		fmt.Fprintln(env.stdout, "No users yet. Create the first admin with:\n  tenure user create --email you@example.com --role admin --password-stdin")
		return nil
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tNAME\tROLE\tDISABLED\tCREATED\tLAST SIGN-IN")
	for _, u := range users {
		disabled := "no"
		if u.DisabledAt != nil {
			disabled = "since " + cliTime(*u.DisabledAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", u.Email, cliText(u.Name, "-"), u.Role, disabled, cliTime(u.CreatedAt),
			cliTimeOr(u.LastLoginAt, "never"))
	}
	return tw.Flush()
}

// runUserDisable disables a user, ending their sessions, or, when disable
// is false, lets them sign in again.
func runUserDisable(ctx context.Context, env *environment, args []string, disable bool) error {
	command := "user enable"
	if disable {
		command = "user disable"
	}
	var cfg baseConfig
	var email string
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&email, "email", "", "the email the user signs in with")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	email, err := userEmailFlag(command, email)
	if err != nil {
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
	admin := auth.NewAdmin(db.pool, time.Now)
	u, err := admin.UserByEmail(ctx, email)
	if err != nil {
		return commandError(command, err)
	}
	if (u.DisabledAt != nil) == disable {
		state := "enabled"
		if disable {
			state = "disabled"
		}
		fmt.Fprintf(env.stdout, "%s is already %s: nothing changed.\n", u.Email, state)
		return nil
	}
	if u, err = admin.SetDisabled(ctx, auth.CLI, u.ID, disable); err != nil {
		return commandError(command, err)
	}
	if disable {
		fmt.Fprintf(env.stdout, "Disabled %s: they cannot sign in, and their sessions have ended.\n", u.Email)
	} else {
		fmt.Fprintf(env.stdout, "Enabled %s: they may sign in again.\n", u.Email)
	}
	return nil
}

// runUserResetPassword prints a one-time link that lets a user set a new
// password: it works once, for auth.PasswordResetTTL, and only its hash is
// stored.
func runUserResetPassword(ctx context.Context, env *environment, args []string) error {
	const command = "user reset-password"
	var cfg baseConfig
	var email, base string
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&email, "email", "", "the email the user signs in with")
	fs.StringVar(&base, "base-url", defaultBaseURL(env.getenv),
		"address people open the console at, which the link starts with (default: TENURE_PUBLIC_URL, else http:// and the address tenure serve listens on, TENURE_ADDR)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	email, err := userEmailFlag(command, email)
	if err != nil {
		return err
	}
	if base, err = parseBaseURL(command, base); err != nil {
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
	admin := auth.NewAdmin(db.pool, time.Now)
	u, err := admin.UserByEmail(ctx, email)
	if err != nil {
		return commandError(command, err)
	}
	reset, err := admin.IssuePasswordReset(ctx, auth.CLI, u.ID)
	if err != nil {
		return commandError(command, err)
	}
	fmt.Fprintf(env.stdout, "Password reset link for %s (works once, until %s):\n\n    %s\n\n", reset.User.Email,
		cliTime(reset.ExpiresAt), auth.PasswordResetURL(base, reset.Token))
	fmt.Fprintf(env.stdout, "Send it to them: opening it lets them set a new password, which signs them out everywhere.\n"+
		"It is shown only this once, and Tenure stores only its hash; earlier links for %s stop working.\n", reset.User.Email)
	return nil
}

// userEmailFlag checks the --email of command.
func userEmailFlag(command, email string) (string, error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return "", usagef("%s: --email is required: the email the user signs in with (tenure user list shows them)", command)
	}
	e, err := auth.ParseEmail(email)
	if err != nil {
		var me *memory.Error
		if errors.As(err, &me) {
			return "", usagef("%s: invalid --email: %s", command, me.Message)
		}
		return "", usagef("%s: invalid --email: %v", command, err)
	}
	return e, nil
}

// defaultBaseURL is where people open the console, as tenure serve would
// be configured from the environment: TENURE_PUBLIC_URL, else http:// and
// TENURE_ADDR (a listen address without a host, or on every interface, is
// reached at 127.0.0.1), else serve's default address.
func defaultBaseURL(getenv func(string) string) string {
	if u := envOr(getenv, "TENURE_PUBLIC_URL", ""); u != "" {
		return u
	}
	addr := envOr(getenv, "TENURE_ADDR", "127.0.0.1:8080")
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://127.0.0.1:8080"
	}
	switch host {
	case "", "0.0.0.0", "::":
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// parseBaseURL checks the --base-url of command: an absolute http or https
// address without credentials, query or fragment. It returns it without a
// trailing slash.
func parseBaseURL(command, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" {
		return "", usagef("%s: invalid --base-url %q: use the absolute http or https address people open the console at, such as https://tenure.example.com or http://127.0.0.1:8080", command, raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// cliTime is a time as the command line prints it: UTC, to the minute.
func cliTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// cliTimeOr is cliTime of t, or none when t is nil.
func cliTimeOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return cliTime(*t)
}

// cliText is s for a table cell (tabs and line breaks would break its
// columns), or none when s is empty.
func cliText(s, none string) string {
	if s == "" {
		return none
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// commandError is err of command as the command line says it: a refusal (a
// memory.Error) by its message alone, without the form field it is about,
// such as "user disable: no user with email x@y".
func commandError(command string, err error) error {
	if me := memory.AsError(err); me != nil && me.Field != "" && len(me.Problems) == 0 {
		return &refusal{msg: command + ": " + me.Message, err: err}
	}
	return fmt.Errorf("%s: %w", command, err)
}

// refusal is an error whose text is msg and which wraps err.
type refusal struct {
	msg string
	err error
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.err }
