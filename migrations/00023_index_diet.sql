-- +goose Up
-- Every insert into entity_facts pays for each of its indexes. The overview's
-- counts per status, durability and category come from fact_axes_counts
-- (migration 00018), so no query reads entity_facts_axes_idx any more.
DROP INDEX entity_facts_axes_idx;

-- +goose Down
CREATE INDEX entity_facts_axes_idx ON entity_facts (status, durability, category);
