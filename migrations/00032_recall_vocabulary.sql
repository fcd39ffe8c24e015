-- +goose Up
-- Recall reads a question word that no live fact of the scope holds, and
-- that its table of related words does not know, as a misspelling of the
-- scope's nearest words (memory/recall_expand.go): the lexemes of
-- recall_terms whose trigrams are most like its own. This index finds them
-- among one scope's lexemes (btree_gin, migration 00007, for the scope;
-- pg_trgm, migration 00010, for the lexeme).
--
-- It indexes lower(lexeme), which is the lexeme (to_tsvector lowers every
-- word) and has the same trigrams (pg_trgm lowers them too), rather than
-- the column: a trigram index on the column serves lexeme = x as well, and
-- the planner then preferred it to recall_terms_key_idx for the counts of a
-- question's words, at 3 ms a lexeme instead of a few microseconds.
CREATE INDEX recall_terms_lexeme_trgm_idx ON recall_terms USING gin (scope, lower(lexeme) gin_trgm_ops);

-- +goose Down
DROP INDEX recall_terms_lexeme_trgm_idx;
