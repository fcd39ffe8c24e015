package pglocal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The standby tests run one after the other, before the parallel tests of
// the package: each runs two or three servers, and the load they would add
// to the parallel tests slows those down.

// startStandby starts a standby of primary and stops it at the end of the
// test.
func startStandby(t *testing.T, primary *Cluster, opts StandbyOptions) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, err := primary.StartStandby(ctx, opts)
	if err != nil {
		t.Fatalf("StartStandby(%s) = %v, want nil", opts.DataDir, err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	return s
}

// waitFor polls cond until it reports true, failing the test after a
// generous deadline with the last error cond returned.
func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s (last error: %v)", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasRow reports whether table holds a row with body on conn.
func hasRow(ctx context.Context, conn *pgx.Conn, table, body string) (bool, error) {
	var n int
	err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table+" WHERE body = $1", body).Scan(&n)
	return n > 0, err
}

// lsnOf runs a query returning a pg_lsn on conn, as text.
func lsnOf(t *testing.T, conn *pgx.Conn, sql string) string {
	t.Helper()
	var lsn string
	if err := conn.QueryRow(t.Context(), sql).Scan(&lsn); err != nil {
		t.Fatalf("QueryRow(%q) = %v", sql, err)
	}
	return lsn
}

func TestStandbyStreamsAndRestarts(t *testing.T) {
	requireBinaries(t)
	dir := tempDir(t)
	primary := startCluster(t, testOptions(t, filepath.Join(dir, "primary")))
	execSQL(t, primary.URL(), "CREATE TABLE memories (body text); INSERT INTO memories VALUES ('before the clone')")

	standbyDir := filepath.Join(dir, "standby")
	s := startStandby(t, primary, StandbyOptions{DataDir: standbyDir, Ephemeral: true, Name: "reader_1"})
	if s.Port() == primary.Port() || s.DataDir() != standbyDir || s.Version() != primary.Version() {
		t.Fatalf("standby port %d, data folder %s, version %s; primary port %d, version %s",
			s.Port(), s.DataDir(), s.Version(), primary.Port(), primary.Version())
	}
	if got := queryString(t, s.URL(), "SELECT current_database() || ' ' || pg_is_in_recovery() || ' ' || current_setting('transaction_read_only')"); got != "tenure true on" {
		t.Fatalf("standby database, in recovery, read only = %q, want %q", got, "tenure true on")
	}
	if got := queryString(t, s.URL(), "SELECT body FROM memories"); got != "before the clone" {
		t.Fatalf("standby row = %q, want the row cloned from the primary", got)
	}
	// The standby's log is its own, not the primary's copied along.
	if b, err := os.ReadFile(filepath.Join(standbyDir, logFileName)); err != nil {
		t.Fatal(err)
	} else if !strings.Contains(string(b), "entering standby mode") || strings.Contains(string(b), "ready to accept connections") {
		t.Errorf("standby log is not the standby's alone:\n%s", b)
	}

	// The standby's settings do not hold the password; its password file,
	// closed to others, does.
	if b, err := os.ReadFile(filepath.Join(standbyDir, "postgresql.auto.conf")); err != nil {
		t.Fatal(err)
	} else if strings.Contains(string(b), primary.password) || !strings.Contains(string(b), "passfile=") {
		t.Errorf("postgresql.auto.conf holds the password or no passfile:\n%s", b)
	}
	if fi, err := os.Stat(filepath.Join(standbyDir, standbyPassFileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v, %v; want a 0600 file", standbyPassFileName, fi, err)
	}

	// A row written on the primary is replayed on the standby.
	execSQL(t, primary.URL(), "INSERT INTO memories VALUES ('streamed')")
	sconn := connect(t, s.URL())
	waitFor(t, "the streamed row on the standby", func() (bool, error) {
		return hasRow(t.Context(), sconn, "memories", "streamed")
	})
	// The primary sees its standby streaming under the given name.
	if got := queryString(t, primary.URL(), "SELECT string_agg(application_name || ' ' || state, ',') FROM pg_stat_replication"); got != "reader_1 streaming" {
		t.Errorf("pg_stat_replication = %q, want %q", got, "reader_1 streaming")
	}
	// The standby refuses writes.
	_, err := sconn.Exec(t.Context(), "INSERT INTO memories VALUES ('on the standby')")
	if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "25006" {
		t.Fatalf("INSERT on the standby = %v, want read_only_sql_transaction (25006)", err)
	}

	// Killed, the standby is gone at once; writes go on on the primary.
	port := s.Port()
	children := childProcesses(s.proc.cmd.Process.Pid)
	if _, err := os.Stat("/proc/self/stat"); err == nil && len(children) == 0 {
		t.Fatal("found no process of the standby's postmaster in /proc")
	}
	if err := s.Kill(); err != nil {
		t.Fatalf("Kill() = %v", err)
	}
	for _, p := range children {
		if processRunning(p.Pid) {
			t.Errorf("process %d of the killed standby still runs", p.Pid)
		}
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done() not closed after Kill")
	}
	assertPortClosed(t, port, 0)
	if err := s.Stop(context.Background()); err != nil {
		t.Errorf("Stop() after Kill = %v, want nil", err)
	}
	execSQL(t, primary.URL(), "INSERT INTO memories VALUES ('while the standby was down')")

	// Started again on the same folder and port, it recovers from the crash
	// and catches up without a new clone.
	s2 := startStandby(t, primary, StandbyOptions{DataDir: standbyDir, Port: port, Ephemeral: true})
	if s2.Port() != port {
		t.Fatalf("restarted standby port = %d, want %d", s2.Port(), port)
	}
	s2conn := connect(t, s2.URL())
	waitFor(t, "the row written while the standby was down", func() (bool, error) {
		return hasRow(t.Context(), s2conn, "memories", "while the standby was down")
	})

	// Stop shuts the standby down; the primary is unaffected.
	if err := s2.Stop(context.Background()); err != nil {
		t.Fatalf("Stop() = %v", err)
	}
	assertPortClosed(t, port, 0)
	if got := queryString(t, primary.URL(), "SELECT count(*)::text FROM memories"); got != "3" {
		t.Errorf("primary rows = %s, want 3", got)
	}
}

// TestStandbyFollowsPrimaryRestart: both servers stopped and started again,
// the primary on another port, the standby streams from its new port.
func TestStandbyFollowsPrimaryRestart(t *testing.T) {
	requireBinaries(t)
	dir := tempDir(t)
	opts := testOptions(t, filepath.Join(dir, "primary"))
	primary := startCluster(t, opts)
	execSQL(t, primary.URL(), "CREATE TABLE memories (body text)")
	standbyDir := filepath.Join(dir, "standby")
	s := startStandby(t, primary, StandbyOptions{DataDir: standbyDir, Ephemeral: true})
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := primary.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}

	for opts.Port == 0 || opts.Port == primary.Port() {
		var err error
		if opts.Port, err = freePort(); err != nil {
			t.Fatal(err)
		}
	}
	primary2 := startCluster(t, opts)
	execSQL(t, primary2.URL(), "INSERT INTO memories VALUES ('after the move')")
	s2 := startStandby(t, primary2, StandbyOptions{DataDir: standbyDir, Ephemeral: true})
	conn := connect(t, s2.URL())
	waitFor(t, "the row written on the moved primary", func() (bool, error) {
		return hasRow(t.Context(), conn, "memories", "after the move")
	})
}

