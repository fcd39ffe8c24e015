-- What changed: the changes a person must be able to check and undo, read
-- from the audit log (memory/changes.go). Each change is one audit row of
-- the actions below, or one element of such a row's list when a writer
-- audited many facts in one row (target type facts or decisions: after.facts
-- or after.decisions, with the fact that replaced each at the same place of
-- after.superseded_by, merged_into, fulfilled_by or denied_by). A change of
-- a consolidation run carries the run's id in after.run_id.

-- name: ListChanges :many
-- ListChanges returns one page of changes, newest first (audit time, audit
-- row, place in the row's list), below the keyset cursor (before_id,
-- before_ord; before_id 0 for the first page), each with the fact or
-- decision it changed and the fact that replaced or absorbed it, as they
-- are now. Every filter is optional: run_id (its changes only, through
-- audit_log_changes_run_idx), actions, scope (of the fact or decision),
-- since (inclusive) and until (exclusive), through audit_log_changes_idx.
WITH cur AS (
    SELECT c.at, c.id FROM audit_log c WHERE c.id = @before_id::bigint
),
ev AS (
    SELECT a.id, a.at, a.actor, a.action, a.target_type, a.target_id, a.scope, a.after, a.reason
    FROM audit_log a
    WHERE a.action IN ('fact.supersede', 'fact.fulfil', 'fact.deny', 'fact.merge', 'fact.archive',
                       'fact.decay', 'fact.restore', 'decision.create')
      AND a.action = ANY(@actions::text[])
      AND (sqlc.narg('run_id')::text IS NULL
           OR (a.after ? 'run_id' AND (a.after->>'run_id') = sqlc.narg('run_id')::text))
      AND (sqlc.narg('scope')::text IS NULL OR a.scope IS NULL OR a.scope = sqlc.narg('scope')::text)
      AND (sqlc.narg('since')::timestamptz IS NULL OR a.at >= sqlc.narg('since')::timestamptz)
      AND (sqlc.narg('until')::timestamptz IS NULL OR a.at < sqlc.narg('until')::timestamptz)
      AND (@before_id::bigint = 0 OR (a.at, a.id) <= (SELECT cur.at, cur.id FROM cur))
),
items AS (
    SELECT ev.id, ev.at, ev.actor, ev.action, ev.target_type, ev.scope, ev.after, ev.reason,
        it.ord, it.target, it.other
    FROM ev
    CROSS JOIN LATERAL (
        SELECT 0::bigint AS ord, ev.target_id::bigint AS target,
            coalesce(ev.after->>'superseded_by', ev.after->>'merged_into', ev.after->>'fulfilled_by',
                     ev.after->>'denied_by')::bigint AS other
        WHERE ev.target_type IN ('fact', 'decision')
        UNION ALL
        SELECT x.ord, x.id::bigint,
            (coalesce(ev.after->'superseded_by', ev.after->'merged_into', ev.after->'fulfilled_by',
                      ev.after->'denied_by')->>(x.ord::int - 1))::bigint
        FROM jsonb_array_elements_text(coalesce(ev.after->'facts', ev.after->'decisions')) WITH ORDINALITY AS x (id, ord)
        WHERE ev.target_type IN ('facts', 'decisions')
    ) it
    WHERE @before_id::bigint = 0 OR ev.id <> @before_id::bigint OR it.ord > @before_ord::bigint
)
SELECT i.id AS audit_id, i.ord, i.at, i.actor, i.action, i.reason,
    coalesce((i.after->>'run_id')::bigint, 0)::bigint AS run_id,
    coalesce(f.scope, d.scope, i.scope, '')::text AS scope,
    (CASE WHEN i.target_type IN ('fact', 'facts') THEN i.target ELSE 0 END)::bigint AS fact_id,
    (CASE WHEN i.target_type IN ('decision', 'decisions') THEN i.target ELSE 0 END)::bigint AS decision_id,
    coalesce(e.name, '')::text AS entity, coalesce(f.key, d.key, '')::text AS key,
    coalesce(f.content, d.decision, '')::text AS content, coalesce(f.category, '')::text AS category,
    coalesce(f.status, '')::text AS status, coalesce(f.archive_reason, '')::text AS archive_reason,
    f.updated_at AS fact_updated_at,
    (f.id IS NOT NULL OR d.id IS NOT NULL)::bool AS found,
    coalesce(i.other, 0)::bigint AS other_id, coalesce(o.content, '')::text AS other_content,
    coalesce(o.key, '')::text AS other_key, coalesce(o.status, '')::text AS other_status,
    coalesce(d.do_not_reopen, false)::bool AS decision_locked, d.reopened_at AS decision_reopened_at
FROM items i
LEFT JOIN entity_facts f ON i.target_type IN ('fact', 'facts') AND f.id = i.target
LEFT JOIN decisions d ON i.target_type IN ('decision', 'decisions') AND d.id = i.target
LEFT JOIN entities e ON e.id = coalesce(f.entity_id, d.entity_id)
LEFT JOIN entity_facts o ON o.id = i.other
WHERE sqlc.narg('scope')::text IS NULL OR coalesce(f.scope, d.scope, i.scope) = sqlc.narg('scope')::text
ORDER BY i.at DESC, i.id DESC, i.ord
LIMIT @page_size;

-- name: InsertChangeAudits :exec
-- InsertChangeAudits writes one audit row for each fact or decision of
-- target_ids, in one statement: a change a consolidation run makes to many
-- rows at once (facts merged, decisions recorded), each with its scope and
-- its own after.
INSERT INTO audit_log (at, actor, action, target_type, target_id, scope, after, reason)
SELECT @at::timestamptz, @actor::text, @action::text, @target_type::text, x.target_id::text, x.scope,
    x.after, @reason::text
FROM (
    SELECT unnest(@target_ids::bigint[]) AS target_id, unnest(@scopes::text[]) AS scope,
        unnest(@afters::jsonb[]) AS after
) x;

-- name: UnmergeSurvivor :one
-- UnmergeSurvivor takes back from an active survivor the sightings a fact
-- merged into it brought (its extraction count, never below one), when that
-- fact is restored on its own.
UPDATE entity_facts f
SET extraction_count = greatest(1, f.extraction_count - @taken::int), version = f.version + 1,
    updated_at = @now::timestamptz
WHERE f.id = @id AND f.status = 'active'
RETURNING f.id, f.scope, f.extraction_count, f.version;

-- name: CountForgettingSoon :one
-- CountForgettingSoon counts the facts OverviewForgettingSoon lists, up to
-- max_count + 1: the active facts whose forget_at falls before until (those
-- already due that decay has not archived yet included), less the
-- obligations decay holds once overdue. It reads the range of
-- entity_facts_forget_at_idx (active facts only) up to until and stops
-- after max_count + 1, so its cost is bounded however many facts a large
-- store forgets in the window (hundreds of thousands at 5,000,000 facts).
SELECT count(*)::bigint
FROM (
    SELECT 1
    FROM entity_facts f
    WHERE f.status = 'active' AND f.forget_at IS NOT NULL AND f.forget_at <= @until::timestamptz
      AND NOT (f.category = 'obligation' AND f.deadline IS NOT NULL AND f.deadline <= f.forget_at)
    LIMIT sqlc.arg('max_count')::bigint + 1
) counted;
