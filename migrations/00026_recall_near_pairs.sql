-- +goose Up
-- Recall's query "a b" (both words) ranked every match; for two common words
-- that is thousands of facts, each on its own heap page. A cover of 'a' & 'b'
-- scores 0.1 only when its two positions are at most one apart (else at most
-- 0.05), so what bounds a fact's relevance is how many such near pairs of
-- positions it has as well as how often each word occurs (memory/recall.go
-- tells the bound). tenure_recall_repeats now gives the repeats index those
-- counts too: for two lexemes x and y with positions at most one apart, one
-- of them occurring twice or more, a token 'x y j scope' (x before y in byte
-- order) for each step j of {1,2,3,4,6,8} that their count of such pairs of
-- positions reaches. A fact in which every lexeme occurs once is not in the
-- index (its predicate) and needs none: both words once each bound it by 0.1.
--
-- The function also gives, as before, 'lexeme j scope' for each step j of
-- {2,3,4,5,6,7,8,10,12,16} a lexeme's count reaches (the same lists are in
-- memory/recall.go) and the confidence band ' b scope'. It reads the
-- vector's positions once, in order, in one statement; lexemes over 1000
-- bytes get no tokens, and over 900 bytes no near tokens, so that a token
-- stays under the 2 kB a lexeme may have.
--
-- The index is built again over the new function.

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_recall_repeats(p_scope text, p_search tsvector, p_confidence double precision)
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

REINDEX INDEX entity_facts_recall_repeats_idx;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_recall_repeats(p_scope text, p_search tsvector, p_confidence double precision)
RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    tokens text[] := ARRAY[' ' || ceil(p_confidence * 10)::integer || ' ' || p_scope];
    r record;
    step integer;
BEGIN
    FOR r IN SELECT u.lexeme, cardinality(u.positions) AS n FROM unnest(p_search) u
             WHERE cardinality(u.positions) >= 2 AND octet_length(u.lexeme) <= 1000 LOOP
        FOREACH step IN ARRAY '{2,3,4,5,6,7,8,10,12,16}'::integer[] LOOP
            EXIT WHEN step > r.n;
            tokens := tokens || (r.lexeme || ' ' || step || ' ' || p_scope);
        END LOOP;
    END LOOP;
    RETURN array_to_tsvector(tokens);
END
$$;
-- +goose StatementEnd

REINDEX INDEX entity_facts_recall_repeats_idx;
