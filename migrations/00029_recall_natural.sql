-- +goose Up
-- Recall ranks a question by its words, any of which may match, with BM25
-- weights (memory/recall.go). Three changes serve it:
--
-- 1. A fact's search vector holds its entity's name as well as its key and
--    content, so that "What did Caroline research?" finds what Caroline
--    said although the fact's text does not name her. It is no longer a
--    generated column (that cannot read the entities table): a trigger sets
--    it whenever content, key or entity change, and a renamed entity sets it
--    again on its facts. The default entity, general, names nothing.
-- 2. recall_terms keeps, per scope, how many live facts hold each lexeme
--    (BM25's document frequency) and, in the row of the empty lexeme, how
--    many live facts there are and how many lexemes they hold in all (for
--    the average length). Writers only append: statement-level triggers add
--    one signed row per (scope, lexeme) a statement changed, so concurrent
--    writers never wait for one another here; FoldRecallTerms folds the
--    rows added since the last fold into one per key.
-- 3. The indexes of the former exact ranking of all-words queries
--    (entity_facts_recall_repeats_idx, entity_facts_recall_terms_idx) and
--    their functions go: recall reads its candidates through
--    entity_facts_scope_search_idx, which the console's text filter reads
--    too.

DROP INDEX entity_facts_recall_repeats_idx;
DROP INDEX entity_facts_recall_terms_idx;
DROP FUNCTION tenure_recall_repeats(text, tsvector, double precision);
DROP FUNCTION IF EXISTS tenure_recall_terms(text, tsvector);
DROP FUNCTION tenure_recall_terms_checked(text, tsvector);

-- tenure_fact_search is a fact's search vector: its entity's name (none for
-- general), its key with '_' read as a space, and its content.
-- +goose StatementBegin
CREATE FUNCTION tenure_fact_search(p_entity text, p_key text, p_content text)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('english',
        CASE WHEN p_entity = 'general' THEN '' ELSE p_entity END
        || ' ' || replace(p_key, '_', ' ') || ' ' || p_content)
$$;
-- +goose StatementEnd

ALTER TABLE entity_facts DROP COLUMN search;
ALTER TABLE entity_facts ADD COLUMN search tsvector;
UPDATE entity_facts f SET search = tenure_fact_search(e.name, f.key, f.content)
FROM entities e WHERE e.id = f.entity_id;
ALTER TABLE entity_facts ALTER COLUMN search SET NOT NULL;
CREATE INDEX entity_facts_scope_search_idx ON entity_facts USING gin (scope, durability, category, search);

-- +goose StatementBegin
CREATE FUNCTION entity_facts_set_search() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.search := tenure_fact_search(
        (SELECT e.name FROM entities e WHERE e.id = NEW.entity_id), NEW.key, NEW.content);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER entity_facts_search BEFORE INSERT OR UPDATE OF content, key, entity_id ON entity_facts
    FOR EACH ROW EXECUTE FUNCTION entity_facts_set_search();

-- +goose StatementBegin
CREATE FUNCTION entities_rename_search() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE entity_facts SET search = tenure_fact_search(NEW.name, key, content)
    WHERE entity_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER entities_rename_search AFTER UPDATE OF name ON entities
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name)
    EXECUTE FUNCTION entities_rename_search();

CREATE TABLE recall_terms (
    scope   text    NOT NULL,
    lexeme  text    NOT NULL,  -- '' for the scope's totals
    facts   bigint  NOT NULL,  -- live facts holding the lexeme (for '': all live facts)
    lexemes bigint  NOT NULL DEFAULT 0, -- for '': the lexemes of all live facts
    folded  boolean NOT NULL DEFAULT false
);
CREATE INDEX recall_terms_key_idx ON recall_terms (scope, lexeme);
CREATE INDEX recall_terms_unfolded_idx ON recall_terms (scope, lexeme) WHERE NOT folded;

-- +goose StatementBegin
CREATE FUNCTION recall_terms_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recall_terms (scope, lexeme, facts, lexemes)
    SELECT scope, lexeme, count(*), 0
    FROM new_facts, unnest(tsvector_to_array(search)) lexeme
    WHERE status = 'active'
    GROUP BY scope, lexeme
    UNION ALL
    SELECT scope, '', count(*), sum(length(search))
    FROM new_facts
    WHERE status = 'active'
    GROUP BY scope;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- An update changes recall_terms only for facts that went live, stopped
