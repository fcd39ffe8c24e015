-- +goose Up
-- Two indexes let recall read a few hundred facts of a scope, not every match
-- of a query (how, and why the result is the same as ranking every match, is
-- told in memory/recall.go).
--
-- Both index tokens made of a fact's lexemes and its scope, so that a
-- posting list holds the facts of one scope only: intersecting two lexemes'
-- lists of one scope costs their few thousand entries, where the lists of
-- the whole table cost hundreds of thousands (and the scope's own list as
-- many again). Lexemes never contain a space; a token that a lexeme with a
-- space in it could also make only adds candidates, which recall checks
-- against the query. Tokens stay under the 2 kB a lexeme may have: lexemes
-- longer than 1000 bytes get none, and recall ranks the matches of a query
-- that names one through entity_facts_scope_search_idx instead.

-- tenure_recall_terms returns one token 'lexeme scope' for each lexeme of
-- p_search, a vector of the text search parser, whose lexemes hold no
-- control character. When its text is short enough that no token can exceed
-- 2 kB, array functions alone make the tokens (the expression is inlined
-- into the index); a longer one goes through tenure_recall_terms_checked.
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

-- The call of tenure_recall_terms_checked names its schema: a restore
-- (pg_restore) builds the index with an empty search_path, and the body of
-- an inlined SQL function is resolved then.
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

-- tenure_recall_repeats returns, for every lexeme that occurs at least j
-- times in p_search, a token 'lexeme j scope' for each step j of the ladder
-- (the same list is in memory/recall.go), and the token ' b scope' of the
-- fact's confidence band b = ceil(10 × confidence): its effective confidence
-- is at most b / 10.
-- +goose StatementBegin
CREATE FUNCTION tenure_recall_repeats(p_scope text, p_search tsvector, p_confidence double precision)
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

-- The lexemes of every live fact, by scope. A scan reads the whole pending
-- list; recall scans this index at most twice a query, so a pending list of
-- 1 MB (at most 128 pages) keeps inserts batched and reads short.
CREATE INDEX entity_facts_recall_terms_idx ON entity_facts
    USING gin (tenure_recall_terms(scope, search)) WITH (gin_pending_list_limit = 1024)
    WHERE status = 'active';

-- The repeats of every live fact in which some lexeme occurs twice or more.
-- A tsvector's text has a comma only between two positions of one lexeme
-- (or, rarely, inside a lexeme, which costs a needless entry); recall names
-- both conditions, so the planner can use the index. Recall scans it once
-- for each rung, so entries go straight into it (no pending list).
CREATE INDEX entity_facts_recall_repeats_idx ON entity_facts
    USING gin (tenure_recall_repeats(scope, search, confidence)) WITH (fastupdate = off)
    WHERE status = 'active' AND strpos(search::text, ',') > 0;

-- +goose Down
DROP INDEX entity_facts_recall_repeats_idx;
DROP INDEX entity_facts_recall_terms_idx;
DROP FUNCTION tenure_recall_repeats(text, tsvector, double precision);
DROP FUNCTION tenure_recall_terms(text, tsvector);
DROP FUNCTION tenure_recall_terms_checked(text, tsvector);
