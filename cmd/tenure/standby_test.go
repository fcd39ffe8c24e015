package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/pglocal"
)

// TestServeReadConfigErrors: the settings of reads on standbys are checked
// before anything starts, each error naming the flag, its variable and
// what is allowed, with exit status 2.
func TestServeReadConfigErrors(t *testing.T) {
	db := "postgres://tenure:secret@127.0.0.1:5432/tenure"
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"bad read url", nil, []string{"serve", "--read-database-url", "postgres://x:y@host:notaport/db"},
			"invalid read-database-url #1 (TENURE_READ_DATABASE_URLS): cannot parse the URL"},
		{"second bad read url env", map[string]string{"TENURE_READ_DATABASE_URLS": "postgres://a@h1/db, postgres://x:y@host:notaport/db"},
			[]string{"serve"}, "invalid read-database-url #2 (TENURE_READ_DATABASE_URLS)"},
		{"read url is the database", map[string]string{"DATABASE_URL": db}, []string{"serve", "--read-database-url", db},
			"it is DATABASE_URL itself"},
		{"empty read url", nil, []string{"serve", "--read-database-url", " "}, "empty URL"},
		{"max lag too short", nil, []string{"serve", "--read-max-lag", "100ms"},
			"invalid read-max-lag (TENURE_READ_MAX_LAG): use a duration from 1s to 1h0m0s"},
		{"max lag env", map[string]string{"TENURE_READ_MAX_LAG": "soon"}, []string{"serve"}, "invalid read-max-lag"},
		{"standby with a database url", map[string]string{"DATABASE_URL": db}, []string{"serve", "--standby"},
			"--standby (TENURE_STANDBY) starts a standby of the private cluster, and DATABASE_URL is set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, tt.env, "", tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) error = %v, want it to contain %q", tt.args, err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows a password: %v", err)
			}
			if code := exitCode(err); code != 2 {
				t.Errorf("exitCode(%v) = %d, want 2", err, code)
			}
		})
	}
	// The flag replaces the variable's list rather than adding to it.
	var c readConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.register(fs, envFrom(map[string]string{"TENURE_READ_DATABASE_URLS": "postgres://a@h1/db,, postgres://b@h2/db"}))
	if got := c.urls.values; len(got) != 2 || got[1] != "postgres://b@h2/db" {
		t.Errorf("urls from the environment = %q, want the two of the list", got)
	}
	if err := fs.Parse([]string{"--read-database-url", "postgres://c@h3/db", "--read-database-url", "postgres://d@h4/db"}); err != nil {
		t.Fatal(err)
	}
	if got := c.urls.values; len(got) != 2 || got[0] != "postgres://c@h3/db" || got[1] != "postgres://d@h4/db" {
		t.Errorf("urls with the flag twice = %q, want the flags' two", got)
	}
}

// healthz is /healthz as a standby's state shows in it.
type healthz struct {
	Status   string `json:"status"`
	Standbys []struct {
		Name       string   `json:"name"`
		Healthy    bool     `json:"healthy"`
		InRotation bool     `json:"in_rotation"`
		LagSeconds *float64 `json:"lag_seconds"`
		LastError  string   `json:"last_error"`
	} `json:"standbys"`
}

// waitInRotation polls /healthz until it shows one standby, in rotation.
func waitInRotation(t *testing.T, url string) healthz {
	t.Helper()
	var h healthz
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		code, body := getBody(t, url+"/healthz")
		h = healthz{}
		if err := json.Unmarshal([]byte(body), &h); err != nil || code != http.StatusOK || h.Status != "ok" {
			t.Fatalf("GET /healthz = %d %s (%v), want 200 ok", code, body, err)
		}
		if len(h.Standbys) == 1 && h.Standbys[0].InRotation {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("no standby in rotation within 60 s: /healthz = %s", body)
		}
	}
}

// apiCall sends a request with the bearer token and returns the status and
// body.
func apiCall(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// newToken creates a writer token of scope acme with the CLI.
func newToken(t *testing.T, env map[string]string, name string) string {
	t.Helper()
	out, _, err := runCmd(t, env, "", "token", "create", "--scope", "acme", "--name", name)
	m := printedToken.FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("token create = %q, %v", out, err)
	}
	return m[1]
}

