// Package jobs runs Tenure's scheduled work (consolidation, decay, tombstone
// purge) with gocron, on exactly one replica at a time.
//
// The package does not know what the jobs do: it is handed Job values, each a
// stable name, an interval and an idempotent function. A Scheduler ticks every
// job on a grid aligned to its interval (a 5 minute job runs at :00, :05, ...
// on every replica, a daily job at midnight UTC), so restarting a replica does
// not push a daily job back by a day, and replicas agree on when a tick is due.
//
// Several replicas may share one PostgreSQL. A Leader holds a session-level
// advisory lock on one dedicated connection; the Scheduler asks it before every
// run, so only the replica holding the lock runs the tick and the others skip
// it. When the leader stops or its connection dies, PostgreSQL releases the
// lock and the next replica to ask takes it over.
//
// Leadership is checked when a run starts, not while it runs: a run already
// under way on a replica that just lost its connection finishes, and may
// overlap with the first run on the new leader. Jobs must therefore be
// idempotent, which they are required to be anyway because a failed run is
// simply retried on the next tick.
//
// A Scheduler's Status is what this process saw since it started. What every
// replica agrees on is the History (Options.Recorder): one row per job in
// the database (job_status) with its runs, failures and latest run, written
// by whichever replica runs it. The console's scheduled jobs and the job
// metrics read that record, so they are the same on every replica and after
// a restart.
package jobs
