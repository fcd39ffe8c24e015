-- The context brief: what an agent reads at the start of every turn. Every
-- query here reads one scope and leaves out archived facts and facts whose
-- forget_at has passed.

-- name: Brief :many
-- Brief returns every candidate of a brief in one statement, so that all of
-- them come from one snapshot in one round trip, each row naming its
-- section; at most max_rows a section, and entity is optional:
--
--   0 the locked decisions, the newest max_rows (content is the decision, at
--     when it was decided), through decisions_brief_idx. The lock, not the
--     status of the decision's fact, is what an agent must respect, so every
--     locked decision counts;
--   1 the live obligations whose deadline comes before due_before (overdue
--     ones included), the soonest max_rows, through
--     entity_facts_brief_obligations_idx;
--   2 the live short-term and ephemeral states and the fresh moods, the most
--     recently confirmed max_rows, through entity_facts_brief_states_idx. An
--     ephemeral fact older than its half-life is no longer current, and a
--     mood confirmed before mood_cutoff never shows;
--   3 the durable facts with the best scores, from tenure_brief_facts (see
--     its migration), with their score and whether the walk that found them
--     is complete; the caller asks again with a larger depth when it is not.
--
-- Rows come in no particular order: the caller sorts each section by its
-- own order. Entity names are read once, for all sections, at the end.
-- with_decisions and all_sections say which sections to read (a one-time
-- filter keeps the others from running): the caller reads the decisions
-- first, and the other sections only when the decisions leave room for them.
WITH entity_filter AS (
    SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text
),
decision_rows AS (
    SELECT d.id, d.entity_id, d.key, d.decision, d.reasoning, d.alternatives, d.decided_by, d.decided_at
    FROM decisions d
    WHERE d.scope = @scope::text
      AND d.do_not_reopen
      AND (sqlc.narg('entity')::text IS NULL OR d.entity_id = (SELECT id FROM entity_filter))
      AND sqlc.arg(with_decisions)::boolean
    ORDER BY d.decided_at DESC, d.id DESC
    LIMIT sqlc.arg(max_rows)::integer
),
obligation_rows AS (
    SELECT f.id, f.entity_id, f.key, f.content, f.durability, f.category, f.deadline, f.confirmed_at,
        tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz) AS effective_confidence
    FROM entity_facts f
    WHERE f.status = 'active'
      AND f.deadline IS NOT NULL
      AND f.deadline < @due_before::timestamptz
      AND f.category = 'obligation'
      AND f.scope = @scope::text
      AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
      AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (SELECT id FROM entity_filter))
      AND sqlc.arg(all_sections)::boolean
    ORDER BY f.deadline, f.id
    LIMIT sqlc.arg(max_rows)::integer
),
state_rows AS (
    SELECT f.id, f.entity_id, f.key, f.content, f.durability, f.category, f.deadline, f.confirmed_at,
        tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz) AS effective_confidence
    FROM entity_facts f
    WHERE f.scope = @scope::text
      AND f.status = 'active'
      AND f.category IN ('state', 'mood')
      AND f.durability IN ('short_term', 'ephemeral')
      AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
      AND NOT (f.category = 'mood' AND f.confirmed_at < @mood_cutoff::timestamptz)
      AND NOT (f.durability = 'ephemeral' AND f.decay_half_life IS NOT NULL
               AND f.decay_from + f.decay_half_life * interval '1 second' < @now::timestamptz)
      AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (SELECT id FROM entity_filter))
      AND sqlc.arg(all_sections)::boolean
    ORDER BY f.confirmed_at DESC, f.id DESC
    LIMIT sqlc.arg(max_rows)::integer
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
        sqlc.arg(max_rows)::integer, sqlc.arg(depth)::bigint) r
    WHERE sqlc.arg(all_sections)::boolean
) u
JOIN entities e ON e.id = u.entity_id;

-- name: BriefChangedFacts :many
-- BriefChangedFacts returns the facts of one scope written since @since
-- (created, confirmed again, edited, superseded or archived), newest change
-- first, through entity_facts_scope_updated_idx.
SELECT f.id, e.name AS entity_name, f.key, f.content, f.durability, f.category, f.status,
    coalesce(f.archive_reason, '')::text AS archive_reason, f.archived_at, f.created_at, f.updated_at
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
