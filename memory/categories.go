package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// CategorySetting says whether facts of a category supersede each other on
// a key (see supersede.go) or accumulate.
type CategorySetting struct {
	Category    string    `json:"category"`
	Supersedes  bool      `json:"supersedes"`
	Description string    `json:"description"`
	UpdatedAt   time.Time `json:"updated_at"`
	UpdatedBy   *string   `json:"updated_by,omitempty"`
	Listed      bool      `json:"-"` // false for a category in use with no setting (it accumulates)
}

// CategorySettings lists the setting of every category that has one.
func (s *Store) CategorySettings(ctx context.Context) ([]CategorySetting, error) {
	rows, err := s.q.ListCategorySettings(ctx)
	if err != nil {
		return nil, fmt.Errorf("category settings: %w", err)
	}
	out := make([]CategorySetting, len(rows))
	for i, r := range rows {
		out[i] = CategorySetting{Category: r.Category, Supersedes: r.Supersedes, Description: r.Description,
			UpdatedAt: r.UpdatedAt, UpdatedBy: r.UpdatedBy}
	}
	return out, nil
}

// SetCategorySupersedes sets whether facts of category supersede each other
// on a key; it applies to writes from now on (facts already archived stay
// archived, facts kept side by side stay active until the next write on
// their key). Decisions never take part. The change is audited.
func (s *Store) SetCategorySupersedes(ctx context.Context, actor Actor, category string, supersedes bool, reason string) (CategorySetting, error) {
	if _, err := ParseCategory(category); err != nil {
		return CategorySetting{}, err
	}
	if category == CategoryDecision {
		return CategorySetting{}, Invalidf("category", "decisions never supersede through facts: a decision is replaced by recording a new one on its key")
	}
	if err := CheckText("reason", reason); err != nil {
		return CategorySetting{}, err
	}
	var out CategorySetting
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		before, err := q.ListCategorySettings(ctx)
		if err != nil {
			return err
		}
		was := false
		for _, b := range before {
			if b.Category == category {
				was = b.Supersedes
			}
		}
		by := actor.String()
		r, err := q.SetCategorySupersedes(ctx, queries.SetCategorySupersedesParams{
			Category: category, Supersedes: supersedes, Now: s.Now(), UpdatedBy: &by,
		})
		if err != nil {
			return fmt.Errorf("set category: %w", err)
		}
		out = CategorySetting{Category: r.Category, Supersedes: r.Supersedes, Description: r.Description,
			UpdatedAt: r.UpdatedAt, UpdatedBy: r.UpdatedBy}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "category.update", targetType: "category", targetID: category,
			before: map[string]any{"supersedes": was}, after: map[string]any{"supersedes": supersedes}, reason: reason,
		})
	})
	return out, err
}
