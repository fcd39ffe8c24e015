-- +goose Up
-- One entity however its name is spelled, within a scope: "Acme Robotics",
-- "acme  robotics" and "ACME Robotics" are one entity, and so are "Zoë"
-- and "Zoe". tenure_entity_fold is the form names are compared in: white
-- space trimmed and collapsed, accents taken off (NFD, combining marks
-- dropped; the letters that do not decompose, ø ł đ ð ı æ œ ß, mapped by
-- hand, as the extractor's foldName does), lowercase. Writers resolve a
-- name to the scope's entity of the same fold before they write
-- (CanonicalEntityNames, memory/entities.go); the index serves that lookup
-- and the first-name prefix search beside it.
-- +goose StatementBegin
CREATE FUNCTION tenure_entity_fold(p_name text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT lower(regexp_replace(
        replace(replace(replace(replace(replace(
            translate(regexp_replace(normalize(btrim(p_name, E' \t\r\n'), NFD), '[\u0300-\u036f]', '', 'g'),
                'øØłŁđĐðÐı’', 'oollddddi'''),
            'æ', 'ae'), 'Æ', 'ae'), 'œ', 'oe'), 'Œ', 'oe'), 'ß', 'ss'),
        '\s+', ' ', 'g'))
$$;
-- +goose StatementEnd

CREATE INDEX entities_scope_fold_idx ON entities (scope, tenure_entity_fold(name) text_pattern_ops);

-- +goose Down
DROP INDEX entities_scope_fold_idx;
DROP FUNCTION tenure_entity_fold(text);
