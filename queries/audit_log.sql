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
