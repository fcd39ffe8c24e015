package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/metrics"
	"github.com/tenurehq/tenure/pglocal"
	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// standbyFixture is the whole server over a database of the test cluster
// and hot standbys of that cluster, with reads routed to the standbys.
type standbyFixture struct {
	url      string // the server's
	primary  *pgxpool.Pool
	standbys []*pglocal.Cluster
	standby  *pglocal.Cluster  // the first
	spool    *pgxpool.Pool     // the first standby, for pausing its replay
	router   *replica.Router   // nil without standbys
	tokens   map[string]string // name: "Bearer <secret>"
	database string
}

// fixtureSetup is what startStandbyServer starts.
type fixtureSetup struct {
	maxLag   time.Duration
	interval time.Duration // of the router's checks; 0 is 100 ms
	standbys int           // 0: the server reads from the primary alone
	scope    string
	tokens   []string // writer tokens of scope
	// seed, when set, fills the database before the standbys are cloned.
	seed func(ctx context.Context, pool *pgxpool.Pool) error
}

// newStandbyFixture starts one standby of the test cluster, a router that
// checks it every 100 ms with maxLag, and the server over them, with
// writer tokens of scope acme named names. It returns once the standby is
// in rotation and has replayed the tokens.
func newStandbyFixture(t *testing.T, maxLag time.Duration, names ...string) *standbyFixture {
	t.Helper()
	return startStandbyServer(t, fixtureSetup{maxLag: maxLag, standbys: 1, scope: "acme", tokens: names})
}

