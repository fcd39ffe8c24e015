-- name: UsersExist :one
-- UsersExist reports whether any person may sign in, or could: setup is
-- pending while it is false.
SELECT EXISTS (SELECT 1 FROM users)::bool AS users_exist;

-- name: ReplaceSetupToken :exec
-- ReplaceSetupToken keeps only the newest setup link: the ones printed
-- before stop working.
WITH gone AS (DELETE FROM setup_tokens)
INSERT INTO setup_tokens (token_hash, created_at, expires_at)
VALUES (@token_hash, @now::timestamptz, @expires_at::timestamptz);

-- name: UseSetupToken :one
-- UseSetupToken spends a live setup link, returning its id; no row when the
-- token is unknown, used or expired.
UPDATE setup_tokens SET used_at = @now::timestamptz
WHERE token_hash = @token_hash AND used_at IS NULL AND expires_at > @now::timestamptz
RETURNING id;

-- name: DeleteSetupTokens :exec
DELETE FROM setup_tokens;
