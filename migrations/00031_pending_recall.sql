-- +goose Up
-- Recall reads its own writes: a durable working row is recallable as soon
-- as its push returns, marked pending, instead of only after the next
-- consolidation run (memory/recall.go). Transient and expired rows never
-- are, and neither is a row already promoted (its fact is).
--
-- tenure_node_search is a working row's search vector, as tenure_fact_search
-- (migration 00029) makes its fact's: the entity its properties name (none
-- for general or when they name none), its key with '_' read as a space, and
-- its content. It is written out here rather than calling
-- tenure_fact_search, so that the index below depends on nothing that may
-- be replaced without rebuilding it.
-- +goose StatementBegin
CREATE FUNCTION tenure_node_search(p_properties jsonb, p_content text)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('english',
        CASE WHEN coalesce(btrim(p_properties->>'entity'), 'general') = 'general' THEN ''
             ELSE btrim(p_properties->>'entity') END
        || ' ' || replace(coalesce(btrim(p_properties->>'key'), ''), '_', ' ') || ' ' || p_content)
$$;
-- +goose StatementEnd

-- Only the rows consolidation has still to promote are indexed: a row
-- leaves the index when it is promoted, or marked transient or expired.
-- Pushes append to the index's pending list, which every search of it reads
-- whole and which the push that fills it merges into the index: at 256 kB
-- rather than the default 4 MB, a recall under heavy pushes (one search a
-- word of its question) stays near its quiet time (BENCHMARKS.md, "Read your
-- own writes").
CREATE INDEX memory_nodes_pending_search_idx ON memory_nodes
    USING gin (scope, tenure_node_search(properties, content))
    WITH (gin_pending_list_limit = 256)
    WHERE promoted_at IS NULL AND marker = 'durable';

-- +goose Down
DROP INDEX memory_nodes_pending_search_idx;
DROP FUNCTION tenure_node_search(jsonb, text);
