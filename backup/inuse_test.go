package backup_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/backup"
	"github.com/tenurehq/tenure/internal/pgtest"
)

// connectAs opens one connection to url that names itself app, as a Tenure
// server's pool does.
func connectAs(t *testing.T, url, app string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = app
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestRestoreRefusesADatabaseInUse: while another client (a Tenure server)
// is connected to the database, a restore is refused, with --force too,
// naming the client and how to stop it, and nothing is written; once it
// disconnects, the restore proceeds.
func TestRestoreRefusesADatabaseInUse(t *testing.T) {
	ctx := context.Background()
	src := pgtest.NewURL(t)
	execAll(t, src, `INSERT INTO users (email, role, password_hash) VALUES ('ann@example.com', 'admin', 'x')`)
	file := backupOf(t, src)

	dst := pgtest.NewEmptyURL(t)
	server := connectAs(t, dst, "tenure serve")
	if others, err := backup.Attached(ctx, dst); err != nil || len(others) != 1 || others[0].Application != "tenure serve" ||
		others[0].PID != int(server.PgConn().PID()) {
		t.Fatalf("Attached() = %+v, %v; want the server's one connection", others, err)
	}

	for _, force := range []bool{false, true} {
		err := backup.Restore(ctx, dst, file, force, restoreOptions)
		if !errors.Is(err, backup.ErrInUse) {
			t.Fatalf("Restore(force %t) while a server is connected = %v, want ErrInUse", force, err)
		}
		msg := err.Error()
		for _, want := range []string{"restore: ", "1 other connection", `"tenure serve"`, "tenure serve processes", "nothing was restored"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Restore(force %t) refusal %q does not say %q", force, msg, want)
			}
		}
		if strings.Contains(msg, "backup:") || !strings.HasPrefix(msg, "restore: ") {
			t.Errorf("Restore(force %t) refusal %q does not start with restore:", force, msg)
		}
		if force != strings.Contains(msg, "--force does not override this") {
			t.Errorf("Restore(force %t) refusal %q: it should say --force does not help exactly when --force was given", force, msg)
		}
		t.Log(msg)
	}
	if n := tableCountOf(t, server); n != 0 {
		t.Fatalf("the refused restores left %d tables", n)
	}

	// Two connections of one kind are counted together.
	second := connectAs(t, dst, "tenure serve")
	err := backup.Restore(ctx, dst, file, false, restoreOptions)
	if err == nil || !strings.Contains(err.Error(), `2 other connections`) || !strings.Contains(err.Error(), `2 × "tenure serve"`) {
		t.Errorf("Restore with two server connections = %v, want both counted", err)
	}
	second.Close(ctx)

	// Once the server is gone, the restore runs (its server processes may
	// linger a moment after the connection closes).
	server.Close(ctx)
	if err := backup.Restore(ctx, dst, file, false, restoreOptions); err != nil {
		t.Fatalf("Restore once the server disconnected = %v", err)
	}
	var users int
	if err := pgtest.Connect(t, dst).QueryRow(ctx, `SELECT count(*) FROM users WHERE email = 'ann@example.com'`).Scan(&users); err != nil || users != 1 {
		t.Errorf("restored users = %d, %v; want the backed-up one", users, err)
	}
}

func tableCountOf(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRestoreBeforeCommit: what Options.BeforeCommit writes is kept with the
// rows; an error it returns undoes the whole restore.
func TestRestoreBeforeCommit(t *testing.T) {
	ctx := context.Background()
	file := backupOf(t, pgtest.NewURL(t))

	failing := restoreOptions
	failing.BeforeCommit = func(context.Context, pgx.Tx, int64) error { return errors.New("the audit row could not be written") }
	dst := pgtest.NewEmptyURL(t)
	err := backup.Restore(ctx, dst, file, false, failing)
	if err == nil || !strings.HasPrefix(err.Error(), "restore: ") || !strings.Contains(err.Error(), "the audit row could not be written") {
		t.Fatalf("Restore with a failing BeforeCommit = %v, want its error", err)
	}
	if n := tableCount(t, dst); n != 0 {
		t.Errorf("the failed restore left %d tables", n)
	}

	var version int64
	writing := restoreOptions
	writing.BeforeCommit = func(ctx context.Context, tx pgx.Tx, v int64) error {
		version = v
		_, err := tx.Exec(ctx, `INSERT INTO audit_log (actor, action, target_type, target_id) VALUES ('system:test', 'backup.restore', 'database', 'x')`)
		return err
	}
	dst = pgtest.NewEmptyURL(t)
	if err := backup.Restore(ctx, dst, file, false, writing); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := pgtest.Connect(t, dst).QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'backup.restore'`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("audit rows written in the restore = %d, %v; want 1", rows, err)
	}
	if version <= 0 {
		t.Errorf("BeforeCommit was told version %d", version)
	}
}
