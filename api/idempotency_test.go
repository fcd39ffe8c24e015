package api_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
)

const (
	pushPath     = "/api/v1/scopes/acme/nodes"
	pushTemplate = "/api/v1/scopes/{scope}/nodes"
)

// keyed sends a request with an Idempotency-Key.
func (f *apiFixture) keyed(t *testing.T, method, path, token, key string, body any) apiResponse {
	t.Helper()
	return f.callWith(t, method, path, token, body, map[string]string{"Idempotency-Key": key})
}

func (f *apiFixture) countRows(t *testing.T, query string) int {
	t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestIdempotentPushWritesOnce: the same push twice with one key writes
// once and answers the same ids, the second time marked as replayed; the
// body is compared as JSON, so white space and the order of members do not
// make another request.
func TestIdempotentPushWritesOnce(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "acme", "agent", auth.TokenWriter)
	first := f.keyed(t, http.MethodPost, pushPath, token, "abc-123",
		`{"rows": [{"content": "Ann lives in Hamburg.", "properties": {"entity": "Ann", "key": "home_city"}}]}`)
	if first.status != http.StatusCreated {
		t.Fatalf("first push: %d %s", first.status, first.body)
	}
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Error("the first answer is marked as replayed")
	}
	again := f.keyed(t, http.MethodPost, pushPath, token, "abc-123",
		`{"rows":[{"properties":{"key":"home_city","entity":"Ann"},"content":"Ann lives in Hamburg."}]}`)
	if again.status != first.status || !bytes.Equal(again.body, first.body) {
		t.Fatalf("repeat answered %d %s, want the first answer %d %s", again.status, again.body, first.status, first.body)
	}
	if again.header.Get("Idempotent-Replayed") != "true" {
		t.Error("the repeated answer is not marked Idempotent-Replayed: true")
	}
	loadLiveDoc(t).check(t, http.MethodPost, pushTemplate, again)
	if ct := again.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("repeated answer's Content-Type = %q", ct)
	}
	if n := f.countRows(t, `SELECT count(*) FROM memory_nodes`); n != 1 {
		t.Errorf("%d working rows after two pushes with one key, want 1", n)
	}
	// Without the key, the same push writes again.
	if res := f.call(t, http.MethodPost, pushPath, token, map[string]any{"content": "Ann lives in Hamburg."}); res.status != http.StatusCreated {
		t.Fatalf("push without a key: %d %s", res.status, res.body)
	}
	if n := f.countRows(t, `SELECT count(*) FROM memory_nodes`); n != 2 {
		t.Errorf("%d working rows after a push without a key, want 2", n)
	}
}

// TestIdempotencyKeyOnAnotherRequest: the same key with another body, or on
// another route, is refused with 422 and writes nothing.
func TestIdempotencyKeyOnAnotherRequest(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "acme", "agent", auth.TokenWriter)
	if res := f.keyed(t, http.MethodPost, pushPath, token, "k1", map[string]any{"content": "Ann likes tea."}); res.status != http.StatusCreated {
		t.Fatalf("first push: %d %s", res.status, res.body)
	}
	reused := f.keyed(t, http.MethodPost, pushPath, token, "k1", map[string]any{"content": "Ann likes coffee."})
	loadLiveDoc(t).check(t, http.MethodPost, pushTemplate, reused)
	e := reused.wantError(t, http.StatusUnprocessableEntity, "idempotency_key_reused")
	if e.Error.Field != "Idempotency-Key" || !strings.Contains(e.Error.Message, "POST "+pushPath) {
		t.Errorf("refusal = %+v, want it to name the header and the first request", e.Error)
	}
	f.keyed(t, http.MethodPost, "/api/v1/scopes/acme/decisions", token, "k1", map[string]any{
		"entity": "checkout", "key": "database", "decision": "Use PostgreSQL.", "reasoning": "One transaction for orders.",
	}).wantError(t, http.StatusUnprocessableEntity, "idempotency_key_reused")
	if n := f.countRows(t, `SELECT count(*) FROM memory_nodes`); n != 1 {
		t.Errorf("%d working rows, want 1", n)
	}
	if n := f.countRows(t, `SELECT count(*) FROM decisions`); n != 0 {
		t.Errorf("%d decisions, want none", n)
	}
}

