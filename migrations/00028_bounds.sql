-- +goose Up
-- Bounds on every number and time (memory/bounds.go). Writers may send
-- instants from 1970-01-01T00:00:00Z to 9000-01-01T00:00:00Z, confidences and
-- importances of 0 or from 0.001 to 1, and ttls of 1 to 31,536,000 seconds.
-- What the database derives stays within the same bounds, and the rows
-- stored before the bounds held are brought into them.

-- tenure_clamp_time is an instant moved into the bounds (NULL stays NULL).
-- +goose StatementBegin
CREATE FUNCTION tenure_clamp_time(p_at timestamptz)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT least(greatest(p_at, '1970-01-01 00:00:00+00'::timestamptz),
                 '9000-01-01 00:00:00+00'::timestamptz)
$$;
-- +goose StatementEnd

-- A fact's decay terms as before, with decay_from and forget_at clamped:
-- forget_at may lie up to 10^11 s (about 3,169 years) past the anchor, which
-- from a deadline late in the bounds reaches past the year 9999, the last
-- that Go writes as RFC 3339 (a fact whose forget_at was 10000-01-05 failed
-- every read of its scope). A fact forgotten at the upper bound is, in
-- practice, never forgotten. log2(c0 / floor) is computed as a difference of
-- logarithms, so that no floor, however small, overflows the division; c0
-- is never 0 there (0 is at or below any floor), but the planner may fold
-- ln(c0) of a constant 0 before the CASE is decided, hence the greatest().
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_decay_state(
    p_durability text, p_category text, p_confidence double precision,
    p_confirmed_at timestamptz, p_expires_at timestamptz, p_deadline timestamptz)
