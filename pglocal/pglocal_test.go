package pglocal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// requireBinaries returns the real PostgreSQL bin folder. A machine without
// one fails the test loudly: these tests must run wherever the suite runs.
func requireBinaries(t *testing.T) string {
	t.Helper()
	dir, err := FindBinDir(nil)
	if errors.Is(err, ErrNoBinaries) {
		t.Fatalf("PostgreSQL server binaries not installed (install PostgreSQL or set PG_BIN): %v", err)
	}
	if err != nil {
		t.Fatalf("FindBinDir(nil) = %v", err)
	}
	return dir
}

// tempDir returns a new folder that the postgres user can enter, removed at
// the end of the test. Under root it lives in /tmp, since TMPDIR might be
// inside a folder closed to other users.
func tempDir(t *testing.T) string {
	t.Helper()
	base := ""
	if os.Geteuid() == 0 {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "pglocal-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// testOptions returns options for a test cluster in dataDir.
func testOptions(t *testing.T, dataDir string) Options {
	return Options{
		DataDir:   dataDir,
		Ephemeral: true,
		Logger:    slog.New(slog.NewTextHandler(t.Output(), nil)),
	}
}

// startCluster starts a cluster and stops it at the end of the test.
func startCluster(t *testing.T, opts Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start(%s) = %v, want nil", opts.DataDir, err)
	}
	t.Cleanup(func() { c.Stop(context.Background()) })
	return c
}

// connect opens a connection to url, closed at the end of the test.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatalf("pgx.Connect(%s) = %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// execSQL runs sql on url.
func execSQL(t *testing.T, url, sql string) {
	t.Helper()
	if _, err := connect(t, url).Exec(t.Context(), sql); err != nil {
		t.Fatalf("Exec(%q) = %v", sql, err)
	}
}

// queryString runs a query returning one text value.
func queryString(t *testing.T, url, sql string) string {
	t.Helper()
	var s string
	if err := connect(t, url).QueryRow(t.Context(), sql).Scan(&s); err != nil {
		t.Fatalf("QueryRow(%q) = %v", sql, err)
	}
	return s
}

// assertPortClosed fails unless nothing accepts connections on port.
func assertPortClosed(t *testing.T, port int, within time.Duration) {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(within)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatalf("port %d still accepts connections after %s", port, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fakeBinDir creates a folder holding executable files with the given names.
func fakeBinDir(t *testing.T, dir string, names ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindBinDir(t *testing.T) {
	root := t.TempDir()
	complete := fakeBinDir(t, filepath.Join(root, "complete"), "postgres", "initdb")
	empty := fakeBinDir(t, filepath.Join(root, "empty"))
	onlyPostgres := fakeBinDir(t, filepath.Join(root, "only-postgres"), "postgres")

	versioned := filepath.Join(root, "versioned")
	for _, v := range []string{"9.6", "10", "15"} {
		fakeBinDir(t, filepath.Join(versioned, v, "bin"), "postgres", "initdb")
	}
	fakeBinDir(t, filepath.Join(versioned, "16", "bin"), "postgres") // incomplete
	fakeBinDir(t, filepath.Join(versioned, "latest", "bin"), "postgres", "initdb")

	// PATH holds symbolic links, as Debian's /usr/bin does.
	pathDir := filepath.Join(root, "path")
	if err := os.MkdirAll(pathDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"postgres", "initdb"} {
		if err := os.Symlink(filepath.Join(complete, name), filepath.Join(pathDir, name)); err != nil {
			t.Fatal(err)
		}
	}

	env := func(pgBin string) func(string) string {
		return func(key string) string {
			if key == "PG_BIN" {
				return pgBin
			}
			return ""
		}
	}
	// lookIn finds programs in the given folder only.
	lookIn := func(dir string) func(string) (string, error) {
		return func(name string) (string, error) {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err != nil {
				return "", exec.ErrNotFound
			}
			return p, nil
		}
	}
	nowhere := func(string) (string, error) { return "", exec.ErrNotFound }
	pgConfigSays := func(dir string) func(string) (string, error) {
		return func(string) (string, error) { return dir, nil }
	}
	pgConfigOnPath := func(name string) (string, error) {
		if name == "pg_config" {
			return "/fake/pg_config", nil
		}
		return "", exec.ErrNotFound
	}

	tests := []struct {
		name      string
		f         binFinder
		want      string
		wantErrIn []string // substrings of the error; nil when no error is expected
	}{
		{
			name: "PG_BIN with binaries",
			f:    binFinder{getenv: env(complete), lookPath: nowhere},
			want: complete,
		},
		{
			name:      "PG_BIN empty folder",
			f:         binFinder{getenv: env(empty), lookPath: lookIn(pathDir), versionedRoot: versioned},
			wantErrIn: []string{"PG_BIN points at " + empty, "postgres and initdb"},
		},
		{
			name:      "PG_BIN folder without initdb",
			f:         binFinder{getenv: env(onlyPostgres), lookPath: nowhere},
			wantErrIn: []string{"PG_BIN points at " + onlyPostgres},
		},
		{
			name: "pg_config",
			f:    binFinder{getenv: env(""), lookPath: pgConfigOnPath, pgConfigBinDir: pgConfigSays(complete), versionedRoot: versioned},
			want: complete,
		},
		{
			name: "pg_config folder without binaries falls back to highest version",
			f:    binFinder{getenv: env(""), lookPath: pgConfigOnPath, pgConfigBinDir: pgConfigSays(empty), versionedRoot: versioned},
			want: filepath.Join(versioned, "15", "bin"),
		},
		{
			name: "highest complete version compared numerically",
			f:    binFinder{getenv: env(""), lookPath: lookIn(pathDir), versionedRoot: versioned},
			want: filepath.Join(versioned, "15", "bin"),
		},
		{
			name: "PATH with symbolic links",
			f:    binFinder{getenv: env(""), lookPath: lookIn(pathDir), versionedRoot: filepath.Join(root, "missing")},
			want: complete,
		},
		{
			name:      "nothing installed",
			f:         binFinder{getenv: env(""), lookPath: nowhere, versionedRoot: filepath.Join(root, "missing")},
			wantErrIn: []string{"no PostgreSQL server binaries found", "PG_BIN", "pg_config", "install PostgreSQL", "DATABASE_URL"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.f.find()
			if tt.wantErrIn == nil {
				if err != nil || got != tt.want {
					t.Fatalf("find() = %q, %v, want %q, nil", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, ErrNoBinaries) {
				t.Fatalf("find() = %q, %v, want an error wrapping ErrNoBinaries", got, err)
			}
			t.Logf("find() = %v", err)
			for _, s := range tt.wantErrIn {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("find() error = %q, want it to mention %q", err, s)
				}
			}
		})
	}
}

func TestFindBinDirOnThisMachine(t *testing.T) {
	dir := requireBinaries(t)
	if !hasBinaries(dir) {
		t.Fatalf("FindBinDir(nil) = %q, a folder without postgres and initdb", dir)
	}
	_, err := FindBinDir(func(key string) string {
		if key == "PG_BIN" {
			return t.TempDir()
		}
		return ""
	})
	if !errors.Is(err, ErrNoBinaries) || !strings.Contains(err.Error(), "PG_BIN") {
		t.Fatalf("FindBinDir(PG_BIN=empty folder) = %v, want an error about PG_BIN wrapping ErrNoBinaries", err)
	}
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"9.6", "15", -1},
		{"15", "16", -1},
		{"16", "15", 1},
		{"10", "9.6", 1},
		{"15", "15", 0},
		{"15", "15.1", -1},
	}
	for _, tt := range tests {
		a, _ := parseVersion(tt.a)
		b, _ := parseVersion(tt.b)
		if got := compareVersions(a, b); got != tt.want {
			t.Errorf("compareVersions(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if _, ok := parseVersion("latest"); ok {
		t.Errorf("parseVersion(latest) ok, want not ok")
	}
}

// TestStartRejects covers the errors Start reports before running initdb.
func TestStartRejects(t *testing.T) {
	t.Parallel()
	binDir := requireBinaries(t)
	dir := tempDir(t)

	notEmpty := filepath.Join(dir, "not-empty")
	fakeBinDir(t, notEmpty, "some-file")
	foreign := filepath.Join(dir, "foreign")
	fakeBinDir(t, foreign, "PG_VERSION")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	emptyBin := fakeBinDir(t, filepath.Join(dir, "empty-bin"))

	tests := []struct {
		name      string
		opts      Options
		wantIs    error
		wantErrIn []string
	}{
		{
			name:      "no data folder",
			opts:      Options{BinDir: binDir},
			wantErrIn: []string{"DataDir is required"},
		},
		{
			name:      "BinDir without binaries",
			opts:      Options{DataDir: filepath.Join(dir, "a"), BinDir: emptyBin},
			wantIs:    ErrNoBinaries,
			wantErrIn: []string{emptyBin},
		},
		{
			name: "PG_BIN without binaries",
			opts: Options{DataDir: filepath.Join(dir, "b"), Getenv: func(key string) string {
				if key == "PG_BIN" {
					return emptyBin
				}
				return ""
			}},
			wantIs:    ErrNoBinaries,
			wantErrIn: []string{"PG_BIN points at " + emptyBin},
		},
		{
			name:      "data folder not empty",
			opts:      Options{DataDir: notEmpty, BinDir: binDir},
			wantErrIn: []string{notEmpty, "not empty but holds no PostgreSQL cluster"},
		},
		{
			name:      "cluster without password file",
			opts:      Options{DataDir: foreign, BinDir: binDir},
			wantErrIn: []string{foreign, "no tenure-password file"},
		},
		{
			name:      "data folder is a file",
			opts:      Options{DataDir: file, BinDir: binDir},
			wantErrIn: []string{file, "not a folder"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			c, err := Start(t.Context(), tt.opts)
			if err == nil {
				c.Stop(context.Background())
				t.Fatalf("Start(%s) = nil error, want an error", tt.opts.DataDir)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Start(%s) = %v, want an error wrapping %v", tt.opts.DataDir, err, tt.wantIs)
			}
			for _, s := range tt.wantErrIn {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Start(%s) = %v, want it to mention %q", tt.opts.DataDir, err, s)
				}
			}
		})
	}
}

func TestStartParentNotTraversable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root switches to the postgres user")
	}
	binDir := requireBinaries(t)
	dir := tempDir(t)
	closed := filepath.Join(dir, "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t, filepath.Join(closed, "sub", "data"))
	opts.BinDir = binDir
	c, err := Start(t.Context(), opts)
	if err == nil {
		c.Stop(context.Background())
		t.Fatalf("Start(%s) = nil error, want an error naming %s", opts.DataDir, closed)
	}
	t.Logf("Start = %v", err)
	for _, s := range []string{"cannot enter folder " + closed + " ", `user "postgres"`, "chmod o+x " + closed} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("Start(%s) = %v, want it to mention %q", opts.DataDir, err, s)
		}
	}
}

func TestRestartKeepsData(t *testing.T) {
	t.Parallel()
	requireBinaries(t)
	dataDir := filepath.Join(tempDir(t), "data")
	opts := testOptions(t, dataDir)
	opts.Database = "tenure test-db" // needs quoting

	c := startCluster(t, opts)
	if c.DataDir() != dataDir || c.Port() == 0 || c.Version() == "" {
		t.Fatalf("DataDir(), Port(), Version() = %q, %d, %q, want %q, a port, a version", c.DataDir(), c.Port(), c.Version(), dataDir)
	}
	if got := queryString(t, c.URL(), "SELECT current_database()"); got != opts.Database {
		t.Fatalf("current_database() via URL() = %q, want %q", got, opts.Database)
	}
	execSQL(t, c.URL(), "CREATE TABLE memories (body text); INSERT INTO memories VALUES ('remember me')")

	// Authentication is enforced: a wrong password is refused.
	wrong := strings.Replace(c.URL(), ":"+c.password+"@", ":wrong@", 1)
	if conn, err := pgx.Connect(t.Context(), wrong); err == nil {
		conn.Close(context.Background())
		t.Fatalf("pgx.Connect(wrong password) = nil error, want authentication failure")
	} else if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
		t.Fatalf("pgx.Connect(wrong password) = %v, want invalid_password (28P01)", err)
	}

	pwPath := filepath.Join(dataDir, passwordFileName)
	pwInfo, err := os.Stat(pwPath)
	if err != nil {
		t.Fatal(err)
	}
	if perm := pwInfo.Mode().Perm(); perm != 0o600 {
		t.Errorf("%s mode = %v, want 0600", pwPath, perm)
	}
	password, _ := os.ReadFile(pwPath)
	versionInfo, err := os.Stat(filepath.Join(dataDir, "PG_VERSION"))
	if err != nil {
		t.Fatal(err)
	}

	firstPort := c.Port()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("Stop() = %v, want nil", err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("second Stop() = %v, want nil", err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatalf("Done() not closed after Stop")
	}
	assertPortClosed(t, firstPort, 0)

	// A taken port given explicitly is reported as such.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := opts
	taken.Port = l.Addr().(*net.TCPAddr).Port
	if c, err := Start(t.Context(), taken); err == nil {
		c.Stop(context.Background())
		t.Fatalf("Start(Port: %d, taken) = nil error, want a port-in-use error", taken.Port)
	} else if !errors.Is(err, errPortInUse) || !strings.Contains(err.Error(), fmt.Sprintf("listen on 127.0.0.1:%d: port already in use", taken.Port)) {
		t.Fatalf("Start(Port: %d, taken) = %v, want a port-in-use error", taken.Port, err)
	} else {
		t.Logf("Start(Port: taken) = %v", err)
	}

	c2 := startCluster(t, opts)
	versionInfo2, err := os.Stat(filepath.Join(dataDir, "PG_VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	if !versionInfo2.ModTime().Equal(versionInfo.ModTime()) {
		t.Errorf("PG_VERSION modified by second Start (%v, was %v), want no initdb", versionInfo2.ModTime(), versionInfo.ModTime())
	}
	if password2, _ := os.ReadFile(pwPath); string(password2) != string(password) {
		t.Errorf("password file changed by second Start")
	}
	if got := queryString(t, c2.URL(), "SELECT body FROM memories"); got != "remember me" {
		t.Errorf("row after restart = %q, want %q", got, "remember me")
	}
	if got := queryString(t, c2.URLFor("postgres"), "SELECT current_database()"); got != "postgres" {
		t.Errorf("current_database() via URLFor(postgres) = %q, want postgres", got)
	}
}

func TestDataDirInUse(t *testing.T) {
	t.Parallel()
	requireBinaries(t)
	dataDir := filepath.Join(tempDir(t), "data")
	c := startCluster(t, testOptions(t, dataDir))

	c2, err := Start(t.Context(), testOptions(t, dataDir))
	if err == nil {
		c2.Stop(context.Background())
		t.Fatalf("second Start(%s) = nil error, want an error saying the folder is in use", dataDir)
	}
	want := fmt.Sprintf("data folder %s is in use by another PostgreSQL server (pid %d)", dataDir, c.proc.cmd.Process.Pid)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("second Start(%s) = %v, want it to contain %q", dataDir, err, want)
	}
	t.Logf("second Start = %v", err)
	// The first server is unharmed.
	if got := queryString(t, c.URL(), "SELECT 'alive'"); got != "alive" {
		t.Fatalf("first server answered %q, want alive", got)
	}

	// A Stop whose context has ended forces an immediate shutdown.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Stop(ctx); err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("Stop(canceled context) = %v, want an error wrapping context.Canceled", err)
	}
	assertPortClosed(t, c.Port(), 0)
}

