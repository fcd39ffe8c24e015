-- name: InsertNode :one
INSERT INTO memory_nodes (scope, content, properties, importance, ttl_seconds, created_at, observed_at)
VALUES (@scope, @content, @properties, @importance, sqlc.narg('ttl_seconds'), @created_at,
    sqlc.narg('observed_at'))
RETURNING id, scope, content, properties, importance, ttl_seconds, created_at, promoted_at,
    promoted_fact_id, promoted_run_id, marker, observed_at;

-- name: InsertNodes :many
-- InsertNodes writes a whole batch in one statement; ttl 0 means none. The ids
-- come back in the order of the input arrays. A row observed at the time of
-- the write (observed_ats holds created_at for it) stores no observed_at.
INSERT INTO memory_nodes (scope, content, properties, importance, ttl_seconds, created_at, observed_at)
SELECT @scope::text, t.content, t.properties, t.importance, nullif(t.ttl, 0), @created_at,
    nullif(t.observed_at, @created_at)
FROM (
    SELECT unnest(@contents::text[]) AS content, unnest(@properties::jsonb[]) AS properties,
        unnest(@importances::float8[]) AS importance, unnest(@ttls::int4[]) AS ttl,
        unnest(@observed_ats::timestamptz[]) AS observed_at
) t
RETURNING id;

-- name: SetNodeMarkers :many
-- SetNodeMarkers writes properties.durability on each row, keeping every other
-- property, writes one node.durability audit row per row, and returns each
-- row's marker before, in one statement. An empty scope matches rows of every
-- scope (reviewers act across scopes).
WITH o AS (
    SELECT m.id, m.properties->>'durability' AS old_marker
    FROM memory_nodes m
    WHERE m.id = ANY(@ids::bigint[]) AND (@scope::text = '' OR m.scope = @scope::text)
        AND m.promoted_at IS NULL
    ORDER BY m.id
    FOR UPDATE
), upd AS (
    UPDATE memory_nodes n
    SET properties = jsonb_set(n.properties, '{durability}', to_jsonb(@marker::text))
    FROM o
    WHERE n.id = o.id
    RETURNING n.id, n.scope, coalesce(o.old_marker, '')::text AS old_marker
), audit AS (
    INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, before, after, reason)
    SELECT @now::timestamptz, @actor::text, 'node.durability', 'node', u.id::text, u.scope,
        jsonb_build_object('durability',
            CASE WHEN u.old_marker = '' THEN '(none: reads as durable)' ELSE u.old_marker END),
        jsonb_build_object('durability', @marker::text),
        @reason::text
    FROM upd u
    ORDER BY u.id
)
SELECT id, scope, old_marker FROM upd ORDER BY id;

-- name: GetNodesByID :many
SELECT id, scope, content, properties, importance, ttl_seconds, created_at, promoted_at,
    promoted_fact_id, promoted_run_id, marker, observed_at
FROM memory_nodes
WHERE id = ANY(@ids::bigint[])
ORDER BY id;

-- name: ListNodes :many
-- ListNodes pages through working rows, newest first; a marker filter reads
-- an absent key as durable.
SELECT id, scope, content, properties, importance, ttl_seconds, created_at, promoted_at,
    promoted_fact_id, promoted_run_id, marker, observed_at
