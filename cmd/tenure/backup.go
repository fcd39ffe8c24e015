package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tenurehq/tenure/backup"
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
	fmt.Fprintf(env.stdout, "Backed up the database to %s: %s in %s\n", file, mib(n), time.Since(start).Round(time.Millisecond))
	return nil
}

// runRestore reads a backup into an empty database (or data folder), or,
// with --force, over one that holds data: tenure restore FILE.
func runRestore(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure restore FILE [--force]\n\nRestores a backup made by tenure backup into an empty database or data folder, all of it or\nnothing. A database that holds data is refused unless --force, which replaces it.\nStop the server first.")
		fs.PrintDefaults()
	}
	cfg.register(fs, env.getenv)
	force := fs.Bool("force", false, "replace what the database holds")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("restore: name the backup file: tenure restore FILE [--force]")
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer f.Close()
	logger := cfg.logger(env.stderr)
	db, err := openDatabase(ctx, &cfg, env.getenv, logger)
	if err != nil {
		return err
	}
	defer db.close()
	start := time.Now()
	if err := backup.Restore(ctx, db.url(), f, *force, backup.Options{Getenv: env.getenv,
		Progress: progressLine(env.stderr, "restore", start)}); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Restored %s in %s\n", fs.Arg(0), time.Since(start).Round(time.Millisecond))
	return nil
}

// writeBackup writes the backup to file through a temporary file beside
// it, renamed into place once complete: a file of that name is always a
// whole backup.
func writeBackup(ctx context.Context, url, file string, getenv func(string) string, progress func(int64)) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".partial-*")
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	defer os.Remove(tmp.Name())
	n, err := backup.Dump(ctx, url, tmp, backup.Options{Getenv: getenv, Progress: progress})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	return n, os.Rename(tmp.Name(), file)
}

// backupPrefix and backupSuffix frame the names of scheduled backups.
const backupPrefix, backupSuffix = "tenure-", ".dump"

// scheduledBackup writes a backup named by its time into dir and keeps the
// newest keep of them.
func scheduledBackup(ctx context.Context, url, dir string, keep int, now time.Time, getenv func(string) string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	file := filepath.Join(dir, backupPrefix+now.UTC().Format("20060102T150405Z")+backupSuffix)
	if _, err := writeBackup(ctx, url, file, getenv, nil); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return file, fmt.Errorf("backup: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, backupPrefix) && strings.HasSuffix(n, backupSuffix) {
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
	return file, nil
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
