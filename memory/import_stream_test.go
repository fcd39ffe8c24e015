package memory

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// generated yields n import lines, produced one at a time as a file reader
// would; bad(i) makes line i (1-based) lack its content.
func generated(n int, bad func(int) bool) iter.Seq2[ImportLine, error] {
	return func(yield func(ImportLine, error) bool) {
		for i := 1; i <= n; i++ {
			f := TransferFact{Scope: fmt.Sprintf("s%d", i%3), Entity: fmt.Sprintf("e%d", i%50),
				Content: fmt.Sprintf("Fact %d.", i), Durability: "long_term", Category: "observation"}
			if bad != nil && bad(i) {
				f.Content = ""
			}
			if !yield(ImportLine{Line: i, Mapping: MappingAxes, Fact: f}, nil) {
				return
			}
		}
	}
}

func (fx *fixture) written(t *testing.T) int {
	t.Helper()
	return fx.count(t, `SELECT count(*) FROM entity_facts`) + fx.count(t, `SELECT count(*) FROM entities`) +
		fx.count(t, `SELECT count(*) FROM audit_log`)
}

func TestImportStreamAllOrNothing(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	const n = 30000
	badLines := map[int]bool{1: true, n / 2: true, n: true}
	_, err := fx.s.ImportStream(ctx, System("import"), generated(n, func(i int) bool { return badLines[i] }), ImportOptions{})
	ie := AsError(err)
	if ie == nil || len(ie.Problems) != 3 {
		t.Fatalf("ImportStream with 3 bad lines = %v, want them named", err)
	}
	for i, want := range []int{1, n / 2, n} {
		if p := ie.Problems[i]; p.Line != want || p.Field != "content" {
			t.Errorf("problem %d = %+v, want line %d, field content", i, p, want)
		}
	}
	if !strings.Contains(ie.Message, "3 lines are invalid") {
		t.Errorf("summary = %q", ie.Message)
	}
	if w := fx.written(t); w != 0 {
		t.Fatalf("a refused stream wrote %d rows", w)
	}

	var phases []string
	report, err := fx.s.ImportStream(ctx, System("import"), generated(n, nil), ImportOptions{Progress: func(p ImportProgress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
	}})
	if err != nil || report.Lines != n || report.Facts != n || report.EntitiesCreated != 150 || report.ByMapping[MappingAxes] != n {
		t.Fatalf("ImportStream = %+v, %v", report, err)
	}
	if got := strings.Join(phases, ","); got != "read,check,write,merge,supersede,done" {
		t.Errorf("progress phases = %s", got)
	}
	// The facts keep the order of the file.
	if n := fx.count(t, `SELECT count(*) FROM (SELECT id, content, lag(id) OVER (ORDER BY (substring(content from 6 for length(content) - 6))::int) AS prev FROM entity_facts) x WHERE prev > id`); n != 0 {
		t.Errorf("%d facts out of the file's order", n)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.import'`); n != 1 {
		t.Errorf("%d import audit rows, want 1", n)
	}
}

func TestImportStreamCapsProblems(t *testing.T) {
	fx := newFixture(t)
	_, err := fx.s.ImportStream(context.Background(), System("import"), generated(100, func(i int) bool { return i%10 == 0 }),
		ImportOptions{MaxProblems: 4})
	ie := AsError(err)
	if ie == nil || len(ie.Problems) != 4 || ie.Problems[3].Line != 40 ||
		!strings.Contains(ie.Message, "10 lines are invalid; the first 4 problems are listed, 6 more are not") {
		t.Fatalf("ImportStream = %v, want 4 problems listed and 6 more counted", err)
	}
}

func TestImportStreamCancelAndReadErrorLeaveNothing(t *testing.T) {
	fx := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	lines := func(yield func(ImportLine, error) bool) {
		for l, err := range generated(50000, nil) {
			if l.Line == 25000 {
				cancel()
			}
			if !yield(l, err) {
				return
			}
		}
	}
	if _, err := fx.s.ImportStream(ctx, System("import"), lines, ImportOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled import = %v, want context.Canceled", err)
	}
	if w := fx.written(t); w != 0 {
		t.Fatalf("a cancelled import wrote %d rows", w)
	}

	broken := errors.New("disk gone")
	lines = func(yield func(ImportLine, error) bool) {
		for l, err := range generated(20000, nil) {
			if l.Line == 15000 {
				yield(ImportLine{}, broken)
				return
			}
			if !yield(l, err) {
				return
			}
		}
	}
	if _, err := fx.s.ImportStream(context.Background(), System("import"), lines, ImportOptions{}); !errors.Is(err, broken) {
		t.Errorf("import of a failing reader = %v, want its error", err)
	}
	if w := fx.written(t); w != 0 {
		t.Fatalf("an import that could not read its file wrote %d rows", w)
	}
	// The store still imports afterwards (the connection came back clean).
	if _, err := fx.s.ImportStream(context.Background(), System("import"), generated(10, nil), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkImportStreamMemory imports b.N generated lines and reports the
// heap in use at the end of reading (the staging phase) and the peak of
// the Go heap: it stays flat as b.N grows, because no line is kept.
//
//	go test ./memory/ -run '^$' -bench ImportStreamMemory -benchtime 200000x
func BenchmarkImportStreamMemory(b *testing.B) {
	s := NewStore(pgtest.NewPool(b), Options{Now: func() time.Time { return fxStart }})
	var peak uint64
	var ms runtime.MemStats
	sample := func(ImportProgress) {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	b.ResetTimer()
	start := time.Now()
	report, err := s.ImportStream(context.Background(), System("import"), generated(b.N, nil), ImportOptions{Progress: sample})
	if err != nil || report.Facts != b.N {
		b.Fatalf("ImportStream = %+v, %v", report, err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "lines/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
