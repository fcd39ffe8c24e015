package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/logdedup"
	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/server"
)

// defaultDataDir is where the private PostgreSQL cluster lives when neither
// --data-dir nor TENURE_DATA_DIR says otherwise.
const defaultDataDir = ".data/pg"

// baseConfig is the configuration every subcommand that touches the
// database shares. Flags win over environment variables, which win over
// defaults.
type baseConfig struct {
	databaseURL string
	dataDir     string
	logLevel    string
	logFormat   string
	// exclusive makes the private cluster refuse a data folder that a running
	// server already uses; the other commands attach to that server, so they
	// work while "tenure serve" runs.
	exclusive bool
	// application is the application_name of the pool's connections, which
	// pg_stat_activity shows (a restore names the servers it refuses to
	// restore under); empty means "tenure".
	application string
}

func envOr(getenv func(string) string, key, def string) string {
	if v := strings.TrimSpace(getenv(key)); v != "" {
		return v
	}
	return def
}

func (c *baseConfig) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&c.databaseURL, "database-url", envOr(getenv, "DATABASE_URL", ""),
		"PostgreSQL URL (env DATABASE_URL); when empty a private cluster is started under --data-dir")
	fs.StringVar(&c.dataDir, "data-dir", envOr(getenv, "TENURE_DATA_DIR", defaultDataDir),
		"data folder of the private PostgreSQL cluster (env TENURE_DATA_DIR)")
	fs.StringVar(&c.logLevel, "log-level", envOr(getenv, "TENURE_LOG_LEVEL", "info"),
		"log level: debug, info, warn or error (env TENURE_LOG_LEVEL)")
	fs.StringVar(&c.logFormat, "log-format", envOr(getenv, "TENURE_LOG_FORMAT", "text"),
		"log format: text or json (env TENURE_LOG_FORMAT)")
}

// validate checks the configuration before anything starts, so a mistake is
// reported at once with what is allowed.
func (c *baseConfig) validate() error {
	if _, err := parseLevel(c.logLevel); err != nil {
		return err
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return usagef("invalid log format %q: allowed values are text, json", c.logFormat)
	}
	if c.databaseURL != "" {
		if _, err := pgxpool.ParseConfig(c.databaseURL); err != nil {
			return usagef("invalid DATABASE_URL: %v (expected postgres://user:password@host:port/database)", redactURLError(err))
		}
	} else if strings.TrimSpace(c.dataDir) == "" {
		return usagef("the data folder is empty: set --data-dir or TENURE_DATA_DIR, or set DATABASE_URL")
	}
	return nil
}

// redactURLError keeps a connection-string parse error without echoing a
// password back into the logs.
func redactURLError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "cannot parse"); i >= 0 {
		return "cannot parse the URL"
	}
	return msg
}

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, usagef("invalid log level %q: allowed values are debug, info, warn, error", s)
}

// logger builds the process logger; validate has already checked the values.
// A burst of identical warnings or errors (every request during a database
// outage) is written once, then counted every 10 s (logdedup).
func (c *baseConfig) logger(w io.Writer) *slog.Logger {
	level, _ := parseLevel(c.logLevel)
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if c.logFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(logdedup.New(h, logdedup.Options{}))
}

// validateAddr checks a listen address such as 127.0.0.1:8080 or :8080.
func validateAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("invalid listen address %q: use host:port, for example 127.0.0.1:8080 or :8080", addr)
	}
	if host != "" && host != "localhost" && net.ParseIP(host) == nil {
		return usagef("invalid listen address %q: the host must be an IP address, localhost or empty", addr)
	}
	var p int
	if _, err := fmt.Sscanf(port, "%d", &p); err != nil || p < 0 || p > 65535 || fmt.Sprint(p) != port {
		return usagef("invalid listen address %q: the port must be a number from 0 to 65535", addr)
	}
	return nil
}

// parseFlags parses args into fs, turning flag errors into usage errors and
// refusing stray arguments.
func parseFlags(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return usagef("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > maxArgs {
		return usagef("%s: unexpected arguments: %s", fs.Name(), strings.Join(fs.Args()[maxArgs:], " "))
	}
	return nil
}

// llmConfig is the configuration of extraction through an OpenAI-compatible
// LLM endpoint (mode llm); without a URL only the rule-based classifier is
// offered. The key's default is never taken from the environment at flag
// registration, so that -h cannot print it.
type llmConfig struct {
	url, model, key string
	timeout         time.Duration
	getenv          func(string) string
}

// maxLLMTimeout keeps one extraction within the HTTP server's 60 s write
// timeout, so that a slow model gets a clear 502 rather than a cut answer.
const maxLLMTimeout = 55 * time.Second

