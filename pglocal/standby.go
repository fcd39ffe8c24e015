package pglocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

const (
	// standbyPassFileName is the libpq password file inside a standby's data
	// folder that its WAL receiver reads to authenticate to the primary. It
	// is written last when a standby is cloned, so its presence marks a
	// complete clone.
	standbyPassFileName = "tenure-pgpass"
	// defaultStandbyName is the standby's application_name on the primary
	// (pg_stat_replication) when StandbyOptions.Name is empty.
	defaultStandbyName = "tenure_standby"
)

// standbyCriticalSettings are the settings a hot standby refuses to run
// with when they are lower than the primary's. StartStandby passes the
// primary's values.
var standbyCriticalSettings = []string{
	"max_connections", "max_locks_per_transaction", "max_prepared_transactions",
	"max_wal_senders", "max_worker_processes",
}

// StandbyOptions configure a streaming standby started by StartStandby.
type StandbyOptions struct {
	// DataDir is the standby's data folder, required and made absolute.
	// When it is missing or empty the primary is cloned into it
	// (pg_basebackup); when it holds a standby cloned earlier by
	// StartStandby (of the same primary) that standby is started again and
	// catches up from where it stopped.
	DataDir string
	// BinDir is the folder holding postgres and pg_basebackup, of the
	// primary's major version; when empty FindBinDir is used.
	BinDir string
	// Port is the loopback TCP port to listen on; 0 picks a free port at
	// each start. A standby started again on the same data folder keeps
	// its clients' connection URL only when given its previous Port.
	Port int
	// Name is the standby's application_name on the primary, as shown in
	// pg_stat_replication; default "tenure_standby".
	Name string
	// Ephemeral selects test mode, as Options.Ephemeral does: fsync and
	// full_page_writes are off and the clone is not synced to disk.
	Ephemeral bool
	// Settings are extra server settings passed as -c name=value at each
	// start. They take precedence over the ones StartStandby sets itself
	// (hot_standby, primary_conninfo and the primary's values of the
	// settings a standby must not have lower, such as max_connections).
	Settings map[string]string
	// Logger receives start and stop messages; default the primary's.
	Logger *slog.Logger
	// Getenv reads the environment (PG_BIN); default os.Getenv.
	Getenv func(string) string
	// StartTimeout bounds the wait for the standby to accept connections,
	// which it does once it has replayed the WAL to a consistent state;
	// default 30 s. The clone itself is bounded by the context only.
	StartTimeout time.Duration
}

// StartStandby starts a hot standby of the running cluster c: a read-only
// server that streams c's WAL and replays it continuously. It needs
// PostgreSQL 12 or later. The standby is
// cloned with pg_basebackup -R -X stream over the primary's loopback TCP
// port as its superuser (initdb allows replication connections from the
// loopback addresses, wal_level replica and max_wal_senders 10 are the
// defaults since PostgreSQL 10), or started again when DataDir already holds
// a standby of c. It then runs as its own server, on its own port, with
// hot_standby on; the returned Cluster's URL reaches the same database as
// c's, read-only, with the same password. Its Stop shuts it down as for any
// cluster and Kill ends it abruptly; StartStandby with the same DataDir (and
// Port) starts it again.
//
// The standby connects to the primary's current port at each start:
// primary_conninfo is passed on the command line, overriding the one in
// postgresql.auto.conf (pg_basebackup -R's, rewritten to read the password
// from the file tenure-pgpass in the standby's data folder rather than hold
// it), so a primary that moved to another port is followed when the standby
// is started again. No replication slot is used: a standby that is down
// while the primary writes more WAL than it keeps (max_wal_size,
// wal_keep_size) cannot catch up and must be cloned again into an empty
// folder.
func (c *Cluster) StartStandby(ctx context.Context, opts StandbyOptions) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("pglocal: StandbyOptions.DataDir is required")
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pglocal: standby data folder: %w", err)
	}
	if dataDir == c.dataDir {
		return nil, fmt.Errorf("pglocal: standby data folder %s is the primary's", dataDir)
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = c.logger
	}
	if opts.Name == "" {
		opts.Name = defaultStandbyName
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
	primary, err := c.replicationInfo(ctx)
	if err != nil {
		return nil, err
	}
	if err := prepareDataDir(dataDir, acct); err != nil {
		return nil, err
	}
	cloned, err := c.ensureStandbyClone(ctx, binDir, dataDir, acct, opts)
	if err != nil {
		return nil, err
	}
	password, _, err := ensureCluster(ctx, binDir, dataDir, acct, opts.Ephemeral, opts.Logger)
	if err != nil {
		return nil, err
	}

	settings := maps.Clone(primary.settings)
	settings["hot_standby"] = "on"
	settings["primary_conninfo"] = c.standbyConninfo(dataDir, opts.Name)
	maps.Copy(settings, opts.Settings)
	launchOpts := Options{
		DataDir:      dataDir,
		Port:         opts.Port,
		Ephemeral:    opts.Ephemeral,
		Settings:     settings,
		StartTimeout: opts.StartTimeout,
	}

	s := &Cluster{dataDir: dataDir, database: c.database, password: password, logger: opts.Logger}
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			if port, err = freePort(); err != nil {
				return nil, err
			}
		}
		err = s.launch(ctx, binDir, port, acct, launchOpts)
		if err == nil {
			break
		}
		if opts.Port == 0 && errors.Is(err, errPortInUse) && attempt < portAttempts {
			continue
		}
		return nil, err
	}
	if err := s.checkStandbyOf(ctx, primary.systemID); err != nil {
		s.terminate()
		return nil, err
	}
	s.logger.Info("postgres standby started", "data_dir", s.dataDir, "port", s.port, "version", s.version,
		"pid", s.proc.cmd.Process.Pid, "primary_port", c.port, "cloned", cloned, "ephemeral", opts.Ephemeral)
	return s, nil
}

