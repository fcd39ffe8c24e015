-- name: PeekPendingNodes :many
-- PeekPendingNodes reads, without locking them, the next batch of
-- unpromoted rows after after_id that phase still has work for; the phase
-- then locks those it acts on (LockPendingNodes). A row whose refusal for
-- its current marker is already logged in this phase (by this run or an
-- earlier one) is skipped, and so is a row set aside after a failure until
-- its retry is due (never, once it is held for a person). Only a transient
-- or expired row can have a refusal logged under its marker, so a durable
-- row is not looked up in the refusal log; the set-aside check runs only
-- when check_faults says that some row may be set aside. With scope set (a
-- run of one scope), only that scope's rows are read; NULL reads them all.
SELECT n.id, n.scope, n.content, n.properties, n.marker, n.importance, n.ttl_seconds, n.created_at,
    coalesce(n.observed_at, n.created_at)::timestamptz AS observed_at
FROM memory_nodes n
WHERE n.promoted_at IS NULL AND n.id > @after_id
  AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
  AND (n.marker = 'durable' OR NOT EXISTS (
      SELECT 1 FROM consolidation_rejections r
      WHERE r.node_id = n.id AND r.phase = @phase::smallint AND r.run_id IS NOT NULL
        AND r.reason = n.marker))
  AND (NOT @check_faults::bool OR NOT EXISTS (
      SELECT 1 FROM consolidation_faults f
      WHERE f.node_id = n.id AND (f.retry_at IS NULL OR f.retry_at > @now::timestamptz)))
ORDER BY n.id
LIMIT @batch_size;

-- name: LockPendingNodes :many
-- LockPendingNodes locks the given rows that are still unpromoted, skipping
-- rows another transaction holds, and returns them as they are now.
SELECT n.id, n.scope, n.content, n.properties, n.marker, n.importance, n.ttl_seconds, n.created_at,
    coalesce(n.observed_at, n.created_at)::timestamptz AS observed_at
FROM memory_nodes n
WHERE n.id = ANY(@node_ids::bigint[]) AND n.promoted_at IS NULL
ORDER BY n.id
FOR UPDATE OF n SKIP LOCKED;

-- name: RejectGatedNodes :many
-- RejectGatedNodes logs one refusal for each transient or expired row of the
-- batch, once per row, phase and reason across every run.
INSERT INTO consolidation_rejections (run_id, phase, node_id, scope, reason, source, content, properties, created_at)
SELECT @run_id::bigint, @phase::smallint, n.id, n.scope, n.marker, 'consolidation',
    n.content, n.properties, @now
FROM memory_nodes n
WHERE n.id = ANY(@node_ids::bigint[]) AND n.promoted_at IS NULL
  AND n.marker IN ('transient', 'expired')
-- Refusals are numbered in row order, whichever index finds the rows.
ORDER BY n.id
ON CONFLICT (node_id, phase, reason) WHERE run_id IS NOT NULL DO NOTHING
RETURNING id, node_id, scope, reason;

-- name: ResolveFactTargets :many
-- ResolveFactTargets returns, for each (scope, entity name, key) whose entity
-- exists, the entity's id and the locked decision on that key, if any: a row
-- may not write on the scope, entity and key of a decision that may not be
-- reopened. Pairs whose entity does not exist yet (no decision can lock
-- them) are left out; decision_id is 0 when no decision locks the key.
WITH wanted AS (
    SELECT DISTINCT unnest(@scopes::text[]) AS scope, unnest(@names::text[]) AS name,
        unnest(@keys::text[]) AS key
)
SELECT w.scope::text AS scope, w.name::text AS name, w.key::text AS key, e.id AS entity_id,
    coalesce(d.id, 0)::bigint AS decision_id
FROM wanted w
-- One index lookup per pair (LIMIT keeps the planner from hashing every
-- entity instead).
JOIN LATERAL (
    SELECT x.id FROM entities x WHERE x.scope = w.scope AND x.name = w.name LIMIT 1
) e ON true
LEFT JOIN LATERAL (
    SELECT d.id FROM decisions d
    WHERE w.key <> '' AND d.scope = w.scope AND d.entity_id = e.id AND d.key = w.key AND d.do_not_reopen
    ORDER BY d.id DESC
    LIMIT 1
) d ON true;

-- name: RejectLockedNodes :many
-- RejectLockedNodes refuses durable rows that would write a fact on the scope,
-- entity and key of a decision that may not be reopened (decision_ids, from
-- ResolveFactTargets).
INSERT INTO consolidation_rejections (run_id, phase, node_id, scope, reason, source, content, properties, decision_id, created_at)
SELECT @run_id::bigint, @phase::smallint, n.id, n.scope, 'decision_locked', 'consolidation',
    n.content, n.properties, i.decision_id, @now
