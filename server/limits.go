package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
)

// Rate limits. Every request to the API (/api) and to MCP (/mcp) takes one
// request from a token bucket (golang.org/x/time/rate): the bucket of its
// API token, keyed by the token's id once the token is found live, or, for
// a request without a live token (none, a malformed header, an unknown,
// revoked or expired one), the bucket of its client address (Echo's RealIP,
// which believes X-Forwarded-For only from --trusted-proxies; an IPv6
// address by its /64). So a client sending bad tokens is throttled by its
// address, and one token's burst leaves the others alone. A request whose
// bucket is empty is answered 429 with Retry-After, the whole seconds until
// its bucket holds a request again: the API in its error shape (code
// too_many_requests), MCP with a JSON-RPC error without an id, as the
// streamable HTTP transport answers a request it refuses before any method
// runs. The console (its pages have sessions and sign-in throttling of
// their own), the health checks, /metrics and the static assets are not
// limited.
//
// The buckets are in memory, per process. With N replicas behind a load
// balancer, a client may send up to N times the configured rate in all;
// one replica's restart refills its buckets. Per token that is what a rate
// limit is for here (keeping one agent from crowding out the others on a
// replica), and the figure to set is the share of one replica. Per address
// it is load shedding, not a defence against guessing: an API token is 256
// random bits, which no number of requests guesses, so N times the rate of
// failed requests is no weaker. Where a hard limit across replicas matters,
// a shared limiter (a bucket per key in PostgreSQL) could take the place
// of these; it would cost a write per request.

// Rate is one token bucket: PerSecond requests a second on average, and up
// to Burst at once. A PerSecond of zero sets no limit.
type Rate struct {
	PerSecond float64
	Burst     int
}

// String says the rate as the log shows it: "50/s, bursts of 100", or "off".
func (r Rate) String() string {
	if r.PerSecond <= 0 {
		return "off"
	}
	return fmt.Sprintf("%s/s, bursts of %d", strconv.FormatFloat(r.PerSecond, 'f', -1, 64), r.Burst)
}

// Limits are the request rate limits of /api and /mcp; the zero value sets
// none.
type Limits struct {
	// Token is the rate of each API token.
	Token Rate
	// Address is the rate of requests without a live API token, per client
	// address.
	Address Rate
}

// DefaultLimits are serve's defaults: 50 requests a second per token,
// bursts of 100; 5 a second per address without a valid token, bursts of 20.
var DefaultLimits = Limits{Token: Rate{PerSecond: 50, Burst: 100}, Address: Rate{PerSecond: 5, Burst: 20}}

// Bounds of the limiter's memory.
const (
	// maxBuckets bounds each set of buckets (about 150 bytes each); past
	// it, idle buckets are dropped first, then arbitrary ones (which start
	// full again when next used).
	maxBuckets = 1 << 16
	// sweepEvery is how often the buckets idle long enough to be full again
	// are dropped.
	sweepEvery = time.Minute
	// knownTTL is how long a token found live is counted by its id without
	// being looked up again (the surface still authenticates every request;
	// a token answered 401 is forgotten at once); maxKnown bounds how many
	// are remembered.
	knownTTL = time.Minute
	maxKnown = 4096
)

// limiter applies Limits to the requests of /api and /mcp.
type limiter struct {
	tokens  *auth.Tokens
	timeout time.Duration // of a token's lookup; 0: none
	now     func() time.Time
	byToken *buckets // nil: no limit per token
	byAddr  *buckets // nil: no limit per address

	mu    sync.Mutex
	known map[[sha256.Size]byte]knownToken // by the SHA-256 of the bearer
}

type knownToken struct {
	id    int64
	until time.Time
}

// newLimiter returns the limiter of l, or nil when l sets no limit.
func newLimiter(l Limits, tokens *auth.Tokens, timeout time.Duration, now func() time.Time) *limiter {
	if l.Token.PerSecond <= 0 && l.Address.PerSecond <= 0 {
		return nil
	}
	return &limiter{tokens: tokens, timeout: max(timeout, 0), now: now,
		byToken: newBuckets(l.Token, now, maxBuckets), byAddr: newBuckets(l.Address, now, maxBuckets),
		known: map[[sha256.Size]byte]knownToken{}}
}

// limitedSurface names the surface a limited path belongs to: "api", "mcp",
// or "" for a path that is not limited.
func limitedSurface(path string) string {
	switch {
	case path == "/api" || strings.HasPrefix(path, "/api/"):
		return "api"
	case path == "/mcp" || strings.HasPrefix(path, "/mcp/"):
		return "mcp"
	}
	return ""
}

// middleware takes each /api and /mcp request from its bucket, and answers
// 429 when the bucket is empty.
func (l *limiter) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		surface := limitedSurface(c.Request().URL.Path)
		if surface == "" {
			return next(c)
		}
		hash, id, live := l.caller(c)
		var wait time.Duration
		var rt Rate
		switch {
		case live && l.byToken != nil:
			wait, rt = l.byToken.take(strconv.FormatInt(id, 10)), l.byToken.rate
		case !live && l.byAddr != nil:
			wait, rt = l.byAddr.take(addressKey(c.RealIP())), l.byAddr.rate
		}
		if wait > 0 {
			return refuse(c, surface, live, rt, wait)
		}
		err := next(c)
		if live && answered(c, err) == http.StatusUnauthorized {
			l.forget(hash) // revoked or expired since it was looked up
		}
		return err
	}
}