// Kill ends the server abruptly, as a crash of the machine would: SIGKILL
// to the postmaster and, where the OS lists them (Linux), to each of its
// processes, returning once they have exited (PostgreSQL puts each child
// of the postmaster in a session of its own, out of reach of a signal to
// the postmaster's group; a child left running would keep the next start
// from using the data folder until it noticed the postmaster's death). The
// data folder is left as a crash leaves it, with a stale postmaster.pid;
// the next start recovers it. Later Stop calls return nil. Kill is meant
// for tests of failure handling; it refuses an attached cluster, whose
// server belongs to another process.
func (c *Cluster) Kill() error {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.attached {
		return errors.New("pglocal: kill: the cluster is attached to another process's server")
	}
	if c.stopped {
		return nil
	}
	killServer(c.proc)
	c.stopped = true
	c.logger.Info("postgres killed", "data_dir", c.dataDir, "port", c.port)
	return nil
}

// Freeze stops the server and every child of it (SIGSTOP) without closing
// a connection, as a machine that hangs: queries and new connections wait
// until Thaw. Like Kill it is meant for tests of failure handling, and
// refuses an attached or stopped cluster.
func (c *Cluster) Freeze() error { return c.signalAll(sigStop) }

// Thaw lets a frozen server run again (SIGCONT).
func (c *Cluster) Thaw() error { return c.signalAll(sigCont) }

// signalAll sends sig to the postmaster and each of its children.
func (c *Cluster) signalAll(sig syscall.Signal) error {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.attached || c.stopped {
		return errors.New("pglocal: the cluster's server is not one this process started and runs")
	}
	pid := c.proc.cmd.Process.Pid
	children := childProcesses(pid)
	if err := c.proc.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("pglocal: signal the server: %w", err)
	}
	for _, child := range children {
		_ = child.Signal(sig)
		_ = child.Release()
	}
	return nil
}