FROM (
    SELECT unnest(@node_ids::bigint[]) AS node_id, unnest(@decision_ids::bigint[]) AS decision_id
) i
JOIN memory_nodes n ON n.id = i.node_id
WHERE n.promoted_at IS NULL AND n.marker = 'durable'
ORDER BY n.id
ON CONFLICT (node_id, phase, reason) WHERE run_id IS NOT NULL DO NOTHING
RETURNING id, node_id, scope, decision_id;

-- name: TombstoneNodes :many
-- TombstoneNodes deletes rows and keeps each one as a tombstone with reason,
-- restorable for 30 days.
WITH gone AS (
    DELETE FROM memory_nodes n
    WHERE n.id = ANY(@node_ids::bigint[]) AND n.promoted_at IS NULL
    RETURNING n.id, n.scope, n.content, n.properties, n.importance, n.ttl_seconds, n.created_at,
        n.observed_at
)
INSERT INTO node_tombstones (node_id, scope, content, properties, importance, ttl_seconds,
    node_created_at, run_id, reason, pruned_at, purge_after, node_observed_at)
SELECT id, scope, content, properties, importance, ttl_seconds, created_at, @run_id::bigint,
    @reason::text, @now, @purge_after, observed_at
FROM gone
ON CONFLICT (node_id) DO NOTHING
RETURNING node_id;

-- name: QueueDecisionRefusals :exec
INSERT INTO review_items (kind, scope, rejection_id, detail, created_at)
SELECT 'decision_refusal', r.scope, r.id,
    jsonb_build_object('decision_id', r.decision_id, 'node_id', r.node_id, 'run_id', r.run_id), @now
FROM consolidation_rejections r
WHERE r.id = ANY(@rejection_ids::bigint[]);

-- name: EnsureEntities :many
-- EnsureEntities returns the id of every named (scope, name) pair, creating
-- the entities not seen yet. Existing entities are only read: an upsert of
-- every pair would leave a dead row version per entity per batch. An entity
-- created meanwhile by another writer comes back through the DO UPDATE arm.
WITH wanted AS (
    SELECT DISTINCT unnest(@scopes::text[]) AS scope, unnest(@names::text[]) AS name
),
created AS (
    INSERT INTO entities (scope, name, created_at, updated_at)
    SELECT w.scope, w.name, @now::timestamptz, @now::timestamptz
    FROM wanted w
    WHERE NOT EXISTS (SELECT 1 FROM entities e WHERE e.scope = w.scope AND e.name = w.name)
    ON CONFLICT (scope, name) DO UPDATE SET name = excluded.name
    RETURNING id, scope, name
)
SELECT e.id, e.scope, e.name
FROM wanted w
JOIN entities e ON e.scope = w.scope AND e.name = w.name
UNION ALL
SELECT id, scope, name FROM created;

