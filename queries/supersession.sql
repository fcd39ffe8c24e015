-- name: SupersedeFacts :many
-- SupersedeFacts applies supersession around the given facts, just written
-- or changed, in the order the facts were observed, whatever the order they
-- arrived in: on each of their (entity, key), the latest-observed active
-- fact of a superseding kind (by confirmed_at, when its statement was last
-- observed, then id; it may be an older write confirmed later, or a write
-- of today that a replayed, older statement reaches after it) stays current
-- and archives the other active facts of a superseding kind that say
-- something else, with reason "superseded by fact N". A fact already
-- forgotten when the current one was observed (its forget_at before that)
-- was never replaced by it: it is left to the decay job, which archives it
-- as decayed, as it would have been had the facts been written when they
-- were observed. It returns each archived fact with the fact that
-- superseded it.
-- A superseding kind is what tenure_supersedes says, read here from
-- category_settings once for the statement rather than once per fact. A
-- generic key (generic_keys: status, routine, likes...; classify.GenericKeys)
-- names a category or a catch-all, not an attribute: its facts never
-- supersede and are never superseded (the other facts on a key share its
-- key). A single-valued key (single_keys: employer, home_city, occupation...;
-- classify.SingleValuedKeys) holds one value at a time: its facts supersede
-- whatever their category (an employer told as an observation replaces one
-- told as an identity). Each key is read once, through entity_facts_entity_key_content_idx,
-- and only when it holds another active fact: most keys a batch writes hold
-- one.
WITH settings AS MATERIALIZED (
    SELECT s.category FROM category_settings s WHERE s.supersedes
),
touched AS (
    SELECT DISTINCT f.entity_id, f.key
    FROM entity_facts f
    WHERE f.id = ANY(@ids::bigint[]) AND f.status = 'active' AND f.key <> ''
      AND f.key <> ALL(coalesce(@generic_keys::text[], '{}'))
      AND f.category <> 'decision'
      AND (f.durability IN ('short_term', 'ephemeral') OR f.category IN (SELECT category FROM settings)
           OR f.key = ANY(coalesce(@single_keys::text[], '{}')))
),
contested AS (
    -- The keys with a second active fact (of any kind): the others have
    -- nothing to supersede.
    SELECT t.entity_id, t.key
    FROM touched t
    WHERE EXISTS (
        SELECT 1 FROM entity_facts o
        WHERE o.entity_id = t.entity_id AND o.key = t.key AND o.status = 'active'
        OFFSET 1)
),
ranked AS (
    SELECT c.entity_id, c.key, o.id, o.norm, o.confirmed_at, o.forget_at,
        row_number() OVER (PARTITION BY c.entity_id, c.key ORDER BY o.confirmed_at DESC, o.id DESC) AS rank
    FROM contested c
    CROSS JOIN LATERAL (
        SELECT o.id, o.confirmed_at, o.forget_at, lower(btrim(o.content)) AS norm
        FROM entity_facts o
        WHERE o.entity_id = c.entity_id AND o.key = c.key AND o.status = 'active'
          AND o.category <> 'decision'
          AND (o.durability IN ('short_term', 'ephemeral') OR o.category IN (SELECT category FROM settings)
               OR o.key = ANY(coalesce(@single_keys::text[], '{}')))
    ) o
),
losers AS (
    -- A fact that says the same as the winner is a duplicate, merged (and
    -- reinforcing the survivor) rather than superseded.
    SELECT l.id, w.id AS winner_id
    FROM ranked w
    JOIN ranked l ON l.entity_id = w.entity_id AND l.key = w.key AND l.rank > 1
    WHERE w.rank = 1 AND l.norm <> w.norm
      AND (l.forget_at IS NULL OR l.forget_at >= w.confirmed_at)
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

-- name: MergeDuplicatesOf :many
-- MergeDuplicatesOf merges exact duplicates (same entity, key and content
-- ignoring case and outer space, both active) around the given facts, just
-- written by a writer that inserts rather than reinforces (import): the
-- oldest survives, reinforced by the others, each taken at the group's
-- latest confirmation t, and is confirmed at t (never fresher than its
-- newest observation); the others are archived as "merged into fact N". A
-- fact past its forget_at is left to the decay job. It returns each
-- archived fact with its survivor.
WITH touched AS (
    SELECT DISTINCT f.entity_id, f.key, md5(lower(btrim(f.content))) AS hash, lower(btrim(f.content)) AS norm
    FROM entity_facts f
    WHERE f.id = ANY(@ids::bigint[]) AND f.status = 'active' AND f.category <> 'decision'
),
grouped AS (
    SELECT x.id, x.extraction_count, x.scope, x.survivor, x.at,
        tenure_decayed(x.confidence, x.decay_from, x.decay_half_life, x.at) AS c_now
    FROM (
        SELECT g.id, g.extraction_count, g.scope, g.confidence, g.decay_from, g.decay_half_life,
            (min(g.id) OVER w)::bigint AS survivor, max(g.confirmed_at) OVER w AS at
        FROM touched t
        JOIN entity_facts g ON g.entity_id = t.entity_id AND g.key = t.key
            AND md5(lower(g.content)) = md5(t.norm) AND lower(btrim(g.content)) = t.norm
        WHERE g.status = 'active' AND g.category <> 'decision'
          AND (g.forget_at IS NULL OR g.forget_at > @now::timestamptz)
        WINDOW w AS (PARTITION BY g.entity_id, g.key, t.norm)
    ) x
),
dups AS (
    SELECT survivor, exp(greatest(sum(ln(greatest(1 - least(greatest(c_now, 0), 1), 1e-12))), -40)) AS keep,
        sum(extraction_count)::int AS extra
    FROM grouped
    WHERE id <> survivor
    GROUP BY survivor
),
archived AS (
    UPDATE entity_facts f
    SET status = 'archived', archived_at = @now::timestamptz, archive_reason = 'merged into fact ' || g.survivor,
        version = f.version + 1, updated_at = @now::timestamptz
    FROM grouped g
    WHERE f.id = g.id AND g.id <> g.survivor
    RETURNING f.id, f.scope, g.survivor
),
survivors AS (
    UPDATE entity_facts f
    SET confidence = 1 - (1 - g.c_now) * d.keep, confirmed_at = g.at,
        extraction_count = f.extraction_count + d.extra, version = f.version + 1, updated_at = @now::timestamptz
    FROM dups d
    JOIN grouped g ON g.id = d.survivor
    WHERE f.id = d.survivor
    RETURNING f.id
)
SELECT a.id, a.scope, a.survivor::bigint AS survivor, (SELECT count(*) FROM survivors)::int AS survivors
FROM archived a ORDER BY a.id;

-- name: OpenObligationsBeside :many
-- OpenObligationsBeside returns, for each of the given facts that is not an
-- obligation, the active obligations of its entity observed no later than
-- it, with both texts: the candidates for an obligation fulfilled by the
-- fact (classify.Fulfils decides).
SELECT o.id AS obligation_id, o.scope, o.content AS obligation, f.id AS fact_id, f.content AS statement
FROM entity_facts f
JOIN entity_facts o ON o.entity_id = f.entity_id AND o.id <> f.id
WHERE f.id = ANY(@ids::bigint[]) AND f.status = 'active' AND f.category <> 'obligation'
  AND o.status = 'active' AND o.category = 'obligation' AND o.confirmed_at <= f.confirmed_at
ORDER BY o.id, f.id;

-- name: ArchiveFulfilled :many
-- ArchiveFulfilled archives each obligation of ids as fulfilled by the fact
-- of the same place in by.
UPDATE entity_facts f
SET status = 'archived', archived_at = @now::timestamptz,
    archive_reason = 'fulfilled by fact ' || x.by_id, version = f.version + 1, updated_at = @now::timestamptz
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@by::bigint[]) AS by_id) x
WHERE f.id = x.id AND f.status = 'active'
RETURNING f.id, f.scope, x.by_id::bigint AS by_id;

