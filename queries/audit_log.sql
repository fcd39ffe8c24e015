-- name: InsertAudit :exec
INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, before, after, reason)
VALUES (@at, @actor, @action, @target_type, @target_id, sqlc.narg('scope'), sqlc.narg('before'),
    sqlc.narg('after'), @reason);

-- name: ListAuditForTarget :many
-- ListAuditForTarget returns the history of one row, newest first.
SELECT id, at, actor, action, scope, before, after, reason
FROM audit_log
WHERE target_type = @target_type AND target_id = @target_id
ORDER BY id DESC;

-- name: ListAuditLog :many
-- ListAuditLog returns one page of the audit log, newest first, below the
-- keyset cursor before_id (0 for the first page). Every filter is optional:
-- NULL leaves it out. actors lists the exact actor strings to match, so the
-- actor index serves a filter by name; action matches itself and the actions
-- it prefixes ("fact" matches fact.update); until is exclusive.
SELECT id, at, actor, action, target_type, target_id, scope, before, after, reason
FROM audit_log
WHERE (sqlc.narg('actors')::text[] IS NULL OR actor = ANY(sqlc.narg('actors')::text[]))
  AND (sqlc.narg('action')::text IS NULL OR action = sqlc.narg('action')
       OR starts_with(action, sqlc.narg('action')::text || '.'))
  AND (sqlc.narg('target_type')::text IS NULL OR target_type = sqlc.narg('target_type'))
  AND (sqlc.narg('target_id')::text IS NULL OR target_id = sqlc.narg('target_id'))
  AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope'))
  AND (sqlc.narg('since')::timestamptz IS NULL OR at >= sqlc.narg('since'))
  AND (sqlc.narg('until')::timestamptz IS NULL OR at < sqlc.narg('until'))
  AND (@before_id::bigint = 0 OR id < @before_id)
ORDER BY id DESC
LIMIT @page_size;
