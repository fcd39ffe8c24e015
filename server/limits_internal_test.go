package server

import (
	"fmt"
	"testing"
	"time"
)

// clock is a clock the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestBucketsRefillAndSayWhen: a bucket lets its burst through, then says
// how long until the next request, and refills at its rate.
func TestBucketsRefillAndSayWhen(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	b := newBuckets(Rate{PerSecond: 0.5, Burst: 2}, c.now, 100)
	for i := range 2 {
		if d := b.take("a"); d != 0 {
			t.Fatalf("request %d within the burst waits %s", i, d)
		}
	}
	if d := b.take("a"); d != 2*time.Second || retryAfterSeconds(d) != 2 {
		t.Fatalf("past the burst: wait %s, want 2s", d)
	}
	// A refused request takes nothing: the wait does not grow.
	if d := b.take("a"); d != 2*time.Second {
		t.Fatalf("refused again: wait %s, want still 2s", d)
	}
	if d := b.take("b"); d != 0 {
		t.Fatalf("another key waits %s", d)
	}
	c.t = c.t.Add(1500 * time.Millisecond)
	if d := b.take("a"); d != 500*time.Millisecond || retryAfterSeconds(d) != 1 {
		t.Fatalf("1.5 s later: wait %s, want 500ms (Retry-After 1)", d)
	}
	c.t = c.t.Add(500 * time.Millisecond)
	if d := b.take("a"); d != 0 {
		t.Fatalf("2 s later: wait %s, want none", d)
	}
}

// TestBucketsStayBounded: buckets idle long enough to be full again are
// dropped, and a set never grows past its bound.
func TestBucketsStayBounded(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	b := newBuckets(Rate{PerSecond: 5, Burst: 20}, c.now, 64)
	for i := range 50 {
		b.take(fmt.Sprint("10.0.0.", i))
	}
	if n := b.len(); n != 50 {
		t.Fatalf("%d buckets, want 50", n)
	}
	c.t = c.t.Add(sweepEvery)
	b.take("10.0.1.1")
	if n := b.len(); n != 1 {
		t.Errorf("after a minute idle: %d buckets, want 1 (the idle ones dropped)", n)
	}
	for i := range 1000 {
		b.take(fmt.Sprint("10.1.", i/256, ".", i%256))
		if n := b.len(); n > 64 {
			t.Fatalf("%d buckets after %d keys, want at most 64", n, i+1)
		}
	}
}

func TestAddressKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"192.0.2.1", "192.0.2.1"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"not an address", "not an address"},
	} {
		if got := addressKey(tt.in); got != tt.want {
			t.Errorf("addressKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalizeOrigin(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://app.example.com", "https://app.example.com"},
		{" HTTPS://App.Example.com/ ", "https://app.example.com"},
		{"https://app.example.com:443", "https://app.example.com"},
		{"http://localhost:80", "http://localhost"},
		{"http://localhost:5173", "http://localhost:5173"},
		{"http://[::1]:6274", "http://[::1]:6274"},
		{"vscode-webview://abc", "vscode-webview://abc"},
		{"app.example.com", ""},
		{"localhost:3000", ""},
		{"https://app.example.com/path", ""},
		{"https://app.example.com?x=1", ""},
		{"https://user@app.example.com", ""},
		{"https://app.example.com:", ""},
		{"*", ""},
		{"null", ""},
	} {
		got, err := NormalizeOrigin(tt.in)
		if (err != nil) != (tt.want == "") || got != tt.want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
