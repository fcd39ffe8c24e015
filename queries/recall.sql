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
    (r.relevance * r.effective_confidence)::double precision AS score,
    -- The decision a fact of category decision records, with its entity's
    -- name (recallDecision reads it).
    (CASE WHEN d.id IS NOT NULL THEN to_jsonb(d) || jsonb_build_object('entity_name', de.name) END)::jsonb AS decision
FROM ranked r
JOIN entity_facts f ON f.id = r.id
JOIN entities e ON e.id = f.entity_id
LEFT JOIN decisions d ON d.fact_id = f.id AND f.category = 'decision'
LEFT JOIN entities de ON de.id = d.entity_id
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
    r.effective_confidence::double precision AS score,
    -- The decision a fact of category decision records, with its entity's
    -- name (recallDecision reads it).
    (CASE WHEN d.id IS NOT NULL THEN to_jsonb(d) || jsonb_build_object('entity_name', de.name) END)::jsonb AS decision
FROM ranked r
JOIN entity_facts f ON f.id = r.id
JOIN entities e ON e.id = f.entity_id
LEFT JOIN decisions d ON d.fact_id = f.id AND f.category = 'decision'
LEFT JOIN entities de ON de.id = d.entity_id
ORDER BY score DESC, f.id DESC;

-- name: RecallParse :one
-- RecallParse returns the tsquery of a websearch query as text, which recall
-- reads to learn the query's lexemes and operators.
SELECT websearch_to_tsquery('english', @query::text)::text AS tsquery;

-- name: RecallWalk :many
-- RecallWalk reads recall's candidates cell by cell, in order, and stops as
-- soon as they settle the query. Cell i is the tsquery cells[i] over the
-- tokens of entity_facts_recall_repeats_idx: the live facts of one scope
-- that have its tokens and match the websearch query, with RecallSearch's
-- filters. The
-- walk keeps the best best_rows facts read (by score, then id, the highest
-- first); after cell i no fact left unread scores more than stops[i] (or
-- can match, when it is negative), so it stops when the best_rows-th best
-- beats it. It returns how many cells it read, whether that settled the
-- query, and the best facts with RecallSearch's columns (none, as one row
-- of NULLs, when it read no match).
WITH RECURSIVE walk (cell, ids, scores, done) AS (
    SELECT 0, '{}'::bigint[], '{}'::double precision[], false
  UNION ALL
    SELECT w.cell + 1, t.ids, t.scores,
        (@stops::double precision[])[w.cell + 1] < 0
            OR (cardinality(t.scores) >= @best_rows::integer
                AND t.scores[@best_rows::integer] > (@stops::double precision[])[w.cell + 1])
    FROM walk w
    CROSS JOIN LATERAL (
        SELECT coalesce(array_agg(b.id ORDER BY b.score DESC, b.id DESC), '{}')::bigint[] AS ids,
            coalesce(array_agg(b.score ORDER BY b.score DESC, b.id DESC), '{}')::double precision[] AS scores
        FROM (
            SELECT u.id, u.score
            FROM (
                SELECT w.ids[g.i] AS id, w.scores[g.i] AS score
                FROM generate_subscripts(w.ids, 1) AS g(i)
                UNION
                SELECT m.id,
                    (ts_rank_cd(m.search, q)
                        * tenure_decayed(m.confidence, m.decay_from, m.decay_half_life, @now::timestamptz))::double precision
                FROM websearch_to_tsquery('english', @query::text) q
                CROSS JOIN (
                    SELECT f.id, f.scope, f.entity_id, f.category, f.durability, f.search, f.confidence,
                        f.decay_from, f.decay_half_life, f.forget_at
                    FROM entity_facts f
                    WHERE tenure_recall_repeats(f.scope, f.search, f.confidence)
                          @@ (@cells::text[])[w.cell + 1]::tsquery
                      AND f.status = 'active'
                      AND strpos(f.search::text, ',') > 0
                    -- OFFSET 0 keeps the cell's tokens the only way in: the
                    -- text match is checked on each candidate row, not
                    -- intersected with the search index's thousands of
                    -- matches.
                    OFFSET 0
                ) m
                WHERE m.scope = @scope::text
                  AND m.search @@ q
                  AND (m.forget_at IS NULL OR m.forget_at > @now::timestamptz)
                  AND (sqlc.narg('entity')::text IS NULL OR m.entity_id = (
                      SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
                  AND (sqlc.narg('category')::text IS NULL OR m.category = sqlc.narg('category')::text)
                  AND (sqlc.narg('durability')::text IS NULL OR m.durability = sqlc.narg('durability')::text)
            ) u
            ORDER BY u.score DESC, u.id DESC
            LIMIT @best_rows::integer
        ) b
    ) t
    WHERE NOT w.done AND w.cell < cardinality(@cells::text[])
),
last AS (
    SELECT w.cell, w.done, w.ids FROM walk w ORDER BY w.cell DESC LIMIT 1
)
SELECT l.cell::integer AS cells_read, l.done::boolean AS settled,
    f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    coalesce(tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz), 0)::double precision AS effective_confidence,
    coalesce(ts_rank_cd(f.search, q), 0)::double precision AS relevance,
    coalesce(ts_rank_cd(f.search, q)
        * tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz), 0)::double precision AS score,
    -- The decision a fact of category decision records, with its entity's
    -- name (recallDecision reads it).
    (CASE WHEN d.id IS NOT NULL THEN to_jsonb(d) || jsonb_build_object('entity_name', de.name) END)::jsonb AS decision
