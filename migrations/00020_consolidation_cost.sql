-- +goose Up
-- What every insert into entity_facts maintains, kept to what a query needs.
--
-- The decay terms (decay_half_life, decay_from, forget_at) of a new fact are
-- computed by the entity_facts_forget_at trigger: one policy lookup for each
-- row, the largest single cost of an insert. A writer of many facts at once
-- (consolidation) computes them in its own statement instead, with
-- tenure_decay_state, the function the trigger applies, from the same inputs,
-- once for each distinct set of them. On insert the trigger now runs only for
-- a row that arrives without its terms: decay_from is NULL (once computed it
-- never is: it is confirmed_at or the deadline). Every other writer leaves
-- them out, and every update of an input still recomputes them. A writer that
-- supplies the terms reads decay_policies in a statement that holds its lock
-- on entity_facts, as the trigger does, so a policy edit (which locks
-- entity_facts against writers before it recomputes) never leaves it with
-- old terms.
DROP TRIGGER entity_facts_forget_at ON entity_facts;
CREATE TRIGGER entity_facts_forget_at
    BEFORE UPDATE OF durability, category, confidence, confirmed_at, expires_at, deadline
    ON entity_facts
    FOR EACH ROW EXECUTE FUNCTION entity_facts_set_forget_at();
CREATE TRIGGER entity_facts_forget_at_insert
    BEFORE INSERT ON entity_facts
    FOR EACH ROW WHEN (NEW.decay_from IS NULL) EXECUTE FUNCTION entity_facts_set_forget_at();

-- No query looks facts up by the working row they came from: a promoted row
-- names its fact (memory_nodes.promoted_fact_id), and the merge phase reads
-- facts by that id.
DROP INDEX entity_facts_source_node_idx;

-- +goose Down
CREATE INDEX entity_facts_source_node_idx ON entity_facts (source_node_id)
    WHERE source_node_id IS NOT NULL;
DROP TRIGGER entity_facts_forget_at_insert ON entity_facts;
DROP TRIGGER entity_facts_forget_at ON entity_facts;
CREATE TRIGGER entity_facts_forget_at
    BEFORE INSERT OR UPDATE OF durability, category, confidence, confirmed_at, expires_at, deadline
    ON entity_facts
    FOR EACH ROW EXECUTE FUNCTION entity_facts_set_forget_at();
