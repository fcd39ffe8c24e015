// Package backup copies a whole Tenure database to a file and back, with
// PostgreSQL's own tools (pg_dump and pg_restore, from the installed
// server's binaries): a backup is consistent at one instant, taken while the
// server keeps writing, and holds every table (facts, decisions, working
// rows, tombstones, the rejection log, policies, users, tokens, the audit
// log) and the schema version. A restore reads only such backups, and only
// their rows (see restore.go).
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
	// Migrate brings the database at url to a version of Tenure's schema
	// with Tenure's migrations, up or down (0 removes them): Restore makes
	// the schema with it. Restore needs it; Dump does not.
	Migrate func(ctx context.Context, url string, version int64) error
	// BeforeCommit, when set, is called by Restore in the transaction that
	// writes the rows, once every row is in and checked and before the
	// commit, with the schema version restored: what it writes (an audit
	// row of the restore) is kept with the rows, and an error it returns
	// undoes the restore.
	BeforeCommit func(ctx context.Context, tx pgx.Tx, version int64) error
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

// empty reports whether the database at url holds no table of its own.
func empty(ctx context.Context, url string) (bool, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx,
		`SELECT count(*) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
		 WHERE c.relkind IN ('r', 'p') AND s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg_toast%'`).Scan(&n); err != nil {
		return false, err
	}
	return n == 0, nil
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
