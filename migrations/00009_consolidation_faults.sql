-- +goose Up
-- Consolidation that no single client can stop.
--
-- A working row whose promotion fails (an error of the database or of the
-- classifier on that row alone) is set aside in consolidation_faults with the
-- error: the run goes on with every other row and ends 'partial'; the row is
-- retried after a growing delay and, after a bounded number of attempts, held
-- for a person, who retries or expires it in the console.
CREATE TABLE consolidation_faults (
    node_id         bigint PRIMARY KEY REFERENCES memory_nodes (id) ON DELETE CASCADE,
    scope           text        NOT NULL,
    phase           smallint    NOT NULL,
    error           text        NOT NULL,
    attempts        integer     NOT NULL DEFAULT 1,
    first_failed_at timestamptz NOT NULL,
    last_failed_at  timestamptz NOT NULL,
    -- retry_at is when the next run may try the row again; NULL once held.
    retry_at        timestamptz,
    run_id          bigint REFERENCES consolidation_runs (id) ON DELETE SET NULL,
    CONSTRAINT consolidation_faults_phase_value CHECK (phase BETWEEN 8 AND 12),
    CONSTRAINT consolidation_faults_attempts_positive CHECK (attempts > 0)
);

CREATE INDEX consolidation_faults_scope_idx ON consolidation_faults (scope, node_id);
CREATE INDEX consolidation_faults_run_idx ON consolidation_faults (run_id) WHERE run_id IS NOT NULL;

-- 'partial': every phase ran, but some rows were set aside.
-- 'interrupted': the process stopped before the run finished.
ALTER TABLE consolidation_runs DROP CONSTRAINT consolidation_runs_status_value;
ALTER TABLE consolidation_runs ADD CONSTRAINT consolidation_runs_status_value
    CHECK (status IN ('running', 'succeeded', 'partial', 'failed', 'cancelled', 'interrupted'));
ALTER TABLE consolidation_runs ADD COLUMN set_aside integer NOT NULL DEFAULT 0;

-- A refusal is logged once per row, phase and reason, across runs: a rerun
-- after a crash, or the next scheduled run, finds it logged and skips the row.
DELETE FROM consolidation_rejections r
USING consolidation_rejections o
WHERE r.run_id IS NOT NULL AND o.run_id IS NOT NULL
  AND r.node_id = o.node_id AND r.phase = o.phase AND r.reason = o.reason AND o.id < r.id;
DROP INDEX consolidation_rejections_once_idx;
CREATE UNIQUE INDEX consolidation_rejections_once_idx
    ON consolidation_rejections (node_id, phase, reason) WHERE run_id IS NOT NULL;

-- The identical fact of a row is found by its content, not by walking every
-- fact on its entity and key: a key that thousands of facts share (rows that
-- name no entity all fall on "general") cost one step per fact before. The
-- content is indexed by its md5, so that a fact of any length fits a B-tree
-- entry; queries compare the content itself as well.
CREATE INDEX entity_facts_entity_key_content_idx ON entity_facts (entity_id, key, md5(lower(content)));
DROP INDEX entity_facts_entity_key_idx;

-- Effective confidence never raises an underflow: a fact more than a
-- thousand half-lives (in log2 of its confidence) past its anchor is worth 0,
-- and a confidence of 0 (or less) stays 0 instead of reaching ln.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_decayed(
    p_confidence double precision, p_decay_from timestamptz, p_half_life double precision,
    p_at timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN p_half_life IS NULL THEN p_confidence
        WHEN p_confidence <= 0 THEN 0
        WHEN greatest(0, extract(epoch FROM p_at - p_decay_from)::double precision) / p_half_life
             > 1000 + ln(p_confidence) / 0.6931471805599453 THEN 0
        ELSE p_confidence * power(2::double precision,
            -greatest(0, extract(epoch FROM p_at - p_decay_from)::double precision) / p_half_life)
    END
$$;
-- +goose StatementEnd

-- forget_at stays a representable instant whatever the policy's half-life and
-- floor: the time to decay is capped at 10^11 s (about 3,000 years).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_decay_state(
    p_durability text, p_category text, p_confidence double precision,
    p_confirmed_at timestamptz, p_expires_at timestamptz, p_deadline timestamptz)
RETURNS TABLE (half_life double precision, decay_from timestamptz, forget_at timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT pol.half_life_seconds, a.anchor_at,
        least(p_expires_at, CASE
            WHEN pol.half_life_seconds IS NULL THEN NULL
            WHEN p_confidence <= pol.floor THEN a.anchor_at
            ELSE a.anchor_at + make_interval(
                secs => least(1e11, pol.half_life_seconds * ln(p_confidence / pol.floor) / ln(2)))
        END)
    FROM (SELECT) one
    LEFT JOIN LATERAL tenure_decay_policy(p_durability, p_category, p_deadline) pol ON true
    CROSS JOIN LATERAL (SELECT CASE WHEN pol.anchor = 'deadline'
                                    THEN greatest(p_confirmed_at, p_deadline)
                                    ELSE p_confirmed_at END AS anchor_at) a
$$;
-- +goose StatementEnd

-- +goose Down
CREATE INDEX entity_facts_entity_key_idx ON entity_facts (entity_id, key, status);
DROP INDEX entity_facts_entity_key_content_idx;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_decay_state(
    p_durability text, p_category text, p_confidence double precision,
    p_confirmed_at timestamptz, p_expires_at timestamptz, p_deadline timestamptz)
RETURNS TABLE (half_life double precision, decay_from timestamptz, forget_at timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT pol.half_life_seconds, a.anchor_at,
        least(p_expires_at, CASE
            WHEN pol.half_life_seconds IS NULL THEN NULL
            WHEN p_confidence <= pol.floor THEN a.anchor_at
            ELSE a.anchor_at + make_interval(
                secs => pol.half_life_seconds * ln(p_confidence / pol.floor) / ln(2))
        END)
    FROM (SELECT) one
    LEFT JOIN LATERAL tenure_decay_policy(p_durability, p_category, p_deadline) pol ON true
    CROSS JOIN LATERAL (SELECT CASE WHEN pol.anchor = 'deadline'
                                    THEN greatest(p_confirmed_at, p_deadline)
                                    ELSE p_confirmed_at END AS anchor_at) a
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_decayed(
    p_confidence double precision, p_decay_from timestamptz, p_half_life double precision,
    p_at timestamptz)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN p_half_life IS NULL THEN p_confidence
        ELSE p_confidence * power(2::double precision,
            -greatest(0, extract(epoch FROM p_at - p_decay_from)::double precision) / p_half_life)
    END
$$;
-- +goose StatementEnd
DROP INDEX consolidation_rejections_once_idx;
CREATE UNIQUE INDEX consolidation_rejections_once_idx
    ON consolidation_rejections (run_id, phase, node_id) WHERE run_id IS NOT NULL;
UPDATE consolidation_runs SET status = 'failed' WHERE status IN ('partial', 'interrupted');
ALTER TABLE consolidation_runs DROP COLUMN set_aside;
ALTER TABLE consolidation_runs DROP CONSTRAINT consolidation_runs_status_value;
ALTER TABLE consolidation_runs ADD CONSTRAINT consolidation_runs_status_value
    CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled'));
DROP TABLE consolidation_faults;
