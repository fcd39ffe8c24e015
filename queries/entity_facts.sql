-- name: CreateFact :one
-- CreateFact inserts a fact; the entity_facts_forget_at trigger sets forget_at.
INSERT INTO entity_facts (
    scope, entity_id, key, content, durability, category, confidence, importance,
    confirmed_at, expires_at, deadline, source, source_node_id, created_at, updated_at
) VALUES (
    @scope, @entity_id, @key, @content, @durability, @category, @confidence, @importance,
    @confirmed_at, sqlc.narg('expires_at'), sqlc.narg('deadline'), @source,
    sqlc.narg('source_node_id'), @created_at, @created_at
)
RETURNING id, scope, entity_id, key, content, durability, category, confidence, importance,
    confirmed_at, expires_at, deadline, forget_at, status, archived_at, archive_reason, source,
    source_node_id, extraction_count, version, created_at, updated_at;

-- name: GetFact :one
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.id = @id;

-- name: ListFacts :many
-- ListFacts returns one page of facts, newest first, after the keyset cursor
-- before_id (0 for the first page), with each fact's effective confidence at now.
-- Every filter is optional: NULL leaves it out.
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.deadline, f.forget_at,
    f.status, f.source, f.extraction_count, f.version, f.created_at,
    tenure_effective_confidence(f.durability, f.category, f.confidence, f.confirmed_at,
        f.deadline, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE (sqlc.narg('scope')::text IS NULL OR f.scope = sqlc.narg('scope'))
  AND (sqlc.narg('entity_id')::bigint IS NULL OR f.entity_id = sqlc.narg('entity_id'))
  AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability'))
  AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category'))
  AND (sqlc.narg('status')::text IS NULL OR f.status = sqlc.narg('status'))
  AND (sqlc.narg('query')::text IS NULL
       OR f.search @@ websearch_to_tsquery('english', sqlc.narg('query')))
  AND (@before_id::bigint = 0 OR f.id < @before_id)
ORDER BY f.id DESC
LIMIT @page_size;

-- name: CountFactsByAxes :many
-- CountFactsByAxes counts facts of one status per durability and category.
SELECT durability, category, count(*)::bigint AS facts
FROM entity_facts
WHERE status = @status
GROUP BY durability, category
ORDER BY durability, category;

-- name: ListCategories :many
-- ListCategories returns every category in use, walking the category index
-- one distinct value at a time rather than scanning the table.
WITH RECURSIVE c AS (
    (SELECT category FROM entity_facts ORDER BY category LIMIT 1)
    UNION ALL
    SELECT (SELECT f.category FROM entity_facts f WHERE f.category > c.category
            ORDER BY f.category LIMIT 1)
    FROM c
    WHERE c.category IS NOT NULL
)
SELECT category::text FROM c WHERE category IS NOT NULL;
