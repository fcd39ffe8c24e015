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

-- The fact list reads one page in two steps, so that no filter makes it
-- walk the table: FactIDsWalk (or FactIDsWalkEntities) walks the newest
-- facts that pass the cheap filters, at most walk_rows of them, and keeps
-- those that also match the text, stopping when the page is full; when it
-- does not fill the page and the walk stopped at its bound, FactIDsSearch finds the rest of the page among
-- the older facts through the indexes of the filters (the full-text index,
-- the entity index), sorting only the matches. ListFactsByIDs then reads the
-- page's rows. Each step returns ids newest first; together they return
-- exactly the facts one ORDER BY id DESC LIMIT page_size query would.

-- name: FactIDsWalk :many
-- FactIDsWalk walks the newest facts passing the filters other than the
-- text (through the newest-first index of status, scope, category or
-- durability, or the primary key), at most walk_rows of them, and returns
-- newest first the ids of those that match the text (every one when query
-- is NULL) with hit true, and the walk's last fact when it reaches it
-- (row_number = walk_rows), whatever its hit: up to page_size rows in all.
-- It reads facts only until the page is full. When fewer than page_size
-- hits come back, the walk saw every fact passing the filters unless its
-- last fact came back, below whose id FactIDsSearch goes on.
SELECT c.id,
    (sqlc.narg('query')::text IS NULL
     OR c.search @@ websearch_to_tsquery('english', sqlc.narg('query')))::boolean AS hit,
    (c.rn = @walk_rows::int)::boolean AS last
FROM (
    SELECT f.id, f.search, row_number() OVER (ORDER BY f.id DESC) AS rn
    FROM entity_facts f
    WHERE (sqlc.narg('scope')::text IS NULL OR f.scope = sqlc.narg('scope'))
      AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability'))
      AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category'))
      AND (sqlc.narg('status')::text IS NULL OR f.status = sqlc.narg('status'))
      AND (@before_id::bigint = 0 OR f.id < @before_id)
    ORDER BY f.id DESC
    LIMIT @walk_rows::int
) c
WHERE sqlc.narg('query')::text IS NULL
   OR c.search @@ websearch_to_tsquery('english', sqlc.narg('query'))
   OR c.rn = @walk_rows::int
ORDER BY c.id DESC
LIMIT @page_size::int;

-- name: FactIDsWalkEntities :many
-- FactIDsWalkEntities is FactIDsWalk for the facts of the entities
-- entity_ids: it walks each entity's facts newest first through
-- entity_facts_entity_id_idx, at most walk_rows of each, and merges them.
SELECT c.id,
    (sqlc.narg('query')::text IS NULL
     OR c.search @@ websearch_to_tsquery('english', sqlc.narg('query')))::boolean AS hit,
    (c.rn = @walk_rows::int)::boolean AS last
FROM (
    SELECT m.id, m.search, row_number() OVER (ORDER BY m.id DESC) AS rn
    FROM (
        SELECT w.id, w.search
        FROM unnest(@entity_ids::bigint[]) AS e(id)
        CROSS JOIN LATERAL (
            SELECT f.id, f.search
            FROM entity_facts f
            WHERE f.entity_id = e.id
              AND (sqlc.narg('scope')::text IS NULL OR f.scope = sqlc.narg('scope'))
              AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability'))
              AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category'))
              AND (sqlc.narg('status')::text IS NULL OR f.status = sqlc.narg('status'))
              AND (@before_id::bigint = 0 OR f.id < @before_id)
            ORDER BY f.id DESC
            LIMIT @walk_rows::int
        ) w
        ORDER BY w.id DESC
        LIMIT @walk_rows::int
    ) m
    ORDER BY m.id DESC
) c
WHERE sqlc.narg('query')::text IS NULL
   OR c.search @@ websearch_to_tsquery('english', sqlc.narg('query'))
   OR c.rn = @walk_rows::int
ORDER BY c.id DESC
LIMIT @page_size::int;

