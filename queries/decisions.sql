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

-- The queries below all return the same columns in the same order (a decision
-- and its entity's name), so that the memory package converts every row type
-- to one.

-- name: DecisionByID :one
SELECT d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.id = @id;

-- name: DecisionByIDForUpdate :one
SELECT d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.id = @id
FOR UPDATE OF d;

-- name: LockingDecision :one
-- LockingDecision returns the newest do_not_reopen decision on one
-- (scope, entity, key), the lock every automated writer must respect.
SELECT d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.scope = @scope AND d.entity_id = @entity_id AND d.key = @key AND d.do_not_reopen
ORDER BY d.id DESC
LIMIT 1;

-- name: LockingDecisionsForFacts :many
-- LockingDecisionsForFacts returns, for each of the named facts that has a
-- key, the newest do_not_reopen decision on its scope, entity and key.
SELECT DISTINCT ON (f.id) f.id AS fact_id, d.id AS decision_id, d.decision, d.reasoning
FROM entity_facts f
JOIN decisions d ON d.scope = f.scope AND d.entity_id = f.entity_id AND d.key = f.key
WHERE f.id = ANY(@fact_ids::bigint[]) AND f.key <> '' AND d.do_not_reopen
ORDER BY f.id, d.id DESC;

-- name: DecisionsBackingFacts :many
-- DecisionsBackingFacts returns the decisions recorded by the named facts.
SELECT d.fact_id, d.id
FROM decisions d
WHERE d.fact_id = ANY(@fact_ids::bigint[])
ORDER BY d.fact_id;

-- name: OpenDecisionFactsOnKey :many
-- OpenDecisionFactsOnKey returns the active facts of reopened decisions on one
-- (scope, entity, key): a new decision there supersedes them.
SELECT d.fact_id
FROM decisions d
JOIN entity_facts f ON f.id = d.fact_id
WHERE d.scope = @scope AND d.entity_id = @entity_id AND d.key = @key
  AND NOT d.do_not_reopen AND f.status = 'active'
ORDER BY d.fact_id;

-- name: ListDecisionsPage :many
-- ListDecisionsPage returns one page of decisions, newest first, after the
-- keyset cursor before_id (0 for the first page). Every filter is optional.
-- query is an ILIKE pattern over the decision, its reasoning, alternatives and key.
SELECT d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE (sqlc.narg('scope')::text IS NULL OR d.scope = sqlc.narg('scope')::text)
  AND (sqlc.narg('entity')::text IS NULL OR e.name = sqlc.narg('entity')::text)
  AND (sqlc.narg('locked')::boolean IS NULL OR d.do_not_reopen = sqlc.narg('locked')::boolean)
  -- state: current (locked, no later decision on its key), superseded (a
  -- later decision on its key replaced it) or reopened (open, not replaced).
  AND (sqlc.narg('state')::text IS NULL
       OR (sqlc.narg('state')::text = 'superseded') = EXISTS (
              SELECT 1 FROM decisions n WHERE n.entity_id = d.entity_id AND n.key = d.key AND n.id > d.id))
  AND (sqlc.narg('state')::text IS NULL OR sqlc.narg('state')::text = 'superseded'
       OR d.do_not_reopen = (sqlc.narg('state')::text = 'current'))
  AND (sqlc.narg('pattern')::text IS NULL
       OR concat_ws(' ', d.decision, d.reasoning, d.key, array_to_string(d.alternatives, ' '))
          ILIKE sqlc.narg('pattern')::text)
  AND (@before_id::bigint = 0 OR d.id < @before_id::bigint)
ORDER BY d.id DESC
LIMIT @page_size;

-- name: UpdateDecisionFields :one
-- UpdateDecisionFields writes every editable field of one decision if it is
-- still at @version; no row comes back when someone else changed it first.
UPDATE decisions d
SET decision = @decision, alternatives = @alternatives::text[], reasoning = @reasoning,
    decided_by = @decided_by, decided_at = @decided_at,
    version = d.version + 1, updated_at = @now::timestamptz
FROM entities e
WHERE e.id = d.entity_id AND d.id = @id AND d.version = @version
RETURNING d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at;

-- name: ReopenDecisionByID :one
UPDATE decisions d
SET do_not_reopen = false, reopened_at = @now::timestamptz, reopened_by = @reopened_by::text,
    reopen_reason = @reopen_reason::text, version = d.version + 1, updated_at = @now::timestamptz
FROM entities e
WHERE e.id = d.entity_id AND d.id = @id
RETURNING d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at;

-- name: RelockDecisionByID :one
-- RelockDecisionByID sets do_not_reopen again; the last reopening stays on the
-- row as history.
UPDATE decisions d
SET do_not_reopen = true, version = d.version + 1, updated_at = @now::timestamptz
FROM entities e
WHERE e.id = d.entity_id AND d.id = @id
RETURNING d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at;

-- name: CountRefusalsForDecisions :many
-- CountRefusalsForDecisions counts the refused writes against each of the
-- named decisions, through the rejections' decision index.
SELECT decision_id::bigint AS decision_id, count(*)::bigint AS refusals
FROM consolidation_rejections
WHERE decision_id = ANY(@decision_ids::bigint[])
GROUP BY decision_id;

-- name: DecisionsSupersededBy :many
-- DecisionsSupersededBy returns, for each of the given decisions that a
-- later decision on the same entity and key replaced, the first such one.
SELECT d.id, n.id AS superseded_by
FROM decisions d
JOIN LATERAL (
    SELECT x.id FROM decisions x
    WHERE x.entity_id = d.entity_id AND x.key = d.key AND x.id > d.id
    ORDER BY x.id
    LIMIT 1
) n ON true
WHERE d.id = ANY(@ids::bigint[]);
