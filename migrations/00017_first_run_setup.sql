-- +goose Up
-- A first-run setup link: while no user exists, `tenure serve` prints a link
-- carrying a random token, of which only the hash is kept; opening it lets
-- one person create the first admin. The link works once, until it expires,
-- and setup closes for good once any user exists.
CREATE TABLE setup_tokens (
    id         bigserial PRIMARY KEY,
    token_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);

-- +goose Down
DROP TABLE setup_tokens;
