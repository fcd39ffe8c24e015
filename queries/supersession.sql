-- name: SupersedeFacts :many
-- SupersedeFacts applies supersession around the given facts, just written
-- or changed: on each of their (entity, key), the newest active fact of a
-- superseding kind (by confirmed_at, then id; it may be an older write
-- confirmed later) stays current and archives the other active facts of a
-- superseding kind that says something else, with reason "superseded by
-- fact N". It returns each
-- archived fact with the fact that superseded it.
WITH touched AS (
    SELECT DISTINCT f.entity_id, f.key
    FROM entity_facts f
    WHERE f.id = ANY(@ids::bigint[]) AND f.status = 'active' AND f.key <> ''
      AND tenure_supersedes(f.category, f.durability)
),
winner AS (
    SELECT t.entity_id, t.key, w.id AS winner_id, w.norm
    FROM touched t
    JOIN LATERAL (
        SELECT o.id, lower(btrim(o.content)) AS norm FROM entity_facts o
        WHERE o.entity_id = t.entity_id AND o.key = t.key AND o.status = 'active'
          AND tenure_supersedes(o.category, o.durability)
        ORDER BY o.confirmed_at DESC, o.id DESC
        LIMIT 1
    ) w ON true
),
losers AS (
    -- One index probe on (entity, key) per touched key: the planner never
    -- joins the batch's keys against the whole table.
    SELECT l.id, w.winner_id
    FROM winner w
    JOIN LATERAL (
        SELECT o.id FROM entity_facts o
        WHERE o.entity_id = w.entity_id AND o.key = w.key AND o.status = 'active'
          AND o.id <> w.winner_id AND tenure_supersedes(o.category, o.durability)
          -- A fact that says the same is a duplicate, merged (and
          -- reinforcing the survivor) rather than superseded.
          AND lower(btrim(o.content)) <> w.norm
    ) l ON true
),
archived AS (
    UPDATE entity_facts f
    SET status = 'archived', archived_at = @now::timestamptz,
        archive_reason = 'superseded by fact ' || x.winner_id,
        version = f.version + 1, updated_at = @now::timestamptz
    FROM losers x
    WHERE f.id = x.id AND f.status = 'active'
    RETURNING f.id, f.scope, f.content, x.winner_id
)
SELECT id, scope, content, winner_id FROM archived ORDER BY id;

-- name: ListCategorySettings :many
SELECT category, supersedes, description, updated_at, updated_by
FROM category_settings
ORDER BY category;

-- name: SetCategorySupersedes :one
-- SetCategorySupersedes sets whether a category supersedes, creating its row
-- for a category not listed yet.
INSERT INTO category_settings (category, supersedes, updated_at, updated_by)
VALUES (@category, @supersedes, @now::timestamptz, @updated_by)
ON CONFLICT (category) DO UPDATE
SET supersedes = excluded.supersedes, updated_at = excluded.updated_at, updated_by = excluded.updated_by
RETURNING category, supersedes, description, updated_at, updated_by;
