-- +goose Up
-- The fact list filtered by entity walks each entity's facts newest first.
CREATE INDEX entity_facts_entity_id_idx ON entity_facts (entity_id, id);

-- fact_axes_counts keeps the number of facts per status, durability and
-- category, so that the overview reads a few dozen rows instead of counting
-- a million facts. Writers only append: a statement-level trigger on
-- entity_facts inserts one row per (status, durability, category) the
-- statement changed, with the net change, so concurrent writers never wait
-- for one another here. A reader sums the rows of each triple; it folds them
-- into one row per triple (FoldFactAxesCounts) once they pile up. The counts
-- commit with the facts that change them, so they are never stale.
CREATE TABLE fact_axes_counts (
    status     text   NOT NULL,
    durability text   NOT NULL,
    category   text   NOT NULL,
    facts      bigint NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION fact_axes_counts_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO fact_axes_counts (status, durability, category, facts)
    SELECT status, durability, category, count(*)
    FROM new_facts
    GROUP BY status, durability, category;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION fact_axes_counts_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO fact_axes_counts (status, durability, category, facts)
    SELECT status, durability, category, sum(n)
    FROM (
        SELECT status, durability, category, 1 AS n FROM new_facts
        UNION ALL
        SELECT status, durability, category, -1 AS n FROM old_facts
    ) d
    GROUP BY status, durability, category
    HAVING sum(n) <> 0;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION fact_axes_counts_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO fact_axes_counts (status, durability, category, facts)
    SELECT status, durability, category, -count(*)
    FROM old_facts
    GROUP BY status, durability, category;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION fact_axes_counts_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM fact_axes_counts;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER fact_axes_counts_insert AFTER INSERT ON entity_facts
    REFERENCING NEW TABLE AS new_facts
    FOR EACH STATEMENT EXECUTE FUNCTION fact_axes_counts_insert();
CREATE TRIGGER fact_axes_counts_update AFTER UPDATE ON entity_facts
    REFERENCING OLD TABLE AS old_facts NEW TABLE AS new_facts
    FOR EACH STATEMENT EXECUTE FUNCTION fact_axes_counts_update();
CREATE TRIGGER fact_axes_counts_delete AFTER DELETE ON entity_facts
    REFERENCING OLD TABLE AS old_facts
    FOR EACH STATEMENT EXECUTE FUNCTION fact_axes_counts_delete();
CREATE TRIGGER fact_axes_counts_truncate AFTER TRUNCATE ON entity_facts
    FOR EACH STATEMENT EXECUTE FUNCTION fact_axes_counts_truncate();

-- The triggers exist before the count, and the lock keeps writers out
-- until the migration commits, so every fact is counted exactly once.
LOCK TABLE entity_facts IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO fact_axes_counts (status, durability, category, facts)
SELECT status, durability, category, count(*)
FROM entity_facts
GROUP BY status, durability, category;

-- +goose Down
DROP TRIGGER fact_axes_counts_truncate ON entity_facts;
DROP TRIGGER fact_axes_counts_delete ON entity_facts;
DROP TRIGGER fact_axes_counts_update ON entity_facts;
DROP TRIGGER fact_axes_counts_insert ON entity_facts;
DROP FUNCTION fact_axes_counts_truncate();
DROP FUNCTION fact_axes_counts_delete();
DROP FUNCTION fact_axes_counts_update();
DROP FUNCTION fact_axes_counts_insert();
DROP TABLE fact_axes_counts;
DROP INDEX entity_facts_entity_id_idx;
