-- Recall and the context brief: what an agent reads back from long-term
-- memory. Every query here reads one scope and leaves out archived facts and
-- facts whose forget_at has passed (decay archives those at its next tick, so
-- they are already forgotten; this also keeps every fact's effective
-- confidence at or above its policy's floor), except obligations past their
-- deadline: decay holds those until a person settles them, and they are
-- recalled as the brief shows them.

-- name: RecallWords :one
-- RecallWords reads what recall needs to rank a question: the distinct
-- lexemes of its free words, how many live facts of the scope hold each
-- (BM25's document frequency, from recall_terms), how many live facts the
-- scope has and how many lexemes they hold in all, the most rows any of
-- those sums read (FoldRecallTerms folds them), and the tsquery that the
-- question's phrases and negated words make, empty when none (a phrase or word
-- of stop words alone is left out, as websearch_to_tsquery does).
WITH asked AS (
    SELECT DISTINCT w AS lexeme
    FROM unnest(tsvector_to_array(to_tsvector('english', @words::text))) w
), counts AS (
    SELECT w.lexeme, coalesce(sum(t.facts), 0)::bigint AS facts, count(t.lexeme) AS parts
    FROM asked w
    LEFT JOIN recall_terms t ON t.scope = @scope::text AND t.lexeme = w.lexeme
    GROUP BY w.lexeme
), totals AS (
    SELECT coalesce(sum(t.facts), 0)::bigint AS facts, coalesce(sum(t.lexemes), 0)::bigint AS lexemes,
        count(*) AS parts
    FROM recall_terms t
    WHERE t.scope = @scope::text AND t.lexeme = ''
)
SELECT
    coalesce((SELECT array_agg(c.lexeme ORDER BY c.lexeme) FROM counts c), '{}')::text[] AS lexemes,
    coalesce((SELECT array_agg(c.facts ORDER BY c.lexeme) FROM counts c), '{}')::bigint[] AS lexeme_facts,
    totals.facts AS facts,
    totals.lexemes AS lexemes_total,
    greatest(totals.parts, coalesce((SELECT max(c.parts) FROM counts c), 0))::bigint AS parts,
    coalesce((
        SELECT string_agg(r.q, ' & ')
        FROM (
            SELECT '(' || phraseto_tsquery('english', p)::text || ')' AS q
            FROM unnest(@phrases::text[]) p
            WHERE to_tsvector('english', p) <> ''::tsvector
            UNION ALL
            SELECT '!(' || plainto_tsquery('english', n)::text || ')'
            FROM unnest(@negations::text[]) n
            WHERE to_tsvector('english', n) <> ''::tsvector
        ) r
    ), '')::text AS required
FROM totals;

-- name: RecallCandidates :many
-- RecallCandidates returns the live facts of one scope that hold any lexeme
-- of the tsquery match and satisfy required (when given) and the filters:
-- for each, its effective confidence at @now, its length in lexemes and the
-- positions of the question's lexemes in it (its search vector cut to
-- them), which is all recall ranks by: every one, through
-- entity_facts_scope_search_idx.
SELECT f.id,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence,
    length(f.search)::integer AS length,
    ts_filter(setweight(f.search, 'A', @lexemes::text[]), '{a}')::text AS terms