-- Denials: a statement that denies a value ("I no longer live in Berlin")
-- retires the active facts of its entity on the denied attribute that name
-- the value (memory/retract.go). The attribute's key may be spelled as any
-- synonym of its concept (lives_in, city, home_city), so the keys are read
-- first and matched in Go (classify.CanonicalKey).

-- name: ActiveKeysOf :many
-- ActiveKeysOf lists the keys that hold an active fact, other than a
-- decision's, of each of the given entities, through
-- entity_facts_entity_key_idx.
SELECT DISTINCT f.entity_id, f.key
FROM entity_facts f
WHERE f.entity_id = ANY(@entity_ids::bigint[]) AND f.status = 'active' AND f.key <> ''
  AND f.category <> 'decision'
ORDER BY f.entity_id, f.key;

-- name: ActiveFactsOnKeys :many
-- ActiveFactsOnKeys returns the active facts, other than decisions, of each
-- (entity, key) pair given, oldest first: the facts a denial may retire.
SELECT f.id, f.scope, f.entity_id, f.key, f.content, f.confirmed_at
FROM (SELECT DISTINCT unnest(@entity_ids::bigint[]) AS entity_id, unnest(@keys::text[]) AS key) w
JOIN entity_facts f ON f.entity_id = w.entity_id AND f.key = w.key
WHERE f.status = 'active' AND f.category <> 'decision'
ORDER BY f.id;

