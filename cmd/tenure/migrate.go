package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/tenurehq/tenure/migrations"
)

func runMigrate(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure migrate [flags] [up|status|down|down-to VERSION]")
		fs.PrintDefaults()
	}
	cfg.register(fs, env.getenv)
	if err := parseFlags(fs, args, 2); err != nil {
		return err
	}
	action, rest := "up", fs.Args()
	if len(rest) > 0 {
		action, rest = rest[0], rest[1:]
	}
	var target int64
	switch action {
	case "up", "status", "down":
		if len(rest) > 0 {
			return usagef("migrate %s takes no argument", action)
		}
	case "down-to":
		if len(rest) != 1 {
			return usagef("migrate down-to needs a VERSION (0 rolls back everything)")
		}
		v, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || v < 0 {
			return usagef("migrate down-to: invalid version %q: use a migration number such as 2, or 0", rest[0])
		}
		target = v
	default:
		return usagef("unknown migrate action %q: allowed actions are up, status, down, down-to", action)
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
	m, err := migrations.New(db.pool, logger)
	if err != nil {
		return err
	}
	defer m.Close()

	switch action {
	case "up":
		res, err := m.Up(ctx)
		for _, r := range res {
			fmt.Fprintln(env.stdout, r)
		}
		if err != nil {
			return err
		}
		if len(res) == 0 {
			fmt.Fprintln(env.stdout, "no pending migrations")
		}
	case "down":
		res, err := m.Down(ctx)
		if res != nil {
			fmt.Fprintln(env.stdout, res)
		}
		return err
	case "down-to":
		res, err := m.DownTo(ctx, target)
		for _, r := range res {
			fmt.Fprintln(env.stdout, r)
		}
		return err
	case "status":
		st, err := m.Status(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "VERSION\tSTATE\tAPPLIED AT\tFILE")
		for _, s := range st {
			applied := "-"
			if !s.AppliedAt.IsZero() {
				applied = s.AppliedAt.UTC().Format("2006-01-02 15:04:05")
			}
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", s.Source.Version, s.State, applied, s.Source.Path)
		}
		return w.Flush()
	}
	return nil
}
