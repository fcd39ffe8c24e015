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

-- name: DecisionIDsWalk :many
-- DecisionIDsWalk walks the newest decisions passing the cheap filters
-- (scope through decisions_scope_id_idx, or the primary key; locked), at most
-- walk_rows of them, and returns newest first the ids of those that also
-- pass the entity, text and superseded filters with hit true, and the walk's
-- last decision when it reaches it (row_number = walk_rows), whatever its
-- hit: up to page_size rows in all. When fewer than page_size hits come
-- back, the walk saw every decision passing the cheap filters unless its
-- last decision came back, below whose id DecisionIDsSearch goes on. pattern
-- is an ILIKE pattern over the text of tenure_decision_text, written out here
-- because the walk needs no index and calling the SQL function costs about
-- as much again as the match itself; only_superseded keeps the decisions a
-- later one on their key replaced, not_superseded the others.
SELECT c.id, c.hit::boolean AS hit, (c.rn = @walk_rows::int)::boolean AS last
FROM (
    SELECT d.id,
        ((sqlc.narg('entity_ids')::bigint[] IS NULL OR d.entity_id = ANY(sqlc.narg('entity_ids')::bigint[]))
         AND (sqlc.narg('pattern')::text IS NULL
              OR concat_ws(' ', d.decision, d.reasoning, d.key, array_to_string(d.alternatives, ' '))
                 ILIKE sqlc.narg('pattern')::text)
         AND (NOT @only_superseded::boolean OR s.id IS NOT NULL)
         AND (NOT @not_superseded::boolean OR s.id IS NULL)) AS hit,
        row_number() OVER (ORDER BY d.id DESC) AS rn
    FROM decisions d
    -- Probed for each walked decision (PostgreSQL drops the join when no
    -- state filter needs it), never read whole.
    LEFT JOIN decisions_superseded s ON s.id = d.id
    WHERE (sqlc.narg('scope')::text IS NULL OR d.scope = sqlc.narg('scope')::text)
      AND (sqlc.narg('locked')::boolean IS NULL OR d.do_not_reopen = sqlc.narg('locked')::boolean)
      AND (sqlc.narg('reopened')::boolean IS NULL OR (d.reopened_at IS NOT NULL) = sqlc.narg('reopened')::boolean)
      AND (@before_id::bigint = 0 OR d.id < @before_id::bigint)
    ORDER BY d.id DESC
    LIMIT @walk_rows::int
) c
WHERE c.hit OR c.rn = @walk_rows::int
ORDER BY c.id DESC
LIMIT @page_size::int;

-- name: DecisionIDsSearch :many
-- DecisionIDsSearch returns the ids of up to page_size decisions below
-- before_id that pass every filter, newest first. It runs after a walk that
-- found the matches sparse, so it must not walk ids newest first: ordering by
-- id + 0, which no index provides, makes PostgreSQL collect the matches
-- through the indexes of the filters (the trigram index for the text,
-- decisions_entity_id_idx for entities, decisions_reopened_idx for reopened
-- decisions) and sort only those; DecisionIDsSearchSuperseded is the same
-- for the superseded decisions.
SELECT d.id
FROM decisions d
WHERE (sqlc.narg('scope')::text IS NULL OR d.scope = sqlc.narg('scope')::text)
  AND (sqlc.narg('entity_ids')::bigint[] IS NULL OR d.entity_id = ANY(sqlc.narg('entity_ids')::bigint[]))
  AND (sqlc.narg('locked')::boolean IS NULL OR d.do_not_reopen = sqlc.narg('locked')::boolean)
  AND (sqlc.narg('reopened')::boolean IS NULL OR (d.reopened_at IS NOT NULL) = sqlc.narg('reopened')::boolean)
  AND (sqlc.narg('pattern')::text IS NULL
       OR tenure_decision_text(d.decision, d.reasoning, d.key, d.alternatives) ILIKE sqlc.narg('pattern')::text)
  AND (NOT @not_superseded::boolean OR NOT EXISTS (SELECT 1 FROM decisions_superseded s WHERE s.id = d.id))
  AND d.id < @before_id::bigint
ORDER BY d.id + 0 DESC
LIMIT @page_size::int;

-- name: DecisionIDsSearchSuperseded :many
-- DecisionIDsSearchSuperseded is DecisionIDsSearch for the superseded
-- decisions: the semi-join on decisions_superseded, a top-level condition,
-- lets PostgreSQL start from the superseded decisions (or from the matches
-- of the text or the entity, when they are fewer) instead of testing every
-- decision.
SELECT d.id
FROM decisions d
WHERE EXISTS (SELECT 1 FROM decisions_superseded s WHERE s.id = d.id)
  AND (sqlc.narg('scope')::text IS NULL OR d.scope = sqlc.narg('scope')::text)
  AND (sqlc.narg('entity_ids')::bigint[] IS NULL OR d.entity_id = ANY(sqlc.narg('entity_ids')::bigint[]))
  AND (sqlc.narg('locked')::boolean IS NULL OR d.do_not_reopen = sqlc.narg('locked')::boolean)
  AND (sqlc.narg('pattern')::text IS NULL
       OR tenure_decision_text(d.decision, d.reasoning, d.key, d.alternatives) ILIKE sqlc.narg('pattern')::text)
  AND d.id < @before_id::bigint
ORDER BY d.id + 0 DESC
LIMIT @page_size::int;

-- name: ListDecisionsByIDs :many
-- ListDecisionsByIDs reads the decisions a walk and a search chose, newest
-- first.
SELECT d.id, d.fact_id, d.scope, d.entity_id, e.name AS entity_name, d.key, d.decision,
    d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen, d.reopened_at,
    d.reopened_by, d.reopen_reason, d.version, d.created_at, d.updated_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.id = ANY(@ids::bigint[])
ORDER BY d.id DESC;

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

-- name: LockedDecisionsInScopes :many
-- LockedDecisionsInScopes returns the locked decisions of every entity of
-- the given scopes, for the topic check of automated decisions
-- (memory/topics.go): a person may decide for a team.
SELECT d.id, d.scope, e.name AS entity, d.key, d.decision, d.alternatives, d.reasoning
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.scope = ANY(@scopes::text[]) AND d.do_not_reopen
ORDER BY d.id;