// TestIdempotencyKeysBelongToTheToken: two tokens may use the same key for
// their own requests.
func TestIdempotencyKeysBelongToTheToken(t *testing.T) {
	f := newAPIFixture(t)
	one := f.newToken(t, "acme", "one", auth.TokenWriter)
	two := f.newToken(t, "acme", "two", auth.TokenWriter)
	a := f.keyed(t, http.MethodPost, pushPath, one, "shared", map[string]any{"content": "Ann likes tea."})
	b := f.keyed(t, http.MethodPost, pushPath, two, "shared", map[string]any{"content": "Ann likes coffee."})
	if a.status != http.StatusCreated || b.status != http.StatusCreated {
		t.Fatalf("pushes: %d %s, %d %s", a.status, a.body, b.status, b.body)
	}
	if b.header.Get("Idempotent-Replayed") != "" || bytes.Equal(a.body, b.body) {
		t.Errorf("the second token got the first token's answer: %s", b.body)
	}
	if n := f.countRows(t, `SELECT count(*) FROM memory_nodes`); n != 2 {
		t.Errorf("%d working rows, want 2", n)
	}
}

// TestIdempotencyKeyExpires: after 24 hours the purge deletes a key, and the
// key then makes a new request.
func TestIdempotencyKeyExpires(t *testing.T) {
	f := newAPIFixture(t)
	ctx := context.Background()
	token := f.newToken(t, "acme", "agent", auth.TokenWriter)
	push := func() apiResponse {
		res := f.keyed(t, http.MethodPost, pushPath, token, "daily", map[string]any{"content": "Ann likes tea."})
		if res.status != http.StatusCreated {
			t.Fatalf("push: %d %s", res.status, res.body)
		}
		return res
	}
	first := push()
	f.clock.advance(23 * time.Hour)
	if n, err := f.store.PurgeIdempotencyKeys(ctx); err != nil || n != 0 {
		t.Fatalf("purge after 23 h = %d, %v; want nothing purged", n, err)
	}
	if res := push(); !bytes.Equal(res.body, first.body) {
		t.Fatalf("repeat after 23 h answered %s, want %s", res.body, first.body)
	}
	f.clock.advance(2 * time.Hour)
	if n, err := f.store.PurgeIdempotencyKeys(ctx); err != nil || n != 1 {
		t.Fatalf("purge after 25 h = %d, %v; want the key purged", n, err)
	}
	if n := f.countRows(t, `SELECT count(*) FROM idempotency_keys`); n != 0 {
		t.Fatalf("%d keys left after the purge", n)
	}
	if res := push(); bytes.Equal(res.body, first.body) || res.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the key after its purge answered the first answer again: %s", res.body)
	}
	if n := f.countRows(t, `SELECT count(*) FROM memory_nodes`); n != 2 {
		t.Errorf("%d working rows, want 2 (one a day)", n)
	}
}

