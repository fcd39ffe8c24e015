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

-- name: ListRejections :many
-- ListRejections pages through the rejection log, newest first; each filter
-- is skipped when NULL.
SELECT id, run_id, phase, node_id, scope, reason, source, content, properties, decision_id,
    created_at
FROM consolidation_rejections
WHERE (sqlc.narg('run_id')::bigint IS NULL OR run_id = sqlc.narg('run_id'))
  AND (sqlc.narg('phase')::smallint IS NULL OR phase = sqlc.narg('phase'))
  AND (sqlc.narg('reason')::text IS NULL OR reason = sqlc.narg('reason'))
  AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope'))
  AND (sqlc.narg('source')::text IS NULL OR source = sqlc.narg('source'))
  AND (@before_id::bigint = 0 OR id < @before_id)
ORDER BY id DESC
LIMIT @page_size;

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