-- name: PromoteNodes :one
-- PromoteNodes turns durable rows into facts classified on both axes, or
-- reinforces the identical active fact (same entity, key and content). A
-- fact is confirmed when its row's statement was observed (observed_at, the
-- push's time unless the writer said). A reinforcement takes the fact and
-- each row at t, the latest of the fact's confirmation and the rows'
-- observations: confidence becomes 1 - (1 - c_fact(t)) * prod(1 - c_row(t)),
-- confirmed at t, durability and category unchanged. A row observed before
-- the fact's confirmation is an older confirmation: it leaves confirmed_at
-- as it is and counts decayed from its own time to t, as the fact's policy
-- decays it, so that a late-arriving old statement never makes a fact look
-- fresher. A fact already forgotten when the row was observed (its
-- forget_at passed by then) is not the row's fact: the row is a new fact,
-- as it would have been, had it been written when it was observed. The rows
-- come locked by the caller's transaction, gated (durable, unpromoted,
-- within their ttl) and with their scope, content, importance and
-- observation time; entities come resolved. Each row finds its identical
-- fact through entity_facts_entity_key_content_idx; no step joins two
-- intermediate results, whose sizes the planner cannot know. A new fact's
-- decay terms are computed here from tenure_decay_state, the function the
-- entity_facts trigger applies, once for each distinct set of inputs in the
-- batch (durability, category, confidence, deadline; no expiry), so that the
-- trigger does not look the policy up for every row: taken at the epoch,
-- they give the half-life, whether the policy decays from the deadline
-- (the anchor is then the deadline, which no instant before it moves) and
-- how long after its anchor the fact is forgotten; each row adds its own
-- observation time.
WITH input AS (
    SELECT unnest(@node_ids::bigint[]) AS node_id, unnest(@entity_ids::bigint[]) AS entity_id,
        unnest(@scopes::text[]) AS scope, unnest(@contents::text[]) AS content,
        unnest(@importances::float8[]) AS importance,
        unnest(@keys::text[]) AS key, unnest(@durabilities::text[]) AS durability,
        unnest(@categories::text[]) AS category, unnest(@confidences::float8[]) AS confidence,
        unnest(@deadlines::text[]) AS deadline, unnest(@observed_ats::timestamptz[]) AS observed_at
),
gated AS (
    SELECT i.node_id, i.entity_id, i.key, i.durability, i.category, i.confidence, i.deadline,
        i.scope, btrim(i.content) AS content, i.importance, i.observed_at, m.fact_id
    FROM input i
    LEFT JOIN LATERAL (
        SELECT f.id AS fact_id
        FROM entity_facts f
        WHERE f.entity_id = i.entity_id AND f.key = i.key AND f.status = 'active'
          AND md5(lower(f.content)) = md5(lower(btrim(i.content)))
          AND lower(f.content) = lower(btrim(i.content))
          AND (f.forget_at IS NULL OR f.forget_at >= i.observed_at)
        ORDER BY f.id
        LIMIT 1
    ) m ON true
),
terms AS MATERIALIZED (
    SELECT c.durability, c.category, c.confidence, c.deadline, s.half_life,
        s.decay_from > '1970-01-01T00:00:00Z'::timestamptz AS on_deadline, s.decay_from AS deadline_at,
        extract(epoch FROM s.forget_at - s.decay_from)::float8 AS forget_after
    FROM (
        SELECT DISTINCT g.durability, g.category, g.confidence, g.deadline
        FROM gated g
        WHERE g.fact_id IS NULL
    ) c
    CROSS JOIN LATERAL tenure_decay_state(c.durability, c.category, c.confidence,
        '1970-01-01T00:00:00Z'::timestamptz, NULL, nullif(c.deadline, '')::timestamptz) AS s (half_life, decay_from, forget_at)
),
reinforcing AS (
    -- Each reinforcing row's confidence at t. Only a row older than t needs
    -- its fact's policy (the rare path: an older statement replayed late, or
    -- several rows on one fact).
    SELECT r.fact_id, r.at, CASE WHEN r.observed_at >= r.at THEN r.confidence
            ELSE (SELECT tenure_decayed(r.confidence, o.decay_from, o.half_life, r.at)
                  FROM tenure_decay_state(r.durability, r.category, r.confidence, r.observed_at, NULL, r.deadline) o)
        END AS c_at
    FROM (
        SELECT g.fact_id, g.confidence, g.observed_at, f.durability, f.category, f.deadline,
            greatest(f.confirmed_at, max(g.observed_at) OVER (PARTITION BY g.fact_id)) AS at
        FROM gated g
        JOIN LATERAL (SELECT x.confirmed_at, x.durability, x.category, x.deadline
                      FROM entity_facts x WHERE x.id = g.fact_id) f ON true
        WHERE g.fact_id IS NOT NULL
    ) r
),
reinforced AS (
    UPDATE entity_facts f
    SET confidence = 1 - (1 - tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, m.at)) * m.keep,
        confirmed_at = m.at, extraction_count = f.extraction_count + m.n,
        version = f.version + 1, updated_at = @now
    FROM (
        -- keep is the product of (1 - c) over the rows, summed in log space
        -- and clamped: at e^-40 the confidence is 1 within float precision,
        -- and no number of rows can underflow it.
        SELECT fact_id, at, exp(greatest(sum(ln(greatest(1 - least(greatest(c_at, 0), 1), 1e-12))), -40)) AS keep,
            count(*)::int AS n
        FROM reinforcing
        GROUP BY fact_id, at
    ) m
    WHERE f.id = m.fact_id
    RETURNING f.id
),
inserted AS (
    INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence,
        importance, confirmed_at, deadline, source, source_node_id, created_at, updated_at,
        decay_half_life, decay_from, forget_at)
    SELECT g.scope, g.entity_id, g.key, g.content, g.durability, g.category, g.confidence,
        g.importance, g.observed_at, nullif(g.deadline, '')::timestamptz, 'consolidation', g.node_id, @now, @now,
        t.half_life, a.anchor_at, a.anchor_at + make_interval(secs => t.forget_after)
    FROM gated g
    JOIN terms t ON t.durability = g.durability AND t.category = g.category
        AND t.confidence = g.confidence AND t.deadline = g.deadline
    CROSS JOIN LATERAL (SELECT CASE WHEN t.on_deadline THEN greatest(g.observed_at, t.deadline_at)
                                    ELSE g.observed_at END AS anchor_at) a
    WHERE g.fact_id IS NULL
    -- Fact ids follow the rows' order, so that of two rows on one key in a
    -- batch observed at the same time the later one is the newer fact.
    ORDER BY g.node_id
    RETURNING id, source_node_id
),
marked AS (
    UPDATE memory_nodes n
    SET promoted_at = @now, promoted_run_id = @run_id::bigint, promoted_fact_id = x.fact_id
    FROM (
        SELECT ins.source_node_id AS node_id, ins.id AS fact_id, true AS created FROM inserted ins
        UNION ALL
        SELECT g.node_id, g.fact_id, false FROM gated g WHERE g.fact_id IS NOT NULL
    ) x
    WHERE n.id = x.node_id
    RETURNING n.id, x.created
)
SELECT count(*) FILTER (WHERE created)::int AS promoted,
    count(*) FILTER (WHERE NOT created)::int AS reinforced,
    (SELECT count(*) FROM reinforced)::int AS facts_reinforced,
    (SELECT coalesce(array_agg(id), '{}') FROM inserted)::bigint[] AS inserted_ids,
    (SELECT coalesce(array_agg(id), '{}') FROM reinforced)::bigint[] AS reinforced_ids
