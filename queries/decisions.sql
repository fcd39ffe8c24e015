-- name: CreateDecision :one
INSERT INTO decisions (
    fact_id, scope, entity_id, key, decision, alternatives, reasoning, decided_by,
    decided_at, do_not_reopen
) VALUES (
    @fact_id, @scope, @entity_id, @key, @decision, @alternatives::text[], @reasoning,
    @decided_by, @decided_at, @do_not_reopen
)
RETURNING id, fact_id, scope, entity_id, key, decision, alternatives, reasoning, decided_by,
    decided_at, do_not_reopen, reopened_at, reopened_by, reopen_reason, version, created_at,
    updated_at;