-- name: RecordDenials :many
-- RecordDenials keeps each denial as a fact born archived, with its reason
-- (what it retired), so that the statement and what it did stay on record
-- and the working row it came from (node_id, 0 for a direct write) is
-- marked promoted into it, yet it is never current: recall and the brief
-- read active facts only. It returns each record with its row.
WITH input AS (
    SELECT unnest(@node_ids::bigint[]) AS node_id, unnest(@scopes::text[]) AS scope,
        unnest(@entity_ids::bigint[]) AS entity_id, unnest(@keys::text[]) AS key,
        unnest(@contents::text[]) AS content, unnest(@durabilities::text[]) AS durability,
        unnest(@categories::text[]) AS category, unnest(@confidences::float8[]) AS confidence,
        unnest(@importances::float8[]) AS importance, unnest(@observed_ats::timestamptz[]) AS observed_at,
        unnest(@sources::text[]) AS source, unnest(@reasons::text[]) AS reason,
        generate_subscripts(@node_ids::bigint[], 1) AS no
),
inserted AS (
    INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence, importance,
        confirmed_at, source, source_node_id, status, archived_at, archive_reason, created_at, updated_at)
    SELECT i.scope, i.entity_id, i.key, btrim(i.content), i.durability, i.category, i.confidence, i.importance,
        i.observed_at, i.source, nullif(i.node_id, 0), 'archived', @now::timestamptz, i.reason,
        @now::timestamptz, @now::timestamptz
    FROM input i
    ORDER BY i.no
    RETURNING id, source_node_id
),
marked AS (
    UPDATE memory_nodes n
    SET promoted_at = @now::timestamptz, promoted_run_id = nullif(@run_id::bigint, 0), promoted_fact_id = ins.id
    FROM inserted ins
    WHERE n.id = ins.source_node_id
    RETURNING n.id
)
SELECT ins.id, coalesce(ins.source_node_id, 0)::bigint AS node_id, (SELECT count(*) FROM marked)::int AS marked
FROM inserted ins
ORDER BY ins.id;

-- name: ArchiveDenied :many
-- ArchiveDenied archives each fact of ids that is still active with the
-- reason of the same place in reasons ("denied by fact N: ...").
UPDATE entity_facts f
SET status = 'archived', archived_at = @now::timestamptz, archive_reason = x.reason,
    version = f.version + 1, updated_at = @now::timestamptz
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@reasons::text[]) AS reason) x
WHERE f.id = x.id AND f.status = 'active'
RETURNING f.id, f.scope, f.content;
