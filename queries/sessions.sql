-- name: CreateSession :exec
INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at, user_agent, ip)
VALUES (@token_hash, @user_id, @csrf_token, @now, @now, @expires_at, @user_agent, @ip);

-- name: GetSession :one
-- GetSession returns a live session and its user; disabled users have none.
SELECT s.token_hash, s.user_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at,
    u.email, u.name, u.role
FROM sessions s
JOIN users u ON u.id = s.user_id
WHERE s.token_hash = @token_hash AND s.expires_at > @now AND u.disabled_at IS NULL;

-- name: TouchSession :exec
UPDATE sessions SET last_seen_at = @now::timestamptz, expires_at = @expires_at WHERE token_hash = @token_hash;

-- name: DeleteSession :exec
DELETE FROM sessions WHERE token_hash = @token_hash;

-- name: DeleteUserSessions :exec
DELETE FROM sessions WHERE user_id = @user_id;

-- name: DeleteExpiredSessions :one
WITH gone AS (DELETE FROM sessions WHERE expires_at <= @now RETURNING 1)
SELECT count(*)::int FROM gone;