FROM memory_nodes
WHERE (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope'))
  AND (sqlc.narg('marker')::text IS NULL OR marker = sqlc.narg('marker'))
  AND (NOT @pending_only::boolean OR promoted_at IS NULL)
  AND (@before_id::bigint = 0 OR id < @before_id)
ORDER BY id DESC
LIMIT @page_size;

-- name: ListNodeScopes :many
-- ListNodeScopes returns the distinct scopes of working rows by skipping
-- through the scope index (a loose index scan), so its cost follows the number
-- of scopes, not of rows.
WITH RECURSIVE s AS (
    (SELECT m.scope FROM memory_nodes m ORDER BY m.scope LIMIT 1)
    UNION ALL
    SELECT (SELECT m.scope FROM memory_nodes m WHERE m.scope > s.scope ORDER BY m.scope LIMIT 1)
    FROM s
    WHERE s.scope IS NOT NULL
)
SELECT s.scope::text FROM s WHERE s.scope IS NOT NULL;

-- name: PushNotes :many
-- PushNotes finds, for pushed rows that name an entity and a key, the locked
-- decision on that key and the live fact that already says the same, so the
-- push can answer each row honestly before consolidation ever sees it.
WITH input AS (
    SELECT unnest(@rows::int[]) AS row_no, unnest(@entities::text[]) AS entity,
        unnest(@keys::text[]) AS key, unnest(@contents::text[]) AS content
)
SELECT i.row_no::int AS row_no, coalesce(d.id, 0)::bigint AS decision_id,
    coalesce(d.decision, '')::text AS decision, coalesce(d.reasoning, '')::text AS reasoning,
    coalesce(f.id, 0)::bigint AS fact_id
FROM input i
JOIN entities e ON e.scope = @scope::text AND e.name = i.entity
LEFT JOIN LATERAL (
    SELECT x.id, x.decision, x.reasoning FROM decisions x
    WHERE x.scope = @scope::text AND x.entity_id = e.id AND x.key = i.key AND x.do_not_reopen
    ORDER BY x.id DESC
    LIMIT 1
) d ON true
LEFT JOIN LATERAL (
    SELECT y.id FROM entity_facts y
    WHERE y.entity_id = e.id AND y.key = i.key AND y.status = 'active'
      AND md5(lower(y.content)) = md5(lower(btrim(i.content))) AND lower(y.content) = lower(btrim(i.content))
    ORDER BY y.id
    LIMIT 1
) f ON true
WHERE d.id IS NOT NULL OR f.id IS NOT NULL
ORDER BY i.row_no;

-- name: ForgetDates :many
-- ForgetDates is, for facts a push's rows will become (their axes as
-- consolidation plans them, confirmed when each row was observed), the
-- forget_at of each that has one, as the entity_facts trigger would
-- compute it.
WITH input AS (
    SELECT unnest(@rows::int[]) AS row_no, unnest(@durabilities::text[]) AS durability,
        unnest(@categories::text[]) AS category, unnest(@confidences::float8[]) AS confidence,
        unnest(@deadlines::text[]) AS deadline, unnest(@observed_ats::timestamptz[]) AS observed_at
)
SELECT i.row_no::int AS row_no, s.forget_at::timestamptz AS forget_at
FROM input i
CROSS JOIN LATERAL tenure_decay_state(i.durability, i.category, i.confidence, i.observed_at, NULL,
    nullif(i.deadline, '')::timestamptz) s
WHERE s.forget_at IS NOT NULL
ORDER BY i.row_no;

-- name: PushContentNotes :many
-- PushContentNotes finds, for pushed rows that name no key, the live fact of
-- the scope that says the same word for word (case and surrounding white
-- space aside), about the entity the row names when it names one, through
-- entity_facts_scope_content_idx.
WITH input AS (
    SELECT unnest(@rows::int[]) AS row_no, unnest(@entities::text[]) AS entity,
        unnest(@contents::text[]) AS content
)
SELECT i.row_no::int AS row_no, f.id AS fact_id, f.key AS fact_key,
    (SELECT e.name FROM entities e WHERE e.id = f.entity_id)::text AS entity_name
FROM input i
CROSS JOIN LATERAL (
    SELECT y.id, y.key, y.entity_id FROM entity_facts y
    WHERE y.scope = @scope::text AND y.status = 'active'
      AND md5(lower(y.content)) = md5(lower(btrim(i.content))) AND lower(y.content) = lower(btrim(i.content))
      AND (i.entity = '' OR y.entity_id = (
          SELECT e.id FROM entities e WHERE e.scope = @scope::text AND e.name = i.entity))
    ORDER BY y.id
    LIMIT 1
) f
ORDER BY i.row_no;
