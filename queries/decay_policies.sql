-- name: ListDecayPolicies :many
SELECT id, durability, category, half_life_seconds, anchor, floor, description, updated_at,
    updated_by
FROM decay_policies
ORDER BY category NULLS FIRST,
    array_position(ARRAY['permanent', 'long_term', 'short_term', 'ephemeral'], durability);

-- name: DecayPolicyForUpdate :one
SELECT id, durability, category, half_life_seconds, anchor, floor, description, updated_at,
    updated_by
FROM decay_policies
WHERE id = @id
FOR UPDATE;

-- name: UpdateDecayPolicy :one
UPDATE decay_policies
SET half_life_seconds = sqlc.narg('half_life_seconds'), floor = @floor,
    updated_at = @now::timestamptz, updated_by = @updated_by::text
WHERE id = @id
RETURNING id, durability, category, half_life_seconds, anchor, floor, description, updated_at,
    updated_by;
