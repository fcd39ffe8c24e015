package memory

import (
	"context"
	"fmt"
)

// PurgeTombstones deletes the tombstones kept past their 30 days; restored
// ones were already brought back and are kept as a record.
func (s *Store) PurgeTombstones(ctx context.Context) (int, error) {
	n, err := s.q.PurgeTombstones(ctx, s.Now())
	if err != nil {
		return 0, fmt.Errorf("purge tombstones: %w", err)
	}
	return int(n), nil
}