// startStandbyServer starts what setup says, and returns once every
// standby is in rotation and has replayed the tokens.
func startStandbyServer(t testing.TB, setup fixtureSetup) *standbyFixture {
	t.Helper()
	ctx := context.Background()
	dbURL := pgtest.NewURL(t)
	pcfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	f := &standbyFixture{primary: pgtest.Connect(t, dbURL), tokens: map[string]string{}, database: pcfg.ConnConfig.Database}
	if setup.seed != nil {
		if err := setup.seed(ctx, f.primary); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range setup.tokens {
		secret, _, err := auth.SeedToken(ctx, f.primary, auth.NewToken{Name: name, Scope: setup.scope, Role: auth.TokenWriter}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		f.tokens[name] = "Bearer " + secret
	}

	// The server may run as another user (postgres, under root), who must
	// be able to enter the folder.
	dir, err := os.MkdirTemp("", "tenure-standby-test-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var standbys []replica.Standby
	for i := range setup.standbys {
		sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		s, err := pgtest.Cluster(t).StartStandby(sctx, pglocal.StandbyOptions{
			DataDir: filepath.Join(dir, fmt.Sprintf("standby%d", i+1)), Ephemeral: true, Logger: quiet})
		cancel()
		if err != nil {
			t.Fatalf("StartStandby: %v", err)
		}
		t.Cleanup(func() { s.Stop(context.Background()) })
		f.standbys = append(f.standbys, s)
		standbys = append(standbys, replica.Standby{Name: fmt.Sprintf("standby%d", i+1), Pool: f.standbyPool(t, s)})
	}

	reg := metrics.New()
	cfg := server.Config{Pool: f.primary, Logger: quiet, Registry: reg, Metrics: reg.Handler(), MetricsToken: metricsToken}
	if len(standbys) > 0 {
		f.standby, f.spool = f.standbys[0], f.standbyPool(t, f.standbys[0])
		if setup.interval == 0 {
			setup.interval = 100 * time.Millisecond
		}
		f.router, err = replica.New(f.primary, standbys, replica.Options{
			Interval: setup.interval, CheckTimeout: 2 * time.Second, MaxLag: setup.maxLag, OnRead: reg.ObserveRead,
			Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.router.Close)
		cfg.Reads = f.router
	}
	if cfg.Assets, err = static.New(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	f.url = ts.URL

	if f.router != nil {
		seeded, err := f.router.CurrentLSN(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.standbys {
			f.waitForStandby(t, i, "in rotation, past the tokens", func(s replica.StandbyStatus) bool {
				return s.InRotation && s.ReplayLSN >= seeded
			})
		}
	}
	return f
}

// standbyPool connects to the test's database on standby s; the pool is
// closed at the end of the test.
func (f *standbyFixture) standbyPool(t testing.TB, s *pglocal.Cluster) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(s.URLFor(f.database))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.ConnectTimeout = time.Second
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// waitFor polls the first standby's status until cond holds, failing the
// test after a generous deadline.
func (f *standbyFixture) waitFor(t testing.TB, what string, cond func(replica.StandbyStatus) bool) {
	t.Helper()
	f.waitForStandby(t, 0, what, cond)
}

// waitForStandby polls the i-th standby's status until cond holds.
func (f *standbyFixture) waitForStandby(t testing.TB, i int, what string, cond func(replica.StandbyStatus) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond(f.router.Status().Standbys[i]) {
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(f.router.Status(), "", "  ")
			t.Fatalf("timed out waiting for standby %d %s; status:\n%s", i+1, what, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reads returns the routed reads counted so far on the primary and on the
// standby.
func (f *standbyFixture) reads(t testing.TB) (primary, standby float64) {
	m := scrapeMetrics(t, f.url)
	return m.value("tenure_replica_reads_total", "target", "primary"), m.value("tenure_replica_reads_total", "target", "standby")
}

// call sends a request as token name, with extra headers (name, value, ...),
// and fails the test on a server error.
func (f *standbyFixture) call(t *testing.T, method, path, name, body string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, f.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", f.tokens[name])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header, body: string(b)}
	if a.status >= 500 {
		t.Fatalf("%s %s as %s = %d %s", method, path, name, a.status, a.body)
	}
	return a
}

// onStandby reports whether the standby shows the fact with id.
func (f *standbyFixture) onStandby(t *testing.T, id int64) bool {
	var found bool
	if err := f.spool.QueryRow(t.Context(), "SELECT EXISTS (SELECT 1 FROM entity_facts WHERE id = $1)", id).Scan(&found); err != nil {
		t.Fatal(err)
	}
	return found
}

// TestStandbyReadYourOwnWrites: with replay paused on the standby, an
// agent that pushes rows, creates a fact and corrects it reads each write
// back at once (over REST and MCP), from the primary, while another
// token's reads are served by the standby, which does not have them; a
// client of another process that sends the Tenure-Read-After header it got
// reads the write too. Once replay resumes, everyone sees it.
func TestStandbyReadYourOwnWrites(t *testing.T) {
	// A MaxLag far above the test keeps the paused standby in rotation.
	f := newStandbyFixture(t, 10*time.Minute, "writer", "other")
	const scope = "/api/v1/scopes/acme"

	var paused bool
	if _, err := f.spool.Exec(t.Context(), "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.spool.Exec(context.Background(), "SELECT pg_wal_replay_resume()") })
	for deadline := time.Now().Add(30 * time.Second); !paused && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := f.spool.QueryRow(t.Context(), "SELECT pg_get_wal_replay_pause_state() = 'paused'").Scan(&paused); err != nil {
			t.Fatal(err)
		}
	}
	if !paused {
		t.Fatal("the standby's replay did not pause")
	}

	// A push, read back at once by recall (as a pending row).
	push := f.call(t, http.MethodPost, scope+"/nodes", "writer", `{"content": "Marisol moved the quokka census to Thursday."}`)
	if push.status != http.StatusCreated {
		t.Fatalf("push = %d %s", push.status, push.body)
	}
	lsn, err := replica.ParseLSN(push.header.Get(server.ReadAfterHeader))
	if err != nil {
		t.Fatalf("the push's %s header = %q: %v", server.ReadAfterHeader, push.header.Get(server.ReadAfterHeader), err)
	}
	primary0, standby0 := f.reads(t)
	if a := f.call(t, http.MethodGet, scope+"/recall?q=quokka+census", "writer", ""); !strings.Contains(a.body, "moved the quokka census") {
		t.Fatalf("the writer's recall right after its push = %d %s, want the pushed row", a.status, a.body)
	}
	primary1, standby1 := f.reads(t)
	if primary1 <= primary0 || standby1 != standby0 {
		t.Errorf("the writer's recall: routed reads primary %v → %v, standby %v → %v; want it on the primary", primary0, primary1, standby0, standby1)
	}
	if a := f.call(t, http.MethodGet, scope+"/recall?q=quokka+census", "other", ""); strings.Contains(a.body, "moved the quokka census") || a.status != http.StatusOK {
		t.Fatalf("another token's recall = %d %s, want an answer without the row: the paused standby serves it", a.status, a.body)
	}
	primary2, standby2 := f.reads(t)
	if standby2 <= standby1 || primary2 != primary1 {
		t.Errorf("another token's recall: routed reads primary %v → %v, standby %v → %v; want it on the standby", primary1, primary2, standby1, standby2)
	}

	// A fact, read back at once by recall, the list and its page.
	const createBody = `{"entity": "Marisol", "key": "favourite_bird", "content": "Marisol's favourite bird is the shoebill.", "category": "preference"}`
	created := f.call(t, http.MethodPost, scope+"/facts", "writer", createBody, "Idempotency-Key", "shoebill-1")
	if created.status != http.StatusCreated {
		t.Fatalf("create fact = %d %s", created.status, created.body)
	}
	// Its answer given again carries a position past the write too.
	again := f.call(t, http.MethodPost, scope+"/facts", "writer", createBody, "Idempotency-Key", "shoebill-1")
	first, _ := replica.ParseLSN(created.header.Get(server.ReadAfterHeader))
	if replayed, err := replica.ParseLSN(again.header.Get(server.ReadAfterHeader)); again.status != http.StatusCreated ||
		again.header.Get("Idempotent-Replayed") != "true" || err != nil || replayed < first {
		t.Errorf("the create again = %d, replayed %q, %s %q; want the answer replayed with a position at or past %q", again.status,
			again.header.Get("Idempotent-Replayed"), server.ReadAfterHeader, again.header.Get(server.ReadAfterHeader), created.header.Get(server.ReadAfterHeader))
	}
	var fact struct {
		Fact struct {
			ID      int64 `json:"id"`
			Version int32 `json:"version"`
		} `json:"fact"`
	}
	if err := json.Unmarshal([]byte(created.body), &fact); err != nil {
		t.Fatal(err)
	}
	factPath := fmt.Sprintf("%s/facts/%d", scope, fact.Fact.ID)
	if next, err := replica.ParseLSN(created.header.Get(server.ReadAfterHeader)); err != nil || next <= lsn {
		t.Errorf("the fact's %s header = %q (%v), want a position past the push's %s", server.ReadAfterHeader,
			created.header.Get(server.ReadAfterHeader), err, lsn)
	} else {
		lsn = next
	}
	if f.onStandby(t, fact.Fact.ID) {
		t.Fatal("the paused standby has the new fact; the test would prove nothing")
	}
	for _, path := range []string{scope + "/recall?q=shoebill", scope + "/facts?q=shoebill", factPath, scope + "/context"} {
		if a := f.call(t, http.MethodGet, path, "writer", ""); a.status != http.StatusOK || !strings.Contains(a.body, "bird is the shoebill") {
			t.Errorf("the writer's GET %s right after the write = %d %s, want the fact", path, a.status, a.body)
		}
	}
	if a := f.call(t, http.MethodGet, factPath, "other", ""); a.status != http.StatusNotFound {
		t.Errorf("another token's GET of the new fact = %d %s, want 404 from the paused standby", a.status, a.body)
	}
	// Another process would not know the writer, but honours the header.
	if a := f.call(t, http.MethodGet, factPath, "other", "", server.ReadAfterHeader, lsn.String()); a.status != http.StatusOK {
		t.Errorf("GET of the new fact with %s: %s = %d %s, want the fact", server.ReadAfterHeader, lsn, a.status, a.body)
	}
	// Over MCP, the same token reads its write too.
	if a := f.call(t, http.MethodPost, "/mcp", "writer", toolCall(1, "recall", `{"query": "shoebill"}`)); !strings.Contains(a.body, "bird is the shoebill") {
		t.Errorf("the writer's MCP recall = %d %s, want the fact", a.status, a.body)
	}

	// A correction, read back at once.
	corrected := f.call(t, http.MethodPatch, factPath, "writer",
		fmt.Sprintf(`{"version": %d, "content": "Marisol's favourite bird is the kakapo.", "reason": "she said kakapo"}`, fact.Fact.Version))
	if corrected.status != http.StatusOK {
		t.Fatalf("correction = %d %s", corrected.status, corrected.body)
	}
	want := fmt.Sprintf(`"version":%d`, fact.Fact.Version+1)
	for _, path := range []string{factPath, scope + "/recall?q=kakapo"} {
		if a := f.call(t, http.MethodGet, path, "writer", ""); !strings.Contains(a.body, "bird is the kakapo") || !strings.Contains(a.body, want) {
			t.Errorf("the writer's GET %s right after the correction = %d %s, want the new version", path, a.status, a.body)
		}
	}
	// An MCP write, read back at once over MCP; its answer carries the
	// position after it.
	mcpCorrect := f.call(t, http.MethodPost, "/mcp", "writer", toolCall(2, "correct",
		fmt.Sprintf(`{"fact_id": %d, "content": "Marisol's favourite bird is the hoatzin.", "reason": "she changed her mind"}`, fact.Fact.ID)))
	if strings.Contains(mcpCorrect.body, `"isError":true`) || !strings.Contains(mcpCorrect.body, "version 3") {
		t.Fatalf("MCP correct = %d %s", mcpCorrect.status, mcpCorrect.body)
	}
	if next, err := replica.ParseLSN(mcpCorrect.header.Get(server.ReadAfterHeader)); err != nil || next <= lsn {
		t.Errorf("MCP correct's %s header = %q (%v), want a position past %s", server.ReadAfterHeader,
			mcpCorrect.header.Get(server.ReadAfterHeader), err, lsn)
	} else {
		lsn = next
	}
	if a := f.call(t, http.MethodPost, "/mcp", "writer", toolCall(3, "recall", `{"query": "hoatzin"}`)); !strings.Contains(a.body, "bird is the hoatzin") {
		t.Errorf("the writer's MCP recall after its MCP correction = %d %s, want the new content", a.status, a.body)
	}

	var health struct {
		Status   string `json:"status"`
		Standbys []struct {
			Name       string   `json:"name"`
			Healthy    bool     `json:"healthy"`
			InRotation bool     `json:"in_rotation"`
			LagSeconds *float64 `json:"lag_seconds"`
			ReplayLSN  string   `json:"replay_lsn"`
		} `json:"standbys"`
	}
	h := f.call(t, http.MethodGet, "/healthz", "", "")
	if err := json.Unmarshal([]byte(h.body), &health); err != nil || h.status != http.StatusOK || health.Status != "ok" || len(health.Standbys) != 1 ||
		health.Standbys[0].Name != "standby1" || !health.Standbys[0].Healthy || !health.Standbys[0].InRotation ||
		health.Standbys[0].LagSeconds == nil || health.Standbys[0].ReplayLSN == "" {
		t.Errorf("/healthz = %d %s (%v), want ok with standby1 healthy, in rotation, its lag and replay position", h.status, h.body, err)
	}
	m := scrapeMetrics(t, f.url)
	for _, name := range []string{"tenure_standby_healthy", "tenure_standby_in_rotation"} {
		if v := m.value(name, "standby", "standby1"); v != 1 {
			t.Errorf("%s = %v, want 1", name, v)
		}
	}
	if m.metric("tenure_standby_lag_seconds", "standby", "standby1") == nil {
		t.Error("tenure_standby_lag_seconds is missing")
	}

	// Once the standby replays, everyone reads the writes from it.
	if _, err := f.spool.Exec(t.Context(), "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "the standby to replay the writes", func(s replica.StandbyStatus) bool { return s.InRotation && s.ReplayLSN >= lsn })
	_, standby3 := f.reads(t)
	if a := f.call(t, http.MethodGet, factPath, "other", ""); a.status != http.StatusOK || !strings.Contains(a.body, "hoatzin") {
		t.Errorf("another token's GET after replay = %d %s, want the corrected fact", a.status, a.body)
	}
	if _, standby4 := f.reads(t); standby4 <= standby3 {
		t.Errorf("another token's GET after replay was not served by the standby (%v → %v)", standby3, standby4)
	}
}

// TestStandbyKilledUnderRecalls: recalls from several goroutines run while
// the standby serving them is killed and started again: none fails or
// answers 5xx, and once it is back the reads return to it.
func TestStandbyKilledUnderRecalls(t *testing.T) {
	f := newStandbyFixture(t, 5*time.Second, "agent1", "agent2", "agent3", "agent4")
	const scope = "/api/v1/scopes/acme"
	if a := f.call(t, http.MethodPost, scope+"/facts", "agent1",
		`{"entity": "Ravi", "key": "office", "content": "Ravi works from the Porto office.", "category": "observation"}`); a.status != http.StatusCreated {
		t.Fatalf("create fact = %d %s", a.status, a.body)
	}
	written, err := f.router.CurrentLSN(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "the standby past the fact", func(s replica.StandbyStatus) bool { return s.InRotation && s.ReplayLSN >= written })

	var stop atomic.Bool
	var recalls, failures atomic.Int64
	var wg sync.WaitGroup
	var firstFailure sync.Once
	for i := range 4 {
		name := fmt.Sprintf("agent%d", i+1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				req, _ := http.NewRequest(http.MethodGet, f.url+scope+"/recall?q=Porto+office", nil)
				req.Header.Set("Authorization", f.tokens[name])
				res, err := http.DefaultClient.Do(req)
				var body []byte
				if err == nil {
					body, _ = io.ReadAll(res.Body)
					res.Body.Close()
				}
				recalls.Add(1)
				if err != nil || res.StatusCode != http.StatusOK || !strings.Contains(string(body), "works from the Porto office") {
					failures.Add(1)
					firstFailure.Do(func() {
						status := 0
						if res != nil {
							status = res.StatusCode
						}
						t.Errorf("recall during the standby's death = %d %s (%v)", status, body, err)
					})
				}
			}
		}()
	}
	t.Cleanup(func() { stop.Store(true); wg.Wait() })

	waitRecalls := func(n int64) {
		t.Helper()
		target := recalls.Load() + n
		for deadline := time.Now().Add(60 * time.Second); recalls.Load() < target; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("recalls stalled at %d", recalls.Load())
			}
		}
	}
	waitRecalls(50)
	_, onStandby := f.reads(t)
	if onStandby == 0 {
		t.Fatal("no recall was served by the standby before it was killed")
	}

	port := f.standby.Port()
	if err := f.standby.Kill(); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "the killed standby to leave rotation", func(s replica.StandbyStatus) bool { return !s.Healthy && !s.InRotation })
	waitRecalls(50)
	m := scrapeMetrics(t, f.url)
	if m.value("tenure_standby_healthy", "standby", "standby1") != 0 || m.value("tenure_standby_in_rotation", "standby", "standby1") != 0 {
		t.Error("the killed standby is not shown unhealthy and out of rotation in the metrics")
	}
	if h := f.call(t, http.MethodGet, "/healthz", "", ""); h.status != http.StatusOK || !strings.Contains(h.body, `"healthy":false`) {
		t.Errorf("/healthz with the standby dead = %d %s, want 200 showing it unhealthy", h.status, h.body)
	} else if strings.Contains(h.body, "error") || strings.Contains(h.body, fmt.Sprint(port)) {
		t.Errorf("/healthz = %s: it tells anyone the dead standby's error or address", h.body)
	}

	restarted, err := pgtest.Cluster(t).StartStandby(context.Background(), pglocal.StandbyOptions{
		DataDir: f.standby.DataDir(), Port: port, Ephemeral: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("start the standby again: %v", err)
	}
	t.Cleanup(func() { restarted.Stop(context.Background()) })
	f.waitFor(t, "the restarted standby back in rotation", func(s replica.StandbyStatus) bool { return s.Healthy && s.InRotation })
	_, before := f.reads(t)
	waitRecalls(50)
	if _, after := f.reads(t); after <= before {
		t.Errorf("reads did not return to the restarted standby (standby reads %v → %v)", before, after)
	}
	stop.Store(true)
	wg.Wait()
	if n := failures.Load(); n != 0 {
		t.Fatalf("%d of %d recalls failed while the standby was killed and restarted", n, recalls.Load())
	}
	m = scrapeMetrics(t, f.url)
	t.Logf("%d recalls; routed reads: primary %v, standby %v; retries: primary %v, standby %v", recalls.Load(),
		m.value("tenure_replica_reads_total", "target", "primary"), m.value("tenure_replica_reads_total", "target", "standby"),
		m.value("tenure_replica_read_retries_total", "target", "primary"), m.value("tenure_replica_read_retries_total", "target", "standby"))
}