-- name: FactIDsSearch :many
-- FactIDsSearch returns the ids of up to page_size facts below before_id
-- that pass every filter, newest first. It runs after a walk that found
-- the matches sparse, so it must not walk ids newest first: ordering by
-- id + 0, which no index provides, makes PostgreSQL collect the matches
-- through the indexes of the filters (the full-text index for the text,
-- entity_facts_entity_id_idx for entities) and sort only those.
SELECT f.id
FROM entity_facts f
WHERE (sqlc.narg('scope')::text IS NULL OR f.scope = sqlc.narg('scope'))
  AND (sqlc.narg('entity_ids')::bigint[] IS NULL OR f.entity_id = ANY(sqlc.narg('entity_ids')::bigint[]))
  AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability'))
  AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category'))
  AND (sqlc.narg('status')::text IS NULL OR f.status = sqlc.narg('status'))
  AND (sqlc.narg('query')::text IS NULL
       OR f.search @@ websearch_to_tsquery('english', sqlc.narg('query')))
  AND f.id < @before_id::bigint
ORDER BY f.id + 0 DESC
LIMIT @page_size::int;

-- name: ListFactsByIDs :many
-- ListFactsByIDs reads the fact list's rows for the ids a walk and a search
-- chose, newest first, with each fact's effective confidence at now.
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.deadline, f.forget_at,
    f.status, f.source, f.extraction_count, f.version, f.created_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.id = ANY(@ids::bigint[])
ORDER BY f.id DESC;

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

