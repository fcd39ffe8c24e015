-- name: CreateUser :one
INSERT INTO users (email, name, role, password_hash)
VALUES (@email, @name, @role, @password_hash)
RETURNING id, email, name, role, password_hash, created_at, updated_at, last_login_at,
    disabled_at;

-- name: GetUserByEmail :one
SELECT id, email, name, role, password_hash, created_at, updated_at, last_login_at, disabled_at
FROM users
WHERE lower(email) = lower(@email);
