package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/pglocal"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// lockedBuffer is a bytes.Buffer safe for the server goroutine and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func envFrom(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func runCmd(t *testing.T, env map[string]string, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, envFrom(env), strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no command", nil, nil, "no command given"},
		{"unknown command", nil, []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"bad log level", nil, []string{"serve", "--log-level", "loud"}, "allowed values are debug, info, warn, error"},
		{"bad log level env", map[string]string{"TENURE_LOG_LEVEL": "verbose"}, []string{"serve"}, `invalid log level "verbose"`},
		{"bad log format", nil, []string{"serve", "--log-format", "xml"}, "allowed values are text, json"},
		{"bad addr", nil, []string{"serve", "--addr", "localhost"}, "use host:port"},
		{"bad addr env", map[string]string{"TENURE_ADDR": "127.0.0.1:99999"}, []string{"serve"}, "port must be a number from 0 to 65535"},
		{"bad host", nil, []string{"serve", "--addr", "example.com:80"}, "host must be an IP address"},
		{"bad database url", map[string]string{"DATABASE_URL": "postgres://x:y@host:notaport/db"}, []string{"serve"}, "invalid DATABASE_URL"},
		{"empty data dir", nil, []string{"serve", "--data-dir", " "}, "data folder is empty"},
		{"unknown flag", nil, []string{"serve", "--colour"}, "flag provided but not defined"},
		{"stray argument", nil, []string{"serve", "now"}, "unexpected arguments: now"},
		{"bad migrate action", nil, []string{"migrate", "sideways"}, "allowed actions are up, status, down, down-to"},
		{"bad down-to", nil, []string{"migrate", "down-to", "x"}, `invalid version "x"`},
		{"user without password-stdin", nil, []string{"user", "create", "--email", "a@b.c"}, "--password-stdin"},
		{"bad job interval", nil, []string{"serve", "--decay-every", "10ms"}, "at least 1s"},
		{"bad job interval env", map[string]string{"TENURE_CONSOLIDATE_EVERY": "often"}, []string{"serve"}, "invalid consolidate-every"},
		{"no consolidation workers", nil, []string{"serve", "--consolidate-workers", "0"}, "invalid consolidate-workers (TENURE_CONSOLIDATE_WORKERS): use a whole number from 1 to 16"},
		{"too many consolidation workers", nil, []string{"consolidate", "--consolidate-workers", "17"}, "from 1 to 16"},
		{"bad consolidation workers env", map[string]string{"TENURE_CONSOLIDATE_WORKERS": "many"}, []string{"consolidate"}, "invalid consolidate-workers"},
		{"user bad role", nil, []string{"user", "create", "--email", "a@b.c", "--role", "god", "--password-stdin"}, "allowed values are viewer, reviewer, admin"},
		{"bad trusted proxy", nil, []string{"serve", "--trusted-proxies", "10.0.0.0/8, proxy.local"}, `invalid trusted-proxies (TENURE_TRUSTED_PROXIES): "proxy.local" is not an IP address`},
		{"bad trusted proxy env", map[string]string{"TENURE_TRUSTED_PROXIES": "10.0.0.0/33"}, []string{"serve"}, `"10.0.0.0/33" is not a network`},
		{"bad public url", nil, []string{"serve", "--public-url", "tenure.example.com"}, "invalid public-url (TENURE_PUBLIC_URL)"},
		{"bad public url env", map[string]string{"TENURE_PUBLIC_URL": "ftp://tenure.example.com"}, []string{"serve"}, "use the absolute http or https address"},
		{"bad metrics addr", nil, []string{"serve", "--metrics-addr", "9090"}, "invalid metrics-addr (TENURE_METRICS_ADDR)"},
		{"metrics addr is the main one", map[string]string{"TENURE_METRICS_ADDR": "127.0.0.1:8080"}, []string{"serve"}, "it must differ from --addr"},
		{"short metrics token", map[string]string{"TENURE_METRICS_TOKEN": "secret"}, []string{"serve"}, "invalid metrics-token (TENURE_METRICS_TOKEN): use at least 16 characters"},
		{"metrics token flag with a space", nil, []string{"serve", "--metrics-token", "a long token with spaces"}, "no spaces"},
		{"request timeout too short", nil, []string{"serve", "--request-timeout", "100ms"}, "invalid request-timeout (TENURE_REQUEST_TIMEOUT): use a duration from 1s to 55s"},
		{"request timeout too long", nil, []string{"serve", "--request-timeout", "2m"}, "from 1s to 55s"},
		{"request timeout env", map[string]string{"TENURE_REQUEST_TIMEOUT": "soon"}, []string{"serve"}, "invalid request-timeout (TENURE_REQUEST_TIMEOUT)"},
		{"request timeout zero", map[string]string{"TENURE_REQUEST_TIMEOUT": "0s"}, []string{"serve"}, "invalid request-timeout"},
		{"negative rate limit", nil, []string{"serve", "--rate-limit", "-1"}, "invalid rate-limit (TENURE_RATE_LIMIT): use requests a second from 0 (no limit)"},
		{"rate limit not a number", nil, []string{"serve", "--rate-limit", "NaN"}, "invalid rate-limit (TENURE_RATE_LIMIT)"},
		{"anon rate limit env", map[string]string{"TENURE_RATE_LIMIT_ANON": "fast"}, []string{"serve"}, "invalid rate-limit-anon (TENURE_RATE_LIMIT_ANON)"},
		{"zero burst", nil, []string{"serve", "--rate-burst", "0"}, "invalid rate-burst (TENURE_RATE_BURST): use a whole number of requests from 1"},
		{"anon burst env", map[string]string{"TENURE_RATE_BURST_ANON": "lots"}, []string{"serve"}, "invalid rate-burst-anon (TENURE_RATE_BURST_ANON)"},
		{"cors origin with a path", nil, []string{"serve", "--cors-origins", "https://app.example.com, https://app.example.com/ui"}, `invalid cors-origins (TENURE_CORS_ORIGINS): "https://app.example.com/ui" is not a web origin`},
		{"any mcp origin", map[string]string{"TENURE_MCP_ORIGINS": "*"}, []string{"serve"}, `invalid mcp-origins (TENURE_MCP_ORIGINS): "*" is not a web origin`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, tt.env, "", tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) error = %v, want it to contain %q", tt.args, err, tt.want)
			}
			if code := exitCode(err); code != 2 {
				t.Errorf("exitCode(%v) = %d, want 2", err, code)
			}
		})
	}
}

