package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Defaults of Options.
const (
	DefaultInterval     = 500 * time.Millisecond
	DefaultCheckTimeout = time.Second
	DefaultMaxLag       = 5 * time.Second
)

// Options tune a Router. The zero value selects the defaults.
type Options struct {
	// Interval is the time between two checks of each server; default
	// 500 ms. Lag is measured to about this resolution.
	Interval time.Duration
	// CheckTimeout bounds each check; a standby that does not answer in
	// time leaves rotation. Default 1 s.
	CheckTimeout time.Duration
	// MaxLag is how far behind the primary a standby may be and stay in
	// rotation; default 5 s. It must be at least twice Interval, since a
	// standby that is fully caught up still shows up to one Interval of
	// lag (see Router).
	MaxLag time.Duration
	// Logger receives a message when a standby leaves or rejoins rotation;
	// default slog.Default().
	Logger *slog.Logger
	// OnRead, when set, is told where each run of a Read's function goes:
	// the standby's name, or "" for the primary, and whether the run is a
	// retry after a standby failed under the read. It is called before the
	// run, and must be quick (a metric's counter).
	OnRead func(standby string, retry bool)
}

// Standby is a hot standby of the primary, as given to New.
type Standby struct {
	// Name identifies the standby in logs and Status; default the pool's
	// host:port.
	Name string
	// Pool connects to the standby. The Router does not close it.
	Pool *pgxpool.Pool
}

// Router sends reads to hot standbys that are healthy and caught up enough,
// and everything else to the primary. See the package documentation.
type Router struct {
	primary  *pgxpool.Pool
	standbys []*standby
	byPool   map[*pgxpool.Pool]*standby
	opts     Options

	// next spreads picks over the standbys.
	next atomic.Uint64

	mu sync.Mutex // guards the fields below
	// history holds the primary's flushed WAL position at each successful
	// check over the last histSpan, oldest first.
	history      []sample
	histSpan     time.Duration
	systemID     int64 // the primary's; 0 until a check has read it
	primaryCheck time.Time
	primaryErr   error

	// sampled is closed once the primary has been checked for the first
	// time, so the first standby checks can measure lag.
	sampled   chan struct{}
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closed    atomic.Bool
	closeOnce sync.Once
}

// sample is the primary's flushed WAL position at a time.
type sample struct {
	at  time.Time
	lsn LSN
}

// standby is a standby's state, as its checks and Fail leave it.
type standby struct {
	name string
	addr string
	pool *pgxpool.Pool

	mu sync.Mutex // guards the fields below
	// healthy is true when the last check succeeded and no Fail came
	// after it.
	healthy bool
	// replay is the WAL position the standby had replayed at its last
	// successful check.
	replay LSN
	// freshAt is the router's time at which the primary had flushed no
	// more than replay: the standby holds everything the primary had then.
	// Zero when not known (yet).
	freshAt   time.Time
	lastCheck time.Time
	lastErr   error
	// failedAt is the time of the last Fail: a check that began before it
	// cannot bring the standby back.
	failedAt time.Time
	// lagging is true when the last check found the standby further than
	// MaxLag behind; it only serves to log the change.
	lagging bool
	// down ends when the standby stops being healthy (a check failed, or a
	// read on it did), which ends the reads running on it; a new one is
	// made when it is healthy again.
	down       context.Context
	markedDown context.CancelFunc
}

// errLeftRotation ends a read on a standby that left rotation while the
// read ran.
var errLeftRotation = errors.New("replica: the standby left rotation during the read")

// setHealthy records whether s is healthy; s.mu must be held. Going down
// ends s.down, and with it the reads on s.
func (s *standby) setHealthy(healthy bool) {
	if healthy == s.healthy {
		return
	}
	s.healthy = healthy
	if healthy {
		s.down, s.markedDown = context.WithCancel(context.Background())
	} else {
		s.markedDown()
	}
}

// downSignal returns the context that ends when s goes down, ended already
// if it is down.
func (s *standby) downSignal() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

