-- name: CreateUser :one
INSERT INTO users (email, name, role, password_hash)
VALUES (@email, @name, @role, @password_hash)
RETURNING id, email, name, role, password_hash, created_at, updated_at, last_login_at,
    disabled_at;

-- name: GetUserByEmail :one
SELECT id, email, name, role, password_hash, created_at, updated_at, last_login_at, disabled_at
FROM users
WHERE lower(email) = lower(@email);

-- name: ListUsers :many
SELECT id, email, name, role, password_hash, created_at, updated_at, last_login_at, disabled_at
FROM users
ORDER BY lower(email);

-- name: SetUserLastLogin :exec
UPDATE users SET last_login_at = @at::timestamptz WHERE id = @id;

-- name: UpdateUserRole :one
UPDATE users SET role = @role, updated_at = @at
WHERE id = @id
RETURNING id, email, name, role, password_hash, created_at, updated_at, last_login_at, disabled_at;

-- name: SetUserDisabled :one
UPDATE users SET disabled_at = sqlc.narg('disabled_at'), updated_at = @at
WHERE id = @id
RETURNING id, email, name, role, password_hash, created_at, updated_at, last_login_at, disabled_at;

-- name: LockActiveAdmins :many
-- LockActiveAdmins locks the rows of the enabled admins, so that two admins
-- demoting or disabling each other at once cannot leave nobody in charge.
SELECT id FROM users WHERE role = 'admin' AND disabled_at IS NULL ORDER BY id FOR UPDATE;

-- name: GetUserForUpdate :one
SELECT id, email, name, role, password_hash, created_at, updated_at, last_login_at, disabled_at
FROM users
WHERE id = @id
FOR UPDATE;