// TestUsageErrorsNameWhatIsAllowed covers the usage errors checked before
// any database is opened that TestConfigErrors does not: each names what is
// allowed, with exit status 2.
func TestUsageErrorsNameWhatIsAllowed(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"user bad email", "", []string{"user", "create", "--email", "nobody", "--password-stdin"}, "must be an email address"},
		{"user without password", "", []string{"user", "create", "--email", "a@b.c", "--password-stdin"}, "no password on standard input"},
		{"user short password", "short\n", []string{"user", "create", "--email", "a@b.c", "--password-stdin"},
			"the password is 5 characters long: use at least 12 characters"},
		{"token name too long", "", []string{"token", "create", "--scope", "acme", "--name", strings.Repeat("n", 101)},
			"--name is 101 characters long: at most 100 are allowed"},
		{"migrate down-to without version", "", []string{"migrate", "down-to"}, "migrate down-to needs a VERSION"},
		{"migrate up with an argument", "", []string{"migrate", "up", "3"}, "migrate up takes no argument"},
		{"bench due over half", "", []string{"bench", "--facts", "100", "--due", "51"}, "--due ≤ half the facts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, nil, tt.stdin, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) error = %v, want it to contain %q", tt.args, err, tt.want)
			}
			if code := exitCode(err); code != 2 {
				t.Errorf("exitCode(%v) = %d, want 2", err, code)
			}
		})
	}
}

