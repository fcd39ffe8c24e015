package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/jobs"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/metrics"
	"github.com/tenurehq/tenure/migrations"
)

// jobConfig holds the intervals of the scheduled jobs.
type jobConfig struct {
	consolidateEvery time.Duration
	decayEvery       time.Duration
	purgeEvery       time.Duration
	noJobs           bool
	// workers is how many transactions a consolidation run promotes in at
	// once.
	workers int
	// The scheduled backup: off while backupEvery is zero.
	backupEvery time.Duration
	backupDir   string
	backupKeep  int
}

func durationEnv(getenv func(string) string, key string, def time.Duration) time.Duration {
	if v := strings.TrimSpace(getenv(key)); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
		// An unparsable value becomes -1 so that validate names it.
		return -1
	}
	return def
}

// registerWorkers registers --consolidate-workers into n.
func registerWorkers(fs *flag.FlagSet, getenv func(string) string, n *int) {
	def := 2
	if v := strings.TrimSpace(getenv("TENURE_CONSOLIDATE_WORKERS")); v != "" {
		var err error
		if def, err = strconv.Atoi(v); err != nil {
			def = -1 // validateWorkers names it
		}
	}
	fs.IntVar(n, "consolidate-workers", def,
		fmt.Sprintf("how many transactions a consolidation run promotes working rows in at once, each on its own entities: 1 to %d (env TENURE_CONSOLIDATE_WORKERS)", memory.MaxWorkers))
}

func validateWorkers(n int) error {
	if n < 1 || n > memory.MaxWorkers {
		return usagef("invalid consolidate-workers (TENURE_CONSOLIDATE_WORKERS): use a whole number from 1 to %d, such as 2", memory.MaxWorkers)
	}
	return nil
}

func (c *jobConfig) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.DurationVar(&c.consolidateEvery, "consolidate-every", durationEnv(getenv, "TENURE_CONSOLIDATE_EVERY", 5*time.Minute),
		"interval of the consolidation job (env TENURE_CONSOLIDATE_EVERY)")
	fs.DurationVar(&c.decayEvery, "decay-every", durationEnv(getenv, "TENURE_DECAY_EVERY", time.Minute),
		"interval of the decay job (env TENURE_DECAY_EVERY)")
	fs.DurationVar(&c.purgeEvery, "purge-every", durationEnv(getenv, "TENURE_PURGE_EVERY", 24*time.Hour),
		"interval of the purge of old tombstones, expired sessions and idempotency keys (env TENURE_PURGE_EVERY)")
	fs.DurationVar(&c.backupEvery, "backup-every", durationEnv(getenv, "TENURE_BACKUP_EVERY", 0),
		"interval of the scheduled backup, such as 24h; 0 turns it off (env TENURE_BACKUP_EVERY)")
	fs.StringVar(&c.backupDir, "backup-dir", envOr(getenv, "TENURE_BACKUP_DIR", ""),
		"folder the scheduled backup writes into (env TENURE_BACKUP_DIR)")
	fs.IntVar(&c.backupKeep, "backup-keep", 7, "how many scheduled backups to keep, the newest")
	registerWorkers(fs, getenv, &c.workers)
	fs.BoolVar(&c.noJobs, "no-jobs", envOr(getenv, "TENURE_NO_JOBS", "") == "1",
		"do not run scheduled jobs in this process (env TENURE_NO_JOBS=1)")
}

func (c *jobConfig) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"consolidate-every (TENURE_CONSOLIDATE_EVERY)", c.consolidateEvery}, {"decay-every (TENURE_DECAY_EVERY)", c.decayEvery}, {"purge-every (TENURE_PURGE_EVERY)", c.purgeEvery}} {
		if d.v < time.Second {
			return usagef("invalid %s: use a duration of at least 1s, such as 30s, 5m or 24h", d.name)
		}
	}
	if err := validateWorkers(c.workers); err != nil {
		return err
	}
	switch {
	case c.backupEvery < 0 || (c.backupEvery > 0 && c.backupEvery < time.Minute):
		return usagef("invalid backup-every (TENURE_BACKUP_EVERY): use 0 (off) or a duration of at least 1m, such as 6h or 24h")
	case c.backupEvery > 0 && strings.TrimSpace(c.backupDir) == "":
		return usagef("backup-every is set but backup-dir (TENURE_BACKUP_DIR) is not: name the folder the backups go into")
	case c.backupKeep < 1:
		return usagef("invalid backup-keep %d: keep at least 1 backup", c.backupKeep)
	}
	return nil
}

// engineJobs are the scheduled jobs of the memory engine, the purge of
// expired console sessions, and the backup of the database at url when one
// is scheduled.
func engineJobs(store *memory.Store, sessions *auth.Sessions, cfg jobConfig, url string, getenv func(string) string) []jobs.Job {
	list := []jobs.Job{
		{Name: "consolidation", Interval: cfg.consolidateEvery, Run: func(ctx context.Context) error {
			_, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerSchedule})
			if errors.Is(err, memory.ErrRunInProgress) {
				return nil // a manual run is under way; the next tick catches up
			}
			return err
		}},
		{Name: "decay", Interval: cfg.decayEvery, Run: func(ctx context.Context) error {
			_, err := store.Decay(ctx, memory.System("decay"))
			return err
		}},
		{Name: "tombstone_purge", Interval: cfg.purgeEvery, Run: func(ctx context.Context) error {
			_, err := store.PurgeTombstones(ctx)
			return err
		}},
		// Expired sessions are refused at once; this only removes their rows.
		{Name: "session_purge", Interval: cfg.purgeEvery, Run: func(ctx context.Context) error {
			_, err := sessions.PurgeExpired(ctx)
			return err
		}},
		// Idempotency keys are free again after 24 hours; this only removes
		// their rows.
		{Name: "idempotency_purge", Interval: cfg.purgeEvery, Run: func(ctx context.Context) error {
			_, err := store.PurgeIdempotencyKeys(ctx)
			return err
		}},
	}
	if cfg.backupEvery > 0 {
		list = append(list, jobs.Job{Name: "backup", Interval: cfg.backupEvery, Run: func(ctx context.Context) error {
			_, err := scheduledBackup(ctx, url, cfg.backupDir, cfg.backupKeep, time.Now(), getenv)
			return err
		}})
	}
	return list
}