// New returns a Router over primary and standbys and starts checking them
// in the background; Close stops that. Standbys enter rotation after their
// first check, a moment later; until then reads go to the primary.
func New(primary *pgxpool.Pool, standbys []Standby, opts Options) (*Router, error) {
	if primary == nil {
		return nil, errors.New("replica: the primary pool is nil")
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = DefaultCheckTimeout
	}
	if opts.MaxLag <= 0 {
		opts.MaxLag = DefaultMaxLag
	}
	if opts.MaxLag < 2*opts.Interval {
		return nil, fmt.Errorf("replica: MaxLag %s is less than twice Interval %s: a caught-up standby would leave rotation", opts.MaxLag, opts.Interval)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &Router{
		primary:  primary,
		byPool:   map[*pgxpool.Pool]*standby{},
		opts:     opts,
		histSpan: 2*opts.MaxLag + 2*opts.Interval,
		sampled:  make(chan struct{}),
	}
	for i, sb := range standbys {
		if sb.Pool == nil {
			return nil, fmt.Errorf("replica: standby %d has no pool", i)
		}
		if sb.Pool == primary {
			return nil, fmt.Errorf("replica: standby %d is the primary's pool", i)
		}
		if r.byPool[sb.Pool] != nil {
			return nil, fmt.Errorf("replica: standby %d repeats the pool of standby %s", i, r.byPool[sb.Pool].name)
		}
		cc := sb.Pool.Config().ConnConfig
		s := &standby{name: sb.Name, addr: net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))), pool: sb.Pool}
		s.down, s.markedDown = context.WithCancel(context.Background())
		s.markedDown() // down until its first check

		if s.name == "" {
			s.name = s.addr
		}
		r.standbys = append(r.standbys, s)
		r.byPool[sb.Pool] = s
	}

	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.wg.Add(1 + len(r.standbys))
	go r.loop(ctx, func(ctx context.Context) {
		r.checkPrimary(ctx)
		r.markSampled()
	})
	for _, s := range r.standbys {
		go func() {
			select {
			case <-r.sampled:
			case <-ctx.Done():
			}
			r.loop(ctx, func(ctx context.Context) { r.checkStandby(ctx, s) })
		}()
	}
	return r, nil
}

// Close stops the background checks and waits for them to end. It does not
// close the pools. After Close every pick is the primary.
func (r *Router) Close() {
	r.closeOnce.Do(func() {
		r.closed.Store(true)
		r.cancel()
		r.wg.Wait()
	})
}

// Primary returns the primary's pool, for writes and for reads that must
// see the latest state.
func (r *Router) Primary() *pgxpool.Pool { return r.primary }

// Pick returns the pool to read from: a standby in rotation that has
// replayed at least up to minLSN, taking turns among those that qualify,
// or the primary when none does. Pass 0 as minLSN when the caller has not
// written recently, or the LSN CurrentLSN returned after the caller's last
// write to read that write back.
//
// The standbys' replay positions are those of their last check, so a
// write just made goes to the primary until a check (within about
// Interval) has seen a standby replay it.
func (r *Router) Pick(minLSN LSN) *pgxpool.Pool {
	if s := r.pick(minLSN, nil); s != nil {
		return s.pool
	}
	return r.primary
}

// pick returns a standby that may serve a read needing minLSN, skipping
// those in skip, or nil.
func (r *Router) pick(minLSN LSN, skip []*standby) *standby {
	n := len(r.standbys)
	if n == 0 || r.closed.Load() {
		return nil
	}
	now := time.Now()
	first := int(r.next.Add(1) % uint64(n))
	for i := range n {
		s := r.standbys[(first+i)%n]
		if !slices.Contains(skip, s) && s.serves(now, minLSN, r.opts.MaxLag) {
			return s
		}
	}
	return nil
}

// serves reports whether s may serve a read needing minLSN at now.
func (s *standby) serves(now time.Time, minLSN LSN, maxLag time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	lag, known := lagAt(now, s.freshAt)
	return s.healthy && s.replay >= minLSN && known && lag <= maxLag
}

// Read runs fn, a read, on the pool Pick(minLSN) chooses, with a context
// derived from ctx that fn must use for its queries. When fn fails on a
// standby with an error that is the standby's (see Fail), fn runs again on
// another pick (another standby or, in the end, the primary), so that a
// standby's failure never reaches the caller. A run on a standby also ends
// when the standby leaves rotation because it stopped answering (its check
// timed out, or another read on it failed), so a standby that hangs with
// its connections open holds a read for about Interval + CheckTimeout, not
// until the caller's deadline; the read then runs elsewhere. (A standby
// that falls behind but answers lets the reads on it finish: what they read
// was caught up enough when they began.) fn may therefore run more than
// once, and must not write. The error of the last run is returned, and
// errors of the query itself (bad SQL, no rows) are returned at once.
func (r *Router) Read(ctx context.Context, minLSN LSN, fn func(ctx context.Context, db *pgxpool.Pool) error) error {
	var tried []*standby
	for {
		s := r.pick(minLSN, tried)
		if s == nil {
			r.observe("", len(tried) > 0)
			return fn(ctx, r.primary)
		}
		r.observe(s.name, len(tried) > 0)
		err, left := r.attempt(ctx, s, fn)
		if err == nil || ctx.Err() != nil || !(left || r.fail(s, err)) {
			return err
		}
		tried = append(tried, s)
	}
}

