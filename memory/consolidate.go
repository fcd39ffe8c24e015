package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/replica"
)

// defaultWorkers is Options.ConsolidateWorkers when unset; MaxWorkers is
// the most a run takes.
const (
	defaultWorkers = 2
	MaxWorkers     = 16
)

// Trigger says what started a consolidation run.
type Trigger string

// The triggers a run may have.
const (
	TriggerSchedule Trigger = "schedule"
	TriggerManual   Trigger = "manual" // a reviewer's "run now"
	TriggerAPI      Trigger = "api"
	TriggerCLI      Trigger = "cli"
	TriggerTest     Trigger = "test"
)

// The consolidation phases. They keep the numbers of the pipeline they come
// from; a run executes them in the order of PhaseOrder.
const (
	PhaseCleanup = 8
	PhaseDecay   = 9
	PhasePromote = 10
	PhaseMerge   = 11
	PhaseDecide  = 12
)

// PhaseOrder is the order a run executes its phases in: cleanup comes last,
// so every row it prunes was first seen, and refused with a logged reason, by
// the promotion gate of the same run.
var PhaseOrder = [...]int{PhaseDecay, PhasePromote, PhaseMerge, PhaseDecide, PhaseCleanup}

// PhaseName is the name of a phase.
func PhaseName(phase int) string {
	switch phase {
	case PhaseCleanup:
		return "cleanup"
	case PhaseDecay:
		return "decay"
	case PhasePromote:
		return "promote"
	case PhaseMerge:
		return "merge"
	case PhaseDecide:
		return "decide"
	}
	return fmt.Sprintf("phase %d", phase)
}

// Refusal reasons, as stored in consolidation_rejections.reason.
const (
	ReasonTransient      = "transient"
	ReasonExpired        = "expired"
	ReasonDecisionLocked = "decision_locked"
)

// consolidationLock is the advisory lock key held for a whole run
// ("tenure-consolidate"), so that only one run at a time exists across every
// process that shares the database.
const consolidationLock int64 = 0x74656e757265_63

// repeatedMoodCount is how often a mood must have been seen before it goes to
// the review queue.
const repeatedMoodCount = 5

// ErrRunInProgress is returned when another run holds the consolidation
// lock (CodeBusy).
var ErrRunInProgress = &Error{Code: CodeBusy,
	Message: "another consolidation run is in progress: wait for it to finish, then try again"}

// Run is a consolidation run and its report.
type Run struct {
	ID                int64                     `json:"id"`
	Trigger           string                    `json:"trigger"`
	Status            string                    `json:"status"`
	StartedAt         time.Time                 `json:"started_at"`
	FinishedAt        *time.Time                `json:"finished_at,omitempty"`
	Phase             *int16                    `json:"phase,omitempty"`
	Report            map[string]map[string]int `json:"report"`
	TransientRejected int                       `json:"transient_rejected"`
	ExpiredRejected   int                       `json:"expired_rejected"`
	DecisionLocked    int                       `json:"decision_locked"`
	// SetAside counts the rows this run set aside after a failure of their
	// own; a run with any ends "partial".
	SetAside int    `json:"set_aside"`
	Error    string `json:"error,omitempty"`
	// Scope is the one scope the run consolidated (a run started by an API
	// token), nil for a run of every scope.
	Scope *string `json:"scope,omitempty"`
}

// The statuses of a run.
const (
	RunRunning     = "running"
	RunSucceeded   = "succeeded"
	RunPartial     = "partial" // every phase ran; some rows were set aside
	RunFailed      = "failed"
	RunCancelled   = "cancelled"
	RunInterrupted = "interrupted" // the process stopped during the run
)

// Count returns the report's count for outcome in phase.
func (r Run) Count(phase int, outcome string) int {
	return r.Report[fmt.Sprint(phase)][outcome]
}

func runFromRow(r queries.ConsolidationRun) Run {
	run := Run{
		ID: r.ID, Trigger: r.Trigger, Status: r.Status, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt,
		Phase: r.Phase, TransientRejected: int(r.TransientRejected), ExpiredRejected: int(r.ExpiredRejected),
		DecisionLocked: int(r.DecisionLocked), SetAside: int(r.SetAside), Error: deref(r.Error),
		Scope: r.Scope,
	}
	_ = json.Unmarshal(r.Report, &run.Report)
	if run.Report == nil {
		run.Report = map[string]map[string]int{}
	}
	return run
}

// GetRun returns one run.
func (s *Store) GetRun(ctx context.Context, id int64) (Run, error) {
	r, err := s.q.GetRun(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Run{}, NotFoundf("consolidation run %d not found", id)
	}
	if err != nil {
		return Run{}, fmt.Errorf("get run: %w", err)
	}
	return runFromRow(queries.ConsolidationRun(r)), nil
}

// GetScopeRun returns one run as a token of scope may see it. A run of
// another scope is not found. A run of scope is returned whole. A run of
// every scope keeps its status, times and current phase, and counts only
// scope's refusals (each phase's refusal counts and the totals): its other
// counts (facts promoted, merged, pruned, archived), its rows set aside and
// its error cover every scope and are left out.
func (s *Store) GetScopeRun(ctx context.Context, id int64, scope string) (Run, error) {
	run, err := s.GetRun(ctx, id)
	if err != nil {
		return Run{}, err
	}
	if run.Scope != nil {
		if *run.Scope != scope {
			return Run{}, NotFoundf("consolidation run %d not found", id)
		}
		return run, nil
	}
	rows, err := s.q.RunRefusalCounts(ctx, queries.RunRefusalCountsParams{RunID: id, Scope: scope})
	if err != nil {
		return Run{}, fmt.Errorf("get run: %w", err)
	}
	run.Report, run.TransientRejected, run.ExpiredRejected, run.DecisionLocked = map[string]map[string]int{}, 0, 0, 0
	run.SetAside, run.Error = 0, ""
	for _, r := range rows {
		key := fmt.Sprint(r.Phase)
		if run.Report[key] == nil {
			run.Report[key] = map[string]int{}
		}
		run.Report[key][refusalName(r.Reason)] += int(r.Refused)
		switch r.Reason {
		case ReasonTransient:
			run.TransientRejected += int(r.Refused)
		case ReasonExpired:
			run.ExpiredRejected += int(r.Refused)
		case ReasonDecisionLocked:
			run.DecisionLocked += int(r.Refused)
		}
	}
	return run, nil
}

// ListRuns returns runs newest first, below beforeID when it is not 0.
func (s *Store) ListRuns(ctx context.Context, beforeID int64, limit int32) ([]Run, error) {
	rows, err := s.q.ListRuns(ctx, queries.ListRunsParams{BeforeID: beforeID, PageSize: limit})
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	out := make([]Run, len(rows))
	for i, r := range rows {
		out[i] = runFromRow(queries.ConsolidationRun(r))
	}
	return out, nil
}

// ConsolidateOptions tune a run.
type ConsolidateOptions struct {
	Trigger Trigger
	// Scope, when set, limits the run to one scope (a run started by an API
	// token): every phase reads and changes that scope's rows and facts
	// only. Empty runs every scope. Either way the run holds the one lock,
	// so only one run of any scope exists at a time.
	Scope string
	// BatchSize is how many working rows one transaction handles; default
	// 5000 (such a batch holds its row locks for about a second at a million
	// facts).
	BatchSize int
	// Workers is how many transactions the promote phase runs at once, each
	// on the rows of its own entities; default the store's
	// (Options.ConsolidateWorkers). On a two-core server, two promote about
	// 1.5 times as many rows a second as one (BENCHMARKS.md).
	Workers int
	// minPart is the fewest rows a part of a promote batch holds (default
	// 500): smaller batches are promoted in one transaction.
	minPart int
	// PhaseDone, when set, is called after each phase with the time it took
	// (the benchmark reports where a run's time goes).
	PhaseDone func(phase int, took time.Duration)
	// Progress, when set, is called at the start of each phase and after
	// each of its batches (from the goroutine that called Consolidate).
	Progress func(ConsolidateProgress)
	// onWorkers, for tests, is called with the number of workers the
	// promote phase runs.
	onWorkers func(n int)
	// afterBatch, for tests, is called after each committed batch of a phase;
	// an error stops the run there, as a kill would.
	afterBatch func(phase int) error
}

// ConsolidateProgress is how far a run has come in one phase.
type ConsolidateProgress struct {
	Phase int
	// Done is how many working rows the phase has read so far (the promote
	// and decide phases), or how many rows it has changed (the others).
	Done int64
	// Total is how many working rows were pending when the phase began (the
	// promote and decide phases read at most these), -1 for the phases whose
	// work is not known in advance.
	Total int64
}

