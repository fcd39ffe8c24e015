-- +goose Up
-- Working memory, consolidation runs, their refusals, tombstones of pruned rows,
-- and the review queue that consolidation and the refusal paths feed.

CREATE TABLE memory_nodes (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope            text             NOT NULL,
    content          text             NOT NULL,
    -- properties.durability holds the marker: durable, transient or expired.
    -- A row without the key reads as durable.
    properties       jsonb            NOT NULL DEFAULT '{}',
    importance       double precision NOT NULL DEFAULT 0.5,
    ttl_seconds      integer,
    created_at       timestamptz      NOT NULL DEFAULT now(),
    promoted_at      timestamptz,
    promoted_fact_id bigint,
    CONSTRAINT memory_nodes_scope_format CHECK (scope ~ '^[a-z0-9][a-z0-9_.:-]{0,62}$'),
    CONSTRAINT memory_nodes_content_present CHECK (btrim(content) <> '' AND length(content) <= 10000),
    CONSTRAINT memory_nodes_properties_object CHECK (jsonb_typeof(properties) = 'object'),
    CONSTRAINT memory_nodes_durability_value
        CHECK (NOT properties ? 'durability'
               OR properties->>'durability' IN ('durable', 'transient', 'expired')),
    CONSTRAINT memory_nodes_importance_range CHECK (importance >= 0 AND importance <= 1),
    CONSTRAINT memory_nodes_ttl_positive CHECK (ttl_seconds > 0),
    CONSTRAINT memory_nodes_promoted_consistent
        CHECK ((promoted_at IS NULL) = (promoted_fact_id IS NULL))
);

-- Consolidation walks pending rows in id order, by marker.
CREATE INDEX memory_nodes_pending_idx ON memory_nodes (
    (coalesce(properties->>'durability', 'durable')), id) WHERE promoted_at IS NULL;
CREATE INDEX memory_nodes_scope_idx ON memory_nodes (scope, id DESC);

CREATE TABLE consolidation_runs (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trigger            text        NOT NULL,
    status             text        NOT NULL DEFAULT 'running',
    started_at         timestamptz NOT NULL DEFAULT now(),
    finished_at        timestamptz,
    phase              smallint,
    -- report holds a count for each outcome of each phase, e.g.
    -- {"8": {"pruned_expired": 2}, "10": {"promoted": 40, "reinforced": 3}}.
    report             jsonb       NOT NULL DEFAULT '{}',
    transient_rejected integer     NOT NULL DEFAULT 0,
    expired_rejected   integer     NOT NULL DEFAULT 0,
    decision_locked    integer     NOT NULL DEFAULT 0,
    error              text,
    CONSTRAINT consolidation_runs_trigger_value
        CHECK (trigger IN ('schedule', 'manual', 'api', 'cli', 'test')),
    CONSTRAINT consolidation_runs_status_value
        CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
    CONSTRAINT consolidation_runs_phase_value CHECK (phase BETWEEN 8 AND 12),
    CONSTRAINT consolidation_runs_finished_consistent
        CHECK ((status = 'running') = (finished_at IS NULL)),
    CONSTRAINT consolidation_runs_report_object CHECK (jsonb_typeof(report) = 'object')
);

CREATE INDEX consolidation_runs_started_idx ON consolidation_runs (started_at DESC, id DESC);