// attempt runs fn on standby s under a context that ends when s goes down;
// left reports that it did end so.
func (r *Router) attempt(ctx context.Context, s *standby, fn func(ctx context.Context, db *pgxpool.Pool) error) (err error, left bool) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Nothing runs unless the standby goes down during the read.
	stop := context.AfterFunc(s.downSignal(), func() { cancel(errLeftRotation) })
	defer stop()
	err = fn(actx, s.pool)
	if err != nil && errors.Is(context.Cause(actx), errLeftRotation) {
		r.opts.Logger.Debug("replica: read ended as its standby left rotation, retrying elsewhere", "standby", s.name, "err", err)
		return err, true
	}
	return err, false
}

// observe tells Options.OnRead of a run of a Read's function.
func (r *Router) observe(standby string, retry bool) {
	if r.opts.OnRead != nil {
		r.opts.OnRead(standby, retry)
	}
}

// Options returns the Router's options, defaults filled in.
func (r *Router) Options() Options { return r.opts }

// Fail reports that a read on pool failed with err, and returns whether the
// read should be retried (through Pick or Read, which will not pick this
// standby again while it is out of rotation). It returns true when pool is
// a standby and err is the standby's failure rather than the query's:
//
//   - the connection could not be made or was lost, or the server is
//     shutting down or starting up (SQLSTATE class 08, 57P01 to 57P03):
//     the standby also leaves rotation at once, until a later check
//     succeeds;
//   - the query was cancelled by a conflict with WAL replay (40001, 40P01
//     on a standby): the standby stays in rotation.
//
// Errors on the primary, errors of the query itself (bad SQL, a scan into a
// wrong type), a cancelled context and a deadline that passed during the
// query return false. (A deadline that passed while connecting counts as a
// connection failure, as with connect_timeout; Read does not call Fail once
// its own context has ended.)
func (r *Router) Fail(pool *pgxpool.Pool, err error) bool {
	s := r.byPool[pool]
	if s == nil || err == nil {
		return false
	}
	return r.fail(s, err)
}

// fail implements Fail for standby s.
func (r *Router) fail(s *standby, err error) bool {
	switch classify(err) {
	case standbyDown:
		s.mu.Lock()
		was := s.healthy
		s.setHealthy(false)
		s.lastErr = err
		s.failedAt = time.Now()
		s.mu.Unlock()
		if was {
			r.opts.Logger.Warn("replica: standby leaves rotation: a read on it failed", "standby", s.name, "err", err)
		}
		return true
	case replayConflict:
		r.opts.Logger.Debug("replica: read on standby cancelled by WAL replay, retrying elsewhere", "standby", s.name, "err", err)
		return true
	default:
		return false
	}
}

// errorKind is what an error on a standby says about the standby.
type errorKind int

const (
	// queryError: the query's own error, which another server would
	// return too.
	queryError errorKind = iota
	// standbyDown: the standby cannot serve queries.
	standbyDown
	// replayConflict: the standby cancelled the query to replay WAL.
	replayConflict
)

// classify tells what err, returned by a read on a standby, says about the
// standby.
func classify(err error) errorKind {
	if errors.Is(err, context.Canceled) {
		return queryError
	}
	// Any failure to connect: refused, reset, timed out (connect_timeout),
	// authentication, too many connections, "the database system is
	// starting up".
	if ce := (*pgconn.ConnectError)(nil); errors.As(err, &ce) {
		return standbyDown
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return queryError
	}
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection_exception
			pgErr.Code == "57P01", // admin_shutdown
			pgErr.Code == "57P02", // crash_shutdown
			pgErr.Code == "57P03": // cannot_connect_now
			return standbyDown
		case pgErr.Code == "40001", // serialization_failure: a recovery conflict on a standby
			pgErr.Code == "40P01": // deadlock_detected: a buffer pin conflict with replay
			return replayConflict
		}
		return queryError
	}
	if errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return standbyDown
	}
	if ne := net.Error(nil); errors.As(err, &ne) {
		return standbyDown
	}
	return queryError
}

