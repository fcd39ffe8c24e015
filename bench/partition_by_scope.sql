-- The partitioning by scope that was measured and not adopted (BENCHMARKS.md,
-- "Partitioning by scope"): it turns a database `tenure bench seed` filled
-- into one whose entity_facts and memory_nodes are hash-partitioned by scope
-- into 64 partitions, so that `tenure bench --seeded` measures the same code
-- on it. Run it with psql -v ON_ERROR_STOP=1 -f on a seeded database; it is
-- not a migration, and nothing in Tenure runs it.
--
-- Every agent query names its scope, so it reads one partition;
-- the console's lists across scopes read all of them. The keys become
-- (id, scope) (PostgreSQL requires the partition key in every unique index),
-- and the tables that point at a fact or a working row point at (id, scope):
-- each of them carries the scope already.
--
-- The rows are copied into the new tables before their indexes and triggers
-- exist (an index built once over every row costs a fraction of one kept up
-- row by row, and the counts the statement triggers keep are already right);
-- ids keep their values and the identity goes on from where it was.

DO $$
DECLARE
    fact_next bigint;
    fact_called boolean;
    node_next bigint;
    node_called boolean;
BEGIN
    SELECT last_value, is_called INTO fact_next, fact_called FROM entity_facts_id_seq;
    SELECT last_value, is_called INTO node_next, node_called FROM memory_nodes_id_seq;

    ALTER TABLE entity_facts RENAME TO entity_facts_flat;
    ALTER SEQUENCE entity_facts_id_seq RENAME TO entity_facts_flat_id_seq;
    ALTER TABLE memory_nodes RENAME TO memory_nodes_flat;
    ALTER SEQUENCE memory_nodes_id_seq RENAME TO memory_nodes_flat_id_seq;

    CREATE TABLE entity_facts (
        id               bigint GENERATED ALWAYS AS IDENTITY,
        scope            text             NOT NULL,
        entity_id        bigint           NOT NULL,
        key              text             NOT NULL DEFAULT '',
        content          text             NOT NULL,
        durability       text             NOT NULL DEFAULT 'long_term',
        category         text             NOT NULL DEFAULT 'observation',
        confidence       double precision NOT NULL DEFAULT 0.8,
        importance       double precision NOT NULL DEFAULT 0.5,
        confirmed_at     timestamptz      NOT NULL DEFAULT now(),
        expires_at       timestamptz,
        deadline         timestamptz,
        forget_at        timestamptz,
        status           text             NOT NULL DEFAULT 'active',
        archived_at      timestamptz,
        archive_reason   text,
        source           text             NOT NULL DEFAULT 'api',
        source_node_id   bigint,
        extraction_count integer          NOT NULL DEFAULT 1,
        version          integer          NOT NULL DEFAULT 1,
        created_at       timestamptz      NOT NULL DEFAULT now(),
        updated_at       timestamptz      NOT NULL DEFAULT now(),
        decay_half_life  double precision,
        decay_from       timestamptz,
        search           tsvector         NOT NULL,
        CONSTRAINT entity_facts_archived_consistent CHECK ((status = 'archived') = (archived_at IS NOT NULL)),
        CONSTRAINT entity_facts_category_format CHECK (category ~ '^[a-z][a-z0-9_]{0,39}$'),
        CONSTRAINT entity_facts_confidence_range CHECK (confidence >= 0 AND confidence <= 1),
        CONSTRAINT entity_facts_content_present CHECK (btrim(content) <> '' AND length(content) <= 10000),
        CONSTRAINT entity_facts_durability_check
            CHECK (durability IN ('permanent', 'long_term', 'short_term', 'ephemeral')),
        CONSTRAINT entity_facts_extraction_count_positive CHECK (extraction_count >= 1),
        CONSTRAINT entity_facts_importance_range CHECK (importance >= 0 AND importance <= 1),
        CONSTRAINT entity_facts_key_format CHECK (key ~ '^[a-z0-9_.:-]{0,64}$'),
        CONSTRAINT entity_facts_source_value
            CHECK (source IN ('consolidation', 'extraction', 'api', 'human', 'import')),
        CONSTRAINT entity_facts_status_value CHECK (status IN ('active', 'archived')),
        CONSTRAINT entity_facts_version_positive CHECK (version >= 1)
    ) PARTITION BY HASH (scope);

    CREATE TABLE memory_nodes (
        id               bigint GENERATED ALWAYS AS IDENTITY,
        scope            text             NOT NULL,
        content          text             NOT NULL,
        properties       jsonb            NOT NULL DEFAULT '{}',
        importance       double precision NOT NULL DEFAULT 0.5,
        ttl_seconds      integer,
        created_at       timestamptz      NOT NULL DEFAULT now(),
        promoted_at      timestamptz,
        promoted_fact_id bigint,
        promoted_run_id  bigint,
        marker           text             NOT NULL
            GENERATED ALWAYS AS (coalesce(properties->>'durability', 'durable')) STORED,
        observed_at      timestamptz,
        CONSTRAINT memory_nodes_content_present CHECK (btrim(content) <> '' AND length(content) <= 10000),
        CONSTRAINT memory_nodes_durability_value CHECK (marker IN ('durable', 'transient', 'expired')),
        CONSTRAINT memory_nodes_importance_range CHECK (importance >= 0 AND importance <= 1),
        CONSTRAINT memory_nodes_promoted_consistent CHECK ((promoted_at IS NULL) = (promoted_fact_id IS NULL)),
        CONSTRAINT memory_nodes_properties_object CHECK (jsonb_typeof(properties) = 'object'),
        CONSTRAINT memory_nodes_scope_format CHECK (scope ~ '^[a-z0-9][a-z0-9_.:-]{0,62}$'),
        CONSTRAINT memory_nodes_ttl_positive CHECK (ttl_seconds > 0)
    ) PARTITION BY HASH (scope);

    FOR i IN 0..63 LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF entity_facts FOR VALUES WITH (MODULUS 64, REMAINDER %s)
                        WITH (autovacuum_vacuum_insert_scale_factor = 0.02)', format('entity_facts_p%s', lpad(i::text, 2, '0')), i);
        EXECUTE format('CREATE TABLE %I PARTITION OF memory_nodes FOR VALUES WITH (MODULUS 64, REMAINDER %s)',
                       format('memory_nodes_p%s', lpad(i::text, 2, '0')), i);
    END LOOP;

    INSERT INTO entity_facts OVERRIDING SYSTEM VALUE
    SELECT id, scope, entity_id, key, content, durability, category, confidence, importance, confirmed_at,
           expires_at, deadline, forget_at, status, archived_at, archive_reason, source, source_node_id,
           extraction_count, version, created_at, updated_at, decay_half_life, decay_from, search
    FROM entity_facts_flat;
    INSERT INTO memory_nodes (id, scope, content, properties, importance, ttl_seconds, created_at,
                              promoted_at, promoted_fact_id, promoted_run_id, observed_at)
    OVERRIDING SYSTEM VALUE
    SELECT id, scope, content, properties, importance, ttl_seconds, created_at,
           promoted_at, promoted_fact_id, promoted_run_id, observed_at
    FROM memory_nodes_flat;

    PERFORM setval(pg_get_serial_sequence('entity_facts', 'id'), fact_next, fact_called);
    PERFORM setval(pg_get_serial_sequence('memory_nodes', 'id'), node_next, node_called);

    -- The foreign keys into the old tables go with them.
    DROP TABLE entity_facts_flat CASCADE;
    DROP TABLE memory_nodes_flat CASCADE;
