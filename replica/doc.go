// Package replica routes reads to PostgreSQL hot standbys (streaming
// replication) and everything else to the primary.
//
// A Router holds one pool for the primary and one per standby. In the
// background it checks each server every Interval (500 ms by default), each
// check bounded by CheckTimeout: the primary for its flushed WAL position
// (pg_current_wal_flush_lsn()), each standby for whether it answers, is in
// recovery, is a clone of the primary (same system identifier) and how far
// it has replayed (pg_last_wal_replay_lsn()). Pick(minLSN) returns a standby
// in rotation (healthy, lag within MaxLag) that has replayed at least
// minLSN, taking turns among those that qualify, and the primary otherwise;
// Read does the same around a function and retries it elsewhere when the
// standby fails under it.
//
// # Lag
//
// Lag is measured on the Router's own clock by comparing WAL positions: the
// Router keeps the primary's flushed position at each of its checks over
// the last 2×MaxLag, and a standby that has replayed up to position R holds
// everything the primary had at the time of the latest check at which the
// primary was at or before R. Its lag is the time since then. It is zero
// when nothing was written (an idle primary, or a paused standby of an idle
// primary, holds everything there is), grows by the second while a standby
// that has stopped replaying falls behind a primary that writes, and is
// accurate to about Interval: a standby that is fully caught up shows
// between 0 and Interval, which is why MaxLag must be at least twice
// Interval. When the primary cannot be checked, the standbys' lag grows
// too (their freshness cannot be shown), so they leave rotation after
// MaxLag rather than serve reads of unknown age.
//
// The alternative, now() - pg_last_xact_replay_timestamp() on the standby,
// was not chosen: it is the age of the last replayed commit, so it reports
// a large lag on an idle primary unless one also compares positions to tell
// idle from behind; a standby whose WAL receiver has lost the primary sees
// nothing arriving and would look caught up; and it mixes two servers'
// clocks. Comparing positions needs one cheap query per server per check,
// the same as reading the timestamp.
//
// # Read-your-writes
//
// After a write commits, CurrentLSN returns the primary's WAL insert
// position, which is at or past the end of the write's commit record. A
// caller that keeps it (per session or API token, the highest of its
// writes) and passes it as minLSN to Pick or Read reads from the primary,
// or from a standby that has replayed past the write. Replay positions are
// those of the last check, which only ever underestimates: a read right
// after a write goes to the primary until a check has seen a standby
// replay it, within about Interval.
//
// A context carries what the reads made under it must see: WithMinLSN
// gives the position (a reader such as memory.Store routes only the reads
// made under such a context), UsePrimary sends them to the primary from
// then on, and NoteWrite, called once a write has committed under it, does
// too and counts the write (Writes), so that whoever made the context can
// take CurrentLSN after the writes and keep it for the caller.
//
// # Failures
//
// A standby leaves rotation at once when its check fails (it does not
// answer within CheckTimeout, refuses connections, is not in recovery or
// belongs to another cluster) or when Fail is told that a read on it failed
// with a connection error; it rejoins when a later check succeeds (one that
// began after the failure). A standby further behind than MaxLag leaves
// rotation while it stays healthy, and rejoins when it has caught up. With
// no standby in rotation every read goes to the primary. Read retries a
// read that failed because of its standby (lost connection, shutdown, a
// query cancelled by a conflict with WAL replay) on the next pick, so no
// caller sees a standby's failure; errors of the query itself are returned
// as they are.
//
// Close stops the checks. The Router never closes the pools it was given.
package replica
