package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// CurvePoint is one run of the workloads at a store size.
type CurvePoint struct {
	Facts  int    `json:"facts"`
	Report Report `json:"report"`
}

// curveMetric is one line of the growth curve: a workload's figure read
// from each run's results by the start of its name.
type curveMetric struct {
	name    string
	unit    string
	prefix  string
	latency bool // plotted on the latency chart (ms); otherwise a rate
}

var curveMetrics = []curveMetric{
	{"recall p95, dense vocabulary (all shapes)", "ms", "recall p95 (", true},
	{"recall p95, Zipf vocabulary: one word", "ms", "recall p95, Zipf vocabulary: one word", true},
	{"recall p95, Zipf vocabulary: a or b", "ms", "recall p95, Zipf vocabulary: a or b", true},
	{"context brief p95", "ms", "context brief p95", true},
	{"facts page p99, all filters", "ms", "facts page, all filters, p99", true},
	{"decay tick, 1,000 due", "ms", "decay tick,", true},
	{"consolidation", "rows/s", "consolidation,", false},
}

func (m curveMetric) value(r Report) (float64, bool) {
	for _, res := range r.Results {
		if strings.HasPrefix(res.Workload, m.prefix) {
			return res.Tenure, true
		}
	}
	return 0, false
}

// WriteCurveTable writes the curve as a Markdown table: a row per metric, a
// column per store size, and how much the figure grew from the smallest
// size to the largest.
func WriteCurveTable(w io.Writer, points []CurvePoint) error {
	var b strings.Builder
	b.WriteString("| workload |")
	for _, p := range points {
		fmt.Fprintf(&b, " %s facts |", countLabel(p.Facts))
	}
	b.WriteString(" largest ÷ smallest |\n|---|")
	for range points {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, m := range curveMetrics {
		fmt.Fprintf(&b, "| %s (%s) |", m.name, m.unit)
		var first, last float64
		for i, p := range points {
			v, ok := m.value(p.Report)
			if !ok {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %s |", num(v))
			if i == 0 {
				first = v
			}
			last = v
		}
		if first > 0 && last > 0 {
			fmt.Fprintf(&b, " %.2f× |\n", last/first)
		} else {
			b.WriteString(" – |\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// countLabel writes 100000 as 100k and 5000000 as 5M.
func countLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// curveColors tell the lines apart; the latency metrics take them in order.
var curveColors = []string{"#1f77b4", "#2ca02c", "#17becf", "#d62728", "#9467bd", "#8c564b", "#ff7f0e"}

// CurveSVG draws the curve: latencies (ms, logarithmic) against the number
// of facts (logarithmic) on the left, consolidation's rate on the right. A
// flat line is work that does not grow with the store.
func CurveSVG(points []CurvePoint) string {
	const (
		width, height   = 960, 420
		left, top       = 70, 40
		plotW, plotH    = 520, 300
		rateLeft        = 690
		rateW           = 220
		legendX         = left
		legendY         = top + plotH + 45
		fontFamily      = "font-family=\"sans-serif\""
		axisColor       = "#444"
		gridColor       = "#ddd"
		latencyMinFloor = 0.5
	)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="12">`+"\n",
		width, height+40, width, height+40, fontFamily)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	if len(points) == 0 {
		b.WriteString("</svg>\n")
		return b.String()
	}
	minF, maxF := math.Inf(1), math.Inf(-1)
	for _, p := range points {
		minF, maxF = math.Min(minF, float64(p.Facts)), math.Max(maxF, float64(p.Facts))
	}
	if minF == maxF {
		minF, maxF = minF/2, maxF*2
	}
	xOf := func(facts float64, x0, w float64) float64 {
		return x0 + (math.Log10(facts)-math.Log10(minF))/(math.Log10(maxF)-math.Log10(minF))*w
	}
	// Latency scale: logarithmic over the decades the values span.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range curveMetrics {
		if !m.latency {
			continue
		}
		for _, p := range points {
			if v, ok := m.value(p.Report); ok && v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	lo = math.Pow(10, math.Floor(math.Log10(math.Max(lo, latencyMinFloor))))
	hi = math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi <= lo {
		hi = lo * 10
	}
	yOf := func(v float64) float64 {
		return top + plotH - (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*plotH
	}
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">Latency against store size (both axes logarithmic)</text>`+"\n", left)
	for d := lo; d <= hi*1.0001; d *= 10 {
		y := yOf(d)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`+"\n", left, y, left+plotW, y, gridColor)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s ms</text>`+"\n", left-6, y+4, num(d))
	}
	for _, p := range points {
		x := xOf(float64(p.Facts), left, plotW)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", x, top, x, top+plotH, gridColor)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s facts</text>`+"\n", x, top+plotH+18, countLabel(p.Facts))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s"/>`+"\n", left, top, plotW, plotH, axisColor)
	color := 0
	legend := 0
	for _, m := range curveMetrics {
		if !m.latency {
			continue
		}
		c := curveColors[color%len(curveColors)]
		color++
		var pts []string
		for _, p := range points {
			if v, ok := m.value(p.Report); ok && v > 0 {
				x, y := xOf(float64(p.Facts), left, plotW), yOf(v)
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s at %s facts: %s ms</title></circle>`+"\n",
					x, y, c, m.name, countLabel(p.Facts), num(v))
			}
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), c)
		}
		lx, ly := legendX+(legend%2)*320, legendY+(legend/2)*18
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/><text x="%d" y="%d">%s</text>`+"\n",
			lx, ly-4, lx+20, ly-4, c, lx+26, ly, m.name)
		legend++
	}

	// Consolidation's rate, linear from zero.
	var rates []float64
	var rate curveMetric
	for _, m := range curveMetrics {
		if !m.latency {
			rate = m
		}
	}
	maxRate := 0.0
	for _, p := range points {
		v, _ := rate.value(p.Report)
		rates = append(rates, v)
		maxRate = math.Max(maxRate, v)
	}
	if maxRate == 0 {
		maxRate = 1
	}
	step := math.Pow(10, math.Floor(math.Log10(maxRate)))
	top2 := math.Ceil(maxRate/step) * step
	ry := func(v float64) float64 { return top + plotH - v/top2*plotH }
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">Consolidation (rows/s)</text>`+"\n", rateLeft)
	for v := 0.0; v <= top2*1.0001; v += step {
		y := ry(v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`+"\n", rateLeft, y, rateLeft+rateW, y, gridColor)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", rateLeft-6, y+4, num(v))
	}
	var pts []string
	for i, p := range points {
		x := xOf(float64(p.Facts), rateLeft, rateW)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, top+plotH+18, countLabel(p.Facts))
		if rates[i] > 0 {
			y := ry(rates[i])
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="#ff7f0e"><title>%s facts: %s rows/s</title></circle>`+"\n",
				x, y, countLabel(p.Facts), num(rates[i]))
		}
	}
	if len(pts) > 1 {
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#ff7f0e" stroke-width="2"/>`+"\n", strings.Join(pts, " "))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s"/>`+"\n", rateLeft, top, rateW, plotH, axisColor)
	b.WriteString("</svg>\n")
	return b.String()
}
