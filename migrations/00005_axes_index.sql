-- +goose Up
-- The overview's durability x category matrix counts active facts by both
-- axes; this index answers it with an index-only scan instead of reading the
-- whole table.
CREATE INDEX entity_facts_axes_idx ON entity_facts (status, durability, category);

-- +goose Down
DROP INDEX entity_facts_axes_idx;
