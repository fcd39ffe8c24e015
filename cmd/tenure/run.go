package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// usageError marks a mistake in how the command was called (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func exitCode(err error) int {
	var ue *usageError
	if errors.As(err, &ue) || errors.Is(err, flag.ErrHelp) {
		return 2
	}
	return 1
}

// command is one subcommand of tenure.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *environment, args []string) error
}

// environment is what a subcommand may touch of the outside world.
type environment struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func commands() []command {
	return []command{
		{"serve", "run the console and the API (starts a private PostgreSQL unless DATABASE_URL is set)", runServe},
		{"bench", "measure the performance targets against their baselines on seeded data: bench [--facts N] [--json]; bench seed fills a database", runBench},
		{"simulate", "replay a scripted month of agent traffic and report what the brief and recall got wrong: simulate [--days N] [--json]", runSimulate},
		{"consolidate", "run one consolidation now and print its report (--json for machines)", runConsolidate},
		{"decay", "archive every fact whose forget_at has passed, once (--json for machines)", runDecay},
		{"export", "write every fact (with its decision) as JSON Lines to standard output: export [--scope S] > file.jsonl", runExport},
		{"import", "import facts, all or nothing: import FILE.jsonl, import --from nova --scope S URL, import --from mem0 --scope S FILE.json ([--dry-run] [--json])", runImport},
		{"migrate", "apply migrations: migrate [up|status|down|down-to VERSION]", runMigrate},
		{"backup", "write a consistent copy of the whole database to a file, while the server runs: backup FILE", runBackup},
		{"restore", "restore a backup into an empty database or data folder, with no server running on it: restore FILE [--force]", runRestore},
		{"token", "manage agents' API tokens: token create --scope S --name N [--role writer|reader] [--expires-days D]; token list; token revoke (--name N --scope S | --id ID)", runToken},
		{"user", "manage console users: user create --email E --role R --password-stdin; user list; user disable|enable --email E; user reset-password --email E [--base-url URL]", runUser},
		{"version", "print the version", runVersion},
	}
}

// run is the whole program: it parses args and runs one subcommand.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := &environment{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		printUsage(stderr)
		return usagef("no command given")
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		printUsage(stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, env, args[1:])
		}
	}
	printUsage(stderr)
	return usagef("unknown command %q", name)
}

func printUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("Usage: tenure COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'tenure COMMAND -h' for the flags of a command.\n")
	io.WriteString(w, b.String())
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func runVersion(_ context.Context, env *environment, _ []string) error {
	fmt.Fprintln(env.stdout, "tenure", version)
	return nil
}
