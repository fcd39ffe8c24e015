-- name: UpsertEntity :one
-- UpsertEntity returns the entity named name in scope, creating it when missing.
INSERT INTO entities (scope, name, kind)
VALUES (@scope, @name, @kind)
ON CONFLICT (scope, name) DO UPDATE SET name = excluded.name
RETURNING id, scope, name, kind, created_at, updated_at;

-- name: ListScopes :many
-- ListScopes returns every scope that holds entities or working rows,
-- walking the scope indexes one distinct value at a time rather than
-- scanning the tables.
WITH RECURSIVE e AS (
    (SELECT scope FROM entities ORDER BY scope LIMIT 1)
    UNION ALL
    SELECT (SELECT x.scope FROM entities x WHERE x.scope > e.scope ORDER BY x.scope LIMIT 1)
    FROM e
    WHERE e.scope IS NOT NULL
), n AS (
    (SELECT scope FROM memory_nodes ORDER BY scope LIMIT 1)
    UNION ALL
    SELECT (SELECT x.scope FROM memory_nodes x WHERE x.scope > n.scope ORDER BY x.scope LIMIT 1)
    FROM n
    WHERE n.scope IS NOT NULL
)
SELECT scope::text FROM e WHERE scope IS NOT NULL
UNION
SELECT scope::text FROM n WHERE scope IS NOT NULL
ORDER BY 1;

-- name: DatabaseHoldsMemory :one
-- DatabaseHoldsMemory reports what has been written yet; the demo data is only
-- ever loaded into a database that holds nothing.
SELECT EXISTS (SELECT 1 FROM entities) AS entities,
    EXISTS (SELECT 1 FROM memory_nodes) AS memory_nodes,
    EXISTS (SELECT 1 FROM users) AS users,
    EXISTS (SELECT 1 FROM consolidation_runs) AS consolidation_runs,
    EXISTS (SELECT 1 FROM api_tokens) AS api_tokens;

-- name: EntityByName :one
SELECT id, scope, name, kind, created_at, updated_at
FROM entities
WHERE scope = @scope AND name = @name;