func (c *llmConfig) register(fs *flag.FlagSet, getenv func(string) string) {
	c.getenv = getenv
	fs.StringVar(&c.url, "llm-url", envOr(getenv, "TENURE_LLM_URL", ""),
		"base URL of an OpenAI-compatible chat completions API for extraction mode llm, such as http://localhost:11434/v1 (env TENURE_LLM_URL)")
	fs.StringVar(&c.model, "llm-model", envOr(getenv, "TENURE_LLM_MODEL", ""),
		"model the LLM endpoint serves, required with --llm-url (env TENURE_LLM_MODEL)")
	fs.StringVar(&c.key, "llm-key", "",
		"API key sent as a bearer token to the LLM endpoint (env TENURE_LLM_KEY, preferred: a flag shows in the process list)")
	fs.DurationVar(&c.timeout, "llm-timeout", durationEnv(getenv, "TENURE_LLM_TIMEOUT", extract.DefaultTimeout),
		"how long to wait for the LLM endpoint, at most 55s (env TENURE_LLM_TIMEOUT)")
}

// validate checks the configuration and returns it for package extract.
func (c *llmConfig) validate() (extract.Config, error) {
	if c.key == "" && c.getenv != nil {
		c.key = strings.TrimSpace(c.getenv("TENURE_LLM_KEY"))
	}
	if c.timeout < time.Second || c.timeout > maxLLMTimeout {
		return extract.Config{}, usagef("invalid llm-timeout (TENURE_LLM_TIMEOUT): use a duration from 1s to %s, such as 30s", maxLLMTimeout)
	}
	cfg := extract.Config{URL: strings.TrimSpace(c.url), Model: strings.TrimSpace(c.model), Key: c.key, Timeout: c.timeout}
	if err := cfg.Validate(); err != nil {
		return extract.Config{}, usagef("%v (flags --llm-url, --llm-model, --llm-key; env TENURE_LLM_URL, TENURE_LLM_MODEL, TENURE_LLM_KEY)", err)
	}
	return cfg, nil
}

// httpConfig is how serve meets the network: the reverse proxies in front of
// it, the address people open, and where /metrics is offered. The metrics
// token's default is never taken from the environment at flag registration,
// so that -h cannot print it.
type httpConfig struct {
	trustedProxies string
	publicURL      string
	metricsAddr    string
	metricsToken   string
	requestTimeout time.Duration
	getenv         func(string) string
	// The rate limits of /api and /mcp and the allowed web origins, as
	// given; validate fills limits, cors and mcp from them.
	rate, anonRate          float64
	burst, anonBurst        int
	corsOrigins, mcpOrigins string
	limits                  server.Limits
	cors, mcp               []string
}

// maxRequestTimeout keeps a request's 503 within the HTTP server's 60 s
// write timeout, as maxLLMTimeout does for extraction.
const maxRequestTimeout = 55 * time.Second

// minMetricsToken is the shortest metrics token accepted.
const minMetricsToken = 16

func (c *httpConfig) register(fs *flag.FlagSet, getenv func(string) string) {
	c.getenv = getenv
	fs.StringVar(&c.trustedProxies, "trusted-proxies", envOr(getenv, "TENURE_TRUSTED_PROXIES", ""),
		"comma-separated networks (CIDR, or single IP addresses) of the reverse proxies whose X-Forwarded-For is believed (env TENURE_TRUSTED_PROXIES); empty believes none")
	fs.StringVar(&c.publicURL, "public-url", envOr(getenv, "TENURE_PUBLIC_URL", ""),
		"address people open the console at, such as https://tenure.example.com; when https, cookies are Secure (env TENURE_PUBLIC_URL)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", envOr(getenv, "TENURE_METRICS_ADDR", ""),
		"serve /metrics on this separate address only, such as 127.0.0.1:9090 (env TENURE_METRICS_ADDR)")
	fs.DurationVar(&c.requestTimeout, "request-timeout", durationEnv(getenv, "TENURE_REQUEST_TIMEOUT", server.DefaultRequestTimeout),
		"how long a request (console, API, MCP call) may wait for the database before it is answered 503, from 1s to 55s (env TENURE_REQUEST_TIMEOUT)")
	fs.StringVar(&c.metricsToken, "metrics-token", "",
		"bearer token /metrics requires; without --metrics-addr it serves /metrics on the main address (env TENURE_METRICS_TOKEN, preferred: a flag shows in the process list)")
	def := server.DefaultLimits
	fs.Float64Var(&c.rate, "rate-limit", floatEnv(getenv, "TENURE_RATE_LIMIT", def.Token.PerSecond),
		"requests a second each API token may send to /api and /mcp, on average, per process; 0 turns the limit off (env TENURE_RATE_LIMIT)")
	fs.IntVar(&c.burst, "rate-burst", intEnv(getenv, "TENURE_RATE_BURST", def.Token.Burst),
		"requests an API token may send at once (env TENURE_RATE_BURST)")
	fs.Float64Var(&c.anonRate, "rate-limit-anon", floatEnv(getenv, "TENURE_RATE_LIMIT_ANON", def.Address.PerSecond),
		"requests a second to /api and /mcp without a valid API token (none, or a bad one) per client address, per process; 0 turns the limit off (env TENURE_RATE_LIMIT_ANON)")
	fs.IntVar(&c.anonBurst, "rate-burst-anon", intEnv(getenv, "TENURE_RATE_BURST_ANON", def.Address.Burst),
		"requests without a valid API token a client address may send at once (env TENURE_RATE_BURST_ANON)")
	fs.StringVar(&c.corsOrigins, "cors-origins", envOr(getenv, "TENURE_CORS_ORIGINS", ""),
		"comma-separated web origins whose pages may call the API, such as https://app.example.com, or * for any (env TENURE_CORS_ORIGINS); empty sends no CORS headers")
	fs.StringVar(&c.mcpOrigins, "mcp-origins", envOr(getenv, "TENURE_MCP_ORIGINS", ""),
		"comma-separated web origins /mcp accepts requests from; requests without an Origin header are always accepted, others refused 403 (env TENURE_MCP_ORIGINS)")
}