-- The queries below all return the same columns in the same order (a fact,
-- its entity's name and its effective confidence at @now), so that the memory
-- package converts every row type to one.

-- name: FactByID :one
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.id = @id;

-- name: FactByIDForUpdate :one
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.id = @id
FOR UPDATE OF f;

-- name: FactsByIDForUpdate :many
-- FactsByIDForUpdate locks the named facts, in id order so that concurrent
-- bulk edits cannot deadlock.
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.id = ANY(@ids::bigint[])
ORDER BY f.id
FOR UPDATE OF f;

-- name: SameActiveFact :one
-- SameActiveFact finds the active fact that states the same thing (same scope,
-- entity and key, content equal after trimming and ignoring case), to be
-- reinforced rather than written twice. A fact already forgotten when the
-- new statement was observed (its forget_at passed by observed_at) is not
-- it: that statement is a new fact, as it would have been had it been
-- written then.
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.entity_id = @entity_id
  AND f.key = @key
  AND f.status = 'active'
  AND f.scope = @scope
  AND lower(btrim(f.content)) = lower(btrim(@content::text))
  AND (f.forget_at IS NULL OR f.forget_at >= @observed_at::timestamptz)
ORDER BY f.id
LIMIT 1
FOR UPDATE OF f;

-- name: LockFactKey :exec
-- LockFactKey serialises writers of one (scope, entity, key) until the end of
-- the transaction, so that two identical writes reinforce one fact rather than
-- insert two, and a decision and a write against it cannot cross. The two-key
-- form keeps these locks apart from single-key advisory locks (leader election).
SELECT pg_advisory_xact_lock(7321, hashtext(@lock_key::text));

-- name: InsertFact :one
-- InsertFact inserts a fact, confirmed when its statement was observed
-- (observed_at); the entity_facts_forget_at trigger sets forget_at.
WITH f AS (
    INSERT INTO entity_facts (
        scope, entity_id, key, content, durability, category, confidence, importance,
        confirmed_at, expires_at, deadline, source, source_node_id, created_at, updated_at
    ) VALUES (
        @scope, @entity_id, @key, @content, @durability, @category, @confidence, @importance,
        @observed_at::timestamptz, sqlc.narg('expires_at'), sqlc.narg('deadline'), @source,
        sqlc.narg('source_node_id'), @now::timestamptz, @now::timestamptz
    )
    RETURNING id, scope, entity_id, key, content, durability, category, confidence, importance,
        confirmed_at, expires_at, deadline, forget_at, status, archived_at, archive_reason,
        source, source_node_id, extraction_count, version, created_at, updated_at,
        decay_half_life, decay_from
)
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM f
JOIN entities e ON e.id = f.entity_id;

-- name: ReinforceFactByID :one
-- ReinforceFactByID reinforces a fact by a statement of it observed at
-- observed_at with confidence c_new. Both are taken at the later of the two
-- times, t = max(confirmed_at, observed_at): confidence becomes
-- 1 - (1 - c_fact(t))(1 - c_new(t)), confirmed at t. A newer observation
-- (the usual case, observed now) finds the fact decayed to its time and
-- counts whole; an older one, replayed late, leaves confirmed_at as it is
-- and counts as the older confirmation it is, decayed from its own time to
-- the fact's as the fact's policy decays it. Durability and category never
-- change here.
UPDATE entity_facts f
SET confidence = least(1, greatest(0, 1 - (1 - tenure_decayed(f.confidence, f.decay_from, f.decay_half_life,
            greatest(f.confirmed_at, @observed_at::timestamptz)))
        * (1 - CASE WHEN @observed_at::timestamptz >= f.confirmed_at THEN @confidence::double precision
                    ELSE (SELECT tenure_decayed(@confidence::double precision, o.decay_from, o.half_life, f.confirmed_at)
                          FROM tenure_decay_state(f.durability, f.category, @confidence::double precision,
                              @observed_at::timestamptz, NULL, f.deadline) o)
               END))),
    confirmed_at = greatest(f.confirmed_at, @observed_at::timestamptz),
    extraction_count = f.extraction_count + 1,
    version = f.version + 1,
    updated_at = @now::timestamptz
FROM entities e
WHERE e.id = f.entity_id AND f.id = @id
RETURNING f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence;

-- name: UpdateFactFields :one
-- UpdateFactFields writes every editable field of one fact if it is still at
-- @version; no row comes back when someone else changed it first.
UPDATE entity_facts f
SET key = @key, content = @content, durability = @durability, category = @category,
    confidence = @confidence, importance = @importance, confirmed_at = @confirmed_at,
    expires_at = sqlc.narg('expires_at'), deadline = sqlc.narg('deadline'),
    version = f.version + 1, updated_at = @now::timestamptz
FROM entities e
WHERE e.id = f.entity_id AND f.id = @id AND f.version = @version
RETURNING f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence;

-- name: ReclassifyFactsByID :many
-- ReclassifyFactsByID moves the named facts to a durability and/or category
-- (NULL keeps each fact's own) and writes one audit row per changed fact, all in
-- one statement. Facts already there are left alone and not returned.
WITH old AS (
    SELECT o.id, o.durability, o.category, o.forget_at
    FROM entity_facts o
    WHERE o.id = ANY(@ids::bigint[])
), upd AS (
    UPDATE entity_facts f
    SET durability = coalesce(sqlc.narg('durability')::text, f.durability),
        category = coalesce(sqlc.narg('category')::text, f.category),
        version = f.version + 1,
        updated_at = @now::timestamptz
    FROM old
    WHERE f.id = old.id
      AND (f.durability, f.category) IS DISTINCT FROM
          (coalesce(sqlc.narg('durability')::text, f.durability),
           coalesce(sqlc.narg('category')::text, f.category))
    RETURNING f.id, f.scope, f.entity_id, f.key, f.content, f.durability, f.category,
        f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline, f.forget_at,
        f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
        f.extraction_count, f.version, f.created_at, f.updated_at, f.decay_half_life, f.decay_from,
        old.durability AS old_durability, old.category AS old_category,
        old.forget_at AS old_forget_at
), audit AS (
    INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, before, after, reason)
    SELECT @now::timestamptz, @actor::text, 'fact.reclassify', 'fact', u.id::text, u.scope,
        CASE WHEN u.old_durability <> u.durability
             THEN jsonb_build_object('durability', u.old_durability) ELSE '{}'::jsonb END
        || CASE WHEN u.old_category <> u.category
                THEN jsonb_build_object('category', u.old_category) ELSE '{}'::jsonb END
        || jsonb_build_object('forget_at', u.old_forget_at, 'version', u.version - 1),
        CASE WHEN u.old_durability <> u.durability
             THEN jsonb_build_object('durability', u.durability) ELSE '{}'::jsonb END
        || CASE WHEN u.old_category <> u.category
                THEN jsonb_build_object('category', u.category) ELSE '{}'::jsonb END
        || jsonb_build_object('forget_at', u.forget_at, 'version', u.version),
        @reason::text
    FROM upd u
)
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM upd f
JOIN entities e ON e.id = f.entity_id
ORDER BY f.id;

-- name: ArchiveFactsByID :many
-- ArchiveFactsByID archives the named active facts (archived ones are left
-- alone and not returned) and writes one audit row per fact, in one statement.
WITH upd AS (
    UPDATE entity_facts f
    SET status = 'archived', archived_at = @now::timestamptz,
        archive_reason = @archive_reason::text,
        version = f.version + 1, updated_at = @now::timestamptz
    WHERE f.id = ANY(@ids::bigint[]) AND f.status = 'active'
    RETURNING f.id, f.scope, f.entity_id, f.key, f.content, f.durability, f.category,
        f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline, f.forget_at,
        f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
        f.extraction_count, f.version, f.created_at, f.updated_at, f.decay_half_life, f.decay_from
), audit AS (
    INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, before, after, reason)
    SELECT @now::timestamptz, @actor::text, 'fact.archive', 'fact', u.id::text, u.scope,
        jsonb_build_object('status', 'active', 'version', u.version - 1),
        jsonb_build_object('status', u.status, 'archived_at', u.archived_at,
            'archive_reason', u.archive_reason, 'version', u.version),
        @reason::text
    FROM upd u
)
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM upd f
JOIN entities e ON e.id = f.entity_id
ORDER BY f.id;

