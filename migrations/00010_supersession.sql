-- +goose Up
-- Current means current. A newer fact of a category that supersedes (a state,
-- a mood, an identity, a preference, a routine) or any short-term or ephemeral
-- fact archives the older facts of the same kind on the same scope, entity and
-- key, with the reason "superseded by fact N"; categories that accumulate
-- (observations, obligations) keep every fact. Which categories supersede is
-- a setting, edited on the decay-policies page.
CREATE TABLE category_settings (
    category    text PRIMARY KEY,
    supersedes  boolean     NOT NULL,
    description text        NOT NULL DEFAULT '',
    updated_at  timestamptz NOT NULL DEFAULT now(),
    updated_by  text,
    CONSTRAINT category_settings_slug CHECK (category ~ '^[a-z][a-z0-9_]{0,39}$')
);

INSERT INTO category_settings (category, supersedes, description) VALUES
    ('state', true, 'A state holds until the next one: only the newest on a key is current.'),
    ('mood', true, 'A mood is replaced by the next mood on the same key.'),
    ('identity', true, 'Who someone is (occupation, home city): the newest statement wins.'),
    ('preference', true, 'A preference on a key (drink, editor, theme) is replaced when it changes.'),
    ('routine', true, 'A routine on a key (work_schedule, exercise) is replaced when it changes.'),
    ('observation', false, 'Observations accumulate: several on one key may all stay.'),
    ('obligation', false, 'Obligations accumulate: each has its own deadline.'),
    ('decision', false, 'Decisions are replaced through the decision log, never by a fact.');

-- tenure_supersedes says whether a fact of this category and durability
-- takes part in supersession. Decisions never do.
-- +goose StatementBegin
CREATE FUNCTION tenure_supersedes(p_category text, p_durability text)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT p_category <> 'decision' AND (
        p_durability IN ('short_term', 'ephemeral')
        OR coalesce((SELECT s.supersedes FROM category_settings s WHERE s.category = p_category), false))
$$;
-- +goose StatementEnd

-- The brief's current state holds fresh moods beside states.
DROP INDEX entity_facts_brief_states_idx;
CREATE INDEX entity_facts_brief_states_idx ON entity_facts (scope, confirmed_at, id)
    WHERE status = 'active' AND category IN ('state', 'mood');

-- What changed since an agent's last brief: every write of a fact (created,
-- reinforced, edited, superseded, archived) sets updated_at.
CREATE INDEX entity_facts_scope_updated_idx ON entity_facts (scope, updated_at);
CREATE INDEX decisions_scope_updated_idx ON decisions (scope, updated_at);

-- A decision replaced by a later one on its key says so (superseded_by).
CREATE INDEX decisions_key_idx ON decisions (entity_id, key, id);

-- Near duplicates are found by trigram similarity.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One-time sweep of the memory written before these rules.
-- Exact duplicates (same entity, key and content ignoring case and outer
-- space) among active facts merge into the oldest, reinforced by the others.
WITH grouped AS (
    SELECT f.id, f.extraction_count,
        tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, now()) AS c_now,
        min(f.id) OVER (PARTITION BY f.entity_id, f.key, lower(btrim(f.content))) AS survivor
    FROM entity_facts f
    WHERE f.status = 'active' AND f.category <> 'decision'
),
dups AS (
    SELECT survivor, exp(greatest(sum(ln(greatest(1 - least(greatest(c_now, 0), 1), 1e-12))), -40)) AS keep,
        sum(extraction_count)::int AS extra
    FROM grouped
    WHERE id <> survivor
    GROUP BY survivor
),
archived AS (
    UPDATE entity_facts f
    SET status = 'archived', archived_at = now(), archive_reason = 'merged into fact ' || g.survivor,
        version = f.version + 1, updated_at = now()
    FROM grouped g
    WHERE f.id = g.id AND g.id <> g.survivor
    RETURNING f.id, f.scope, g.survivor
),
audited AS (
    INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, after, reason)
    SELECT now(), 'system:migration', 'fact.merge', 'fact', a.id::text, a.scope,
        jsonb_build_object('status', 'archived', 'merged_into', a.survivor),
        'one-time sweep: exact duplicates merge into the oldest'
    FROM archived a
)
UPDATE entity_facts f
SET confidence = 1 - (1 - g.c_now) * d.keep, extraction_count = f.extraction_count + d.extra,
    version = f.version + 1, updated_at = now()
FROM dups d
JOIN grouped g ON g.id = d.survivor
WHERE f.id = d.survivor;

-- Then the newest fact of each superseding kind on a key supersedes the
-- older ones.
WITH ranked AS (
    SELECT f.id, f.scope,
        first_value(f.id) OVER (PARTITION BY f.entity_id, f.key
                                ORDER BY f.confirmed_at DESC, f.id DESC) AS winner
    FROM entity_facts f
    WHERE f.status = 'active' AND f.key <> '' AND tenure_supersedes(f.category, f.durability)
),
archived AS (
    UPDATE entity_facts f
    SET status = 'archived', archived_at = now(), archive_reason = 'superseded by fact ' || r.winner,
        version = f.version + 1, updated_at = now()
    FROM ranked r
    WHERE f.id = r.id AND r.id <> r.winner
    RETURNING f.id, f.scope, r.winner
)
INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, after, reason)
SELECT now(), 'system:migration', 'fact.supersede', 'fact', a.id::text, a.scope,
    jsonb_build_object('status', 'archived', 'superseded_by', a.winner),
    'one-time sweep: the newest fact on a key supersedes the older ones'
FROM archived a;

-- +goose Down
DROP INDEX decisions_key_idx;
DROP INDEX decisions_scope_updated_idx;
DROP INDEX entity_facts_scope_updated_idx;
DROP INDEX entity_facts_brief_states_idx;
CREATE INDEX entity_facts_brief_states_idx ON entity_facts (scope, confirmed_at, id)
    WHERE status = 'active' AND category = 'state';
DROP FUNCTION tenure_supersedes(text, text);
DROP TABLE category_settings;