// floatEnv is the number in the environment variable key, or def when it
// is unset; an unparsable value becomes -1 so that validate names it.
func floatEnv(getenv func(string) string, key string, def float64) float64 {
	if v := strings.TrimSpace(getenv(key)); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return -1
		}
		return f
	}
	return def
}

// intEnv is floatEnv for whole numbers.
func intEnv(getenv func(string) string, key string, def int) int {
	if v := strings.TrimSpace(getenv(key)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return -1
		}
		return n
	}
	return def
}

// maxRate bounds a rate limit and its burst.
const maxRate = 1_000_000

// validateLimits checks the rate limits and the web origins and keeps them
// for the server.
func (c *httpConfig) validateLimits() error {
	for _, r := range []struct {
		rate        float64
		burst       int
		name, env   string
		bname, benv string
	}{
		{c.rate, c.burst, "rate-limit", "TENURE_RATE_LIMIT", "rate-burst", "TENURE_RATE_BURST"},
		{c.anonRate, c.anonBurst, "rate-limit-anon", "TENURE_RATE_LIMIT_ANON", "rate-burst-anon", "TENURE_RATE_BURST_ANON"},
	} {
		if math.IsNaN(r.rate) || r.rate < 0 || r.rate > maxRate {
			return usagef("invalid %s (%s): use requests a second from 0 (no limit) to %d, such as 5 or 0.5", r.name, r.env, maxRate)
		}
		if r.rate > 0 && (r.burst < 1 || r.burst > maxRate) {
			return usagef("invalid %s (%s): use a whole number of requests from 1 to %d, such as 20", r.bname, r.benv, maxRate)
		}
	}
	c.limits = server.Limits{Token: server.Rate{PerSecond: c.rate, Burst: c.burst},
		Address: server.Rate{PerSecond: c.anonRate, Burst: c.anonBurst}}
	var err error
	if c.cors, err = parseOrigins(c.corsOrigins, true); err != nil {
		return usagef("invalid cors-origins (TENURE_CORS_ORIGINS): %v, or * for any", err)
	}
	if c.mcp, err = parseOrigins(c.mcpOrigins, false); err != nil {
		return usagef("invalid mcp-origins (TENURE_MCP_ORIGINS): %v", err)
	}
	return nil
}

// parseOrigins reads a comma-separated list of web origins and, when anyOK,
// "*".
func parseOrigins(s string, anyOK bool) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if part == "*" && anyOK {
			out = append(out, part)
			continue
		}
		o, err := server.NormalizeOrigin(part)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// validate checks the settings against the main listen address and returns
// the trusted proxies' networks.
func (c *httpConfig) validate(addr string) ([]*net.IPNet, error) {
	if c.metricsToken == "" && c.getenv != nil {
		c.metricsToken = strings.TrimSpace(c.getenv("TENURE_METRICS_TOKEN"))
	}
	proxies, err := parseTrustedProxies(c.trustedProxies)
	if err != nil {
		return nil, err
	}
	if err := c.validateLimits(); err != nil {
		return nil, err
	}
	if c.requestTimeout < time.Second || c.requestTimeout > maxRequestTimeout {
		return nil, usagef("invalid request-timeout (TENURE_REQUEST_TIMEOUT): use a duration from 1s to %s, such as 30s", maxRequestTimeout)
	}
	if c.publicURL != "" {
		u, err := url.Parse(c.publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return nil, usagef("invalid public-url (TENURE_PUBLIC_URL) %q: use the absolute http or https address people open, such as https://tenure.example.com", c.publicURL)
		}
	}
	if c.metricsAddr != "" {
		if err := validateAddr(c.metricsAddr); err != nil {
			return nil, usagef("invalid metrics-addr (TENURE_METRICS_ADDR): %v", err)
		}
		if _, port, _ := net.SplitHostPort(c.metricsAddr); c.metricsAddr == addr && port != "0" {
			return nil, usagef("invalid metrics-addr (TENURE_METRICS_ADDR) %q: it must differ from --addr, which serves the console", c.metricsAddr)
		}
	}
	if c.metricsToken != "" && (len(c.metricsToken) < minMetricsToken || strings.ContainsAny(c.metricsToken, " \t\r\n")) {
		return nil, usagef("invalid metrics-token (TENURE_METRICS_TOKEN): use at least %d characters and no spaces (it is %d characters long)",
			minMetricsToken, len(c.metricsToken))
	}
	return proxies, nil
}

