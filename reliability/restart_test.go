package reliability

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestPostgresRestartUnderServer stops PostgreSQL under a running "tenure
// serve" and starts it again on the same port and data folder: while it is
// down /readyz answers 503 and API requests fail promptly in the API's error
// shape; once it is back both work again, and the scheduled jobs resume,
// without restarting Tenure.
func TestPostgresRestartUnderServer(t *testing.T) {
	pg := pgtest.NewServer(t)
	token := createToken(t, pg.URL(), "ops", "restart-probe")
	p := startTenure(t, "solo", pg.URL(), "--consolidate-every", "1s", "--decay-every", "1s", "--purge-every", "1s")
	facts := p.url + "/api/v1/scopes/ops/facts"
	nodes := p.url + "/api/v1/scopes/ops/nodes"

	if r := do(http.MethodGet, p.url+"/readyz", "", ""); r.Status != http.StatusOK {
		t.Fatalf("GET /readyz before the restart = %v, want 200", r)
	}
	if r := do(http.MethodGet, facts, token, ""); r.Status != http.StatusOK {
		t.Fatalf("GET facts before the restart = %v, want 200", r)
	}
	if r := do(http.MethodPost, nodes, token, `{"content": "The billing service runs 3 replicas."}`); r.Status != http.StatusCreated {
		t.Fatalf("POST nodes before the restart = %v, want 201", r)
	}

	stopping := time.Now()
	pg.Stop(t)
	stopped := time.Now()
	t.Logf("outage: PostgreSQL fast shutdown took %v", stopped.Sub(stopping).Round(time.Millisecond))

	// /readyz turns 503 promptly, and each answer is prompt.
	var ready response
	ok := waitFor(10*time.Second, func() bool {
		ready = do(http.MethodGet, p.url+"/readyz", "", "")
		return ready.Status == http.StatusServiceUnavailable
	})
	detected := time.Since(stopped)
	if !ok {
		t.Fatalf("GET /readyz with PostgreSQL down = %v, want 503 within 10 s", ready)
	}
	t.Logf("outage: /readyz answered 503 %v after PostgreSQL was down (that answer took %v): %s",
		detected.Round(time.Millisecond), ready.Took.Round(time.Millisecond), ready.Body)
	if detected > 3*time.Second {
		t.Errorf("/readyz took %v to notice PostgreSQL was down, want at most 3 s", detected)
	}
	checkJSON(t, "GET /readyz", ready, "status")

	// The process is up, and API requests fail cleanly: promptly, with a
	// 5xx in the API's error shape.
	if r := do(http.MethodGet, p.url+"/healthz", "", ""); r.Status != http.StatusOK {
		t.Errorf("GET /healthz with PostgreSQL down = %v, want 200: the process is alive", r)
	}
	for _, req := range []struct{ method, url, body string }{
		{http.MethodGet, facts, ""},
		{http.MethodPost, nodes, `{"content": "Written while the database is down."}`},
	} {
		r := do(req.method, req.url, token, req.body)
		t.Logf("outage: %s %s answered %v", req.method, req.url[len(p.url):], r)
		if r.Err != nil || r.Status < 500 {
			t.Errorf("%s %s with PostgreSQL down = %v, want a 5xx answer", req.method, req.url, r)
			continue
		}
		if r.Took > 5*time.Second {
			t.Errorf("%s %s with PostgreSQL down took %v, want a prompt failure", req.method, req.url, r.Took)
		}
		var body struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil || body.Error.Code == "" || body.Error.Message == "" {
			t.Errorf("%s %s with PostgreSQL down answered %q, want the API's error shape {\"error\": {\"code\", \"message\"}}", req.method, req.url, r.Body)
		}
	}
	// A few job ticks pass with the database down; nothing crashes.
	time.Sleep(2 * time.Second)
	if p.exited() {
		t.Fatalf("tenure exited while PostgreSQL was down\n%s", p.output())
	}

	starting := time.Now()
	pg.Start(t)
	up := time.Now()
	t.Logf("outage: PostgreSQL restarted on port %d in %v", pg.Port(), up.Sub(starting).Round(time.Millisecond))

	ok = waitFor(15*time.Second, func() bool {
		ready = do(http.MethodGet, p.url+"/readyz", "", "")
		return ready.Status == http.StatusOK
	})
	recovered := time.Since(up)
	if !ok {
		t.Fatalf("GET /readyz after PostgreSQL came back = %v, want 200 within 15 s\n%s", ready, p.output())
	}
	t.Logf("recovery: /readyz answered 200 %v after PostgreSQL was back", recovered.Round(time.Millisecond))

	var r response
	ok = waitFor(15*time.Second, func() bool {
		r = do(http.MethodGet, facts, token, "")
		return r.Status == http.StatusOK
	})
	if !ok {
		t.Fatalf("GET facts after PostgreSQL came back = %v, want 200 within 15 s", r)
	}
	t.Logf("recovery: the API answered 200 %v after PostgreSQL was back", time.Since(up).Round(time.Millisecond))
	if r := do(http.MethodPost, nodes, token, `{"content": "The billing service runs 4 replicas."}`); r.Status != http.StatusCreated {
		t.Errorf("POST nodes after the restart = %v, want 201", r)
	}

	// The scheduled jobs resume: the leader reconnects and takes the lock
	// again on its own.
	pool := pgtest.Connect(t, pg.URL())
	var firstRun time.Time
	ok = waitFor(15*time.Second, func() bool {
		err := pool.QueryRow(context.Background(), `SELECT min(started_at) FROM consolidation_runs
			WHERE trigger = 'schedule' AND status = 'succeeded' AND started_at > $1`, up).Scan(&firstRun)
		return err == nil && !firstRun.IsZero()
	})
	if !ok {
		t.Fatalf("no scheduled consolidation succeeded within 15 s of PostgreSQL coming back\n%s", p.output())
	}
	t.Logf("recovery: the first scheduled consolidation started %v after PostgreSQL was back", firstRun.Sub(up).Round(time.Millisecond))
	if p.exited() {
		t.Errorf("tenure exited\n%s", p.output())
	}
}

// checkJSON fails the test unless r's body is a JSON object with key.
func checkJSON(t *testing.T, what string, r response, key string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil || m[key] == nil {
		t.Errorf("%s answered %q, want a JSON object with %q", what, r.Body, key)
	}
}