FROM entity_facts f
WHERE f.scope = @scope::text
  AND f.status = 'active'
  AND f.search @@ (@match::text)::tsquery
  AND (sqlc.narg('required')::text IS NULL OR f.search @@ (sqlc.narg('required')::text)::tsquery)
  AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz
       OR (f.category = 'obligation' AND f.deadline <= f.forget_at))
  AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (
      SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
  AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category')::text)
  AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability')::text)
  AND (sqlc.narg('since')::timestamptz IS NULL OR f.confirmed_at >= sqlc.narg('since')::timestamptz)
  AND (sqlc.narg('until')::timestamptz IS NULL OR f.confirmed_at <= sqlc.narg('until')::timestamptz);

-- name: RecallNewestCandidates :many
-- RecallNewestCandidates is RecallCandidates for words common in the scope:
-- of the scope's newest recent_facts live facts, the newest max_rows that
-- match. It walks entity_facts_recall_recent_idx newest first and reads
-- every column it needs from the index, so it costs about the same whether
-- the words are in one fact of ten or in every one, and never more than
-- recent_facts index entries.
SELECT f.id,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence,
    length(f.search)::integer AS length,
    ts_filter(setweight(f.search, 'A', @lexemes::text[]), '{a}')::text AS terms
FROM (
    SELECT r.id, r.entity_id, r.durability, r.category, r.confirmed_at, r.confidence, r.decay_from,
        r.decay_half_life, r.forget_at, r.search
    FROM entity_facts r
    WHERE r.scope = @scope::text AND r.status = 'active'
    ORDER BY r.id DESC
    LIMIT @recent_facts::integer
) f
WHERE f.search @@ (@match::text)::tsquery
  AND (sqlc.narg('required')::text IS NULL OR f.search @@ (sqlc.narg('required')::text)::tsquery)
  AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz
       OR (f.category = 'obligation' AND EXISTS (
           SELECT 1 FROM entity_facts h WHERE h.scope = @scope::text AND h.id = f.id AND h.deadline <= h.forget_at)))
  AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (
      SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
  AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category')::text)
  AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability')::text)
  AND (sqlc.narg('since')::timestamptz IS NULL OR f.confirmed_at >= sqlc.narg('since')::timestamptz)
  AND (sqlc.narg('until')::timestamptz IS NULL OR f.confirmed_at <= sqlc.narg('until')::timestamptz)
ORDER BY f.id DESC
LIMIT @max_rows;

-- name: RecallPending :many
-- RecallPending returns the working rows of one scope that consolidation has
-- still to promote (durable, not past an explicit ttl) that satisfy required
-- (when given) and name the entity (when given): for each tsquery of words
-- (one word each), the newest per_word rows that hold it, so that a row
-- holding a rare word is read however many newer rows hold a common one.
-- Each word's rows are found through memory_nodes_pending_search_idx: its
-- cost grows with the rows that hold the word, which wait for at most one
-- consolidation interval. Each row comes with what RecallCandidates gives
-- for a fact (its length in lexemes and its search vector cut to the
-- question's lexemes), its properties (consolidation's guidance, confidence
-- among them) and what its fact will show.
WITH hits AS (
    SELECT DISTINCT h.id
    FROM unnest(@words::text[]) w, LATERAL (
        -- OFFSET 0 keeps a word's rows read through the index, then sorted,
        -- rather than searched for by walking every row newest first.
        SELECT m.id FROM (
            SELECT n.id
            FROM memory_nodes n
            WHERE n.scope = @scope::text AND n.promoted_at IS NULL AND n.marker = 'durable'
              AND tenure_node_search(n.properties, n.content) @@ w::tsquery
              AND (sqlc.narg('required')::text IS NULL
                   OR tenure_node_search(n.properties, n.content) @@ (sqlc.narg('required')::text)::tsquery)
              AND (n.ttl_seconds IS NULL OR n.created_at + make_interval(secs => n.ttl_seconds) > @now::timestamptz)
              AND (sqlc.narg('entity')::text IS NULL OR btrim(n.properties->>'entity') = sqlc.narg('entity')::text)
              AND (sqlc.narg('since')::timestamptz IS NULL OR coalesce(n.observed_at, n.created_at) >= sqlc.narg('since')::timestamptz)
              AND (sqlc.narg('until')::timestamptz IS NULL OR coalesce(n.observed_at, n.created_at) <= sqlc.narg('until')::timestamptz)
            OFFSET 0) m
        ORDER BY m.id DESC
        LIMIT @per_word::integer) h
)
SELECT n.id, n.scope, n.content, n.properties, n.importance, n.created_at,
    coalesce(n.observed_at, n.created_at)::timestamptz AS observed_at,
    length(v.search)::integer AS length,
    ts_filter(setweight(v.search, 'A', @lexemes::text[]), '{a}')::text AS terms
FROM hits
JOIN memory_nodes n ON n.id = hits.id
-- OFFSET 0 computes the vector once a row, not once a use.
CROSS JOIN LATERAL (SELECT tenure_node_search(n.properties, n.content) AS search OFFSET 0) v;

-- name: RecallFacts :many
-- RecallFacts reads the facts recall chose, whole, with their entity's name
-- and, for a fact of category decision, its decision (recallDecision reads
-- it). Facts archived since they were ranked are left out.
SELECT f.id, f.scope, f.entity_id, e.name AS entity_name, f.key, f.content, f.durability,
    f.category, f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline,
    f.forget_at, f.status, f.archived_at, f.archive_reason, f.source, f.source_node_id,
    f.extraction_count, f.version, f.created_at, f.updated_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence,
    (CASE WHEN d.id IS NOT NULL THEN to_jsonb(d) || jsonb_build_object('entity_name', de.name) END)::jsonb AS decision
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
LEFT JOIN decisions d ON d.fact_id = f.id AND f.category = 'decision'
LEFT JOIN entities de ON de.id = d.entity_id
WHERE f.id = ANY(@ids::bigint[]) AND f.status = 'active';

-- name: FoldRecallTerms :exec
-- FoldRecallTerms replaces the rows of recall_terms on every (scope, lexeme)
-- written since the last fold by one row with their sum, dropping those at
-- zero. A concurrent writer's rows are not seen and stay as they are, so the
-- sums never change.
WITH touched AS (
    SELECT DISTINCT t.scope, t.lexeme FROM recall_terms t WHERE NOT t.folded
), gone AS (
    DELETE FROM recall_terms t
    USING touched
    WHERE t.scope = touched.scope AND t.lexeme = touched.lexeme
    RETURNING t.scope, t.lexeme, t.facts, t.lexemes
)
INSERT INTO recall_terms (scope, lexeme, facts, lexemes, folded)
SELECT g.scope, g.lexeme, sum(g.facts)::bigint, sum(g.lexemes)::bigint, true
FROM gone g
GROUP BY g.scope, g.lexeme
HAVING sum(g.facts) <> 0 OR sum(g.lexemes) <> 0;

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
      AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz
           OR (f.category = 'obligation' AND EXISTS (
               SELECT 1 FROM entity_facts h WHERE h.scope = @scope::text AND h.id = f.id AND h.deadline <= h.forget_at)))
      AND (sqlc.narg('entity')::text IS NULL OR f.entity_id = (
          SELECT x.id FROM entities x WHERE x.scope = @scope::text AND x.name = sqlc.narg('entity')::text))
      AND (sqlc.narg('category')::text IS NULL OR f.category = sqlc.narg('category')::text)
      AND (sqlc.narg('durability')::text IS NULL OR f.durability = sqlc.narg('durability')::text)
      AND (sqlc.narg('since')::timestamptz IS NULL OR f.confirmed_at >= sqlc.narg('since')::timestamptz)
      AND (sqlc.narg('until')::timestamptz IS NULL OR f.confirmed_at <= sqlc.narg('until')::timestamptz)
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

