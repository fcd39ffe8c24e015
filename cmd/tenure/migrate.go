package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
		return migrateUp(ctx, env, db.pool, m)
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

// migrateUp applies the pending migrations one by one and shows how far it
// has come: the migration (n of total), and, while one builds an index, the
// build's phase and the blocks or rows it has done of its total as
// PostgreSQL reports them (pg_stat_progress_create_index).
func migrateUp(ctx context.Context, env *environment, pool *pgxpool.Pool, m *migrations.Migrator) error {
	pending, err := m.Pending(ctx)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		fmt.Fprintln(env.stdout, "no pending migrations")
		return nil
	}
	prog := newProgress(env, "migrate", false)
	defer prog.finish()
	for i, p := range pending {
		name := fmt.Sprintf("%d/%d %s", i+1, len(pending), filepath.Base(p.Source.Path))
		prog.set(name, "migrations", int64(i), int64(len(pending)), nil)
		stop := watchIndexBuilds(ctx, pool, func(phase, unit string, done, total int64) {
			prog.set(name+": "+phase, unit, done, total, nil)
		})
		res, err := m.UpByOne(ctx)
		stop()
		if res != nil {
			fmt.Fprintln(env.stdout, res)
		}
		if err != nil {
			return err
		}
		prog.set(name, "migrations", int64(i+1), int64(len(pending)), nil)
	}
	prog.finishAt(int64(len(pending)), int64(len(pending)))
	return nil
}

// indexBuildPoll is how often migrate reads the progress of an index build.
const indexBuildPoll = 500 * time.Millisecond

// watchIndexBuilds reports, until stop is called, the progress of the index
// builds running in this database: the phase, and blocks (while the table is
// scanned) or rows (while they are sorted and loaded) done of their total.
func watchIndexBuilds(ctx context.Context, pool *pgxpool.Pool, report func(phase, unit string, done, total int64)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(indexBuildPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			var phase string
			var blocksDone, blocksTotal, tuplesDone, tuplesTotal int64
			err := pool.QueryRow(ctx, `SELECT phase, blocks_done, blocks_total, tuples_done, tuples_total
FROM pg_stat_progress_create_index WHERE datname = current_database() LIMIT 1`).Scan(
				&phase, &blocksDone, &blocksTotal, &tuplesDone, &tuplesTotal)
			switch {
			case err != nil:
				// No build under way (or the view cannot be read): nothing
				// to show until the next poll.
			case blocksTotal > 0 && blocksDone < blocksTotal:
				report(phase, "blocks", blocksDone, blocksTotal)
			case tuplesTotal > 0:
				report(phase, "rows", tuplesDone, tuplesTotal)
			default:
				report(phase, "rows", tuplesDone, -1)
			}
		}
	}()
	return func() {
		cancel()
		<-finished
	}
}
