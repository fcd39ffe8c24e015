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

-- name: EntityByID :one
SELECT id, scope, name, kind, created_at, updated_at
FROM entities
WHERE scope = @scope AND id = @id;

-- name: CanonicalEntityNames :many
-- CanonicalEntityNames reads each (scope, name) as the scope's entity it
-- names, in the order given (ord counts from 1): the entity an alias of the
-- same fold names (entity_aliases: a handle, a relation such as "my wife",
-- the name of an entity merged into another); else the entity whose name
-- has the same fold (tenure_entity_fold: case, white space and accents
-- aside), the name as written first, then the oldest; else, for a first
-- name alone, the one entity of the scope whose name is that first name and
-- more ("Ana" for "Ana Ruiz", never when "Ana Lopez" is there too), leaving
-- out an entity merged into another (its name is an alias of that other);
-- else the name as written, for an entity not seen yet, or the first
-- spelling given of its fold in the same call, so that two spellings new in
-- one batch are one entity. The alias lookups read entity_aliases_pkey, the
-- name lookups entities_scope_fold_idx.
WITH folded AS (
    SELECT s.ord, s.scope, n.name, tenure_entity_fold(n.name) AS fold
    FROM unnest(@scopes::text[]) WITH ORDINALITY AS s(scope, ord)
    JOIN unnest(@names::text[]) WITH ORDINALITY AS n(name, ord) ON n.ord = s.ord
), wanted AS (
    SELECT f.ord, f.scope, f.name, f.fold,
        first_value(f.name) OVER (PARTITION BY f.scope, f.fold ORDER BY f.ord) AS given_first
    FROM folded f
)
SELECT w.ord::bigint AS ord, coalesce(alias.name, same.name, first.name, w.given_first)::text AS name
FROM wanted w
LEFT JOIN LATERAL (
    SELECT e.name FROM entity_aliases a
    JOIN entities e ON e.id = a.entity_id
    WHERE a.scope = w.scope AND a.fold = w.fold
) alias ON true
LEFT JOIN LATERAL (
    SELECT e.name FROM entities e
    WHERE alias.name IS NULL AND e.scope = w.scope AND tenure_entity_fold(e.name) = w.fold
    ORDER BY (e.name = w.name) DESC, e.id
    LIMIT 1
) same ON true
LEFT JOIN LATERAL (
    -- Two candidates tell one from many.
    SELECT min(c.name) AS name FROM (
        SELECT e.name FROM entities e
        WHERE alias.name IS NULL AND same.name IS NULL AND w.fold <> '' AND strpos(w.fold, ' ') = 0
          AND e.scope = w.scope
          AND tenure_entity_fold(e.name) ~>=~ (w.fold || ' ') AND tenure_entity_fold(e.name) ~<~ (w.fold || '!')
          AND NOT EXISTS (
              SELECT 1 FROM entity_aliases m
              WHERE m.scope = e.scope AND m.fold = tenure_entity_fold(e.name) AND m.entity_id <> e.id)
        LIMIT 2
    ) c
    HAVING count(*) = 1
) first ON true
ORDER BY w.ord;
