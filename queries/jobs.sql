-- name: ScheduleJob :exec
-- ScheduleJob gives a job its row when a scheduler starts with it, so that
-- it is listed before its first run; a job that has a row keeps it as it is.
INSERT INTO job_status (job, every)
VALUES (@job, make_interval(secs => sqlc.arg('every_us')::bigint / 1000000.0))
ON CONFLICT (job) DO NOTHING;

-- name: StartJobRun :exec
-- StartJobRun records that a run started, with the interval of the
-- replica that runs it and the run's timeout.
INSERT INTO job_status AS s (job, every, last_started, running_until)
VALUES (@job, make_interval(secs => sqlc.arg('every_us')::bigint / 1000000.0), @started_at, @running_until)
ON CONFLICT (job) DO UPDATE
SET every = CASE WHEN s.last_started IS NULL OR excluded.last_started >= s.last_started THEN excluded.every ELSE s.every END,
    last_started = greatest(s.last_started, excluded.last_started),
    running_until = CASE WHEN s.last_started IS NULL OR excluded.last_started >= s.last_started
                         THEN excluded.running_until ELSE s.running_until END;

-- name: FinishJobRun :exec
-- FinishJobRun counts a finished run and records it as the latest.
-- succeeded_at is the end of a run that succeeded, NULL for a failure
-- (failures 1). Times only move forward, whatever order the runs of two
-- replicas (a change of leader) are recorded in.
INSERT INTO job_status AS s (job, every, runs, failures, last_started, last_finished, last_success,
    last_error, last_duration)
VALUES (@job, make_interval(secs => sqlc.arg('every_us')::bigint / 1000000.0), 1, @failures::bigint, @started_at, @finished_at,
    sqlc.narg('succeeded_at')::timestamptz, sqlc.narg('error')::text,
    make_interval(secs => sqlc.arg('duration_us')::bigint / 1000000.0))
ON CONFLICT (job) DO UPDATE
SET runs = s.runs + 1,
    failures = s.failures + excluded.failures,
    last_started = greatest(s.last_started, excluded.last_started),
    last_finished = greatest(s.last_finished, excluded.last_finished),
    last_success = greatest(s.last_success, excluded.last_success),
    -- The error and duration are the latest run's, whichever order the
    -- runs are recorded in (a slow run may finish after a later one).
    last_error = CASE WHEN s.last_finished IS NULL OR excluded.last_finished >= s.last_finished
                      THEN excluded.last_error ELSE s.last_error END,
    last_duration = CASE WHEN s.last_finished IS NULL OR excluded.last_finished >= s.last_finished
                         THEN excluded.last_duration ELSE s.last_duration END;

-- name: ListJobStatus :many
-- ListJobStatus returns every job's row by name; durations in microseconds.
SELECT job, (extract(epoch FROM every) * 1000000)::bigint AS every_us, runs, failures,
    last_started, running_until, last_finished, last_success, last_error,
    coalesce((extract(epoch FROM last_duration) * 1000000)::bigint, 0)::bigint AS last_duration_us
FROM job_status
ORDER BY job;

-- name: SettledRunID :one
-- SettledRunID is the newest consolidation run up to which every run after
-- after_id has finished (after_id when none has): the runs up to it will
-- not change any more. One statement, one snapshot; runs are started one at
-- a time, under the consolidation lock, so no run with a lower id commits
-- after it. Both look-ups walk the primary key from after_id.
SELECT coalesce(
    (SELECT min(id) - 1 FROM consolidation_runs WHERE id > @after_id::bigint AND status = 'running'),
    (SELECT max(id) FROM consolidation_runs WHERE id > @after_id::bigint),
    @after_id::bigint)::bigint AS settled_id;

-- name: RunOutcomeTotals :many
-- RunOutcomeTotals sums the reports of the runs after after_id up to
-- settled_id, by phase and outcome.
SELECT p.key::text AS phase, o.key::text AS outcome, sum(o.value::bigint)::bigint AS total
FROM consolidation_runs r
CROSS JOIN LATERAL jsonb_each(r.report) AS p(key, value)
CROSS JOIN LATERAL jsonb_each_text(p.value) AS o(key, value)
WHERE r.id > @after_id::bigint AND r.id <= @settled_id::bigint
GROUP BY p.key, o.key
ORDER BY p.key, o.key;

-- name: RunDurationTotals :many
-- RunDurationTotals counts the runs after after_id up to settled_id by
-- status and by bucket of their duration: bucket i holds the runs that took
-- at most bounds[i+1] seconds (more than bounds[i]), bucket len(bounds) the
-- longer ones.
SELECT d.status::text AS status,
    (SELECT count(*) FROM unnest(@bounds::float8[]) AS b(le) WHERE b.le < d.seconds)::int AS bucket,
    count(*)::bigint AS runs, sum(d.seconds)::float8 AS seconds
FROM (
    SELECT status, greatest(extract(epoch FROM finished_at - started_at), 0)::float8 AS seconds
    FROM consolidation_runs
    WHERE id > @after_id::bigint AND id <= @settled_id::bigint
) d
GROUP BY 1, 2
ORDER BY 1, 2;
