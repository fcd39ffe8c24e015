-- name: ListTombstones :many
-- ListTombstones pages through the tombstones of pruned working rows, newest
-- first. state is pruned (not restored), restored, or empty for both.
SELECT id, node_id, scope, content, properties, importance, ttl_seconds, node_created_at,
    run_id, reason, pruned_at, purge_after, restored_at, restored_by, marker, node_observed_at
FROM node_tombstones
WHERE (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope'))
  AND (sqlc.narg('reason')::text IS NULL OR reason = sqlc.narg('reason'))
  AND (@state::text = '' OR (@state::text = 'restored') = (restored_at IS NOT NULL))
  AND (@before_id::bigint = 0 OR id < @before_id)
ORDER BY id DESC
LIMIT @page_size;

-- name: GetTombstoneForUpdate :one
-- GetTombstoneForUpdate locks one tombstone, so that two restores of it
-- cannot both bring the row back.
SELECT id, node_id, scope, content, properties, importance, ttl_seconds, node_created_at,
    run_id, reason, pruned_at, purge_after, restored_at, restored_by, marker, node_observed_at
FROM node_tombstones
WHERE id = @id
FOR UPDATE;

-- name: MarkTombstoneRestored :exec
UPDATE node_tombstones
SET restored_at = @restored_at::timestamptz, restored_by = @restored_by::text
WHERE id = @id;

-- name: ListTombstoneScopes :many
-- ListTombstoneScopes returns the distinct scopes of tombstones with a loose
-- index scan over the scope index.
WITH RECURSIVE s AS (
    (SELECT t.scope FROM node_tombstones t ORDER BY t.scope LIMIT 1)
    UNION ALL
    SELECT (SELECT t.scope FROM node_tombstones t WHERE t.scope > s.scope ORDER BY t.scope LIMIT 1)
    FROM s
    WHERE s.scope IS NOT NULL
)
SELECT s.scope::text FROM s WHERE s.scope IS NOT NULL;