// CurrentLSN returns the primary's current WAL insert position. Called
// after a write has committed, it is at or past the end of that write's
// commit record, so a later Pick(lsn) returns only servers that see the
// write. It is the insert position rather than pg_current_wal_lsn() (the
// written one) because with synchronous_commit off a commit returns before
// its record is written. At the start of a page the insert position points
// past the page's header, where nothing was written yet; the position
// returned is then the page's start, the end of the last record, which is
// as far as a standby that holds every record has replayed.
func (r *Router) CurrentLSN(ctx context.Context) (LSN, error) {
	var lsn LSN
	var block, segment int64
	err := r.primary.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn(), current_setting('wal_block_size')::bigint, "+
		"pg_size_bytes(current_setting('wal_segment_size'))").Scan(&lsn, &block, &segment)
	if err != nil {
		return 0, fmt.Errorf("replica: current WAL position: %w", err)
	}
	return recordEnd(lsn, block, segment), nil
}

// Sizes of the header at the start of each WAL page: the long one at the
// start of a segment (SizeOfXLogLongPHD), the short one on the other pages
// (SizeOfXLogShortPHD).
const (
	longPageHeader  = 40
	shortPageHeader = 24
)

// recordEnd returns the end of the last WAL record before the insert
// position lsn, given the WAL's page (block) and segment sizes: lsn itself,
// unless it is just past the header of a page (pg_current_wal_insert_lsn
// points past the header of a page nothing was written on yet), and then
// the page's start.
func recordEnd(lsn LSN, block, segment int64) LSN {
	if block <= 0 || segment <= 0 {
		return lsn
	}
	switch inSegment := uint64(lsn) % uint64(segment); {
	case inSegment == longPageHeader:
		return lsn - longPageHeader
	case inSegment >= uint64(block) && uint64(lsn)%uint64(block) == shortPageHeader:
		return lsn - shortPageHeader
	}
	return lsn
}

// loop runs check now and then every Interval until ctx ends.
func (r *Router) loop(ctx context.Context, check func(context.Context)) {
	defer r.wg.Done()
	t := time.NewTicker(r.opts.Interval)
	defer t.Stop()
	for {
		check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// markSampled closes r.sampled the first time it is called.
func (r *Router) markSampled() {
	select {
	case <-r.sampled:
	default:
		close(r.sampled)
	}
}

// checkPrimary records the primary's flushed WAL position, the furthest a
// standby can have received.
func (r *Router) checkPrimary(ctx context.Context) {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
	defer cancel()
	var lsn LSN
	var systemID int64
	err := r.primary.QueryRow(cctx, "SELECT pg_current_wal_flush_lsn(), system_identifier FROM pg_control_system()").Scan(&lsn, &systemID)
	if ctx.Err() != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil && r.primaryErr == nil:
		r.opts.Logger.Warn("replica: primary check failed; standbys age out of rotation until it succeeds", "err", err)
	case err == nil && r.primaryErr != nil:
		r.opts.Logger.Info("replica: primary check succeeds again")
	}
	r.primaryCheck, r.primaryErr = start, err
	if err != nil {
		return
	}
	r.systemID = systemID
	r.history = append(r.history, sample{at: start, lsn: lsn})
	i := 0
	for i < len(r.history)-1 && start.Sub(r.history[i].at) > r.histSpan {
		i++
	}
	r.history = slices.Delete(r.history, 0, i)
}

// freshAsOf returns the time of the latest sample of the primary at or
// before replay (the standby held everything the primary had then), or the
// zero time when every sample is past it.
func (r *Router) freshAsOf(replay LSN) (at time.Time, systemID int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.history) - 1; i >= 0; i-- {
		if r.history[i].lsn <= replay {
			return r.history[i].at, r.systemID
		}
	}
	return time.Time{}, r.systemID
}

