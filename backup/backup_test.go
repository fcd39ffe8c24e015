package backup_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pressly/goose/v3"

	"github.com/tenurehq/tenure/backup"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/migrations"
)

// A child process of TestKilledBackupsLeaveNoPartialBehind writes a backup
// of the database at writeChildURL to writeChildFile.
const writeChildURL, writeChildFile = "TENURE_TEST_BACKUP_CHILD_URL", "TENURE_TEST_BACKUP_CHILD_FILE"

func TestMain(m *testing.M) {
	if url := os.Getenv(writeChildURL); url != "" {
		if _, err := backup.WriteFile(context.Background(), url, os.Getenv(writeChildFile), backup.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	pgtest.Main(m)
}

// restoreOptions make the schema with Tenure's migrations.
var restoreOptions = backup.Options{Migrate: migrateTo}

// migrateTo brings the database at url to version, up or down.
func migrateTo(ctx context.Context, url string, version int64) error {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := migrations.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
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

// fingerprints are, per table of the public schema, its row count and a
// checksum of its rows' text, independent of their order.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func fingerprints(t *testing.T, q querier) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := q.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, table := range tables {
		var n int64
		var sum *string
		sql := fmt.Sprintf(`SELECT count(*), md5(string_agg(h, '' ORDER BY h)) FROM (SELECT md5(t::text) AS h FROM %s t) x`,
			pgx.Identifier{table}.Sanitize())
		if err := q.QueryRow(ctx, sql).Scan(&n, &sum); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		s := ""
		if sum != nil {
			s = *sum
		}
		out[table] = fmt.Sprintf("%d rows, %s", n, s)
	}
	return out
}

// TestBackupDuringWritesRestores: a backup taken while an agent keeps
// pushing restores into an empty database with every table as it was at the
// backup's instant, row for row; restoring over a database that holds data
// is refused.
func TestBackupDuringWritesRestores(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	if _, err := demo.Load(ctx, pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	store := memory.NewStore(pool, memory.Options{})

	writeCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var written int
	started := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; writeCtx.Err() == nil; i++ {
			if _, err := store.Push(writeCtx, memory.Token("agent"), "acme-support",
				[]memory.NewNode{{Content: fmt.Sprintf("Ticket %d was answered.", i)}}); err != nil {
				return
			}
			if written++; written == 20 {
				close(started) // the backup starts while writes go on
			}
		}
	}()
	<-started

	// The backup's instant: a transaction exports its snapshot, the dump
	// reads through it, and the same transaction reads the fingerprints.
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	var snapshot string
	if err := tx.QueryRow(ctx, `SELECT pg_export_snapshot()`).Scan(&snapshot); err != nil {
		t.Fatal(err)
	}
	want := fingerprints(t, tx)
	var file bytes.Buffer
	var reported int64
	n, err := backup.Dump(ctx, pool.Config().ConnString(), &file, backup.Options{Snapshot: snapshot,
		Progress: func(b int64) { reported = b }})
	if err != nil {
		t.Fatal(err)
	}
	tx.Rollback(ctx)
	stop()
	wg.Wait()
	if n != int64(file.Len()) || n == 0 || reported > n {
		t.Errorf("Dump reported %d bytes (progress %d), wrote %d", n, reported, file.Len())
	}
	if written == 0 {
		t.Fatal("no write ran during the backup")
	}

	path := filepath.Join(t.TempDir(), "tenure.dump")
	if err := os.WriteFile(path, file.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	target := pgtest.NewEmptyURL(t)
	if err := backup.Restore(ctx, target, path, false, restoreOptions); err != nil {
		t.Fatal(err)
	}
	restored, err := pgxpool.New(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	got := fingerprints(t, restored)
	if n := restoredRoles(t, restored); n != 0 {
		t.Errorf("%d roles of the restore are left", n)
	}
	if len(got) != len(want) || len(want) < 15 {
		t.Errorf("restored %d tables, backed up %d", len(got), len(want))
	}
	for table, w := range want {
		if got[table] != w {
			t.Errorf("table %s restored as %q, backed up as %q", table, got[table], w)
		}
	}

	// The source holds data: restoring over it needs --force. (A restore
	// refuses a database anyone is connected to: the pools close first.)
	pool.Close()
	if err := backup.Restore(ctx, pool.Config().ConnString(), path, false, restoreOptions); !errors.Is(err, backup.ErrNotEmpty) {
		t.Errorf("Restore over a database with data = %v, want ErrNotEmpty", err)
	}
	// With force, the restored copy is replaced by the backup again.
	if _, err := restored.Exec(ctx, `DELETE FROM memory_nodes`); err != nil {
		t.Fatal(err)
	}
	restored.Close()
	if err := backup.Restore(ctx, target, path, true, restoreOptions); err != nil {
		t.Fatal(err)
	}
	again, err := pgxpool.New(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := fingerprints(t, again); got["memory_nodes"] != want["memory_nodes"] {
		t.Errorf("forced restore: memory_nodes %q, want %q", got["memory_nodes"], want["memory_nodes"])
	}
}
