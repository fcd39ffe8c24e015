package backup_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/backup"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/pglocal"
)

// backupOf writes a backup of the database at url to a file and returns
// its path.
func backupOf(t *testing.T, url string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tenure.dump")
	if _, err := backup.WriteFile(context.Background(), url, file, backup.Options{}); err != nil {
		t.Fatal(err)
	}
	return file
}

// exec runs statements on the database at url.
func execAll(t *testing.T, url string, stmts ...string) {
	t.Helper()
	pool := pgtest.Connect(t, url)
	for _, s := range stmts {
		if _, err := pool.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// tableCount is the number of tables the database at url holds.
func tableCount(t *testing.T, url string) int {
	t.Helper()
	var n int
	if err := pgtest.Connect(t, url).QueryRow(context.Background(),
		`SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// marker is a path the server's user may create a file at: the programs of
// the hostile backups below touch it.
func marker(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tenure-restore-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// PostgreSQL may run as another user (postgres, when tests run as root).
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "the-program-ran")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// programFunction is a PL/pgSQL function body that runs `touch path` on the
// server's host with COPY ... TO PROGRAM and returns true.
func programFunction(path string) string {
	return `$$ BEGIN EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'touch ` + strings.ReplaceAll(path, "'", "''") + `'); RETURN true; END $$`
}

// plainRestoreRunsIt shows that the backup in file is as hostile as meant:
// pg_restore run the ordinary way, as the superuser, into a scratch
// database runs its program. The mark is removed afterwards.
func plainRestoreRunsIt(t *testing.T, file, mark string) {
	t.Helper()
	dir, err := pglocal.FindBinDir(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(filepath.Join(dir, "pg_restore"), "--no-owner", "--dbname="+pgtest.NewEmptyURL(t), file).CombinedOutput()
	if !exists(mark) {
		t.Fatalf("a plain pg_restore of the hostile backup did not run its program (%s): the test shows nothing", out)
	}
	if err := os.Remove(mark); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreRefusesAForeignDump: a backup of a database that is not
// Tenure's is refused, naming its table, and nothing is written.
func TestRestoreRefusesAForeignDump(t *testing.T) {
	src := pgtest.NewEmptyURL(t)
	execAll(t, src, `CREATE TABLE orders (id int PRIMARY KEY, item text)`, `INSERT INTO orders VALUES (1, 'tea')`)
	file := backupOf(t, src)

	dst := pgtest.NewEmptyURL(t)
	err := backup.Restore(context.Background(), dst, file, false, restoreOptions)
	if !errors.Is(err, backup.ErrForeign) || !strings.HasPrefix(err.Error(), "restore: ") ||
		!strings.Contains(err.Error(), "TABLE public orders") {
		t.Fatalf("Restore of a foreign dump = %v, want a refusal naming TABLE public orders", err)
	}
	t.Log(err)
	if n := tableCount(t, dst); n != 0 {
		t.Errorf("the refused restore left %d tables", n)
	}
	if err := backup.Check(context.Background(), file, backup.Options{}); !errors.Is(err, backup.ErrForeign) {
		t.Errorf("Check = %v, want ErrForeign", err)
	}
}

// TestRestoreNeverRunsTheBackupsCode: backups whose table CHECK calls a
// function running `touch` through COPY ... TO PROGRAM (which a plain
// pg_restore runs) never run it: one that holds a function or table of its
// own is refused naming them; one whose only change is inside Tenure's own
// objects (a function's body, a CHECK in a table's definition) is restored
// into the schema Tenure's migrations make, without them.
func TestRestoreNeverRunsTheBackupsCode(t *testing.T) {
	ctx := context.Background()
	// trap adds a function that runs the program and a table whose CHECK
	// calls it, with a row; the function is harmless until the row is in.
	trap := func(mark string) []string {
		return []string{
			`CREATE FUNCTION evil(x int) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$`,
			`CREATE TABLE trap (x int CHECK (evil(x)))`,
			`INSERT INTO trap VALUES (1)`,
			`CREATE OR REPLACE FUNCTION evil(x int) RETURNS boolean LANGUAGE plpgsql AS ` + programFunction(mark),
		}
	}
	for _, tc := range []struct {
		name   string
		tenure bool // a Tenure database, with the demo's memory
		setup  func(mark string) []string
		want   []string // what the refusal names; none: restored
	}{
		{"a foreign dump", false, trap, []string{"FUNCTION public evil(integer)", "TABLE public trap"}},
		{"a Tenure backup with a function and table of its own", true, trap, []string{"FUNCTION public evil(integer)", "TABLE public trap"}},
		{"a Tenure backup with a tampered function and CHECK", true, func(mark string) []string {
			return []string{
				// A CHECK in memory_nodes' definition calls one of Tenure's
				// functions, whose body then runs the program.
				`ALTER TABLE memory_nodes ADD CONSTRAINT memory_nodes_trap CHECK (tenure_supersedes(scope, content) IS NOT NULL OR scope IS NOT NULL)`,
				`CREATE OR REPLACE FUNCTION tenure_supersedes(p_category text, p_durability text) RETURNS boolean LANGUAGE plpgsql AS ` + programFunction(mark),
			}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mark := marker(t)
			src := pgtest.NewEmptyURL(t)
			if tc.tenure {
				src = pgtest.NewURL(t)
				if _, err := demo.Load(ctx, pgtest.Connect(t, src), time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			execAll(t, src, tc.setup(mark)...)
			if exists(mark) {
				t.Fatal("the program ran while the backup was made")
			}
			file := backupOf(t, src)
			plainRestoreRunsIt(t, file, mark)

			dst := pgtest.NewEmptyURL(t)
			err := backup.Restore(ctx, dst, file, false, restoreOptions)
			if exists(mark) {
				t.Fatal("the restore ran the backup's program")
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Restore = %v", err)
				}
				pool := pgtest.Connect(t, dst)
				var body string
				var checks int
				if err := pool.QueryRow(ctx, `SELECT prosrc, (SELECT count(*) FROM pg_constraint WHERE conname = 'memory_nodes_trap')
					FROM pg_proc WHERE proname = 'tenure_supersedes'`).Scan(&body, &checks); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(body, "PROGRAM") || checks != 0 {
					t.Errorf("the restored schema has the backup's function (%q) or its CHECK (%d)", body, checks)
				}
				if a, b := count(t, src, "memory_nodes"), count(t, dst, "memory_nodes"); a != b || a == 0 {
					t.Errorf("restored %d working rows of %d", b, a)
				}
				return
			}
			if !errors.Is(err, backup.ErrForeign) {
				t.Fatalf("Restore = %v, want ErrForeign", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal %q does not name %s", err, w)
				}
			}
			if n := tableCount(t, dst); n != 0 {
				t.Errorf("the refused restore left %d tables", n)
			}
		})
	}
}

func count(t *testing.T, url, table string) int {
	t.Helper()
	var n int
	if err := pgtest.Connect(t, url).QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRestoreRefusesWhatTenureDoesNotHave: a Tenure backup with one object
// Tenure's schema does not have, or at a version this Tenure does not
// know, is refused naming it, and nothing is written.
func TestRestoreRefusesWhatTenureDoesNotHave(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stmts []string
		want  string
	}{
		{"an extension", []string{`CREATE EXTENSION hstore`}, "EXTENSION - hstore"},
		{"a trigger", []string{`CREATE TRIGGER extra BEFORE INSERT ON memory_nodes FOR EACH ROW EXECUTE FUNCTION entity_facts_set_forget_at()`},
			"TRIGGER public memory_nodes extra"},
		{"a constraint", []string{`ALTER TABLE memory_nodes ADD CONSTRAINT memory_nodes_extra UNIQUE (id, scope)`},
			"CONSTRAINT public memory_nodes memory_nodes_extra"},
		{"a foreign table", []string{`CREATE EXTENSION postgres_fdw`, `CREATE SERVER elsewhere FOREIGN DATA WRAPPER postgres_fdw`,
			`CREATE FOREIGN TABLE remote (x int) SERVER elsewhere`}, "FOREIGN TABLE public remote"},
		{"a view", []string{`CREATE VIEW everything AS SELECT * FROM memory_nodes`}, "VIEW public everything"},
		{"an unknown version", []string{`INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, true)`}, "version 9999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := pgtest.NewURL(t)
			execAll(t, src, tc.stmts...)
			file := backupOf(t, src)
			dst := pgtest.NewEmptyURL(t)
			err := backup.Restore(context.Background(), dst, file, false, restoreOptions)
			if err == nil || !strings.HasPrefix(err.Error(), "restore: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Restore = %v, want a refusal naming %s", err, tc.want)
			}
			t.Log(err)
			if n := tableCount(t, dst); n != 0 {
				t.Errorf("the refused restore left %d tables", n)
			}
		})
	}
}

// TestFailedRestoreLeavesTheDatabaseAsItWas: a Tenure backup whose rows
// break a foreign key (it was made NOT VALID) fails when the key is
// checked, after every row was written; the empty database is left empty
// and, with --force, the database's rows are left as they were.
func TestFailedRestoreLeavesTheDatabaseAsItWas(t *testing.T) {
	ctx := context.Background()
	src := pgtest.NewURL(t)
	pool := pgtest.Connect(t, src)
	var def string
	if err := pool.QueryRow(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'decisions_superseded_id_fkey'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	execAll(t, src,
		`ALTER TABLE decisions_superseded DROP CONSTRAINT decisions_superseded_id_fkey`,
		`INSERT INTO decisions_superseded (id) VALUES (987654321)`,
		`ALTER TABLE decisions_superseded ADD CONSTRAINT decisions_superseded_id_fkey `+def+` NOT VALID`)
	file := backupOf(t, src)

	dst := pgtest.NewEmptyURL(t)
	err := backup.Restore(ctx, dst, file, false, restoreOptions)
	if err == nil || !strings.Contains(err.Error(), "decisions_superseded_id_fkey") {
		t.Fatalf("Restore = %v, want a failure naming the foreign key", err)
	}
	t.Log(err)
	if n := tableCount(t, dst); n != 0 {
		t.Errorf("the failed restore left %d tables in the empty database", n)
	}

	full := pgtest.NewPool(t)
	if _, err := demo.Load(ctx, full, time.Now()); err != nil {
		t.Fatal(err)
	}
	before := fingerprints(t, full)
	if err := backup.Restore(ctx, full.Config().ConnString(), file, true, restoreOptions); err == nil {
		t.Fatal("forced Restore of the broken backup succeeded")
	}
	after := fingerprints(t, full)
	for table, b := range before {
		if after[table] != b {
			t.Errorf("the failed forced restore changed %s: %q, was %q", table, after[table], b)
		}
	}
}

// restoredRoles counts the roles restores made that are left.
func restoredRoles(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tenure\_restore\_%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRestoreOfAVersionSchemaTxtLacks: at a version schema.txt does not
// hold (a migration added without writing it again), a backup is checked
// against the schema the migrations make: a whole backup restores, one
// with a function of its own is refused naming it and the empty database
// is left empty.
func TestRestoreOfAVersionSchemaTxtLacks(t *testing.T) {
	ctx := context.Background()
	src := pgtest.NewURL(t)
	if _, err := demo.Load(ctx, pgtest.Connect(t, src), time.Now()); err != nil {
		t.Fatal(err)
	}
	var latest int64
	if err := pgtest.Connect(t, src).QueryRow(ctx, `SELECT max(version_id) FROM goose_db_version`).Scan(&latest); err != nil {
		t.Fatal(err)
	}
	defer backup.WithoutSchemaVersion(latest)()

	dst := pgtest.NewEmptyURL(t)
	if err := backup.Restore(ctx, dst, backupOf(t, src), false, restoreOptions); err != nil {
		t.Fatalf("Restore = %v", err)
	}
	if a, b := fingerprints(t, pgtest.Connect(t, src)), fingerprints(t, pgtest.Connect(t, dst)); len(a) != len(b) || a["entity_facts"] != b["entity_facts"] {
		t.Errorf("restored %v, backed up %v", b, a)
	}

	execAll(t, src, `CREATE FUNCTION extra() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$`)
	dst = pgtest.NewEmptyURL(t)
	err := backup.Restore(ctx, dst, backupOf(t, src), false, restoreOptions)
	if !errors.Is(err, backup.ErrForeign) || !strings.Contains(err.Error(), "FUNCTION public extra()") {
		t.Fatalf("Restore = %v, want a refusal naming FUNCTION public extra()", err)
	}
	if n := tableCount(t, dst); n != 0 {
		t.Errorf("the refused restore left %d tables", n)
	}
}