END
$$;

ALTER TABLE entity_facts ADD CONSTRAINT entity_facts_pkey PRIMARY KEY (id, scope);
ALTER TABLE entity_facts ADD CONSTRAINT entity_facts_entity_fkey FOREIGN KEY (scope, entity_id)
    REFERENCES entities (scope, id) ON DELETE CASCADE;
ALTER TABLE memory_nodes ADD CONSTRAINT memory_nodes_pkey PRIMARY KEY (id, scope);

ALTER TABLE decisions ADD CONSTRAINT decisions_fact_id_fkey FOREIGN KEY (fact_id, scope)
    REFERENCES entity_facts (id, scope) ON DELETE CASCADE;
ALTER TABLE review_items ADD CONSTRAINT review_items_fact_id_fkey FOREIGN KEY (fact_id, scope)
    REFERENCES entity_facts (id, scope) ON DELETE CASCADE;
ALTER TABLE review_items ADD CONSTRAINT review_items_other_fact_id_fkey FOREIGN KEY (other_fact_id, scope)
    REFERENCES entity_facts (id, scope) ON DELETE CASCADE;
ALTER TABLE consolidation_faults ADD CONSTRAINT consolidation_faults_node_id_fkey FOREIGN KEY (node_id, scope)
    REFERENCES memory_nodes (id, scope) ON DELETE CASCADE;

