-- name: ListWorkingNodes :many
-- ListWorkingNodes pages through working rows, newest first: the console's
-- working page and the API's node list both read it. state is pending,
-- promoted, set_aside (rows consolidation set aside after a failure of their
-- own, whether promoted or not), or empty for every row; marker filters on
-- the marker column, so a row without one is found as durable.
SELECT n.id, n.scope, n.content, n.properties, n.importance, n.ttl_seconds, n.created_at,
    n.promoted_at, n.promoted_fact_id, n.promoted_run_id, n.marker
FROM memory_nodes n
WHERE (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
  AND (sqlc.narg('marker')::text IS NULL OR n.marker = sqlc.narg('marker'))
  AND (@state::text IN ('', 'set_aside') OR (@state::text = 'pending') = (n.promoted_at IS NULL))
  AND (@state::text <> 'set_aside'
       OR EXISTS (SELECT 1 FROM consolidation_faults f WHERE f.node_id = n.id))
  AND (@before_id::bigint = 0 OR n.id < @before_id)
ORDER BY n.id DESC
LIMIT @page_size;
