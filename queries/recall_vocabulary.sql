-- name: RecallExpansion :many
-- RecallExpansion reads what recall's expansion of a question needs
-- (memory/recall_expand.go), for one scope, in one statement: how many live
-- facts hold each lexeme of related (kind 'related', only those some fact
-- holds); for each lexeme of misspelled, the per_word lexemes of the scope
-- most like it by trigram similarity, at least min_similarity, each with
-- its word and its count (kind 'near'); and the lexemes of the question's
-- phrases, which are taken as written (kind 'phrase').
SELECT 'related'::text AS kind, ''::text AS word, c.lexeme::text AS lexeme,
    sum(t.facts)::bigint AS facts, 1::real AS similarity
FROM unnest(@related::text[]) c(lexeme)
JOIN recall_terms t ON t.scope = @scope::text AND t.lexeme = c.lexeme
GROUP BY c.lexeme
HAVING sum(t.facts) > 0
UNION ALL
SELECT 'near'::text, m.word::text, n.lexeme::text, n.facts::bigint, n.similarity::real
FROM unnest(@misspelled::text[]) m(word)
CROSS JOIN LATERAL (
    -- lower(t.lexeme) is the lexeme, written as recall_terms_lexeme_trgm_idx
    -- indexes it (migration 00032).
    SELECT t.lexeme, sum(t.facts) AS facts, similarity(t.lexeme, m.word) AS similarity
    FROM recall_terms t
    WHERE t.scope = @scope::text AND lower(t.lexeme) % m.word
    GROUP BY t.lexeme
    HAVING sum(t.facts) > 0 AND similarity(t.lexeme, m.word) >= @min_similarity::real
    ORDER BY similarity(t.lexeme, m.word) DESC, sum(t.facts) DESC, t.lexeme
    LIMIT @per_word::integer
) n
UNION ALL
SELECT 'phrase'::text, ''::text, p.lexeme::text, 0::bigint, 0::real
FROM unnest(tsvector_to_array(to_tsvector('english', array_to_string(@phrases::text[], ' ')))) p(lexeme);