// startJobs starts the scheduler with leader election; stop shuts it down
// and gives up leadership.
func startJobs(ctx context.Context, db *database, store *memory.Store, reg *metrics.Registry, cfg jobConfig, logger *slog.Logger) (*jobs.Scheduler, func(), error) {
	leader, err := jobs.NewLeader(ctx, db.pool, jobs.DefaultLockKey, logger)
	if err != nil {
		return nil, nil, err
	}
	sessions, err := auth.NewSessions(db.pool, nil)
	if err != nil {
		leader.Close(ctx)
		return nil, nil, err
	}
	sched, err := jobs.NewScheduler(jobs.Options{Logger: logger, Leader: leader, Metrics: reg, Recorder: jobs.NewHistory(db.pool)}, engineJobs(store, sessions, cfg, db.url(), db.getenv)...)
	if err != nil {
		leader.Close(ctx)
		return nil, nil, err
	}
	sched.Start()
	stop := func() {
		if err := sched.Shutdown(); err != nil {
			logger.Error("jobs.shutdown", "err", err)
		}
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := leader.Close(closeCtx); err != nil {
			logger.Error("leader.close", "err", err)
		}
	}
	return sched, stop, nil
}

// openMigrated opens the database and migrates it to the latest version.
func openMigrated(ctx context.Context, cfg *baseConfig, getenv func(string) string, logger *slog.Logger) (*database, error) {
	db, err := openDatabase(ctx, cfg, getenv, logger)
	if err != nil {
		return nil, err
	}
	if err := migrations.Up(ctx, db.pool, logger); err != nil {
		db.close()
		return nil, err
	}
	return db, nil
}

// openStore opens the database, migrates it and returns the engine.
func openStore(ctx context.Context, env *environment, cfg *baseConfig, workers int) (*database, *memory.Store, error) {
	logger := cfg.logger(env.stderr)
	db, err := openMigrated(ctx, cfg, env.getenv, logger)
	if err != nil {
		return nil, nil, err
	}
	return db, memory.NewStore(db.pool, memory.Options{Logger: logger, ConsolidateWorkers: workers}), nil
}

// runOnStore parses the flags of a command that works once on the engine,
// with --json to print its report for machines (and, when consolidates,
// --consolidate-workers), opens the store and runs do.
func runOnStore(ctx context.Context, env *environment, args []string, name, jsonUsage string, consolidates bool,
	do func(store *memory.Store, asJSON bool) error) error {
	var cfg baseConfig
	var asJSON bool
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.BoolVar(&asJSON, "json", false, jsonUsage)
	workers := 0
	if consolidates {
		registerWorkers(fs, env.getenv, &workers)
	}
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if consolidates {
		if err := validateWorkers(workers); err != nil {
			return err
		}
	}
	db, store, err := openStore(ctx, env, &cfg, workers)
	if err != nil {
		return err
	}
	defer db.close()
	return do(store, asJSON)
}

func runConsolidate(ctx context.Context, env *environment, args []string) error {
	return runOnStore(ctx, env, args, "consolidate", "print the run's report as JSON", true, func(store *memory.Store, asJSON bool) error {
		prog := newProgress(env, "consolidate", asJSON)
		run, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerCLI,
			Progress: func(p memory.ConsolidateProgress) {
				unit := "rows"
				if p.Total < 0 {
					unit = "changes"
				}
				prog.set(memory.PhaseName(p.Phase), unit, p.Done, p.Total, nil)
			}})
		prog.finish()
		if run.ID != 0 {
			if perr := printRun(env.stdout, run, asJSON); perr != nil {
				return perr
			}
		}
		return err
	})
}

func printRun(w io.Writer, run memory.Run, asJSON bool) error {
	if asJSON {
		return printJSON(w, run)
	}
	took := ""
	if run.FinishedAt != nil {
		took = " in " + run.FinishedAt.Sub(run.StartedAt).Round(time.Millisecond).String()
	}
	fmt.Fprintf(w, "consolidation run %d %s%s (trigger %s)\n", run.ID, run.Status, took, run.Trigger)
	for _, phase := range memory.PhaseOrder {
		counts := run.Report[strconv.Itoa(phase)]
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
		if len(parts) == 0 {
			parts = append(parts, "nothing to do")
		}
		fmt.Fprintf(w, "  phase %2d %-8s %s\n", phase, memory.PhaseName(phase), strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "  refusals: transient %d, expired %d, decision_locked %d\n",
		run.TransientRejected, run.ExpiredRejected, run.DecisionLocked)
	if run.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", run.Error)
	}
	return nil
}

func runDecay(ctx context.Context, env *environment, args []string) error {
	return runOnStore(ctx, env, args, "decay", "print the report as JSON", false, func(store *memory.Store, asJSON bool) error {
		rep, err := store.Decay(ctx, memory.System("cli"))
		if err != nil {
			return err
		}
		if asJSON {
			return json.NewEncoder(env.stdout).Encode(rep)
		}
		fmt.Fprintf(env.stdout, "decay: archived %d facts in %d batches\n", rep.Archived, rep.Batches)
		return nil
	})
}
