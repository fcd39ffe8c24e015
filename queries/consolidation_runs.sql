-- name: StartRun :one
-- StartRun records a run; scope is NULL for a run of every scope.
INSERT INTO consolidation_runs (trigger, started_at, scope)
VALUES (@trigger, @started_at, sqlc.narg('scope'))
RETURNING id;

-- name: InterruptRuns :many
-- InterruptRuns marks runs left "running" by a process that died as
-- interrupted. Their report keeps what their committed batches did; the
-- rest is left to later runs. Only the holder of the consolidation lock calls
-- it, so none of them is live.
UPDATE consolidation_runs
SET status = 'interrupted', finished_at = @now::timestamptz,
    error = 'interrupted: the process stopped during this run; its report shows the work of the batches it committed'
WHERE status = 'running' AND id <> @current_id
RETURNING id;

-- name: LastSucceededRunID :one
-- LastSucceededRunID is the newest run of every scope that finished every
-- phase (0 if none), with or without rows set aside.
SELECT coalesce(max(id), 0)::bigint FROM consolidation_runs
WHERE status IN ('succeeded', 'partial') AND scope IS NULL AND id < @before_id;

-- name: ScopedRunsSince :many
-- ScopedRunsSince returns, for each scope, the newest run of that scope alone
-- between since_id and before_id that finished every phase: the merge
-- window of that scope starts after it rather than at since_id.
SELECT scope::text AS scope, max(id)::bigint AS run_id FROM consolidation_runs
WHERE status IN ('succeeded', 'partial') AND scope IS NOT NULL
  AND id > @since_id AND id < @before_id
GROUP BY scope
ORDER BY scope;

-- name: UpdateRunProgress :exec
UPDATE consolidation_runs
SET phase = @phase, report = @report, transient_rejected = @transient_rejected,
    expired_rejected = @expired_rejected, decision_locked = @decision_locked, set_aside = @set_aside
WHERE id = @id;

-- name: FinishRun :exec
UPDATE consolidation_runs
SET status = @status, finished_at = @finished_at::timestamptz, error = sqlc.narg('error')
WHERE id = @id;

-- name: GetRun :one
SELECT id, trigger, status, started_at, finished_at, phase, report, transient_rejected,
    expired_rejected, decision_locked, error, set_aside, scope
FROM consolidation_runs
WHERE id = @id;

-- name: ListRuns :many
SELECT id, trigger, status, started_at, finished_at, phase, report, transient_rejected,
    expired_rejected, decision_locked, error, set_aside, scope
FROM consolidation_runs
WHERE (@before_id::bigint = 0 OR id < @before_id)
ORDER BY id DESC
LIMIT @page_size;

-- name: LockRunProgress :one
-- LockRunProgress locks a run's row and returns its counts as committed: a
-- batch adds its own to them and writes them back (UpdateRunProgress) before
-- it commits, so batches that run at once never lose each other's counts.
-- FOR NO KEY UPDATE, the lock the UPDATE itself takes: it leaves alone the
-- key-share locks that the batches' foreign keys to the run (refusals,
-- promoted rows) hold until they commit.
SELECT report, transient_rejected, expired_rejected, decision_locked, set_aside
FROM consolidation_runs
WHERE id = @id
FOR NO KEY UPDATE;

-- name: RunRefusalCounts :many
-- RunRefusalCounts counts one run's refusals of one scope, by phase and
-- reason: what a run of every scope shows a token of that scope.
SELECT phase::smallint AS phase, reason, count(*)::int AS refused
FROM consolidation_rejections
WHERE run_id = @run_id::bigint AND scope = @scope::text
GROUP BY phase, reason
ORDER BY phase, reason;