func TestRestartAfterKill(t *testing.T) {
	t.Parallel()
	requireBinaries(t)
	dataDir := filepath.Join(tempDir(t), "data")
	opts := testOptions(t, dataDir)
	opts.Ephemeral = false // the row must survive the kill
	c := startCluster(t, opts)
	execSQL(t, c.URL(), "CREATE TABLE memories (body text); INSERT INTO memories VALUES ('durable')")

	killServer(c.proc)
	<-c.Done()
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); err != nil {
		t.Fatalf("postmaster.pid after kill: %v, want a stale file left behind", err)
	}
	if err := c.Stop(context.Background()); err == nil {
		t.Errorf("Stop() after kill = nil, want an error saying the server had exited")
	}

	c2 := startCluster(t, opts)
	if got := queryString(t, c2.URL(), "SELECT body FROM memories"); got != "durable" {
		t.Errorf("row after crash restart = %q, want %q", got, "durable")
	}
}

// helperDirEnv names the environment variable that makes TestHelperProcess
// start a cluster in the folder it names.
const helperDirEnv = "PGLOCAL_TEST_HELPER_DATA_DIR"

// TestMain runs the tests, except when TestServerDiesWithParent starts the
// test binary as its helper (helperDirEnv set): then it starts a cluster,
// prints its port and waits to be killed.
func TestMain(m *testing.M) {
	dataDir := os.Getenv(helperDirEnv)
	if dataDir == "" {
		os.Exit(m.Run())
	}
	c, err := Start(context.Background(), Options{DataDir: dataDir, Ephemeral: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("port", c.Port())
	select {}
}

func TestServerDiesWithParent(t *testing.T) {
	t.Parallel()
	requireBinaries(t)
	dataDir := filepath.Join(tempDir(t), "data")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+dataDir)
	cmd.Stderr = t.Output()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading helper output: %v", err)
	}
	port, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "port "))
	if err != nil {
		t.Fatalf("helper printed %q, want port N", line)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	assertPortClosed(t, port, 10*time.Second)

	// The data folder is usable again after the immediate shutdown.
	c := startCluster(t, testOptions(t, dataDir))
	if got := queryString(t, c.URL(), "SELECT 'back'"); got != "back" {
		t.Errorf("server after parent death answered %q, want back", got)
	}
}

