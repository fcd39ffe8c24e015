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