-- name: RestoreFactsByID :many
-- RestoreFactsByID makes the named archived facts active again (active ones
-- are left alone and not returned) and writes one audit row per fact. A fact
-- that would be due for decay at once is re-confirmed (confirmed_at = @now) and
-- a passed expires_at is cleared, so the next decay tick does not archive it
-- again. Listing confirmed_at and expires_at makes the forget_at trigger
-- recompute forget_at under the current policies.
WITH old AS (
    SELECT o.id, o.status, o.archived_at, o.archive_reason, o.confirmed_at, o.expires_at,
        o.forget_at
    FROM entity_facts o
    WHERE o.id = ANY(@ids::bigint[]) AND o.status = 'archived'
), upd AS (
    UPDATE entity_facts f
    SET status = 'active', archived_at = NULL, archive_reason = NULL,
        expires_at = CASE WHEN f.expires_at <= @now::timestamptz THEN NULL ELSE f.expires_at END,
        confirmed_at = CASE
            WHEN tenure_forget_at(f.durability, f.category, f.confidence, f.confirmed_at,
                    CASE WHEN f.expires_at <= @now::timestamptz THEN NULL ELSE f.expires_at END,
                    f.deadline) <= @now::timestamptz
            THEN @now::timestamptz ELSE f.confirmed_at END,
        version = f.version + 1, updated_at = @now::timestamptz
    FROM old
    WHERE f.id = old.id
    RETURNING f.id, f.scope, f.entity_id, f.key, f.content, f.durability, f.category,
        f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline, f.forget_at,
        f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
        f.extraction_count, f.version, f.created_at, f.updated_at, f.decay_half_life, f.decay_from,
        old.archived_at AS old_archived_at, old.archive_reason AS old_archive_reason,
        old.confirmed_at AS old_confirmed_at, old.expires_at AS old_expires_at,
        old.forget_at AS old_forget_at
), audit AS (
    INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, before, after, reason)
    SELECT @now::timestamptz, @actor::text, 'fact.restore', 'fact', u.id::text, u.scope,
        jsonb_build_object('status', 'archived', 'archived_at', u.old_archived_at,
            'archive_reason', u.old_archive_reason, 'forget_at', u.old_forget_at,
            'version', u.version - 1)
        || CASE WHEN u.old_confirmed_at <> u.confirmed_at
                THEN jsonb_build_object('confirmed_at', u.old_confirmed_at) ELSE '{}'::jsonb END
        || CASE WHEN u.old_expires_at IS DISTINCT FROM u.expires_at
                THEN jsonb_build_object('expires_at', u.old_expires_at) ELSE '{}'::jsonb END,
        jsonb_build_object('status', u.status, 'forget_at', u.forget_at, 'version', u.version)
        || CASE WHEN u.old_confirmed_at <> u.confirmed_at
                THEN jsonb_build_object('confirmed_at', u.confirmed_at) ELSE '{}'::jsonb END
        || CASE WHEN u.old_expires_at IS DISTINCT FROM u.expires_at
                THEN jsonb_build_object('expires_at', u.expires_at) ELSE '{}'::jsonb END,
        @reason::text
    FROM upd u
)
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM upd f
JOIN entities e ON e.id = f.entity_id
ORDER BY f.id;