// Consolidate runs every phase once and returns the run's report. Each batch
// of each phase is one transaction, so a run stopped at any point (killed,
// cancelled) leaves nothing half-written, and the next run finishes the work:
// no row is promoted twice and none is lost. Only one run exists at a time
// across all processes; another caller gets ErrRunInProgress.
func (s *Store) Consolidate(ctx context.Context, opts ConsolidateOptions) (Run, error) {
	defer replica.NoteWrite(ctx) // reads.go
	if opts.Trigger == "" {
		opts.Trigger = TriggerManual
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 5000
	}
	if opts.Workers <= 0 {
		opts.Workers = s.workers
	}
	// The run holds one connection for its lock and reads ahead on another:
	// parts of a batch take what the pool has left, one at least.
	conns := int(s.pool.Config().MaxConns)
	if conns < 2 {
		return Run{}, fmt.Errorf("consolidate: the connection pool holds %d connection; a run needs at least 2 "+
			"(one for its lock, one for its batches): raise pool_max_conns in the database URL", conns)
	}
	opts.Workers = max(1, min(opts.Workers, MaxWorkers, conns-2))
	if opts.minPart <= 0 {
		opts.minPart = 500
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return Run{}, fmt.Errorf("consolidate: %w", err)
	}
	defer conn.Release()
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", consolidationLock).Scan(&locked); err != nil {
		return Run{}, fmt.Errorf("consolidate: lock: %w", err)
	}
	if !locked {
		return Run{}, ErrRunInProgress
	}
	defer func() {
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(unlockCtx, "SELECT pg_advisory_unlock($1)", consolidationLock); err != nil {
			// A connection that cannot unlock is closed; that frees the lock.
			conn.Conn().Close(unlockCtx)
		}
	}()

	now := s.Now()
	var scope *string
	if opts.Scope != "" {
		scope = &opts.Scope
	}
	id, err := s.q.StartRun(ctx, queries.StartRunParams{Trigger: string(opts.Trigger), StartedAt: now, Scope: scope})
	if err != nil {
		return Run{}, fmt.Errorf("consolidate: start: %w", err)
	}
	r := &runner{s: s, opts: opts, id: id, scope: scope, now: now, log: s.logger.With("run_id", id)}
	if interrupted, err := s.q.InterruptRuns(ctx, queries.InterruptRunsParams{Now: now, CurrentID: id}); err != nil {
		return r.fail(ctx, err)
	} else if len(interrupted) > 0 {
		r.log.Warn("consolidation.interrupted_runs", "runs", interrupted)
	}
	if r.since, err = s.q.LastSucceededRunID(ctx, id); err != nil {
		return r.fail(ctx, err)
	}
	// A run of one scope that finished every phase since then merged its
	// scope's rows up to it: that scope's window starts after it.
	covered, err := s.q.ScopedRunsSince(ctx, queries.ScopedRunsSinceParams{SinceID: r.since, BeforeID: id})
	if err != nil {
		return r.fail(ctx, err)
	}
	r.covered = coveredRuns{scopes: make([]string, len(covered)), runIDs: make([]int64, len(covered))}
	for i, c := range covered {
		r.covered.scopes[i], r.covered.runIDs[i] = c.Scope, c.RunID
	}
	if err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM consolidation_faults)").Scan(&r.faults); err != nil {
		return r.fail(ctx, err)
	}
	r.log.Info("consolidation.start", "trigger", opts.Trigger, "scope", opts.Scope, "workers", opts.Workers)
	for _, phase := range PhaseOrder {
		if err := ctx.Err(); err != nil {
			return r.fail(ctx, err)
		}
		began := time.Now()
		if err := r.phase(ctx, phase); err != nil {
			return r.fail(ctx, fmt.Errorf("consolidate: %s: %w", PhaseName(phase), err))
		}
		if opts.PhaseDone != nil {
			opts.PhaseDone(phase, time.Since(began))
		}
	}
	finished := s.Now()
	status, note := RunSucceeded, (*string)(nil)
	if r.setAside > 0 {
		status = RunPartial
		note = pointerTo(fmt.Sprintf("%d working rows were set aside after a failure of their own; "+
			"the working-memory page lists each with its error, and later runs retry them", r.setAside))
	}
	if err := s.q.FinishRun(ctx, queries.FinishRunParams{ID: id, Status: status, FinishedAt: finished, Error: note}); err != nil {
		return r.fail(ctx, err)
	}
	run, err := s.GetRun(ctx, id)
	if err != nil {
		return Run{}, err
	}
	r.log.Info("consolidation.done", "duration", finished.Sub(now), "report", run.Report,
		"transient_rejected", run.TransientRejected, "expired_rejected", run.ExpiredRejected,
		"decision_locked", run.DecisionLocked)
	// The facts promoted changed the document frequencies recall reads;
	// folding them now keeps the next recall's sums short. A failure loses
	// nothing: the decay tick folds again.
	if err := s.FoldRecallTerms(ctx); err != nil {
		r.log.Warn("consolidation.fold_recall_terms", "error", err.Error())
	}
	// The facts promoted sit on heap pages no vacuum has seen, and recall
	// walks the newest facts of a scope through an index-only scan
	// (entity_facts_recall_recent_idx) that must visit the heap for every
	// fact on such a page: after 100,000 promoted at a million facts, recall
	// took 12.3 ms at p50 rather than 7.8 until autovacuum came by. A vacuum
	// without index cleanup marks those pages all-visible (0.4 s for that
	// run); the index cleanup of archived facts' entries is left to
	// autovacuum, and a vacuum already running makes this one give way.
	if promotedFacts(run) > 0 {
		if err := s.vacuumFacts(ctx); err != nil {
			r.log.Warn("consolidation.vacuum_facts", "error", err.Error())
		}
	}
	return run, nil
}

