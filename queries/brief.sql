-- The context brief: what an agent reads at the start of every turn. Every
-- query here reads one scope and leaves out archived facts and facts whose
-- forget_at has passed.

-- name: Brief :many
-- Brief reads rows of a brief's four sections in one statement, so that all
-- of them come from one snapshot in one round trip, each row naming its
-- section. Each section is read in its own order, up to its *_rows (0 skips
-- it), after its cursor (*_after_*: NULL reads from the start), and only rows
-- whose text takes at most *_max_len characters on a brief line
-- (tenure_brief_len; a decision's line, entity aside:
-- tenure_brief_decision_len; NULL: any), and with their entity's name at
-- most *_max_line (NULL: any). entity is optional.
--
--   0 the locked decisions, newest first (content is the decision, at when it
--     was decided), through decisions_brief_idx. The lock, not the status of
--     the decision's fact, is what an agent must respect, so every locked
--     decision counts;
--   1 the live obligations whose deadline comes before due_before (overdue
--     ones included), soonest first, through
--     entity_facts_brief_obligations_idx;
--   2 the live short-term and ephemeral states and the fresh moods, most
--     recently confirmed first, through entity_facts_brief_states_idx. An
--     ephemeral fact older than its half-life is no longer current, and a
--     mood confirmed before mood_cutoff never shows. With st_newest_per_key,
--     a state with a key shows only when no newer state of the section has
--     its entity and key (the brief shows the newest state of a key);
--   3 the durable facts with the best scores, from tenure_brief_facts (see
--     its migrations), with their score and whether the walk that found them
--     is complete; the caller asks again with a larger depth when it is not.
--     No cursor: the best fact_rows, from the top.
--
-- Rows come in no particular order: the caller sorts each section by its
-- own order. Entity names are read once, for all sections, at the end. The
-- cursors and length bounds are conditions on the sections' indexes, so a
-- read that finds nothing costs a walk of index entries, not of the table.
WITH entity_filter AS (
    SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text
),
decision_rows AS (
    SELECT d.id, d.entity_id, d.key, d.decision, d.reasoning, d.alternatives, d.decided_by, d.decided_at
    FROM decisions d
    JOIN entities e ON e.id = d.entity_id
    WHERE d.scope = @scope::text
      AND d.do_not_reopen
      AND (d.decided_at, d.id) < (coalesce(sqlc.narg('dec_after_at')::timestamptz, 'infinity'::timestamptz),
                                  coalesce(sqlc.narg('dec_after_id')::bigint, 9223372036854775807::bigint))
      AND tenure_brief_decision_len(d.decision, d.reasoning, d.alternatives)
          <= coalesce(sqlc.narg('dec_max_len')::integer, 2147483647)
      AND (sqlc.narg('dec_max_line')::integer IS NULL
           OR tenure_brief_len(e.name) + tenure_brief_decision_len(d.decision, d.reasoning, d.alternatives)
              <= sqlc.narg('dec_max_line')::integer)
      AND (sqlc.narg('entity')::text IS NULL OR d.entity_id = (SELECT id FROM entity_filter))
    ORDER BY d.decided_at DESC, d.id DESC
    LIMIT sqlc.arg(dec_rows)::integer
),
obligation_rows AS (
    SELECT f.id, f.entity_id, f.key, f.content, f.durability, f.category, f.deadline, f.confirmed_at,
        tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz) AS effective_confidence
    FROM entity_facts f
    JOIN entities e ON e.id = f.entity_id
    WHERE f.status = 'active'
      AND f.deadline IS NOT NULL
      AND f.deadline < @due_before::timestamptz
      AND f.category = 'obligation'
      AND f.scope = @scope::text
      AND (f.deadline, f.id) > (coalesce(sqlc.narg('obl_after_deadline')::timestamptz, '-infinity'::timestamptz),
                                coalesce(sqlc.narg('obl_after_id')::bigint, -1::bigint))
      AND tenure_brief_len(f.content) <= coalesce(sqlc.narg('obl_max_len')::integer, 2147483647)
      AND (sqlc.narg('obl_max_line')::integer IS NULL
           OR tenure_brief_len(e.name) + tenure_brief_len(f.content) <= sqlc.narg('obl_max_line')::integer)
      -- An overdue obligation is held until a person settles it (decay
      -- never archives it), so it shows past its forget date too.
      AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz OR f.deadline <= f.forget_at)
      AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (SELECT id FROM entity_filter))
    ORDER BY f.deadline, f.id
    LIMIT sqlc.arg(obl_rows)::integer
),
state_rows AS (
    SELECT f.id, f.entity_id, f.key, f.content, f.durability, f.category, f.deadline, f.confirmed_at,
        tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz) AS effective_confidence
    FROM entity_facts f
    JOIN entities e ON e.id = f.entity_id
    WHERE f.scope = @scope::text
      AND f.status = 'active'
      AND f.category IN ('state', 'mood')
      AND f.durability IN ('short_term', 'ephemeral')
      AND (f.confirmed_at, f.id) < (coalesce(sqlc.narg('st_after_at')::timestamptz, 'infinity'::timestamptz),
                                    coalesce(sqlc.narg('st_after_id')::bigint, 9223372036854775807::bigint))
      AND tenure_brief_len(f.content) <= coalesce(sqlc.narg('st_max_len')::integer, 2147483647)
      AND (sqlc.narg('st_max_line')::integer IS NULL
           OR tenure_brief_len(e.name) + tenure_brief_len(f.content) <= sqlc.narg('st_max_line')::integer)
      AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
      AND NOT (f.category = 'mood' AND f.confirmed_at < @mood_cutoff::timestamptz)
      AND NOT (f.durability = 'ephemeral' AND f.decay_half_life IS NOT NULL
               AND f.decay_from + f.decay_half_life * interval '1 second' < @now::timestamptz)
      AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (SELECT id FROM entity_filter))
      AND NOT (sqlc.arg(st_newest_per_key)::boolean AND f.key <> '' AND EXISTS (
          SELECT 1 FROM entity_facts n
          WHERE n.entity_id = f.entity_id
            AND n.key = f.key
            AND (n.confirmed_at, n.id) > (f.confirmed_at, f.id)
            AND n.scope = f.scope
            AND n.status = 'active'
            AND n.category IN ('state', 'mood')
            AND n.durability IN ('short_term', 'ephemeral')
            AND (n.forget_at IS NULL OR n.forget_at > @now::timestamptz)
            AND NOT (n.category = 'mood' AND n.confirmed_at < @mood_cutoff::timestamptz)
            AND NOT (n.durability = 'ephemeral' AND n.decay_half_life IS NOT NULL
                     AND n.decay_from + n.decay_half_life * interval '1 second' < @now::timestamptz)))
    ORDER BY f.confirmed_at DESC, f.id DESC
    LIMIT sqlc.arg(st_rows)::integer
)
SELECT u.section, u.id, e.name AS entity_name, u.key, u.content, u.durability, u.category,
    u.deadline, u.at, u.effective_confidence, u.score, u.reasoning, u.alternatives, u.decided_by,
    u.complete
