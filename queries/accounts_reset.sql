-- Accounts: password changes, one-time password reset links, sign-out and
-- the command line's look-ups of users and tokens by name.

-- name: SetUserPassword :exec
UPDATE users SET password_hash = @password_hash, updated_at = @at::timestamptz WHERE id = @id;

-- name: DeleteOtherUserSessions :one
-- DeleteOtherUserSessions ends every session of a user but the one whose
-- token hash is keep, and returns how many it ended.
WITH gone AS (
    DELETE FROM sessions WHERE user_id = @user_id AND token_hash <> @keep::bytea RETURNING 1
)
SELECT count(*)::int FROM gone;

-- name: DeleteAllUserSessions :one
-- DeleteAllUserSessions ends every session of a user and returns how many.
WITH gone AS (DELETE FROM sessions WHERE user_id = @user_id RETURNING 1)
SELECT count(*)::int FROM gone;

-- name: DeleteSessionReturningUser :one
-- DeleteSessionReturningUser ends one session and returns whose it was; no
-- row when there is no such session.
WITH gone AS (DELETE FROM sessions WHERE token_hash = @token_hash RETURNING user_id)
SELECT g.user_id, u.email FROM gone g JOIN users u ON u.id = g.user_id;

-- name: DeleteUnusedPasswordResets :exec
-- DeleteUnusedPasswordResets makes the unused reset links of a user stop
-- working, before a new one is issued.
DELETE FROM password_resets WHERE user_id = @user_id AND used_at IS NULL;

-- name: CreatePasswordReset :one
INSERT INTO password_resets (user_id, token_hash, created_by, created_at, expires_at)
VALUES (@user_id, @token_hash, sqlc.narg('created_by'), @now::timestamptz, @expires_at::timestamptz)
RETURNING id, expires_at;

-- name: GetLivePasswordReset :one
-- GetLivePasswordReset returns a reset link that still works (unused, not
-- expired) and its user; no row otherwise.
SELECT r.id, r.user_id, r.expires_at, u.email, u.name, u.disabled_at
FROM password_resets r
JOIN users u ON u.id = r.user_id
WHERE r.token_hash = @token_hash AND r.used_at IS NULL AND r.expires_at > @now::timestamptz;

-- name: UsePasswordReset :one
-- UsePasswordReset spends a reset link that still works, returning its id
-- and user; no row when it is unknown, used or expired.
UPDATE password_resets SET used_at = @now::timestamptz
WHERE token_hash = @token_hash AND used_at IS NULL AND expires_at > @now::timestamptz
RETURNING id, user_id;

-- name: DeleteExpiredPasswordResets :one
WITH gone AS (DELETE FROM password_resets WHERE expires_at <= @now::timestamptz RETURNING 1)
SELECT count(*)::int FROM gone;

-- name: GetTokensByScopeName :many
-- GetTokensByScopeName lists the tokens named name in scope, the live one
-- (there is at most one) first, then the revoked ones, newest first.
SELECT id, name, scope, role, token_prefix, revoked_at
FROM api_tokens
WHERE scope = @scope AND name = @name
ORDER BY revoked_at IS NOT NULL, revoked_at DESC, id DESC;
