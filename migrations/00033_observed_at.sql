-- +goose Up
-- A working row says when its statement was observed (observed_at on every
-- write path), and the fact it becomes is confirmed then: memory ages from
-- the time it was told, not from the time it was written. NULL means the
-- time of the write: a row pushed without one reads its created_at, and a
-- push writes NULL whenever the two agree, so a live push stores nothing
-- more. A nullable column without a default is a change of the catalog
-- only: no row is rewritten, at a million rows as at ten. No index is
-- needed: consolidation reads the column of the rows it already holds, and
-- no query looks rows up by it.
--
-- A pruned row's tombstone keeps its observation time, so that a restored
-- row is observed when it was, not when it was restored.
ALTER TABLE memory_nodes ADD COLUMN observed_at timestamptz;
ALTER TABLE node_tombstones ADD COLUMN node_observed_at timestamptz;

-- +goose Down
ALTER TABLE node_tombstones DROP COLUMN node_observed_at;
ALTER TABLE memory_nodes DROP COLUMN observed_at;
