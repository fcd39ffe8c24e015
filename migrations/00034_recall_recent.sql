-- +goose Up
-- Recall reads a question's common words among the newest facts of the
-- scope (RecallNewestCandidates, memory/recall.go): it walks this index
-- newest first and finds everything it ranks by in the index itself (an
-- index-only scan, about 0.4 µs a fact at a million facts), where reading
-- a common word's matches through the search index and the heap cost about
-- 4 µs each, for every match of the word (BENCHMARKS.md, "Recall among the
-- newest facts"). The included columns are those the walk filters and
-- ranks by: recall's filters (entity, durability, category, observation
-- time), effective confidence and forget_at, and the search vector.
CREATE INDEX entity_facts_recall_recent_idx ON entity_facts (scope, id DESC)
    INCLUDE (entity_id, durability, category, confirmed_at, confidence, decay_from, decay_half_life, forget_at, search)
    WHERE status = 'active';

-- That walk is index-only on heap pages a vacuum has marked all-visible.
-- Consolidation vacuums after each run that promoted facts; for the other
-- writers (the API, imports) autovacuum comes after 1,000 + 2% of the table's
-- rows are inserted, not the default 20%, so a million-fact store is vacuumed
-- every 21,000 new facts rather than every 201,000.
ALTER TABLE entity_facts SET (autovacuum_vacuum_insert_scale_factor = 0.02);

-- +goose Down
ALTER TABLE entity_facts RESET (autovacuum_vacuum_insert_scale_factor);
DROP INDEX entity_facts_recall_recent_idx;
