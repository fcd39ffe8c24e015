-- +goose Up
-- Idempotency keys: the answer of each write an agent sent with a key (the
-- REST header Idempotency-Key, MCP's idempotency_key argument), kept for 24
-- hours, so that a retry of the same request answers the same and writes
-- nothing, and the same key on another request is refused
-- (memory/idempotency.go). Keys belong to the API token that sent them.

CREATE TABLE idempotency_keys (
    token_id     bigint      NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    key          text        NOT NULL,
    -- fingerprint is the SHA-256 of the request: its method, its target
    -- (path and query, or the MCP tool) and its canonical body.
    fingerprint  bytea       NOT NULL,
    -- method and target name the request the key was first used for, in
    -- the refusal of another request with it.
    method       text        NOT NULL,
    target       text        NOT NULL,
    -- attempt counts the claims of the key: a claim past its lease (a
    -- request whose process died) or past 24 hours is taken over by the
    -- next request, and the earlier claim may then no longer record its
    -- answer.
    attempt      integer     NOT NULL DEFAULT 1,
    created_at   timestamptz NOT NULL,
    -- While the request runs its answer is NULL and locked_until bounds
    -- it; a duplicate meanwhile is told the request is in progress.
    locked_until timestamptz NOT NULL,
    status       integer,
    headers      jsonb,
    body         bytea,
    completed_at timestamptz,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (token_id, key),
    CONSTRAINT idempotency_keys_key_format CHECK (key ~ '^[!-~]([ -~]{0,253}[!-~])?$'),
    CONSTRAINT idempotency_keys_fingerprint_size CHECK (octet_length(fingerprint) = 32),
    CONSTRAINT idempotency_keys_status_range CHECK (status BETWEEN 100 AND 599),
    CONSTRAINT idempotency_keys_answer_whole CHECK (
        (status IS NULL) = (completed_at IS NULL) AND (status IS NULL) = (body IS NULL))
);

-- The purge deletes the keys older than 24 hours.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
