-- +goose Up
-- People, their sessions, agents' API tokens, and the audit log of every change.

CREATE TABLE users (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         text        NOT NULL,
    name          text        NOT NULL DEFAULT '',
    role          text        NOT NULL DEFAULT 'viewer',
    password_hash text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    last_login_at timestamptz,
    disabled_at   timestamptz,
    CONSTRAINT users_email_format CHECK (email ~ '^[^@\s]+@[^@\s]+$' AND length(email) <= 254),
    CONSTRAINT users_role_value CHECK (role IN ('viewer', 'reviewer', 'admin')),
    CONSTRAINT users_password_hash_present CHECK (password_hash <> '')
);

CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- Server-side sessions: the cookie carries a random token, the table its hash,
-- so any replica can serve a session and a leaked table opens none.
CREATE TABLE sessions (
    token_hash   bytea PRIMARY KEY,
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token   text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    user_agent   text        NOT NULL DEFAULT '',
    ip           text        NOT NULL DEFAULT ''
);

CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

-- Bearer tokens for agents, bound to one scope and stored hashed.
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text        NOT NULL,
    scope        text        NOT NULL,
    role         text        NOT NULL DEFAULT 'writer',
    token_hash   bytea       NOT NULL UNIQUE,
    token_prefix text        NOT NULL,
    created_by   bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    expires_at   timestamptz,
    revoked_at   timestamptz,
    CONSTRAINT api_tokens_name_present CHECK (btrim(name) <> '' AND length(name) <= 100),
    CONSTRAINT api_tokens_scope_format CHECK (scope ~ '^[a-z0-9][a-z0-9_.:-]{0,62}$'),
    CONSTRAINT api_tokens_role_value CHECK (role IN ('writer', 'reader'))
);

CREATE UNIQUE INDEX api_tokens_live_name_key ON api_tokens (scope, name) WHERE revoked_at IS NULL;

-- Every change, human or automated: who, what, which row, before, after, why.
CREATE TABLE audit_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    action      text        NOT NULL,
    target_type text        NOT NULL,
    target_id   text        NOT NULL,
    scope       text,
    before      jsonb,
    after       jsonb,
    reason      text        NOT NULL DEFAULT '',
    CONSTRAINT audit_log_actor_present CHECK (actor <> ''),
    CONSTRAINT audit_log_action_format CHECK (action ~ '^[a-z][a-z0-9_.]*$')
);

CREATE INDEX audit_log_target_idx ON audit_log (target_type, target_id, id DESC);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor, id DESC);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE api_tokens;
DROP TABLE sessions;
DROP TABLE users;
