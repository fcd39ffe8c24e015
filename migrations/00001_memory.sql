-- +goose Up
-- Long-term memory: entities, their facts on two axes (durability and category),
-- decisions, and the decay policies that decide how long each fact lives.

CREATE TABLE entities (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope      text        NOT NULL,
    name       text        NOT NULL,
    kind       text        NOT NULL DEFAULT 'thing',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT entities_scope_format CHECK (scope ~ '^[a-z0-9][a-z0-9_.:-]{0,62}$'),
    CONSTRAINT entities_name_present CHECK (btrim(name) <> '' AND length(name) <= 200),
    CONSTRAINT entities_kind_format CHECK (kind ~ '^[a-z][a-z0-9_]{0,39}$'),
    CONSTRAINT entities_scope_name_key UNIQUE (scope, name),
    -- Lets entity_facts and decisions prove their scope matches their entity's.
    CONSTRAINT entities_scope_id_key UNIQUE (scope, id)
);

-- Decay policies: one row per durability, and optional overrides per category.
-- half_life_seconds NULL means the fact never decays. anchor 'deadline' makes a
-- fact keep its confidence until its deadline and decay from then on.
CREATE TABLE decay_policies (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    durability        text UNIQUE,
    category          text UNIQUE,
    half_life_seconds double precision,
    anchor            text             NOT NULL DEFAULT 'confirmed_at',
    floor             double precision NOT NULL DEFAULT 0.10,
    description       text             NOT NULL DEFAULT '',
    updated_at        timestamptz      NOT NULL DEFAULT now(),
    updated_by        text             NOT NULL DEFAULT 'system',
    CONSTRAINT decay_policies_one_target CHECK (num_nonnulls(durability, category) = 1),
    CONSTRAINT decay_policies_durability_value
        CHECK (durability IN ('permanent', 'long_term', 'short_term', 'ephemeral')),
    CONSTRAINT decay_policies_category_format CHECK (category ~ '^[a-z][a-z0-9_]{0,39}$'),
    CONSTRAINT decay_policies_half_life_positive CHECK (half_life_seconds > 0),
    CONSTRAINT decay_policies_anchor_value CHECK (anchor IN ('confirmed_at', 'deadline')),
    CONSTRAINT decay_policies_floor_range CHECK (floor > 0 AND floor < 1)
);

INSERT INTO decay_policies (durability, half_life_seconds, description) VALUES
    ('permanent',  3650 * 86400, 'Identity and biography: half-life of ten years.'),
    ('long_term',   180 * 86400, 'Stable but changeable (job, city): half-life of 180 days.'),
    ('short_term',   10 * 86400, 'Temporary states (a deadline, a trip): half-life of 10 days.'),
    ('ephemeral',    36 * 3600,  'Moments (a mood, a current activity): half-life of 36 hours.');

INSERT INTO decay_policies (category, half_life_seconds, anchor, description) VALUES
    ('decision',   NULL,        'confirmed_at', 'Settled decisions never decay.'),
    ('routine',    NULL,        'confirmed_at', 'Routines never decay.'),
    ('obligation', 36 * 3600,   'deadline',     'No decay before the deadline; ephemeral decay from it on.');

-- tenure_decay_policy returns the policy that governs a fact: its category's
-- override when there is one (a deadline-anchored override only when the fact
-- has a deadline), otherwise its durability's.
-- +goose StatementBegin
CREATE FUNCTION tenure_decay_policy(p_durability text, p_category text, p_deadline timestamptz)
RETURNS TABLE (half_life_seconds double precision, anchor text, floor double precision)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT dp.half_life_seconds, dp.anchor, dp.floor
    FROM decay_policies dp
    WHERE (dp.category = p_category AND (dp.anchor <> 'deadline' OR p_deadline IS NOT NULL))
       OR dp.durability = p_durability
    ORDER BY dp.category IS NULL
    LIMIT 1
$$;
-- +goose StatementEnd

-- tenure_forget_at is the instant a fact's effective confidence crosses its
-- policy's floor, or its expires_at when that comes sooner; NULL when it never
-- decays and never expires.
-- +goose StatementBegin
CREATE FUNCTION tenure_forget_at(
    p_durability text, p_category text, p_confidence double precision,
    p_confirmed_at timestamptz, p_expires_at timestamptz, p_deadline timestamptz)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT least(p_expires_at, (
        SELECT CASE
            WHEN pol.half_life_seconds IS NULL THEN NULL
            WHEN p_confidence <= pol.floor THEN anchor_at
            ELSE anchor_at + make_interval(
                secs => pol.half_life_seconds * ln(p_confidence / pol.floor) / ln(2))
        END
        FROM tenure_decay_policy(p_durability, p_category, p_deadline) pol,
             LATERAL (SELECT CASE WHEN pol.anchor = 'deadline'
                                  THEN greatest(p_confirmed_at, p_deadline)
                                  ELSE p_confirmed_at END AS anchor_at) a))
$$;
-- +goose StatementEnd

-- tenure_effective_confidence is c0 * 2^(-(at - anchor) / half_life), in
-- seconds, never below zero elapsed time; c0 itself is never overwritten.
-- +goose StatementBegin
CREATE FUNCTION tenure_effective_confidence(
    p_durability text, p_category text, p_confidence double precision,
    p_confirmed_at timestamptz, p_deadline timestamptz, p_at timestamptz)
RETURNS double precision
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce((
        SELECT CASE
            WHEN pol.half_life_seconds IS NULL THEN p_confidence
            ELSE p_confidence * power(2::double precision,
                -greatest(0, extract(epoch FROM p_at - anchor_at)::double precision)
                / pol.half_life_seconds)
        END
        FROM tenure_decay_policy(p_durability, p_category, p_deadline) pol,
             LATERAL (SELECT CASE WHEN pol.anchor = 'deadline'
                                  THEN greatest(p_confirmed_at, p_deadline)
                                  ELSE p_confirmed_at END AS anchor_at) a), p_confidence)
