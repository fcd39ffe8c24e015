// Package pglocal runs a private PostgreSQL cluster from the PostgreSQL server
// binaries installed on the machine.
//
// Start initializes a data folder on first use (initdb with a random
// password for the superuser postgres, kept in the file tenure-password inside
// the data folder), starts the postgres server on a loopback port with Unix
// sockets disabled, waits until it accepts connections, and creates the
// requested database. Stop shuts the server down. When this process runs as
// root, which PostgreSQL refuses, the server runs as the user postgres.
// PostgreSQL 10 or later is required.
package pglocal

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// passwordFileName is the file inside the data folder that holds the
	// superuser's password.
	passwordFileName = "tenure-password"
	// logFileName is the file inside the data folder that receives the
	// server's output.
	logFileName = "postgres.log"
	// maxLogSize is the size past which Start moves postgres.log aside to
	// postgres.log.1, replacing an older one.
	maxLogSize = 10 << 20
	// logTailLines is how many log lines startup errors quote.
	logTailLines = 20
	// superuser is the role the cluster is initialized with and URLs use.
	superuser = "postgres"
	// defaultDatabase is the database Start creates when Options.Database is
	// empty.
	defaultDatabase = "tenure"
	// defaultStartTimeout bounds the wait for the server to accept
	// connections when Options.StartTimeout is zero.
	defaultStartTimeout = 30 * time.Second
	// killGrace is how long an immediate shutdown (SIGQUIT) may take before
	// the server's processes are killed.
	killGrace = 5 * time.Second
	// portAttempts is how often Start picks another free port when the one
	// it picked was taken before the server could bind it.
	portAttempts = 3
)

// Options configure a private cluster.
type Options struct {
	// DataDir is the cluster's data folder. It is required, made absolute,
	// created if missing, and reused (without initdb) when it already holds
	// a cluster (a PG_VERSION file).
	DataDir string
	// BinDir is the folder holding postgres and initdb; when empty
	// FindBinDir is used.
	BinDir string
	// Port is the loopback TCP port to listen on; 0 picks a free port at
	// each start.
	Port int
	// Database is the database URL refers to, created at start if it does
	// not exist; default "tenure".
	Database string
	// Ephemeral selects test mode: fsync, synchronous_commit and
	// full_page_writes are off, and initdb does not sync. A crash of the
	// machine (not only of the server) can then corrupt the data folder, so
	// never use it for data that matters.
	Ephemeral bool
	// Settings are extra server settings ("shared_buffers": "1GB"), passed
	// as -c name=value at each start.
	Settings map[string]string
	// Logger receives start and stop messages; default slog.Default().
	Logger *slog.Logger
	// Getenv reads the environment (PG_BIN); default os.Getenv.
	Getenv func(string) string
	// Attach, when the data folder is already served by a running server,
	// connects to that server instead of failing: commands such as
	// "tenure token create" then work while "tenure serve" runs. The
	// returned cluster does not own the server; its Stop does nothing.
	Attach bool
	// StartTimeout bounds the wait for the server to accept connections
	// (crash recovery of a large data folder can take a while); default 30 s.
	StartTimeout time.Duration
}

// Cluster is a running private PostgreSQL server. Its methods are safe for
// concurrent use.
type Cluster struct {
	dataDir  string
	port     int
	database string
	password string
	version  string
	logger   *slog.Logger
	proc     *process

	stopMu   sync.Mutex
	stopped  bool
	attached bool
}

// Start initializes the data folder if needed, starts the server and waits
// until it accepts connections and the database exists. The server stops
// when Stop is called or, on Linux, when this process dies.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("pglocal: Options.DataDir is required")
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pglocal: data folder: %w", err)
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Database == "" {
		opts.Database = defaultDatabase
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	binDir := opts.BinDir
	if binDir == "" {
		if binDir, err = FindBinDir(opts.Getenv); err != nil {
			return nil, err
		}
	} else if !hasBinaries(binDir) {
		return nil, fmt.Errorf("pglocal: BinDir %s does not hold the PostgreSQL server binaries postgres and initdb: %w", binDir, ErrNoBinaries)
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	if err := prepareDataDir(dataDir, acct); err != nil {
		return nil, err
	}
	password, created, err := ensureCluster(ctx, binDir, dataDir, acct, opts.Ephemeral, opts.Logger)
	if err != nil {
		return nil, err
	}

	c := &Cluster{dataDir: dataDir, database: opts.Database, password: password, logger: opts.Logger}
	if opts.Attach {
		if ok, err := c.attach(ctx); ok || err != nil {
			return c, err
		}
	}
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			if port, err = freePort(); err != nil {
				return nil, err
			}
		}
		err = c.launch(ctx, binDir, port, acct, opts)
		if err == nil {
			break
		}
		if opts.Port == 0 && errors.Is(err, errPortInUse) && attempt < portAttempts {
			continue
		}
		return nil, err
	}
	if err := c.ensureDatabase(ctx); err != nil {
		c.terminate()
		return nil, err
	}
	c.logger.Info("postgres started", "data_dir", c.dataDir, "port", c.port, "version", c.version,
		"pid", c.proc.cmd.Process.Pid, "initdb", created, "ephemeral", opts.Ephemeral)
	return c, nil
}