-- being live, or changed their search vector or scope while live.
-- +goose StatementBegin
CREATE FUNCTION recall_terms_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    WITH changed AS (
        SELECT o.scope AS old_scope, o.search AS old_search, o.status = 'active' AS old_live,
            n.scope AS new_scope, n.search AS new_search, n.status = 'active' AS new_live
        FROM old_facts o JOIN new_facts n ON n.id = o.id
        WHERE (o.status = 'active') <> (n.status = 'active')
           OR ((o.status = 'active') AND (o.search <> n.search OR o.scope <> n.scope))
    ), d AS (
        SELECT old_scope AS scope, old_search AS search, -1 AS sign FROM changed WHERE old_live
        UNION ALL
        SELECT new_scope, new_search, 1 FROM changed WHERE new_live
    )
    INSERT INTO recall_terms (scope, lexeme, facts, lexemes)
    SELECT scope, lexeme, sum(sign), 0
    FROM d, unnest(tsvector_to_array(search)) lexeme
    GROUP BY scope, lexeme
    HAVING sum(sign) <> 0
    UNION ALL
    SELECT scope, '', sum(sign), sum(sign * length(search))
    FROM d
    GROUP BY scope
    HAVING sum(sign) <> 0 OR sum(sign * length(search)) <> 0;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION recall_terms_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recall_terms (scope, lexeme, facts, lexemes)
    SELECT scope, lexeme, -count(*), 0
    FROM old_facts, unnest(tsvector_to_array(search)) lexeme
    WHERE status = 'active'
    GROUP BY scope, lexeme
    UNION ALL
    SELECT scope, '', -count(*), -sum(length(search))
    FROM old_facts
    WHERE status = 'active'
    GROUP BY scope;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION recall_terms_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM recall_terms;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER recall_terms_insert AFTER INSERT ON entity_facts
    REFERENCING NEW TABLE AS new_facts
    FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_insert();
CREATE TRIGGER recall_terms_update AFTER UPDATE ON entity_facts
    REFERENCING OLD TABLE AS old_facts NEW TABLE AS new_facts
    FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_update();
CREATE TRIGGER recall_terms_delete AFTER DELETE ON entity_facts
    REFERENCING OLD TABLE AS old_facts
    FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_delete();
CREATE TRIGGER recall_terms_truncate AFTER TRUNCATE ON entity_facts
    FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_truncate();

INSERT INTO recall_terms (scope, lexeme, facts, lexemes, folded)
SELECT scope, lexeme, count(*), 0, true
FROM entity_facts, unnest(tsvector_to_array(search)) lexeme
WHERE status = 'active'
GROUP BY scope, lexeme
UNION ALL
SELECT scope, '', count(*), sum(length(search)), true
FROM entity_facts
WHERE status = 'active'
GROUP BY scope;

-- +goose Down
DROP TRIGGER recall_terms_insert ON entity_facts;
DROP TRIGGER recall_terms_update ON entity_facts;
DROP TRIGGER recall_terms_delete ON entity_facts;
DROP TRIGGER recall_terms_truncate ON entity_facts;
DROP FUNCTION recall_terms_insert();
DROP FUNCTION recall_terms_update();
DROP FUNCTION recall_terms_delete();
DROP FUNCTION recall_terms_truncate();
DROP TABLE recall_terms;
DROP TRIGGER entities_rename_search ON entities;
DROP FUNCTION entities_rename_search();
DROP TRIGGER entity_facts_search ON entity_facts;
DROP FUNCTION entity_facts_set_search();

ALTER TABLE entity_facts DROP COLUMN search;
ALTER TABLE entity_facts ADD COLUMN search tsvector GENERATED ALWAYS AS (
    to_tsvector('english', replace(key, '_', ' ') || ' ' || content)) STORED;
CREATE INDEX entity_facts_scope_search_idx ON entity_facts USING gin (scope, durability, category, search);
DROP FUNCTION tenure_fact_search(text, text, text);

-- The former ranking's functions and indexes, as migrations 00019, 00026 and
-- 00027 left them.
-- +goose StatementBegin
CREATE FUNCTION tenure_recall_terms_checked(p_scope text, p_search tsvector)
RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    tokens text[] := '{}';
    lexeme text;
BEGIN
    FOREACH lexeme IN ARRAY tsvector_to_array(p_search) LOOP
        IF octet_length(lexeme) <= 1000 THEN
            tokens := tokens || (lexeme || ' ' || p_scope);
        END IF;
    END LOOP;
    RETURN array_to_tsvector(tokens);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $migration$
