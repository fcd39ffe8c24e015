package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pressly/goose/v3"

	"github.com/tenurehq/tenure/backup"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/migrations"
)

// runBackup writes a consistent copy of the whole database to a file, while
// the server may keep running: tenure backup FILE.
func runBackup(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure backup FILE\n\nWrites a copy of the whole database (every table, consistent at one instant) to FILE,\nwhile the server may keep running. Restore it with tenure restore FILE.")
		fs.PrintDefaults()
	}
	cfg.register(fs, env.getenv)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("backup: name the file to write: tenure backup FILE")
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	file := fs.Arg(0)
	logger := cfg.logger(env.stderr)
	db, err := openDatabase(ctx, &cfg, env.getenv, logger)
	if err != nil {
		return err
	}
	defer db.close()
	start := time.Now()
	n, err := writeBackup(ctx, db.url(), file, env.getenv, progressLine(env.stderr, "backup", start))
	if err != nil {
		return err
	}
	// The backup is whole whether or not its audit row can be written: a
	// read-only role or a hot standby is backed up too, and told so.
	if err := auditBackup(ctx, db.pool, memory.System("cli"), file, n); err != nil {
		fmt.Fprintf(env.stderr, "backup: warning: the backup is written, but its audit row could not be: %v\n", err)
	}
	fmt.Fprintf(env.stdout, "Backed up the database to %s: %s in %s\n", file, mib(n), time.Since(start).Round(time.Millisecond))
	return nil
}

// auditBackup writes the audit row of a backup of the database db is
// connected to, by by, into it (backup.create): the file and its size. A
// database without Tenure's audit log (not Tenure's, or not migrated) gets
// none.
func auditBackup(ctx context.Context, db auditDB, by memory.Actor, file string, size int64) error {
	var name string
	var hasAudit bool
	if err := db.QueryRow(ctx, `SELECT current_database(), to_regclass('public.audit_log') IS NOT NULL`).Scan(&name, &hasAudit); err != nil {
		return err
	}
	if !hasAudit {
		return nil
	}
	return memory.WriteAuditTo(ctx, db, memory.AuditEntry{At: time.Now().UTC().Truncate(time.Microsecond),
		Actor: by, Action: "backup.create", TargetType: "database", TargetID: name,
		After: map[string]any{"file": absPath(file), "bytes": size}})
}

// auditDB is what an audit row is written through: a pool, a connection
// or a transaction.
type auditDB interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	Query(context.Context, string, ...any) (pgx.Rows, error)
	QueryRow(context.Context, string, ...any) pgx.Row
}

// absPath is file as an absolute path, for the audit log, or as given when
// it cannot be made one.
func absPath(file string) string {
	if abs, err := filepath.Abs(file); err == nil {
		return abs
	}
	return file
}

// runRestore reads a backup into an empty database (or data folder), or,
// with --force, over one that holds data: tenure restore FILE.
func runRestore(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure restore FILE [--force]\n\nRestores a backup made by tenure backup into an empty database or data folder, all of it or\nnothing; any other archive is refused. A database that holds data is refused unless --force,\nwhich replaces it. Stop the server first: a database that a server (or any other client) is\nconnected to is refused, with --force too.")
		fs.PrintDefaults()
	}
	cfg.register(fs, env.getenv)
	cfg.application = "tenure restore"
	force := fs.Bool("force", false, "replace what the database holds (never while a server or other client is connected to it)")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("restore: name the backup file: tenure restore FILE [--force]")
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	file := fs.Arg(0)
	if _, err := os.Stat(file); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	// A file that is not a Tenure backup is refused before a data folder
	// is made for it; Restore checks it again.
	if err := backup.Check(ctx, file, backup.Options{Getenv: env.getenv}); err != nil {
		return err
	}
	logger := cfg.logger(env.stderr)
	db, err := openDatabase(ctx, &cfg, env.getenv, logger)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer db.close()
	url := db.url()
	// The pool's connection would count as a client attached to the
	// database, which Restore refuses: it is closed, and the migrations
	// open their own while the restore runs.
	db.pool.Close()
	start := time.Now()
	if err := backup.Restore(ctx, url, file, *force, backup.Options{Getenv: env.getenv,
		Progress: progressLine(env.stderr, "restore", start),
		Migrate: func(ctx context.Context, url string, version int64) error {
			pcfg, err := poolConfig(url, logger)
			if err != nil {
				return err
			}
			pcfg.ConnConfig.RuntimeParams["application_name"] = cfg.application
			pool, err := pgxpool.NewWithConfig(ctx, pcfg)
			if err != nil {
				return err
			}
			defer pool.Close()
			return migrateTo(ctx, pool, logger, version)
		},
		BeforeCommit: func(ctx context.Context, tx pgx.Tx, version int64) error {
			return auditRestore(ctx, tx, file, version, *force)
		}}); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Restored %s in %s\n", file, time.Since(start).Round(time.Millisecond))
	return nil
}

