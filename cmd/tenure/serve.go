package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/metrics"
	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
	"github.com/tenurehq/tenure/web"
)

type serveConfig struct {
	baseConfig
	jobs  jobConfig
	llm   llmConfig
	http  httpConfig
	reads readConfig
	addr  string
	demo  bool
}

func runServe(ctx context.Context, env *environment, args []string) error {
	cfg := serveConfig{baseConfig: baseConfig{exclusive: true, application: "tenure serve"}}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	cfg.register(fs, env.getenv)
	fs.StringVar(&cfg.addr, "addr", envOr(env.getenv, "TENURE_ADDR", "127.0.0.1:8080"),
		"address to listen on (env TENURE_ADDR)")
	fs.BoolVar(&cfg.demo, "demo", envOr(env.getenv, "TENURE_DEMO", "") == "1",
		"load demo data into an empty database and create a demo admin (env TENURE_DEMO=1)")
	cfg.jobs.register(fs, env.getenv)
	cfg.llm.register(fs, env.getenv)
	cfg.http.register(fs, env.getenv)
	cfg.reads.register(fs, env.getenv)
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if err := cfg.reads.validate(&cfg.baseConfig); err != nil {
		return err
	}
	if err := cfg.jobs.validate(); err != nil {
		return err
	}
	if err := validateAddr(cfg.addr); err != nil {
		return err
	}
	proxies, err := cfg.http.validate(cfg.addr)
	if err != nil {
		return err
	}
	llmCfg, err := cfg.llm.validate()
	if err != nil {
		return err
	}
	extractors, err := extract.NewSet(llmCfg)
	if err != nil {
		return usagef("%v", err)
	}
	logger := cfg.logger(env.stderr)
	if llmCfg.Configured() {
		logger.Info("serve.extraction", "default", extract.ModeRules, "llm_url", extractors.Settings().URL, "llm_model", llmCfg.Model,
			"llm_key_set", llmCfg.Key != "", "llm_timeout", llmCfg.Timeout.String())
	}

	assets, err := static.New()
	if err != nil {
		return err
	}
	// Listen before starting anything slow, so a taken port fails at once.
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w (is another server using it? set --addr or TENURE_ADDR)", cfg.addr, err)
	}
	defer ln.Close()
	var metricsLn net.Listener
	if cfg.http.metricsAddr != "" {
		metricsLn, err = net.Listen("tcp", cfg.http.metricsAddr)
		if err != nil {
			return fmt.Errorf("serve: listen on %s for metrics: %w (set --metrics-addr or TENURE_METRICS_ADDR)", cfg.http.metricsAddr, err)
		}
		defer metricsLn.Close()
	}
	logger.Info("serve.http", "trusted_proxies", cfg.http.trustedProxies, "public_url", cfg.http.publicURL,
		"metrics", metricsWhere(cfg.http), "request_timeout", cfg.http.requestTimeout.String(),
		"rate_limit", cfg.http.limits.Token.String(), "rate_limit_anon", cfg.http.limits.Address.String(),
		"cors_origins", cfg.http.cors, "mcp_origins", cfg.http.mcp)

	db, err := openMigrated(ctx, &cfg.baseConfig, env.getenv, logger)
	if err != nil {
		return err
	}
	defer db.close()
	if cfg.demo {
		if err := loadDemo(ctx, env, db); err != nil {
			return err
		}
	}

	reg := metrics.New()
	// Reads go to hot standbys when there are any; deferred calls run
	// last-in first-out, so the router, the standbys' pools and the
	// private standby stop before the primary's pool and cluster.
	rd, err := openReads(ctx, cfg.reads, db, cfg.application, reg.ObserveRead, env.getenv, logger)
	if err != nil {
		return err
	}
	defer rd.close()
	var router *replica.Router
	if rd != nil {
		router = rd.router
		logger.Info("serve.reads", "standbys", len(rd.pools), "max_lag", cfg.reads.maxLag.String(), "local_standby", rd.standby != nil)
	}
	store := memory.NewStore(db.pool, memory.Options{Logger: logger, Metrics: reg, ConsolidateWorkers: cfg.jobs.workers, Reads: router})
	stopJobs := func() {}
	var sched web.Jobs
	if !cfg.jobs.noJobs {
		s, stop, err := startJobs(ctx, db, store, reg, cfg.jobs, logger)
		if err != nil {
			return err
		}
		sched, stopJobs = s, stop
	}
	// Deferred calls run last-in first-out: the scheduler stops after HTTP and
	// before the pool and the private cluster.
	defer stopJobs()

	// /metrics: on its own listener when --metrics-addr is set (and not on
	// the main one); otherwise on the main one only behind --metrics-token;
	// with neither, nowhere.
	wcfg := server.Config{Pool: db.pool, Logger: logger, Assets: assets,
		Store: store, Jobs: sched, Extract: extractors, TrustedProxies: proxies, PublicURL: cfg.http.publicURL,
		RequestTimeout: cfg.http.requestTimeout, Limits: cfg.http.limits, CORSOrigins: cfg.http.cors, MCPOrigins: cfg.http.mcp,
		Registry: reg, Reads: router}
	if metricsLn == nil && cfg.http.metricsToken != "" {
		wcfg.Metrics, wcfg.MetricsToken = reg.Handler(), cfg.http.metricsToken
	}
	app, err := server.New(wcfg)
	if err != nil {
		return err
	}
	servers := []*http.Server{app.HTTPServer(cfg.addr)}
	errc := make(chan error, 2)
	go func() { errc <- servers[0].Serve(ln) }()
	if metricsLn != nil {
		msrv := metricsServer(reg.Handler(), cfg.http.metricsToken, logger)
		servers = append(servers, msrv)
		go func() { errc <- msrv.Serve(metricsLn) }()
		logger.Info("serve.metrics", "addr", metricsLn.Addr().String())
		fmt.Fprintf(env.stdout, "Metrics are served at http://%s/metrics\n", metricsLn.Addr())
	}
	url := "http://" + ln.Addr().String()
	logger.Info("serve.listening", "addr", ln.Addr().String())
	fmt.Fprintf(env.stdout, "Tenure is serving at %s (Ctrl-C stops it)\n", url)
	if err := printSetupLink(ctx, env, db, cmp.Or(strings.TrimRight(cfg.http.publicURL, "/"), url), logger); err != nil && ctx.Err() == nil {
		// The server runs on: tenure user create still makes the first admin.
		logger.Error("serve.setup_link", "err", err)
	}

	var serveErr error
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			serveErr = fmt.Errorf("serve: %w", err)
		}
	case <-ctx.Done():
	}
	// Shut down in order: HTTP first (finish in-flight requests), then the
	// scheduler, the pool and the private cluster (deferred above).
	logger.Info("serve.shutdown")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(shutdownCtx); err != nil {
			logger.Error("serve.shutdown", "err", err)
		}
	}
	return serveErr
}

