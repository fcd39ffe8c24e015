-- Aliases and merges of entities (migration 00037, memory/aliases.go).

-- name: EntityFold :one
-- EntityFold is name as names are compared (tenure_entity_fold).
SELECT tenure_entity_fold(@name::text)::text AS fold;

-- name: LockEntities :many
-- LockEntities locks the entities with ids, in id order, for a merge or
-- its undo: a writer that names one of them waits until it is done.
SELECT id, scope, name, kind, created_at, updated_at
FROM entities
WHERE id = ANY(@ids::bigint[])
ORDER BY id
FOR UPDATE;

-- name: AliasByFold :one
-- AliasByFold returns the alias of fold in scope with the name of its
-- entity.
SELECT a.scope, a.fold, a.alias, a.entity_id, a.created_by, a.created_at, a.merge_id, e.name AS entity_name
FROM entity_aliases a
JOIN entities e ON e.id = a.entity_id
WHERE a.scope = @scope AND a.fold = @fold;

-- name: AliasesOfEntity :many
-- AliasesOfEntity returns the aliases of one entity, by alias.
SELECT a.scope, a.fold, a.alias, a.entity_id, a.created_by, a.created_at, a.merge_id
FROM entity_aliases a
WHERE a.entity_id = @entity_id
ORDER BY a.fold;

-- name: InsertAlias :one
-- InsertAlias records alias as a name of the entity; an alias of the same
-- fold already in the scope is left as it is and nothing is returned.
INSERT INTO entity_aliases (scope, fold, alias, entity_id, created_by, created_at, merge_id)
VALUES (@scope, tenure_entity_fold(@alias::text), @alias::text, @entity_id, @created_by, @now::timestamptz,
    sqlc.narg('merge_id')::bigint)
ON CONFLICT (scope, fold) DO NOTHING
RETURNING scope, fold, alias, entity_id, created_by, created_at, merge_id;

-- name: DeleteAlias :one
-- DeleteAlias removes the alias of fold from entity_id, unless a merge made
-- it (an undo of the merge removes that one).
DELETE FROM entity_aliases
WHERE scope = @scope AND fold = @fold AND entity_id = @entity_id AND merge_id IS NULL
RETURNING scope, fold, alias, entity_id, created_by, created_at, merge_id;

-- name: EntityMergedAway :one
-- EntityMergedAway returns the merge, not undone, that moved entity_id into
-- another entity, if any.
SELECT m.id, m.into_entity_id, e.name AS into_name
FROM entity_merges m
JOIN entities e ON e.id = m.into_entity_id
WHERE m.from_entity_id = @entity_id AND m.undone_at IS NULL
ORDER BY m.id DESC
LIMIT 1;

-- name: LockedDecisionsOnSharedKeys :many
-- LockedDecisionsOnSharedKeys returns the pairs of current locked decisions
-- (do_not_reopen, not replaced by a later one) of two entities on the same
-- key: a merge would leave two settled answers to one question.
SELECT a.key, a.id AS from_decision_id, b.id AS into_decision_id
FROM decisions a
JOIN decisions b ON b.entity_id = @into_entity_id AND b.key = a.key AND b.do_not_reopen
WHERE a.entity_id = @from_entity_id AND a.do_not_reopen
  AND NOT EXISTS (SELECT 1 FROM decisions_superseded s WHERE s.id = a.id)
  AND NOT EXISTS (SELECT 1 FROM decisions_superseded s WHERE s.id = b.id)
ORDER BY a.key, a.id, b.id;

-- name: MoveEntityFacts :many
-- MoveEntityFacts moves every fact of one entity to another, active or
-- archived, and returns their ids.
UPDATE entity_facts
SET entity_id = @into_entity_id, version = version + 1, updated_at = @now::timestamptz
WHERE entity_id = @from_entity_id
RETURNING id;

-- name: MoveFactsBack :many
-- MoveFactsBack moves the facts of ids that are still on into_entity_id
-- back to to_entity_id, and returns their ids.
UPDATE entity_facts
SET entity_id = @to_entity_id, version = version + 1, updated_at = @now::timestamptz
WHERE id = ANY(@ids::bigint[]) AND entity_id = @into_entity_id
RETURNING id;

-- name: MoveEntityDecisions :many
-- MoveEntityDecisions moves every decision of one entity to another and
-- returns their ids (their facts move with MoveEntityFacts).
UPDATE decisions
SET entity_id = @into_entity_id, version = version + 1, updated_at = @now::timestamptz
WHERE entity_id = @from_entity_id
RETURNING id;