-- Every refusal, by consolidation (run and phase set) or by another automated
-- writer such as the API or extraction (run and phase null).
CREATE TABLE consolidation_rejections (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id      bigint REFERENCES consolidation_runs (id) ON DELETE CASCADE,
    phase       smallint,
    node_id     bigint,
    scope       text        NOT NULL,
    reason      text        NOT NULL,
    source      text        NOT NULL DEFAULT 'consolidation',
    content     text        NOT NULL DEFAULT '',
    properties  jsonb       NOT NULL DEFAULT '{}',
    decision_id bigint REFERENCES decisions (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT consolidation_rejections_phase_value CHECK (phase BETWEEN 8 AND 12),
    CONSTRAINT consolidation_rejections_reason_value
        CHECK (reason IN ('transient', 'expired', 'decision_locked')),
    CONSTRAINT consolidation_rejections_source_value
        CHECK (source IN ('consolidation', 'api', 'extraction', 'mcp', 'import')),
    CONSTRAINT consolidation_rejections_run_phase
        CHECK ((run_id IS NULL) = (phase IS NULL))
);

-- A rerun of a killed run must not log the same refusal twice.
CREATE UNIQUE INDEX consolidation_rejections_once_idx
    ON consolidation_rejections (run_id, phase, node_id) WHERE run_id IS NOT NULL;
CREATE INDEX consolidation_rejections_created_idx ON consolidation_rejections (created_at DESC, id DESC);
CREATE INDEX consolidation_rejections_scope_idx ON consolidation_rejections (scope, id DESC);
CREATE INDEX consolidation_rejections_decision_idx ON consolidation_rejections (decision_id)
    WHERE decision_id IS NOT NULL;

CREATE TABLE node_tombstones (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    node_id         bigint           NOT NULL,
    scope           text             NOT NULL,
    content         text             NOT NULL,
    properties      jsonb            NOT NULL,
    importance      double precision NOT NULL,
    ttl_seconds     integer,
    node_created_at timestamptz      NOT NULL,
    run_id          bigint REFERENCES consolidation_runs (id) ON DELETE SET NULL,
    reason          text             NOT NULL,
    pruned_at       timestamptz      NOT NULL DEFAULT now(),
    purge_after     timestamptz      NOT NULL DEFAULT now() + interval '30 days',
    restored_at     timestamptz,
    restored_by     text,
    CONSTRAINT node_tombstones_reason_value CHECK (reason IN ('expired', 'transient_ttl', 'ttl')),
    CONSTRAINT node_tombstones_node_key UNIQUE (node_id)
);

CREATE INDEX node_tombstones_purge_idx ON node_tombstones (purge_after) WHERE restored_at IS NULL;
CREATE INDEX node_tombstones_scope_idx ON node_tombstones (scope, id DESC);

-- The review queue: near-duplicate facts, refused writes against decisions,
-- moods seen many times. A person accepts, merges or dismisses each item.
CREATE TABLE review_items (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind          text        NOT NULL,
    scope         text        NOT NULL,
    fact_id       bigint REFERENCES entity_facts (id) ON DELETE CASCADE,
    other_fact_id bigint REFERENCES entity_facts (id) ON DELETE CASCADE,
    rejection_id  bigint REFERENCES consolidation_rejections (id) ON DELETE CASCADE,
    detail        jsonb       NOT NULL DEFAULT '{}',
    status        text        NOT NULL DEFAULT 'open',
    created_at    timestamptz NOT NULL DEFAULT now(),
    resolved_at   timestamptz,
    resolved_by   text,
    CONSTRAINT review_items_kind_value
        CHECK (kind IN ('near_duplicate', 'decision_refusal', 'repeated_mood')),
    CONSTRAINT review_items_status_value
        CHECK (status IN ('open', 'accepted', 'merged', 'dismissed')),
    CONSTRAINT review_items_resolved_consistent
        CHECK ((status = 'open') = (resolved_at IS NULL))
);

CREATE INDEX review_items_open_idx ON review_items (kind, id) WHERE status = 'open';
CREATE UNIQUE INDEX review_items_pair_idx ON review_items (kind, fact_id, other_fact_id)
    WHERE status = 'open' AND other_fact_id IS NOT NULL;

-- +goose Down
DROP TABLE review_items;
DROP TABLE node_tombstones;
DROP TABLE consolidation_rejections;
DROP TABLE consolidation_runs;
DROP TABLE memory_nodes;
