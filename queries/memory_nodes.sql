-- name: InsertNode :one
INSERT INTO memory_nodes (scope, content, properties, importance, ttl_seconds, created_at)
VALUES (@scope, @content, @properties, @importance, sqlc.narg('ttl_seconds'), @created_at)
RETURNING id, scope, content, properties, importance, ttl_seconds, created_at, promoted_at,
    promoted_fact_id, promoted_run_id;

-- name: InsertNodes :many
-- InsertNodes writes a whole batch in one statement; ttl 0 means none. The ids
-- come back in the order of the input arrays.
INSERT INTO memory_nodes (scope, content, properties, importance, ttl_seconds, created_at)
SELECT @scope::text, t.content, t.properties, t.importance, nullif(t.ttl, 0), @created_at
FROM (
    SELECT unnest(@contents::text[]) AS content, unnest(@properties::jsonb[]) AS properties,
        unnest(@importances::float8[]) AS importance, unnest(@ttls::int4[]) AS ttl
) t
RETURNING id;

-- name: SetNodeMarkers :many
-- SetNodeMarkers writes properties.durability on each row, keeping every other
-- property, and returns each row's marker before and after. An empty scope
-- matches rows of every scope (reviewers act across scopes).
UPDATE memory_nodes n
SET properties = jsonb_set(n.properties, '{durability}', to_jsonb(@marker::text))
FROM (
    SELECT m.id, m.properties->>'durability' AS old_marker
    FROM memory_nodes m
    WHERE m.id = ANY(@ids::bigint[]) AND (@scope::text = '' OR m.scope = @scope::text)
        AND m.promoted_at IS NULL
    ORDER BY m.id
    FOR UPDATE
) o
WHERE n.id = o.id
RETURNING n.id, n.scope, coalesce(o.old_marker, '')::text AS old_marker;

-- name: GetNodesByID :many
SELECT id, scope, content, properties, importance, ttl_seconds, created_at, promoted_at,
    promoted_fact_id, promoted_run_id
FROM memory_nodes
WHERE id = ANY(@ids::bigint[])
ORDER BY id;

-- name: ListNodes :many
-- ListNodes pages through working rows, newest first; a marker filter reads
-- an absent key as durable.
SELECT id, scope, content, properties, importance, ttl_seconds, created_at, promoted_at,
    promoted_fact_id, promoted_run_id
FROM memory_nodes
WHERE (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope'))
  AND (sqlc.narg('marker')::text IS NULL
       OR coalesce(properties->>'durability', 'durable') = sqlc.narg('marker'))
  AND (NOT @pending_only::boolean OR promoted_at IS NULL)
  AND (@before_id::bigint = 0 OR id < @before_id)
ORDER BY id DESC
LIMIT @page_size;
