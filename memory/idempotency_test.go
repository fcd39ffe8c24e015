package memory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestRequestFingerprint(t *testing.T) {
	base := RequestFingerprint("POST", "/p", []byte(`{"a": 1, "b": {"c": [1, "x"], "d": null}}`))
	for _, tt := range []struct {
		name   string
		method string
		target string
		body   string
		same   bool
	}{
		{"order and space", "POST", "/p", "{\"b\":{\"d\":null,\"c\":[1,\"x\"]},\n \"a\":1}", true},
		{"escapes", "POST", "/p", `{"a": 1, "b": {"c": [1, "\u0078"], "d": null}}`, true},
		{"another value", "POST", "/p", `{"a": 2, "b": {"c": [1, "x"], "d": null}}`, false},
		{"array order", "POST", "/p", `{"a": 1, "b": {"c": ["x", 1], "d": null}}`, false},
		{"another number form", "POST", "/p", `{"a": 1.0, "b": {"c": [1, "x"], "d": null}}`, false},
		{"another path", "POST", "/q", `{"a": 1, "b": {"c": [1, "x"], "d": null}}`, false},
		{"another method", "PATCH", "/p", `{"a": 1, "b": {"c": [1, "x"], "d": null}}`, false},
	} {
		if got := RequestFingerprint(tt.method, tt.target, []byte(tt.body)) == base; got != tt.same {
			t.Errorf("%s: same fingerprint = %v, want %v", tt.name, got, tt.same)
		}
	}
	lines := RequestFingerprint("POST", "/i", []byte("{\"a\":1}\n{\"b\":2}\n"))
	if RequestFingerprint("POST", "/i", []byte("{\"a\": 1}\n\n{\"b\": 2}")) != lines {
		t.Error("JSON Lines differing only in white space have different fingerprints")
	}
	if RequestFingerprint("POST", "/i", []byte("not json")) == RequestFingerprint("POST", "/i", []byte("not  json")) {
		t.Error("bodies that are not JSON must be compared byte for byte")
	}
}

func TestCheckIdempotencyKey(t *testing.T) {
	for _, key := range []string{"a", "abc-123", "550e8400-e29b-41d4-a716-446655440000", "a b", strings.Repeat("~", 255)} {
		if err := CheckIdempotencyKey("k", key); err != nil {
			t.Errorf("CheckIdempotencyKey(%q) = %v, want nil", key, err)
		}
	}
	for _, key := range []string{"", " a", "a ", strings.Repeat("k", 256), "caf\u00e9", "a\nb", "a\x00"} {
		err := CheckIdempotencyKey("k", key)
		if e := AsError(err); e == nil || e.Code != CodeInvalid || e.Field != "k" {
			t.Errorf("CheckIdempotencyKey(%q) = %v, want an invalid error on k", key, err)
		}
	}
}

// TestIdempotencyClaims walks one key through its states: claimed, in
// progress for a duplicate, refused for another request, answered and
// replayed, released and claimed again, and taken over past its lease.
func TestIdempotencyClaims(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	s := NewStore(pool, Options{Now: func() time.Time { return now }})
	var token int64
	if err := pool.QueryRow(ctx, `INSERT INTO api_tokens (name, scope, token_hash, token_prefix)
		VALUES ('agent', 'acme', 'h', 'tnr_x') RETURNING id`).Scan(&token); err != nil {
		t.Fatal(err)
	}
	req := IdempotentRequest{TokenID: token, Key: "k", Method: "POST", Target: "/p", Body: []byte(`{"a":1}`), Lease: time.Minute}
	claim := func(r IdempotentRequest) *Claim {
		t.Helper()
		c, err := s.ClaimIdempotencyKey(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	first := claim(req)
	if first.Outcome != ClaimRun {
		t.Fatalf("first claim = %v, want ClaimRun", first.Outcome)
	}
	if c := claim(req); c.Outcome != ClaimInProgress {
		t.Errorf("duplicate while running = %v, want ClaimInProgress", c.Outcome)
	}
	other := req
	other.Body = []byte(`{"a":2}`)
	if c := claim(other); c.Outcome != ClaimReused || c.FirstTarget != "/p" {
		t.Errorf("another body = %+v, want ClaimReused naming /p", c)
	}
	if err := s.ReleaseIdempotencyKey(ctx, first); err != nil {
		t.Fatal(err)
	}
	second := claim(req)
	if second.Outcome != ClaimRun {
		t.Fatalf("claim after a release = %v, want ClaimRun", second.Outcome)
	}
	answer := IdempotentAnswer{Status: 201, Headers: map[string]string{"Content-Type": "application/json"}, Body: []byte(`{"ids":[7]}`)}
	if ok, err := s.CompleteIdempotencyKey(ctx, second, answer); err != nil || !ok {
		t.Fatalf("complete = %v, %v", ok, err)
	}
	c := claim(req)
	if c.Outcome != ClaimReplay || c.Answer.Status != 201 || string(c.Answer.Body) != `{"ids":[7]}` ||
		c.Answer.Headers["Content-Type"] != "application/json" {
		t.Errorf("repeat after the answer = %+v, want the answer replayed", c)
	}

	// A claim whose request never answered is taken over past its lease,
	// by the same request only; the earlier claim then stores nothing.
	stuck := req
	stuck.Key = "stuck"
	old := claim(stuck)
	now = now.Add(2 * time.Minute)
	otherStuck := stuck
	otherStuck.Body = []byte(`{"a":2}`)
	if c := claim(otherStuck); c.Outcome != ClaimReused {
		t.Errorf("another request on an abandoned key = %v, want ClaimReused", c.Outcome)
	}
	if c := claim(stuck); c.Outcome != ClaimRun {
		t.Fatalf("the same request past the lease = %v, want ClaimRun", c.Outcome)
	}
	if ok, err := s.CompleteIdempotencyKey(ctx, old, answer); err != nil || ok {
		t.Errorf("the taken-over claim completed = %v, %v; want false", ok, err)
	}

	// Past the window, a key is free for any request, and purged.
	now = now.Add(IdempotencyWindow)
	if c := claim(other); c.Outcome != ClaimRun {
		t.Errorf("another request after 24 h = %v, want ClaimRun", c.Outcome)
	}
	if n, err := s.PurgeIdempotencyKeys(ctx); err != nil || n != 1 {
		t.Errorf("purge = %d, %v; want the stuck key alone purged", n, err)
	}
}