// TestIdempotencyKeyBounds: a key must be 1 to 255 printable ASCII
// characters, sent once; reads ignore it.
func TestIdempotencyKeyBounds(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "acme", "agent", auth.TokenWriter)
	body := map[string]any{"content": "Ann likes tea."}
	for _, key := range []string{"", strings.Repeat("k", 256), "caf\xc3\xa9", "tab\tin"} {
		e := f.keyed(t, http.MethodPost, pushPath, token, key, body).wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "Idempotency-Key" {
			t.Errorf("key %q: field = %q, want Idempotency-Key", key, e.Error.Field)
		}
	}
	if res := f.keyed(t, http.MethodPost, pushPath, token, strings.Repeat("k", 255), body); res.status != http.StatusCreated {
		t.Errorf("a key of 255 characters: %d %s", res.status, res.body)
	}
	req, err := http.NewRequest(http.MethodPost, f.srv.URL+pushPath, strings.NewReader(`{"content": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Add("Idempotency-Key", "a")
	req.Header.Add("Idempotency-Key", "b")
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("two Idempotency-Key headers: %d, want 400", res.StatusCode)
	}
	if res := f.keyed(t, http.MethodGet, pushPath, token, "", nil); res.status != http.StatusOK {
		t.Errorf("a read with an empty key: %d %s, want it ignored", res.status, res.body)
	}
	if n := f.countRows(t, `SELECT count(*) FROM memory_nodes`); n != 1 {
		t.Errorf("%d working rows, want 1", n)
	}
}

// TestIdempotentRefusalIsKept: a refusal of the request itself (400) is its
// answer: a repeat gets it again.
func TestIdempotentRefusalIsKept(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "acme", "agent", auth.TokenWriter)
	bad := map[string]any{"content": "Ann likes tea.", "durability": "forever"}
	first := f.keyed(t, http.MethodPost, pushPath, token, "bad-1", bad)
	first.wantError(t, http.StatusBadRequest, "invalid")
	again := f.keyed(t, http.MethodPost, pushPath, token, "bad-1", bad)
	if again.status != http.StatusBadRequest || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("repeat of a refused push: %d %s, want the first refusal replayed", again.status, again.body)
	}
}

// TestConcurrentIdempotentPushesWriteOnce: identical pushes sent at once
// with one key write once; each is answered with the one answer, or told
// the first is in progress.
func TestConcurrentIdempotentPushesWriteOnce(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "acme", "agent", auth.TokenWriter)
	rows := make([]map[string]any, 200)
	for i := range rows {
		rows[i] = map[string]any{"content": "Ann likes tea.", "properties": map[string]any{"entity": "Ann"}}
	}
	const n = 8
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		answers = make([]apiResponse, n)
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = f.keyed(t, http.MethodPost, pushPath, token, "together", map[string]any{"rows": rows})
		}()
	}
	close(start)
	wg.Wait()
	var created []byte
	doc := loadLiveDoc(t)
	for _, a := range answers {
		doc.check(t, http.MethodPost, pushTemplate, a)
		switch a.status {
		case http.StatusCreated:
			if created != nil && !bytes.Equal(a.body, created) {
				t.Errorf("two different answers: %s and %s", created, a.body)
			}
			created = a.body
		case http.StatusConflict:
			a.wantError(t, http.StatusConflict, "idempotency_key_in_progress")
			if a.header.Get("Retry-After") == "" {
				t.Error("409 in progress without Retry-After")
			}
		default:
			t.Errorf("answer %d %s, want 201 or 409", a.status, a.body)
		}
	}
	if created == nil {
		t.Fatal("no push was answered 201")
	}
	if got := f.countRows(t, `SELECT count(*) FROM memory_nodes`); got != len(rows) {
		t.Errorf("%d working rows after %d identical pushes, want %d (one push)", got, n, len(rows))
	}
}

// TestIdempotencyBusyIsNotKept: a refusal that says to retry later (409
// while another consolidation run holds the lock) is not the request's
// answer: the same request with its key then runs.
func TestIdempotencyBusyIsNotKept(t *testing.T) {
	f := newAPIFixture(t)
	ctx := context.Background()
	token := f.newToken(t, "acme", "agent", auth.TokenWriter)
	conn, err := f.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	const consolidationLock int64 = 0x74656e757265_63 // memory's lock of a run
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", consolidationLock); err != nil {
		t.Fatal(err)
	}
	busy := f.keyed(t, http.MethodPost, "/api/v1/consolidation/runs", token, "run-1", nil)
	busy.wantError(t, http.StatusConflict, "conflict")
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", consolidationLock); err != nil {
		t.Fatal(err)
	}
	run := f.keyed(t, http.MethodPost, "/api/v1/consolidation/runs", token, "run-1", nil)
	if run.status != http.StatusCreated || run.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry after the busy answer: %d %s, want the run to start", run.status, run.body)
	}
	again := f.keyed(t, http.MethodPost, "/api/v1/consolidation/runs", token, "run-1", nil)
	if again.status != http.StatusCreated || !bytes.Equal(again.body, run.body) || again.header.Get("Location") != run.header.Get("Location") {
		t.Errorf("repeat of the run: %d %s (Location %q), want the first answer", again.status, again.body, again.header.Get("Location"))
	}
	if n := f.countRows(t, `SELECT count(*) FROM consolidation_runs`); n != 1 {
		t.Errorf("%d consolidation runs, want 1", n)
	}
}
