package memory

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// factIndexes returns the definitions of entity_facts' indexes.
func (fx *fixture) factIndexes(t *testing.T) []string {
	t.Helper()
	rows, err := fx.pool.Query(context.Background(),
		`SELECT indexdef FROM pg_indexes WHERE tablename = 'entity_facts' ORDER BY indexname`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var defs []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		defs = append(defs, d)
	}
	return defs
}

// TestImportRebuildsIndexesOfASmallTable: an import larger than the facts
// table writes without the secondary indexes and builds them again, the
// same ones, in its transaction; a cancel while they are rebuilt leaves the
// table and its indexes as they were; an import into a table at least its
// size maintains them as it goes.
func TestImportRebuildsIndexesOfASmallTable(t *testing.T) {
	defer func(n int) { bulkImportMin = n }(bulkImportMin)
	bulkImportMin = 100
	fx := newFixture(t)
	before := fx.factIndexes(t)
	if len(before) < 10 {
		t.Fatalf("entity_facts has %d indexes, want the schema's", len(before))
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, err := fx.s.ImportStream(ctx, System("import"), generated(300, nil), ImportOptions{Progress: func(p ImportProgress) {
		if p.Phase == ImportPhaseIndex && p.Done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("import cancelled while rebuilding = %v, want context.Canceled", err)
	}
	if w := fx.written(t); w != 0 {
		t.Fatalf("a cancelled import wrote %d rows", w)
	}
	if after := fx.factIndexes(t); !slices.Equal(after, before) {
		t.Fatalf("after a cancelled import the indexes are\n%v\nwant\n%v", after, before)
	}

	var phases []string
	report, err := fx.s.ImportStream(context.Background(), System("import"), generated(300, nil), ImportOptions{
		Progress: func(p ImportProgress) {
			if p.Phase == ImportPhaseIndex {
				phases = append(phases, p.Phase)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !report.IndexesRebuilt || report.Facts != 300 || len(phases) != len(before)-1 {
		t.Errorf("report = %+v after %d index steps, want 300 facts with %d indexes rebuilt", report, len(phases), len(before)-1)
	}
	if after := fx.factIndexes(t); !slices.Equal(after, before) {
		t.Errorf("after the import the indexes are\n%v\nwant\n%v", after, before)
	}
	// The rebuilt indexes answer: a recall through them finds the facts.
	res, err := fx.s.Recall(context.Background(), RecallQuery{Scope: "s1", Query: "fact"})
	if err != nil || len(res) != 10 {
		t.Errorf("recall after the import = %d results, %v; want 10", len(res), err)
	}

	// 200 more into a table of 300: the indexes are maintained.
	report, err = fx.s.ImportStream(context.Background(), System("import"), generatedFrom(301, 200), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if report.IndexesRebuilt || report.Facts != 200 {
		t.Errorf("second report = %+v, want 200 facts and no rebuild", report)
	}
}

// generatedFrom yields n lines like generated's, numbered from first.
func generatedFrom(first, n int) func(func(ImportLine, error) bool) {
	return func(yield func(ImportLine, error) bool) {
		for l, err := range generated(first+n-1, nil) {
			if l.Line < first {
				continue
			}
			l.Line -= first - 1
			if !yield(l, err) {
				return
			}
		}
	}
}
