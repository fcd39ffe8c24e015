-- name: OverviewForgettingSoon :many
-- OverviewForgettingSoon returns the active facts whose forget_at falls before
-- @until (including those already due that the decay job has not archived
-- yet), soonest first. It walks entity_facts_forget_at_idx, so it reads only
-- the rows it returns however large the table is. An obligation whose
-- deadline comes first is left out: decay holds it once it is overdue (it is
-- listed with the overdue obligations), so it is never forgotten.
SELECT f.id, f.scope, e.name AS entity_name, f.key, f.content, f.durability, f.category,
    f.forget_at::timestamptz AS forget_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.status = 'active' AND f.forget_at IS NOT NULL AND f.forget_at <= @until::timestamptz
  AND NOT (f.category = 'obligation' AND f.deadline IS NOT NULL AND f.deadline <= f.forget_at)
ORDER BY f.forget_at, f.id
LIMIT @max_rows;

-- name: OverviewUpcomingObligations :many
-- OverviewUpcomingObligations returns active obligations whose deadline falls
-- in [@now, @until), soonest first, through entity_facts_deadline_idx.
SELECT f.id, f.scope, e.name AS entity_name, f.key, f.content, f.deadline::timestamptz AS deadline
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.status = 'active' AND f.deadline IS NOT NULL AND f.category = 'obligation'
  AND f.deadline >= @now::timestamptz AND f.deadline < @until::timestamptz
ORDER BY f.deadline, f.id
LIMIT @max_rows;

-- name: OverviewOverdueObligations :many
-- OverviewOverdueObligations returns active obligations whose deadline has
-- passed, the longest overdue first, through entity_facts_deadline_idx.
SELECT f.id, f.scope, e.name AS entity_name, f.key, f.content, f.deadline::timestamptz AS deadline
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.status = 'active' AND f.deadline IS NOT NULL AND f.category = 'obligation'
  AND f.deadline < @now::timestamptz
ORDER BY f.deadline, f.id
LIMIT @max_rows;

-- name: OverviewRecentRuns :many
-- OverviewRecentRuns returns the newest consolidation runs with their
-- refusals by reason (the run's own counters, kept in step with
-- consolidation_rejections) and the headline outcomes of their report.
SELECT id, trigger, status, started_at, finished_at, transient_rejected, expired_rejected,
    decision_locked,
    coalesce((report->'10'->>'promoted')::int, 0)::int AS promoted,
    coalesce((report->'10'->>'reinforced')::int, 0)::int AS reinforced,
    coalesce((report->'9'->>'archived')::int, 0)::int AS archived,
    set_aside, error
FROM consolidation_runs
ORDER BY id DESC
LIMIT @max_rows;

-- name: PendingNodeCounts :many
-- PendingNodeCounts sums pending_node_counts, which triggers on memory_nodes
-- keep exact: the working rows not promoted yet per scope and marker, and
-- how many rows each sum read (FoldPendingNodeCounts folds them when they
-- pile up).
SELECT scope, marker, sum(nodes)::bigint AS nodes, count(*)::bigint AS parts
FROM pending_node_counts
GROUP BY scope, marker
ORDER BY scope, marker;

-- name: FoldPendingNodeCounts :exec
-- FoldPendingNodeCounts replaces the rows of pending_node_counts by one per
-- (scope, marker) with their sum, dropping those at zero. A concurrent
-- writer's rows are not seen and stay as they are, so the sums never change.
WITH gone AS (
    DELETE FROM pending_node_counts
    RETURNING scope, marker, nodes
)
INSERT INTO pending_node_counts (scope, marker, nodes)
SELECT scope, marker, sum(nodes)::bigint
FROM gone
GROUP BY scope, marker
HAVING sum(nodes) <> 0;

-- name: OverviewOpenReviewByKind :many
-- OverviewOpenReviewByKind counts the open review items by kind, summing
-- console_counts, which triggers on review_items keep exact.
SELECT key AS kind, sum(n)::bigint AS items
FROM console_counts
WHERE counter = 'review_open'
GROUP BY key
HAVING sum(n) <> 0
ORDER BY key;

-- name: OverviewFaults :one
-- OverviewFaults counts the working rows set aside after a failed
-- consolidation: waiting for a retry, and held for a person, summing
-- console_counts, which triggers on consolidation_faults keep exact.
SELECT coalesce(sum(n) FILTER (WHERE key = 'waiting'), 0)::bigint AS waiting,
    coalesce(sum(n) FILTER (WHERE key = 'held'), 0)::bigint AS held
FROM console_counts
WHERE counter = 'faults';

-- name: ConsoleCountsParts :one
-- ConsoleCountsParts is how many rows console_counts holds, to tell when
-- FoldConsoleCounts should fold them.
SELECT count(*)::bigint FROM console_counts;

-- name: FoldConsoleCounts :exec
-- FoldConsoleCounts replaces the rows of console_counts by one per (counter,
-- key) with their sum, dropping those at zero. A concurrent writer's rows are
-- not seen and stay as they are, so the sums never change.
WITH gone AS (
    DELETE FROM console_counts
    RETURNING counter, key, n
)
INSERT INTO console_counts (counter, key, n)
SELECT counter, key, sum(n)::bigint
FROM gone
GROUP BY counter, key
HAVING sum(n) <> 0;

-- name: OverviewFactAxes :many
-- OverviewFactAxes sums fact_axes_counts, which triggers on entity_facts keep
-- exact: the facts per status, durability and category, and how many rows
-- each sum read (FoldFactAxesCounts folds them when they pile up).
SELECT status, durability, category, sum(facts)::bigint AS facts, count(*)::bigint AS parts
FROM fact_axes_counts
GROUP BY status, durability, category
ORDER BY status, durability, category;

-- name: FoldFactAxesCounts :exec
-- FoldFactAxesCounts replaces the rows of fact_axes_counts by one per
-- (status, durability, category) with their sum, dropping those at zero. A
-- concurrent writer's rows are not seen and stay as they are, so the sums
-- never change.
WITH gone AS (
    DELETE FROM fact_axes_counts
    RETURNING status, durability, category, facts
)
INSERT INTO fact_axes_counts (status, durability, category, facts)
SELECT status, durability, category, sum(facts)::bigint
FROM gone
GROUP BY status, durability, category
HAVING sum(facts) <> 0;
