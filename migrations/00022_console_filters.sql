-- +goose Up
-- Every filter of the console's decision, working-row and rejection lists
-- reads a bounded number of rows: the newest rows are walked up to a cap, and
-- below it the matches are found through the indexes here, whose cost follows
-- the number of matches rather than the size of the table.

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- tenure_decision_text is the text a decision list's text search looks in:
-- what was decided, the reasoning, the key and the alternatives, as
-- concat_ws(' ', ...) joins them. It is immutable (every input is text), so
-- a trigram index can hold it; the search reads candidates from the index
-- and rechecks each with ILIKE, so it stays a case-insensitive substring
-- match.
-- +goose StatementBegin
CREATE FUNCTION tenure_decision_text(p_decision text, p_reasoning text, p_key text, p_alternatives text[])
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT concat_ws(' ', p_decision, p_reasoning, p_key, array_to_string(p_alternatives, ' '))
$$;
-- +goose StatementEnd

CREATE INDEX decisions_text_trgm_idx ON decisions
    USING gin (tenure_decision_text(decision, reasoning, key, alternatives) gin_trgm_ops);
-- The decision list walks a scope's or an entity's decisions newest first.
CREATE INDEX decisions_scope_id_idx ON decisions (scope, id);
CREATE INDEX decisions_entity_id_idx ON decisions (entity_id, id);
-- Reopened decisions are few: the list finds them without walking the
-- locked ones.
CREATE INDEX decisions_reopened_idx ON decisions (id) WHERE NOT do_not_reopen;

-- decisions_superseded holds the id of every decision that a later decision
-- on the same entity and key replaced, so that the list filtered to the
-- superseded ones reads them instead of testing every decision. A trigger on
-- decisions keeps it in the inserting transaction. Each insert first takes a
-- transaction lock on the bucket (one of 64, by hash) of every entity and key
-- it writes, in bucket order, so two transactions recording a decision on one
-- key serialise here and the second, whose next statement sees the first once
-- it commits, marks what it must. A decision's entity
-- and key never change; deleting a decision drops its own row (the foreign
-- key) and unmarks the decisions it alone replaced.
CREATE TABLE decisions_superseded (
    id bigint PRIMARY KEY REFERENCES decisions (id) ON DELETE CASCADE
);

