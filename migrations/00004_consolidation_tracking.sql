-- +goose Up
-- Consolidation bookkeeping: which run promoted a working row (so that the merge
-- phase of a rerun finds the facts an interrupted run promoted), and tombstones
-- for rows refused because a locked decision settles what they say.

ALTER TABLE memory_nodes ADD COLUMN promoted_run_id bigint;
CREATE INDEX memory_nodes_promoted_run_idx ON memory_nodes (promoted_run_id)
    WHERE promoted_run_id IS NOT NULL;

ALTER TABLE node_tombstones DROP CONSTRAINT node_tombstones_reason_value;
ALTER TABLE node_tombstones ADD CONSTRAINT node_tombstones_reason_value
    CHECK (reason IN ('expired', 'transient_ttl', 'ttl', 'decision_locked'));

-- Facts by source row, for the merge phase and a row's provenance.
CREATE INDEX entity_facts_source_node_idx ON entity_facts (source_node_id)
    WHERE source_node_id IS NOT NULL;

-- +goose Down
DROP INDEX entity_facts_source_node_idx;
DELETE FROM node_tombstones WHERE reason = 'decision_locked';
ALTER TABLE node_tombstones DROP CONSTRAINT node_tombstones_reason_value;
ALTER TABLE node_tombstones ADD CONSTRAINT node_tombstones_reason_value
    CHECK (reason IN ('expired', 'transient_ttl', 'ttl'));
DROP INDEX memory_nodes_promoted_run_idx;
ALTER TABLE memory_nodes DROP COLUMN promoted_run_id;
