-- +goose Up
-- The brief's "known facts" are the durable facts of a scope (permanent and
-- long-term, not decisions) with the highest effective confidence ×
-- importance, c0 · imp · 2^(-max(0, t - decay_from) / h). Between facts of one
-- half-life h whose decay has started, that order never changes with t: it is
-- the order of the static key log2(c0 · imp) + decay_from / h. So the facts
-- are indexed in groups, each in an order that is its order of score:
--
--   group -1:       decay anchored after confirmation (an obligation's
--                   deadline): no decay before decay_from, key c0 · imp;
--   group Infinity: no half-life, never decays: key c0 · imp;
--   group h:        decay from decay_from with half-life h: key
--                   log2(c0 · imp) + (decay_from - epoch) / h, -Infinity when
--                   c0 · imp is 0, Infinity when decay_from is unknown.
--
-- Within every group a fact's score never exceeds its bound: c0 · imp in
-- groups -1 and Infinity, 2^(key - (t - epoch) / h) in group h (and never more
-- than 1). The bound is the score itself in group Infinity, in group -1 until
-- the deadline and in group h once decay has started; it is more than the
-- score only for an obligation past its deadline (forgotten within days) or
-- a fact stated with a time ahead of t. Walking each group down its index
-- from the top, the brief reads a few facts more than it shows, and stops
-- once no unread fact can outrank the ones it has, however large the scope.

