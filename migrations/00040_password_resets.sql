-- +goose Up
-- One-time password reset links: an admin (in the console, or with tenure
-- user reset-password) issues a link carrying a random token, of which only
-- the SHA-256 is kept, as for API tokens and sessions. Opening it lets the
-- user set a new password once, until it expires; using it ends the user's
-- sessions. Issuing a new link for a user makes the earlier unused ones stop
-- working (they are deleted).
CREATE TABLE password_resets (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash bytea       NOT NULL UNIQUE,
    created_by bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    CONSTRAINT password_resets_token_hash_length CHECK (length(token_hash) = 32),
    CONSTRAINT password_resets_expiry_after_creation CHECK (expires_at > created_at)
);

CREATE INDEX password_resets_user_idx ON password_resets (user_id);
CREATE INDEX password_resets_created_by_idx ON password_resets (created_by);
CREATE INDEX password_resets_expires_idx ON password_resets (expires_at);

-- +goose Down
DROP TABLE password_resets;
