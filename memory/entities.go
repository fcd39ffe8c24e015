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

// planEntities resolves the entity of every plan of a batch, in one
// look-up (canonicalEntities): the entity the plan names, one however it
// is spelled; the relation the plan is about ("my wife") when an alias
// reads it as another entity (relations.go); and for a plan about no
// entity whose text starts with a lower-case word (LeadingWord), that word
// when it is another spelling of one the scope knows ("jun renewed the
// pager contract": Jun Park). A relation or a word that names no other
// entity changes nothing.
func planEntities(ctx context.Context, q *queries.Queries, plans []plan) error {
	n := len(plans)
	scopes, names := make([]string, n, 2*n), make([]string, n, 2*n)
	for i, p := range plans {
		scopes[i], names[i] = p.scope, p.entity
	}
	// The plans' own names come first, so that two spellings new in the
	// batch are one entity as the first of them is written.
	type extra struct {
		plan, at int
		leading  bool
	}
	var extras []extra
	for i, p := range plans {
		if p.relation != "" {
			extras = append(extras, extra{plan: i, at: len(names)})
			scopes, names = append(scopes, p.scope), append(names, p.relation)
		} else if p.leading != "" && p.entity == defaultEntity {
			extras = append(extras, extra{plan: i, at: len(names), leading: true})
			scopes, names = append(scopes, p.scope), append(names, p.leading)
		}
	}
	found, err := canonicalEntities(ctx, q, scopes, names)
	if err != nil {
		return err
	}
	for i := range plans {
		plans[i].entity = found[i]
	}
	for _, x := range extras {
		switch got, asked := found[x.at], names[x.at]; {
		case x.leading && got != asked && plans[x.plan].entity == defaultEntity:
			plans[x.plan].entity = got // the word as written back: no entity has it
		case !x.leading && !sameName(got, asked):
			plans[x.plan].entity = got // an alias reads the relation as that entity
		}
	}
	return nil
}