// URL returns the postgres URL of Options.Database, for example
// postgres://postgres:PASSWORD@127.0.0.1:PORT/tenure?sslmode=disable.
func (c *Cluster) URL() string { return c.URLFor(c.database) }

// URLFor returns the postgres URL of the given database of the cluster.
func (c *Cluster) URLFor(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(superuser, c.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Port returns the loopback TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

// DataDir returns the absolute path of the data folder.
func (c *Cluster) DataDir() string { return c.dataDir }

// Version returns the server's version, as reported by server_version.
func (c *Cluster) Version() string { return c.version }

// Done returns a channel that is closed when the server process has exited,
// whether through Stop or on its own. For an attached cluster it is never
// closed.
func (c *Cluster) Done() <-chan struct{} {
	if c.attached {
		return make(chan struct{})
	}
	return c.proc.done
}

// Attached reports whether the cluster is another process's running server.
func (c *Cluster) Attached() bool { return c.attached }

// attach connects to the server already running on the data folder, if any
// is, and reports whether it did.
func (c *Cluster) attach(ctx context.Context) (bool, error) {
	pf, err := readPidFile(c.dataDir)
	if err != nil || pf.port == 0 || pf.status != "ready" || !processAlive(pf.pid) {
		return false, nil
	}
	c.port, c.attached = pf.port, true
	if err := c.ensureDatabase(ctx); err != nil {
		return true, fmt.Errorf("pglocal: attach to the server running on %s (pid %d, port %d): %w", c.dataDir, pf.pid, pf.port, err)
	}
	c.logger.Info("postgres attached", "data_dir", c.dataDir, "port", c.port, "pid", pf.pid)
	return true, nil
}

// Stop shuts the server down: a fast shutdown (SIGINT, which rolls back open
// transactions and disconnects clients), waiting for it to finish. When ctx
// ends first it switches to an immediate shutdown (SIGQUIT, crash recovery at
// next start) and, if that takes longer than a few seconds, kills the
// server's processes. Stop is idempotent: later calls return nil once the
// server is down; concurrent calls wait for the first. It returns an error
// when the shutdown had to be forced or the server had exited on its own
// with a failure.
func (c *Cluster) Stop(ctx context.Context) error {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.stopped || c.attached {
		return nil
	}
	var err error
	select {
	case <-c.proc.done:
		if c.proc.err != nil {
			err = fmt.Errorf("pglocal: stop: server had already exited: %w", c.proc.err)
		}
	default:
		_ = signalProcess(c.proc.cmd, syscall.SIGINT)
		select {
		case <-c.proc.done:
		case <-ctx.Done():
			c.terminate()
			err = fmt.Errorf("pglocal: stop: fast shutdown did not finish in time, forced an immediate shutdown: %w", context.Cause(ctx))
		}
	}
	c.stopped = true
	c.logger.Info("postgres stopped", "data_dir", c.dataDir, "port", c.port, "version", c.version)
	return err
}

// terminate shuts the server down immediately (SIGQUIT) and kills its
// processes if that takes longer than killGrace; it returns once the server
// process has exited.
func (c *Cluster) terminate() {
	_ = signalProcess(c.proc.cmd, syscall.SIGQUIT)
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case <-c.proc.done:
	case <-t.C:
		killServer(c.proc)
	}
}

// process is a child process started by startProcess.
type process struct {
	cmd *exec.Cmd
	// done is closed when the process has exited; err is then its Wait
	// result.
	done chan struct{}
	err  error
}

// startProcess starts cmd and waits for it in the background.
//
// The kernel delivers a parent-death signal (Pdeathsig) when the thread that
// forked the child exits, not when the process does, so the fork happens on a
// goroutine locked to its OS thread, and that goroutine stays locked, blocked
// in Wait, until the child exits: the thread cannot be retired while the
// child runs, and the signal fires only when this whole process dies.
func startProcess(cmd *exec.Cmd) (*process, error) {
	p := &process{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// prepareDataDir creates the data folder (and its parents), checks that the
// account running the server can reach it, hands it to that account and
// tightens its permissions as PostgreSQL requires.
func prepareDataDir(dataDir string, acct *account) error {
	parent := filepath.Dir(dataDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("pglocal: create data folder: %w", err)
	}
	if err := os.Mkdir(dataDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pglocal: create data folder: %w", err)
	}
	fi, err := os.Stat(dataDir)
	if err != nil {
		return fmt.Errorf("pglocal: data folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("pglocal: data folder %s is not a folder", dataDir)
	}
	if acct.switchUser {
		if err := checkTraversable(parent, acct); err != nil {
			return err
		}
		if uid, ok := ownerOf(fi); ok && uid != acct.uid {
			if err := chownTree(dataDir, acct.uid, acct.gid); err != nil {
				return fmt.Errorf("pglocal: hand data folder %s to user %s: %w", dataDir, acct.name, err)
			}
		}
	}
	// PostgreSQL accepts only 0700 or 0750.
	if fi.Mode().Perm()&0o027 != 0 {
		if err := os.Chmod(dataDir, 0o700); err != nil {
			return fmt.Errorf("pglocal: data folder: %w", err)
		}
	}
	return nil
}

// checkTraversable returns an error naming the outermost folder among dir
// and its ancestors that acct cannot enter.
func checkTraversable(dir string, acct *account) error {
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		fi, err := os.Stat(chain[i])
		if err != nil {
			return fmt.Errorf("pglocal: data folder: %w", err)
		}
		if !acct.canTraverse(fi) {
			return fmt.Errorf("pglocal: PostgreSQL runs as user %s, which cannot enter folder %s (mode %s), a parent of the data folder: choose a data folder elsewhere or allow access (e.g. chmod o+x %s)",
				acct.name, chain[i], fi.Mode(), chain[i])
		}
	}
	return nil
}

// chownTree hands dir and everything in it to uid and gid.
func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}

// ensureCluster returns the superuser password of the cluster in dataDir,
// running initdb first when the folder holds no cluster yet; created reports
// whether it did.
func ensureCluster(ctx context.Context, binDir, dataDir string, acct *account, ephemeral bool, logger *slog.Logger) (password string, created bool, err error) {
	pwPath := filepath.Join(dataDir, passwordFileName)
	_, err = os.Stat(filepath.Join(dataDir, "PG_VERSION"))
	if err == nil {
		b, err := os.ReadFile(pwPath)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, fmt.Errorf("pglocal: data folder %s holds a PostgreSQL cluster but no %s file, so its password is unknown: the cluster was not created by pglocal, or its initialization was interrupted (then remove the folder to start afresh)", dataDir, passwordFileName)
		}
		if err != nil {
			return "", false, fmt.Errorf("pglocal: read password: %w", err)
		}
		password = strings.TrimSpace(string(b))
		if password == "" {
			return "", false, fmt.Errorf("pglocal: password file %s is empty", pwPath)
		}
		return password, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("pglocal: data folder: %w", err)
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return "", false, fmt.Errorf("pglocal: data folder: %w", err)
	}
	if len(entries) > 0 {
		return "", false, fmt.Errorf("pglocal: data folder %s is not empty but holds no PostgreSQL cluster (no PG_VERSION file): use an empty or missing folder", dataDir)
	}

	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", false, fmt.Errorf("pglocal: generate password: %w", err)
	}
	password = hex.EncodeToString(raw[:])
	logger.Info("initializing postgres data folder", "data_dir", dataDir)
	if err := initdb(ctx, binDir, dataDir, password, acct, ephemeral); err != nil {
		return "", false, err
	}
	// Written last: its presence marks a completely initialized cluster.
	if err := writeFileAtomic(pwPath, []byte(password+"\n"), acct); err != nil {
		return "", false, fmt.Errorf("pglocal: write password: %w", err)
	}
	return password, true, nil
}

