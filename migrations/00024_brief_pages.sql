-- +goose Up
-- The brief packs greedily: an item that does not fit is skipped and a
-- shorter one after it may still fit. To read a page of each section and
-- still know what the rest could add, every index a section is read through
-- ends with the characters its line's text takes (a decision's with its
-- reasoning), so that a read of "the rows after this one whose line could
-- fit in the room left" filters on the index alone and visits the table only
-- for rows that pass.

-- tenure_brief_len is the number of characters p_text takes on a brief line:
-- its words joined by single spaces, white space (Go's unicode.IsSpace) at
-- both ends left out.
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_len(p_text text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT char_length(regexp_replace(btrim(translate(p_text,
        U&' \0009\000A\000B\000C\000D\0085\00A0\1680\2000\2001\2002\2003\2004\2005\2006\2007\2008\2009\200A\2028\2029\202F\205F\3000',
        '                         ')), '  +', ' ', 'g'))
$$;
-- +goose StatementEnd

-- tenure_brief_decision_len is the number of characters a locked decision's
-- line takes besides its entity: the decision, " — because " and the
-- reasoning when there is one, " (rejected: ", the alternatives that are not
-- blank joined by ", ", and ")" when there is one. Each text is measured as
-- tenure_brief_len measures it (spelled out rather than called, so that an
-- index over this function rebuilds under any search_path).
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_decision_len(p_decision text, p_reasoning text, p_alternatives text[])
RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    w CONSTANT text := U&' \0009\000A\000B\000C\000D\0085\00A0\1680\2000\2001\2002\2003\2004\2005\2006\2007\2008\2009\200A\2028\2029\202F\205F\3000';
    sp CONSTANT text := '                         ';
    n integer;
    l integer;
    k integer := 0;
    a text;
BEGIN
    n := char_length(regexp_replace(btrim(translate(p_decision, w, sp)), '  +', ' ', 'g'));
    l := coalesce(char_length(regexp_replace(btrim(translate(p_reasoning, w, sp)), '  +', ' ', 'g')), 0);
    IF l > 0 THEN
        n := n + 11 + l;
    END IF;
    FOREACH a IN ARRAY coalesce(p_alternatives, '{}'::text[]) LOOP
        l := coalesce(char_length(regexp_replace(btrim(translate(a, w, sp)), '  +', ' ', 'g')), 0);
        IF l > 0 THEN
            n := n + l + CASE WHEN k = 0 THEN 13 ELSE 2 END;
            k := k + 1;
        END IF;
    END LOOP;
    RETURN n;
END
$$;
-- +goose StatementEnd

DROP INDEX decisions_brief_idx;
CREATE INDEX decisions_brief_idx ON decisions (scope, decided_at, id,
    tenure_brief_decision_len(decision, reasoning, alternatives))
    WHERE do_not_reopen;

-- The shortest entity name, decision line and fact text of a scope, each an
-- index probe: a filtered read whose room is shorter than every row of its
-- section is not sent at all (most briefs: the room left once the budget is
-- nearly full).
CREATE INDEX entities_brief_len_idx ON entities (scope, tenure_brief_len(name));
CREATE INDEX decisions_brief_len_idx ON decisions (scope, tenure_brief_decision_len(decision, reasoning, alternatives))
    WHERE do_not_reopen;
CREATE INDEX entity_facts_brief_len_idx ON entity_facts (scope, tenure_brief_len(content))
    WHERE status = 'active';

DROP INDEX entity_facts_brief_obligations_idx;
CREATE INDEX entity_facts_brief_obligations_idx ON entity_facts (scope, deadline, id, tenure_brief_len(content))
    WHERE status = 'active' AND category = 'obligation' AND deadline IS NOT NULL;

DROP INDEX entity_facts_brief_states_idx;
CREATE INDEX entity_facts_brief_states_idx ON entity_facts (scope, confirmed_at, id, tenure_brief_len(content))
    WHERE status = 'active' AND category IN ('state', 'mood');

DROP INDEX entity_facts_brief_rank_idx;
CREATE INDEX entity_facts_brief_rank_idx ON entity_facts (
    scope,
    tenure_brief_group(decay_half_life, decay_from, confirmed_at),
    tenure_brief_key(confidence, importance, decay_half_life, decay_from, confirmed_at),
    id,
    tenure_brief_len(content))
    WHERE status = 'active' AND durability IN ('permanent', 'long_term') AND category <> 'decision';

-- tenure_brief_facts as before (migration 00021), with p_max_len and
-- p_max_line: when set, only facts whose text takes at most p_max_len
-- characters on a brief line (tenure_brief_len), and at most p_max_line with
-- their entity's name, are seen, and the p_n best of those returned.
DROP FUNCTION tenure_brief_facts(text, text, timestamptz, integer, bigint);
-- +goose StatementBegin
CREATE FUNCTION tenure_brief_facts(
    p_scope text, p_entity text, p_at timestamptz, p_n integer, p_depth bigint,
    p_max_len integer, p_max_line integer)
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
              AND tenure_brief_len(f.content) <= coalesce(p_max_len, 2147483647)
              AND (p_max_line IS NULL OR tenure_brief_len(f.content)
                   + (SELECT tenure_brief_len(x.name) FROM entities x WHERE x.id = f.entity_id) <= p_max_line)
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
                  AND tenure_brief_len(f.content) <= coalesce(p_max_len, 2147483647)
                  AND (p_max_line IS NULL OR tenure_brief_len(f.content)
                       + (SELECT tenure_brief_len(x.name) FROM entities x WHERE x.id = f.entity_id) <= p_max_line)
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
                  AND tenure_brief_len(f.content) <= coalesce(p_max_len, 2147483647)
                  AND (p_max_line IS NULL OR tenure_brief_len(f.content)
                       + (SELECT tenure_brief_len(x.name) FROM entities x WHERE x.id = f.entity_id) <= p_max_line)
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

-- +goose Down
DROP FUNCTION tenure_brief_facts(text, text, timestamptz, integer, bigint, integer, integer);
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

DROP INDEX entity_facts_brief_rank_idx;
CREATE INDEX entity_facts_brief_rank_idx ON entity_facts (
    scope,
    tenure_brief_group(decay_half_life, decay_from, confirmed_at),
    tenure_brief_key(confidence, importance, decay_half_life, decay_from, confirmed_at),
    id)
    WHERE status = 'active' AND durability IN ('permanent', 'long_term') AND category <> 'decision';
DROP INDEX entity_facts_brief_states_idx;
CREATE INDEX entity_facts_brief_states_idx ON entity_facts (scope, confirmed_at, id)
    WHERE status = 'active' AND category IN ('state', 'mood');
DROP INDEX entity_facts_brief_obligations_idx;
CREATE INDEX entity_facts_brief_obligations_idx ON entity_facts (scope, deadline, id)
    WHERE status = 'active' AND category = 'obligation' AND deadline IS NOT NULL;
DROP INDEX decisions_brief_idx;
CREATE INDEX decisions_brief_idx ON decisions (scope, decided_at, id) WHERE do_not_reopen;
DROP INDEX entity_facts_brief_len_idx;
DROP INDEX decisions_brief_len_idx;
DROP INDEX entities_brief_len_idx;
DROP FUNCTION tenure_brief_decision_len(text, text, text[]);
DROP FUNCTION tenure_brief_len(text);