// metricsWhere says, for the log, where /metrics is served.
func metricsWhere(c httpConfig) string {
	switch {
	case c.metricsAddr != "" && c.metricsToken != "":
		return "on " + c.metricsAddr + " with a bearer token"
	case c.metricsAddr != "":
		return "on " + c.metricsAddr
	case c.metricsToken != "":
		return "on the main address with a bearer token"
	}
	return "not served (set --metrics-addr or --metrics-token)"
}

// metricsServer serves /metrics alone, for --metrics-addr, behind token when
// one is set.
func metricsServer(metrics http.Handler, token string, logger *slog.Logger) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", server.MetricsHandler(metrics, token))
	return &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 16,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// loadDemo fills an empty database with the demo memory and prints the demo
// admin's login once; a database that already holds data is left alone.
func loadDemo(ctx context.Context, env *environment, db *database) error {
	sum, err := demo.Load(ctx, db.pool, time.Now())
	if errors.Is(err, demo.ErrNotEmpty) {
		fmt.Fprintf(env.stdout, "Demo data not loaded: the database already holds data.\n"+
			"Sign in as %s with the password printed on the first run, or create a user:\n"+
			"  tenure user create --email you@example.com --role admin --password-stdin\n", demo.AdminEmail)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Demo data loaded: %d scopes, %d entities, %d facts (%d archived), %d decisions, %d obligations, %d working rows.\n",
		sum.Scopes, sum.Entities, sum.Facts, sum.Archived, sum.Decisions, sum.Obligations, sum.Nodes)
	fmt.Fprintf(env.stdout, "Demo login: %s  password: %s  (shown once; stored only as a hash)\n",
		sum.AdminEmail, sum.AdminPassword)
	// A first consolidation run, so that the console's pages have a history
	// on the first start: a run's report, its refusals, what it queued.
	store := memory.NewStore(db.pool, memory.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	run, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerSchedule})
	if err != nil {
		return fmt.Errorf("demo: first consolidation: %w", err)
	}
	fmt.Fprintf(env.stdout, "First consolidation run: %d promoted, %d refused, %d superseded.\n",
		run.Count(memory.PhasePromote, "promoted"), run.TransientRejected+run.ExpiredRejected+run.DecisionLocked,
		run.Count(memory.PhasePromote, "superseded"))
	return nil
}

// printSetupLink prints, while no account exists, the one-time link that
// creates the first admin (its token is kept only as a hash and works for
// auth.SetupTTL); every start prints a new one, and the older links stop
// working.
func printSetupLink(ctx context.Context, env *environment, db *database, base string, logger *slog.Logger) error {
	token, expires, err := auth.NewSetupLink(ctx, db.pool, time.Now())
	if errors.Is(err, auth.ErrSetupClosed) {
		return nil
	}
	if err != nil {
		return err
	}
	logger.Info("serve.setup_pending", "expires", expires.Format(time.RFC3339))
	fmt.Fprintf(env.stdout, "\nNo account exists yet. Create the first admin here (the link works once, until %s;\n"+
		"restart the server for a new one, or use tenure user create):\n\n  %s/setup?token=%s\n\n",
		expires.Local().Format("15:04 MST"), base, token)
	return nil
}
