package memory

import (
	"context"
	"fmt"

	"github.com/tenurehq/tenure/queries"
)

// One entity however its name is spelled. Every writer reads the entity a
// row, a fact or a decision names first through the scope's aliases (a
// handle, a relation such as "my wife", the name of an entity merged into
// another: aliases.go), then as the scope's entity of the same fold
// (case, white space and accents aside: "acme robotics" is "Acme
// Robotics"), and a first name alone as the one entity of the scope whose
// name is that first name and more ("Ana" is "Ana Ruiz" unless an "Ana
// Lopez" is there too; an entity merged into another is none), before it
// resolves locks, duplicates and supersession, which pair facts by entity.
// A name that matches none is a new entity, as written first among the
// names resolved together (two spellings new in one batch are one entity).
// Migration 00035 holds the fold, 00037 the aliases.

// canonicalEntities returns, for each (scopes[i], names[i]), the name of
// the entity it names (see above).
func canonicalEntities(ctx context.Context, q *queries.Queries, scopes, names []string) ([]string, error) {
	out := make([]string, len(names))
	copy(out, names)
	if len(names) == 0 {
		return out, nil
	}
	rows, err := q.CanonicalEntityNames(ctx, queries.CanonicalEntityNamesParams{Scopes: scopes, Names: names})
	if err != nil {
		return nil, fmt.Errorf("entity names: %w", err)
	}
	for _, r := range rows {
		if i := int(r.Ord) - 1; i >= 0 && i < len(out) && r.Name != "" {
			out[i] = r.Name
		}
	}
	return out, nil
}

// canonicalEntity is canonicalEntities for one name.
func canonicalEntity(ctx context.Context, q *queries.Queries, scope, name string) (string, error) {
	out, err := canonicalEntities(ctx, q, []string{scope}, []string{name})
	if err != nil {
		return "", err
	}
	return out[0], nil
}

// knownLeadingWords reads, for the plans about no entity whose text starts
// with a lower-case word (LeadingWord), that word as an entity when it is
// another spelling of one the scope knows ("jun renewed the pager
// contract": Jun Park), and sets that plan's entity in plans and names.
// A word that names no known entity changes nothing.
func knownLeadingWords(ctx context.Context, q *queries.Queries, plans []plan, names []string) error {
	var idx []int
	var scopes, words []string
	for i, p := range plans {
		if p.leading != "" && p.entity == defaultEntity {
			idx, scopes, words = append(idx, i), append(scopes, p.scope), append(words, p.leading)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	found, err := canonicalEntities(ctx, q, scopes, words)
	if err != nil {
		return err
	}
	for j, i := range idx {
		// The name as written back means no entity of the scope has it.
		if found[j] != words[j] {
			plans[i].entity, names[i] = found[j], found[j]
		}
	}
	return nil
}