// TestStandbyReplayPause: with replay paused the standby receives the WAL
// but does not apply it, and falls further behind as the primary writes;
// resumed, it catches up.
func TestStandbyReplayPause(t *testing.T) {
	requireBinaries(t)
	dir := tempDir(t)
	primary := startCluster(t, testOptions(t, filepath.Join(dir, "primary")))
	execSQL(t, primary.URL(), "CREATE TABLE memories (body text)")
	s := startStandby(t, primary, StandbyOptions{DataDir: filepath.Join(dir, "standby"), Ephemeral: true})
	pconn, sconn := connect(t, primary.URL()), connect(t, s.URL())
	ctx := t.Context()

	if _, err := sconn.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatalf("pg_wal_replay_pause() = %v", err)
	}
	// gap is how many bytes of WAL the primary has written past what the
	// standby replayed, once the standby has received all of it.
	gap := func(what string) int64 {
		t.Helper()
		target := lsnOf(t, pconn, "SELECT pg_current_wal_insert_lsn()::text")
		var replayed string
		waitFor(t, what+" received by the paused standby", func() (bool, error) {
			var ok bool
			err := sconn.QueryRow(ctx, "SELECT pg_last_wal_receive_lsn() >= $1::pg_lsn, pg_last_wal_replay_lsn()::text", target).Scan(&ok, &replayed)
			return ok, err
		})
		var n int64
		if err := pconn.QueryRow(ctx, "SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint", target, replayed).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	if _, err := pconn.Exec(ctx, "INSERT INTO memories VALUES ('paused')"); err != nil {
		t.Fatal(err)
	}
	gap1 := gap("the first row")
	if ok, err := hasRow(ctx, sconn, "memories", "paused"); err != nil || ok {
		t.Fatalf("row on the paused standby = %t, %v; want not visible", ok, err)
	}
	if gap1 <= 0 {
		t.Fatalf("paused standby is %d bytes behind the primary, want > 0", gap1)
	}
	if _, err := pconn.Exec(ctx, "INSERT INTO memories SELECT 'more' FROM generate_series(1, 1000)"); err != nil {
		t.Fatal(err)
	}
	if gap2 := gap("the second write"); gap2 <= gap1 {
		t.Fatalf("paused standby is %d bytes behind after another write, want more than %d", gap2, gap1)
	}
	// The pause takes hold at the next record to replay.
	waitFor(t, "the standby's replay to be paused", func() (bool, error) {
		var state string
		err := sconn.QueryRow(ctx, "SELECT pg_get_wal_replay_pause_state()").Scan(&state)
		return state == "paused", err
	})

	if _, err := sconn.Exec(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatalf("pg_wal_replay_resume() = %v", err)
	}
	waitFor(t, "the resumed standby to catch up", func() (bool, error) {
		var n int
		err := sconn.QueryRow(ctx, "SELECT count(*) FROM memories").Scan(&n)
		return n == 1001, err
	})
}

