package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/bench"
	"github.com/tenurehq/tenure/migrations"
	"github.com/tenurehq/tenure/pglocal"
)

// benchFlags are the sizes shared by "bench" and "bench seed".
type benchFlags struct {
	facts, nodes, scopes, due int
	seed                      int64
}

func (b *benchFlags) register(fs *flag.FlagSet, facts, nodes int) {
	fs.IntVar(&b.facts, "facts", facts, "facts to generate")
	fs.IntVar(&b.nodes, "nodes", nodes, "working rows to generate (1 in 25 expired, 1 in 6 transient, the rest durable)")
	fs.IntVar(&b.scopes, "scopes", 10, "scopes to spread the rows over")
	fs.IntVar(&b.due, "due", 1000, "active facts due for decay now")
	fs.Int64Var(&b.seed, "seed", 1, "random seed")
}

func (b *benchFlags) validate() error {
	if b.facts < 100 || b.nodes < 0 || b.scopes < 1 || b.scopes > 99 || b.due < 0 || b.due > b.facts/2 {
		return usagef("bench: use --facts ≥ 100, --nodes ≥ 0, --scopes 1..99 and --due ≤ half the facts")
	}
	return nil
}

func (b *benchFlags) options() bench.SeedOptions {
	return bench.SeedOptions{Facts: b.facts, Nodes: b.nodes, Scopes: b.scopes, DueNow: b.due, Seed: b.seed}
}

// seedProgress shows the seeding's progress on env's standard error (a bar,
// or JSON lines off a terminal or with asJSON).
func seedProgress(env *environment, asJSON bool) func(phase string, done, total int64) {
	prog := newProgress(env, "seed", asJSON)
	return func(phase string, done, total int64) {
		if phase == "done" {
			prog.finish()
			return
		}
		prog.set(phase, "rows", done, total, nil)
	}
}

// runBench runs every workload against its baseline on freshly seeded data
// ("bench"), or only fills a database ("bench seed").
func runBench(ctx context.Context, env *environment, args []string) error {
	if len(args) > 0 && args[0] == "seed" {
		return runBenchSeed(ctx, env, args[1:])
	}
	if len(args) > 0 && args[0] == "curve" {
		return runBenchCurve(ctx, env, args[1:])
	}
	if len(args) > 0 && args[0] == "conversation" {
		return runBenchConversation(ctx, env, args[1:])
	}
	var sizes benchFlags
	var requests, batches int
	var asJSON bool
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure bench [flags]     measure every workload against its baseline\n       tenure bench seed [flags] fill the database at DATABASE_URL or --data-dir\n       tenure bench curve [flags] run the workloads at several store sizes; write a table and an SVG plot\n       tenure bench conversation [flags] recall on generated multi-session chats, against BM25 and a PostgreSQL OR\n\nWithout DATABASE_URL, bench starts a throw-away private cluster (fsync off) in a temporary folder.\nWith DATABASE_URL, the database must be empty: bench migrates it and writes into it,\nunless --seeded says \"tenure bench seed\" filled it already (with the same sizes and seed).")
		fs.PrintDefaults()
	}
	sizes.register(fs, 1000000, 125000)
	fs.IntVar(&requests, "requests", 3000, "page requests and recall queries to time")
	fs.IntVar(&batches, "push-batches", 20, "batches of 1,000 rows to push through the API")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	budget := fs.Duration("budget", 2*time.Minute, "time limit of the page and of the recall workload each (fewer samples when reached)")
	databaseURL := fs.String("database-url", envOr(env.getenv, "DATABASE_URL", ""), "PostgreSQL URL of an empty database (env DATABASE_URL); empty starts a private cluster")
	seeded := fs.Bool("seeded", false, "the database at --database-url was filled by \"tenure bench seed\" with the same sizes: measure without seeding")
	only := fs.String("workloads", "", "comma-separated workloads to run, of "+strings.Join(bench.Workloads, ", ")+" (default all)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := sizes.validate(); err != nil {
		return err
	}
	if requests < 1 || batches < 1 {
		return usagef("bench: --requests and --push-batches must be at least 1")
	}
	var workloads []string
	for _, w := range strings.Split(*only, ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		if !slices.Contains(bench.Workloads, w) {
			return usagef("bench: no workload %q: use %s", w, strings.Join(bench.Workloads, ", "))
		}
		workloads = append(workloads, w)
	}
	if *seeded && *databaseURL == "" {
		return usagef("bench: --seeded needs --database-url (or DATABASE_URL), the database \"tenure bench seed\" filled")
	}
	logger := (&baseConfig{logLevel: "warn", logFormat: "text"}).logger(env.stderr)
	url := *databaseURL
	if url == "" {
		dir, err := os.MkdirTemp("", "tenure-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		os.Chmod(dir, 0o755)
		settings := privateClusterSettings()
		cluster, err := pglocal.Start(ctx, pglocal.Options{DataDir: dir + "/pg", Ephemeral: true, Logger: logger, Getenv: env.getenv,
			Settings: settings})
		if err != nil {
			return err
		}
		defer cluster.Stop(context.WithoutCancel(ctx))
		url = cluster.URL()
		fmt.Fprintf(env.stderr, "private cluster: PostgreSQL %s, fsync off, shared_buffers %s, in %s\n", cluster.Version(),
			settings["shared_buffers"], dir)
	}
	pcfg, err := poolConfig(url, logger)
	if err != nil {
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool, logger); err != nil {
		return err
	}
	start := time.Now()
	seed := sizes.options()
	seed.Progress = seedProgress(env, asJSON)
	rep, err := bench.Run(ctx, pool, bench.Options{Seed: seed, Requests: requests, PushBatches: batches, Budget: *budget,
		Logger: logger, Progress: env.stderr, Seeded: *seeded, Workloads: workloads})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "bench finished in %s\n", time.Since(start).Round(time.Second))
	if asJSON {
		return printJSON(env.stdout, rep)
	}
	return bench.WriteTable(env.stdout, rep)
}