// checkStandby checks that s answers, is a standby of the primary, and
// records how far it has replayed.
func (r *Router) checkStandby(ctx context.Context, s *standby) {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
	defer cancel()
	var inRecovery bool
	var replay *LSN
	var systemID int64
	err := s.pool.QueryRow(cctx, "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn(), system_identifier FROM pg_control_system()").
		Scan(&inRecovery, &replay, &systemID)
	if ctx.Err() != nil {
		return
	}
	var freshAt time.Time
	if err == nil && (!inRecovery || replay == nil) {
		err = errors.New("not in recovery: it is not a standby (or was promoted)")
	}
	if err == nil {
		var primaryID int64
		freshAt, primaryID = r.freshAsOf(*replay)
		if primaryID != 0 && systemID != primaryID {
			err = fmt.Errorf("it is a standby of another cluster (system identifier %d, the primary's is %d)", systemID, primaryID)
		}
	}

	s.mu.Lock()
	s.lastCheck = start
	if err != nil {
		was := s.healthy
		s.setHealthy(false)
		s.lastErr = err
		s.mu.Unlock()
		if was {
			r.opts.Logger.Warn("replica: standby leaves rotation: its check failed", "standby", s.name, "err", err)
		}
		return
	}
	if start.Before(s.failedAt) {
		// A read failed on it while this check ran: wait for the next.
		s.mu.Unlock()
		return
	}
	was, wasLagging := s.healthy, s.lagging
	s.setHealthy(true)
	s.lastErr, s.replay = nil, *replay
	if freshAt.After(s.freshAt) {
		s.freshAt = freshAt
	}
	lag, known := lagAt(time.Now(), s.freshAt)
	s.lagging = !known || lag > r.opts.MaxLag
	lagging := s.lagging
	s.mu.Unlock()
	switch {
	case !was:
		r.opts.Logger.Info("replica: standby healthy", "standby", s.name, "replay_lsn", *replay, "lag", lag, "lag_known", known)
	case lagging && !wasLagging:
		r.opts.Logger.Warn("replica: standby leaves rotation: it lags behind the primary", "standby", s.name, "lag", lag, "max_lag", r.opts.MaxLag)
	case !lagging && wasLagging:
		r.opts.Logger.Info("replica: standby caught up", "standby", s.name, "lag", lag)
	}
}

// lagAt returns how far behind the primary a standby that holds everything
// the primary had at freshAt is at now; known is false when freshAt is not
// known.
func lagAt(now, freshAt time.Time) (lag time.Duration, known bool) {
	if freshAt.IsZero() {
		return 0, false
	}
	return max(0, now.Sub(freshAt)), true
}

// Status is the state of the servers, for health pages and metrics.
type Status struct {
	Primary  PrimaryStatus
	Standbys []StandbyStatus
}

// PrimaryStatus is the primary's state as the Router's checks see it.
type PrimaryStatus struct {
	// Addr is host:port of the primary's pool.
	Addr string
	// FlushLSN is the primary's flushed WAL position at its last
	// successful check.
	FlushLSN LSN
	// LastCheck is when the last check began; LastError its error, empty
	// when it succeeded.
	LastCheck time.Time
	LastError string
}

// StandbyStatus is a standby's state.
type StandbyStatus struct {
	Name string
	Addr string
	// Healthy is true when the standby answered its last check as a
	// standby of the primary and no read has failed on it since.
	Healthy bool
	// InRotation is true when reads without a minimum LSN may go to it
	// now: healthy and lagging no more than MaxLag.
	InRotation bool
	// ReplayLSN is the WAL position it had replayed at its last successful
	// check.
	ReplayLSN LSN
	// Lag is how far behind the primary it is: the time since the primary
	// had written no more than ReplayLSN, measured by the Router's clock to
	// about Interval (a caught-up standby shows between 0 and Interval).
	// It is meaningful only when LagKnown.
	Lag      time.Duration
	LagKnown bool
	// LastCheck is when the last check began; LastError is why the
	// standby is unhealthy, empty when it is healthy.
	LastCheck time.Time
	LastError string
}

// Status returns the state of the primary and of each standby, in the order
// given to New.
func (r *Router) Status() Status {
	now := time.Now()
	cc := r.primary.Config().ConnConfig
	var st Status
	r.mu.Lock()
	st.Primary = PrimaryStatus{
		Addr:      net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))),
		LastCheck: r.primaryCheck,
		LastError: errString(r.primaryErr),
	}
	if len(r.history) > 0 {
		st.Primary.FlushLSN = r.history[len(r.history)-1].lsn
	}
	r.mu.Unlock()
	for _, s := range r.standbys {
		s.mu.Lock()
		lag, known := lagAt(now, s.freshAt)
		st.Standbys = append(st.Standbys, StandbyStatus{
			Name:       s.name,
			Addr:       s.addr,
			Healthy:    s.healthy,
			InRotation: !r.closed.Load() && s.healthy && known && lag <= r.opts.MaxLag,
			ReplayLSN:  s.replay,
			Lag:        lag,
			LagKnown:   known,
			LastCheck:  s.lastCheck,
			LastError:  errString(s.lastErr),
		})
		s.mu.Unlock()
	}
	return st
}

// errString returns err's message, or "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
