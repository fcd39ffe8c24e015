package bench

import (
	"encoding/xml"
	"math/rand/v2"
	"strings"
	"testing"
)

func curveReport(recall, brief, rate float64) Report {
	return Report{Results: []Result{
		{Workload: "recall p95 (100 queries)", Unit: "ms", Tenure: recall},
		{Workload: "recall p95, Zipf vocabulary: one word (10 queries, 3.0 live matches each on average)", Unit: "ms", Tenure: recall / 4},
		{Workload: "context brief p95 (30 briefs)", Unit: "ms", Tenure: brief},
		{Workload: "facts page, all filters, p99 (300 requests)", Unit: "ms", Tenure: 9},
		{Workload: "decay tick, 1000 due", Unit: "ms", Tenure: 60},
		{Workload: "consolidation, 100000 promoted (whole run 5s)", Unit: "rows/s", Tenure: rate},
	}}
}

// TestCurveTable: a row per metric, a column per size, the growth from the
// smallest size to the largest, and a dash where a run lacks the figure.
func TestCurveTable(t *testing.T) {
	points := []CurvePoint{
		{Facts: 100000, Report: curveReport(5, 8, 21000)},
		{Facts: 1000000, Report: curveReport(10, 9, 20000)},
		{Facts: 5000000, Report: curveReport(20, 10, 19000)},
	}
	var b strings.Builder
	if err := WriteCurveTable(&b, points); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, want := range []string{
		"| workload | 100k facts | 1M facts | 5M facts | largest ÷ smallest |",
		"| recall p95, dense vocabulary (all shapes) (ms) | 5.00 | 10.00 | 20.00 | 4.00× |",
		"| context brief p95 (ms) | 8.00 | 9.00 | 10.00 | 1.25× |",
		"| consolidation (rows/s) | 21000 | 20000 | 19000 | 0.90× |",
		"| recall p95, Zipf vocabulary: a or b (ms) | – | – | – | – |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// TestCurveSVG: the plot is well-formed SVG with a line per latency metric
// that has figures, a point per size, and the rate's own line.
func TestCurveSVG(t *testing.T) {
	points := []CurvePoint{
		{Facts: 100000, Report: curveReport(5, 8, 21000)},
		{Facts: 1000000, Report: curveReport(10, 9, 20000)},
		{Facts: 5000000, Report: curveReport(20, 10, 19000)},
	}
	svg := CurveSVG(points)
	var doc struct {
		XMLName   xml.Name `xml:"svg"`
		Polylines []struct {
			Points string `xml:"points,attr"`
		} `xml:"polyline"`
		Circles []struct {
			Title string `xml:"title"`
		} `xml:"circle"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("not well-formed SVG: %v\n%s", err, svg)
	}
	// recall, Zipf one word, brief, page, decay: five latency lines, and the
	// rate's line.
	if len(doc.Polylines) != 6 {
		t.Errorf("%d lines, want 6", len(doc.Polylines))
	}
	for _, l := range doc.Polylines {
		if n := len(strings.Fields(l.Points)); n != 3 {
			t.Errorf("line %q has %d points, want one per size", l.Points, n)
		}
	}
	if len(doc.Circles) != 18 || !strings.Contains(svg, "recall p95, dense vocabulary (all shapes) at 5M facts: 20.00 ms") {
		t.Errorf("%d points, want 18 with their figures", len(doc.Circles))
	}
}

// TestZipfVocabulary: 20,000 distinct words, drawn by Zipf's law: the most
// common word far more often than one ranked a thousandth, and most words
// rare.
func TestZipfVocabulary(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range zipfVocabulary {
		if seen[w] {
			t.Fatalf("word %q twice", w)
		}
		seen[w] = true
	}
	if len(seen) != ZipfWords {
		t.Fatalf("%d words, want %d", len(seen), ZipfWords)
	}
	z := newZipfSource(rand.New(rand.NewPCG(1, 2)))
	counts := map[string]int{}
	const draws = 200000
	for range draws {
		counts[z.word()]++
	}
	first, thousandth := counts[zipfVocabulary[0]], counts[zipfVocabulary[999]]
	if first < 50*max(thousandth, 1) {
		t.Errorf("the commonest word drawn %d times, the 1000th %d: want Zipf's skew", first, thousandth)
	}
	if len(counts) < ZipfWords/4 {
		t.Errorf("%d distinct words in %d draws: want a long tail", len(counts), draws)
	}
}