FROM (
    SELECT 0::integer AS section, d.id, d.entity_id, d.key, d.decision AS content,
        ''::text AS durability, ''::text AS category, NULL::timestamptz AS deadline,
        d.decided_at AS at, 0::double precision AS effective_confidence, 0::double precision AS score,
        d.reasoning, d.alternatives, d.decided_by, true AS complete
    FROM decision_rows d
    UNION ALL
    SELECT 1, o.id, o.entity_id, o.key, o.content, o.durability, o.category, o.deadline, o.confirmed_at,
        o.effective_confidence, 0, '', NULL::text[], '', true
    FROM obligation_rows o
    UNION ALL
    SELECT 2, s.id, s.entity_id, s.key, s.content, s.durability, s.category, s.deadline, s.confirmed_at,
        s.effective_confidence, 0, '', NULL::text[], '', true
    FROM state_rows s
    UNION ALL
    SELECT 3, r.id, r.entity_id, r.key, r.content, r.durability, r.category, r.deadline, r.confirmed_at,
        r.effective_confidence, r.score, '', NULL::text[], '', r.complete
    FROM tenure_brief_facts(@scope::text, sqlc.narg('entity')::text, @now::timestamptz,
        sqlc.arg(fact_rows)::integer, sqlc.arg(depth)::bigint, sqlc.narg('fact_max_len')::integer,
        sqlc.narg('fact_max_line')::integer) r
    WHERE sqlc.arg(fact_rows)::integer > 0
) u
JOIN entities e ON e.id = u.entity_id;

