-- name: CreateToken :one
INSERT INTO api_tokens (name, scope, role, token_hash, token_prefix, created_by, created_at, expires_at)
VALUES (@name, @scope, @role, @token_hash, @token_prefix, sqlc.narg('created_by'), @now, sqlc.narg('expires_at'))
RETURNING id, name, scope, role, token_hash, token_prefix, created_by, created_at, last_used_at,
    expires_at, revoked_at;

-- name: GetLiveTokenByHash :one
SELECT id, name, scope, role, token_hash, token_prefix, created_by, created_at, last_used_at,
    expires_at, revoked_at
FROM api_tokens
WHERE token_hash = @token_hash AND revoked_at IS NULL
  AND (expires_at IS NULL OR expires_at > @now::timestamptz);

-- name: TouchToken :exec
UPDATE api_tokens SET last_used_at = @now WHERE id = @id;

-- name: ListTokens :many
SELECT id, name, scope, role, token_hash, token_prefix, created_by, created_at, last_used_at,
    expires_at, revoked_at
FROM api_tokens
ORDER BY revoked_at IS NOT NULL, scope, name, id;

-- name: RevokeToken :one
UPDATE api_tokens SET revoked_at = @now
WHERE id = @id AND revoked_at IS NULL
RETURNING id, name, scope, role, token_hash, token_prefix, created_by, created_at, last_used_at,
    expires_at, revoked_at;

-- name: GetTokenByIDForUpdate :one
SELECT id, name, scope, role, token_hash, token_prefix, created_by, created_at, last_used_at,
    expires_at, revoked_at
FROM api_tokens
WHERE id = @id
FOR UPDATE;

-- name: ListTokensWithCreator :many
-- ListTokensWithCreator lists every token for the console, live ones first,
-- with the email of the admin who created it (empty when that user is gone).
SELECT t.id, t.name, t.scope, t.role, t.token_prefix, t.created_at, t.last_used_at,
    t.expires_at, t.revoked_at, coalesce(u.email, '')::text AS created_by_email
FROM api_tokens t
LEFT JOIN users u ON u.id = t.created_by
ORDER BY t.revoked_at IS NOT NULL, t.scope, t.name, t.id;