// initdb initializes dataDir with superuser postgres and password, requiring
// scram-sha-256 authentication for every connection.
func initdb(ctx context.Context, binDir, dataDir, password string, acct *account, ephemeral bool) error {
	// initdb reads the password from a file, which the server account must
	// be able to read and which cannot live in the (still empty) data
	// folder. When switching users it goes next to the data folder, whose
	// parents checkTraversable approved; otherwise in the temp folder.
	tmpDir := ""
	if acct.switchUser {
		tmpDir = filepath.Dir(dataDir)
	}
	pwFile, err := os.CreateTemp(tmpDir, ".pglocal-pwfile-*")
	if err != nil {
		return fmt.Errorf("pglocal: initdb: password file: %w", err)
	}
	defer os.Remove(pwFile.Name())
	_, err = pwFile.WriteString(password + "\n")
	if err == nil && acct.switchUser {
		err = pwFile.Chown(acct.uid, acct.gid)
	}
	if cerr := pwFile.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pglocal: initdb: password file: %w", err)
	}

	args := []string{"-D", dataDir, "-U", superuser, "-E", "UTF8", "--no-locale",
		"-A", "scram-sha-256", "--pwfile=" + pwFile.Name()}
	if ephemeral {
		args = append(args, "--no-sync")
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"+exeSuffix), args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = filepath.Dir(dataDir)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	// SIGTERM lets initdb remove what it created.
	cmd.SysProcAttr = acct.sysProcAttr(syscall.SIGTERM)
	cmd.Cancel = func() error { return signalProcess(cmd, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	p, err := startProcess(cmd)
	if err != nil {
		return fmt.Errorf("pglocal: initdb: start as user %s: %w", acct.name, err)
	}
	<-p.done
	if p.err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("pglocal: initdb: %w", context.Cause(ctx))
		}
		return fmt.Errorf("pglocal: initdb: %w; output:\n%s", p.err, lastLines(out.Bytes(), logTailLines))
	}
	return nil
}

