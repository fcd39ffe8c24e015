-- name: ListFaults :many
-- ListFaults pages through the working rows set aside after a failed
-- consolidation, oldest row first; each filter is skipped when NULL.
SELECT f.node_id, f.scope, f.phase, f.error, f.attempts, f.first_failed_at, f.last_failed_at,
    f.retry_at, f.run_id, n.content
FROM consolidation_faults f
JOIN memory_nodes n ON n.id = f.node_id
WHERE (sqlc.narg('scope')::text IS NULL OR f.scope = sqlc.narg('scope'))
  AND (sqlc.narg('run_id')::bigint IS NULL OR f.run_id = sqlc.narg('run_id'))
  AND f.node_id > @after_id::bigint
ORDER BY f.node_id
LIMIT @page_size;

-- name: GetFaults :many
-- GetFaults returns the failures recorded for the given rows, in the
-- columns of ListFaults.
SELECT f.node_id, f.scope, f.phase, f.error, f.attempts, f.first_failed_at, f.last_failed_at,
    f.retry_at, f.run_id, n.content
FROM consolidation_faults f
JOIN memory_nodes n ON n.id = f.node_id
WHERE f.node_id = ANY(@node_ids::bigint[])
ORDER BY f.node_id;

-- name: RetryFaults :many
-- RetryFaults forgets the failures of rows of scopes a person chose to retry:
-- the next run tries them again with a fresh count of attempts.
DELETE FROM consolidation_faults
WHERE node_id = ANY(@node_ids::bigint[])
RETURNING node_id, scope, phase, error, attempts;