-- name: SetFactContent :one
-- SetFactContent keeps a decision's fact in step with the decision's text.
UPDATE entity_facts f
SET content = @content, version = f.version + 1, updated_at = @now::timestamptz
FROM entities e
WHERE e.id = f.entity_id AND f.id = @id
RETURNING f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence;

-- name: RecomputeForgetAtForCategory :execrows
-- RecomputeForgetAtForCategory recomputes the decay terms (half-life,
-- decay_from, forget_at) of the active facts a category policy governs: every
-- fact of the category, or for a deadline-anchored policy only those with a
-- deadline. It leaves version alone: the terms are derived, and a policy change
-- must not make reviewers' open forms stale.
UPDATE entity_facts f
SET (decay_half_life, decay_from, forget_at) = (
    SELECT s.half_life, s.decay_from, s.forget_at
    FROM tenure_decay_state(f.durability, f.category, f.confidence, f.confirmed_at,
        f.expires_at, f.deadline) s)
WHERE f.status = 'active'
  AND f.category = @category::text
  AND (@anchor::text <> 'deadline' OR f.deadline IS NOT NULL);

-- name: RecomputeForgetAtForDurability :execrows
-- RecomputeForgetAtForDurability recomputes the decay terms of the active
-- facts a durability policy governs: those of the durability that no category
-- policy overrides (tenure_decay_policy's rule).
UPDATE entity_facts f
SET (decay_half_life, decay_from, forget_at) = (
    SELECT s.half_life, s.decay_from, s.forget_at
    FROM tenure_decay_state(f.durability, f.category, f.confidence, f.confirmed_at,
        f.expires_at, f.deadline) s)
WHERE f.status = 'active'
  AND f.durability = @durability::text
  AND NOT EXISTS (
      SELECT 1 FROM decay_policies dp
      WHERE dp.category = f.category AND (dp.anchor <> 'deadline' OR f.deadline IS NOT NULL));

-- name: EntityIDsNamed :many
-- EntityIDsNamed returns the ids of the entities called name, in scope or, when
-- scope is NULL, in every scope: the facts list filters by entity name.
SELECT id
FROM entities
WHERE name = @name::text
  AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope'))
ORDER BY id;

-- name: EntityNamesInScope :many
-- EntityNamesInScope returns up to max_rows entity names of one scope, in
-- order, to suggest in the facts list's entity filter.
SELECT name
FROM entities
WHERE scope = @scope::text
ORDER BY name
LIMIT @max_rows;

-- name: ListObligationsDue :many
-- ListObligationsDue returns active obligations with a deadline in
-- [due_from, due_before), soonest deadline first, through
-- entity_facts_deadline_idx; scope is optional.
SELECT f.id, f.scope, e.name AS entity_name, f.key, f.content, f.durability,
    f.confidence, f.confirmed_at, f.deadline::timestamptz AS deadline, f.forget_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.status = 'active'
  AND f.deadline IS NOT NULL
  AND f.deadline >= @due_from::timestamptz
  AND f.deadline < @due_before::timestamptz
  AND f.category = 'obligation'
  AND (sqlc.narg('scope')::text IS NULL OR f.scope = sqlc.narg('scope'))
ORDER BY f.deadline, f.id
LIMIT @max_rows;

-- name: ListObligationsWithoutDeadline :many
-- ListObligationsWithoutDeadline returns active obligations that have no
-- deadline, newest first; scope is optional.
SELECT f.id, f.scope, e.name AS entity_name, f.key, f.content, f.durability,
    f.confidence, f.confirmed_at, f.forget_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.status = 'active'
  AND f.category = 'obligation'
  AND f.deadline IS NULL
  AND (sqlc.narg('scope')::text IS NULL OR f.scope = sqlc.narg('scope'))
ORDER BY f.id DESC
LIMIT @max_rows;