-- name: MoveDecisionsBack :many
-- MoveDecisionsBack moves the decisions of ids that are still on
-- into_entity_id back to to_entity_id, and returns their ids.
UPDATE decisions
SET entity_id = @to_entity_id, version = version + 1, updated_at = @now::timestamptz
WHERE id = ANY(@ids::bigint[]) AND entity_id = @into_entity_id
RETURNING id;

-- name: MoveEntityNodes :many
-- MoveEntityNodes names into_name as the entity of the scope's pending
-- working rows whose entity property has one of folds, and returns each
-- with the entity it named before. Promoted rows keep what they said.
UPDATE memory_nodes n
SET properties = jsonb_set(n.properties, '{entity}', to_jsonb(@into_name::text))
FROM (
    SELECT m.id, m.properties->>'entity' AS old
    FROM memory_nodes m
    WHERE m.scope = @scope AND m.promoted_at IS NULL AND m.properties ? 'entity'
      AND tenure_entity_fold(m.properties->>'entity') = ANY(@folds::text[])
) x
WHERE n.id = x.id AND n.promoted_at IS NULL
RETURNING n.id, x.old::text AS old_entity;

-- name: MoveNodesBack :many
-- MoveNodesBack gives each pending working row of ids the entity of the
-- same place in entities, while it still names into_name.
UPDATE memory_nodes n
SET properties = jsonb_set(n.properties, '{entity}', to_jsonb(x.entity))
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@entities::text[]) AS entity) x
WHERE n.id = x.id AND n.promoted_at IS NULL AND n.properties->>'entity' = @into_name::text
RETURNING n.id;

-- name: RepointAliases :many
-- RepointAliases gives the aliases of one entity (or, with folds, only those
-- of folds) to another, and returns their folds.
UPDATE entity_aliases
SET entity_id = @into_entity_id
WHERE scope = @scope AND entity_id = @from_entity_id
  AND (sqlc.narg('folds')::text[] IS NULL OR fold = ANY(sqlc.narg('folds')::text[]))
RETURNING fold;

-- name: DeleteMergeAliases :many
-- DeleteMergeAliases removes the aliases a merge made.
DELETE FROM entity_aliases
WHERE merge_id = @merge_id
RETURNING fold, alias;

-- name: LockDecisionKeys :exec
-- LockDecisionKeys takes the transaction locks the decisions_superseded
-- trigger takes (migration 00022) on every key of the entities' decisions,
-- under each of the entities, in bucket order: a decision recorded on one
-- of those keys meanwhile waits for the merge or its undo.
SELECT pg_advisory_xact_lock(7324, k.bucket)
FROM (
    SELECT DISTINCT hashtext(t.id::text || '/' || d.key) & 63 AS bucket
    FROM decisions d
    CROSS JOIN unnest(@entity_ids::bigint[]) AS t(id)
    WHERE d.entity_id = ANY(@entity_ids::bigint[])
    ORDER BY 1
) k;

-- name: RefreshDecisionsSuperseded :exec
-- RefreshDecisionsSuperseded marks, among the decisions of the entities,
-- those a later decision on the same entity and key replaces, and unmarks
-- the others: a merge and its undo move decisions between entities.
WITH d AS (
    SELECT d.id, EXISTS (
        SELECT 1 FROM decisions x WHERE x.entity_id = d.entity_id AND x.key = d.key AND x.id > d.id) AS replaced
    FROM decisions d
    WHERE d.entity_id = ANY(@entity_ids::bigint[])
), unmarked AS (
    DELETE FROM decisions_superseded s
    USING d
    WHERE s.id = d.id AND NOT d.replaced
)
INSERT INTO decisions_superseded (id)
SELECT d.id FROM d WHERE d.replaced
ON CONFLICT DO NOTHING;

-- name: InsertMerge :one
INSERT INTO entity_merges (scope, from_entity_id, into_entity_id, actor, created_at,
    fact_ids, decision_ids, node_ids, node_entities, alias_folds, archived_ids)
VALUES (@scope, @from_entity_id, @into_entity_id, @actor, @now::timestamptz,
    @fact_ids::bigint[], @decision_ids::bigint[], @node_ids::bigint[], @node_entities::text[],
    @alias_folds::text[], @archived_ids::bigint[])
