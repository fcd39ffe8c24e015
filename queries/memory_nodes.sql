-- name: InsertNode :one
INSERT INTO memory_nodes (scope, content, properties, importance, ttl_seconds, created_at)
VALUES (@scope, @content, @properties, @importance, sqlc.narg('ttl_seconds'), @created_at)
RETURNING id, scope, content, properties, importance, ttl_seconds, created_at, promoted_at,
    promoted_fact_id;
