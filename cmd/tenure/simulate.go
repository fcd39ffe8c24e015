package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/migrations"
	"github.com/tenurehq/tenure/pglocal"
	"github.com/tenurehq/tenure/quality"
)

// runSimulate replays the scripted month of agent traffic in a throw-away
// private cluster and prints the memory-quality report.
func runSimulate(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure simulate [--scenario month|team] [--days N] [--seed S] [--json]\n\nReplays a scripted month of agent traffic through the API in a throw-away private cluster\n(or the empty database at DATABASE_URL), checking the context brief and recall every simulated\nhour, and prints what an agent was told wrongly. --scenario team replays instead three weeks of\nan ops team and three people written by two agents: name variants, paraphrased decisions,\nfulfilled obligations and a flood of log lines.")
		fs.PrintDefaults()
	}
	scenario := fs.String("scenario", "month", "the script: month or team")
	days := fs.Int("days", 0, "simulated days, 1 to 90 (default 30 for month, 21 for team)")
	seed := fs.Uint64("seed", 1, "random seed of the script")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	databaseURL := fs.String("database-url", envOr(env.getenv, "DATABASE_URL", ""), "PostgreSQL URL of an empty database (env DATABASE_URL); empty starts a private cluster")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	daysSet := false
	fs.Visit(func(f *flag.Flag) { daysSet = daysSet || f.Name == "days" })
	if daysSet && (*days < 1 || *days > 90) {
		return usagef("simulate: --days must be 1 to 90")
	}
	if *scenario != "month" && *scenario != "team" {
		return usagef("simulate: --scenario must be month or team, not %q", *scenario)
	}
	logger := (&baseConfig{logLevel: "warn", logFormat: "text"}).logger(env.stderr)
	url := *databaseURL
	if url == "" {
		dir, err := os.MkdirTemp("", "tenure-simulate-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		os.Chmod(dir, 0o755)
		cluster, err := pglocal.Start(ctx, pglocal.Options{DataDir: dir + "/pg", Ephemeral: true, Logger: logger, Getenv: env.getenv,
			Settings: privateClusterSettings()})
		if err != nil {
			return err
		}
		defer cluster.Stop(context.WithoutCancel(ctx))
		url = cluster.URL()
	}
	pcfg, err := poolConfig(url, logger)
	if err != nil {
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool, logger); err != nil {
		return err
	}
	rep, err := quality.Run(ctx, pool, quality.Options{Days: *days, Seed: *seed, Progress: env.stderr, Scenario: *scenario})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(env.stdout, rep)
	}
	return quality.WriteMarkdown(env.stdout, rep)
}
