package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestBackupRestoreCommands: tenure backup writes a file that tenure restore
// reads into an empty database with the same facts, users and audit log;
// restoring over data is refused without --force.
func TestBackupRestoreCommands(t *testing.T) {
	src := pgtest.NewURL(t)
	if _, err := demo.Load(context.Background(), pgtest.Connect(t, src), time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tenure.dump")
	out, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": src}, "", "backup", file)
	if err != nil || !strings.Contains(out, "Backed up the database to "+file) {
		t.Fatalf("backup = %q %q %v", out, stderr, err)
	}
	dst := pgtest.NewEmptyURL(t)
	if out, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": dst}, "", "restore", file); err != nil || !strings.Contains(out, "Restored") {
		t.Fatalf("restore = %q %q %v", out, stderr, err)
	}
	// A restore refuses a database anyone is connected to: the counts
	// close their connections (countOnce).
	for _, table := range []string{"entity_facts", "decisions", "memory_nodes", "users", "decay_policies", "goose_db_version"} {
		if a, b := countOnce(t, src, "SELECT count(*) FROM "+table), countOnce(t, dst, "SELECT count(*) FROM "+table); a != b || a == 0 {
			t.Errorf("%s: %d rows restored, %d backed up", table, b, a)
		}
	}
	// The audit log holds the backup's rows, then the backup's own row
	// (written in the source after the dump) is missing and the restore's is
	// added.
	if a, b := countOnce(t, src, "SELECT count(*) FROM audit_log WHERE action NOT LIKE 'backup.%'"),
		countOnce(t, dst, "SELECT count(*) FROM audit_log WHERE action NOT LIKE 'backup.%'"); a != b || a == 0 {
		t.Errorf("audit_log: %d rows restored, %d backed up", b, a)
	}
	_, stderr, err = runCmd(t, map[string]string{"DATABASE_URL": dst}, "", "restore", file)
	if err == nil || !strings.Contains(err.Error()+stderr, "not empty") || !strings.Contains(err.Error()+stderr, "--force") {
		t.Errorf("restore over data = %v %q, want a refusal naming --force", err, stderr)
	}
	if err != nil && (!strings.HasPrefix(err.Error(), "restore: ") || strings.Contains(err.Error(), "backup:")) {
		t.Errorf("the restore command's refusal %q does not name restore", err)
	}
	if _, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": dst}, "", "restore", "--force", file); err != nil {
		t.Errorf("restore --force = %v %q", err, stderr)
	}
	if _, _, err := runCmd(t, map[string]string{"DATABASE_URL": src}, "", "backup"); err == nil {
		t.Error("backup without a file succeeded")
	}
}

// TestRestoreCommandRefusesAForeignDump: tenure restore of a backup of a
// database that is not Tenure's is refused, naming its table, before a
// data folder is made for it.
func TestRestoreCommandRefusesAForeignDump(t *testing.T) {
	src := pgtest.NewEmptyURL(t)
	if _, err := pgtest.Connect(t, src).Exec(context.Background(), `CREATE TABLE orders (id int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "orders.dump")
	if _, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": src}, "", "backup", file); err != nil {
		t.Fatalf("backup = %v %q", err, stderr)
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	_, stderr, err := runCmd(t, nil, "", "restore", "--data-dir", dataDir, file)
	if err == nil || !strings.HasPrefix(err.Error(), "restore: ") || !strings.Contains(err.Error(), "not a Tenure backup") ||
		!strings.Contains(err.Error(), "TABLE public orders") {
		t.Fatalf("restore of a foreign dump = %v %q, want a refusal naming TABLE public orders", err, stderr)
	}
	if _, err := os.Stat(dataDir); err == nil {
		t.Error("a data folder was made for the refused backup")
	}
}

// TestScheduledBackupKeepsTheNewest: each scheduled backup is named by its
// time and only the newest keep stay; the temporary file of an earlier
// scheduled backup that was killed is removed; other files in the folder
// are left.
func TestScheduledBackupKeepsTheNewest(t *testing.T) {
	url := pgtest.NewURL(t)
	dir := t.TempDir()
	for _, name := range []string{"notes.txt", ".notes.txt.partial-1", ".tenure-20261130T000000Z.dump.partial-12345"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		file, err := scheduledBackup(context.Background(), url, dir, 2, start.Add(time.Duration(i)*time.Hour), nil)
		if err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(file); err != nil || info.Size() == 0 {
			t.Fatalf("backup %s: %v", file, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{".notes.txt.partial-1", "notes.txt", "tenure-20261201T010000Z.dump", "tenure-20261201T020000Z.dump"}
	if !slices.Equal(names, want) {
		t.Errorf("folder holds %v, want %v", names, want)
	}
}
