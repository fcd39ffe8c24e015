-- name: OverviewForgettingSoon :many
-- OverviewForgettingSoon returns the active facts whose forget_at falls before
-- @until (including those already due that the decay job has not archived
-- yet), soonest first. It walks entity_facts_forget_at_idx, so it reads only
-- the rows it returns however large the table is.
SELECT f.id, f.scope, e.name AS entity_name, f.key, f.content, f.durability, f.category,
    f.forget_at::timestamptz AS forget_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)::double precision AS effective_confidence
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.status = 'active' AND f.forget_at IS NOT NULL AND f.forget_at <= @until::timestamptz
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

-- name: OverviewPendingNodesByMarker :many
-- OverviewPendingNodesByMarker counts working rows not yet promoted by their
-- durability marker (an absent key reads as durable), over
-- memory_nodes_pending_idx.
SELECT marker, count(*)::bigint AS nodes
FROM memory_nodes
WHERE promoted_at IS NULL
GROUP BY 1
ORDER BY 1;

-- name: OverviewOpenReviewByKind :many
-- OverviewOpenReviewByKind counts the open review items by kind, over
-- review_items_open_idx.
SELECT kind, count(*)::bigint AS items
FROM review_items
WHERE status = 'open'
GROUP BY kind
ORDER BY kind;

-- name: OverviewFaults :one
-- OverviewFaults counts the working rows set aside after a failed
-- consolidation: waiting for a retry, and held for a person.
SELECT count(*) FILTER (WHERE retry_at IS NOT NULL)::bigint AS waiting,
    count(*) FILTER (WHERE retry_at IS NULL)::bigint AS held
FROM consolidation_faults;

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
