package replica

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/pglocal"
)

// The tests share one primary, started by TestMain; each test clones the
// standbys it needs from it (pg_basebackup), so that pausing or killing one
// does not touch another test's.
var (
	primary *pglocal.Cluster
	baseDir string
	quiet   = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// Under root the server runs as the user postgres, who must be able to
	// enter the folder; TMPDIR might be closed to it.
	base := ""
	if os.Geteuid() == 0 {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "tenure-replica-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica test:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "replica test:", err)
		return 1
	}
	baseDir = dir
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	primary, err = pglocal.Start(ctx, pglocal.Options{DataDir: filepath.Join(dir, "primary"), Ephemeral: true, Logger: quiet})
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica test: start the primary:", err)
		return 1
	}
	defer primary.Stop(context.Background())
	return m.Run()
}

var standbySeq atomic.Int64

// newStandby clones a standby of the primary, stopped at the end of the
// test.
func newStandby(t *testing.T, settings map[string]string) *pglocal.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dataDir := filepath.Join(baseDir, fmt.Sprintf("standby-%d", standbySeq.Add(1)))
	s, err := primary.StartStandby(ctx, pglocal.StandbyOptions{DataDir: dataDir, Ephemeral: true, Settings: settings, Logger: quiet})
	if err != nil {
		t.Fatalf("StartStandby: %v", err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	return s
}

// newPool connects to url; the pool is closed at the end of the test.
func newPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// testRouter starts a router over a pool to the primary and to each
// standby, closed at the end of the test. Checks run every 100 ms.
func testRouter(t *testing.T, maxLag time.Duration, standbys ...*pglocal.Cluster) (*Router, *pgxpool.Pool, []*pgxpool.Pool) {
	t.Helper()
	p := newPool(t, primary.URL())
	var sbs []Standby
	var pools []*pgxpool.Pool
	for i, s := range standbys {
		pool := newPool(t, s.URL())
		pools = append(pools, pool)
		sbs = append(sbs, Standby{Name: fmt.Sprintf("standby%d", i+1), Pool: pool})
	}
	r, err := New(p, sbs, Options{Interval: 100 * time.Millisecond, CheckTimeout: 2 * time.Second, MaxLag: maxLag,
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatalf("New = %v", err)
	}
	t.Cleanup(r.Close)
	return r, p, pools
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline with the router's status.
func waitFor(t *testing.T, r *Router, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(r.Status(), "", "  ")
			t.Fatalf("timed out waiting for %s; status:\n%s", what, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// inRotation reports whether the i-th standby is in rotation.
func inRotation(r *Router, i int) bool { return r.Status().Standbys[i].InRotation }

// exec runs sql on pool.
func exec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(t.Context(), sql, args...); err != nil {
		t.Fatalf("Exec(%q) = %v", sql, err)
	}
}

// write inserts body into table on the primary and returns the LSN to read
// it back from.
func write(t *testing.T, r *Router, table, body string) LSN {
	t.Helper()
	exec(t, r.Primary(), "INSERT INTO "+table+" VALUES ($1)", body)
	lsn, err := r.CurrentLSN(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return lsn
}

// readBody reads whether table holds body, through r.Read with minLSN, and
// returns it with the pool that answered.
func readBody(t *testing.T, r *Router, minLSN LSN, table, body string) (bool, *pgxpool.Pool) {
	t.Helper()
	var found bool
	var served *pgxpool.Pool
	err := r.Read(t.Context(), minLSN, func(ctx context.Context, db *pgxpool.Pool) error {
		served = db
		return db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+table+" WHERE body = $1)", body).Scan(&found)
	})
	if err != nil {
		t.Fatalf("Read = %v", err)
	}
	return found, served
}

func TestLSN(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want LSN
	}{
		{"0/0", 0},
		{"16/B374D848", 0x16_B374D848},
		{"FFFFFFFF/FFFFFFFF", ^LSN(0)},
		{"0/1a", 0x1a},
	} {
		got, err := ParseLSN(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseLSN(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if back, _ := ParseLSN(got.String()); back != got {
			t.Errorf("ParseLSN(%q).String() = %q does not parse back", tt.in, got.String())
		}
	}
	if got := LSN(0x16_B374D848).String(); got != "16/B374D848" {
		t.Errorf("String() = %q, want 16/B374D848", got)
	}
	for _, bad := range []string{"", "16", "/1", "1/", "1/2/3", "G/0", "123456789/0", "0/+1", " 0/1", "0x1/2"} {
		if got, err := ParseLSN(bad); err == nil {
			t.Errorf("ParseLSN(%q) = %v, nil; want an error", bad, got)
		}
	}
	a, _ := ParseLSN("1/FFFFFFFF")
	b, _ := ParseLSN("2/0")
	if !(a < b) || max(a, b) != b {
		t.Errorf("1/FFFFFFFF < 2/0 = %t, want true", a < b)
	}
	j, err := json.Marshal(map[string]LSN{"lsn": b})
	if err != nil || string(j) != `{"lsn":"2/0"}` {
		t.Errorf("json.Marshal = %s, %v", j, err)
	}
	var back map[string]LSN
	if err := json.Unmarshal(j, &back); err != nil || back["lsn"] != b {
		t.Errorf("json.Unmarshal(%s) = %v, %v", j, back, err)
	}

	// Against the server: pg_lsn scans into LSN, NULL into *LSN, and LSN
	// goes back as a pg_lsn parameter.
	pool := newPool(t, primary.URL())
	var lsn LSN
	var text string
	if err := pool.QueryRow(t.Context(), "SELECT l, l::text FROM pg_current_wal_insert_lsn() l").Scan(&lsn, &text); err != nil {
		t.Fatal(err)
	}
	if lsn == 0 || lsn.String() != text {
		t.Errorf("scanned pg_lsn %s = %v, want it", text, lsn)
	}
	var null *LSN = &lsn
	if err := pool.QueryRow(t.Context(), "SELECT NULL::pg_lsn").Scan(&null); err != nil || null != nil {
		t.Errorf("NULL pg_lsn into *LSN = %v, %v; want nil, nil", null, err)
	}
	if err := pool.QueryRow(t.Context(), "SELECT NULL::pg_lsn").Scan(&lsn); err == nil {
		t.Error("NULL pg_lsn into LSN = nil error, want one")
	}
	var diff int64
	if err := pool.QueryRow(t.Context(), "SELECT pg_wal_lsn_diff($1, $2)::bigint", b, a).Scan(&diff); err != nil || diff != 1 {
		t.Errorf("pg_wal_lsn_diff(2/0, 1/FFFFFFFF) = %d, %v; want 1", diff, err)
	}
}

func TestNewRejects(t *testing.T) {
	p := newPool(t, primary.URL())
	other := newPool(t, primary.URL())
	for _, tt := range []struct {
		name     string
		primary  *pgxpool.Pool
		standbys []Standby
		opts     Options
		want     string
	}{
		{"no primary", nil, nil, Options{}, "primary pool is nil"},
		{"a standby without a pool", p, []Standby{{Name: "x"}}, Options{}, "has no pool"},
		{"the primary as a standby", p, []Standby{{Pool: p}}, Options{}, "is the primary's pool"},
		{"a standby twice", p, []Standby{{Pool: other}, {Pool: other}}, Options{}, "repeats the pool"},
		{"MaxLag under two intervals", p, nil, Options{Interval: time.Second, MaxLag: time.Second}, "less than twice Interval"},
	} {
		r, err := New(tt.primary, tt.standbys, tt.opts)
		if err == nil {
			r.Close()
			t.Errorf("%s: New = nil error, want one containing %q", tt.name, tt.want)
		} else if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

// TestNoStandbys: a router without standbys reads from the primary.
func TestNoStandbys(t *testing.T) {
	r, p, _ := testRouter(t, time.Second)
	if got := r.Pick(0); got != p {
		t.Fatalf("Pick(0) without standbys = %p, want the primary %p", got, p)
	}
	if st := r.Status(); len(st.Standbys) != 0 || st.Primary.Addr == "" {
		t.Fatalf("Status() = %+v", st)
	}
}

// TestReadsSpreadOverCaughtUpStandbys: caught-up standbys take the reads in
// turn, and report themselves in Status.
func TestReadsSpreadOverCaughtUpStandbys(t *testing.T) {
	s1, s2 := newStandby(t, nil), newStandby(t, nil)
	r, p, pools := testRouter(t, 3*time.Second, s1, s2)
	exec(t, p, "DROP TABLE IF EXISTS spread; CREATE TABLE spread (body text)")
	lsn := write(t, r, "spread", "hello")
	waitFor(t, r, "both standbys in rotation past the write", func() bool {
		st := r.Status()
		return st.Standbys[0].InRotation && st.Standbys[1].InRotation &&
			st.Standbys[0].ReplayLSN >= lsn && st.Standbys[1].ReplayLSN >= lsn
	})

	served := map[*pgxpool.Pool]int{}
	for range 20 {
		found, pool := readBody(t, r, lsn, "spread", "hello")
		if !found {
			t.Fatalf("read through %p does not see the row", pool)
		}
		served[pool]++
	}
	if served[p] != 0 || served[pools[0]] == 0 || served[pools[1]] == 0 {
		t.Fatalf("reads served: primary %d, standby1 %d, standby2 %d; want all on the standbys, both used",
			served[p], served[pools[0]], served[pools[1]])
	}
	var inRecovery bool
	if err := r.Pick(0).QueryRow(t.Context(), "SELECT pg_is_in_recovery()").Scan(&inRecovery); err != nil || !inRecovery {
		t.Fatalf("Pick(0) reaches a server in recovery = %t, %v; want a standby", inRecovery, err)
	}

	st := r.Status()
	if st.Primary.FlushLSN == 0 || st.Primary.LastError != "" || st.Primary.LastCheck.IsZero() || !strings.HasPrefix(st.Primary.Addr, "127.0.0.1:") {
		t.Errorf("primary status = %+v", st.Primary)
	}
	for i, s := range st.Standbys {
		want := []string{"standby1", "standby2"}[i]
		port := []int{s1.Port(), s2.Port()}[i]
		if s.Name != want || s.Addr != fmt.Sprintf("127.0.0.1:%d", port) || !s.Healthy || !s.LagKnown ||
			s.Lag < 0 || s.Lag > 3*time.Second || s.LastError != "" || s.LastCheck.IsZero() || s.ReplayLSN < lsn {
			t.Errorf("standby status = %+v, want %s on port %d, healthy, replayed past %s", s, want, port, lsn)
		}
	}
}

// TestReadYourWrites: a read that must see a write goes to the primary
// until a standby has replayed the write, while other reads stay on the
// standby.
func TestReadYourWrites(t *testing.T) {
	s := newStandby(t, nil)
	// A large MaxLag keeps the paused standby in rotation throughout.
	r, p, pools := testRouter(t, 10*time.Minute, s)
	exec(t, p, "DROP TABLE IF EXISTS ryw; CREATE TABLE ryw (body text)")
	created, err := r.CurrentLSN(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, r, "the standby in rotation past the table", func() bool { return r.Pick(created) == pools[0] })

	sconn := pools[0]
	exec(t, sconn, "SELECT pg_wal_replay_pause()")
	lsn := write(t, r, "ryw", "mine")
	if got := r.Pick(lsn); got != p {
		t.Fatalf("Pick(write's LSN) with replay paused = %p, want the primary %p", got, p)
	}
	if found, served := readBody(t, r, lsn, "ryw", "mine"); !found || served != p {
		t.Fatalf("Read(write's LSN) = found %t on %p, want found on the primary %p", found, served, p)
	}
	if got := r.Pick(0); got != sconn {
		t.Fatalf("Pick(0) = %p, want the standby %p (reads that need no write stay on it)", got, sconn)
	}
	if found, _ := readBody(t, r, 0, "ryw", "mine"); found {
		t.Fatal("the paused standby shows the write; the test would prove nothing")
	}
	if got := r.Pick(lsn + 1<<40); got != p {
		t.Fatalf("Pick(LSN far ahead) = %p, want the primary", got)
	}

	exec(t, sconn, "SELECT pg_wal_replay_resume()")
	waitFor(t, r, "the standby to replay the write", func() bool { return r.Pick(lsn) == sconn })
	if found, served := readBody(t, r, lsn, "ryw", "mine"); !found || served != sconn {
		t.Fatalf("Read(write's LSN) after replay = found %t on %p, want found on the standby %p", found, served, sconn)
	}
}

// writer inserts rows into table on the primary until stopped, so that a
// standby that does not replay falls behind.
func writer(t *testing.T, pool *pgxpool.Pool, table string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := pool.Exec(ctx, "INSERT INTO "+table+" VALUES ('tick')"); err != nil {
				if ctx.Err() != nil {
					err = nil
				}
				done <- err
				return
			}
			select {
			case <-ctx.Done():
				done <- nil
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("writer: %v", err)
		}
	}
}

// TestLaggingStandbyLeavesRotation: a standby whose replay is paused while
// the primary writes leaves rotation once it lags more than MaxLag, reads
// go to the primary, and it rejoins after it resumes and catches up.
func TestLaggingStandbyLeavesRotation(t *testing.T) {
	s := newStandby(t, nil)
	r, p, pools := testRouter(t, time.Second, s)
	exec(t, p, "DROP TABLE IF EXISTS lag; CREATE TABLE lag (body text)")
	waitFor(t, r, "the standby in rotation", func() bool { return inRotation(r, 0) })
	stop := writer(t, p, "lag")
	defer stop()

	exec(t, pools[0], "SELECT pg_wal_replay_pause()")
	waitFor(t, r, "the paused standby to leave rotation", func() bool {
		st := r.Status().Standbys[0]
		return !st.InRotation && st.Healthy && st.LagKnown && st.Lag > time.Second && r.Pick(0) == p
	})
	if st := r.Status().Standbys[0]; st.LastError != "" {
		t.Errorf("lagging standby's LastError = %q, want none: it is healthy", st.LastError)
	}
	if _, served := readBody(t, r, 0, "lag", "tick"); served != p {
		t.Fatalf("read with the standby lagging served by %p, want the primary %p", served, p)
	}
	lagBefore := r.Status().Standbys[0].Lag
	waitFor(t, r, "the lag to grow", func() bool { return r.Status().Standbys[0].Lag > lagBefore })

	exec(t, pools[0], "SELECT pg_wal_replay_resume()")
	waitFor(t, r, "the resumed standby to rejoin rotation", func() bool {
		st := r.Status().Standbys[0]
		return st.InRotation && st.Lag <= time.Second && r.Pick(0) == pools[0]
	})
}

// TestStandbyKilledMidTraffic: readers keep getting answers while their
// standby is killed (from the primary) and after it is started again (from
// it again), without ever seeing an error.
func TestStandbyKilledMidTraffic(t *testing.T) {
	s := newStandby(t, nil)
	r, p, pools := testRouter(t, 3*time.Second, s)
	sconn := pools[0]
	exec(t, p, "DROP TABLE IF EXISTS traffic; CREATE TABLE traffic (body text)")
	exec(t, p, "INSERT INTO traffic SELECT 'row' FROM generate_series(1, 100)")
	lsn, err := r.CurrentLSN(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, r, "the standby in rotation past the rows", func() bool { return r.Pick(lsn) == sconn })

	var (
		mu          sync.Mutex
		onPrimary   int
		onStandby   int
		failed      []error // errors that reached a reader: must stay empty
		standbyErrs []string
		retries     atomic.Int64
	)
	count := func(ctx context.Context, db *pgxpool.Pool) error {
		var n int
		err := db.QueryRow(ctx, "SELECT count(*) FROM traffic").Scan(&n)
		if err == nil && n != 100 {
			err = fmt.Errorf("count = %d, want 100", n)
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil && db == sconn:
			standbyErrs = append(standbyErrs, err.Error())
		case err == nil && db == p:
			onPrimary++
		case err == nil:
			onStandby++
		}
		return err
	}
	served := func() (primary, standby int) {
		mu.Lock()
		defer mu.Unlock()
		return onPrimary, onStandby
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	// Three readers use Read; one picks and reports failures itself.
	for range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := r.Read(ctx, 0, count); err != nil && ctx.Err() == nil {
					mu.Lock()
					failed = append(failed, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Go(func() {
		for ctx.Err() == nil {
			for {
				pool := r.Pick(0)
				err := count(context.Background(), pool)
				if err != nil && r.Fail(pool, err) {
					retries.Add(1)
					continue
				}
				if err != nil {
					mu.Lock()
					failed = append(failed, err)
					mu.Unlock()
				}
				break
			}
		}
	})
	defer func() {
		cancel()
		wg.Wait()
	}()

	waitFor(t, r, "reads served by the standby", func() bool { _, n := served(); return n > 50 })
	port := s.Port()
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	primaryBefore, _ := served()
	waitFor(t, r, "the killed standby out of rotation", func() bool {
		st := r.Status().Standbys[0]
		return !st.Healthy && st.LastError != "" && r.Pick(0) == p
	})
	waitFor(t, r, "reads served by the primary", func() bool { n, _ := served(); return n > primaryBefore+50 })

	s2, err := primary.StartStandby(t.Context(), pglocal.StandbyOptions{DataDir: s.DataDir(), Port: port, Ephemeral: true, Logger: quiet})
	if err != nil {
		t.Fatalf("restart the standby: %v", err)
	}
	t.Cleanup(func() { s2.Stop(context.Background()) })
	_, standbyBefore := served()
	waitFor(t, r, "the restarted standby back in rotation", func() bool {
		st := r.Status().Standbys[0]
		return st.Healthy && st.InRotation && st.LastError == ""
	})
	waitFor(t, r, "reads served by the standby again", func() bool { _, n := served(); return n > standbyBefore+50 })

	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, err := range failed {
		t.Errorf("a reader saw an error: %v", err)
	}
	t.Logf("reads: %d on the primary, %d on the standby; %d failed on the standby and were retried (%d by the reader using Fail): %s",
		onPrimary, onStandby, len(standbyErrs), retries.Load(), strings.Join(distinct(standbyErrs), "; "))
}

// distinct returns the distinct strings of ss, in order.
func distinct(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TestReplayConflictRetriesOnPrimary: a read the standby cancels to replay
// a conflicting lock is answered by the primary, and the standby stays in
// rotation.
func TestReplayConflictRetriesOnPrimary(t *testing.T) {
	// Replay cancels conflicting queries at once instead of waiting 30 s.
	s := newStandby(t, map[string]string{"max_standby_streaming_delay": "0"})
	r, p, pools := testRouter(t, time.Minute, s)
	exec(t, p, "DROP TABLE IF EXISTS conflict; CREATE TABLE conflict (body text)")
	lsn := write(t, r, "conflict", "x")
	waitFor(t, r, "the standby past the table", func() bool { return r.Pick(lsn) == pools[0] })

	var attempts []string
	result := make(chan error, 1)
	go func() {
		result <- r.Read(t.Context(), lsn, func(ctx context.Context, db *pgxpool.Pool) error {
			var n int
			err := db.QueryRow(ctx, "SELECT count(*) FROM conflict, pg_sleep(CASE WHEN pg_is_in_recovery() THEN 30 ELSE 0 END)").Scan(&n)
			where := "primary"
			if db == pools[0] {
				where = "standby"
			}
			attempts = append(attempts, fmt.Sprintf("%s: %v", where, err))
			return err
		})
	}()
	// Once the query holds its lock on the standby, a lock the primary
	// takes must be replayed there, which cancels the query.
	waitFor(t, r, "the query running on the standby", func() bool {
		var n int
		err := pools[0].QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT count(*) FROM conflict%' AND state = 'active'").Scan(&n)
		return err == nil && n == 1
	})
	exec(t, p, "BEGIN; LOCK TABLE conflict IN ACCESS EXCLUSIVE MODE; COMMIT")
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Read = %v, want the primary's answer", err)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("the standby did not cancel the conflicting query")
	}
	if len(attempts) != 2 || !strings.HasPrefix(attempts[0], "standby: ") || !strings.Contains(attempts[0], "SQLSTATE 40001") || attempts[1] != "primary: <nil>" {
		t.Fatalf("attempts = %q, want the standby cancelled (40001), then the primary", attempts)
	}
	if st := r.Status().Standbys[0]; !st.Healthy || !st.InRotation {
		t.Errorf("after a replay conflict the standby is %+v, want it healthy and in rotation", st)
	}
}

// TestFrozenStandbyGivesUpItsReads: a standby that hangs with its
// connections open (every process stopped) holds a read only until its
// check fails; the read then runs on the primary and succeeds, long before
// the caller's deadline.
func TestFrozenStandbyGivesUpItsReads(t *testing.T) {
	s := newStandby(t, nil)
	r, p, pools := testRouter(t, time.Minute, s)
	exec(t, p, "DROP TABLE IF EXISTS frozen; CREATE TABLE frozen (body text)")
	lsn := write(t, r, "frozen", "x")
	waitFor(t, r, "the standby past the table", func() bool { return r.Pick(lsn) == pools[0] })

	var attempts []string
	var mu sync.Mutex
	running := make(chan struct{}, 1)
	result := make(chan error, 1)
	// Without the bound, the standby's read would wait for this deadline.
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()
	go func() {
		result <- r.Read(ctx, lsn, func(ctx context.Context, db *pgxpool.Pool) error {
			where := "primary"
			if db == pools[0] {
				where = "standby"
				running <- struct{}{}
			}
			var n int
			err := db.QueryRow(ctx, "SELECT count(*) FROM frozen, pg_sleep(CASE WHEN pg_is_in_recovery() THEN 60 ELSE 0 END)").Scan(&n)
			mu.Lock()
			attempts = append(attempts, fmt.Sprintf("%s: %v", where, err))
			mu.Unlock()
			return err
		})
	}()
	<-running
	if err := s.Freeze(); err != nil {
		t.Fatal(err)
	}
	frozen := time.Now()
	t.Cleanup(func() { _ = s.Thaw() })
	err := <-result
	t.Logf("the read left the frozen standby and was answered by the primary %v after the freeze", time.Since(frozen).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("Read = %v, want the primary's answer", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the read waited for the caller's deadline")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(attempts) != 2 || !strings.HasPrefix(attempts[0], "standby: ") || attempts[1] != "primary: <nil>" {
		t.Fatalf("attempts = %q, want the standby's run ended, then the primary", attempts)
	}
	if st := r.Status().Standbys[0]; st.Healthy || st.InRotation {
		t.Errorf("a frozen standby is %+v, want it out of rotation", st)
	}
	if err := s.Thaw(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r, "the thawed standby back in rotation", func() bool { return inRotation(r, 0) })
}

// TestFail: only a standby's own failures are worth a retry, and only lost
// connections take it out of rotation until a check succeeds again.
func TestFail(t *testing.T) {
	s := newStandby(t, nil)
	r, p, pools := testRouter(t, time.Minute, s)
	sconn := pools[0]
	waitFor(t, r, "the standby in rotation", func() bool { return inRotation(r, 0) })

	_, syntaxErr := sconn.Exec(t.Context(), "SELEKT 1")
	_, readOnlyErr := sconn.Exec(t.Context(), "CREATE TABLE on_a_standby (x int)")
	_, noTableErr := sconn.Exec(t.Context(), "SELECT * FROM no_such_table")
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	_, canceledErr := sconn.Exec(canceled, "SELECT 1")
	for _, err := range []error{syntaxErr, readOnlyErr, noTableErr, canceledErr} {
		if err == nil {
			t.Fatal("a query meant to fail succeeded")
		}
		if r.Fail(sconn, err) {
			t.Errorf("Fail(standby, %v) = true, want false: the query's own error", err)
		}
	}
	if !inRotation(r, 0) {
		t.Fatal("the standby left rotation over query errors")
	}

	// A real connection failure: a pool to a port nothing listens on.
	closed := newPool(t, strings.Replace(s.URL(), fmt.Sprintf(":%d/", s.Port()), ":1/", 1))
	connErr := closed.Ping(t.Context())
	if connErr == nil {
		t.Fatal("ping of port 1 succeeded")
	}
	if r.Fail(p, connErr) {
		t.Errorf("Fail(primary, %v) = true, want false: nothing else to retry on", connErr)
	}
	if r.Fail(closed, connErr) {
		t.Errorf("Fail(unknown pool, %v) = true, want false", connErr)
	}
	if !r.Fail(sconn, connErr) {
		t.Fatalf("Fail(standby, %v) = false, want true", connErr)
	}
	if st := r.Status().Standbys[0]; st.Healthy || st.InRotation || !strings.Contains(st.LastError, "failed to connect") || r.Pick(0) != p {
		t.Fatalf("right after Fail the standby is %+v, want it out of rotation with the error", st)
	}
	// The standby is fine, so the next check brings it back.
	waitFor(t, r, "the standby back in rotation", func() bool { return inRotation(r, 0) && r.Pick(0) == sconn })

	// A connection the server ended: the error that ends it, and that of
	// the next query on it.
	other := newPool(t, s.URL())
	conn, err := other.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	exec(t, sconn, "SELECT pg_terminate_backend($1)", conn.Conn().PgConn().PID())
	_, endedErr := conn.Exec(t.Context(), "SELECT 1")
	_, closedErr := conn.Exec(t.Context(), "SELECT 1")
	t.Logf("ended connection: %v; then: %v", endedErr, closedErr)
	for _, err := range []error{endedErr, closedErr} {
		waitFor(t, r, "the standby in rotation", func() bool { return inRotation(r, 0) })
		if err == nil || !r.Fail(sconn, err) {
			t.Errorf("Fail(standby, %v) = false, want true", err)
		}
		if inRotation(r, 0) {
			t.Errorf("the standby stayed in rotation after %v", err)
		}
	}

	// The server's own word that it is going away counts as well.
	waitFor(t, r, "the standby in rotation", func() bool { return inRotation(r, 0) })
	if !r.Fail(sconn, &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}) {
		t.Error("Fail(standby, admin_shutdown) = false, want true")
	}
	if inRotation(r, 0) {
		t.Error("the standby stayed in rotation after admin_shutdown")
	}
}

// TestCloseStopsChecks: Close ends the background checks (no goroutine is
// left), leaves the pools open, and sends every later pick to the primary.
func TestCloseStopsChecks(t *testing.T) {
	s := newStandby(t, nil)
	p := newPool(t, primary.URL())
	sconn := newPool(t, s.URL())
	if err := sconn.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	r, err := New(p, []Standby{{Pool: sconn}}, Options{Interval: 50 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, r, "the standby in rotation", func() bool { return r.Pick(0) == sconn })
	if runtime.NumGoroutine() <= before {
		t.Fatalf("goroutines with the router running = %d, want more than %d", runtime.NumGoroutine(), before)
	}
	r.Close()
	r.Close() // idempotent
	waitFor(t, r, "the checks' goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
	if got := r.Pick(0); got != p {
		t.Errorf("Pick(0) after Close = %p, want the primary", got)
	}
	if st := r.Status().Standbys[0]; st.InRotation {
		t.Errorf("standby in rotation after Close: %+v", st)
	}
	for _, pool := range []*pgxpool.Pool{p, sconn} {
		if err := pool.Ping(t.Context()); err != nil {
			t.Errorf("pool after Close: %v", err)
		}
	}
}
