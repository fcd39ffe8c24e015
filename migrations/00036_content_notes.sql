-- +goose Up
-- A pushed row without a key that repeats a live fact word for word gets
-- the duplicate note (and strict refuses it), as a row with the fact's key
-- does (PushContentNotes, memory/pushnotes.go): this index finds a scope's
-- live facts by their text, in the form entity_facts_entity_key_content_idx
-- compares it.
CREATE INDEX entity_facts_scope_content_idx ON entity_facts (scope, md5(lower(content))) WHERE status = 'active';

-- Every writer looks, beside the facts it writes, for the open obligations
-- of their entities that a fact may fulfil (OpenObligationsBeside,
-- memory/supersede.go): this index holds only those, so the look-up reads
-- an entity's obligations rather than all its facts, and only obligations
-- pay for it on insert.
CREATE INDEX entity_facts_open_obligations_idx ON entity_facts (entity_id, confirmed_at)
    WHERE status = 'active' AND category = 'obligation';

-- +goose Down
DROP INDEX entity_facts_open_obligations_idx;
DROP INDEX entity_facts_scope_content_idx;
