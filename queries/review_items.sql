-- name: ListOpenReviewItems :many
-- ListOpenReviewItems returns one page of the open review queue, oldest
-- first, after the keyset cursor after_id (0 for the first page). Both
-- filters are optional.
SELECT id, kind, scope, fact_id, other_fact_id, rejection_id, detail, status, created_at,
    resolved_at, resolved_by
FROM review_items
WHERE status = 'open'
  AND (sqlc.narg('kind')::text IS NULL OR kind = sqlc.narg('kind')::text)
  AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope')::text)
  AND id > @after_id::bigint
ORDER BY id
LIMIT @page_size;

-- name: CountOpenReviewItems :many
-- CountOpenReviewItems counts the open items of each kind, optionally in one scope.
SELECT kind, count(*)::bigint AS items
FROM review_items
WHERE status = 'open'
  AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope')::text)
GROUP BY kind
ORDER BY kind;

-- name: ReviewItemByID :one
SELECT id, kind, scope, fact_id, other_fact_id, rejection_id, detail, status, created_at,
    resolved_at, resolved_by
FROM review_items
WHERE id = @id;

-- name: ReviewItemByIDForUpdate :one
SELECT id, kind, scope, fact_id, other_fact_id, rejection_id, detail, status, created_at,
    resolved_at, resolved_by
FROM review_items
WHERE id = @id
FOR UPDATE;

-- name: ResolveReviewItem :one
-- ResolveReviewItem closes one open item; no row comes back when it was
-- already resolved.
UPDATE review_items
SET status = @status::text, resolved_at = @now::timestamptz, resolved_by = @resolved_by::text
WHERE id = @id AND status = 'open'
RETURNING id, kind, scope, fact_id, other_fact_id, rejection_id, detail, status, created_at,
    resolved_at, resolved_by;

-- name: ReviewFacts :many
-- ReviewFacts returns the facts the review items name, with their effective
-- confidence at @now (the same columns as FactByID).
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.id = ANY(@ids::bigint[])
ORDER BY f.id;

-- name: ReviewRejections :many
-- ReviewRejections returns the refused writes the review items name.
SELECT id, run_id, phase, node_id, scope, reason, source, content, properties, decision_id,
    created_at
FROM consolidation_rejections
WHERE id = ANY(@ids::bigint[])
ORDER BY id;

-- name: ReviewDecisions :many
-- ReviewDecisions returns the decisions the review items' refusals hit (the
-- same columns as DecisionByID).
SELECT d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.id = ANY(@ids::bigint[])
ORDER BY d.id;

-- name: MergeFactInto :one
-- MergeFactInto reinforces the surviving fact of a near duplicate that a
-- reviewer merged, as the merge phase does: its confidence becomes
-- 1 - (1 - c_now)(1 - c_other), with c_other the merged fact's effective
-- confidence; it is confirmed now and counts the merged fact's observations.
UPDATE entity_facts f
SET confidence = least(1, greatest(0, 1 - (1 - tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz))
        * (1 - @other_confidence::double precision))),
    confirmed_at = @now::timestamptz,
    extraction_count = f.extraction_count + @other_count::int,
    version = f.version + 1,
    updated_at = @now::timestamptz
FROM entities e
WHERE e.id = f.entity_id AND f.id = @id
RETURNING f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence;
