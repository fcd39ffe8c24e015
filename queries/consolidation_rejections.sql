-- name: InsertWriteRejection :one
-- InsertWriteRejection logs one refusal by a writer outside a consolidation
-- run (the API, extraction, import): run and phase stay NULL. A refusal
-- against a decision also opens an item in the review queue.
WITH r AS (
    INSERT INTO consolidation_rejections (
        scope, reason, source, content, properties, decision_id, created_at
    ) VALUES (
        @scope, @reason, @source, @content, @properties, sqlc.narg('decision_id'), @created_at
    )
    RETURNING id, scope, reason, source, properties, decision_id, created_at
), queued AS (
    INSERT INTO review_items (kind, scope, rejection_id, detail, created_at)
    SELECT 'decision_refusal', r.scope, r.id,
        jsonb_build_object('decision_id', r.decision_id, 'source', r.source,
            'actor', r.properties->'actor'),
        r.created_at
    FROM r
    WHERE r.reason = 'decision_locked'
)
SELECT r.id FROM r;

-- name: ListRejectionsForDecision :many
-- ListRejectionsForDecision returns the newest refused writes against one decision.
SELECT id, run_id, phase, node_id, scope, reason, source, content, properties, decision_id,
    created_at
FROM consolidation_rejections
WHERE decision_id = @decision_id::bigint
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: RejectionIDsWalk :many
-- RejectionIDsWalk walks the newest entries of the rejection log (of one
-- scope, through consolidation_rejections_scope_idx, or all, through the
-- primary key), at most walk_rows of them, and returns newest first the ids
-- of those that pass the other filters (each skipped when NULL) with hit
-- true, and the walk's last entry when it reaches it (row_number =
-- walk_rows), whatever its hit: up to page_size rows in all.
SELECT c.id, c.hit::boolean AS hit, (c.rn = @walk_rows::int)::boolean AS last
FROM (
    SELECT r.id,
        ((sqlc.narg('run_id')::bigint IS NULL OR r.run_id = sqlc.narg('run_id')::bigint)
         AND (sqlc.narg('phase')::smallint IS NULL OR r.phase = sqlc.narg('phase')::smallint)
         AND (sqlc.narg('reason')::text IS NULL OR r.reason = sqlc.narg('reason')::text)
         AND (sqlc.narg('source')::text IS NULL OR r.source = sqlc.narg('source')::text)) AS hit,
        row_number() OVER (ORDER BY r.id DESC) AS rn
    FROM consolidation_rejections r
    WHERE (sqlc.narg('scope')::text IS NULL OR r.scope = sqlc.narg('scope')::text)
      AND (@before_id::bigint = 0 OR r.id < @before_id::bigint)
    ORDER BY r.id DESC
    LIMIT @walk_rows::int
) c
WHERE c.hit OR c.rn = @walk_rows::int
ORDER BY c.id DESC
LIMIT @page_size::int;

-- name: RejectionIDsSearch :many
-- RejectionIDsSearch returns the ids of up to page_size entries below
-- before_id that pass every filter, newest first, after a walk that found
-- them sparse: ordering by id + 0 makes PostgreSQL collect the matches
-- through consolidation_rejections_filters_idx and sort only those.
SELECT r.id
FROM consolidation_rejections r
WHERE (sqlc.narg('run_id')::bigint IS NULL OR r.run_id = sqlc.narg('run_id')::bigint)
  AND (sqlc.narg('phase')::smallint IS NULL OR r.phase = sqlc.narg('phase')::smallint)
  AND (sqlc.narg('reason')::text IS NULL OR r.reason = sqlc.narg('reason')::text)
  AND (sqlc.narg('scope')::text IS NULL OR r.scope = sqlc.narg('scope')::text)
  AND (sqlc.narg('source')::text IS NULL OR r.source = sqlc.narg('source')::text)
  AND r.id < @before_id::bigint
ORDER BY r.id + 0 DESC
LIMIT @page_size::int;

-- name: ListRejectionsByIDs :many
-- ListRejectionsByIDs reads the entries a walk and a search chose, newest
-- first.
SELECT id, run_id, phase, node_id, scope, reason, source, content, properties, decision_id,
    created_at
FROM consolidation_rejections
WHERE id = ANY(@ids::bigint[])
ORDER BY id DESC;

-- name: ListRejectionScopes :many
-- ListRejectionScopes returns the distinct scopes of the rejection log with a
-- loose index scan over the scope index.
WITH RECURSIVE s AS (
    (SELECT r.scope FROM consolidation_rejections r ORDER BY r.scope LIMIT 1)
    UNION ALL
    SELECT (SELECT r.scope FROM consolidation_rejections r WHERE r.scope > s.scope ORDER BY r.scope LIMIT 1)
    FROM s
    WHERE s.scope IS NOT NULL
)
SELECT s.scope::text FROM s WHERE s.scope IS NOT NULL;