FROM marked;

-- name: PromoteDecisionNodes :one
-- PromoteDecisionNodes turns durable decision rows into decisions: a fact of
-- category decision plus its decisions row, locked against reopening when
-- its lock says so (not when its reasoning is under two words), decided (and
-- its fact confirmed) when the row's statement was observed, never later
-- than now. Entities come resolved (EnsureEntities).
WITH input AS (
    SELECT unnest(@node_ids::bigint[]) AS node_id, unnest(@entity_ids::bigint[]) AS entity_id,
        unnest(@keys::text[]) AS key, unnest(@alternatives::jsonb[]) AS alternatives,
        unnest(@reasonings::text[]) AS reasoning, unnest(@decided_bys::text[]) AS decided_by,
        unnest(@locks::bool[]) AS lock
),
gated AS (
    SELECT i.node_id, i.entity_id, i.key, i.alternatives, i.reasoning, i.decided_by, i.lock,
        n.scope, btrim(n.content) AS content, n.importance,
        least(coalesce(n.observed_at, n.created_at), @now::timestamptz) AS decided_at
    FROM input i
    -- One primary-key lookup per row of the batch (LIMIT keeps the planner
    -- from hashing every pending row instead).
    JOIN LATERAL (SELECT * FROM memory_nodes x WHERE x.id = i.node_id LIMIT 1) n ON true
    WHERE n.promoted_at IS NULL AND n.marker = 'durable'
      -- A row past its explicit ttl is left to cleanup, not promoted.
      AND (n.ttl_seconds IS NULL OR n.created_at + n.ttl_seconds * interval '1 second' > @now::timestamptz)
),
facts AS (
    INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence,
        importance, confirmed_at, source, source_node_id, created_at, updated_at)
    SELECT g.scope, g.entity_id, g.key, g.content, 'permanent', 'decision', 1, g.importance, g.decided_at,
        'consolidation', g.node_id, @now, @now
    FROM gated g
    RETURNING id, scope, entity_id, key, content, source_node_id
),
decs AS (
    INSERT INTO decisions (fact_id, scope, entity_id, key, decision, alternatives, reasoning,
        decided_by, decided_at, do_not_reopen, created_at, updated_at)
    SELECT f.id, f.scope, f.entity_id, f.key, f.content,
        ARRAY(SELECT jsonb_array_elements_text(g.alternatives)), g.reasoning, g.decided_by,
        g.decided_at, g.lock, @now, @now
    FROM facts f
    JOIN gated g ON g.node_id = f.source_node_id
    RETURNING id, scope
),
marked AS (
    UPDATE memory_nodes n
    SET promoted_at = @now, promoted_run_id = @run_id::bigint, promoted_fact_id = f.id
    FROM facts f
    WHERE n.id = f.source_node_id
    RETURNING n.id
)
SELECT (SELECT count(*) FROM decs)::int AS decisions, (SELECT count(*) FROM marked)::int AS nodes,
    -- Each decision recorded and its scope, for the audit log.
    (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM decs)::bigint[] AS decision_ids,
    (SELECT coalesce(array_agg(scope ORDER BY id), '{}') FROM decs)::text[] AS decision_scopes;

