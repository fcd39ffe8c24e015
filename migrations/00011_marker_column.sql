-- +goose Up
-- The marker of a working row (durable, transient or expired) becomes a typed
-- column. Agents still send it, and it is still kept, at properties.durability;
-- marker is computed from it on every write, so the two never disagree. A row
-- without the key (or with a JSON null there) reads as durable.
--
-- The old check on the key already allowed only the three values (any other
-- string, number or object was refused), so the computed column holds one of
-- them on every row; the check now says so on the column itself, under the
-- same name. Adding a stored column rewrites the table once.
ALTER TABLE memory_nodes
    ADD COLUMN marker text NOT NULL
        GENERATED ALWAYS AS (coalesce(properties->>'durability', 'durable')) STORED;
ALTER TABLE memory_nodes DROP CONSTRAINT memory_nodes_durability_value;
ALTER TABLE memory_nodes ADD CONSTRAINT memory_nodes_durability_value
    CHECK (marker IN ('durable', 'transient', 'expired'));

-- Consolidation and cleanup walk pending rows in id order and decide on each
-- by its marker: the index is ordered by id, so a batch reads only the
-- pending rows it takes (an index led by the marker gave no id order, and the
-- planner walked the primary key past every promoted row instead), and it
-- carries the marker, so counts by marker read the index alone.
DROP INDEX memory_nodes_pending_idx;
CREATE INDEX memory_nodes_pending_idx ON memory_nodes (id) INCLUDE (marker) WHERE promoted_at IS NULL;

-- A tombstone keeps the pruned row's properties as they were, so its marker
-- is computed the same way. Tombstones are only ever made from working rows,
-- which passed the check above.
ALTER TABLE node_tombstones
    ADD COLUMN marker text NOT NULL
        GENERATED ALWAYS AS (coalesce(properties->>'durability', 'durable')) STORED;
ALTER TABLE node_tombstones ADD CONSTRAINT node_tombstones_marker_value
    CHECK (marker IN ('durable', 'transient', 'expired'));

-- +goose Down
ALTER TABLE node_tombstones DROP COLUMN marker;

DROP INDEX memory_nodes_pending_idx;
CREATE INDEX memory_nodes_pending_idx ON memory_nodes (
    (coalesce(properties->>'durability', 'durable')), id) WHERE promoted_at IS NULL;
ALTER TABLE memory_nodes DROP CONSTRAINT memory_nodes_durability_value;
ALTER TABLE memory_nodes ADD CONSTRAINT memory_nodes_durability_value
    CHECK (NOT properties ? 'durability'
           OR properties->>'durability' IN ('durable', 'transient', 'expired'));
ALTER TABLE memory_nodes DROP COLUMN marker;
