-- name: NodeIDsWalk :many
-- NodeIDsWalk walks the newest working rows (of one scope, through
-- memory_nodes_scope_idx, or all, through the primary key), at most
-- walk_rows of them, and returns newest first the ids of those that pass
-- the marker and state filters with hit true, and the walk's last row when
-- it reaches it (row_number = walk_rows), whatever its hit: up to page_size
-- rows in all. pending is 1 for rows not promoted yet, 0 for promoted ones,
-- NULL for both; set_aside keeps the rows consolidation set aside.
SELECT c.id, c.hit::boolean AS hit, (c.rn = @walk_rows::int)::boolean AS last
FROM (
    SELECT n.id,
        ((sqlc.narg('marker')::text IS NULL OR n.marker = sqlc.narg('marker')::text)
         AND (sqlc.narg('pending')::int IS NULL OR (n.promoted_at IS NULL)::int = sqlc.narg('pending')::int)
         AND (NOT @set_aside::boolean OR EXISTS (SELECT 1 FROM consolidation_faults f WHERE f.node_id = n.id))) AS hit,
        row_number() OVER (ORDER BY n.id DESC) AS rn
    FROM memory_nodes n
    WHERE (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope')::text)
      AND (@before_id::bigint = 0 OR n.id < @before_id::bigint)
    ORDER BY n.id DESC
    LIMIT @walk_rows::int
) c
WHERE c.hit OR c.rn = @walk_rows::int
ORDER BY c.id DESC
LIMIT @page_size::int;

-- name: NodeIDsSearch :many
-- NodeIDsSearch returns the ids of up to page_size working rows below
-- before_id that pass every filter, newest first, after a walk that found
-- them sparse: ordering by id + 0 makes PostgreSQL collect the matches
-- through memory_nodes_filters_idx (scope, marker and whether the row is
-- pending), and sort only those. NodeIDsSearchSetAside is the same for the
-- rows set aside.
SELECT n.id
FROM memory_nodes n
WHERE (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope')::text)
  AND (sqlc.narg('marker')::text IS NULL OR n.marker = sqlc.narg('marker')::text)
  AND (sqlc.narg('pending')::int IS NULL OR (n.promoted_at IS NULL)::int = sqlc.narg('pending')::int)
  AND n.id < @before_id::bigint
ORDER BY n.id + 0 DESC
LIMIT @page_size::int;

-- name: NodeIDsSearchSetAside :many
-- NodeIDsSearchSetAside is NodeIDsSearch for the rows consolidation set
-- aside: the semi-join on consolidation_faults, a top-level condition, lets
-- PostgreSQL start from the few faults and read each one's row.
SELECT n.id
FROM memory_nodes n
WHERE EXISTS (SELECT 1 FROM consolidation_faults f WHERE f.node_id = n.id)
  AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope')::text)
  AND (sqlc.narg('marker')::text IS NULL OR n.marker = sqlc.narg('marker')::text)
  AND (sqlc.narg('pending')::int IS NULL OR (n.promoted_at IS NULL)::int = sqlc.narg('pending')::int)
  AND n.id < @before_id::bigint
ORDER BY n.id + 0 DESC
LIMIT @page_size::int;

-- name: ListNodesByIDs :many
-- ListNodesByIDs reads the working rows a walk and a search chose, newest
-- first.
SELECT n.id, n.scope, n.content, n.properties, n.importance, n.ttl_seconds, n.created_at,
    n.promoted_at, n.promoted_fact_id, n.promoted_run_id, n.marker, n.observed_at
FROM memory_nodes n
WHERE n.id = ANY(@ids::bigint[])
ORDER BY n.id DESC;