func TestStartStandbyRejects(t *testing.T) {
	requireBinaries(t)
	dir := tempDir(t)
	primary := startCluster(t, testOptions(t, filepath.Join(dir, "primary")))
	other := startCluster(t, testOptions(t, filepath.Join(dir, "other")))
	s := startStandby(t, other, StandbyOptions{DataDir: filepath.Join(dir, "standby-of-other"), Ephemeral: true})
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	notEmpty := filepath.Join(dir, "not-empty")
	if err := os.MkdirAll(notEmpty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notEmpty, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name, dataDir, want string
	}{
		{"no data folder", "", "DataDir is required"},
		{"the primary's own folder", primary.DataDir(), "is the primary's"},
		{"another primary's folder", other.DataDir(), "not a complete standby clone"},
		{"a folder with other files", notEmpty, "is not empty but holds no PostgreSQL cluster"},
		{"a standby of another cluster", s.DataDir(), "holds a clone of another cluster"},
	} {
		got, err := primary.StartStandby(t.Context(), StandbyOptions{DataDir: tt.dataDir, Ephemeral: true})
		if err == nil {
			got.Stop(context.Background())
			t.Errorf("%s: StartStandby = nil error, want one containing %q", tt.name, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: StartStandby = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
	// The folder with other files is left as it was.
	if b, err := os.ReadFile(filepath.Join(notEmpty, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("notes.txt after the refused clone = %q, %v", b, err)
	}
}