-- name: BriefDecisionsPage :many
-- BriefDecisionsPage is the first read of every brief: the newest max_rows
-- locked decisions of the scope (of one entity when entity is set), in the
-- row shape of Brief (section 0). A statement of its own, and a small one,
-- so that it is cheap to plan (or runs on a cached plan), where Brief plans
-- all four sections whichever it reads.
SELECT 0::integer AS section, d.id, e.name AS entity_name, d.key, d.decision AS content,
    ''::text AS durability, ''::text AS category, NULL::timestamptz AS deadline,
    d.decided_at AS at, 0::double precision AS effective_confidence, 0::double precision AS score,
    d.reasoning, d.alternatives, d.decided_by, true AS complete
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.scope = @scope::text
  AND d.do_not_reopen
  AND (sqlc.narg('entity')::text IS NULL OR d.entity_id = (
      SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
ORDER BY d.decided_at DESC, d.id DESC
LIMIT sqlc.arg(max_rows)::integer;

-- name: BriefFloors :one
-- BriefFloors are the fewest characters, in the scope, that an entity's name
-- takes on a brief line (0 when there is none), a locked decision's line
-- besides its entity, and a live fact's text (2147483647 when there is none):
-- each one index probe (entities_brief_len_idx, decisions_brief_len_idx,
-- entity_facts_brief_len_idx).
SELECT
    coalesce((SELECT min(tenure_brief_len(e.name)) FROM entities e WHERE e.scope = @scope::text), 0)::integer
        AS entity_floor,
    coalesce((SELECT min(tenure_brief_decision_len(d.decision, d.reasoning, d.alternatives)) FROM decisions d
        WHERE d.scope = @scope::text AND d.do_not_reopen), 2147483647)::integer AS decision_floor,
    coalesce((SELECT min(tenure_brief_len(f.content)) FROM entity_facts f
        WHERE f.scope = @scope::text AND f.status = 'active'), 2147483647)::integer AS fact_floor;

-- name: BriefChangedFacts :many
-- BriefChangedFacts returns the facts of one scope written since @since
-- (created, confirmed again, edited, superseded or archived), newest change
-- first, through entity_facts_scope_updated_idx, each with when its change
-- happened in observed time: for a fact superseded, when the fact that
-- superseded it was observed; for one forgotten (decayed, expired, or
-- imported past its forget date), its forget_at; for another archived one,
-- when it was archived. Every such time is at most a few minutes after the
-- write (observed times may lie at most five minutes ahead of the clock), so
-- the facts written since @since hold every change observed since then.
SELECT f.id, e.name AS entity_name, f.key, f.content, f.durability, f.category, f.status,
    coalesce(f.archive_reason, '')::text AS archive_reason, f.archived_at, f.created_at, f.updated_at,
    f.confirmed_at,
    (CASE
        WHEN f.status <> 'archived' THEN f.confirmed_at
        WHEN f.archive_reason ~ '^superseded by fact [0-9]{1,18}$' THEN coalesce((
            SELECT w.confirmed_at FROM entity_facts w
            WHERE w.id = substr(f.archive_reason, length('superseded by fact ') + 1)::bigint), f.archived_at)
        WHEN f.archive_reason IN ('decayed', 'expired', @forgotten_reason::text) THEN least(f.archived_at, f.forget_at)
        ELSE f.archived_at
    END)::timestamptz AS changed_at
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.scope = @scope::text
  AND f.updated_at > @since::timestamptz
  AND f.category <> 'decision'
  AND (sqlc.narg('entity')::text IS NULL OR e.name = sqlc.narg('entity')::text)
ORDER BY f.updated_at DESC, f.id DESC
LIMIT @max_rows;

-- name: BriefChangedDecisions :many
-- BriefChangedDecisions returns the decisions of one scope recorded, edited,
-- reopened or locked again since @since, newest change first.
SELECT d.id, e.name AS entity_name, d.key, d.decision, d.reasoning, d.do_not_reopen, d.decided_at,
    d.reopened_at, coalesce(d.reopen_reason, '')::text AS reopen_reason, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.scope = @scope::text
  AND d.updated_at > @since::timestamptz
  AND (sqlc.narg('entity')::text IS NULL OR e.name = sqlc.narg('entity')::text)
ORDER BY d.updated_at DESC, d.id DESC
LIMIT @max_rows;

-- name: CountLockedDecisions :one
-- CountLockedDecisions counts the locked decisions of a scope, of one entity
-- when entity names it: what an abridged brief did not read of them were
-- left out (memory/brief_read.go). It walks the scope's entries of the
-- partial index decisions_brief_idx, one entry per locked decision, and runs
-- only when a brief leaves a decision out unread.
SELECT count(*)::int FROM decisions d
WHERE d.scope = @scope::text AND d.do_not_reopen
  AND (sqlc.narg('entity')::text IS NULL
       OR d.entity_id = (SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text));
