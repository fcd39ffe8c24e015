-- name: ListDecayPolicies :many
SELECT id, durability, category, half_life_seconds, anchor, floor, description, updated_at,
    updated_by
FROM decay_policies
ORDER BY category NULLS FIRST,
    array_position(ARRAY['permanent', 'long_term', 'short_term', 'ephemeral'], durability);