// killServer SIGKILLs the postmaster of p and every child of it, and
// returns once they are gone (the children within killGrace). PostgreSQL
// puts each child in a session of its own, so the postmaster's process
// group does not reach them: one left running holds the shared memory a
// restart on the same data folder must take.
func killServer(p *process) {
	// Listed while the postmaster lives: once it is dead its children
	// belong to another parent.
	children := childProcesses(p.cmd.Process.Pid)
	killProcessGroup(p.cmd)
	for _, child := range children {
		_ = child.Kill()
	}
	<-p.done
	deadline := time.Now().Add(killGrace)
	for _, child := range children {
		for processRunning(child.Pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		_ = child.Release()
	}
}

// childProcesses returns the child processes of pid, found through /proc;
// none where there is no /proc.
func childProcesses(pid int) []*os.Process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []*os.Process
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(child); ok && ppid == pid {
			// On Linux the handle is a pidfd: Kill cannot reach another
			// process that reused the pid.
			if p, err := os.FindProcess(child); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// processRunning reports whether pid is a process that has not exited (a
// zombie has); false where there is no /proc.
func processRunning(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}

// procStat reads the parent pid and state of pid from /proc/pid/stat.
func procStat(pid int) (ppid int, state string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	// pid (command) state ppid ...; the command may hold spaces and ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}

// primaryInfo is what a standby needs to know of its primary.
type primaryInfo struct {
	// systemID is the primary's database system identifier, which its
	// clones share.
	systemID int64
	// settings are the primary's values of standbyCriticalSettings.
	settings map[string]string
}

// replicationInfo reads c's system identifier and the settings a standby
// must match, and checks that c can serve a standby.
func (c *Cluster) replicationInfo(ctx context.Context) (primaryInfo, error) {
	info := primaryInfo{settings: map[string]string{}}
	conn, err := pgx.Connect(ctx, c.URLFor("postgres"))
	if err != nil {
		return info, fmt.Errorf("pglocal: standby: connect to the primary: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var inRecovery bool
	var walLevel string
	var version int
	if err := conn.QueryRow(ctx, "SELECT system_identifier, pg_is_in_recovery(), current_setting('wal_level'), current_setting('server_version_num')::int FROM pg_control_system()").
		Scan(&info.systemID, &inRecovery, &walLevel, &version); err != nil {
		return info, fmt.Errorf("pglocal: standby: read the primary's system identifier: %w", err)
	}
	if version < 120000 {
		// Before 12 a standby was configured in recovery.conf, not by
		// settings and standby.signal.
		return info, fmt.Errorf("pglocal: standby: the primary runs PostgreSQL %s; standbys need PostgreSQL 12 or later", c.version)
	}
	if inRecovery {
		return info, errors.New("pglocal: standby: the cluster is itself a standby; start standbys of the primary")
	}
	if walLevel == "minimal" {
		return info, errors.New("pglocal: standby: the primary runs with wal_level minimal, which cannot feed a standby; use replica (the default)")
	}
	rows, err := conn.Query(ctx, "SELECT name, setting FROM pg_settings WHERE name = ANY($1)", standbyCriticalSettings)
	if err != nil {
		return info, fmt.Errorf("pglocal: standby: read the primary's settings: %w", err)
	}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return info, fmt.Errorf("pglocal: standby: read the primary's settings: %w", err)
		}
		info.settings[name] = value
	}
	if err := rows.Err(); err != nil {
		return info, fmt.Errorf("pglocal: standby: read the primary's settings: %w", err)
	}
	return info, nil
}

// ensureStandbyClone clones c into dataDir unless dataDir already holds a
// complete standby clone; cloned reports whether it did.
func (c *Cluster) ensureStandbyClone(ctx context.Context, binDir, dataDir string, acct *account, opts StandbyOptions) (cloned bool, err error) {
	_, err = os.Stat(filepath.Join(dataDir, "PG_VERSION"))
	if err == nil {
		if _, err := os.Stat(filepath.Join(dataDir, standbyPassFileName)); err != nil {
			return false, fmt.Errorf("pglocal: data folder %s holds a PostgreSQL cluster that is not a complete standby clone (no %s file): it is a primary, or its cloning was interrupted (then remove the folder to clone afresh)", dataDir, standbyPassFileName)
		}
		if _, err := os.Stat(filepath.Join(dataDir, "standby.signal")); err != nil {
			return false, fmt.Errorf("pglocal: data folder %s holds a former standby that is no longer one (no standby.signal: it was promoted): remove the folder to clone the primary afresh", dataDir)
		}
		return false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("pglocal: standby data folder: %w", err)
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return false, fmt.Errorf("pglocal: standby data folder: %w", err)
	}
	if len(entries) > 0 {
		return false, fmt.Errorf("pglocal: standby data folder %s is not empty but holds no PostgreSQL cluster (no PG_VERSION file): use an empty or missing folder", dataDir)
	}
	opts.Logger.Info("cloning postgres primary into standby data folder", "data_dir", dataDir, "primary_port", c.port)
	if err := c.basebackup(ctx, binDir, dataDir, acct, opts); err != nil {
		// The folder was empty: whatever is in it now is the failed clone.
		if entries, rerr := os.ReadDir(dataDir); rerr == nil {
			for _, e := range entries {
				_ = os.RemoveAll(filepath.Join(dataDir, e.Name()))
			}
		}
		return false, err
	}
	// The clone copied the primary's files, its server log among them; the
	// standby's log starts afresh. The backup's manifest (PostgreSQL 13 and
	// later) serves no purpose in a standby.
	for _, name := range []string{logFileName, logFileName + ".1", "backup_manifest"} {
		if err := os.Remove(filepath.Join(dataDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("pglocal: standby: remove %s from the clone: %w", name, err)
		}
	}
	// pg_basebackup -R wrote the connection it used, password included,
	// as primary_conninfo; the standby reads the password from its
	// password file instead, like the connection StartStandby passes on
	// the command line at each start.
	if err := rewritePrimaryConninfo(dataDir, c.standbyConninfo(dataDir, opts.Name), acct); err != nil {
		return false, err
	}
	// The clone holds the primary's password file, and so the password of
	// the superuser it connects to the primary as. Written last: its
	// presence marks a complete clone.
	pwPath := filepath.Join(dataDir, passwordFileName)
	b, err := os.ReadFile(pwPath)
	if err != nil {
		return false, fmt.Errorf("pglocal: standby: the clone has no password file: %w", err)
	}
	line := "127.0.0.1:*:*:" + superuser + ":" + strings.TrimSpace(string(b)) + "\n"
	if err := writeFileAtomic(filepath.Join(dataDir, standbyPassFileName), []byte(line), acct); err != nil {
		return false, fmt.Errorf("pglocal: standby: write password file: %w", err)
	}
	return true, nil
}

// standbyConninfo is the primary_conninfo of a standby of c in dataDir: the
// primary's current port, the password from the standby's password file.
func (c *Cluster) standbyConninfo(dataDir, name string) string {
	return conninfo(
		"host", "127.0.0.1",
		"port", strconv.Itoa(c.port),
		"user", superuser,
		"passfile", filepath.Join(dataDir, standbyPassFileName),
		"application_name", name,
		"sslmode", "disable",
	)
}

// rewritePrimaryConninfo replaces the primary_conninfo line that
// pg_basebackup -R wrote into dataDir/postgresql.auto.conf by one setting
// value.
func rewritePrimaryConninfo(dataDir, value string, acct *account) error {
	path := filepath.Join(dataDir, "postgresql.auto.conf")
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("pglocal: standby: read the clone's settings: %w", err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	found := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "primary_conninfo") {
			lines[i] = "primary_conninfo = '" + strings.ReplaceAll(value, "'", "''") + "'\n"
			found = true
		}
	}
	if !found {
		return fmt.Errorf("pglocal: standby: pg_basebackup -R wrote no primary_conninfo into %s", path)
	}
	if err := writeFileAtomic(path, []byte(strings.Join(lines, "")), acct); err != nil {
		return fmt.Errorf("pglocal: standby: write the clone's settings: %w", err)
	}
	return nil
}

// basebackup runs pg_basebackup to clone c into the empty folder dataDir,
// streaming the WAL written meanwhile (-X stream) and writing the standby
// configuration (-R: standby.signal and primary_conninfo).
func (c *Cluster) basebackup(ctx context.Context, binDir, dataDir string, acct *account, opts StandbyOptions) error {
	args := []string{"-D", dataDir, "-X", "stream", "-R", "--checkpoint=fast", "--no-password",
		"-d", conninfo("host", "127.0.0.1", "port", strconv.Itoa(c.port), "user", superuser,
			"application_name", opts.Name, "sslmode", "disable")}
	if opts.Ephemeral {
		args = append(args, "--no-sync")
	}
	prog := filepath.Join(binDir, "pg_basebackup"+exeSuffix)
	if _, err := os.Stat(prog); err != nil {
		return fmt.Errorf("pglocal: a standby is cloned with pg_basebackup, which the PostgreSQL installation in %s lacks: %w", binDir, err)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = filepath.Dir(dataDir)
	// The password goes through the environment, which only the same user
	// can read, rather than the command line, which everyone can.
	cmd.Env = append(os.Environ(), "LC_ALL=C", "PGPASSWORD="+c.password)
	cmd.SysProcAttr = acct.sysProcAttr(syscall.SIGTERM)
	cmd.Cancel = func() error { return signalProcess(cmd, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	p, err := startProcess(cmd)
	if err != nil {
		return fmt.Errorf("pglocal: pg_basebackup: start as user %s: %w", acct.name, err)
	}
	<-p.done
	if p.err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("pglocal: pg_basebackup: %w", context.Cause(ctx))
		}
		return fmt.Errorf("pglocal: pg_basebackup: %w; output:\n%s", p.err, lastLines(out.Bytes(), logTailLines))
	}
	return nil
}

// checkStandbyOf reads the standby's version and checks that it is in
// recovery and a clone of the primary with systemID.
func (c *Cluster) checkStandbyOf(ctx context.Context, systemID int64) error {
	conn, err := pgx.Connect(ctx, c.URLFor("postgres"))
	if err != nil {
		return fmt.Errorf("pglocal: standby: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var id int64
	var inRecovery bool
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), system_identifier, pg_is_in_recovery() FROM pg_control_system()").
		Scan(&c.version, &id, &inRecovery); err != nil {
		return fmt.Errorf("pglocal: standby: %w", err)
	}
	if id != systemID {
		return fmt.Errorf("pglocal: standby data folder %s holds a clone of another cluster (system identifier %d, the primary's is %d): remove the folder to clone the primary afresh", c.dataDir, id, systemID)
	}
	if !inRecovery {
		return fmt.Errorf("pglocal: standby data folder %s started as a primary, not a standby", c.dataDir)
	}
	return nil
}

// conninfo builds a libpq key/value connection string from pairs of keys
// and values, quoting each value.
func conninfo(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		v := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(kv[i+1])
		b.WriteString(kv[i] + "='" + v + "'")
	}
	return b.String()
}
