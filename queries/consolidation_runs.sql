-- name: StartRun :one
INSERT INTO consolidation_runs (trigger, started_at)
VALUES (@trigger, @started_at)
RETURNING id;

-- name: InterruptRuns :many
-- InterruptRuns marks runs left "running" by a process that died as failed.
-- Only the holder of the consolidation lock calls it, so none of them is live.
UPDATE consolidation_runs
SET status = 'failed', finished_at = @now::timestamptz,
    error = 'interrupted: the process stopped before the run finished; the next run completed its work'
WHERE status = 'running' AND id <> @current_id
RETURNING id;

-- name: LastSucceededRunID :one
-- LastSucceededRunID is the newest run that finished every phase (0 if none).
SELECT coalesce(max(id), 0)::bigint FROM consolidation_runs
WHERE status = 'succeeded' AND id < @before_id;

-- name: UpdateRunProgress :exec
UPDATE consolidation_runs
SET phase = @phase, report = @report, transient_rejected = @transient_rejected,
    expired_rejected = @expired_rejected, decision_locked = @decision_locked
WHERE id = @id;

-- name: FinishRun :exec
UPDATE consolidation_runs
SET status = @status, finished_at = @finished_at::timestamptz, error = sqlc.narg('error')
WHERE id = @id;

-- name: GetRun :one
SELECT id, trigger, status, started_at, finished_at, phase, report, transient_rejected,
    expired_rejected, decision_locked, error
FROM consolidation_runs
WHERE id = @id;

-- name: ListRuns :many
SELECT id, trigger, status, started_at, finished_at, phase, report, transient_rejected,
    expired_rejected, decision_locked, error
FROM consolidation_runs
WHERE (@before_id::bigint = 0 OR id < @before_id)
ORDER BY id DESC
LIMIT @page_size;
