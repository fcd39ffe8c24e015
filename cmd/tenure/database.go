package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/pglocal"
	"github.com/tenurehq/tenure/replica"
)

// database is the open connection pool and, when Tenure runs on its own
// embedded default, the private cluster behind it.
type database struct {
	pool    *pgxpool.Pool
	cluster *pglocal.Cluster
	logger  *slog.Logger
	getenv  func(string) string
}

// url is the connection string of the database.
func (db *database) url() string { return db.pool.Config().ConnString() }

// openDatabase connects to DATABASE_URL, or starts the private cluster under
// the data folder and connects to it.
func openDatabase(ctx context.Context, cfg *baseConfig, getenv func(string) string, logger *slog.Logger) (*database, error) {
	db := &database{logger: logger, getenv: getenv}
	url := cfg.databaseURL
	if url == "" {
		cluster, err := pglocal.Start(ctx, pglocal.Options{
			DataDir: cfg.dataDir, Logger: logger, Getenv: getenv, Attach: !cfg.exclusive,
			Settings: privateClusterSettings(),
		})
		if err != nil {
			return nil, err
		}
		db.cluster = cluster
		url = cluster.URL()
	}
	pcfg, err := poolConfig(url, logger)
	if err != nil {
		db.close()
		return nil, err
	}
	if cfg.application != "" {
		pcfg.ConnConfig.RuntimeParams["application_name"] = cfg.application
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		db.close()
		return nil, fmt.Errorf("database: %w", err)
	}
	db.pool = pool
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		db.close()
		return nil, fmt.Errorf("database: cannot reach PostgreSQL at %s:%d: %w",
			pcfg.ConnConfig.Host, pcfg.ConnConfig.Port, err)
	}
	return db, nil
}

// poolConfig is the connection pool configuration of every Tenure process.
// Its queries take optional filters (`@x IS NULL OR col = @x`), for which a
// cached generic plan can be disastrous (a nested loop of sequential scans:
// two minutes at a million facts, against 10 ms planned for the values), so
// statements are sent unnamed and planned at each execution for its
// parameters (pgx caches only their descriptions). This is narrower than
// plan_cache_mode=force_custom_plan, which would also re-plan, on every row,
// the cached statements of triggers and foreign-key checks: that made each
// inserted fact cost five times as much.
//
// Warnings the server sends on the pool's connections are logged to logger,
// each distinct one once (see serverWarnings); a nil logger drops them.
func poolConfig(url string, logger *slog.Logger) (*pgxpool.Config, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if logger != nil {
		pcfg.ConnConfig.OnNotice = (&serverWarnings{logger: logger}).notice
	}
	pcfg.ConnConfig.RuntimeParams["application_name"] = "tenure"
	pcfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	// Tenure's working set lives in memory or on SSD, where a random page
	// read costs about what a sequential one does. At the default of 4 the
	// facts list filtered by a category walked the primary key backwards
	// through 100,000 newer facts of other categories (30 ms) rather than
	// read 51 rows from the category index (under 1 ms).
	pcfg.ConnConfig.RuntimeParams["random_page_cost"] = "1.1"
	// Tenure's statements are short and many run at once. A parallel plan
	// starts worker processes for each execution, which cost more than they
	// save here: recall's median went from 113 ms to 72 ms without them on
	// a two-core machine at a million facts.
	pcfg.ConnConfig.RuntimeParams["max_parallel_workers_per_gather"] = "0"
	// Nor is any statement of Tenure's long enough to repay compiling it to
	// machine code, which PostgreSQL does (where its server has JIT) for a
	// plan whose estimated cost passes jit_above_cost, at every execution:
	// one recall statement crossed that line at a million facts once, and
	// spent 53 ms compiling what ran in 5.
	pcfg.ConnConfig.RuntimeParams["jit"] = "off"
	// A consolidation run holds up to four connections (its lock, its read
	// ahead, and two parts of a batch promoted at once); the pool keeps room
	// for the console and the API beside it unless the URL sizes it
	// (pool_max_conns).
	if !strings.Contains(url, "pool_max_conns") {
		pcfg.MaxConns = max(pcfg.MaxConns, 10)
	}
	return pcfg, nil
}

// privateClusterSettings sizes the private cluster's buffer cache to the
// machine: PostgreSQL's default of 128MB holds a tenth of a million facts
// with their indexes.
func privateClusterSettings() map[string]string {
	return map[string]string{"shared_buffers": pglocal.SharedBuffers()}
}

// close closes the pool, then stops the private cluster if there is one.
func (db *database) close() {
	if db.pool != nil {
		db.pool.Close()
	}
	if db.cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := db.cluster.Stop(ctx); err != nil {
			db.logger.Error("pglocal.stop", "err", err)
		}
	}
}