-- The merge phase works on its window: the rows promoted since the last run
-- of every scope that finished every phase, since_run_id (in one scope, or
-- in all when scope is NULL), less the rows of each covered_scopes[i]
-- promoted up to covered_run_ids[i], the newest run of that scope alone that
-- finished every phase (its merge saw them), less skip_ids (rows set aside
-- after a failed merge), plus retry_ids (those of them whose retry is due).
-- MergeWindowFacts reads the window once; the steps after it are given the
-- rows and facts each works on.

-- name: MergeWindowFacts :one
-- MergeWindowFacts reads the merge window and returns what each step of the
-- merge phase works on: the rows whose marker is no longer durable (the
-- gate), the active facts of the durable rows that another active fact
-- repeats word for word (merging; each fact asks its entity, key and content
-- through entity_facts_entity_key_content_idx, and most have no twin), those
-- of a category that accumulates, with a key (near duplicates), and the
-- moods.
WITH win AS (
    SELECT n.id, n.scope, n.marker, n.promoted_fact_id
    FROM memory_nodes n
    WHERE n.promoted_run_id > @since_run_id::bigint
      AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
      AND n.id <> ALL(@skip_ids::bigint[])
      AND n.promoted_run_id > coalesce(
          (@covered_run_ids::bigint[])[array_position(@covered_scopes::text[], n.scope)], 0)
    UNION ALL
    SELECT n.id, n.scope, n.marker, n.promoted_fact_id
    FROM memory_nodes n
    WHERE n.id = ANY(@retry_ids::bigint[])
      AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
),
w AS (
    SELECT w.id, w.marker, f.id AS fact_id, f.status, f.key, f.category,
        f.category <> 'decision' AND (f.durability IN ('short_term', 'ephemeral')
            OR coalesce(s.supersedes, false)) AS supersedes,
        CASE WHEN w.marker = 'durable' AND f.status = 'active' THEN EXISTS (
            SELECT 1 FROM entity_facts o
            WHERE o.entity_id = f.entity_id AND o.key = f.key
              AND md5(lower(o.content)) = md5(lower(f.content)) AND lower(o.content) = lower(f.content)
              AND o.status = 'active' AND o.id <> f.id)
        END AS twinned
    FROM win w
    LEFT JOIN entity_facts f ON f.id = w.promoted_fact_id
    LEFT JOIN category_settings s ON s.category = f.category
)
SELECT coalesce(array_agg(w.id ORDER BY w.id) FILTER (WHERE w.marker <> 'durable'), '{}')::bigint[] AS gated_ids,
    coalesce(array_agg(w.fact_id) FILTER (WHERE w.twinned), '{}')::bigint[] AS twinned_ids,
    coalesce(array_agg(w.fact_id) FILTER (WHERE w.marker = 'durable' AND w.status = 'active' AND w.key <> ''
        AND w.category <> 'decision' AND NOT w.supersedes), '{}')::bigint[] AS near_ids,
    coalesce(array_agg(w.fact_id) FILTER (WHERE w.category = 'mood'), '{}')::bigint[] AS mood_ids
FROM w;

-- name: RejectGatedPromoted :many
-- RejectGatedPromoted is the merge phase's gate: rows of the window whose
-- marker is no longer durable are refused, and their facts are left out of
-- merging.
INSERT INTO consolidation_rejections (run_id, phase, node_id, scope, reason, source, content, properties, created_at)
SELECT @run_id::bigint, 11, n.id, n.scope, n.marker, 'consolidation',
    n.content, n.properties, @now
FROM memory_nodes n
WHERE n.id = ANY(@node_ids::bigint[]) AND n.marker IN ('transient', 'expired')
ORDER BY n.id
ON CONFLICT (node_id, phase, reason) WHERE run_id IS NOT NULL DO NOTHING
RETURNING id, node_id, scope, reason;

-- name: MergeScopes :many
-- MergeScopes lists the scopes of the merge window, for merging one scope at
-- a time after merging all at once failed.
WITH win AS (
    SELECT n.id, n.scope, n.marker, n.promoted_fact_id
    FROM memory_nodes n
    WHERE n.promoted_run_id > @since_run_id::bigint
      AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
      AND n.id <> ALL(@skip_ids::bigint[])
      AND n.promoted_run_id > coalesce(
          (@covered_run_ids::bigint[])[array_position(@covered_scopes::text[], n.scope)], 0)
    UNION ALL
    SELECT n.id, n.scope, n.marker, n.promoted_fact_id
    FROM memory_nodes n
    WHERE n.id = ANY(@retry_ids::bigint[])
      AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
)
SELECT DISTINCT scope FROM win ORDER BY scope;