BEGIN
    EXECUTE format($function$
CREATE FUNCTION tenure_recall_terms(p_scope text, p_search tsvector)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN octet_length(p_search::text) <= 1900
        THEN array_to_tsvector(array_remove(string_to_array(
            array_to_string(tsvector_to_array(p_search), ' ' || p_scope || chr(1)) || ' ' || p_scope,
            chr(1)), ' ' || p_scope))
        ELSE %I.tenure_recall_terms_checked(p_scope, p_search)
    END
$$
$function$, current_schema());
END
$migration$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION tenure_recall_repeats(p_scope text, p_search tsvector, p_confidence double precision)
RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    band CONSTANT text := ceil(p_confidence * 10)::integer::text;
    tokens text[] := ARRAY[' ' || band || ' ' || p_scope];
    lex text[];      -- the lexemes, by position
    pos integer[];   -- their positions, in order
    cnt integer[];   -- how often each occurs
    pairs text[] := '{}';   -- 'x y', x before y in byte order
    near integer[] := '{}'; -- their pairs of positions at most one apart
    na integer[] := '{}';
    nb integer[] := '{}';
    rep integer[] := '{}';  -- a position of each lexeme that repeats
    step integer;
    i integer;
    j integer;
    k integer;
    s integer;
    l integer;
    pair text;
BEGIN
    SELECT array_agg(u.lexeme ORDER BY p), array_agg(p ORDER BY p), array_agg(cardinality(u.positions) ORDER BY p)
    INTO lex, pos, cnt
    FROM unnest(p_search) u, unnest(u.positions) p
    WHERE octet_length(u.lexeme) <= 1000;
    FOR i IN 1 .. coalesce(cardinality(lex), 0) LOOP
        -- A lexeme's steps, once: at its first position.
        IF cnt[i] >= 2 AND array_position(lex, lex[i]) = i THEN
            FOREACH step IN ARRAY '{2,3,4,5,6,7,8,10,12,16}'::integer[] LOOP
                EXIT WHEN step > cnt[i];
                tokens := tokens || (lex[i] || ' ' || step || ' ' || p_scope);
            END LOOP;
            IF octet_length(lex[i]) <= 900 THEN
                rep := rep || i;
            END IF;
        END IF;
        -- The near pairs of this position with those after it.
        j := i + 1;
        WHILE j <= cardinality(lex) AND pos[j] <= pos[i] + 1 LOOP
            IF (cnt[i] >= 2 OR cnt[j] >= 2) AND lex[i] <> lex[j]
               AND octet_length(lex[i]) <= 900 AND octet_length(lex[j]) <= 900 THEN
                pair := least(lex[i] COLLATE "C", lex[j]) || ' ' || greatest(lex[i] COLLATE "C", lex[j]);
                k := array_position(pairs, pair);
                IF k IS NULL THEN
                    pairs := pairs || pair;
                    near := near || 1;
                    na := na || cnt[i];
                    nb := nb || cnt[j];
                ELSE
                    near[k] := near[k] + 1;
                END IF;
            END IF;
            j := j + 1;
        END LOOP;
    END LOOP;
    -- Two lexemes that both repeat, near or not.
    FOR i IN 1 .. cardinality(rep) LOOP
        FOR j IN i + 1 .. cardinality(rep) LOOP
            pair := least(lex[rep[i]] COLLATE "C", lex[rep[j]]) || ' ' || greatest(lex[rep[i]] COLLATE "C", lex[rep[j]]);
            IF array_position(pairs, pair) IS NULL THEN
                pairs := pairs || pair;
                near := near || 0;
                na := na || cnt[rep[i]];
                nb := nb || cnt[rep[j]];
            END IF;
        END LOOP;
    END LOOP;
    -- Each pair's level: L = S + min(A, S), S = min(n_x + n_y - 1,
    -- 2 min(n_x, n_y)), in the band of L (the largest of
    -- {3,4,5,6,7,8,10,12,16,24,32} at most L) and the confidence band.
    FOR k IN 1 .. cardinality(pairs) LOOP
        s := least(na[k] + nb[k] - 1, 2 * least(na[k], nb[k]));
        l := s + least(near[k], s);
        CONTINUE WHEN l < 3;
        FOREACH step IN ARRAY '{32,24,16,12,10,8,7,6,5,4,3}'::integer[] LOOP
            IF step <= l THEN
                tokens := tokens || (pairs[k] || ' ' || step || ' ' || band || ' ' || p_scope);
                EXIT;
            END IF;
        END LOOP;
    END LOOP;
    RETURN array_to_tsvector(tokens);
END
$$;
-- +goose StatementEnd

CREATE INDEX entity_facts_recall_terms_idx ON entity_facts
    USING gin (tenure_recall_terms(scope, search)) WITH (gin_pending_list_limit = 1024)
    WHERE status = 'active';
CREATE INDEX entity_facts_recall_repeats_idx ON entity_facts
    USING gin (tenure_recall_repeats(scope, search, confidence)) WITH (fastupdate = off)
    WHERE status = 'active' AND strpos(search::text, ',') > 0;
ALTER INDEX entity_facts_recall_repeats_idx ALTER COLUMN 1 SET STATISTICS 300;