// parseTrustedProxies reads a comma-separated list of networks (CIDR) and
// single IP addresses.
func parseTrustedProxies(s string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			_, n, err := net.ParseCIDR(part)
			if err != nil {
				return nil, usagef("invalid trusted-proxies (TENURE_TRUSTED_PROXIES): %q is not a network: use CIDR such as 10.0.0.0/8 or fd00::/8, or an IP address", part)
			}
			out = append(out, n)
			continue
		}
		ip := net.ParseIP(part)
		if ip == nil {
			return nil, usagef("invalid trusted-proxies (TENURE_TRUSTED_PROXIES): %q is not an IP address: use CIDR such as 10.0.0.0/8 or fd00::/8, or an IP address", part)
		}
		bits := 128
		if ip4 := ip.To4(); ip4 != nil {
			ip, bits = ip4, 32
		}
		out = append(out, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
	}
	return out, nil
}

// readConfig is where serve sends the reads of recall, the brief and the
// lists: hot standbys of the database, given by URL or, on the private
// cluster, one started beside it (--standby).
type readConfig struct {
	urls    urlList
	maxLag  time.Duration
	standby bool
}

// Bounds of --read-max-lag: at least twice the router's check interval.
const (
	minReadMaxLag = 2 * replica.DefaultInterval
	maxReadMaxLag = time.Hour
)

func (c *readConfig) register(fs *flag.FlagSet, getenv func(string) string) {
	c.urls = urlList{values: splitList(getenv("TENURE_READ_DATABASE_URLS"))}
	fs.Var(&c.urls, "read-database-url",
		"PostgreSQL `URL` of a hot standby of the database to send reads to (recall, the brief, the lists); repeat it for several "+
			"(env TENURE_READ_DATABASE_URLS, comma-separated)")
	fs.DurationVar(&c.maxLag, "read-max-lag", durationEnv(getenv, "TENURE_READ_MAX_LAG", replica.DefaultMaxLag),
		"a standby further behind the primary than this gets no reads until it catches up, from 1s to 1h (env TENURE_READ_MAX_LAG)")
	fs.BoolVar(&c.standby, "standby", envOr(getenv, "TENURE_STANDBY", "") == "1",
		"with the private cluster, start a hot standby of it in a folder beside the data folder and send reads to it (env TENURE_STANDBY=1)")
}

// validate checks the read URLs and the lag limit against the database's
// configuration.
func (c *readConfig) validate(base *baseConfig) error {
	if c.maxLag < minReadMaxLag || c.maxLag > maxReadMaxLag {
		return usagef("invalid read-max-lag (TENURE_READ_MAX_LAG): use a duration from %s to %s, such as 5s", minReadMaxLag, maxReadMaxLag)
	}
	for i, u := range c.urls.values {
		if _, err := pgxpool.ParseConfig(u); err != nil {
			return usagef("invalid read-database-url #%d (TENURE_READ_DATABASE_URLS): %v (expected postgres://user:password@host:port/database of a hot standby)",
				i+1, redactURLError(err))
		}
		if base.databaseURL != "" && u == base.databaseURL {
			return usagef("invalid read-database-url #%d (TENURE_READ_DATABASE_URLS): it is DATABASE_URL itself; give the URLs of hot standbys of that database", i+1)
		}
	}
	if c.standby && base.databaseURL != "" {
		return usagef("--standby (TENURE_STANDBY) starts a standby of the private cluster, and DATABASE_URL is set: " +
			"start standbys of that PostgreSQL with its own tools and give their URLs with --read-database-url")
	}
	return nil
}

// urlList is a repeatable flag. Its first use replaces the values taken
// from the environment.
type urlList struct {
	values []string
	set    bool
}

func (l *urlList) String() string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf("%d URLs", len(l.values))
}

func (l *urlList) Set(v string) error {
	if !l.set {
		l.values, l.set = nil, true
	}
	if v = strings.TrimSpace(v); v == "" {
		return fmt.Errorf("empty URL")
	}
	l.values = append(l.values, v)
	return nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
