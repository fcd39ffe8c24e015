package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/logdedup"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// jsonLog keeps the lines of a JSON log.
type jsonLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *jsonLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// records returns the records at level.
func (l *jsonLog) records(t *testing.T, level string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if m["level"] == level {
			out = append(out, m)
		}
	}
	return out
}

// tee hands every record to both handlers.
type tee [2]slog.Handler

func (t tee) Enabled(ctx context.Context, l slog.Level) bool {
	return t[0].Enabled(ctx, l) || t[1].Enabled(ctx, l)
}

func (t tee) Handle(ctx context.Context, r slog.Record) error {
	return errors.Join(t[0].Handle(ctx, r.Clone()), t[1].Handle(ctx, r))
}

func (t tee) WithAttrs(attrs []slog.Attr) slog.Handler {
	return tee{t[0].WithAttrs(attrs), t[1].WithAttrs(attrs)}
}

func (t tee) WithGroup(name string) slog.Handler {
	return tee{t[0].WithGroup(name), t[1].WithGroup(name)}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, method, url, token, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}
}

func toolCall(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// TestOutageAnswersAndLogsOnce stops PostgreSQL under the whole server, with
// the process's log deduplication: every API and MCP request answers 503 with
// Retry-After: 5 (the API in its error shape, MCP with a JSON-RPC error for
// the request's id, since the token check needs the database), and a burst
// of 200 failing requests writes a handful of ERROR lines where it logs
// hundreds of ERROR records, each repeat counted in a summary line.
func TestOutageAnswersAndLogsOnce(t *testing.T) {
	pg := pgtest.NewServer(t)
	pool := pgtest.Connect(t, pg.URL())
	secret, _, err := auth.SeedToken(context.Background(), pool,
		auth.NewToken{Name: "outage-probe", Scope: "ops", Role: auth.TokenWriter}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	token := "Bearer " + secret
	raw, written := &jsonLog{}, &jsonLog{}
	dedup := logdedup.New(slog.NewJSONHandler(written, nil), logdedup.Options{})
	logger := slog.New(tee{slog.NewJSONHandler(raw, nil), dedup})
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "tenure_up 1\n") })
	srv, err := server.New(server.Config{Pool: pool, Logger: logger, Assets: assets, Metrics: metrics, MetricsToken: "m3trics"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)

	facts, nodes, mcp := ts.URL+"/api/v1/scopes/ops/facts", ts.URL+"/api/v1/scopes/ops/nodes", ts.URL+"/mcp"
	if a := send(t, http.MethodGet, facts, token, ""); a.status != http.StatusOK {
		t.Fatalf("GET facts before the outage = %d %s", a.status, a.body)
	}
	if a := send(t, http.MethodPost, mcp, token, toolCall(1, "remember", `{"content": "Written before the outage."}`)); a.status != http.StatusOK ||
		strings.Contains(a.body, `"isError":true`) {
		t.Fatalf("remember before the outage = %d %s", a.status, a.body)
	}
	if a := send(t, http.MethodGet, ts.URL+"/metrics", "bearer m3trics", ""); a.status != http.StatusOK {
		t.Errorf("GET /metrics with the scheme in lower case = %d %s, want 200", a.status, a.body)
	}

	pg.Stop(t)
	before := len(raw.records(t, "ERROR"))
	const burst = 200
	var wg sync.WaitGroup
	errs := make(chan string, burst)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < burst; i += 4 {
				var a answer
				switch i % 4 {
				case 0:
					a = send(t, http.MethodGet, facts, token, "")
				case 1:
					a = send(t, http.MethodPost, nodes, token, `{"content": "Written while the database is down."}`)
				case 2:
					a = send(t, http.MethodPost, mcp, token, toolCall(i, "recall", `{"query": "Lisbon"}`))
				case 3:
					a = send(t, http.MethodPost, mcp, token, toolCall(i, "remember", `{"content": "Written while the database is down."}`))
				}
				if msg := checkUnavailable(a, i); msg != "" {
					errs <- fmt.Sprintf("request %d: %s", i, msg)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	dedup.Flush()

	logged := len(raw.records(t, "ERROR")) - before
	lines := written.records(t, "ERROR")
	accounted, summaries := 0, 0
	kinds := map[string]int{}
	for _, r := range lines {
		if n, ok := r["repeated"].(float64); ok {
			accounted += int(n)
			summaries++
		} else {
			accounted++
			kinds[fmt.Sprint(r["msg"])]++
		}
	}
	t.Logf("%d requests with PostgreSQL down: %d ERROR records; %d ERROR lines written, %d of them counts of repeats (first lines by message: %v)",
		burst, logged, len(lines), summaries, kinds)
	if logged < 2*burst {
		t.Fatalf("%d ERROR records for %d failing requests, want two a request (the request log's and the surface's)", logged, burst)
	}
	if all := len(raw.records(t, "ERROR")); accounted != all {
		t.Errorf("the lines written account for %d ERROR records (first lines and counts of repeats), want all %d", accounted, all)
	}
	if len(lines) > 20 {
		t.Errorf("%d failing requests wrote %d ERROR lines, want a handful", burst, len(lines))
	}
}

// checkUnavailable says what is wrong with a, the answer of request i with
// the database down, or "".
func checkUnavailable(a answer, i int) string {
	if a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") != "5" {
		return fmt.Sprintf("%d (Retry-After %q) %s, want 503 with Retry-After: 5", a.status, a.header.Get("Retry-After"), a.body)
	}
	if i%4 < 2 {
		var body struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(a.body), &body); err != nil || body.Error.Code != "unavailable" {
			return fmt.Sprintf("body %s, want the API's error unavailable", a.body)
		}
		return ""
	}
	var rpc struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(a.body), &rpc); err != nil || rpc.JSONRPC != "2.0" || rpc.ID != i || rpc.Error.Code != -32000 ||
		!strings.Contains(rpc.Error.Message, "the memory store is unavailable") || !strings.Contains(rpc.Error.Message, "retry after 5 seconds") {
		return fmt.Sprintf("body %s, want a JSON-RPC error for id %d saying the store is unavailable and to retry after 5 seconds", a.body, i)
	}
	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		return fmt.Sprintf("Content-Type %q, want application/json", ct)
	}
	return ""
}