-- tenure_brief_group is the group of a durable fact in the brief's index.
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_group(
    p_half_life double precision, p_decay_from timestamptz, p_confirmed_at timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN p_decay_from > p_confirmed_at THEN -1::double precision
        WHEN p_half_life IS NULL THEN 'Infinity'::double precision
        ELSE p_half_life
    END
$$;
-- +goose StatementEnd

-- tenure_brief_key is a durable fact's key within its group.
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_key(
    p_confidence double precision, p_importance double precision, p_half_life double precision,
    p_decay_from timestamptz, p_confirmed_at timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN p_decay_from > p_confirmed_at OR p_half_life IS NULL THEN p_confidence * p_importance
        WHEN p_decay_from IS NULL THEN 'Infinity'::double precision
        WHEN p_confidence * p_importance <= 0 THEN '-Infinity'::double precision
        ELSE ln(p_confidence * p_importance) / 0.6931471805599453
            + extract(epoch FROM p_decay_from - to_timestamp(0))::double precision / p_half_life
    END
$$;
-- +goose StatementEnd

-- tenure_brief_margin is how far, in log2 units, a key computed in floating
-- point may stray from its exact value at p_at, with a wide safety factor.
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_margin(p_group double precision, p_key double precision, p_at timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT 1e-12 * (1 + abs(p_key)
        + abs(extract(epoch FROM p_at - to_timestamp(0))::double precision / p_group))
$$;
-- +goose StatementEnd

-- tenure_brief_bound is the most a durable fact of group p_group with key
-- p_key may score at p_at.
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_bound(p_group double precision, p_key double precision, p_at timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN p_group = -1 OR p_group = 'Infinity' THEN p_key
        WHEN p_key = 'Infinity' THEN 1
        WHEN p_key = '-Infinity' THEN 0
        ELSE power(2::double precision, greatest(-1000, least(0,
            p_key - extract(epoch FROM p_at - to_timestamp(0))::double precision / p_group
            + tenure_brief_margin(p_group, p_key, p_at))))
    END
$$;
-- +goose StatementEnd

-- tenure_brief_floor is the smallest key a durable fact of group p_group must
-- have to score p_score or more at p_at.
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_floor(p_group double precision, p_score double precision, p_at timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN p_group = -1 OR p_group = 'Infinity' THEN p_score
        WHEN p_score <= 0 THEN '-Infinity'::double precision
        ELSE ln(p_score) / 0.6931471805599453
            + extract(epoch FROM p_at - to_timestamp(0))::double precision / p_group
            - tenure_brief_margin(p_group, ln(p_score) / 0.6931471805599453
                + extract(epoch FROM p_at - to_timestamp(0))::double precision / p_group, p_at)
    END
$$;
-- +goose StatementEnd

-- tenure_brief_facts returns the brief's known facts: the p_n live durable
-- facts of p_scope (permanent and long-term, not decisions) with the highest
-- effective confidence at p_at times importance, with that score (ties: the
-- newest first), in no particular order. With p_entity, every durable fact of
-- that entity is scored. Without it, the facts are read down
-- entity_facts_brief_rank_idx, group by group: first p_n / groups + 1 facts
-- of each group, times p_depth; then, of each group that may hold more, the
-- facts after those whose bound reaches the p_n-th best score read so far (at
-- most p_n times p_depth). complete tells whether that proves the best p_n:
-- every group was read to its end, or down to that bound, or down to a fact
-- whose bound ranks below the p_n-th best (in groups -1 and Infinity the key
-- is the bound, and the order of (key, id) never puts an unread fact before a
-- read one). When it is false, ask again with a larger p_depth. A PL/pgSQL
-- function, so that each session plans these statements once, not at every
-- brief.
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_facts(
    p_scope text, p_entity text, p_at timestamptz, p_n integer, p_depth bigint)
RETURNS TABLE (id bigint, entity_id bigint, key text, content text, durability text,
    category text, deadline timestamptz, confirmed_at timestamptz,
    effective_confidence double precision, score double precision, complete boolean)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    IF p_entity IS NOT NULL THEN
        RETURN QUERY
        SELECT m.id, m.entity_id, m.key, m.content, m.durability, m.category, m.deadline,
            m.confirmed_at, m.effective_confidence, m.effective_confidence * m.importance, true
        FROM (
            SELECT f.id, f.entity_id, f.key, f.content, f.durability, f.category, f.deadline,
                f.confirmed_at, f.importance,
                tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, p_at) AS effective_confidence
            FROM entity_facts f
            WHERE f.scope = p_scope
              AND f.status = 'active'
              AND f.durability IN ('permanent', 'long_term')
              AND f.category <> 'decision'
              AND (f.forget_at IS NULL OR f.forget_at > p_at)
              AND f.entity_id = (SELECT x.id FROM entities x WHERE x.scope = p_scope AND x.name = p_entity)
            OFFSET 0
        ) m
        ORDER BY m.effective_confidence * m.importance DESC, m.id DESC
        LIMIT p_n;
        RETURN;
    END IF;
    RETURN QUERY
    WITH RECURSIVE
    -- The groups of the scope's durable facts, one index probe each.
    groups (grp) AS (
        (SELECT tenure_brief_group(f.decay_half_life, f.decay_from, f.confirmed_at)
         FROM entity_facts f
         WHERE f.scope = p_scope
           AND f.status = 'active'
           AND f.durability IN ('permanent', 'long_term')
           AND f.category <> 'decision'
         ORDER BY 1
         LIMIT 1)
        UNION ALL
        SELECT (SELECT tenure_brief_group(f.decay_half_life, f.decay_from, f.confirmed_at)
                FROM entity_facts f
                WHERE f.scope = p_scope
                  AND f.status = 'active'
                  AND f.durability IN ('permanent', 'long_term')
                  AND f.category <> 'decision'
                  AND tenure_brief_group(f.decay_half_life, f.decay_from, f.confirmed_at) > g.grp
                ORDER BY 1
                LIMIT 1)
        FROM groups g
        WHERE g.grp IS NOT NULL
    ),
    -- How many facts the first read takes from each group.
    depth AS (
        SELECT (p_n / greatest(count(grp), 1) + 1) * p_depth AS per_group
        FROM groups
        WHERE grp IS NOT NULL
    ),
    -- The first facts of each group, scored (sc), with their place in the
    -- group's order (rn).
    first_read AS (
        SELECT g.grp, r.*
        FROM groups g
        CROSS JOIN LATERAL (
            SELECT s.*, s.ec * s.importance AS sc, row_number() OVER () AS rn
            FROM (
                SELECT f.id, f.entity_id, f.key, f.content, f.durability, f.category, f.deadline,
                    f.confirmed_at, f.confidence, f.importance, f.decay_half_life, f.decay_from,
                    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, p_at) AS ec
                FROM entity_facts f
                WHERE f.scope = p_scope
                  AND f.status = 'active'
                  AND f.durability IN ('permanent', 'long_term')
                  AND f.category <> 'decision'
                  AND tenure_brief_group(f.decay_half_life, f.decay_from, f.confirmed_at) = g.grp
                  AND (f.forget_at IS NULL OR f.forget_at > p_at)
                ORDER BY tenure_brief_key(f.confidence, f.importance, f.decay_half_life, f.decay_from, f.confirmed_at) DESC,
                    f.id DESC
                LIMIT (SELECT per_group FROM depth)
            ) s
        ) r
        WHERE g.grp IS NOT NULL
    ),
    -- Per group: how many facts the first read took, and the last one's key.
    first_last AS (
        SELECT DISTINCT ON (r.grp) r.grp, r.id, r.rn AS n,
            tenure_brief_key(r.confidence, r.importance, r.decay_half_life, r.decay_from, r.confirmed_at) AS k
        FROM first_read r
        ORDER BY r.grp, r.rn DESC
    ),
    -- The p_n-th best score of the first read: no fact that scores less can
    -- be among the best.
    cut AS (
        SELECT coalesce((SELECT r.sc FROM first_read r ORDER BY r.sc DESC, r.id DESC
            OFFSET p_n - 1 LIMIT 1), '-Infinity'::double precision) AS sc
    ),
    -- The facts after the first read of each group whose bound reaches the
    -- cut, when the last one read does.
    more_read AS (
        SELECT l.grp, r.*
        FROM first_last l
        CROSS JOIN cut c
        CROSS JOIN LATERAL (
            SELECT s.*, s.ec * s.importance AS sc, row_number() OVER () AS rn
            FROM (
                SELECT f.id, f.entity_id, f.key, f.content, f.durability, f.category, f.deadline,
                    f.confirmed_at, f.confidence, f.importance, f.decay_half_life, f.decay_from,
                    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, p_at) AS ec
                FROM entity_facts f
                WHERE f.scope = p_scope
                  AND f.status = 'active'
                  AND f.durability IN ('permanent', 'long_term')
                  AND f.category <> 'decision'
                  AND tenure_brief_group(f.decay_half_life, f.decay_from, f.confirmed_at) = l.grp
                  AND (tenure_brief_key(f.confidence, f.importance, f.decay_half_life, f.decay_from, f.confirmed_at), f.id)
                      < (l.k, l.id)
                  AND tenure_brief_key(f.confidence, f.importance, f.decay_half_life, f.decay_from, f.confirmed_at)
                      >= tenure_brief_floor(l.grp, c.sc, p_at)
                  AND (f.forget_at IS NULL OR f.forget_at > p_at)
                ORDER BY tenure_brief_key(f.confidence, f.importance, f.decay_half_life, f.decay_from, f.confirmed_at) DESC,
                    f.id DESC
                LIMIT p_n * p_depth
            ) s
        ) r
        WHERE l.n = (SELECT per_group FROM depth)
          AND tenure_brief_bound(l.grp, l.k, p_at) >= c.sc
    ),
    more_last AS (
        SELECT DISTINCT ON (r.grp) r.grp, r.id, r.rn AS n,
            tenure_brief_key(r.confidence, r.importance, r.decay_half_life, r.decay_from, r.confirmed_at) AS k
        FROM more_read r
        ORDER BY r.grp, r.rn DESC
    ),
    -- The best p_n of all that was read, and the last of them.
    ranked AS (
        SELECT u.*
        FROM (SELECT * FROM first_read UNION ALL SELECT * FROM more_read) u
        ORDER BY u.sc DESC, u.id DESC
        LIMIT p_n
    ),
    nth AS (
        SELECT r.sc, r.id FROM ranked r ORDER BY r.sc, r.id LIMIT 1
    ),
    -- Whether no unread fact can rank among them.
    done AS (
        SELECT coalesce(bool_and(
            fl.n < d.per_group
            OR (tenure_brief_bound(fl.grp, fl.k, p_at) >= c.sc
                AND coalesce(ml.n, 0) < p_n * p_depth)
            OR CASE WHEN fl.grp = -1 OR fl.grp = 'Infinity'
                    THEN (coalesce(ml.k, fl.k), coalesce(ml.id, fl.id)) <= (nth.sc, nth.id)
                    ELSE tenure_brief_bound(fl.grp, coalesce(ml.k, fl.k), p_at) < nth.sc
               END), true) AS complete
        FROM first_last fl
        CROSS JOIN depth d
        CROSS JOIN cut c
        LEFT JOIN more_last ml ON ml.grp = fl.grp
        LEFT JOIN nth ON true
    )
    SELECT r.id, r.entity_id, r.key, r.content, r.durability, r.category, r.deadline,
        r.confirmed_at, r.ec, r.sc, (SELECT done.complete FROM done)
    FROM ranked r;
END
$$;
-- +goose StatementEnd

CREATE INDEX entity_facts_brief_rank_idx ON entity_facts (
    scope,
    tenure_brief_group(decay_half_life, decay_from, confirmed_at),
    tenure_brief_key(confidence, importance, decay_half_life, decay_from, confirmed_at),
    id)
    WHERE status = 'active' AND durability IN ('permanent', 'long_term') AND category <> 'decision';

-- The walk by confidence × importance alone is replaced by the index above.
DROP INDEX entity_facts_brief_idx;

-- Every brief reads the names of the entities of a few thousand candidates:
-- an index-only lookup, without a visit to the table.
CREATE INDEX entities_id_name_idx ON entities (id) INCLUDE (name);

-- +goose Down
DROP INDEX entities_id_name_idx;
CREATE INDEX entity_facts_brief_idx ON entity_facts (scope, (confidence * importance), id)
    WHERE status = 'active' AND durability IN ('permanent', 'long_term') AND category <> 'decision';
DROP INDEX entity_facts_brief_rank_idx;
DROP FUNCTION tenure_brief_facts(text, text, timestamptz, integer, bigint);
DROP FUNCTION tenure_brief_floor(double precision, double precision, timestamptz);
DROP FUNCTION tenure_brief_bound(double precision, double precision, timestamptz);
DROP FUNCTION tenure_brief_margin(double precision, double precision, timestamptz);
DROP FUNCTION tenure_brief_key(double precision, double precision, double precision, timestamptz, timestamptz);
DROP FUNCTION tenure_brief_group(double precision, timestamptz, timestamptz);