CREATE INDEX entity_facts_forget_at_idx ON entity_facts (forget_at) WHERE status = 'active';
CREATE INDEX entity_facts_status_id_idx ON entity_facts (status, id DESC);
CREATE INDEX entity_facts_durability_idx ON entity_facts (durability, status, id DESC);
CREATE INDEX entity_facts_category_idx ON entity_facts (category, status, id DESC);
CREATE INDEX entity_facts_scope_idx ON entity_facts (scope, status, id DESC);
CREATE INDEX entity_facts_deadline_idx ON entity_facts (deadline) WHERE status = 'active' AND deadline IS NOT NULL;
CREATE INDEX entity_facts_entity_key_content_idx ON entity_facts (entity_id, key, md5(lower(content)));
CREATE INDEX entity_facts_scope_updated_idx ON entity_facts (scope, updated_at);
CREATE INDEX entity_facts_entity_id_idx ON entity_facts (entity_id, id);
CREATE INDEX entity_facts_brief_len_idx ON entity_facts (scope, tenure_brief_len(content)) WHERE status = 'active';
CREATE INDEX entity_facts_brief_obligations_idx ON entity_facts (scope, deadline, id, tenure_brief_len(content))
    WHERE status = 'active' AND category = 'obligation' AND deadline IS NOT NULL;
CREATE INDEX entity_facts_brief_states_idx ON entity_facts (scope, confirmed_at, id, tenure_brief_len(content))
    WHERE status = 'active' AND category IN ('state', 'mood');
CREATE INDEX entity_facts_brief_rank_idx ON entity_facts
    (scope, tenure_brief_group(decay_half_life, decay_from, confirmed_at),
     tenure_brief_key(confidence, importance, decay_half_life, decay_from, confirmed_at), id, tenure_brief_len(content))
    WHERE status = 'active' AND durability IN ('permanent', 'long_term') AND category <> 'decision';
CREATE INDEX entity_facts_scope_search_idx ON entity_facts USING gin (scope, durability, category, search);
CREATE INDEX entity_facts_recall_recent_idx ON entity_facts (scope, id DESC)
    INCLUDE (entity_id, durability, category, confirmed_at, confidence, decay_from, decay_half_life, forget_at, search)
    WHERE status = 'active';
CREATE INDEX entity_facts_scope_content_idx ON entity_facts (scope, md5(lower(content))) WHERE status = 'active';
CREATE INDEX entity_facts_open_obligations_idx ON entity_facts (entity_id, confirmed_at)
    WHERE status = 'active' AND category = 'obligation';