-- name: MergeWindowNodes :many
-- MergeWindowNodes lists the rows of one scope's merge window, to set them
-- aside when that scope's merge fails.
WITH win AS (
    SELECT n.id, n.scope, n.marker, n.promoted_fact_id
    FROM memory_nodes n
    WHERE n.promoted_run_id > @since_run_id::bigint
      AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
      AND n.id <> ALL(@skip_ids::bigint[])
      AND n.promoted_run_id > coalesce(
          (@covered_run_ids::bigint[])[array_position(@covered_scopes::text[], n.scope)], 0)
    UNION ALL
    SELECT n.id, n.scope, n.marker, n.promoted_fact_id
    FROM memory_nodes n
    WHERE n.id = ANY(@retry_ids::bigint[])
      AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
)
SELECT id FROM win ORDER BY id;

-- name: MergeDuplicateFacts :one
-- MergeDuplicateFacts merges exact duplicates (same scope, entity, key and
-- content, both active and not yet forgotten) among the given facts (of the
-- window's durable rows) and the active facts that say the same: the oldest
-- survives, reinforced by the others, each fact's confidence taken at the
-- group's latest confirmation t and the survivor confirmed at t (a merge
-- never makes a fact look fresher than its newest observation); the others
-- are archived as merged. A fact past its forget_at is left to the decay
-- job: it was forgotten before the others were observed. Only the groups of
-- two active facts or more are read whole.
WITH fresh AS (
    SELECT f.entity_id, f.key, lower(f.content) AS norm
    FROM entity_facts f
    WHERE f.id = ANY(@fact_ids::bigint[]) AND f.status = 'active'
      AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
),
groups AS (
    SELECT DISTINCT fr.entity_id, fr.key, fr.norm
    FROM fresh fr
    WHERE EXISTS (
        SELECT 1 FROM entity_facts o
        WHERE o.entity_id = fr.entity_id AND o.key = fr.key
          AND md5(lower(o.content)) = md5(fr.norm) AND lower(o.content) = fr.norm
          AND o.status = 'active' AND (o.forget_at IS NULL OR o.forget_at > @now::timestamptz)
        OFFSET 1)
),
grouped AS (
    SELECT x.id, x.extraction_count, x.survivor, x.at,
        tenure_decayed(x.confidence, x.decay_from, x.decay_half_life, x.at) AS c_now
    FROM (
        SELECT f.id, f.extraction_count, f.confidence, f.decay_from, f.decay_half_life,
            min(f.id) OVER w AS survivor, max(f.confirmed_at) OVER w AS at
        FROM groups g
        CROSS JOIN LATERAL (
            SELECT o.id, o.extraction_count, o.confidence, o.decay_from, o.decay_half_life, o.confirmed_at
            FROM entity_facts o
            WHERE o.entity_id = g.entity_id AND o.key = g.key
              AND md5(lower(o.content)) = md5(g.norm) AND lower(o.content) = g.norm
              AND o.status = 'active' AND (o.forget_at IS NULL OR o.forget_at > @now::timestamptz)
        ) f
        WINDOW w AS (PARTITION BY g.entity_id, g.key, g.norm)
    ) x
),
dups AS (
    -- The product of (1 - c) in log space, clamped as in PromoteNodes.
    SELECT survivor, exp(greatest(sum(ln(greatest(1 - least(greatest(c_now, 0), 1), 1e-12))), -40)) AS keep,
        sum(extraction_count)::int AS extra
    FROM grouped
    WHERE id <> survivor
    GROUP BY survivor
),
archived AS (
    UPDATE entity_facts f
    SET status = 'archived', archived_at = @now, archive_reason = 'merged into fact ' || g.survivor,
        version = f.version + 1, updated_at = @now
    FROM grouped g
    WHERE f.id = g.id AND g.id <> g.survivor
    RETURNING f.id, f.scope, g.survivor
),
survivors AS (
    UPDATE entity_facts f
    SET confidence = 1 - (1 - g.c_now) * d.keep, confirmed_at = g.at,
        extraction_count = f.extraction_count + d.extra, version = f.version + 1, updated_at = @now
    FROM dups d
    JOIN grouped g ON g.id = d.survivor
    WHERE f.id = d.survivor
    RETURNING f.id
)
SELECT (SELECT count(*) FROM archived)::int AS merged, (SELECT count(*) FROM survivors)::int AS survivors,
    -- Each fact merged away, its scope and its survivor, for the audit log.
    (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM archived)::bigint[] AS merged_ids,
    (SELECT coalesce(array_agg(scope ORDER BY id), '{}') FROM archived)::text[] AS merged_scopes,
    (SELECT coalesce(array_agg(survivor ORDER BY id), '{}') FROM archived)::bigint[] AS survivor_ids;

