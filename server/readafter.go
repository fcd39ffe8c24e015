package server

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/web"
)

// Read-your-writes over hot standbys (Config.Reads). Reads made for a
// request may go to a standby (memory/reads.go), but a caller always reads
// what it wrote: an API token (over REST or MCP) or a console session that
// has just written reads from the primary, or from a standby that has
// replayed past its write, until the standbys have caught up.
//
// Each request runs under replica.WithMinLSN with the caller's last write
// position: the one this process recorded for the caller, or the one the
// request sends in the Tenure-Read-After header, whichever is later. A
// request that may write (any method but GET, HEAD and OPTIONS; MCP calls
// are all POSTs, so MCP's write tools say so themselves) reads from the
// primary throughout: what a write checks is read where it writes. When
// the engine has written for the request (replica.NoteWrite), the
// primary's WAL position after the write is recorded for the caller and
// sent back in the Tenure-Read-After header.
//
// The record is in memory, per process, keyed by the SHA-256 of the
// caller's credential (the bearer token, or the session cookie), which is
// one per token or session and needs no lookup; only callers the engine
// wrote for are recorded. An entry is dropped after MaxLag + Interval of
// the router: by then any standby in rotation has replayed the write. The
// record holds at most maxCallers entries: past that, a write raises a
// floor every caller's reads must see until the ttl passes, so that no
// caller ever misses its write, at the price of reads that could have gone
// to a standby going to the primary for a moment.
// Behind a load balancer over several Tenure processes, a client keeps
// read-your-writes by sending back the last Tenure-Read-After it received.

// ReadAfterHeader is the header that carries a WAL position, as PostgreSQL
// writes a pg_lsn ("16/B374D848"): in a response, the primary's position
// after the request's write; in a request, the position its reads must see.
// A malformed value is ignored.
const ReadAfterHeader = "Tenure-Read-After"

// currentLSNTimeout bounds the read of the primary's position after a
// write.
const currentLSNTimeout = 2 * time.Second

// maxCallers bounds the callers recorded (about 100 bytes each).
const maxCallers = 100_000

// readAfter keeps the last write position of each caller.
type readAfter struct {
	router *replica.Router
	ttl    time.Duration
	logger *slog.Logger

	mu    sync.Mutex
	last  map[[sha256.Size]byte]lastWrite
	swept time.Time
	// floor is the last write of a caller that found the record full:
	// every caller's reads see it within the ttl.
	floor lastWrite
	// limit is the most callers recorded; maxCallers but in tests.
	limit int
}

// lastWrite is a caller's last write position and when it was recorded.
type lastWrite struct {
	lsn replica.LSN
	at  time.Time
}

func newReadAfter(router *replica.Router, logger *slog.Logger) *readAfter {
	o := router.Options()
	return &readAfter{router: router, ttl: o.MaxLag + o.Interval, logger: logger, last: map[[sha256.Size]byte]lastWrite{},
		limit: maxCallers}
}

// middleware runs each request under the caller's minimum position and
// records the position after the writes made for it.
func (ra *readAfter) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		key, known := callerKey(req)
		var minLSN replica.LSN
		if known {
			minLSN = ra.lookup(key)
		}
		if lsn, err := replica.ParseLSN(strings.TrimSpace(req.Header.Get(ReadAfterHeader))); err == nil {
			minLSN = max(minLSN, lsn)
		}
		ctx := replica.WithMinLSN(req.Context(), minLSN)
		if m := req.Method; m != http.MethodGet && m != http.MethodHead && m != http.MethodOptions && limitedSurface(req.URL.Path) != "mcp" {
			replica.UsePrimary(ctx)
		}
		c.SetRequest(req.WithContext(ctx))

		// note records the position after the writes noted so far, once
		// for each new one: before the answer's headers go (for the
		// header), and after the handler (for a write made later).
		var noted int64
		var lsn replica.LSN
		note := func() {
			if n := replica.Writes(ctx); n != noted {
				noted, lsn = n, ra.current(ctx)
				if known {
					ra.record(key, lsn)
				}
			}
		}
		c.Response().Before(func() {
			note()
			if noted > 0 && lsn != replica.MaxLSN {
				c.Response().Header().Set(ReadAfterHeader, lsn.String())
			}
		})
		err := next(c)
		note()
		return err
	}
}

// callerKey identifies the caller by the SHA-256 of its credential: the
// bearer token of the API and MCP, else the console's session cookie.
// known is false for a request that bears neither.
func callerKey(req *http.Request) (key [sha256.Size]byte, known bool) {
	scheme, bearer, _ := strings.Cut(strings.TrimSpace(req.Header.Get(echo.HeaderAuthorization)), " ")
	if bearer = strings.TrimSpace(bearer); strings.EqualFold(scheme, "Bearer") && bearer != "" {
		return sha256.Sum256([]byte("token " + bearer)), true
	}
	if cookie, err := req.Cookie(web.SessionCookie); err == nil && cookie.Value != "" {
		return sha256.Sum256([]byte("session " + cookie.Value)), true
	}
	return key, false
}

// current returns the primary's position now, or replica.MaxLSN (read
// from the primary) when it cannot be read.
func (ra *readAfter) current(ctx context.Context) replica.LSN {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), currentLSNTimeout)
	defer cancel()
	lsn, err := ra.router.CurrentLSN(ctx)
	if err != nil {
		ra.logger.Warn("read_after.current_lsn", "err", err)
		return replica.MaxLSN
	}
	return lsn
}

// lookup returns the caller's last write position, or the floor when it is
// later; 0 when neither was recorded within the ttl.
func (ra *readAfter) lookup(key [sha256.Size]byte) replica.LSN {
	now := time.Now()
	ra.mu.Lock()
	defer ra.mu.Unlock()
	var lsn replica.LSN
	if w, ok := ra.last[key]; ok && now.Sub(w.at) <= ra.ttl {
		lsn = w.lsn
	}
	if now.Sub(ra.floor.at) <= ra.ttl {
		lsn = max(lsn, ra.floor.lsn)
	}
	return lsn
}

// record keeps lsn as the caller's last write position (or the later one
// recorded), and drops the entries past the ttl now and then.
func (ra *readAfter) record(key [sha256.Size]byte, lsn replica.LSN) {
	now := time.Now()
	ra.mu.Lock()
	defer ra.mu.Unlock()
	if now.Sub(ra.swept) > ra.ttl {
		for k, w := range ra.last {
			if now.Sub(w.at) > ra.ttl {
				delete(ra.last, k)
			}
		}
		ra.swept = now
	}
	w, ok := ra.last[key]
	if ok && now.Sub(w.at) <= ra.ttl {
		lsn = max(lsn, w.lsn)
	}
	if !ok && len(ra.last) >= ra.limit {
		if now.Sub(ra.floor.at) <= ra.ttl {
			lsn = max(lsn, ra.floor.lsn)
		}
		ra.floor = lastWrite{lsn: lsn, at: now}
		return
	}
	ra.last[key] = lastWrite{lsn: lsn, at: now}
}
