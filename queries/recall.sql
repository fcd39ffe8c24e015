-- Recall and the context brief: what an agent reads back from long-term
-- memory. Every query here reads one scope and leaves out archived facts and
-- facts whose forget_at has passed (decay archives those at its next tick, so
-- they are already forgotten; this also keeps every fact's effective
-- confidence at or above its policy's floor).

-- name: RecallSearch :many
-- RecallSearch returns the live facts of one scope that match a websearch
-- query, best first: relevance (ts_rank_cd) times effective confidence at
-- @now. The match goes through entity_facts_scope_search_idx. Filters are
-- optional. Every match is scored from a narrow row (the wide columns of
-- thousands of matches cost more than their scores); only the best max_rows
-- are read whole.
WITH ranked AS (
    SELECT m.id, m.effective_confidence, m.relevance
    FROM (
        SELECT f.id,
            tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz) AS effective_confidence,
            ts_rank_cd(f.search, q) AS relevance
        -- The query is parsed once, in FROM: written inline, websearch_to_tsquery
        -- (a stable function) could be evaluated again for every matching row.
        FROM websearch_to_tsquery('english', @query::text) q
        JOIN entity_facts f ON f.search @@ q
        WHERE f.scope = @scope::text
          AND f.status = 'active'
          AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
          AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (
              SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
          AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category')::text)
          AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability')::text)
        -- OFFSET 0 keeps this a subquery, so each score is computed once per
        -- match rather than again for the sort key.
        OFFSET 0
    ) m
    ORDER BY m.relevance * m.effective_confidence DESC, m.id DESC
    LIMIT @max_rows
)
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    r.effective_confidence::double precision AS effective_confidence,
    r.relevance::double precision AS relevance,
    (r.relevance * r.effective_confidence)::double precision AS score
FROM ranked r
JOIN entity_facts f ON f.id = r.id
JOIN entities e ON e.id = f.entity_id
ORDER BY score DESC, f.id DESC;

-- name: RecallByConfidence :many
-- RecallByConfidence returns the live facts of one scope, the most confident
-- now first: recall without a query. It has RecallSearch's columns, with
-- relevance 1, and ranks narrow rows the same way.
WITH ranked AS (
    SELECT f.id,
        tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz) AS effective_confidence
    FROM entity_facts f
    WHERE f.scope = @scope::text
      AND f.status = 'active'
      AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
      AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (
          SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
      AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category')::text)
      AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability')::text)
    ORDER BY effective_confidence DESC, f.id DESC
    LIMIT @max_rows
)
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    r.effective_confidence::double precision AS effective_confidence,
    1::double precision AS relevance,
    r.effective_confidence::double precision AS score
FROM ranked r
JOIN entity_facts f ON f.id = r.id
JOIN entities e ON e.id = f.entity_id
ORDER BY score DESC, f.id DESC;

-- name: DecisionsOfFacts :many
-- DecisionsOfFacts returns the decisions recorded by the named facts, with
-- DecisionByID's columns: recall shows a decision with its reasoning.
SELECT d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.fact_id = ANY(@fact_ids::bigint[])
ORDER BY d.fact_id;

-- name: BriefDecisions :many
-- BriefDecisions returns the locked decisions of one scope, newest first,
-- through decisions_brief_idx; entity is optional. The lock, not the status
-- of the decision's fact, is what an agent must respect, so every locked
-- decision counts.
SELECT d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.scope = @scope::text
  AND d.do_not_reopen
  AND (sqlc.narg('entity')::text IS NULL OR e.name = sqlc.narg('entity')::text)
ORDER BY d.decided_at DESC, d.id DESC
LIMIT @max_rows;

-- The three brief queries below return the same columns in the same order, so
-- that the memory package converts every row type to one.

-- name: BriefObligations :many
-- BriefObligations returns the live obligations of one scope whose deadline
-- comes before due_before (overdue ones included), soonest deadline first, so
-- the overdue come first; through entity_facts_brief_obligations_idx.
SELECT f.id, e.name AS entity_name, f.key, f.content, f.durability, f.category,
    f.deadline, f.confirmed_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.status = 'active'
  AND f.deadline IS NOT NULL
  AND f.deadline < @due_before::timestamptz
  AND f.category = 'obligation'
  AND f.scope = @scope::text
  AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
  AND (sqlc.narg('entity')::text IS NULL OR e.name = sqlc.narg('entity')::text)
ORDER BY f.deadline, f.id
LIMIT @max_rows;

-- name: BriefStates :many
-- BriefStates returns the live short-term and ephemeral states and the fresh
-- moods of one scope, the most recently confirmed first, through
-- entity_facts_brief_states_idx. An ephemeral fact older than its half-life
-- is no longer current, and a mood older than 48 hours never shows.
SELECT f.id, e.name AS entity_name, f.key, f.content, f.durability, f.category,
    f.deadline, f.confirmed_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.scope = @scope::text
  AND f.status = 'active'
  AND f.category IN ('state', 'mood')
  AND f.durability IN ('short_term', 'ephemeral')
  AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
  AND NOT (f.category = 'mood' AND f.confirmed_at < @mood_cutoff::timestamptz)
  AND NOT (f.durability = 'ephemeral' AND f.decay_half_life IS NOT NULL
           AND f.decay_from + f.decay_half_life * interval '1 second' < @now::timestamptz)
  AND (sqlc.narg('entity')::text IS NULL OR e.name = sqlc.narg('entity')::text)
ORDER BY f.confirmed_at DESC, f.id DESC
LIMIT @max_rows;

-- name: BriefDurableFacts :many
-- BriefDurableFacts returns the live permanent and long-term facts of one
-- scope other than decisions (which the brief shows with their reasoning),
-- ranked by effective confidence at @now times importance. Like recall, it
-- ranks narrow rows and reads only the best max_rows whole. It scores every
-- such fact: the brief uses it for one entity's facts, and
-- BriefDurableCandidates for a whole scope.
WITH ranked AS (
    SELECT m.id, m.effective_confidence
    FROM (
        SELECT f.id, f.importance,
            tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz) AS effective_confidence
        FROM entity_facts f
        WHERE f.scope = @scope::text
          AND f.status = 'active'
          AND f.durability IN ('permanent', 'long_term')
          AND f.category <> 'decision'
          AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
          AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (
              SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
        -- OFFSET 0 keeps this a subquery: each score is computed once.
        OFFSET 0
    ) m
    ORDER BY m.effective_confidence * m.importance DESC, m.id DESC
    LIMIT @max_rows
)
SELECT f.id, e.name AS entity_name, f.key, f.content, f.durability, f.category,
    f.deadline, f.confirmed_at,
    r.effective_confidence::double precision AS effective_confidence
FROM ranked r
JOIN entity_facts f ON f.id = r.id
JOIN entities e ON e.id = f.entity_id
ORDER BY r.effective_confidence * f.importance DESC, f.id DESC;

-- name: BriefDurableCandidates :many
-- BriefDurableCandidates walks the brief's durable facts of one scope down
-- entity_facts_brief_idx, from the highest confidence × importance (bound,
-- which no fact's score exceeds) after the keyset (before_bound, before_id),
-- with each fact's score: effective confidence at @now × importance.
SELECT f.id, (f.confidence * f.importance)::double precision AS bound,
    (tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)
        * f.importance)::double precision AS score
FROM entity_facts f
WHERE f.scope = @scope::text
  AND f.status = 'active'
  AND f.durability IN ('permanent', 'long_term')
  AND f.category <> 'decision'
  AND (f.confidence * f.importance, f.id) < (@before_bound::double precision, @before_id::bigint)
  AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
ORDER BY f.confidence * f.importance DESC, f.id DESC
LIMIT @batch_size;

-- name: BriefFactsByID :many
-- BriefFactsByID reads the brief's columns of the named facts.
SELECT f.id, e.name AS entity_name, f.key, f.content, f.durability, f.category,
    f.deadline, f.confirmed_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.id = ANY(@ids::bigint[]);

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
