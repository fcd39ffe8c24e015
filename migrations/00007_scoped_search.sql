-- +goose Up
-- Recall reads one scope, often one durability or category of it. A GIN
-- index over (scope, durability, category, search) intersects those and the
-- words inside the index, so a query visits only the facts that match it,
-- instead of every match in every scope ANDed with a second bitmap of the
-- whole scope. It also serves text searches without a scope (GIN uses any
-- subset of its columns), so it replaces the search-only index. btree_gin
-- supplies the text operator class; it ships with PostgreSQL and is a trusted
-- extension (the database owner may create it). Down leaves it installed.
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX entity_facts_scope_search_idx ON entity_facts USING gin (scope, durability, category, search);
DROP INDEX entity_facts_search_idx;

-- +goose Down
CREATE INDEX entity_facts_search_idx ON entity_facts USING gin (search);
DROP INDEX entity_facts_scope_search_idx;
-- btree_gin stays: it may have been there before, or serve something else.
