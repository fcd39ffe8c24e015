-- name: ClaimIdempotencyKey :one
-- ClaimIdempotencyKey records a request with a key as in progress and
-- returns its attempt: a new key, or one whose row is past 24 hours
-- (expired_before), or one whose request left it in progress past its
-- lease with the same fingerprint (its process died before answering). It
-- returns no row when the key is held: then GetIdempotencyKey says by what.
-- Two requests with one key wait on each other's claim here, and only the
-- first claims it.
INSERT INTO idempotency_keys AS k (token_id, key, fingerprint, method, target, created_at, locked_until)
VALUES (@token_id, @key, @fingerprint, @method, @target, @now, @locked_until)
ON CONFLICT (token_id, key) DO UPDATE
SET fingerprint = EXCLUDED.fingerprint, method = EXCLUDED.method, target = EXCLUDED.target,
    attempt = k.attempt + 1, created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until,
    status = NULL, headers = NULL, body = NULL, completed_at = NULL
WHERE k.created_at <= @expired_before::timestamptz
   OR (k.status IS NULL AND k.locked_until <= EXCLUDED.created_at AND k.fingerprint = EXCLUDED.fingerprint)
RETURNING k.attempt;

-- name: GetIdempotencyKey :one
SELECT token_id, key, fingerprint, method, target, attempt, created_at, locked_until, status, headers, body,
    completed_at
FROM idempotency_keys
WHERE token_id = @token_id AND key = @key;

-- name: CompleteIdempotencyKey :execrows
-- CompleteIdempotencyKey stores the answer of the request that holds the
-- key's attempt; none when another request took the key over since.
UPDATE idempotency_keys
SET status = @status::integer, headers = @headers, body = @body::bytea, completed_at = @now::timestamptz
WHERE token_id = @token_id AND key = @key AND attempt = @attempt AND status IS NULL;

-- name: ReleaseIdempotencyKey :execrows
-- ReleaseIdempotencyKey forgets a key whose request failed without an
-- answer to keep, so that a retry runs it again.
DELETE FROM idempotency_keys
WHERE token_id = @token_id AND key = @key AND attempt = @attempt AND status IS NULL;

-- name: PurgeIdempotencyKeys :one
WITH gone AS (DELETE FROM idempotency_keys WHERE created_at <= @expired_before RETURNING 1)
SELECT count(*)::int FROM gone;
