// Package backup copies a whole Tenure database to a file and back, with
// PostgreSQL's own tools (pg_dump and pg_restore, from the installed
// server's binaries): a backup is consistent at one instant, taken while the
// server keeps writing, and holds every table (facts, decisions, working
// rows, tombstones, the rejection log, policies, users, tokens, the audit
// log) and the schema version.
package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/pglocal"
)

// Options say where the tools are and what to tell about progress.
type Options struct {
	// Getenv finds PG_BIN (see pglocal.FindBinDir); nil reads the process's
	// environment.
	Getenv func(string) string
	// Progress is called from time to time with the bytes copied so far;
	// nil for none.
	Progress func(bytes int64)
	// Snapshot, when set, is a snapshot exported by a transaction of the
	// same server (pg_export_snapshot): the backup shows exactly what that
	// transaction sees. Without it, pg_dump takes its own snapshot.
	Snapshot string
}

func tool(name string, o Options) (string, error) {
	dir, err := pglocal.FindBinDir(o.Getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// Dump writes a backup of the database at url to w: pg_dump's custom
// format, compressed, without owners or privileges so that it restores into
// any database.
func Dump(ctx context.Context, url string, w io.Writer, o Options) (int64, error) {
	bin, err := tool("pg_dump", o)
	if err != nil {
		return 0, err
	}
	args := []string{"--format=custom", "--no-owner", "--no-privileges", "--dbname=" + url}
	if o.Snapshot != "" {
		args = append(args, "--snapshot="+o.Snapshot)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cw := &counter{w: w, progress: o.Progress}
	cmd.Stdout = cw
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return cw.n, fmt.Errorf("backup: pg_dump: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return cw.n, nil
}

// ErrNotEmpty refuses to restore over a database that holds tables.
var ErrNotEmpty = errors.New("the database is not empty")

// Empty reports whether the database at url holds no table of its own.
func Empty(ctx context.Context, url string) (bool, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return false, fmt.Errorf("backup: %w", err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx,
		`SELECT count(*) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
		 WHERE c.relkind IN ('r', 'p') AND s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg_toast%'`).Scan(&n); err != nil {
		return false, fmt.Errorf("backup: %w", err)
	}
	return n == 0, nil
}

// Restore reads a backup made by Dump from r into the database at url, in
// one transaction: all of it or nothing. A database that holds tables is
// refused with ErrNotEmpty unless force, which drops what the backup
// recreates first.
func Restore(ctx context.Context, url string, r io.Reader, force bool, o Options) error {
	empty, err := Empty(ctx, url)
	if err != nil {
		return err
	}
	if !empty && !force {
		return fmt.Errorf("backup: %w: restore into an empty one, or pass --force to replace what it holds", ErrNotEmpty)
	}
	bin, err := tool("pg_restore", o)
	if err != nil {
		return err
	}
	args := []string{"--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error", "--dbname=" + url}
	if !empty {
		args = append(args, "--clean", "--if-exists")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = &counter{r: r, progress: o.Progress}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("backup: pg_restore: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// counter counts the bytes passing through, reporting every megabyte.
type counter struct {
	w        io.Writer
	r        io.Reader
	n, last  int64
	progress func(int64)
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.add(n)
	return n, err
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.add(n)
	return n, err
}

func (c *counter) add(n int) {
	c.n += int64(n)
	if c.progress != nil && c.n-c.last >= 1<<20 {
		c.last = c.n
		c.progress(c.n)
	}
}