func TestMigrateCommand(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewEmptyURL(t)}
	out, _, err := runCmd(t, env, "", "migrate", "status")
	if err != nil || !strings.Contains(out, "pending") {
		t.Fatalf("migrate status on an empty database = %q, %v; want pending migrations", out, err)
	}
	out, stderr, err := runCmd(t, env, "", "migrate")
	if err != nil || !strings.Contains(out, "00001_memory.sql") {
		t.Fatalf("migrate = %q, %v; want the applied files listed", out, err)
	}
	// Off a terminal, progress comes as JSON lines, one per migration.
	for _, want := range []string{`{"progress":"migrate","phase":"1/`, ` 00001_memory.sql","done":0,`, `"unit":"migrations"`, `"final":true`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("migrate progress lacks %s:\n%s", want, stderr)
		}
	}
	// One final line, last, with every migration done.
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var final struct {
		Done, Total int
		Final       bool
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &final); err != nil || !final.Final || final.Done != final.Total || final.Total == 0 {
		t.Errorf("migrate's last progress line = %s (%v), want the final one with done = total", lines[len(lines)-1], err)
	}
	if n := strings.Count(stderr, `"final":true`); n != 1 {
		t.Errorf("migrate wrote %d final progress lines, want 1:\n%s", n, stderr)
	}
	out, _, err = runCmd(t, env, "", "migrate", "up")
	if err != nil || !strings.Contains(out, "no pending migrations") {
		t.Errorf("second migrate up = %q, %v; want nothing pending", out, err)
	}
	out, _, err = runCmd(t, env, "", "migrate", "status")
	if err != nil || !everyMigrationApplied(out) {
		t.Errorf("migrate status after up = %q, %v; want every migration applied", out, err)
	}
	out, _, err = runCmd(t, env, "", "migrate", "down")
	if err != nil || !strings.Contains(out, "down") {
		t.Errorf("migrate down = %q, %v", out, err)
	}
	out, _, err = runCmd(t, env, "", "migrate", "down-to", "0")
	if err != nil {
		t.Errorf("migrate down-to 0 = %q, %v", out, err)
	}
	out, _, _ = runCmd(t, env, "", "migrate", "status")
	if strings.Contains(out, "applied") {
		t.Errorf("migrate status after down-to 0 = %q, want nothing applied", out)
	}
}

func TestUserCreate(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t)}
	out, _, err := runCmd(t, env, "a long enough secret\n", "user", "create", "--email", "rev@example.com", "--role", "reviewer", "--password-stdin")
	if err != nil || !strings.Contains(out, "created reviewer user rev@example.com") {
		t.Fatalf("user create = %q, %v", out, err)
	}
	_, _, err = runCmd(t, env, "a long enough secret\n", "user", "create", "--email", "REV@example.com", "--password-stdin")
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("duplicate user create error = %v, want 'already exists'", err)
	}
	_, _, err = runCmd(t, env, "short\n", "user", "create", "--email", "x@example.com", "--password-stdin")
	if err == nil || !strings.Contains(err.Error(), "at least 12 characters") {
		t.Errorf("short password error = %v, want the minimum length named", err)
	}
	pool := pgtest.Connect(t, env["DATABASE_URL"])
	var audits int
	pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE action = 'user.create'`).Scan(&audits)
	if audits != 1 {
		t.Errorf("%d user.create audit rows, want 1", audits)
	}
}

var servingLine = regexp.MustCompile(`serving at (http://[0-9.:]+)`)

// startServe runs "tenure serve" with args until the returned stop is called,
// and returns the address it printed.
func startServe(t *testing.T, env map[string]string, args ...string) (url string, stdout *lockedBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout = &lockedBuffer{}
	stderr := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), envFrom(env), strings.NewReader(""), stdout, stderr)
	}()
	deadline := time.After(60 * time.Second)
	for {
		if m := servingLine.FindStringSubmatch(stdout.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve exited early: %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
		case <-deadline:
			cancel()
			t.Fatalf("serve printed no address within 60 s\nstdout: %s\nstderr: %s", stdout, stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	var once sync.Once
	var stopErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("serve did not stop within 60 s of its context ending")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { stop() })
	return url, stdout, stop
}

var (
	demoLogin = regexp.MustCompile(`Demo login: (\S+)\s+password: (\S+)`)
	csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)
)

