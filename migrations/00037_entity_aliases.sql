-- +goose Up
-- Aliases and merges of entities, within a scope. An alias is another name
-- of an entity: a handle ("@ana"), a relation ("my wife"), or the name of
-- an entity merged into it. Writers read a name through the aliases first
-- (CanonicalEntityNames, memory/entities.go), so "my wife" is "Ana Ruiz"
-- wherever it is written. A merge moves every fact, decision and pending
-- working row of one entity onto another and keeps the name of the first
-- as an alias of the second; it records what it moved, so that undoing it
-- puts back exactly those rows.

CREATE TABLE entity_merges (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope          text        NOT NULL,
    from_entity_id bigint      NOT NULL,
    into_entity_id bigint      NOT NULL,
    actor          text        NOT NULL,
    created_at     timestamptz NOT NULL,
    undone_at      timestamptz,
    undone_by      text,
    -- What the merge moved from the one entity to the other: facts,
    -- decisions, pending working rows (with the entity each named before),
    -- the folds of the aliases it repointed, and the facts its supersession
    -- archived (restored by an undo while still archived by it).
    fact_ids       bigint[]    NOT NULL DEFAULT '{}',
    decision_ids   bigint[]    NOT NULL DEFAULT '{}',
    node_ids       bigint[]    NOT NULL DEFAULT '{}',
    node_entities  text[]      NOT NULL DEFAULT '{}',
    alias_folds    text[]      NOT NULL DEFAULT '{}',
    archived_ids   bigint[]    NOT NULL DEFAULT '{}',
    CONSTRAINT entity_merges_from_fkey FOREIGN KEY (scope, from_entity_id)
        REFERENCES entities (scope, id) ON DELETE CASCADE,
    CONSTRAINT entity_merges_into_fkey FOREIGN KEY (scope, into_entity_id)
        REFERENCES entities (scope, id) ON DELETE CASCADE,
    CONSTRAINT entity_merges_two_entities CHECK (from_entity_id <> into_entity_id),
    CONSTRAINT entity_merges_undone_consistent CHECK ((undone_at IS NULL) = (undone_by IS NULL)),
    CONSTRAINT entity_merges_nodes_aligned CHECK (cardinality(node_ids) = cardinality(node_entities))
);

-- The console lists a scope's recent merges; an undo looks for a later merge
-- of the entity a merge went into.
CREATE INDEX entity_merges_scope_idx ON entity_merges (scope, id DESC);
CREATE INDEX entity_merges_from_idx ON entity_merges (from_entity_id) WHERE undone_at IS NULL;

CREATE TABLE entity_aliases (
    scope      text        NOT NULL,
    -- fold is the alias as names are compared (tenure_entity_fold): one
    -- entity per fold and scope.
    fold       text        NOT NULL,
    alias      text        NOT NULL,
    entity_id  bigint      NOT NULL,
    created_by text        NOT NULL,
    created_at timestamptz NOT NULL,
    -- merge_id is the merge that made the alias (the merged entity's name);
    -- such an alias goes only with an undo of its merge.
    merge_id   bigint REFERENCES entity_merges (id) ON DELETE CASCADE,
    CONSTRAINT entity_aliases_pkey PRIMARY KEY (scope, fold),
    CONSTRAINT entity_aliases_entity_fkey FOREIGN KEY (scope, entity_id)
        REFERENCES entities (scope, id) ON DELETE CASCADE,
    CONSTRAINT entity_aliases_fold_matches CHECK (fold = tenure_entity_fold(alias)),
    CONSTRAINT entity_aliases_alias_present CHECK (fold <> '' AND length(alias) <= 200)
);

CREATE INDEX entity_aliases_entity_idx ON entity_aliases (entity_id);

-- +goose Down
DROP TABLE entity_aliases;
DROP TABLE entity_merges;