RETURNING *;

-- name: MergeByIDForUpdate :one
SELECT * FROM entity_merges WHERE id = @id FOR UPDATE;

-- name: MarkMergeUndone :one
UPDATE entity_merges
SET undone_at = @now::timestamptz, undone_by = @actor::text
WHERE id = @id AND undone_at IS NULL
RETURNING *;

-- name: FactsStillArchivedAt :many
-- FactsStillArchivedAt returns the facts of ids still archived as they were
-- at archived_at by supersession (superseded or fulfilled by a fact): those
-- an undo of the merge that archived them restores.
SELECT id FROM entity_facts
WHERE id = ANY(@ids::bigint[]) AND status = 'archived' AND archived_at = @archived_at::timestamptz
  AND (archive_reason LIKE 'superseded by fact %' OR archive_reason LIKE 'fulfilled by fact %')
ORDER BY id;

-- name: ListScopeEntities :many
-- ListScopeEntities returns up to max_rows entities of one scope, by name,
-- whose name holds query (all when empty), with their active facts, their
-- decisions and their aliases (merged_aliases: those a merge made); an
-- entity merged into another is left out (the merges list shows it).
SELECT e.id, e.scope, e.name, e.kind, e.created_at,
    (SELECT count(*) FROM entity_facts f WHERE f.entity_id = e.id AND f.status = 'active')::bigint AS active_facts,
    (SELECT count(*) FROM decisions d WHERE d.entity_id = e.id)::bigint AS decisions,
    coalesce((SELECT array_agg(a.alias ORDER BY a.fold) FROM entity_aliases a WHERE a.entity_id = e.id),
        '{}')::text[] AS aliases,
    coalesce((SELECT array_agg(a.alias ORDER BY a.fold) FROM entity_aliases a
        WHERE a.entity_id = e.id AND a.merge_id IS NOT NULL), '{}')::text[] AS merged_aliases
FROM entities e
WHERE e.scope = @scope
  AND (@query::text = '' OR strpos(tenure_entity_fold(e.name), tenure_entity_fold(@query::text)) > 0)
  AND NOT EXISTS (
      SELECT 1 FROM entity_aliases m
      WHERE m.scope = e.scope AND m.fold = tenure_entity_fold(e.name) AND m.entity_id <> e.id)
ORDER BY e.name
LIMIT @max_rows;

-- name: ListMerges :many
-- ListMerges returns the scope's merges, newest first, one keyset page at a
-- time (before_id 0 for the first), with the two entities' names.
SELECT m.id, m.scope, m.from_entity_id, f.name AS from_name, m.into_entity_id, i.name AS into_name,
    m.actor, m.created_at, m.undone_at, m.undone_by,
    cardinality(m.fact_ids)::int AS facts, cardinality(m.decision_ids)::int AS decisions,
    cardinality(m.node_ids)::int AS nodes, cardinality(m.archived_ids)::int AS archived
FROM entity_merges m
JOIN entities f ON f.id = m.from_entity_id
JOIN entities i ON i.id = m.into_entity_id
WHERE m.scope = @scope AND (@before_id::bigint = 0 OR m.id < @before_id::bigint)
ORDER BY m.id DESC
LIMIT @max_rows;

-- name: MergeByID :one
-- MergeByID returns one merge with the two entities' names.
SELECT m.id, m.scope, m.from_entity_id, f.name AS from_name, m.into_entity_id, i.name AS into_name,
    m.actor, m.created_at, m.undone_at, m.undone_by,
    cardinality(m.fact_ids)::int AS facts, cardinality(m.decision_ids)::int AS decisions,
    cardinality(m.node_ids)::int AS nodes, cardinality(m.archived_ids)::int AS archived
FROM entity_merges m
JOIN entities f ON f.id = m.from_entity_id
JOIN entities i ON i.id = m.into_entity_id
WHERE m.id = @id;

-- name: LiveEntitiesOfFold :many
-- LiveEntitiesOfFold returns the entities of scope whose name has fold,
-- leaving out those merged into another.
SELECT e.id, e.name
FROM entities e
WHERE e.scope = @scope AND tenure_entity_fold(e.name) = @fold::text
  AND NOT EXISTS (
      SELECT 1 FROM entity_aliases m
      WHERE m.scope = e.scope AND m.fold = tenure_entity_fold(e.name) AND m.entity_id <> e.id)
ORDER BY e.id;