// writeFileAtomic writes data to a 0600 file at path owned by acct, through a
// temporary file and a rename.
func writeFileAtomic(path string, data []byte, acct *account) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if err == nil && acct.switchUser {
		err = f.Chown(acct.uid, acct.gid)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pglocal: pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startupFailure classifies why the server did not come up. Its values are
// constants, compared with errors.Is.
type startupFailure string

// Error returns the failure's description.
func (f startupFailure) Error() string { return string(f) }

const (
	// errPortInUse reports that the server could not bind its port.
	errPortInUse startupFailure = "port already in use"
	// errExited reports that the server exited while starting.
	errExited startupFailure = "postgres exited during startup"
	// errStartTimeout reports that the server did not accept connections
	// within Options.StartTimeout.
	errStartTimeout startupFailure = "postgres did not accept connections in time"
)

// launch starts the postgres server on port and waits until it accepts
// connections; on failure the server is stopped again.
func (c *Cluster) launch(ctx context.Context, binDir string, port int, acct *account, opts Options) error {
	logPath := filepath.Join(c.dataDir, logFileName)
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > maxLogSize {
		_ = os.Rename(logPath, logPath+".1")
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pglocal: open server log: %w", err)
	}
	var logOffset int64
	if fi, err := logFile.Stat(); err == nil {
		logOffset = fi.Size()
		if uid, ok := ownerOf(fi); ok && acct.switchUser && uid != acct.uid {
			_ = logFile.Chown(acct.uid, acct.gid)
		}
	}

	args := []string{"-D", c.dataDir, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="}
	if opts.Ephemeral {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Settings)) {
		args = append(args, "-c", name+"="+opts.Settings[name])
	}
	cmd := exec.Command(filepath.Join(binDir, "postgres"+exeSuffix), args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = c.dataDir
	// LC_ALL=C keeps the messages startupError looks for untranslated.
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	// SIGQUIT is an immediate shutdown: the server stops its backends and
	// exits at once when this process dies.
	cmd.SysProcAttr = acct.sysProcAttr(syscall.SIGQUIT)
	p, err := startProcess(cmd)
	logFile.Close() // the child holds its own copy
	if err != nil {
		return fmt.Errorf("pglocal: start postgres as user %s: %w", acct.name, err)
	}
	c.port, c.proc = port, p
	if err := c.waitReady(ctx, opts.StartTimeout); err != nil {
		c.terminate()
		return c.startupError(err, logPath, logOffset)
	}
	return nil
}

// waitReady waits until the server process reports itself ready in
// postmaster.pid (which PostgreSQL 10 and later do) and accepts a connection.
// Checking postmaster.pid first ensures the connection reaches this server,
// not another program on the same port: a program that accepts connections
// but never answers would otherwise hold up each attempt until it times out.
func (c *Cluster) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errStartTimeout)
	defer cancel()
	pid := c.proc.cmd.Process.Pid
	for {
		if pf, err := readPidFile(c.dataDir); err == nil && pf.pid == pid && pf.status == "ready" {
			if err := c.ping(ctx); err == nil {
				return nil
			}
		}
		select {
		case <-c.proc.done:
			return errExited
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ping connects to the database postgres and pings it.
func (c *Cluster) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URLFor("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return conn.Ping(ctx)
}

// startupError turns a failed wait for the server into an error explaining
// it, quoting the server's log from logOffset on.
func (c *Cluster) startupError(err error, logPath string, logOffset int64) error {
	tail := readLogTail(logPath, logOffset)
	switch {
	case errors.Is(err, errExited):
		if strings.Contains(tail, `lock file "postmaster.pid" already exists`) {
			server := "another PostgreSQL server"
			if pid := hintPID(tail); pid != "" {
				server += " (pid " + pid + ")"
			} else if pf, err := readPidFile(c.dataDir); err == nil {
				server += " (pid " + strconv.Itoa(pf.pid) + ")"
			}
			return fmt.Errorf("pglocal: data folder %s is in use by %s: stop that server or use another data folder", c.dataDir, server)
		}
		if strings.Contains(tail, "Address already in use") {
			return fmt.Errorf("pglocal: listen on 127.0.0.1:%d: %w by another program; last lines of %s:\n%s", c.port, errPortInUse, logPath, tail)
		}
		return fmt.Errorf("pglocal: %w (%v); last lines of %s:\n%s", errExited, c.proc.err, logPath, tail)
	case errors.Is(err, errStartTimeout):
		return fmt.Errorf("pglocal: %w; last lines of %s:\n%s", err, logPath, tail)
	default:
		return fmt.Errorf("pglocal: start: %w", err)
	}
}

// hintPID returns the pid in postgres's hint "Is another postmaster (PID 123)
// running in data directory ...?", or "" when there is none.
func hintPID(log string) string {
	const marker = "(PID "
	i := strings.Index(log, marker)
	if i < 0 {
		return ""
	}
	rest := log[i+len(marker):]
	j := strings.IndexByte(rest, ')')
	if j < 0 {
		return ""
	}
	if _, err := strconv.Atoi(rest[:j]); err != nil {
		return ""
	}
	return rest[:j]
}

// readLogTail returns the last logTailLines lines written to the log at path
// from offset on.
func readLogTail(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	defer f.Close()
	// Reading the last 64 KiB suffices for 20 lines.
	if fi, err := f.Stat(); err == nil && fi.Size()-offset > 64<<10 {
		offset = fi.Size() - 64<<10
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	b, _ := io.ReadAll(f)
	return lastLines(b, logTailLines)
}

// lastLines returns the last n lines of b.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// pidFile is the part of postmaster.pid pglocal uses.
type pidFile struct {
	pid  int
	port int
	// status is "starting", "ready" or "stopping"; "" until the server
	// has written it.
	status string
}

// readPidFile reads dataDir/postmaster.pid.
func readPidFile(dataDir string) (pidFile, error) {
	f, err := os.Open(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return pidFile{}, err
	}
	defer f.Close()
	var pf pidFile
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		switch line {
		case 1:
			if pf.pid, err = strconv.Atoi(strings.TrimSpace(sc.Text())); err != nil {
				return pidFile{}, fmt.Errorf("postmaster.pid: bad pid: %w", err)
			}
		case 4:
			pf.port, _ = strconv.Atoi(strings.TrimSpace(sc.Text()))
		case 8:
			pf.status = strings.TrimSpace(sc.Text())
		}
	}
	return pf, sc.Err()
}

// ensureDatabase reads the server version and creates c.database when it
// does not exist.
func (c *Cluster) ensureDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.URLFor("postgres"))
	if err != nil {
		return fmt.Errorf("pglocal: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version')").Scan(&c.version); err != nil {
		return fmt.Errorf("pglocal: server version: %w", err)
	}
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", c.database).Scan(&exists); err != nil {
		return fmt.Errorf("pglocal: look up database %q: %w", c.database, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{c.database}.Sanitize())
	var pgErr *pgconn.PgError
	if err != nil && !(errors.As(err, &pgErr) && pgErr.Code == "42P04") { // duplicate_database
		return fmt.Errorf("pglocal: create database %q: %w", c.database, err)
	}
	return nil
}