// signIn signs in to the server at base with the demo login printed in out,
// and returns a client that keeps the session.
func signIn(t *testing.T, base, out string) *http.Client {
	t.Helper()
	m := demoLogin.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no demo login printed in %q", out)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token := csrfInput.FindStringSubmatch(string(page))
	if token == nil {
		t.Fatal("the sign-in page has no CSRF field")
	}
	resp, err = c.PostForm(base+"/login", url.Values{"email": {m[1]}, "password": {m[2]}, "_csrf": {token[1]}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "signed-in-as") {
		t.Fatalf("sign in with the printed demo login failed: %d", resp.StatusCode)
	}
	return c
}

func getWith(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeWithDatabaseURL(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewEmptyURL(t)}
	url, out, stop := startServe(t, env, "--demo")
	if !strings.Contains(out.String(), "Demo login: admin@tenure.local") {
		t.Errorf("serve --demo printed no login: %s", out)
	}
	if code, body := getBody(t, url+"/readyz"); code != 200 {
		t.Errorf("GET /readyz = %d %s", code, body)
	}
	signedIn := signIn(t, url, out.String())
	code, body := getWith(t, signedIn, url+"/facts")
	if code != 200 || !strings.Contains(body, `data-testid="fact-row"`) {
		t.Errorf("GET /facts = %d, want demo facts listed", code)
	}
	// The first start has a history: a first consolidation run and its refusals.
	if !strings.Contains(out.String(), "First consolidation run:") {
		t.Errorf("serve --demo printed no first run: %s", out)
	}
	if code, body := getWith(t, signedIn, url+"/consolidation/rejections"); code != 200 || !strings.Contains(body, `data-testid="rejection-row"`) {
		t.Errorf("GET /consolidation/rejections = %d, want the first run's refusals listed", code)
	}
	// Neither --metrics-addr nor --metrics-token: no /metrics anywhere.
	if code, body := getBody(t, url+"/metrics"); code != http.StatusNotFound || strings.Contains(body, "go_goroutines") {
		t.Errorf("GET /metrics = %d, want 404 when no metrics address or token is set", code)
	}
	if err := stop(); err != nil {
		t.Errorf("serve returned %v after its context ended, want nil", err)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

// TestServeOnPrivateCluster is the default run: no DATABASE_URL, so serve
// starts its own PostgreSQL under the data folder, loads the demo, and stops
// the cluster on shutdown; a second run reuses the folder and its data.
func TestServeOnPrivateCluster(t *testing.T) {
	dir, err := os.MkdirTemp("", "tenure-serve-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TENURE_DATA_DIR": filepath.Join(dir, "pg")}

	url, out, stop := startServe(t, env, "--demo")
	if !strings.Contains(out.String(), "Demo login:") {
		t.Errorf("first run printed no demo login: %s", out)
	}
	firstOut := out.String()
	code, body := getWith(t, signIn(t, url, firstOut), url+"/facts?durability=permanent")
	if code != 200 || !strings.Contains(body, `data-testid="fact-row"`) {
		t.Fatalf("GET /facts = %d, want demo facts", code)
	}
	// Other commands work while serve runs: they attach to its PostgreSQL.
	tokenOut, _, err := runCmd(t, env, "", "token", "create", "--scope", "acme-support", "--name", "while-serving")
	if err != nil || !strings.Contains(tokenOut, "tnr_") {
		t.Errorf("token create while serve runs = %q, %v", tokenOut, err)
	}
	// The private cluster's buffer cache is sized to the machine.
	attached, err := pglocal.Start(context.Background(), pglocal.Options{DataDir: filepath.Join(dir, "pg"), Attach: true})
	if err != nil {
		t.Fatal(err)
	}
	apool := pgtest.Connect(t, attached.URL())
	var sized bool
	var source string
	if err := apool.QueryRow(context.Background(), `SELECT pg_size_bytes(current_setting('shared_buffers')) = pg_size_bytes($1),
			(SELECT source FROM pg_settings WHERE name = 'shared_buffers')`,
		pglocal.SharedBuffers()).Scan(&sized, &source); err != nil || !sized || source != "command line" {
		t.Errorf("private cluster shared_buffers is not %s set at start (source %q, err %v)", pglocal.SharedBuffers(), source, err)
	}
	apool.Close()
	// A second serve on the same folder is refused: one server owns it.
	if _, _, err := runCmd(t, env, "", "serve", "--addr", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second serve on the same data folder = %v, want it refused as in use", err)
	}
	if code, _ := getBody(t, url+"/readyz"); code != 200 {
		t.Errorf("after the other commands, GET /readyz = %d: they must not stop the server's PostgreSQL", code)
	}
	if err := stop(); err != nil {
		t.Fatalf("first run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pg", "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid still present after shutdown (err %v): the cluster did not stop", err)
	}

	url, out, stop = startServe(t, env, "--demo")
	if !strings.Contains(out.String(), "Demo data not loaded: the database already holds data") {
		t.Errorf("second run: %s; want the demo skipped", out)
	}
	// The first run's login still works: the data folder kept the account.
	if code, body := getWith(t, signIn(t, url, firstOut), url+"/facts"); code != 200 || !strings.Contains(body, `data-testid="fact-row"`) {
		t.Errorf("second run GET /facts = %d, want the first run's facts", code)
	}
	if err := stop(); err != nil {
		t.Errorf("second run: %v", err)
	}
}

func TestServeRefusesTakenPort(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t)}
	url, _, _ := startServe(t, env)
	addr := strings.TrimPrefix(url, "http://")
	_, _, err := runCmd(t, env, "", "serve", "--addr", addr)
	if err == nil || !strings.Contains(err.Error(), "listen on "+addr) {
		t.Errorf("serve on a taken port: %v, want a listen error naming the address", err)
	}
}

func TestVersionAndHelp(t *testing.T) {
	out, _, err := runCmd(t, nil, "", "version")
	if err != nil || !strings.HasPrefix(out, "tenure ") {
		t.Errorf("version = %q, %v", out, err)
	}
	out, _, err = runCmd(t, nil, "", "help")
	sc := bufio.NewScanner(strings.NewReader(out))
	var commands int
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "  ") {
			commands++
		}
	}
	if err != nil || commands < 4 {
		t.Errorf("help = %q, %v; want every command listed", out, err)
	}
}