// serverWarnings logs the warnings PostgreSQL sends on a pool's connections,
// each distinct one (by SQLSTATE and message) once: a statement that makes
// the server warn at every execution shows in Tenure's log without filling
// it (the server's own log keeps every one). It remembers at most
// maxServerWarnings distinct warnings; later new ones are not logged.
type serverWarnings struct {
	logger *slog.Logger
	mu     sync.Mutex
	seen   map[string]bool
}

const maxServerWarnings = 100

func (w *serverWarnings) notice(_ *pgconn.PgConn, n *pgconn.Notice) {
	if n.Severity != "WARNING" {
		return
	}
	key := n.Code + " " + n.Message
	w.mu.Lock()
	first := !w.seen[key] && len(w.seen) < maxServerWarnings
	if first {
		if w.seen == nil {
			w.seen = map[string]bool{}
		}
		w.seen[key] = true
	}
	w.mu.Unlock()
	if first {
		w.logger.Warn("postgres warned (logged once; the server's log has every one)",
			"sqlstate", n.Code, "message", n.Message)
	}
}

// reads is where serve sends reads: a router over the primary's pool and a
// pool to each hot standby, and the private cluster's standby when serve
// started one (--standby).
type reads struct {
	router  *replica.Router
	pools   []*pgxpool.Pool
	standby *pglocal.Cluster
	logger  *slog.Logger
}

// standbyDir is the folder of the private cluster's standby: beside the
// data folder, under its name with -standby.
func standbyDir(dataDir string) string {
	dataDir = filepath.Clean(dataDir)
	return filepath.Join(filepath.Dir(dataDir), filepath.Base(dataDir)+"-standby")
}

// openReads starts the private cluster's standby when cfg asks for it,
// connects to every standby and starts the router over them and db's
// pool; nil when there is no standby. onRead is the router's OnRead.
func openReads(ctx context.Context, cfg readConfig, db *database, application string, onRead func(string, bool),
	getenv func(string) string, logger *slog.Logger) (*reads, error) {
	urls := cfg.urls.values
	if len(urls) == 0 && !cfg.standby {
		return nil, nil
	}
	r := &reads{logger: logger}
	if cfg.standby {
		dir := standbyDir(db.cluster.DataDir())
		logger.Info("serve.standby", "data_dir", dir)
		s, err := db.cluster.StartStandby(ctx, pglocal.StandbyOptions{DataDir: dir, Logger: logger, Getenv: getenv,
			Settings: privateClusterSettings()})
		if err != nil {
			return nil, fmt.Errorf("serve --standby: %w (a standby left stopped too long cannot catch up: remove %s to clone the primary afresh)", err, dir)
		}
		r.standby = s
		urls = append(urls, s.URL())
	}
	var standbys []replica.Standby
	for i, url := range urls {
		pcfg, err := poolConfig(url, logger)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("read database #%d: %w", i+1, err)
		}
		if application != "" {
			pcfg.ConnConfig.RuntimeParams["application_name"] = application
		}
		// A standby that does not answer is taken out of rotation: reads
		// wait for it no longer than the router's check does.
		if pcfg.ConnConfig.ConnectTimeout == 0 {
			pcfg.ConnConfig.ConnectTimeout = replica.DefaultCheckTimeout
		}
		// The pool connects lazily: a standby that is down when serve
		// starts enters rotation once it answers.
		pool, err := pgxpool.NewWithConfig(ctx, pcfg)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("read database #%d: %w", i+1, err)
		}
		r.pools = append(r.pools, pool)
		// Named by position, not by address: the name is public in /healthz
		// and in metrics; the signed-in health page shows the address.
		standbys = append(standbys, replica.Standby{Name: fmt.Sprintf("standby%d", i+1), Pool: pool})
		if err := pool.Ping(ctx); err != nil {
			logger.Warn("serve.read_database_unreachable: reads go to the primary until it answers", "read_database", i+1,
				"host", pcfg.ConnConfig.Host, "port", pcfg.ConnConfig.Port, "err", err)
		}
	}
	router, err := replica.New(db.pool, standbys, replica.Options{MaxLag: cfg.maxLag, Logger: logger, OnRead: onRead})
	if err != nil {
		r.close()
		return nil, err
	}
	r.router = router
	return r, nil
}

// close stops the router, closes the standbys' pools, then stops the
// private cluster's standby.
func (r *reads) close() {
	if r == nil {
		return
	}
	if r.router != nil {
		r.router.Close()
	}
	for _, p := range r.pools {
		p.Close()
	}
	if r.standby != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := r.standby.Stop(ctx); err != nil {
			r.logger.Error("pglocal.stop_standby", "err", err)
		}
	}
}