RETURNS TABLE (half_life double precision, decay_from timestamptz, forget_at timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT pol.half_life_seconds, tenure_clamp_time(a.anchor_at),
        tenure_clamp_time(least(p_expires_at, CASE
            WHEN pol.half_life_seconds IS NULL THEN NULL
            WHEN p_confidence <= pol.floor THEN a.anchor_at
            ELSE a.anchor_at + make_interval(
                secs => least(1e11, pol.half_life_seconds
                    * (ln(greatest(p_confidence, 1e-300)) - ln(pol.floor)) / ln(2)))
        END))
    FROM (SELECT) one
    LEFT JOIN LATERAL tenure_decay_policy(p_durability, p_category, p_deadline) pol ON true
    CROSS JOIN LATERAL (SELECT CASE WHEN pol.anchor = 'deadline'
                                    THEN greatest(p_confirmed_at, p_deadline)
                                    ELSE p_confirmed_at END AS anchor_at) a
$$;
-- +goose StatementEnd

-- tenure_forget_at (which restoring a fact still asks) is the forget_at of
-- tenure_decay_state, clamped like it, rather than a second copy of the
-- arithmetic.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_forget_at(
    p_durability text, p_category text, p_confidence double precision,
    p_confirmed_at timestamptz, p_expires_at timestamptz, p_deadline timestamptz)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT s.forget_at
    FROM tenure_decay_state(p_durability, p_category, p_confidence, p_confirmed_at,
                            p_expires_at, p_deadline) s
$$;
-- +goose StatementEnd

-- Facts stored out of bounds: their times are clamped, and a confidence or
-- importance above 0 but below 0.001 is raised to 0.001 (a fact of
-- confidence 5e-324 could not even be read back: its decay underflowed).
-- The forget_at trigger recomputes the decay terms of every row changed.
-- The version is left as it is: nothing a person wrote is overwritten.
UPDATE entity_facts
SET confirmed_at = tenure_clamp_time(confirmed_at), expires_at = tenure_clamp_time(expires_at),
    deadline = tenure_clamp_time(deadline), archived_at = tenure_clamp_time(archived_at),
    created_at = tenure_clamp_time(created_at), updated_at = tenure_clamp_time(updated_at),
    confidence = CASE WHEN confidence > 0 AND confidence < 0.001 THEN 0.001 ELSE confidence END,
    importance = CASE WHEN importance > 0 AND importance < 0.001 THEN 0.001 ELSE importance END
WHERE confirmed_at IS DISTINCT FROM tenure_clamp_time(confirmed_at)
   OR expires_at IS DISTINCT FROM tenure_clamp_time(expires_at)
   OR deadline IS DISTINCT FROM tenure_clamp_time(deadline)
   OR archived_at IS DISTINCT FROM tenure_clamp_time(archived_at)
   OR created_at IS DISTINCT FROM tenure_clamp_time(created_at)
   OR updated_at IS DISTINCT FROM tenure_clamp_time(updated_at)
   OR (confidence > 0 AND confidence < 0.001)
   OR (importance > 0 AND importance < 0.001);

-- Facts whose inputs are within the bounds but whose derived terms are not
-- (a deadline late in the bounds, decaying past them).
UPDATE entity_facts f
SET (decay_half_life, decay_from, forget_at) = (
    SELECT s.half_life, s.decay_from, s.forget_at
    FROM tenure_decay_state(f.durability, f.category, f.confidence, f.confirmed_at,
                            f.expires_at, f.deadline) s)
WHERE f.forget_at IS DISTINCT FROM tenure_clamp_time(f.forget_at)
   OR f.decay_from IS DISTINCT FROM tenure_clamp_time(f.decay_from);

UPDATE decisions
SET decided_at = tenure_clamp_time(decided_at), reopened_at = tenure_clamp_time(reopened_at),
    created_at = tenure_clamp_time(created_at), updated_at = tenure_clamp_time(updated_at)
WHERE decided_at IS DISTINCT FROM tenure_clamp_time(decided_at)
   OR reopened_at IS DISTINCT FROM tenure_clamp_time(reopened_at)
   OR created_at IS DISTINCT FROM tenure_clamp_time(created_at)
   OR updated_at IS DISTINCT FROM tenure_clamp_time(updated_at);

-- Working rows not promoted yet, out of bounds: an importance or a
-- properties.confidence above 0 but below 0.001 becomes 0.001, a ttl past
-- 365 days becomes 365 days, and a properties.deadline before 1970 or in the
-- year 9000 or later becomes the bound (the deadline 0000-01-01T00:00:00Z,
-- which PostgreSQL cannot read, set such a row aside at every run). A row of
-- these that was set aside is retried by the next run, held or not.
WITH bad AS (
    SELECT n.id,
        CASE WHEN jsonb_typeof(n.properties->'confidence') = 'number'
                  AND (n.properties->'confidence')::numeric > 0
                  AND (n.properties->'confidence')::numeric < 0.001
             THEN true ELSE false END AS confidence,
        CASE WHEN jsonb_typeof(n.properties->'deadline') = 'string'
             THEN (substring(n.properties->>'deadline' FROM '^\s*(\d{4})-'))::int END AS deadline_year
    FROM memory_nodes n
    WHERE n.promoted_at IS NULL
),
repaired AS (
    UPDATE memory_nodes n
    SET importance = CASE WHEN n.importance > 0 AND n.importance < 0.001 THEN 0.001 ELSE n.importance END,
        ttl_seconds = CASE WHEN n.ttl_seconds > 31536000 THEN 31536000 ELSE n.ttl_seconds END,
        properties = n.properties
            || CASE WHEN b.confidence THEN '{"confidence": 0.001}'::jsonb ELSE '{}'::jsonb END
            || CASE WHEN b.deadline_year < 1970 THEN '{"deadline": "1970-01-01T00:00:00Z"}'::jsonb
                    WHEN b.deadline_year >= 9000 THEN '{"deadline": "9000-01-01T00:00:00Z"}'::jsonb
                    ELSE '{}'::jsonb END
    FROM bad b
    WHERE n.id = b.id
      AND ((n.importance > 0 AND n.importance < 0.001) OR n.ttl_seconds > 31536000
           OR b.confidence OR b.deadline_year < 1970 OR b.deadline_year >= 9000)
    RETURNING n.id
)
UPDATE consolidation_faults cf
SET retry_at = now()
FROM repaired r
WHERE cf.node_id = r.id;

-- +goose Down
-- The rows brought into the bounds stay as they are.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tenure_forget_at(
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
DROP FUNCTION tenure_clamp_time(timestamptz);
