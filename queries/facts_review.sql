-- What reviewers do to one fact or one review item from the console, beside
-- the edits of entity_facts.sql and review_items.sql.

-- name: MoveFactToEntity :one
-- MoveFactToEntity moves a fact to another entity of its scope and key, if it
-- is still at @version; no row comes back when it is not. The search
-- trigger rewrites the fact's words, which include its entity's name and its
-- key.
UPDATE entity_facts f
SET entity_id = @entity_id::bigint, key = @key::text,
    version = f.version + 1, updated_at = @now::timestamptz
FROM entities e
WHERE e.id = @entity_id::bigint AND f.id = @id AND f.version = @version::int
RETURNING f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence;

-- name: ConfirmFactNow :one
-- ConfirmFactNow confirms an active fact again at @now with the confidence it
-- has (a reviewer keeps it): its decay starts afresh, and the trigger moves
-- forget_at. No row comes back for an archived fact.
UPDATE entity_facts f
SET confirmed_at = @now::timestamptz, version = f.version + 1, updated_at = @now::timestamptz
FROM entities e
WHERE e.id = f.entity_id AND f.id = @id AND f.status = 'active'
RETURNING f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence;

-- name: ListDismissedReviewItems :many
-- ListDismissedReviewItems returns one page of the dismissed review items,
-- the newest item first, before the keyset cursor @before_id (0 for the
-- first page). Both filters are optional.
SELECT id, kind, scope, fact_id, other_fact_id, rejection_id, detail, status, created_at,
    resolved_at, resolved_by
FROM review_items
WHERE status = 'dismissed'
  AND (sqlc.narg('kind')::text IS NULL OR kind = sqlc.narg('kind')::text)
  AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope')::text)
  AND (@before_id::bigint = 0 OR id < @before_id::bigint)
ORDER BY id DESC
LIMIT @page_size;

-- name: CountDismissedReviewItems :many
-- CountDismissedReviewItems counts the dismissed items of each kind,
-- optionally in one scope.
SELECT kind, count(*)::bigint AS items
FROM review_items
WHERE status = 'dismissed'
  AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope')::text)
GROUP BY kind
ORDER BY kind;

-- name: UndismissReviewItem :one
-- UndismissReviewItem puts a dismissed item back in the open queue. No row
-- comes back when the item is not dismissed, or when an open item of its
-- kind already names the same facts (review_items_pair_idx allows one open
-- near duplicate per pair; a mood is queued once).
UPDATE review_items r
SET status = 'open', resolved_at = NULL, resolved_by = NULL
WHERE r.id = @id AND r.status = 'dismissed'
  AND NOT (r.fact_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM review_items o
      WHERE o.status = 'open' AND o.kind = r.kind AND o.fact_id = r.fact_id
        AND o.other_fact_id IS NOT DISTINCT FROM r.other_fact_id))
RETURNING r.id, r.kind, r.scope, r.fact_id, r.other_fact_id, r.rejection_id, r.detail, r.status,
    r.created_at, r.resolved_at, r.resolved_by;
