-- name: InsertAudit :exec
INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, before, after, reason)
VALUES (@at, @actor, @action, @target_type, @target_id, sqlc.narg('scope'), sqlc.narg('before'),
    sqlc.narg('after'), @reason);
