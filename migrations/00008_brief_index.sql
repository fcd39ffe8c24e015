-- +goose Up
-- The context brief reads four short lists from one scope at the start of
-- every agent turn. Each gets a partial index in the order it is read, so a
-- brief costs what it shows, not the size of the scope.

-- Durable facts: the highest effective confidence × importance. Effective
-- confidence never exceeds the stored confidence, so confidence × importance
-- bounds every fact's score: walking this index from the top, the brief stops
-- as soon as the bound falls below its n-th best score, instead of scoring
-- every durable fact of the scope.
CREATE INDEX entity_facts_brief_idx ON entity_facts (scope, (confidence * importance), id)
    WHERE status = 'active' AND durability IN ('permanent', 'long_term') AND category <> 'decision';

-- Current states, the most recently confirmed first.
CREATE INDEX entity_facts_brief_states_idx ON entity_facts (scope, confirmed_at, id)
    WHERE status = 'active' AND category = 'state' AND durability IN ('short_term', 'ephemeral');

-- Obligations by deadline.
CREATE INDEX entity_facts_brief_obligations_idx ON entity_facts (scope, deadline, id)
    WHERE status = 'active' AND category = 'obligation' AND deadline IS NOT NULL;

-- Locked decisions, newest first.
CREATE INDEX decisions_brief_idx ON decisions (scope, decided_at, id) WHERE do_not_reopen;

-- +goose Down
DROP INDEX decisions_brief_idx;
DROP INDEX entity_facts_brief_obligations_idx;
DROP INDEX entity_facts_brief_states_idx;
DROP INDEX entity_facts_brief_idx;
