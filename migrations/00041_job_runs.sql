-- +goose Up
-- job_status keeps, for each scheduled job, its totals and its latest run,
-- written by the replica that runs it (the leader) when a run starts and
-- when it ends (jobs.History). Every replica reads the same row: the
-- console's scheduled jobs and the tenure_job_* metrics agree on every
-- replica and survive a restart.
--
-- One row per job rather than one per run: what is asked of it is totals
-- and the latest run, which one row answers at once, its counts only grow
-- (Prometheus counters), and it needs no purge; the process's log keeps each
-- run.
CREATE TABLE job_status (
    job           text        PRIMARY KEY,
    -- every is the job's interval on the replica that last started it (or
    -- first scheduled it): the job ticks on its multiples.
    every         interval    NOT NULL,
    runs          bigint      NOT NULL DEFAULT 0,
    failures      bigint      NOT NULL DEFAULT 0,
    last_started  timestamptz,
    -- running_until is the timeout of the latest run started: a run that
    -- never finished (its process died) no longer reads as running past it.
    running_until timestamptz,
    last_finished timestamptz,
    last_success  timestamptz,
    -- last_error is the error of the latest run finished, NULL if it
    -- succeeded.
    last_error    text,
    last_duration interval,
    CONSTRAINT job_status_job_name CHECK (job <> '' AND length(job) <= 200),
    CONSTRAINT job_status_every_positive CHECK (every > interval '0'),
    CONSTRAINT job_status_counts CHECK (runs >= 0 AND failures BETWEEN 0 AND runs)
);

-- +goose Down
DROP TABLE job_status;