// auditRestore writes the audit row of a restore (backup.restore, by the
// command line) in its transaction, after the rows of the backup: the file,
// the schema version restored, and whether --force replaced data.
func auditRestore(ctx context.Context, tx pgx.Tx, file string, version int64, force bool) error {
	var name string
	if err := tx.QueryRow(ctx, `SELECT current_database()`).Scan(&name); err != nil {
		return err
	}
	return memory.WriteAuditTo(ctx, tx, memory.AuditEntry{At: time.Now().UTC().Truncate(time.Microsecond),
		Actor: memory.System("cli"), Action: "backup.restore", TargetType: "database", TargetID: name,
		After: map[string]any{"file": absPath(file), "schema_version": version, "force": force}})
}

// migrateTo brings the database behind pool to version of Tenure's schema,
// up one migration at a time or down: restore makes the schema of a backup
// so. A version none of the migrations has is refused with
// backup.ErrUnknownVersion.
func migrateTo(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger, version int64) error {
	m, err := migrations.New(pool, logger)
	if err != nil {
		return err
	}
	defer m.Close()
	st, err := m.Status(ctx)
	if err != nil {
		return err
	}
	if version != 0 && !slices.ContainsFunc(st, func(s *goose.MigrationStatus) bool { return s.Source.Version == version }) {
		return fmt.Errorf("%w: %d is none of its migrations", backup.ErrUnknownVersion, version)
	}
	current, _, err := m.Version(ctx)
	if err != nil {
		return err
	}
	for current < version {
		res, err := m.UpByOne(ctx)
		if err != nil {
			return err
		}
		current = res.Source.Version
	}
	if current > version {
		_, err = m.DownTo(ctx, version)
	}
	return err
}

// writeBackup writes the backup to file through a temporary file beside
// it, renamed into place once complete: a file of that name is always a
// whole backup. The temporary files that killed backups of the same name
// left are removed (backup.WriteFile).
func writeBackup(ctx context.Context, url, file string, getenv func(string) string, progress func(int64)) (int64, error) {
	return backup.WriteFile(ctx, url, file, backup.Options{Getenv: getenv, Progress: progress})
}

// backupPrefix and backupSuffix frame the names of scheduled backups.
const backupPrefix, backupSuffix = "tenure-", ".dump"

// scheduledBackup writes a backup named by its time into dir and keeps the
// newest keep of them. The temporary files of earlier scheduled backups
// that did not finish (their process was killed) are removed.
func scheduledBackup(ctx context.Context, url, dir string, keep int, now time.Time, getenv func(string) string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	if err := backup.RemoveStalePartials(dir, isScheduledBackup); err != nil {
		return "", err
	}
	file := filepath.Join(dir, backupPrefix+now.UTC().Format("20060102T150405Z")+backupSuffix)
	n, err := writeBackup(ctx, url, file, getenv, nil)
	if err != nil {
		return "", err
	}
	// The audit row, by the backup job; the older backups are pruned
	// whether or not it could be written.
	auditErr := func() error {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(context.WithoutCancel(ctx))
		return auditBackup(ctx, conn, memory.System("backup"), file, n)
	}()
	if auditErr != nil {
		auditErr = fmt.Errorf("backup: the backup was written to %s, but its audit row was not: %w", file, auditErr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return file, fmt.Errorf("backup: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && isScheduledBackup(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names) // the time in the name sorts them oldest first
	for len(names) > keep {
		if err := os.Remove(filepath.Join(dir, names[0])); err != nil {
			return file, fmt.Errorf("backup: %w", err)
		}
		names = names[1:]
	}
	return file, auditErr
}

// isScheduledBackup reports whether name is that of a scheduled backup.
func isScheduledBackup(name string) bool {
	return strings.HasPrefix(name, backupPrefix) && strings.HasSuffix(name, backupSuffix)
}

// progressLine reports bytes copied so far on w, at most every two seconds.
func progressLine(w io.Writer, what string, start time.Time) func(int64) {
	var last time.Time
	return func(n int64) {
		if time.Since(last) < 2*time.Second {
			return
		}
		last = time.Now()
		rate := float64(n) / time.Since(start).Seconds()
		fmt.Fprintf(w, "%s: %s so far (%s/s)\n", what, mib(n), mib(int64(rate)))
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