// caller finds the live API token the request bears: the SHA-256 of its
// bearer and the token's id, with live false when it bears none (no bearer
// token, an unknown, revoked or expired one, or one that could not be
// looked up).
func (l *limiter) caller(c echo.Context) (hash [sha256.Size]byte, id int64, live bool) {
	scheme, bearer, _ := strings.Cut(strings.TrimSpace(c.Request().Header.Get(echo.HeaderAuthorization)), " ")
	bearer = strings.TrimSpace(bearer)
	if !strings.EqualFold(scheme, "Bearer") || bearer == "" {
		return hash, 0, false
	}
	hash = sha256.Sum256([]byte(bearer))
	now := l.now()
	l.mu.Lock()
	k, ok := l.known[hash]
	l.mu.Unlock()
	if ok && now.Before(k.until) {
		return hash, k.id, true
	}
	ctx := c.Request().Context()
	if l.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.timeout)
		defer cancel()
	}
	// A lookup that fails counts the request against its address: the
	// surface, which looks the token up too, answers the failure.
	tok, err := l.tokens.Authenticate(ctx, bearer)
	if err != nil {
		return hash, 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.known) >= maxKnown {
		clear(l.known)
	}
	l.known[hash] = knownToken{id: tok.ID, until: now.Add(knownTTL)}
	return hash, tok.ID, true
}

// forget drops a remembered token.
func (l *limiter) forget(hash [sha256.Size]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.known, hash)
}

// answered is the status of the answer to a request that err, if not nil,
// has not been written for yet.
func answered(c echo.Context, err error) int {
	if c.Response().Committed || err == nil {
		return c.Response().Status
	}
	if he := (*echo.HTTPError)(nil); errors.As(err, &he) {
		return he.Code
	}
	return http.StatusInternalServerError
}

// refuse answers a request whose bucket is empty: 429 with Retry-After and
// a message saying the limit and when to retry.
func refuse(c echo.Context, surface string, token bool, rt Rate, wait time.Duration) error {
	secs := retryAfterSeconds(wait)
	c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
	var msg string
	if token {
		msg = "too many requests for this token: it may send %s requests a second, in bursts of up to %d; retry after %d %s"
	} else {
		msg = "too many requests without a valid API token from this address: at most %s a second, in bursts of up to %d; retry after %d %s"
	}
	msg = fmt.Sprintf(msg, strconv.FormatFloat(rt.PerSecond, 'f', -1, 64), rt.Burst, secs, plural(secs, "second"))
	if surface == "mcp" {
		return rpcRefusal(c, http.StatusTooManyRequests, msg, map[string]int{"retry_after_seconds": secs})
	}
	return api.WriteError(c, echo.NewHTTPError(http.StatusTooManyRequests, msg))
}

// rpcCodeRefused is the JSON-RPC error code of an MCP request refused
// before any method runs, as mcpserver answers a request it cannot serve
// now: the first of the codes JSON-RPC leaves to servers.
const rpcCodeRefused = -32000

// rpcRefusal answers an MCP request with status and a JSON-RPC error
// response without an id (its request was not read), as the streamable
// HTTP transport allows for a request refused over HTTP.
func rpcRefusal(c echo.Context, status int, msg string, data any) error {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	body := struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      any      `json:"id"`
		Error   rpcError `json:"error"`
	}{JSONRPC: "2.0", Error: rpcError{Code: rpcCodeRefused, Message: msg, Data: data}}
	if c.Request().Method == http.MethodHead {
		return c.NoContent(status)
	}
	return c.JSON(status, body)
}

// retryAfterSeconds is wait as the whole seconds of a Retry-After header,
// at least 1.
func retryAfterSeconds(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// addressKey is the bucket key of a client address: the address itself, or
// its /64 for IPv6, since one client commonly holds a whole /64.
func addressKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.WithZone("").Prefix(64)
	return p.String()
}

// buckets are token buckets by key, made on first use. A bucket unused for
// as long as it takes to fill up again is dropped, which loses nothing: a
// new one starts full too.
type buckets struct {
	rate Rate
	now  func() time.Time
	idle time.Duration // how long an empty bucket takes to fill up
	max  int

	mu    sync.Mutex
	m     map[string]*bucket
	swept time.Time
}

type bucket struct {
	lim  *rate.Limiter
	used time.Time
}

// newBuckets returns buckets of r, or nil when r sets no limit.
func newBuckets(r Rate, now func() time.Time, size int) *buckets {
	if r.PerSecond <= 0 {
		return nil
	}
	r.Burst = max(r.Burst, 1)
	idle := time.Duration(float64(r.Burst) / r.PerSecond * float64(time.Second))
	return &buckets{rate: r, now: now, idle: idle, max: size, m: map[string]*bucket{}, swept: now()}
}

// take takes one request from key's bucket. It returns 0 when the request
// may go on, or else how long until the bucket holds a request again (and
// takes nothing).
func (b *buckets) take(key string) time.Duration {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	bk, ok := b.m[key]
	if !ok {
		if len(b.m) >= b.max || now.Sub(b.swept) >= sweepEvery {
			b.sweep(now)
		}
		bk = &bucket{lim: rate.NewLimiter(rate.Limit(b.rate.PerSecond), b.rate.Burst)}
		b.m[key] = bk
	}
	bk.used = now
	r := bk.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d
	}
	return 0
}

// sweep drops the buckets idle long enough to be full again and, if that
// leaves the set full, an eighth of the others.
func (b *buckets) sweep(now time.Time) {
	b.swept = now
	for k, bk := range b.m {
		if now.Sub(bk.used) >= b.idle {
			delete(b.m, k)
		}
	}
	drop := len(b.m) - b.max + b.max/8
	for k := range b.m {
		if drop <= 0 {
			break
		}
		delete(b.m, k)
		drop--
	}
}

// len is how many buckets are kept.
func (b *buckets) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}