-- name: QueueNearDuplicates :one
-- QueueNearDuplicates sends pairs of active facts to the review queue: one
-- of the given facts (of the window's durable rows) and one older fact of the
-- same entity, key and category that says something else, for categories
-- that accumulate (a conflict supersession does not settle, as for two
-- observations). The item keeps their trigram similarity (pg_trgm), so a
-- reviewer sees at once a near duplicate (close to 1) from a contradiction.
-- One older fact a new fact: a key that thousands of facts share costs one
-- pair each.
WITH pairs AS (
    INSERT INTO review_items (kind, scope, fact_id, other_fact_id, detail, created_at)
    SELECT DISTINCT 'near_duplicate', f.scope, f.id, o.id,
        jsonb_build_object('key', f.key, 'run_id', @run_id::bigint,
            'similarity', round(similarity(lower(f.content), lower(o.content))::numeric, 2)),
        @now::timestamptz
    FROM entity_facts f
    LEFT JOIN category_settings s ON s.category = f.category
    JOIN LATERAL (
        SELECT o.id, o.content FROM entity_facts o
        WHERE o.entity_id = f.entity_id AND o.key = f.key AND o.status = 'active'
          AND o.category = f.category AND o.id < f.id AND lower(o.content) <> lower(f.content)
        LIMIT 1
    ) o ON true
    WHERE f.id = ANY(@fact_ids::bigint[]) AND f.status = 'active'
      AND f.key <> '' AND f.category <> 'decision'
      -- not tenure_supersedes(f.category, f.durability), read from the settings
      AND f.durability NOT IN ('short_term', 'ephemeral') AND NOT coalesce(s.supersedes, false)
    ON CONFLICT (kind, fact_id, other_fact_id) WHERE status = 'open' AND other_fact_id IS NOT NULL
    DO NOTHING
    RETURNING id
)
SELECT count(*)::int FROM pairs;

-- name: QueueRepeatedMoods :one
-- QueueRepeatedMoods sends moods observed at least min_count times to the
-- review queue, once: a person decides whether something lasting lies behind.
-- The facts are the window's moods.
WITH queued AS (
    INSERT INTO review_items (kind, scope, fact_id, detail, created_at)
    SELECT 'repeated_mood', f.scope, f.id,
        jsonb_build_object('extraction_count', f.extraction_count), @now::timestamptz
    FROM entity_facts f
    WHERE f.id = ANY(@fact_ids::bigint[]) AND f.category = 'mood'
      AND f.status = 'active' AND f.extraction_count >= @min_count::int
      AND NOT EXISTS (SELECT 1 FROM review_items r
                      WHERE r.kind = 'repeated_mood' AND r.fact_id = f.id AND r.status = 'open')
    RETURNING id
)
SELECT count(*)::int FROM queued;

-- name: SetAsideNodes :many
-- SetAsideNodes records a failure for each row: the first one, or one more
-- attempt. ScheduleRetries then sets when it is tried again.
INSERT INTO consolidation_faults (node_id, scope, phase, error, attempts, first_failed_at,
    last_failed_at, run_id)
SELECT n.id, n.scope, @phase::smallint AS phase, @error::text AS error, 1 AS attempts,
    @now::timestamptz AS first_failed_at, @now::timestamptz AS last_failed_at, @run_id::bigint AS run_id
FROM memory_nodes n
WHERE n.id = ANY(@node_ids::bigint[])
ON CONFLICT (node_id) DO UPDATE
SET phase = excluded.phase, error = excluded.error, attempts = consolidation_faults.attempts + 1,
    last_failed_at = excluded.last_failed_at, run_id = excluded.run_id
RETURNING node_id, scope, attempts;

-- name: ScheduleRetries :many
-- ScheduleRetries sets when each set-aside row is tried again: backoff after
-- the first failure, four times longer after each next one, and never (held
-- for a person) once it has failed max_attempts times.
UPDATE consolidation_faults
SET retry_at = CASE
        WHEN attempts >= sqlc.arg('max_attempts')::int THEN NULL
        ELSE last_failed_at + sqlc.arg('backoff')::interval * power(4::float8, attempts - 1)
    END
WHERE node_id = ANY(@node_ids::bigint[])
RETURNING node_id, scope, attempts, retry_at;

-- name: ClearFaults :exec
-- ClearFaults forgets the failures of rows that have now gone through.
DELETE FROM consolidation_faults WHERE node_id = ANY(@node_ids::bigint[]);

-- name: ListMergeFaults :many
-- ListMergeFaults lists the rows set aside by the merge phase, and whether
-- each is due for a retry: of one scope, or of all when scope is NULL.
SELECT node_id, scope, (retry_at IS NOT NULL AND retry_at <= @now::timestamptz)::bool AS due
FROM consolidation_faults
WHERE phase = 11 AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope'))
ORDER BY node_id;

-- name: PruneNodes :many
-- PruneNodes removes the next batch of rows cleanup prunes, each kept as a
-- tombstone: expired rows unconditionally, transient rows older than
-- min(ttl, 1 h) (hour_ago is now minus one hour), and any row past an
-- explicit ttl; of one scope, or of all when scope is NULL.
WITH doomed AS (
    SELECT n.id
    FROM memory_nodes n
    WHERE n.promoted_at IS NULL
      AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
      AND (n.marker = 'expired'
           OR (n.marker = 'transient' AND n.created_at <= sqlc.arg('hour_ago')::timestamptz)
           OR (n.ttl_seconds IS NOT NULL
               AND n.created_at + n.ttl_seconds * interval '1 second' <= sqlc.arg('now')::timestamptz))
    ORDER BY n.id
    LIMIT sqlc.arg('batch_size')
    FOR UPDATE SKIP LOCKED
),
gone AS (
    DELETE FROM memory_nodes n
    USING doomed d
    WHERE n.id = d.id
    RETURNING n.id, n.scope, n.content, n.properties, n.marker, n.importance, n.ttl_seconds, n.created_at,
        n.observed_at
)
INSERT INTO node_tombstones (node_id, scope, content, properties, importance, ttl_seconds,
    node_created_at, node_observed_at, run_id, reason, pruned_at, purge_after)
SELECT g.id, g.scope, g.content, g.properties, g.importance, g.ttl_seconds, g.created_at,
    g.observed_at, sqlc.narg('run_id')::bigint,
    CASE
        WHEN g.marker = 'expired' THEN 'expired'
        WHEN g.marker = 'transient' THEN 'transient_ttl'
        ELSE 'ttl'
    END,
    sqlc.arg('now')::timestamptz, sqlc.arg('purge_after')::timestamptz
FROM gone g
ON CONFLICT (node_id) DO NOTHING
RETURNING node_id, scope, reason;

-- name: ArchiveDueFacts :many
-- ArchiveDueFacts archives the next batch of active facts whose forget_at has
-- passed, through the forget_at index: its cost follows the facts due, not the
-- size of the table. Nothing is deleted. With scope set, only that scope's
-- facts are archived. An obligation whose deadline came before its forget
-- date is held, however far it decayed: it stays active until a person
-- marks it done or lets it go (memory.Fact.Held; one whose expires_at came
-- first ends then, whenever decay gets to it).
WITH due AS (
    SELECT id FROM entity_facts
    WHERE status = 'active' AND forget_at <= sqlc.arg('now')::timestamptz
      AND (sqlc.narg('scope')::text IS NULL OR scope = sqlc.narg('scope'))
      AND NOT (category = 'obligation' AND deadline IS NOT NULL AND deadline <= forget_at)
    ORDER BY forget_at
    LIMIT @batch_size
    FOR UPDATE SKIP LOCKED
)
UPDATE entity_facts f
SET status = 'archived', archived_at = sqlc.arg('now')::timestamptz,
    archive_reason = CASE WHEN f.expires_at <= sqlc.arg('now')::timestamptz THEN 'expired' ELSE 'decayed' END,
    version = f.version + 1, updated_at = sqlc.arg('now')::timestamptz
FROM due
WHERE f.id = due.id
RETURNING f.id, f.scope;

-- name: PurgeTombstones :one
WITH purged AS (
    DELETE FROM node_tombstones
    WHERE purge_after <= @now AND restored_at IS NULL
    RETURNING id
)
SELECT count(*)::int FROM purged;

-- name: PrunePromotedNodes :many
-- PrunePromotedNodes removes working rows promoted before cutoff: their
-- facts keep what they said (and source_node_id), so no tombstone is needed;
-- of one scope, or of all when scope is NULL.
DELETE FROM memory_nodes
WHERE id IN (
    SELECT n.id FROM memory_nodes n
    WHERE n.promoted_at IS NOT NULL AND n.promoted_at <= sqlc.arg('cutoff')::timestamptz
      AND (sqlc.narg('scope')::text IS NULL OR n.scope = sqlc.narg('scope'))
    ORDER BY n.id
    LIMIT sqlc.arg('batch_size')
    FOR UPDATE SKIP LOCKED
)
RETURNING id;