func runBenchSeed(ctx context.Context, env *environment, args []string) error {
	var cfg baseConfig
	var sizes benchFlags
	fs := flag.NewFlagSet("bench seed", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure bench seed [--facts N] [--nodes M] [--scopes K] [--due D]\n\nFills an empty database (migrating it first) through COPY.")
		fs.PrintDefaults()
	}
	cfg.register(fs, env.getenv)
	sizes.register(fs, 1000000, 125000)
	var asJSON bool
	fs.BoolVar(&asJSON, "json", false, "show progress as JSON lines on standard error, even on a terminal")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := sizes.validate(); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	logger := cfg.logger(env.stderr)
	db, err := openMigrated(ctx, &cfg, env.getenv, logger)
	if err != nil {
		return err
	}
	defer db.close()
	seed := sizes.options()
	seed.Progress = seedProgress(env, asJSON)
	c, err := bench.Seed(ctx, db.pool, seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "seeded %d facts (%d active, %d due now), %d entities, %d decisions, working rows %d durable / %d transient / %d expired in %s\n",
		c.Facts, c.Active, c.Due, c.Entities, c.Decisions, c.Durable, c.Transient, c.Expired, c.Elapsed.Round(time.Millisecond))
	return nil
}

// runBenchCurve runs the workloads at each of several store sizes, each in a
// fresh private cluster, and writes how each figure grows: a Markdown table
// and an SVG plot (and the reports as JSON) into --out.
func runBenchCurve(ctx context.Context, env *environment, args []string) error {
	var sizes benchFlags
	fs := flag.NewFlagSet("bench curve", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure bench curve [--sizes 100000,1000000,5000000] [--out DIR] [flags]\n\nRuns every workload (without decay's full-rewrite baseline) at each size, each in a fresh private cluster,\nand writes curve.md, curve.svg and curve.json into --out.")
		fs.PrintDefaults()
	}
	sizes.register(fs, 0, 125000)
	list := fs.String("sizes", "100000,1000000,5000000", "store sizes in facts, comma-separated, smallest first")
	out := fs.String("out", ".", "folder to write curve.md, curve.svg and curve.json into")
	requests := fs.Int("requests", 3000, "page requests and recall queries to time at each size")
	budget := fs.Duration("budget", time.Minute, "time limit of the page and of the recall workload each, at each size")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	var facts []int
	for _, f := range strings.Split(*list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 100 {
			return usagef("bench curve: --sizes takes facts counts of at least 100, such as 100000,1000000,5000000; %q is not one", f)
		}
		if len(facts) > 0 && n <= facts[len(facts)-1] {
			return usagef("bench curve: give --sizes smallest first")
		}
		facts = append(facts, n)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	logger := (&baseConfig{logLevel: "warn", logFormat: "text"}).logger(env.stderr)
	var points []bench.CurvePoint
	for _, n := range facts {
		sizes.facts = n
		if err := sizes.validate(); err != nil {
			return err
		}
		fmt.Fprintf(env.stderr, "== %d facts\n", n)
		rep, err := benchInPrivateCluster(ctx, env, logger, bench.Options{Seed: sizes.options(), Requests: *requests,
			PushBatches: 5, Budget: *budget, Logger: logger, Progress: env.stderr, NoRewrite: true})
		if err != nil {
			return err
		}
		points = append(points, bench.CurvePoint{Facts: n, Report: rep})
		// Written after each size, so that a long run keeps what it measured.
		if err := writeCurve(*out, points); err != nil {
			return err
		}
	}
	return bench.WriteCurveTable(env.stdout, points)
}

// benchInPrivateCluster runs the workloads in a throw-away private cluster.
func benchInPrivateCluster(ctx context.Context, env *environment, logger *slog.Logger, o bench.Options) (bench.Report, error) {
	dir, err := os.MkdirTemp("", "tenure-bench-")
	if err != nil {
		return bench.Report{}, err
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	cluster, err := pglocal.Start(ctx, pglocal.Options{DataDir: dir + "/pg", Ephemeral: true, Logger: logger, Getenv: env.getenv,
		Settings: privateClusterSettings()})
	if err != nil {
		return bench.Report{}, err
	}
	defer cluster.Stop(context.WithoutCancel(ctx))
	pcfg, err := poolConfig(cluster.URL(), logger)
	if err != nil {
		return bench.Report{}, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return bench.Report{}, fmt.Errorf("bench: %w", err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool, logger); err != nil {
		return bench.Report{}, err
	}
	return bench.Run(ctx, pool, o)
}

// writeCurve writes curve.md, curve.svg and curve.json into dir.
func writeCurve(dir string, points []bench.CurvePoint) error {
	var md strings.Builder
	if err := bench.WriteCurveTable(&md, points); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(points, "", "  ")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"curve.md": []byte(md.String()), "curve.svg": []byte(bench.CurveSVG(points)), "curve.json": raw,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runBenchConversation runs the conversation recall workload ("bench
// conversation") in a throw-away private cluster, or in the empty database
// at DATABASE_URL, and prints its Markdown table (or JSON).
func runBenchConversation(ctx context.Context, env *environment, args []string) error {
	var o bench.CorpusOptions
	fs := flag.NewFlagSet("bench conversation", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: tenure bench conversation [--conversations 10] [--questions 150] [--seed 1] [--json] [--out DIR] [--corpus FILE]\n\n"+
			"Generates long multi-session chats (friends, support, coding, incident, personal) and questions about them, pushes\n"+
			"every turn as a working row, consolidates, and asks each question of Recall, of BM25 over the turns and of one\n"+
			"PostgreSQL OR statement over a table of the turns; prints recall at 5, 10 and 25 by kind of question, and latency.\n"+
			"Without DATABASE_URL it starts a throw-away private cluster; with it, the database must be empty.")
		fs.PrintDefaults()
	}
	fs.IntVar(&o.Conversations, "conversations", 10, "conversations to generate, the domains in turn")
	fs.IntVar(&o.Questions, "questions", 150, "questions per conversation (about; fewer where the facts run out)")
	fs.Int64Var(&o.Seed, "seed", 1, "random seed of the corpus")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	corpusFile := fs.String("corpus", "", "also write the generated corpus (turns, sessions, questions) as JSON to this file")
	out := fs.String("out", "", "also write the report as conversation.md and conversation.json into this folder")
	databaseURL := fs.String("database-url", envOr(env.getenv, "DATABASE_URL", ""), "PostgreSQL URL of an empty database (env DATABASE_URL); empty starts a private cluster")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if o.Conversations < 1 || o.Conversations > 100 || o.Questions < 10 || o.Seed == 0 {
		return usagef("bench conversation: use --conversations 1..100, --questions ≥ 10 and a --seed other than 0")
	}
	if *corpusFile != "" {
		raw, err := json.MarshalIndent(bench.GenerateCorpus(o), "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*corpusFile, raw, 0o644); err != nil {
			return err
		}
	}
	logger := (&baseConfig{logLevel: "warn", logFormat: "text"}).logger(env.stderr)
	url := *databaseURL
	if url == "" {
		dir, err := os.MkdirTemp("", "tenure-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		os.Chmod(dir, 0o755)
		cluster, err := pglocal.Start(ctx, pglocal.Options{DataDir: dir + "/pg", Ephemeral: true, Logger: logger, Getenv: env.getenv,
			Settings: privateClusterSettings()})
		if err != nil {
			return err
		}
		defer cluster.Stop(context.WithoutCancel(ctx))
		url = cluster.URL()
		fmt.Fprintf(env.stderr, "private cluster: PostgreSQL %s, fsync off, in %s\n", cluster.Version(), dir)
	}
	pcfg, err := poolConfig(url, logger)
	if err != nil {
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool, logger); err != nil {
		return err
	}
	start := time.Now()
	rep, err := bench.RunConversation(ctx, pool, bench.ConversationOptions{Corpus: o, Logger: logger, Progress: env.stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "bench conversation finished in %s\n", time.Since(start).Round(time.Second))
	if *out != "" {
		var md strings.Builder
		if err := bench.WriteConversationTable(&md, rep); err != nil {
			return err
		}
		raw, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		for name, data := range map[string][]byte{"conversation.md": []byte(md.String()), "conversation.json": raw} {
			if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
				return err
			}
		}
	}
	if *asJSON {
		return printJSON(env.stdout, rep)
	}
	return bench.WriteConversationTable(env.stdout, rep)
}
