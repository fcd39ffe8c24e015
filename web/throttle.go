package web

import (
	"container/list"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// Sign-in throttling. Failed sign-ins are counted per account (the email as
// typed, case-folded) and per client address (an IPv6 address by its /64).
// Past a number of free failures, each further failure closes the account or
// address for a delay that doubles with every failure, up to a cap; while
// closed, sign-ins are answered 429 with Retry-After and no password is
// checked. A successful sign-in clears the account's count (not the
// address's, so that one valid account does not unlock guessing at others).
// A count is forgotten once its last failure is forgetAfter old.
//
// Sign-ins already running count against what is left of the free failures,
// so a burst of concurrent guesses cannot slip past the limit before the
// first of them has failed; once the limit is reached, one attempt at a time
// is let through each time the delay has passed.
//
// The state is in memory and per process: each replica counts on its own,
// and a restart forgets. Each table holds at most throttleEntries entries
// (about 200 bytes each); when full, the least recently touched is evicted.
var (
	accountPolicy = throttlePolicy{free: 5, base: time.Second, max: 15 * time.Minute}
	addressPolicy = throttlePolicy{free: 20, base: time.Second, max: 15 * time.Minute}
)

const (
	throttleEntries = 10000
	forgetAfter     = time.Hour
	// busyRetry is the Retry-After of a sign-in refused because attempts
	// already running may use up the free failures.
	busyRetry = time.Second
	// maxThrottleKey bounds the length of a key taken from a request.
	maxThrottleKey = 320
)

// throttlePolicy is how many failures are free and how the delay grows after.
type throttlePolicy struct {
	free int           // failures allowed before any delay
	base time.Duration // the delay after the free-th failure, doubled after each further one
	max  time.Duration // the longest delay
}

// delay is how long a key with failures failures stays closed after the last.
func (p throttlePolicy) delay(failures int) time.Duration {
	if failures < p.free {
		return 0
	}
	shift := failures - p.free
	if shift >= 30 {
		return p.max
	}
	return min(p.base<<shift, p.max)
}

type throttleEntry struct {
	key      string
	failures int
	last     time.Time // of the last failure
	inflight int       // sign-ins running now
}

// throttleTable counts failures per key, least recently touched last.
type throttleTable struct {
	policy  throttlePolicy
	limit   int
	entries map[string]*list.Element
	order   *list.List
}

func newThrottleTable(p throttlePolicy, limit int) *throttleTable {
	return &throttleTable{policy: p, limit: limit, entries: map[string]*list.Element{}, order: list.New()}
}

// get returns the entry of key, or nil; an entry idle for forgetAfter is
// dropped first.
func (t *throttleTable) get(key string, now time.Time) *throttleEntry {
	el, ok := t.entries[key]
	if !ok {
		return nil
	}
	e := el.Value.(*throttleEntry)
	if e.inflight == 0 && now.Sub(e.last) >= forgetAfter {
		t.remove(key)
		return nil
	}
	return e
}

// touch returns the entry of key, creating it (and evicting the least
// recently touched entry when full), and marks it most recently touched.
func (t *throttleTable) touch(key string, now time.Time) *throttleEntry {
	if e := t.get(key, now); e != nil {
		t.order.MoveToFront(t.entries[key])
		return e
	}
	for t.order.Len() >= t.limit {
		t.remove(t.order.Back().Value.(*throttleEntry).key)
	}
	e := &throttleEntry{key: key}
	t.entries[key] = t.order.PushFront(e)
	return e
}

func (t *throttleTable) remove(key string) {
	if el, ok := t.entries[key]; ok {
		t.order.Remove(el)
		delete(t.entries, key)
	}
}

// wait is how long key must wait before another sign-in; 0 lets it in.
func (t *throttleTable) wait(key string, now time.Time) time.Duration {
	e := t.get(key, now)
	if e == nil {
		return 0
	}
	if until := e.last.Add(t.policy.delay(e.failures)); e.failures >= t.policy.free && now.Before(until) {
		return until.Sub(now)
	}
	if e.inflight >= max(t.policy.free-e.failures, 1) {
		return busyRetry
	}
	return 0
}

// loginOutcome is how a throttled sign-in ended.
type loginOutcome int

const (
	loginFailed    loginOutcome = iota // wrong email or password: counted
	loginSucceeded                     // clears the account's count
	loginAborted                       // neither (an error, a request gone): not counted
)

// loginThrottle holds the counts of failed sign-ins of this process.
type loginThrottle struct {
	mu        sync.Mutex
	now       func() time.Time
	accounts  *throttleTable
	addresses *throttleTable
}

func newLoginThrottle(now func() time.Time) *loginThrottle {
	return &loginThrottle{
		now:       now,
		accounts:  newThrottleTable(accountPolicy, throttleEntries),
		addresses: newThrottleTable(addressPolicy, throttleEntries),
	}
}

// begin asks to try a sign-in to account from addr. When either must wait,
// it returns how long (the longer of the two) and a nil done; otherwise it
// counts the attempt as running and returns done, to be called once with the
// outcome.
func (l *loginThrottle) begin(account, addr string) (done func(loginOutcome), wait time.Duration) {
	account, addr = accountKey(account), addressKey(addr)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if wait = max(l.accounts.wait(account, now), l.addresses.wait(addr, now)); wait > 0 {
		return nil, wait
	}
	l.accounts.touch(account, now).inflight++
	l.addresses.touch(addr, now).inflight++
	var once sync.Once
	return func(o loginOutcome) { once.Do(func() { l.end(account, addr, o) }) }, 0
}

func (l *loginThrottle) end(account, addr string, o loginOutcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for _, k := range []struct {
		t   *throttleTable
		key string
	}{{l.accounts, account}, {l.addresses, addr}} {
		e := k.t.touch(k.key, now)
		if e.inflight > 0 {
			e.inflight--
		}
		switch {
		case o == loginFailed:
			e.failures++
			e.last = now
		case o == loginSucceeded && k.t == l.accounts:
			e.failures = 0
		}
		if e.failures == 0 && e.inflight == 0 {
			k.t.remove(k.key)
		}
	}
}

// accountKey is the throttling key of an email as typed.
func accountKey(email string) string {
	email = strings.ToLower(strings.TrimSpace(email))
	if len(email) > maxThrottleKey {
		email = email[:maxThrottleKey]
	}
	return email
}

// addressKey is the throttling key of a client address: the address itself,
// or its /64 for IPv6, since one client commonly holds a whole /64.
func addressKey(addr string) string {
	ip := net.ParseIP(addr)
	if ip == nil {
		if len(addr) > maxThrottleKey {
			addr = addr[:maxThrottleKey]
		}
		return addr
	}
	if ip.To4() != nil {
		return ip.String()
	}
	return (&net.IPNet{IP: ip.Mask(net.CIDRMask(64, 128)), Mask: net.CIDRMask(64, 128)}).String()
}

// retryAfterSeconds is wait as the whole seconds of a Retry-After header.
func retryAfterSeconds(wait time.Duration) int {
	return int((wait + time.Second - 1) / time.Second)
}

// throttledMessage tells a person refused by the throttle when to try again.
func throttledMessage(wait time.Duration) string {
	secs := retryAfterSeconds(wait)
	when := fmt.Sprintf("%d seconds", secs)
	switch {
	case secs == 1:
		when = "1 second"
	case secs >= 120:
		when = fmt.Sprintf("%d minutes", (secs+59)/60)
	}
	return "Too many failed sign-ins for this account or from your network: try again in " + when + "."
}
