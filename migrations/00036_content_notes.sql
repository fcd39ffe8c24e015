-- +goose Up
-- A pushed row without a key that repeats a live fact word for word gets
-- the duplicate note (and strict refuses it), as a row with the fact's key
-- does (PushContentNotes, memory/pushnotes.go): this index finds a scope's
-- live facts by their text, in the form entity_facts_entity_key_content_idx
-- compares it.
CREATE INDEX entity_facts_scope_content_idx ON entity_facts (scope, md5(lower(content))) WHERE status = 'active';

-- +goose Down
DROP INDEX entity_facts_scope_content_idx;