-- +goose StatementBegin
CREATE FUNCTION decisions_superseded_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(7324, k.bucket)
    FROM (SELECT DISTINCT hashtext(entity_id::text || '/' || key) & 63 AS bucket
          FROM new_decisions ORDER BY 1) k;
    INSERT INTO decisions_superseded (id)
    SELECT DISTINCT o.id
    FROM (SELECT entity_id, key, max(id) AS id FROM new_decisions GROUP BY entity_id, key) n
    JOIN decisions o ON o.entity_id = n.entity_id AND o.key = n.key AND o.id < n.id
    ON CONFLICT DO NOTHING;
    -- A decision written here may itself already be replaced by one a
    -- transaction that committed while this one waited for the lock wrote.
    INSERT INTO decisions_superseded (id)
    SELECT n.id
    FROM new_decisions n
    WHERE EXISTS (SELECT 1 FROM decisions x WHERE x.entity_id = n.entity_id AND x.key = n.key AND x.id > n.id)
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION decisions_superseded_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM decisions_superseded s
    USING decisions d
    WHERE s.id = d.id
      AND (d.entity_id, d.key) IN (SELECT entity_id, key FROM old_decisions)
      AND NOT EXISTS (SELECT 1 FROM decisions x WHERE x.entity_id = d.entity_id AND x.key = d.key AND x.id > d.id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER decisions_superseded_insert AFTER INSERT ON decisions
    REFERENCING NEW TABLE AS new_decisions
    FOR EACH STATEMENT EXECUTE FUNCTION decisions_superseded_insert();
CREATE TRIGGER decisions_superseded_delete AFTER DELETE ON decisions
    REFERENCING OLD TABLE AS old_decisions
    FOR EACH STATEMENT EXECUTE FUNCTION decisions_superseded_delete();

-- pending_node_counts keeps the number of working rows not promoted yet per
-- scope and marker, as fact_axes_counts does for facts: statement-level
-- triggers on memory_nodes append each statement's net change in the same
-- transaction (so the counts are exact at a reader's snapshot, never
-- stale), writers only append and never wait for one another, and a reader
-- folds the rows once they pile up (FoldPendingNodeCounts).
CREATE TABLE pending_node_counts (
    scope  text   NOT NULL,
    marker text   NOT NULL,
    nodes  bigint NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION pending_node_counts_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pending_node_counts (scope, marker, nodes)
    SELECT scope, marker, count(*)
    FROM new_nodes
    WHERE promoted_at IS NULL
    GROUP BY scope, marker;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION pending_node_counts_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pending_node_counts (scope, marker, nodes)
    SELECT scope, marker, sum(n)
    FROM (
        SELECT scope, marker, 1 AS n FROM new_nodes WHERE promoted_at IS NULL
        UNION ALL
        SELECT scope, marker, -1 AS n FROM old_nodes WHERE promoted_at IS NULL
    ) d
    GROUP BY scope, marker
    HAVING sum(n) <> 0;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION pending_node_counts_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pending_node_counts (scope, marker, nodes)
    SELECT scope, marker, -count(*)
    FROM old_nodes
    WHERE promoted_at IS NULL
    GROUP BY scope, marker;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION pending_node_counts_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM pending_node_counts;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER pending_node_counts_insert AFTER INSERT ON memory_nodes
    REFERENCING NEW TABLE AS new_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION pending_node_counts_insert();
CREATE TRIGGER pending_node_counts_update AFTER UPDATE ON memory_nodes
    REFERENCING OLD TABLE AS old_nodes NEW TABLE AS new_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION pending_node_counts_update();
CREATE TRIGGER pending_node_counts_delete AFTER DELETE ON memory_nodes
    REFERENCING OLD TABLE AS old_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION pending_node_counts_delete();
CREATE TRIGGER pending_node_counts_truncate AFTER TRUNCATE ON memory_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION pending_node_counts_truncate();

-- console_counts keeps the other counts the overview and the working page
-- show, in the same way: the open review items per kind (counter
-- review_open, key the kind) and the rows consolidation set aside, waiting
-- for a retry or held for a person (counter faults, key waiting or held).
-- Statement-level triggers append each statement's net change in the same
-- transaction, so the counts are exact at a reader's snapshot, and a reader
-- folds them once they pile up (FoldConsoleCounts).
CREATE TABLE console_counts (
    counter text   NOT NULL,
    key     text   NOT NULL,
    n       bigint NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION console_counts_review() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM console_counts WHERE counter = 'review_open';
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO console_counts (counter, key, n)
        SELECT 'review_open', kind, count(*) FROM new_items WHERE status = 'open' GROUP BY kind;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO console_counts (counter, key, n)
        SELECT 'review_open', kind, sum(d)
        FROM (
            SELECT kind, 1 AS d FROM new_items WHERE status = 'open'
            UNION ALL
            SELECT kind, -1 AS d FROM old_items WHERE status = 'open'
        ) c
        GROUP BY kind
        HAVING sum(d) <> 0;
    ELSE
        INSERT INTO console_counts (counter, key, n)
        SELECT 'review_open', kind, -count(*) FROM old_items WHERE status = 'open' GROUP BY kind;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION console_counts_faults() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM console_counts WHERE counter = 'faults';
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO console_counts (counter, key, n)
        SELECT 'faults', CASE WHEN retry_at IS NULL THEN 'held' ELSE 'waiting' END, count(*)
        FROM new_faults GROUP BY 2;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO console_counts (counter, key, n)
        SELECT 'faults', k, sum(d)
        FROM (
            SELECT CASE WHEN retry_at IS NULL THEN 'held' ELSE 'waiting' END AS k, 1 AS d FROM new_faults
            UNION ALL
            SELECT CASE WHEN retry_at IS NULL THEN 'held' ELSE 'waiting' END AS k, -1 AS d FROM old_faults
        ) c
        GROUP BY k
        HAVING sum(d) <> 0;
    ELSE
        INSERT INTO console_counts (counter, key, n)
        SELECT 'faults', CASE WHEN retry_at IS NULL THEN 'held' ELSE 'waiting' END, -count(*)
        FROM old_faults GROUP BY 2;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER console_counts_review_insert AFTER INSERT ON review_items
    REFERENCING NEW TABLE AS new_items
    FOR EACH STATEMENT EXECUTE FUNCTION console_counts_review();
CREATE TRIGGER console_counts_review_update AFTER UPDATE ON review_items
    REFERENCING OLD TABLE AS old_items NEW TABLE AS new_items
    FOR EACH STATEMENT EXECUTE FUNCTION console_counts_review();
CREATE TRIGGER console_counts_review_delete AFTER DELETE ON review_items
    REFERENCING OLD TABLE AS old_items
    FOR EACH STATEMENT EXECUTE FUNCTION console_counts_review();
CREATE TRIGGER console_counts_review_truncate AFTER TRUNCATE ON review_items
    FOR EACH STATEMENT EXECUTE FUNCTION console_counts_review();
CREATE TRIGGER console_counts_faults_insert AFTER INSERT ON consolidation_faults
    REFERENCING NEW TABLE AS new_faults
    FOR EACH STATEMENT EXECUTE FUNCTION console_counts_faults();
CREATE TRIGGER console_counts_faults_update AFTER UPDATE ON consolidation_faults
    REFERENCING OLD TABLE AS old_faults NEW TABLE AS new_faults
    FOR EACH STATEMENT EXECUTE FUNCTION console_counts_faults();
CREATE TRIGGER console_counts_faults_delete AFTER DELETE ON consolidation_faults
    REFERENCING OLD TABLE AS old_faults
    FOR EACH STATEMENT EXECUTE FUNCTION console_counts_faults();
CREATE TRIGGER console_counts_faults_truncate AFTER TRUNCATE ON consolidation_faults
    FOR EACH STATEMENT EXECUTE FUNCTION console_counts_faults();

-- The working-row list finds the rows of a rare scope, marker and state
-- below its walk through one index of all three (the state as 1 for a row
-- not promoted yet, 0 for a promoted one).
CREATE INDEX memory_nodes_filters_idx ON memory_nodes USING gin (scope, marker, ((promoted_at IS NULL)::int));

-- The rejection log finds the entries of a rare run, phase, reason, scope or
-- source, or of a rare combination of them, through one index of all five.
CREATE INDEX consolidation_rejections_filters_idx ON consolidation_rejections
    USING gin (run_id, phase, reason, scope, source);

-- The triggers exist before the counts and the marks, and the locks keep
-- writers out until the migration commits, so every row is counted once.
LOCK TABLE memory_nodes IN SHARE ROW EXCLUSIVE MODE;
LOCK TABLE decisions IN SHARE ROW EXCLUSIVE MODE;
LOCK TABLE review_items IN SHARE ROW EXCLUSIVE MODE;
LOCK TABLE consolidation_faults IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO console_counts (counter, key, n)
SELECT 'review_open', kind, count(*) FROM review_items WHERE status = 'open' GROUP BY kind;
INSERT INTO console_counts (counter, key, n)
SELECT 'faults', CASE WHEN retry_at IS NULL THEN 'held' ELSE 'waiting' END, count(*)
FROM consolidation_faults GROUP BY 2;
INSERT INTO pending_node_counts (scope, marker, nodes)
SELECT scope, marker, count(*)
FROM memory_nodes
WHERE promoted_at IS NULL
GROUP BY scope, marker;
INSERT INTO decisions_superseded (id)
SELECT d.id
FROM decisions d
WHERE EXISTS (SELECT 1 FROM decisions x WHERE x.entity_id = d.entity_id AND x.key = d.key AND x.id > d.id);

-- +goose Down
DROP INDEX consolidation_rejections_filters_idx;
DROP INDEX memory_nodes_filters_idx;
DROP TRIGGER console_counts_faults_truncate ON consolidation_faults;
DROP TRIGGER console_counts_faults_delete ON consolidation_faults;
DROP TRIGGER console_counts_faults_update ON consolidation_faults;
DROP TRIGGER console_counts_faults_insert ON consolidation_faults;
DROP TRIGGER console_counts_review_truncate ON review_items;
DROP TRIGGER console_counts_review_delete ON review_items;
DROP TRIGGER console_counts_review_update ON review_items;
DROP TRIGGER console_counts_review_insert ON review_items;
DROP FUNCTION console_counts_faults();
DROP FUNCTION console_counts_review();
DROP TABLE console_counts;
DROP TRIGGER pending_node_counts_truncate ON memory_nodes;
DROP TRIGGER pending_node_counts_delete ON memory_nodes;
DROP TRIGGER pending_node_counts_update ON memory_nodes;
DROP TRIGGER pending_node_counts_insert ON memory_nodes;
DROP FUNCTION pending_node_counts_truncate();
DROP FUNCTION pending_node_counts_delete();
DROP FUNCTION pending_node_counts_update();
DROP FUNCTION pending_node_counts_insert();
DROP TABLE pending_node_counts;
DROP TRIGGER decisions_superseded_delete ON decisions;
DROP TRIGGER decisions_superseded_insert ON decisions;
DROP FUNCTION decisions_superseded_delete();
DROP FUNCTION decisions_superseded_insert();
DROP TABLE decisions_superseded;
DROP INDEX decisions_reopened_idx;
DROP INDEX decisions_entity_id_idx;
DROP INDEX decisions_scope_id_idx;
DROP INDEX decisions_text_trgm_idx;
DROP FUNCTION tenure_decision_text(text, text, text, text[]);
