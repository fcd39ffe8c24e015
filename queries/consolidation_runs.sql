-- name: StartRun :one
INSERT INTO consolidation_runs (trigger, started_at)
VALUES (@trigger, @started_at)
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
-- LastSucceededRunID is the newest run that finished every phase (0 if none),
-- with or without rows set aside.
SELECT coalesce(max(id), 0)::bigint FROM consolidation_runs
WHERE status IN ('succeeded', 'partial') AND id < @before_id;

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
    expired_rejected, decision_locked, error, set_aside
FROM consolidation_runs
WHERE id = @id;

-- name: ListRuns :many
SELECT id, trigger, status, started_at, finished_at, phase, report, transient_rejected,
    expired_rejected, decision_locked, error, set_aside
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
