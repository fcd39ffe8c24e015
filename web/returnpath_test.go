package web

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestLocalReturnPath(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		// On this site: kept.
		{"/", "/"},
		{"/facts", "/facts"},
		{"/facts?x=1", "/facts?x=1"},
		{"/facts?durability=ephemeral&category=mood", "/facts?durability=ephemeral&category=mood"},
		{"/facts/12#history", "/facts/12#history"},
		{"/facts?q=a%20b", "/facts?q=a%20b"},
		{"/facts?next=//x", "/facts?next=//x"},
		// Off site, or read as off site by some browser: the fallback.
		{"", "FALLBACK"},
		{"/\t/x", "FALLBACK"}, // "/%09/x" once the query is decoded
		{"/%09/x", "FALLBACK"},
		{"/\\x", "FALLBACK"},
		{"/%5Cx", "FALLBACK"},
		{"//x", "FALLBACK"},
		{"///x", "FALLBACK"},
		{"/%2F%2Fx", "FALLBACK"},
		{"/%2f/x", "FALLBACK"},
		{"https:x", "FALLBACK"},
		{"https://x", "FALLBACK"},
		{"javascript:x", "FALLBACK"},
		{"x", "FALLBACK"},
		{"facts", "FALLBACK"},
		{"/facts\r\nSet-Cookie: a=b", "FALLBACK"},
		{"/facts\nx", "FALLBACK"},
		{"/facts?q=\x7f", "FALLBACK"},
		{" /facts", "FALLBACK"},
		{"/%zz", "FALLBACK"},
		{"/" + strings.Repeat("a", maxReturnPath), "FALLBACK"},
	}
	for _, tt := range tests {
		if got := localReturnPath(tt.raw, "FALLBACK"); got != tt.want {
			t.Errorf("localReturnPath(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

func TestThrottlePolicyDelay(t *testing.T) {
	p := throttlePolicy{free: 5, base: time.Second, max: 15 * time.Minute}
	for _, tt := range []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {4, 0}, {5, time.Second}, {6, 2 * time.Second}, {7, 4 * time.Second},
		{14, 512 * time.Second}, {15, 15 * time.Minute}, {100, 15 * time.Minute}, {1 << 30, 15 * time.Minute},
	} {
		if got := p.delay(tt.failures); got != tt.want {
			t.Errorf("delay(%d) = %s, want %s", tt.failures, got, tt.want)
		}
	}
}

// TestThrottleTableBounded: a full table evicts its least recently touched
// entry, so no flood of addresses or emails grows memory without bound.
func TestThrottleTableBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tab := newThrottleTable(throttlePolicy{free: 1, base: time.Minute, max: time.Hour}, 3)
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		e := tab.touch(k, now)
		e.failures, e.last = 1, now
	}
	if tab.order.Len() != 3 || len(tab.entries) != 3 {
		t.Fatalf("table holds %d entries (%d in the map), want at most 3", tab.order.Len(), len(tab.entries))
	}
	if tab.wait("a", now) != 0 || tab.wait("e", now) != time.Minute {
		t.Errorf("wait(a) = %s, wait(e) = %s; want the oldest evicted and the newest kept", tab.wait("a", now), tab.wait("e", now))
	}
	// An entry idle for forgetAfter is forgotten.
	if w := tab.wait("e", now.Add(forgetAfter)); w != 0 {
		t.Errorf("wait after %s idle = %s, want 0", forgetAfter, w)
	}
}

// TestThrottleCountsRunningAttempts: attempts still running use up the free
// failures, so a burst cannot pass the limit before its first answer.
func TestThrottleCountsRunningAttempts(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newLoginThrottle(func() time.Time { return now })
	var dones []func(loginOutcome)
	for i := range accountPolicy.free {
		done, wait := l.begin("a@example.com", fmt.Sprintf("198.51.100.%d", i+1))
		if done == nil {
			t.Fatalf("attempt %d refused (wait %s), want %d let through", i+1, wait, accountPolicy.free)
		}
		dones = append(dones, done)
	}
	if done, wait := l.begin("A@Example.com ", "198.51.100.9"); done != nil || wait != busyRetry {
		t.Errorf("attempt beyond the free ones while they run: wait %s, want refused for %s", wait, busyRetry)
	}
	for _, done := range dones {
		done(loginFailed)
		done(loginFailed) // a second call is ignored
	}
	if _, wait := l.begin("a@example.com", "198.51.100.9"); wait != accountPolicy.base {
		t.Errorf("after %d failures: wait %s, want %s", accountPolicy.free, wait, accountPolicy.base)
	}
	now = now.Add(accountPolicy.base)
	done, _ := l.begin("a@example.com", "198.51.100.9")
	if done == nil {
		t.Fatal("after the delay, no attempt let through")
	}
	if d2, wait := l.begin("a@example.com", "198.51.100.10"); d2 != nil || wait != busyRetry {
		t.Errorf("second attempt while the one allowed runs: wait %s, want refused", wait)
	}
	done(loginSucceeded)
	if _, ok := l.accounts.entries["a@example.com"]; ok {
		t.Error("a successful sign-in left the account's count")
	}
}

func TestAddressKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"192.0.2.7", "192.0.2.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
		{"::ffff:192.0.2.7", "192.0.2.7"},
		{"", ""},
	} {
		if got := addressKey(tt.in); got != tt.want {
			t.Errorf("addressKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