func TestConsolidateAndDecayCommands(t *testing.T) {
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	pool := pgtest.Connect(t, url)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO memory_nodes (scope, content, properties) VALUES
		('ops', 'Deploy 4812 completed; error rate unchanged.', '{}'),
		('ops', 'Deploy 4812 is rolling out, 40% of pods updated.', '{"durability": "expired"}')`); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, env, "", "consolidate")
	if err != nil {
		t.Fatalf("consolidate: %v", err)
	}
	// Off a terminal, progress comes as JSON lines on standard error.
	if !strings.Contains(stderr, `{"progress":"consolidate","phase":"promote"`) ||
		!strings.Contains(stderr, `"total":2`) || !strings.Contains(stderr, `"final":true`) {
		t.Errorf("consolidate progress on stderr = %q, want JSON lines for the promote phase of 2 pending rows", stderr)
	}
	for _, want := range []string{"succeeded", "phase 10 promote", "promoted 1", "expired_rejected 1", "pruned_expired 1", "refusals: transient 0, expired 1, decision_locked 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("consolidate output lacks %q:\n%s", want, out)
		}
	}
	// The run says how many workers it may promote on: two by default, or
	// what the flag or the environment asks.
	if !strings.Contains(stderr, "consolidation.start") || !strings.Contains(stderr, "workers=2") {
		t.Errorf("consolidate log = %q, want the start line with workers=2", stderr)
	}
	if _, stderr, err = runCmd(t, env, "", "consolidate", "--consolidate-workers", "3"); err != nil || !strings.Contains(stderr, "workers=3") {
		t.Errorf("consolidate --consolidate-workers 3: %v, log %q; want workers=3", err, stderr)
	}
	workersEnv := map[string]string{"DATABASE_URL": url, "TENURE_CONSOLIDATE_WORKERS": "1"}
	if _, stderr, err = runCmd(t, workersEnv, "", "consolidate"); err != nil || !strings.Contains(stderr, "workers=1") {
		t.Errorf("consolidate with TENURE_CONSOLIDATE_WORKERS=1: %v, log %q; want workers=1", err, stderr)
	}
	out, _, err = runCmd(t, env, "", "consolidate", "--json")
	if err != nil {
		t.Fatalf("consolidate --json: %v", err)
	}
	var run struct {
		ID     int64                     `json:"id"`
		Status string                    `json:"status"`
		Report map[string]map[string]int `json:"report"`
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil || run.Status != "succeeded" || run.ID == 0 {
		t.Errorf("consolidate --json = %q (%v), want a succeeded run as JSON", out, err)
	}

	if _, err := pool.Exec(ctx, `UPDATE entity_facts SET confirmed_at = now() - interval '10 years'`); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, env, "", "decay", "--json")
	var rep struct{ Archived int }
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || rep.Archived != 1 {
		t.Errorf("decay --json = %q, %v; want one archived fact", out, err)
	}
	out, _, err = runCmd(t, env, "", "decay")
	if err != nil || !strings.Contains(out, "archived 0 facts") {
		t.Errorf("second decay = %q, %v", out, err)
	}
}

// TestServeRunsScheduledJobs: serve consolidates on its schedule, so a pushed
// durable row becomes a fact without anyone asking.
func TestServeRunsScheduledJobs(t *testing.T) {
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	startServe(t, env, "--consolidate-every", "1s")
	pool := pgtest.Connect(t, url)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO memory_nodes (scope, content) VALUES ('ops', 'The search cluster runs 6 data nodes.')`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var facts int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM entity_facts WHERE source = 'consolidation'`).Scan(&facts); err != nil {
			t.Fatal(err)
		}
		if facts == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no scheduled consolidation promoted the row within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	var trigger string
	pool.QueryRow(ctx, `SELECT trigger FROM consolidation_runs ORDER BY id LIMIT 1`).Scan(&trigger)
	if trigger != "schedule" {
		t.Errorf("run trigger = %q, want schedule", trigger)
	}
}

// TestPoolPlansEachExecution: the pool sends statements unnamed, so each
// execution is planned for its parameters and no generic plan is ever
// reused for the optional-filter queries; the server's own plan cache
// setting is left alone for triggers and foreign-key checks.
func TestPoolPlansEachExecution(t *testing.T) {
	pool := processPool(t, nil)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for i := 0; i < 10; i++ {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relpages >= $1`, i).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	var named int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements`).Scan(&named); err != nil {
		t.Fatal(err)
	}
	if named != 0 {
		t.Errorf("%d named prepared statements on the connection after ten executions, want 0 (each execution planned anew)", named)
	}
	var mode string
	if err := conn.QueryRow(ctx, `SHOW plan_cache_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "auto" {
		t.Errorf("plan_cache_mode = %s, want auto: forcing custom plans re-plans every trigger call", mode)
	}
	var workers string
	if err := conn.QueryRow(ctx, `SHOW max_parallel_workers_per_gather`).Scan(&workers); err != nil {
		t.Fatal(err)
	}
	if workers != "0" {
		t.Errorf("max_parallel_workers_per_gather = %s, want 0", workers)
	}
}

// everyMigrationApplied reports whether migrate status lists migrations
// and every one of them in the state applied (a file's name may hold the
// word pending).
func everyMigrationApplied(status string) bool {
	lines := strings.Split(strings.TrimSpace(status), "\n")
	if len(lines) < 2 {
		return false
	}
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) < 2 || f[1] != "applied" {
			return false
		}
	}
	return true
}
