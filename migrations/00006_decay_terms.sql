-- +goose Up
-- Each fact keeps the two terms of its decay beside forget_at: the half-life
-- of the policy that governs it (NULL: it never decays) and the instant its
-- decay counts from (confirmed_at, or the deadline for a deadline-anchored
-- policy). Effective confidence is then plain arithmetic on the row,
-- tenure_decayed, which PostgreSQL inlines into every query, instead of a
-- policy lookup per fact: recall, the brief and the facts list rank
-- thousands of facts by it.
ALTER TABLE entity_facts
    ADD COLUMN decay_half_life double precision,
    ADD COLUMN decay_from timestamptz;

-- tenure_decay_state is a fact's decay under the current policies: the
-- governing half-life, the instant decay counts from, and forget_at. It
-- always returns one row: with no policy at all (the durability rows are
-- seeded and cannot be removed through Tenure) the fact never decays and is
-- forgotten at its expires_at, as tenure_forget_at has it.
-- +goose StatementBegin
CREATE FUNCTION tenure_decay_state(
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

-- tenure_decayed is c0 * 2^(-(at - decay_from) / half_life), never below zero
-- elapsed time, and c0 itself when half_life is NULL. A single expression, so
-- the planner inlines it.
-- +goose StatementBegin
CREATE FUNCTION tenure_decayed(
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

-- The trigger now keeps all three derived columns current.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION entity_facts_set_forget_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    SELECT s.half_life, s.decay_from, s.forget_at
    INTO NEW.decay_half_life, NEW.decay_from, NEW.forget_at
    FROM tenure_decay_state(NEW.durability, NEW.category, NEW.confidence,
                            NEW.confirmed_at, NEW.expires_at, NEW.deadline) s;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

UPDATE entity_facts f
SET (decay_half_life, decay_from, forget_at) = (
    SELECT s.half_life, s.decay_from, s.forget_at
    FROM tenure_decay_state(f.durability, f.category, f.confidence, f.confirmed_at,
                            f.expires_at, f.deadline) s);

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION entity_facts_set_forget_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.forget_at := tenure_forget_at(NEW.durability, NEW.category, NEW.confidence,
                                      NEW.confirmed_at, NEW.expires_at, NEW.deadline);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
DROP FUNCTION tenure_decayed(double precision, timestamptz, double precision, timestamptz);
DROP FUNCTION tenure_decay_state(text, text, double precision, timestamptz, timestamptz, timestamptz);
ALTER TABLE entity_facts DROP COLUMN decay_from, DROP COLUMN decay_half_life;