FROM last l
CROSS JOIN websearch_to_tsquery('english', @query::text) q
LEFT JOIN entity_facts f ON f.id = ANY(l.ids)
LEFT JOIN entities e ON e.id = f.entity_id
LEFT JOIN decisions d ON d.fact_id = f.id AND f.category = 'decision'
LEFT JOIN entities de ON de.id = d.entity_id;

-- name: RecallPairs :many
-- RecallPairs returns the live facts of one scope that match a websearch
-- query and have one of the repeats tokens (repeats, on
-- entity_facts_recall_repeats_idx; none when NULL) or two of its lexemes
-- (pairs, on entity_facts_recall_terms_idx), with RecallSearch's filters, their
-- relevance, effective confidence at @now and score; the best_rows best (by
-- score, then id, the highest first) come with RecallSearch's other columns.
WITH c AS MATERIALIZED (
    SELECT m.id,
        ts_rank_cd(m.search, q)::double precision AS relevance,
        tenure_decayed(m.confidence, m.decay_from, m.decay_half_life, @now::timestamptz) AS effective_confidence,
        (ts_rank_cd(m.search, q)
            * tenure_decayed(m.confidence, m.decay_from, m.decay_half_life, @now::timestamptz))::double precision AS score
    FROM websearch_to_tsquery('english', @query::text) q
    CROSS JOIN (
        SELECT f.id, f.scope, f.entity_id, f.category, f.durability, f.search, f.confidence,
            f.decay_from, f.decay_half_life, f.forget_at
        FROM entity_facts f
        WHERE f.status = 'active'
          AND ((tenure_recall_repeats(f.scope, f.search, f.confidence) @@ (sqlc.narg('repeats')::text)::tsquery
                AND strpos(f.search::text, ',') > 0)
               OR tenure_recall_terms(f.scope, f.search) @@ (@pairs::text)::tsquery)
        -- OFFSET 0: the tokens are the way in, the query is checked on each
        -- row.
        OFFSET 0
    ) m
    WHERE m.scope = @scope::text
      AND m.search @@ q
      AND (m.forget_at IS NULL OR m.forget_at > @now::timestamptz)
      AND (sqlc.narg('entity')::text IS NULL OR m.entity_id = (
          SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
      AND (sqlc.narg('category')::text IS NULL OR m.category = sqlc.narg('category')::text)
      AND (sqlc.narg('durability')::text IS NULL OR m.durability = sqlc.narg('durability')::text)
),
best AS (
    SELECT DISTINCT c.id, c.score FROM c ORDER BY c.score DESC, c.id DESC LIMIT @best_rows
)
SELECT c.id, c.relevance, c.effective_confidence, c.score,
    f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    -- The decision a fact of category decision records, with its entity's
    -- name (recallDecision reads it).
    (CASE WHEN d.id IS NOT NULL THEN to_jsonb(d) || jsonb_build_object('entity_name', de.name) END)::jsonb AS decision
FROM c
LEFT JOIN best b ON b.id = c.id
LEFT JOIN entity_facts f ON f.id = b.id
LEFT JOIN entities e ON e.id = f.entity_id
LEFT JOIN decisions d ON d.fact_id = f.id AND f.category = 'decision'
LEFT JOIN entities de ON de.id = d.entity_id;

-- name: RecallEvery :many
-- RecallEvery is RecallSearch through entity_facts_recall_terms_idx: the
-- facts of the scope that have the tokens of scoped (the websearch query
-- with each lexeme made the scope's token; phrases and negations are
-- checked on the row), ranked every one, the best max_rows read whole.
WITH ranked AS (
    SELECT m.id, m.effective_confidence, m.relevance
    FROM (
        SELECT c.id,
            tenure_decayed(c.confidence, c.decay_from, c.decay_half_life, @now::timestamptz) AS effective_confidence,
            ts_rank_cd(c.search, q) AS relevance
        FROM websearch_to_tsquery('english', @query::text) q
        CROSS JOIN (
            SELECT f.id, f.scope, f.entity_id, f.category, f.durability, f.search, f.confidence,
                f.decay_from, f.decay_half_life, f.forget_at
            FROM entity_facts f
            WHERE tenure_recall_terms(f.scope, f.search) @@ (@scoped::text)::tsquery
              AND f.status = 'active'
            OFFSET 0
        ) c
        WHERE c.scope = @scope::text
          AND c.search @@ q
          AND (c.forget_at IS NULL OR c.forget_at > @now::timestamptz)
          AND (sqlc.narg('entity')::text IS NULL OR c.entity_id = (
              SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
          AND (sqlc.narg('category')::text IS NULL OR c.category = sqlc.narg('category')::text)
          AND (sqlc.narg('durability')::text IS NULL OR c.durability = sqlc.narg('durability')::text)
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
    (r.relevance * r.effective_confidence)::double precision AS score,
    -- The decision a fact of category decision records, with its entity's
    -- name (recallDecision reads it).
    (CASE WHEN d.id IS NOT NULL THEN to_jsonb(d) || jsonb_build_object('entity_name', de.name) END)::jsonb AS decision
FROM ranked r
JOIN entity_facts f ON f.id = r.id
JOIN entities e ON e.id = f.entity_id
LEFT JOIN decisions d ON d.fact_id = f.id AND f.category = 'decision'
LEFT JOIN entities de ON de.id = d.entity_id
ORDER BY score DESC, f.id DESC;