CREATE INDEX memory_nodes_scope_idx ON memory_nodes (scope, id DESC);
CREATE INDEX memory_nodes_promoted_run_idx ON memory_nodes (promoted_run_id) WHERE promoted_run_id IS NOT NULL;
CREATE INDEX memory_nodes_pending_idx ON memory_nodes (id) INCLUDE (marker) WHERE promoted_at IS NULL;
CREATE INDEX memory_nodes_filters_idx ON memory_nodes USING gin (scope, marker, ((promoted_at IS NULL)::integer));
CREATE INDEX memory_nodes_pending_search_idx ON memory_nodes USING gin (scope, tenure_node_search(properties, content))
    WITH (gin_pending_list_limit = 256) WHERE promoted_at IS NULL AND marker = 'durable';

CREATE TRIGGER entity_facts_forget_at
    BEFORE UPDATE OF durability, category, confidence, confirmed_at, expires_at, deadline ON entity_facts
    FOR EACH ROW EXECUTE FUNCTION entity_facts_set_forget_at();
CREATE TRIGGER entity_facts_forget_at_insert BEFORE INSERT ON entity_facts
    FOR EACH ROW WHEN (NEW.decay_from IS NULL) EXECUTE FUNCTION entity_facts_set_forget_at();
CREATE TRIGGER entity_facts_search BEFORE INSERT OR UPDATE OF content, key, entity_id ON entity_facts
    FOR EACH ROW EXECUTE FUNCTION entity_facts_set_search();
CREATE TRIGGER fact_axes_counts_insert AFTER INSERT ON entity_facts
    REFERENCING NEW TABLE AS new_facts FOR EACH STATEMENT EXECUTE FUNCTION fact_axes_counts_insert();
CREATE TRIGGER fact_axes_counts_update AFTER UPDATE ON entity_facts
    REFERENCING OLD TABLE AS old_facts NEW TABLE AS new_facts FOR EACH STATEMENT EXECUTE FUNCTION fact_axes_counts_update();
CREATE TRIGGER fact_axes_counts_delete AFTER DELETE ON entity_facts
    REFERENCING OLD TABLE AS old_facts FOR EACH STATEMENT EXECUTE FUNCTION fact_axes_counts_delete();
CREATE TRIGGER fact_axes_counts_truncate AFTER TRUNCATE ON entity_facts
    FOR EACH STATEMENT EXECUTE FUNCTION fact_axes_counts_truncate();
CREATE TRIGGER recall_terms_insert AFTER INSERT ON entity_facts
    REFERENCING NEW TABLE AS new_facts FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_insert();
CREATE TRIGGER recall_terms_update AFTER UPDATE ON entity_facts
    REFERENCING OLD TABLE AS old_facts NEW TABLE AS new_facts FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_update();
CREATE TRIGGER recall_terms_delete AFTER DELETE ON entity_facts
    REFERENCING OLD TABLE AS old_facts FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_delete();
CREATE TRIGGER recall_terms_truncate AFTER TRUNCATE ON entity_facts
    FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_truncate();
CREATE TRIGGER pending_node_counts_insert AFTER INSERT ON memory_nodes
    REFERENCING NEW TABLE AS new_nodes FOR EACH STATEMENT EXECUTE FUNCTION pending_node_counts_insert();
CREATE TRIGGER pending_node_counts_update AFTER UPDATE ON memory_nodes
    REFERENCING OLD TABLE AS old_nodes NEW TABLE AS new_nodes FOR EACH STATEMENT EXECUTE FUNCTION pending_node_counts_update();
CREATE TRIGGER pending_node_counts_delete AFTER DELETE ON memory_nodes
    REFERENCING OLD TABLE AS old_nodes FOR EACH STATEMENT EXECUTE FUNCTION pending_node_counts_delete();
CREATE TRIGGER pending_node_counts_truncate AFTER TRUNCATE ON memory_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION pending_node_counts_truncate();

-- Autovacuum analyzes the partitions, never the partitioned tables: the
-- planner's figures for a statement over every partition come from here.
ANALYZE entity_facts;
ANALYZE memory_nodes;