// vacuumFacts marks the pages of entity_facts all-visible, giving way to a
// vacuum already running (SKIP_LOCKED). Giving way is expected, so its
// "skipping vacuum" warning is not sent to this connection
// (client_min_messages), where it would read as a fault.
func (s *Store) vacuumFacts(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET client_min_messages = error`); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, `VACUUM (INDEX_CLEANUP OFF, SKIP_LOCKED) entity_facts`)
	if _, rerr := conn.Exec(context.WithoutCancel(ctx), `RESET client_min_messages`); rerr != nil {
		// A connection that kept the setting is not given back.
		conn.Hijack().Close(context.WithoutCancel(ctx))
	}
	return err
}

// promotedFacts is how many facts run wrote in all its phases.
func promotedFacts(run Run) int {
	n := 0
	for _, counts := range run.Report {
		n += counts["promoted"]
	}
	return n
}

// runner is the state of one run.
type runner struct {
	s     *Store
	opts  ConsolidateOptions
	id    int64
	scope *string // the one scope the run reads, nil for every scope
	// since is the last run of every scope that finished: the merge phase
	// looks at rows promoted after it, but for the rows of each scope that
	// a run of its own, covered, finished later than that.
	since   int64
	covered coveredRuns
	now     time.Time
	log     *slog.Logger
	// mu guards setAside, faults, read and changed: the parts of a promote
	// batch run at once.
	mu sync.Mutex
	// setAside counts the rows set aside by this run; faults says whether
	// any row is set aside at all, so that a batch clears its rows' earlier
	// failures only when some may exist.
	setAside int
	faults   bool
	// plans keeps the plans of the current batch's rows.
	plans planCache
	// read and changed count the working rows the current phase has read
	// and the rows its batches changed, for opts.Progress.
	read, changed int64
}

// coveredRuns pairs each scope whose own run finished every phase after
// runner.since with the newest such run (queries.ScopedRunsSince).
type coveredRuns struct {
	scopes []string
	runIDs []int64
}

// pending is how many working rows of the run's scope (or of every scope)
// are not promoted yet, from the counts kept beside memory_nodes.
func (r *runner) pending(ctx context.Context) (int64, error) {
	counts, err := r.s.pendingNodeCounts(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, c := range counts {
		if r.scope == nil || c.Scope == *r.scope {
			n += c.Rows
		}
	}
	return n, nil
}

// fail records the run as failed (or cancelled) and returns err.
func (r *runner) fail(ctx context.Context, err error) (Run, error) {
	status := RunFailed
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		status = RunCancelled
	}
	msg := err.Error()
	finishCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if ferr := r.s.q.FinishRun(finishCtx, queries.FinishRunParams{
		ID: r.id, Status: status, FinishedAt: r.s.Now(), Error: &msg,
	}); ferr != nil {
		r.log.Error("consolidation.finish", "err", ferr)
	}
	r.log.Error("consolidation.failed", "status", status, "err", err)
	run, gerr := r.s.GetRun(finishCtx, r.id)
	if gerr != nil {
		return Run{ID: r.id, Status: status, Error: msg}, err
	}
	return run, err
}

// refusal is one refused row, logged after its batch commits.
type refusal struct {
	phase      int
	nodeID     int64
	scope      string
	reason     string
	decisionID int64
}

// batchResult is what one batch changed.
type batchResult struct {
	counts   map[string]int
	refusals []refusal
	faults   []fault
	denials  []deniedRow // the denials applied, logged after the batch commits
	done     bool        // the phase has no more work
}

// fault is one row set aside by a batch, logged after the batch commits.
type fault struct {
	nodeID   int64
	scope    string
	attempts int
	held     bool
	err      string
}

// merge adds what another part of the same batch did.
func (b *batchResult) merge(o batchResult) {
	for k, v := range o.counts {
		b.add(k, v)
	}
	b.refusals = append(b.refusals, o.refusals...)
	b.faults = append(b.faults, o.faults...)
	b.denials = append(b.denials, o.denials...)
}

func (b *batchResult) add(outcome string, n int) {
	if n == 0 {
		return
	}
	if b.counts == nil {
		b.counts = map[string]int{}
	}
	b.counts[outcome] += n
}

// batch runs fn in one transaction together with the run's progress, so the
// report never counts work that was rolled back, then logs the refusals. The
// counts are added to those of the run's row as committed, under its row
// lock, so that the parts of a batch that run at once (promotePhase) each add
// theirs.
func (r *runner) batch(ctx context.Context, phase int, fn func(q *queries.Queries, tx pgx.Tx) (batchResult, error)) (bool, error) {
	var res batchResult
	err := r.s.tx(ctx, func(q *queries.Queries, tx pgx.Tx) error {
		var err error
		if res, err = fn(q, tx); err != nil {
			return err
		}
		cur, err := q.LockRunProgress(ctx, r.id)
		if err != nil {
			return err
		}
		report := map[string]map[string]int{}
		if len(cur.Report) > 0 {
			if err := json.Unmarshal(cur.Report, &report); err != nil {
				return fmt.Errorf("run report: %w", err)
			}
		}
		key := fmt.Sprint(phase)
		if report[key] == nil {
			report[key] = map[string]int{}
		}
		for k, v := range res.counts {
			report[key][k] += v
		}
		totals := [3]int32{cur.TransientRejected, cur.ExpiredRejected, cur.DecisionLocked}
		for _, ref := range res.refusals {
			switch ref.reason {
			case ReasonTransient:
				totals[0]++
			case ReasonExpired:
				totals[1]++
			case ReasonDecisionLocked:
				totals[2]++
			}
		}
		raw, err := json.Marshal(report)
		if err != nil {
			return err
		}
		return q.UpdateRunProgress(ctx, queries.UpdateRunProgressParams{
			ID: r.id, Phase: pointerTo(int16(phase)), Report: raw, TransientRejected: totals[0],
			ExpiredRejected: totals[1], DecisionLocked: totals[2],
			SetAside: cur.SetAside + int32(len(res.faults)),
		})
	})
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	for _, v := range res.counts {
		r.changed += int64(v)
	}
	r.setAside += len(res.faults)
	if len(res.faults) > 0 {
		r.faults = true
	}
	r.mu.Unlock()
	for _, f := range res.faults {
		r.log.Warn("consolidation.set_aside", "phase", phase, "node_id", f.nodeID, "scope", f.scope,
			"attempts", f.attempts, "held", f.held, "err", f.err)
	}
	for _, ref := range res.refusals {
		attrs := []any{"phase", ref.phase, "node_id", ref.nodeID, "scope", ref.scope, "reason", ref.reason}
		if ref.decisionID != 0 {
			attrs = append(attrs, "decision_id", ref.decisionID)
		}
		r.log.Info("consolidation."+refusalName(ref.reason), attrs...)
		r.s.metrics.Rejected(ref.phase, ref.reason)
	}
	for _, d := range res.denials {
		r.log.Info("consolidation.denied", "phase", phase, "node_id", d.nodeID, "scope", d.scope, "key", d.key,
			"value", d.value, "record_fact_id", d.record, "retired_fact_ids", d.retired)
	}
	if r.opts.afterBatch != nil {
		if err := r.opts.afterBatch(phase); err != nil {
			return false, err
		}
	}
	return res.done, nil
}

// hasFaults says whether some row may be set aside (see runner.faults).
func (r *runner) hasFaults() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.faults
}

// refusalName is the log message suffix and counter name of a reason.
func refusalName(reason string) string {
	switch reason {
	case ReasonTransient:
		return "transient_rejected"
	case ReasonExpired:
		return "expired_rejected"
	}
	return reason
}

func (r *runner) phase(ctx context.Context, phase int) error {
	var step func(context.Context, *queries.Queries, pgx.Tx, *int64) (batchResult, error)
	switch phase {
	case PhaseDecay:
		step = r.decayStep
	case PhasePromote:
		return r.promotePhase(ctx)
	case PhaseMerge:
		step = r.mergeStep
	case PhaseDecide:
		step = r.decideStep
	case PhaseCleanup:
		step = r.cleanupStep
	default:
		return fmt.Errorf("unknown phase %d", phase)
	}
	var cursor int64
	defer r.plans.wait()
	progress := r.progress(ctx, phase)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.plans.reset()
		done, err := r.batch(ctx, phase, func(q *queries.Queries, tx pgx.Tx) (batchResult, error) {
			return step(ctx, q, tx, &cursor)
		})
		if err != nil {
			return err
		}
		progress(done)
		if done {
			return nil
		}
	}
}

// progress reports the start of phase to opts.Progress and returns what
// reports each of its batches (done: the phase's last).
func (r *runner) progress(ctx context.Context, phase int) func(done bool) {
	if r.opts.Progress == nil {
		return func(bool) {}
	}
	total := int64(-1)
	if phase == PhasePromote || phase == PhaseDecide {
		// The pending counts kept beside memory_nodes, not a count of it.
		if n, err := r.pending(ctx); err == nil {
			total = n
		}
	}
	r.mu.Lock()
	r.read, r.changed = 0, 0
	r.mu.Unlock()
	r.opts.Progress(ConsolidateProgress{Phase: phase, Total: total})
	return func(last bool) {
		r.mu.Lock()
		done := r.changed
		if total >= 0 {
			done = r.read
		}
		r.mu.Unlock()
		if total >= 0 {
			if last {
				done = total
			}
		}
		r.opts.Progress(ConsolidateProgress{Phase: phase, Done: done, Total: total})
	}
}

// decayStep archives one batch of facts past forget_at (phase 9).
func (r *runner) decayStep(ctx context.Context, q *queries.Queries, _ pgx.Tx, _ *int64) (batchResult, error) {
	rows, err := q.ArchiveDueFacts(ctx, queries.ArchiveDueFactsParams{Now: r.now, Scope: r.scope, BatchSize: decayBatch})
	if err != nil {
		return batchResult{}, err
	}
	var res batchResult
	res.add("archived", len(rows))
	res.done = len(rows) < decayBatch
	if len(rows) > 0 {
		ids := make([]int64, len(rows))
		for i, row := range rows {
			ids[i] = row.ID
		}
		if err := r.s.audit(ctx, q, auditEntry{
			actor: System("consolidation"), action: "fact.decay", targetType: "facts", targetID: fmt.Sprint(ids[0]),
			after:  map[string]any{"status": "archived", "facts": ids, "run_id": r.id},
			reason: "effective confidence fell below the floor, or the fact expired",
		}); err != nil {
			return res, err
		}
		r.s.metrics.Archived(len(rows))
	}
	return res, nil
}

// planWith returns the plan of each row, from known when the row is as it
// was read, and fails when the classifier failed on one of them.
func planWith(rows []queries.PeekPendingNodesRow, known map[int64]cachedPlan, now time.Time) ([]plan, error) {
	plans := make([]plan, len(rows))
	var todo []queries.PeekPendingNodesRow
	var at []int
	for i, row := range rows {
		if cp, ok := known[row.ID]; ok && cp.of(row) {
			plans[i] = cp.plan
			continue
		}
		todo = append(todo, row)
		at = append(at, i)
	}
	for j, p := range planNodes(todo, now) {
		plans[at[j]] = p
	}
	return plansOrErr(plans)
}

// plan classifies rows, and fails when the classifier failed on one of them.
func (r *runner) plan(rows []queries.PeekPendingNodesRow) ([]plan, error) {
	return plansOrErr(r.plans.plan(rows, r.now))
}

// plansOrErr returns plans, or the error of the first row the classifier
// failed on.
func plansOrErr(plans []plan) ([]plan, error) {
	for _, p := range plans {
		if p.err != nil {
			return nil, p.err
		}
	}
	return plans, nil
}

func nodeIDs(rows []queries.PeekPendingNodesRow) []int64 {
	ids := make([]int64, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	return ids
}

// rejectGated logs a refusal for each transient or expired row among ids.
func (r *runner) rejectGated(ctx context.Context, q *queries.Queries, phase int, ids []int64, res *batchResult) error {
	rejected, err := q.RejectGatedNodes(ctx, queries.RejectGatedNodesParams{
		RunID: r.id, Phase: int16(phase), Now: r.now, NodeIds: ids,
	})
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	for _, rj := range rejected {
		res.add(refusalName(rj.Reason), 1)
		res.refusals = append(res.refusals, refusal{phase: phase, nodeID: deref(rj.NodeID), scope: rj.Scope, reason: rj.Reason})
	}
	return nil
}

// targets resolves the entity of each plan and refuses, in SQL, the rows
// that would write on the scope, entity and key of a locked decision: each
// refused row leaves a rejection, a tombstone and a review item. It returns
// the plans left and, in the same order, their entity ids; the entities not
// seen yet are created in one statement.
func (r *runner) targets(ctx context.Context, q *queries.Queries, phase int, plans []plan, res *batchResult) ([]plan, []int64, error) {
	if len(plans) == 0 {
		return nil, nil, nil
	}
	type name struct{ scope, name string }
	type target struct{ scope, name, key string }
	// One entity however it is spelled, named by an alias, a relation or a
	// lower-case first word (entities.go): one look-up for the batch.
	if err := planEntities(ctx, q, plans); err != nil {
		return nil, nil, err
	}
	scopes, names, keys := make([]string, len(plans)), make([]string, len(plans)), make([]string, len(plans))
	for i, p := range plans {
		scopes[i], names[i], keys[i] = p.scope, p.entity, p.key
	}
	found, err := q.ResolveFactTargets(ctx, queries.ResolveFactTargetsParams{Scopes: scopes, Names: names, Keys: keys})
	if err != nil {
		return nil, nil, fmt.Errorf("decision lock: %w", err)
	}
	entity := make(map[name]int64, len(found))
	lock := map[target]int64{}
	for _, t := range found {
		entity[name{t.Scope, t.Name}] = t.EntityID
		if t.DecisionID != 0 {
			lock[target{t.Scope, t.Name, t.Key}] = t.DecisionID
		}
	}
	topic, err := lockedTopics(ctx, q, plans, func(p plan) bool {
		_, ok := lock[target{p.scope, p.entity, p.key}]
		return ok
	})
	if err != nil {
		return nil, nil, err
	}
	if len(lock) > 0 || len(topic) > 0 {
		var nodes, decisions []int64
		for _, p := range plans {
			if d, ok := lock[target{p.scope, p.entity, p.key}]; ok && p.key != "" {
				nodes, decisions = append(nodes, p.nodeID), append(decisions, d)
			} else if d, ok := topic[p.nodeID]; ok {
				nodes, decisions = append(nodes, p.nodeID), append(decisions, d)
			}
		}
		refused, err := r.rejectLocked(ctx, q, phase, nodes, decisions, res)
		if err != nil {
			return nil, nil, err
		}
		plans = slices.DeleteFunc(slices.Clone(plans), func(p plan) bool { return refused[p.nodeID] })
	}
	var missing []plan
	seen := map[name]bool{}
	for _, p := range plans {
		n := name{p.scope, p.entity}
		if _, ok := entity[n]; !ok && !seen[n] {
			seen[n] = true
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		ids, err := r.ensureEntities(ctx, q, missing)
		if err != nil {
			return nil, nil, err
		}
		for i, p := range missing {
			entity[name{p.scope, p.entity}] = ids[i]
		}
	}
	ids := make([]int64, len(plans))
	for i, p := range plans {
		ids[i] = entity[name{p.scope, p.entity}]
	}
	return plans, ids, nil
}

// rejectLocked refuses the given rows, each on the key of the locked decision
// beside it, and returns the ids it refused: a row whose refusal is logged
// already is not refused again.
func (r *runner) rejectLocked(ctx context.Context, q *queries.Queries, phase int, nodes, decisions []int64, res *batchResult) (map[int64]bool, error) {
	locked, err := q.RejectLockedNodes(ctx, queries.RejectLockedNodesParams{
		RunID: r.id, Phase: int16(phase), Now: r.now, NodeIds: nodes, DecisionIds: decisions,
	})
	if err != nil {
		return nil, fmt.Errorf("decision lock: %w", err)
	}
	if len(locked) == 0 {
		return nil, nil
	}
	refused := make(map[int64]bool, len(locked))
	nodeIDs := make([]int64, 0, len(locked))
	rejectionIDs := make([]int64, 0, len(locked))
	for _, l := range locked {
		id := deref(l.NodeID)
		refused[id] = true
		nodeIDs = append(nodeIDs, id)
		rejectionIDs = append(rejectionIDs, l.ID)
		res.add("decision_locked", 1)
		res.refusals = append(res.refusals, refusal{phase: phase, nodeID: id, scope: l.Scope,
			reason: ReasonDecisionLocked, decisionID: deref(l.DecisionID)})
	}
	if _, err := q.TombstoneNodes(ctx, queries.TombstoneNodesParams{
		NodeIds: nodeIDs, RunID: r.id, Reason: ReasonDecisionLocked, Now: r.now, PurgeAfter: r.now.Add(tombstoneKeep),
	}); err != nil {
		return nil, fmt.Errorf("tombstone locked rows: %w", err)
	}
	if err := q.QueueDecisionRefusals(ctx, queries.QueueDecisionRefusalsParams{Now: r.now, RejectionIds: rejectionIDs}); err != nil {
		return nil, fmt.Errorf("queue refusals: %w", err)
	}
	return refused, nil
}

// tombstoneKeep is how long a pruned row stays restorable.
const tombstoneKeep = 30 * 24 * time.Hour

// promotedKeep is how long a promoted working row stays in working memory,
// beside the fact it became.
const promotedKeep = 7 * 24 * time.Hour

// promotePhase is phase 10: batch after batch of pending rows, the gate, the
// decision lock, then facts or reinforcements for the durable rows that are
// not decisions. The phase reads each batch without locks, classifies it,
// and splits it by entity among its workers (see promoteWorkers and shard);
// each worker takes its parts in order, each part one transaction that locks
// its rows, so that the workers' transactions run at once. A row's worker
// follows its entity for the whole phase: rows on one entity (so on one
// key) are promoted by one worker, in order, so that of two rows on one key
// the later one is the newer fact, as with one worker. Workers touch
// disjoint entities, facts and decisions, and add their counts to the run's
// under its row lock, last, so they never wait on each other before that.
// A failure confined to some rows sets them aside (isolate) within their
// part; any other stops the phase.
func (r *runner) promotePhase(ctx context.Context) error {
	defer r.plans.wait()
	progress := r.progress(ctx, PhasePromote)
	workers := r.promoteWorkers(ctx)
	if r.opts.onWorkers != nil {
		r.opts.onWorkers(workers)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	queues := make([]chan promotePart, workers)
	var wg sync.WaitGroup
	for i := range queues {
		queues[i] = make(chan promotePart, 1)
		wg.Go(func() {
			for part := range queues[i] {
				if ctx.Err() != nil {
					continue // drain: the phase is stopping
				}
				if _, err := r.batch(ctx, PhasePromote, func(q *queries.Queries, tx pgx.Tx) (batchResult, error) {
					return r.promoteLocked(ctx, q, tx, part)
				}); err != nil {
					cancel(err)
				}
			}
		})
	}
	err := r.promoteRead(ctx, queues, progress)
	for _, q := range queues {
		close(q)
	}
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil {
		return cause // a worker's error, the first, or the run's cancellation
	}
	if err != nil {
		return err
	}
	progress(true)
	return nil
}

// promotePart is the rows of a batch that one worker promotes in one
// transaction, with the plans they were classified with when read.
type promotePart struct {
	rows  []queries.PeekPendingNodesRow
	plans map[int64]cachedPlan
	// relationsLearned: the relations the rows name are aliases already.
	relationsLearned bool
}

// promoteRead reads the pending rows batch by batch and hands each worker
// its part of each.
func (r *runner) promoteRead(ctx context.Context, queues []chan promotePart, progress func(bool)) error {
	var cursor int64
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		r.plans.reset()
		rows, err := r.s.q.PeekPendingNodes(ctx, queries.PeekPendingNodesParams{
			AfterID: cursor, Scope: r.scope, Phase: PhasePromote, CheckFaults: r.hasFaults(), Now: r.now,
			BatchSize: int32(r.opts.BatchSize),
		})
		if err != nil {
			return err
		}
		done := len(rows) < r.opts.BatchSize
		if len(rows) == 0 {
			if first {
				// Nothing to do: the run still records that the phase ran.
				_, err := r.batch(ctx, PhasePromote, func(*queries.Queries, pgx.Tx) (batchResult, error) {
					return batchResult{}, nil
				})
				return err
			}
			return nil
		}
		cursor = rows[len(rows)-1].ID
		r.mu.Lock()
		r.read += int64(len(rows))
		r.mu.Unlock()
		if !done {
			r.prefetch(ctx, cursor)
		}
		// The relations the batch names become aliases before any part
		// of it resolves its entities (relations.go).
		relations, err := r.learnRelations(ctx, rows)
		if err != nil {
			return err
		}
		for i, part := range r.shardWith(rows, len(queues), relations) {
			if len(part.rows) == 0 {
				continue
			}
			select {
			case queues[i] <- part:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		if done {
			return nil
		}
		progress(false)
	}
}

// promoteWorkers is how many workers the promote phase runs: opts.Workers,
// but no more than leave each minPart of the rows pending when it starts.
func (r *runner) promoteWorkers(ctx context.Context) int {
	if r.opts.Workers <= 1 {
		return 1
	}
	pending, err := r.pending(ctx)
	if err != nil {
		return 1
	}
	return int(max(1, min(int64(r.opts.Workers), pending/int64(max(r.opts.minPart, 1)))))
}

// promoteLocked locks the rows of a part that are still pending, skipping
// those another transaction holds, and promotes them.
func (r *runner) promoteLocked(ctx context.Context, q *queries.Queries, tx pgx.Tx, part promotePart) (batchResult, error) {
	locked, err := q.LockPendingNodes(ctx, nodeIDs(part.rows))
	if err != nil || len(locked) == 0 {
		return batchResult{}, err
	}
	rows := make([]queries.PeekPendingNodesRow, len(locked))
	for i, row := range locked {
		rows[i] = queries.PeekPendingNodesRow(row)
	}
	return r.isolate(ctx, tx, PhasePromote, rows, func(ctx context.Context, q *queries.Queries, rows []queries.PeekPendingNodesRow) (batchResult, error) {
		return r.promoteRows(ctx, q, rows, part.plans, part.relationsLearned)
	})
}

// shard splits a batch among n workers. A durable row's worker follows its
// entity (scope and name, as its plan resolves it); any other row's (refused
// at the gate, left to the decide phase, or one the classifier failed on)
// follows its id. Each part keeps the batch's order and carries the plans
// of its durable rows.
func (r *runner) shard(rows []queries.PeekPendingNodesRow, n int) []promotePart {
	return r.shardWith(rows, n, nil)
}

// shardWith is shard for a batch whose relations are learned already
// (learnRelations, which gives the entities they name, relations): a row
// about "my wife" follows Maria's worker. With relations nil, each worker
// learns those of its own part.
func (r *runner) shardWith(rows []queries.PeekPendingNodesRow, n int, relations map[relationKey]string) []promotePart {
	var durable []queries.PeekPendingNodesRow
	for _, row := range rows {
		if Marker(row.Marker) == MarkerDurable {
			durable = append(durable, row)
		}
	}
	plans := r.plans.plan(durable, r.now)
	known := make(map[int64]cachedPlan, len(durable))
	for i, row := range durable {
		known[row.ID] = cachedPlan{scope: row.Scope, content: row.Content, properties: row.Properties, plan: plans[i]}
	}
	parts := make([]promotePart, n)
	for i := range parts {
		parts[i].plans = map[int64]cachedPlan{}
		parts[i].relationsLearned = relations != nil
	}
	for _, row := range rows {
		h := uint64(row.ID)
		cp, ok := known[row.ID]
		if ok && cp.plan.err == nil && !cp.plan.decision {
			f := fnv.New64a()
			entity := cp.plan.entity
			if e, ok := relations[relationKey{cp.plan.scope, cp.plan.relation}]; ok && cp.plan.relation != "" {
				entity = e
			}
			f.Write([]byte(cp.plan.scope))
			f.Write([]byte{0})
			f.Write([]byte(entity))
			h = f.Sum64()
		}
		part := &parts[h%uint64(n)]
		part.rows = append(part.rows, row)
		if ok {
			part.plans[row.ID] = cp
		}
	}
	return parts
}

// promoteRows is phase 10 for some rows of a batch; learned says whether
// the relations they name are aliases already (learnRelations).
func (r *runner) promoteRows(ctx context.Context, q *queries.Queries, rows []queries.PeekPendingNodesRow, known map[int64]cachedPlan, learned bool) (batchResult, error) {
	var res batchResult
	if !learned {
		if err := r.learnNamings(ctx, q, namings(rows)); err != nil {
			return res, err
		}
	}
	// Every pending row passes this phase's gate once: a transient or
	// expired row is refused, in SQL, whatever it says, so only durable rows
	// are classified.
	var gated []int64
	durable := make([]queries.PeekPendingNodesRow, 0, len(rows))
	for _, row := range rows {
		if Marker(row.Marker) == MarkerDurable {
			durable = append(durable, row)
		} else {
			gated = append(gated, row.ID)
		}
	}
	plans, err := planWith(durable, known, r.now)
	if err != nil {
		return res, err
	}
	if len(gated) > 0 {
		if err := r.rejectGated(ctx, q, PhasePromote, gated, &res); err != nil {
			return res, err
		}
	}
	facts := make([]plan, 0, len(plans))
	for _, p := range plans {
		if !p.decision {
			facts = append(facts, p)
		}
	}
	facts, entities, err := r.targets(ctx, q, PhasePromote, facts, &res)
	if err != nil {
		return res, err
	}
	byID := make(map[int64]*queries.PeekPendingNodesRow, len(durable))
	for i := range durable {
		byID[durable[i].ID] = &durable[i]
	}
	// A row past its explicit ttl is left to cleanup, not promoted.
	kept := make([]int, 0, len(facts))
	for i, p := range facts {
		row := byID[p.nodeID]
		if row.TtlSeconds != nil && !row.CreatedAt.Add(time.Duration(*row.TtlSeconds)*time.Second).After(r.now) {
			continue
		}
		kept = append(kept, i)
	}
	// A denial retires what it denies instead of becoming a fact, after the
	// batch's facts, so that a fact observed before it in the batch is
	// retired too (retract.go).
	var denials []denial
	kept = slices.DeleteFunc(kept, func(i int) bool {
		if facts[i].denies != "" {
			denials = append(denials, facts[i].denial(byID[facts[i].nodeID], entities[i]))
		}
		return facts[i].denies != ""
	})
	for _, round := range promoteRounds(facts, entities, byID, kept) {
		n := len(round)
		params := queries.PromoteNodesParams{Now: r.now, RunID: r.id,
			NodeIds: make([]int64, 0, n), EntityIds: make([]int64, 0, n), Scopes: make([]string, 0, n),
			Contents: make([]string, 0, n), Importances: make([]float64, 0, n), Keys: make([]string, 0, n),
			Durabilities: make([]string, 0, n), Categories: make([]string, 0, n), Confidences: make([]float64, 0, n),
			Deadlines: make([]string, 0, n), ObservedAts: make([]time.Time, 0, n)}
		for _, i := range round {
			p, row := facts[i], byID[facts[i].nodeID]
			params.NodeIds = append(params.NodeIds, p.nodeID)
			params.EntityIds = append(params.EntityIds, entities[i])
			params.Scopes = append(params.Scopes, row.Scope)
			params.Contents = append(params.Contents, row.Content)
			params.Importances = append(params.Importances, row.Importance)
			params.Keys = append(params.Keys, p.key)
			params.Durabilities = append(params.Durabilities, string(p.durability))
			params.Categories = append(params.Categories, p.category)
			params.Confidences = append(params.Confidences, p.confidence)
			params.Deadlines = append(params.Deadlines, p.deadline)
			params.ObservedAts = append(params.ObservedAts, row.ObservedAt)
		}
		out, err := q.PromoteNodes(ctx, params)
		if err != nil {
			return res, fmt.Errorf("promote: %w", err)
		}
		res.add("promoted", int(out.Promoted))
		res.add("reinforced", int(out.Reinforced))
		r.s.metrics.Promoted(int(out.Promoted + out.Reinforced))
		superseded, err := r.s.supersedeRun(ctx, q, System("consolidation"), r.now, slices.Concat(out.InsertedIds, out.ReinforcedIds), r.id)
		if err != nil {
			return res, err
		}
		res.add("superseded", len(superseded))
	}
	if err := r.deny(ctx, q, denials, &res); err != nil {
		return res, err
	}
	return res, nil
}

// maxRounds bounds the statements one batch's promotion takes.
const maxRounds = 256

// promoteRounds splits the rows to promote (the indexes kept of facts) into
// rounds, each one statement, so that rows stating the same fact (same
// entity, key and text) are promoted one after the other, as if each had
// come in a batch of its own: the later one then reinforces the fact the
// earlier one made, or makes a new one once a different value superseded it
// or it was forgotten by then, instead of both becoming facts for the merge
// phase to fold without regard to their order. The rows are walked in the
// order they were observed (then pushed); a row goes in the round of the
// last row on its entity and key, or in the next one when a row stating the
// same fact is already there, so that rows on one key keep their order
// across rounds. A batch without such rows is one round. Past maxRounds,
// the rest goes in the last round together: rows on one fact there
// reinforce it as of the latest of them (PromoteNodes), so that a batch of
// thousands of copies of one row costs a few statements, not one each.
func promoteRounds(facts []plan, entities []int64, byID map[int64]*queries.PeekPendingNodesRow, kept []int) [][]int {
	if len(kept) == 0 {
		return nil
	}
	type attribute struct {
		entity int64
		key    string
	}
	type same struct {
		attribute
		text string
	}
	sameOf := func(i int) same {
		return same{attribute{entities[i], facts[i].key}, strings.ToLower(strings.TrimSpace(byID[facts[i].nodeID].Content))}
	}
	seen := make(map[same]bool, len(kept))
	repeated := false
	for _, i := range kept {
		k := sameOf(i)
		repeated = repeated || seen[k]
		seen[k] = true
	}
	if !repeated {
		return [][]int{kept}
	}
	order := slices.Clone(kept)
	slices.SortStableFunc(order, func(a, b int) int {
		return byID[facts[a].nodeID].ObservedAt.Compare(byID[facts[b].nodeID].ObservedAt)
	})
	last := map[attribute]int{} // the round of the last row on an attribute
	in := map[same]int{}        // the round of the last row stating a fact
	round := make([]int, len(facts))
	n := 0
	for _, i := range order {
		k := sameOf(i)
		r := last[k.attribute]
		if at, ok := in[k]; ok && at == r {
			r = min(r+1, maxRounds-1)
		}
		last[k.attribute], in[k], round[i] = r, r, r
		n = max(n, r+1)
	}
	rounds := make([][]int, n)
	for _, i := range kept { // each round in the batch's order
		rounds[round[i]] = append(rounds[round[i]], i)
	}
	return rounds
}

// ensureEntities returns the id of each plan's entity, in plan order,
// creating the entities not seen yet in one statement.
func (r *runner) ensureEntities(ctx context.Context, q *queries.Queries, plans []plan) ([]int64, error) {
	if len(plans) == 0 {
		return nil, nil
	}
	type name struct{ scope, name string }
	scopes, names := make([]string, len(plans)), make([]string, len(plans))
	for i, p := range plans {
		scopes[i], names[i] = p.scope, p.entity
	}
	rows, err := q.EnsureEntities(ctx, queries.EnsureEntitiesParams{Scopes: scopes, Names: names, Now: r.now})
	if err != nil {
		return nil, fmt.Errorf("entities: %w", err)
	}
	byName := make(map[name]int64, len(rows))
	for _, row := range rows {
		byName[name{row.Scope, row.Name}] = row.ID
	}
	ids := make([]int64, len(plans))
	for i, p := range plans {
		id, ok := byName[name{p.scope, p.entity}]
		if !ok {
			return nil, fmt.Errorf("entities: %q in scope %q was neither found nor created", p.entity, p.scope)
		}
		ids[i] = id
	}
	return ids, nil
}

// mergeStep is phase 11: exact duplicates among the facts of the merge
// window are merged; near duplicates and moods seen many times go to the
// review queue. All scopes are merged at once; when that fails, each scope
// alone, and the window rows of a scope that still fails are set aside.
func (r *runner) mergeStep(ctx context.Context, q *queries.Queries, tx pgx.Tx, _ *int64) (batchResult, error) {
	res := batchResult{done: true}
	w := mergeWindow{scope: r.scope, skip: []int64{}, retry: []int64{}}
	var retryScopes map[int64]string
	if r.hasFaults() {
		faults, err := q.ListMergeFaults(ctx, queries.ListMergeFaultsParams{Now: r.now, Scope: r.scope})
		if err != nil {
			return res, fmt.Errorf("merge faults: %w", err)
		}
		retryScopes = map[int64]string{}
		for _, f := range faults {
			w.skip = append(w.skip, f.NodeID)
			if f.Due {
				w.retry = append(w.retry, f.NodeID)
				retryScopes[f.NodeID] = f.Scope
			}
		}
	}
	all, err := r.attempt(ctx, tx, func(q *queries.Queries) (batchResult, error) {
		return r.mergeWindow(ctx, q, w)
	})
	if err == nil {
		if len(w.retry) > 0 {
			if err := q.ClearFaults(ctx, w.retry); err != nil {
				return res, fmt.Errorf("clear faults: %w", err)
			}
		}
		res.merge(all)
		return res, nil
	}
	if !isolatable(err) {
		return res, err
	}
	r.log.Warn("consolidation.merge_isolating", "err", err)
	scopes, err := q.MergeScopes(ctx, queries.MergeScopesParams{
		SinceRunID: r.since, Scope: r.scope, SkipIds: w.skip, RetryIds: w.retry,
		CoveredScopes: r.covered.scopes, CoveredRunIds: r.covered.runIDs,
	})
	if err != nil {
		return res, fmt.Errorf("merge scopes: %w", err)
	}
	for _, scope := range scopes {
		sw := w
		sw.scope = &scope
		part, err := r.attempt(ctx, tx, func(q *queries.Queries) (batchResult, error) {
			return r.mergeWindow(ctx, q, sw)
		})
		if err == nil {
			var cleared []int64
			for _, id := range w.retry {
				if retryScopes[id] == scope {
					cleared = append(cleared, id)
				}
			}
			if len(cleared) > 0 {
				if err := q.ClearFaults(ctx, cleared); err != nil {
					return res, fmt.Errorf("clear faults: %w", err)
				}
			}
			res.merge(part)
			continue
		}
		if !isolatable(err) {
			return res, err
		}
		ids, lerr := q.MergeWindowNodes(ctx, queries.MergeWindowNodesParams{
			SinceRunID: r.since, Scope: &scope, SkipIds: w.skip, RetryIds: w.retry,
			CoveredScopes: r.covered.scopes, CoveredRunIds: r.covered.runIDs,
		})
		if lerr != nil {
			return res, fmt.Errorf("merge window: %w", lerr)
		}
		if err := r.setAsideRows(ctx, q, PhaseMerge, ids, err, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// mergeWindow is the merge phase's work on one window, which starts after
// the runner's since and covered runs.
type mergeWindow struct {
	scope       *string // nil: every scope
	skip, retry []int64
}

func (r *runner) mergeWindow(ctx context.Context, q *queries.Queries, w mergeWindow) (batchResult, error) {
	var res batchResult
	win, err := q.MergeWindowFacts(ctx, queries.MergeWindowFactsParams{
		SinceRunID: r.since, Scope: w.scope, SkipIds: w.skip, RetryIds: w.retry,
		CoveredScopes: r.covered.scopes, CoveredRunIds: r.covered.runIDs,
	})
	if err != nil {
		return res, fmt.Errorf("merge window: %w", err)
	}
	if len(win.GatedIds) > 0 {
		rejected, err := q.RejectGatedPromoted(ctx, queries.RejectGatedPromotedParams{
			RunID: r.id, Now: r.now, NodeIds: win.GatedIds,
		})
		if err != nil {
			return res, fmt.Errorf("gate: %w", err)
		}
		for _, rj := range rejected {
			res.add(refusalName(rj.Reason), 1)
			res.refusals = append(res.refusals, refusal{phase: PhaseMerge, nodeID: deref(rj.NodeID), scope: rj.Scope, reason: rj.Reason})
		}
	}
	if len(win.TwinnedIds) > 0 {
		merged, err := q.MergeDuplicateFacts(ctx, queries.MergeDuplicateFactsParams{FactIds: win.TwinnedIds, Now: r.now})
		if err != nil {
			return res, fmt.Errorf("merge: %w", err)
		}
		res.add("merged", int(merged.Merged))
		if err := r.auditMerged(ctx, q, merged); err != nil {
			return res, err
		}
	}
	if len(win.NearIds) > 0 {
		near, err := q.QueueNearDuplicates(ctx, queries.QueueNearDuplicatesParams{RunID: r.id, Now: r.now, FactIds: win.NearIds})
		if err != nil {
			return res, fmt.Errorf("near duplicates: %w", err)
		}
		res.add("near_duplicates", int(near))
	}
	if len(win.MoodIds) > 0 {
		moods, err := q.QueueRepeatedMoods(ctx, queries.QueueRepeatedMoodsParams{
			Now: r.now, FactIds: win.MoodIds, MinCount: repeatedMoodCount,
		})
		if err != nil {
			return res, fmt.Errorf("repeated moods: %w", err)
		}
		res.add("repeated_moods", int(moods))
	}
	return res, nil
}

// decideStep is phase 12 for one batch: durable decision rows become locked
// decisions, unless a locked decision already settles their key. Only the
// rows classified as decisions have work here (and rows the classifier fails
// on, to be set aside): the batch is read unlocked and only those are locked.
// A failure confined to some rows sets them aside (isolate).
func (r *runner) decideStep(ctx context.Context, q *queries.Queries, tx pgx.Tx, cursor *int64) (batchResult, error) {
	peeked, err := q.PeekPendingNodes(ctx, queries.PeekPendingNodesParams{
		AfterID: *cursor, Scope: r.scope, Phase: PhaseDecide, CheckFaults: r.hasFaults(), Now: r.now, BatchSize: int32(r.opts.BatchSize),
	})
	if err != nil {
		return batchResult{}, err
	}
	done := len(peeked) < r.opts.BatchSize
	if len(peeked) == 0 {
		return batchResult{done: done}, nil
	}
	*cursor = peeked[len(peeked)-1].ID
	r.mu.Lock()
	r.read += int64(len(peeked))
	r.mu.Unlock()
	rows := peeked
	var ids []int64
	for i, p := range r.plans.plan(rows, r.now) {
		if p.err != nil || p.decision {
			ids = append(ids, rows[i].ID)
		}
	}
	if len(ids) == 0 {
		return batchResult{done: done}, nil
	}
	locked, err := q.LockPendingNodes(ctx, ids)
	if err != nil {
		return batchResult{}, err
	}
	rows = rows[:0]
	for _, row := range locked {
		rows = append(rows, queries.PeekPendingNodesRow(row))
	}
	if len(rows) == 0 {
		return batchResult{done: done}, nil
	}
	res, err := r.isolate(ctx, tx, PhaseDecide, rows, r.decideRows)
	res.done = done
	return res, err
}

// decideRows is phase 12 for some rows of a batch.
func (r *runner) decideRows(ctx context.Context, q *queries.Queries, rows []queries.PeekPendingNodesRow) (batchResult, error) {
	var res batchResult
	plans, err := r.plan(rows)
	if err != nil {
		return res, err
	}
	var decisions []plan
	var ids []int64
	for _, p := range plans {
		if p.decision {
			decisions = append(decisions, p)
			ids = append(ids, p.nodeID)
		}
	}
	if len(decisions) == 0 {
		return res, nil
	}
	// This phase's own gate, in SQL: a transient or expired decision row is
	// refused here too, never carried into a decision.
	if err := r.rejectGated(ctx, q, PhaseDecide, ids, &res); err != nil {
		return res, err
	}
	var durable []plan
	for _, p := range decisions {
		if p.marker == MarkerDurable {
			durable = append(durable, p)
		}
	}
	decisions, entities, err := r.targets(ctx, q, PhaseDecide, durable, &res)
	if err != nil {
		return res, err
	}
	params := queries.PromoteDecisionNodesParams{Now: r.now, RunID: r.id}
	for i, p := range decisions {
		alts, _ := json.Marshal(p.alternatives)
		params.NodeIds = append(params.NodeIds, p.nodeID)
		params.EntityIds = append(params.EntityIds, entities[i])
		params.Keys = append(params.Keys, p.key)
		params.Alternatives = append(params.Alternatives, alts)
		params.Reasonings = append(params.Reasonings, p.reasoning)
		params.DecidedBys = append(params.DecidedBys, p.decidedBy)
		params.Locks = append(params.Locks, p.lock)
	}
	if len(params.NodeIds) == 0 {
		return res, nil
	}
	out, err := q.PromoteDecisionNodes(ctx, params)
	if err != nil {
		return res, fmt.Errorf("decide: %w", err)
	}
	res.add("decisions", int(out.Decisions))
	if err := r.auditDecided(ctx, q, out); err != nil {
		return res, err
	}
	r.s.metrics.Promoted(int(out.Nodes))
	return res, nil
}

// cleanupStep is phase 8 for one batch: prune expired rows, stale transient
// rows and rows past their ttl, each leaving a tombstone.
func (r *runner) cleanupStep(ctx context.Context, q *queries.Queries, _ pgx.Tx, _ *int64) (batchResult, error) {
	rows, err := q.PruneNodes(ctx, queries.PruneNodesParams{
		RunID: &r.id, Now: r.now, PurgeAfter: r.now.Add(tombstoneKeep), Scope: r.scope, HourAgo: r.now.Add(-time.Hour),
		BatchSize: int32(r.opts.BatchSize),
	})
	if err != nil {
		return batchResult{}, fmt.Errorf("prune: %w", err)
	}
	res := batchResult{done: len(rows) < r.opts.BatchSize}
	if res.done {
		// Pending rows are done; rows promoted long ago go too, a batch at a
		// time: their facts keep what they said.
		gone, err := q.PrunePromotedNodes(ctx, queries.PrunePromotedNodesParams{
			Cutoff: r.now.Add(-promotedKeep), Scope: r.scope, BatchSize: int32(r.opts.BatchSize),
		})
		if err != nil {
			return res, fmt.Errorf("prune promoted: %w", err)
		}
		res.add("pruned_promoted", len(gone))
		res.done = len(gone) < r.opts.BatchSize
	}
	for _, row := range rows {
		switch row.Reason {
		case "expired":
			res.add("pruned_expired", 1)
		case "transient_ttl":
			res.add("pruned_transient", 1)
		default:
			res.add("pruned_ttl", 1)
		}
	}
	return res, nil
}

// plan is how one working row would enter long-term memory.
type plan struct {
	nodeID       int64
	scope        string
	marker       Marker
	entity       string
	key          string
	durability   Durability
	category     string
	confidence   float64
	deadline     string // RFC 3339, or "" for none
	decision     bool
	alternatives []string
	reasoning    string
	decidedBy    string
	lock         bool // a decision locked against reopening (Lockable)
	content      string
	leading      string // a lower-case first word that may name a known entity (LeadingWord)
	// relation is the speaker's relation the row is about ("my wife"),
	// read through the scope's aliases before entity (relations.go).
	relation string
	err      error // the classifier failed on this row
	// denies is the value a negation denies of key ("I no longer live in
	// Berlin": "Berlin"): the row retires the facts that name it rather
	// than becoming one (retract.go).
	denies string
}

// defaultEntity names the entity of rows that name none.
const defaultEntity = "general"

// defaultConfidence is the confidence of a promoted fact whose row names none.
// Importance is deliberately not used: it is a different axis.
const defaultConfidence = 0.7

// planNodes plans every row of a batch, spreading the classifier's work over
// the machine's cores: the database waits on it between statements.
func planNodes(rows []queries.PeekPendingNodesRow, now time.Time) []plan {
	plans := make([]plan, len(rows))
	workers := min(runtime.GOMAXPROCS(0), (len(rows)+255)/256)
	if workers <= 1 {
		for i, row := range rows {
			plans[i] = safePlanNode(row, now)
		}
		return plans
	}
	var wg sync.WaitGroup
	chunk := (len(rows) + workers - 1) / workers
	for from := 0; from < len(rows); from += chunk {
		to := min(from+chunk, len(rows))
		wg.Go(func() {
			for i := from; i < to; i++ {
				plans[i] = safePlanNode(rows[i], now)
			}
		})
	}
	wg.Wait()
	return plans
}

// planCache keeps plans of working rows for the batches of one run, so that
// the classifier, which runs on the machine's cores while the database runs
// on its own, is kept off the path of each batch: while the database works
// on one batch of promotions, the rows of the next one are read (unlocked)
// and classified (prefetch), and the transient and expired rows among them
// are kept for the decide phase, which classifies them too. A row classified
// once is also not classified again when its phase reads it before locking
// it, or when its batch is retried in parts (isolate). A plan is reused only
// for the row as it was classified: the same scope, content and properties.
type planCache struct {
	m    map[int64]cachedPlan // the current batch's rows
	mu   sync.Mutex           // guards the maps: a prefetch and the parts of a batch run at once
	next map[int64]cachedPlan // the next batch's, from the prefetch
	// later holds rows that a later phase of the run takes (at most
	// laterMax of them).
	later map[int64]cachedPlan
	wg    sync.WaitGroup // the prefetch under way
}

// laterMax bounds the plans kept for a later phase.
const laterMax = 50_000

type cachedPlan struct {
	scope, content string
	properties     json.RawMessage
	plan           plan
}

func (cp cachedPlan) of(row queries.PeekPendingNodesRow) bool {
	return cp.scope == row.Scope && cp.content == row.Content && bytes.Equal(cp.properties, row.Properties)
}

// reset starts a batch: the plans of the previous one are dropped and those
// the prefetch made for this one are taken.
func (c *planCache) reset() {
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	if c.m == nil {
		c.m = map[int64]cachedPlan{}
	}
	for id, cp := range c.next {
		c.m[id] = cp
	}
	clear(c.next)
}

// wait waits for the prefetch under way.
func (c *planCache) wait() { c.wg.Wait() }

// plan returns the plan of each row, classifying those it holds no plan for.
func (c *planCache) plan(rows []queries.PeekPendingNodesRow, now time.Time) []plan {
	plans := make([]plan, len(rows))
	var todo []queries.PeekPendingNodesRow
	var at []int
	c.mu.Lock()
	for i, row := range rows {
		cp, ok := c.m[row.ID]
		if !ok {
			if cp, ok = c.later[row.ID]; ok {
				delete(c.later, row.ID)
			}
		}
		if ok && cp.of(row) {
			plans[i] = cp.plan
			continue
		}
		todo = append(todo, row)
		at = append(at, i)
	}
	c.mu.Unlock()
	if len(todo) == 0 {
		return plans
	}
	planned := planNodes(todo, now)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[int64]cachedPlan, len(todo))
	}
	for j, p := range planned {
		row := todo[j]
		plans[at[j]] = p
		c.m[row.ID] = cachedPlan{scope: row.Scope, content: row.Content, properties: row.Properties, plan: p}
	}
	return plans
}

// prefetch reads, without locking them, the rows the next batch of the
// promote phase will take (those after after), and classifies them in the
// background: the durable ones for that batch, the others for the decide
// phase. A failed read only leaves the batch to classify its rows itself.
func (r *runner) prefetch(ctx context.Context, after int64) {
	c := &r.plans
	params := queries.PeekPendingNodesParams{AfterID: after, Scope: r.scope, Phase: PhasePromote, CheckFaults: r.hasFaults(),
		Now: r.now, BatchSize: int32(r.opts.BatchSize)}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		peeked, err := r.s.q.PeekPendingNodes(ctx, params)
		if err != nil || len(peeked) == 0 {
			return
		}
		rows := peeked
		plans := planNodes(rows, r.now)
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.next == nil {
			c.next = make(map[int64]cachedPlan, len(rows))
		}
		if c.later == nil {
			c.later = map[int64]cachedPlan{}
		}
		for i, row := range rows {
			cp := cachedPlan{scope: row.Scope, content: row.Content, properties: row.Properties, plan: plans[i]}
			switch {
			case Marker(row.Marker) == MarkerDurable:
				c.next[row.ID] = cp
			case len(c.later) < laterMax:
				c.later[row.ID] = cp
			}
		}
	}()
}

// planHook, for tests, is called with each row planned.
var planHook func(content string)

// safePlanNode is planNode that turns a panic on one row into that row's
// error, so one row the classifier cannot handle is set aside instead of
// stopping the process.
func safePlanNode(row queries.PeekPendingNodesRow, now time.Time) (p plan) {
	defer func() {
		if v := recover(); v != nil {
			p = plan{nodeID: row.ID, scope: row.Scope, err: &panicError{value: v}}
		}
	}()
	return planNode(row, now)
}

// planNode decides both axes of a row: the row's own properties win, the
// offline classifier fills in the rest, and moods and states never harden.
func planNode(row queries.PeekPendingNodesRow, now time.Time) plan {
	if planHook != nil {
		planHook(row.Content)
	}
	var props map[string]any
	_ = json.Unmarshal(row.Properties, &props)
	str := func(key string) string {
		v, _ := props[key].(string)
		return strings.TrimSpace(v)
	}
	p := plan{nodeID: row.ID, scope: row.Scope, marker: Marker(row.Marker), entity: str("entity"), key: str("key"), content: row.Content,
		confidence: defaultConfidence, reasoning: str("reasoning"), decidedBy: str("decided_by")}
	if p.entity == "" {
		// A row that names no entity is about what its text names first:
		// "billing-db replication lag is 4 s" about billing-db, "I am
		// tired" about the user; anything else about "general".
		// "My wife started a new job": the entity the alias "my wife"
		// names, if any; else as before. "My boss gave me a raise" is the
		// speaker's (relations.go).
		relation, speaker := relationSubject(row.Content)
		switch subj := SubjectOf(row.Content); {
		case subj.Kind == SubjectNamed:
			p.entity = subj.Name
		case subj.Kind == SubjectFirstPerson || subj.Kind == SubjectUser:
			p.entity = UserEntity
		case subj.Kind == SubjectRelation && speaker:
			p.entity = UserEntity
		default:
			p.entity, p.leading = defaultEntity, LeadingWord(row.Content)
		}
		if _, err := parseEntity(p.entity); err != nil {
			p.entity = defaultEntity
		}
		p.relation = relation
	} else {
		p.relation = relationEntity(p.entity, row.Content) // the extractor's "user's wife"
	}
	if c, ok := props["confidence"].(float64); ok && UnitBound.Contains(c) {
		p.confidence = c
	}
	category, durability := str("category"), str("fact_durability")
	if _, err := ParseCategory(category); err != nil {
		category = ""
	}
	if _, err := ParseDurability(durability); err != nil {
		durability = ""
	}
	// Dates in the text ("by Friday") are read as of when it was said.
	said := now
	if !row.ObservedAt.IsZero() {
		said = row.ObservedAt
	}
	var c Classification
	if category == "" || durability == "" || p.key == "" {
		c = Classify(row.Content, said)
	}
	switch {
	case category != "":
		p.category = category
	default:
		p.category = c.Category
	}
	switch {
	case durability != "":
		p.durability = Durability(durability)
	case category != "":
		p.durability = DefaultDurability(category, c.Durability)
	default:
		p.durability = c.Durability
	}
	p.durability = ClampDurability(p.category, p.durability)
	if p.key == "" {
		p.key = c.Key
	}
	// One key per concept: a writer's "company" is the classifier's
	// "employer".
	p.key = CanonicalKey(p.key)
	if _, err := ParseKey(p.key); err != nil {
		p.key = ""
	}
	// A negation denies a value rather than stating one (retract.go): of
	// the key the writer named (valid, canonical), or of the one it denies.
	if p.category != CategoryDecision {
		named := ""
		if str("key") != "" {
			named = p.key
		}
		if key, value := rowDenial(row.Content, props, named, said); value != "" {
			p.key, p.denies = key, value
		}
	}
	if d := str("deadline"); d != "" {
		p.deadline = d
	} else if c.Deadline != nil && p.category == CategoryObligation {
		p.deadline = c.Deadline.UTC().Format(time.RFC3339)
	}
	p.deadline = rowDeadline(p.deadline)
	p.decision = p.category == CategoryDecision
	if p.decision {
		p.alternatives = stringList(props["alternatives"])
		if len(p.alternatives) == 0 {
			p.alternatives = c.Alternatives
		}
		if p.reasoning == "" {
			p.reasoning = c.Reasoning
		}
		if p.key == "" {
			p.key = slugKey(row.Content)
		}
		p.lock = Lockable(p.reasoning)
	}
	if p.alternatives == nil {
		p.alternatives = []string{}
	}
	return p
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// DefaultDurability is the durability a fact of category gets when nothing
// names one; other categories take fallback.
func DefaultDurability(category string, fallback Durability) Durability {
	switch category {
	case CategoryMood:
		return Ephemeral
	case CategoryState, CategoryObligation:
		return ShortTerm
	case CategoryIdentity, CategoryDecision:
		return Permanent
	case CategoryRoutine, CategoryPreference, CategoryObservation:
		return LongTerm
	}
	if fallback == "" {
		return LongTerm
	}
	return fallback
}

// ClampDurability keeps moods and states from hardening: a mood is always
// ephemeral, a state at most short-term, whatever an automated writer says.
func ClampDurability(category string, d Durability) Durability {
	switch category {
	case CategoryMood:
		return Ephemeral
	case CategoryState:
		if d == Permanent || d == LongTerm {
			return ShortTerm
		}
	}
	return d
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugKey derives a key from a decision's text when it names none, so that
// two unrelated decisions about one entity do not lock each other.
func slugKey(text string) string {
	words := strings.Fields(nonSlug.ReplaceAllString(strings.ToLower(text), " "))
	var kept []string
	for _, w := range words {
		switch w {
		case "we", "i", "the", "a", "an", "to", "will", "decided", "agreed", "is", "are", "and", "that", "of", "for", "on":
			continue
		}
		kept = append(kept, w)
		if len(kept) == 4 {
			break
		}
	}
	key := strings.Join(kept, "_")
	if len(key) > 64 {
		key = key[:64]
	}
	if key == "" {
		return "decision"
	}
	return key
}