func TestAttachToRunningServer(t *testing.T) {
	binDir := requireBinaries(t)
	dataDir := filepath.Join(tempDir(t), "data")
	opts := Options{DataDir: dataDir, BinDir: binDir, Ephemeral: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	owner := startCluster(t, opts)

	attachOpts := opts
	attachOpts.Attach = true
	attached, err := Start(context.Background(), attachOpts)
	if err != nil {
		t.Fatalf("Start(Attach) on a running server = %v", err)
	}
	if !attached.Attached() || attached.Port() != owner.Port() {
		t.Fatalf("Start(Attach) = attached %t on port %d, want the owner's port %d", attached.Attached(), attached.Port(), owner.Port())
	}
	if got := queryString(t, attached.URL(), "SELECT 'through the attached cluster'"); got != "through the attached cluster" {
		t.Errorf("query through the attached cluster = %q", got)
	}
	if err := attached.Stop(context.Background()); err != nil {
		t.Errorf("Stop() of an attached cluster = %v, want nil", err)
	}
	if got := queryString(t, owner.URL(), "SELECT 'still up'"); got != "still up" {
		t.Errorf("after the attached cluster stopped, the owner's server answers %q", got)
	}
	if err := owner.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// With no server running, Attach starts one as usual.
	fresh, err := Start(context.Background(), attachOpts)
	if err != nil {
		t.Fatalf("Start(Attach) with no server running = %v", err)
	}
	defer fresh.Stop(context.Background())
	if fresh.Attached() {
		t.Error("Start(Attach) with no server running attached to nothing")
	}
}

func TestSharedBuffersFor(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if v, ok := m[name]; ok {
				return []byte(v), nil
			}
			return nil, os.ErrNotExist
		}
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"nothing readable", nil, "128MB"},
		{"4 GiB machine", map[string]string{"/proc/meminfo": "MemTotal:        4194304 kB\nMemFree: 1 kB\n"}, "1024MB"},
		{"big machine is capped", map[string]string{"/proc/meminfo": "MemTotal:       67108864 kB\n"}, "2048MB"},
		{"small machine gets the default", map[string]string{"/proc/meminfo": "MemTotal:         262144 kB\n"}, "128MB"},
		{"cgroup v2 limit wins when lower", map[string]string{
			"/proc/meminfo": "MemTotal:       67108864 kB\n", "/sys/fs/cgroup/memory.max": "2147483648\n"}, "512MB"},
		{"cgroup v2 without a limit", map[string]string{
			"/proc/meminfo": "MemTotal:        4194304 kB\n", "/sys/fs/cgroup/memory.max": "max\n"}, "1024MB"},
		{"cgroup v1 limit", map[string]string{
			"/proc/meminfo": "MemTotal:        8388608 kB\n", "/sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824"}, "256MB"},
		{"a service's own cgroup v2 limit", map[string]string{
			"/proc/meminfo":             "MemTotal:       67108864 kB\n",
			"/proc/self/cgroup":         "0::/system.slice/tenure.service\n",
			"/sys/fs/cgroup/memory.max": "max\n", "/sys/fs/cgroup/system.slice/memory.max": "max\n",
			"/sys/fs/cgroup/system.slice/tenure.service/memory.max": "1073741824\n"}, "256MB"},
		{"a parent cgroup v2 limit", map[string]string{
			"/proc/meminfo":                                         "MemTotal:       67108864 kB\n",
			"/proc/self/cgroup":                                     "0::/system.slice/tenure.service\n",
			"/sys/fs/cgroup/system.slice/memory.max":                "4294967296\n",
			"/sys/fs/cgroup/system.slice/tenure.service/memory.max": "max\n"}, "1024MB"},
		{"a cgroup v1 memory controller path", map[string]string{
			"/proc/meminfo":     "MemTotal:       67108864 kB\n",
			"/proc/self/cgroup": "12:cpu,cpuacct:/x\n4:memory:/docker/abc\n0::/\n",
			"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "2147483648"}, "512MB"},
	}
	for _, tt := range tests {
		if got := sharedBuffersFor(memoryLimit(files(tt.files))); got != tt.want {
			t.Errorf("%s: shared buffers = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestSettingsReachTheServer: Options.Settings become server settings.
func TestSettingsReachTheServer(t *testing.T) {
	t.Parallel()
	requireBinaries(t)
	opts := testOptions(t, filepath.Join(tempDir(t), "data"))
	opts.Settings = map[string]string{"shared_buffers": "48MB", "work_mem": "7MB"}
	c := startCluster(t, opts)
	if got := queryString(t, c.URL(), "SELECT current_setting('shared_buffers') || ' ' || current_setting('work_mem')"); got != "48MB 7MB" {
		t.Errorf("shared_buffers, work_mem = %q, want \"48MB 7MB\"", got)
	}
}