$$;
-- +goose StatementEnd

CREATE TABLE entity_facts (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    search           tsvector GENERATED ALWAYS AS (
        to_tsvector('english', replace(key, '_', ' ') || ' ' || content)) STORED,
    CONSTRAINT entity_facts_entity_fkey FOREIGN KEY (scope, entity_id)
        REFERENCES entities (scope, id) ON DELETE CASCADE,
    CONSTRAINT entity_facts_durability_check
        CHECK (durability IN ('permanent', 'long_term', 'short_term', 'ephemeral')),
    CONSTRAINT entity_facts_category_format CHECK (category ~ '^[a-z][a-z0-9_]{0,39}$'),
    CONSTRAINT entity_facts_key_format CHECK (key ~ '^[a-z0-9_.:-]{0,64}$'),
    CONSTRAINT entity_facts_content_present CHECK (btrim(content) <> '' AND length(content) <= 10000),
    CONSTRAINT entity_facts_confidence_range CHECK (confidence >= 0 AND confidence <= 1),
    CONSTRAINT entity_facts_importance_range CHECK (importance >= 0 AND importance <= 1),
    CONSTRAINT entity_facts_status_value CHECK (status IN ('active', 'archived')),
    CONSTRAINT entity_facts_archived_consistent
        CHECK ((status = 'archived') = (archived_at IS NOT NULL)),
    CONSTRAINT entity_facts_source_value
        CHECK (source IN ('consolidation', 'extraction', 'api', 'human', 'import')),
    CONSTRAINT entity_facts_extraction_count_positive CHECK (extraction_count >= 1),
    CONSTRAINT entity_facts_version_positive CHECK (version >= 1)
);

-- The decay job reads only the facts that are due.
CREATE INDEX entity_facts_forget_at_idx ON entity_facts (forget_at) WHERE status = 'active';
-- Console listing: newest first, filtered by status and one axis at a time.
CREATE INDEX entity_facts_status_id_idx ON entity_facts (status, id DESC);
CREATE INDEX entity_facts_durability_idx ON entity_facts (durability, status, id DESC);
CREATE INDEX entity_facts_category_idx ON entity_facts (category, status, id DESC);
CREATE INDEX entity_facts_scope_idx ON entity_facts (scope, status, id DESC);
CREATE INDEX entity_facts_entity_key_idx ON entity_facts (entity_id, key, status);
CREATE INDEX entity_facts_deadline_idx ON entity_facts (deadline)
    WHERE status = 'active' AND deadline IS NOT NULL;
CREATE INDEX entity_facts_search_idx ON entity_facts USING gin (search);

-- forget_at is kept current by the very statement that changes any of its
-- inputs, whatever wrote it.
-- +goose StatementBegin
CREATE FUNCTION entity_facts_set_forget_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.forget_at := tenure_forget_at(NEW.durability, NEW.category, NEW.confidence,
                                      NEW.confirmed_at, NEW.expires_at, NEW.deadline);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER entity_facts_forget_at
    BEFORE INSERT OR UPDATE OF durability, category, confidence, confirmed_at, expires_at, deadline
    ON entity_facts
    FOR EACH ROW EXECUTE FUNCTION entity_facts_set_forget_at();

CREATE TABLE decisions (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fact_id       bigint      NOT NULL UNIQUE REFERENCES entity_facts (id) ON DELETE CASCADE,
    scope         text        NOT NULL,
    entity_id     bigint      NOT NULL,
    key           text        NOT NULL,
    decision      text        NOT NULL,
    alternatives  text[]      NOT NULL DEFAULT '{}',
    reasoning     text        NOT NULL DEFAULT '',
    decided_by    text        NOT NULL DEFAULT '',
    decided_at    timestamptz NOT NULL DEFAULT now(),
    do_not_reopen boolean     NOT NULL DEFAULT true,
    reopened_at   timestamptz,
    reopened_by   text,
    reopen_reason text,
    version       integer     NOT NULL DEFAULT 1,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT decisions_entity_fkey FOREIGN KEY (scope, entity_id)
        REFERENCES entities (scope, id) ON DELETE CASCADE,
    CONSTRAINT decisions_key_format CHECK (key ~ '^[a-z0-9_.:-]{1,64}$'),
    CONSTRAINT decisions_decision_present CHECK (btrim(decision) <> '' AND length(decision) <= 10000),
    CONSTRAINT decisions_reopen_reason CHECK (reopened_at IS NULL OR btrim(coalesce(reopen_reason, '')) <> ''),
    CONSTRAINT decisions_version_positive CHECK (version >= 1)
);

-- Automated writers look up the lock on (scope, entity, key).
CREATE INDEX decisions_lock_idx ON decisions (scope, entity_id, key) WHERE do_not_reopen;
CREATE INDEX decisions_decided_at_idx ON decisions (decided_at DESC, id DESC);

-- +goose Down
DROP TABLE decisions;
DROP TRIGGER entity_facts_forget_at ON entity_facts;
DROP FUNCTION entity_facts_set_forget_at();
DROP TABLE entity_facts;
DROP FUNCTION tenure_effective_confidence(text, text, double precision, timestamptz, timestamptz, timestamptz);
DROP FUNCTION tenure_forget_at(text, text, double precision, timestamptz, timestamptz, timestamptz);
DROP FUNCTION tenure_decay_policy(text, text, timestamptz);
DROP TABLE decay_policies;
DROP TABLE entities;