// TestServeWithLocalStandby is serve --standby on the private cluster: it
// clones a standby beside the data folder, reads go to it, an agent reads
// its own writes, and both servers stop with serve; a second run starts
// the same standby again, which has the first run's data.
func TestServeWithLocalStandby(t *testing.T) {
	dir, err := os.MkdirTemp("", "tenure-serve-standby-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TENURE_DATA_DIR": filepath.Join(dir, "pg")}
	standbyDir := filepath.Join(dir, "pg-standby")

	url, _, stop := startServe(t, env, "--standby", "--no-jobs")
	if _, err := os.Stat(filepath.Join(standbyDir, "standby.signal")); err != nil {
		t.Fatalf("no standby beside the data folder: %v", err)
	}
	if h := waitInRotation(t, url); !h.Standbys[0].Healthy || h.Standbys[0].LagSeconds == nil || h.Standbys[0].LastError != "" ||
		h.Standbys[0].Name != "standby1" {
		t.Errorf("/healthz standby = %+v, want healthy with its lag", h.Standbys[0])
	}
	token := newToken(t, env, "standby-agent")
	if code, body := apiCall(t, http.MethodPost, url+"/api/v1/scopes/acme/facts", token,
		`{"entity": "Noor", "key": "team", "content": "Noor joined the lighthouse team.", "category": "observation"}`); code != http.StatusCreated {
		t.Fatalf("create fact = %d %s", code, body)
	}
	if code, body := apiCall(t, http.MethodGet, url+"/api/v1/scopes/acme/recall?q=lighthouse", token, ""); code != http.StatusOK ||
		!strings.Contains(body, "joined the lighthouse team") {
		t.Fatalf("recall right after the write = %d %s, want the fact", code, body)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve --standby: %v", err)
	}
	for _, d := range []string{filepath.Join(dir, "pg"), standbyDir} {
		if _, err := os.Stat(filepath.Join(d, "postmaster.pid")); !os.IsNotExist(err) {
			t.Errorf("%s/postmaster.pid still present after shutdown (err %v): its server did not stop", d, err)
		}
	}

	url, _, stop = startServe(t, env, "--standby", "--no-jobs")
	waitInRotation(t, url)
	other := newToken(t, env, "second-run")
	if code, body := apiCall(t, http.MethodGet, url+"/api/v1/scopes/acme/recall?q=lighthouse", other, ""); code != http.StatusOK ||
		!strings.Contains(body, "joined the lighthouse team") {
		t.Errorf("second run: recall of the first run's fact = %d %s", code, body)
	}
	if err := stop(); err != nil {
		t.Errorf("second run: %v", err)
	}
}

// TestServeWithReadDatabaseURL is serve with DATABASE_URL and a standby of
// that database given by --read-database-url: reads go to it, as /healthz
// and the metrics show.
func TestServeWithReadDatabaseURL(t *testing.T) {
	dbURL := pgtest.NewURL(t)
	pcfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tenure-read-url-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	standby, err := pgtest.Cluster(t).StartStandby(ctx, pglocal.StandbyOptions{DataDir: filepath.Join(dir, "standby"),
		Ephemeral: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { standby.Stop(context.Background()) })

	const metricsToken = "metrics-token-for-the-read-test"
	env := map[string]string{"DATABASE_URL": dbURL, "TENURE_METRICS_TOKEN": metricsToken,
		"TENURE_READ_DATABASE_URLS": standby.URLFor(pcfg.ConnConfig.Database)}
	url, _, stop := startServe(t, env, "--no-jobs", "--read-max-lag", "3s")
	waitInRotation(t, url)
	token := newToken(t, env, "reader-of-standbys")
	if code, body := apiCall(t, http.MethodGet, url+"/api/v1/scopes/acme/recall?q=anything", token, ""); code != http.StatusOK {
		t.Fatalf("recall = %d %s", code, body)
	}
	code, body := apiCall(t, http.MethodGet, url+"/metrics", metricsToken, "")
	if code != http.StatusOK || !strings.Contains(body, `tenure_replica_reads_total{target="standby"}`) ||
		!strings.Contains(body, "tenure_standby_in_rotation{standby=") {
		t.Errorf("GET /metrics = %d, want reads routed to the standby and its state; got:\n%s", code, grepLines(body, "tenure_replica_", "tenure_standby_"))
	}
	if err := stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
}

// grepLines returns the lines of s that hold one of subs.
func grepLines(s string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, sub := range subs {
			if strings.Contains(l, sub) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
