package components

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

var plotNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// element is a parsed SVG element with its attributes and text.
type element struct {
	name  string
	attrs map[string]string
	text  string
	// testid is the data-testid of the element or of its nearest ancestor.
	testid string
}

// parseSVG renders the plot and parses it as XML, failing on anything that
// is not well-formed.
func parseSVG(t *testing.T, points []PlotPoint, now time.Time, floor float64, label string) (string, []element) {
	t.Helper()
	var buf bytes.Buffer
	if err := ConfidencePlot(points, now, floor, label).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return parseSVGString(t, buf.String())
}

// parseSVGString parses a rendered plot as XML, failing on anything that is
// not well-formed.
func parseSVGString(t *testing.T, out string) (string, []element) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(out))
	dec.Strict = true
	var (
		els   []element
		stack []int // indexes into els of the open elements
		ids   []string
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("plot is not well-formed XML: %v\n%s", err, out)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			id := e.attrs["data-testid"]
			if id == "" && len(ids) > 0 {
				id = ids[len(ids)-1]
			}
			e.testid = id
			ids = append(ids, id)
			els = append(els, e)
			stack = append(stack, len(els)-1)
		case xml.EndElement:
			stack, ids = stack[:len(stack)-1], ids[:len(ids)-1]
		case xml.CharData:
			for _, i := range stack {
				els[i].text += string(tok)
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("plot leaves %d elements open", len(stack))
	}
	if len(els) == 0 || els[0].name != "svg" {
		t.Fatalf("plot's root is not <svg>: %s", out)
	}
	return out, els
}

func find(els []element, name, testid string) []element {
	var out []element
	for _, e := range els {
		if e.name == name && e.testid == testid {
			out = append(out, e)
		}
	}
	return out
}

func attrFloat(t *testing.T, e element, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attrs[name], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", e.name, name, e.attrs[name], err)
	}
	return v
}

// pathPoints reads the coordinates of an "M x,y L x,y ..." path.
func pathPoints(t *testing.T, d string) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, part := range strings.Fields(d) {
		part = strings.TrimLeft(part, "ML")
		xs, ys, ok := strings.Cut(part, ",")
		if !ok {
			t.Fatalf("path part %q is not x,y", part)
		}
		x, err1 := strconv.ParseFloat(xs, 64)
		y, err2 := strconv.ParseFloat(ys, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("path part %q is not numeric", part)
		}
		out = append(out, [2]float64{x, y})
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.06 }

func decaying() []PlotPoint {
	// A fact at 80% halving every 10 days, confirmed 20 days before now,
	// sampled from its confirmation to 40 days after it.
	from := plotNow.Add(-20 * day)
	var pts []PlotPoint
	for i := 0; i <= 40; i += 4 {
		pts = append(pts, PlotPoint{At: from.Add(time.Duration(i) * day), Value: 0.8 * math.Pow(2, -float64(i)/10)})
	}
	return pts
}

func TestConfidencePlotMapsPoints(t *testing.T) {
	pts := decaying()
	_, els := parseSVG(t, pts, plotNow, 0.1, "Confidence 20% now")
	curves := find(els, "path", "plot-curve")
	if len(curves) != 1 {
		t.Fatalf("plot has %d curves, want 1", len(curves))
	}
	got := pathPoints(t, curves[0].attrs["d"])
	if len(got) != len(pts) {
		t.Fatalf("curve has %d points, want %d", len(got), len(pts))
	}
	for i, p := range pts {
		frac := p.At.Sub(pts[0].At).Seconds() / pts[len(pts)-1].At.Sub(pts[0].At).Seconds()
		wantX := plotLeft + frac*plotInnerW
		wantY := plotTop + (1-p.Value)*plotInnerH
		if !near(got[i][0], wantX) || !near(got[i][1], wantY) {
			t.Errorf("point %d (%s, %.3f) drawn at %v, want (%.1f, %.1f)", i, p.At.Format(time.DateOnly), p.Value, got[i], wantX, wantY)
		}
	}
	if got[0][0] != plotLeft || got[len(got)-1][0] != plotLeft+plotInnerW {
		t.Errorf("curve spans x %v to %v, want the full plot width %d to %d", got[0][0], got[len(got)-1][0], plotLeft, plotLeft+plotInnerW)
	}

	floor := find(els, "line", "plot-floor")
	if len(floor) != 1 {
		t.Fatalf("plot has %d floor lines, want 1", len(floor))
	}
	if y := attrFloat(t, floor[0], "y1"); !near(y, plotTop+0.9*plotInnerH) {
		t.Errorf("floor 10%% drawn at y %v, want %v", y, plotTop+0.9*plotInnerH)
	}
	if floor[0].attrs["stroke-dasharray"] == "" {
		t.Error("floor line is not dashed")
	}

	var labels []string
	for _, e := range find(els, "text", "plot-y-axis") {
		labels = append(labels, e.text)
	}
	if strings.Join(labels, " ") != "0% 25% 50% 75% 100%" {
		t.Errorf("y axis labels = %q, want 0%% to 100%% in quarters", labels)
	}
	dates := find(els, "text", "plot-x-axis")
	if len(dates) != 5 || dates[0].text != "10 Nov" || dates[4].text != "20 Dec" {
		t.Errorf("x axis labels = %v, want 5 dates from 10 Nov to 20 Dec", dates)
	}
}

func TestConfidencePlotNowMarker(t *testing.T) {
	pts := decaying()
	_, els := parseSVG(t, pts, plotNow, 0.1, "label")
	lines := find(els, "line", "plot-now")
	if len(lines) != 1 {
		t.Fatalf("plot has %d now lines, want 1", len(lines))
	}
	// Now is 20 of 40 days in: the middle of the plot.
	wantX := plotLeft + plotInnerW/2.0
	if x1, x2 := attrFloat(t, lines[0], "x1"), attrFloat(t, lines[0], "x2"); !near(x1, wantX) || x1 != x2 {
		t.Errorf("now line at x %v..%v, want vertical at %v", x1, x2, wantX)
	}
	dot := find(els, "circle", "plot-now")
	if len(dot) != 1 {
		t.Fatalf("plot has %d now dots, want 1", len(dot))
	}
	// 20 days at a 10-day half-life: 80% -> 20%.
	if cy := attrFloat(t, dot[0], "cy"); !near(cy, plotTop+0.8*plotInnerH) {
		t.Errorf("now dot at y %v, want %v (20%%)", cy, plotTop+0.8*plotInnerH)
	}
	text := find(els, "text", "plot-now")
	if len(text) != 1 || text[0].text != "now 20%" {
		t.Errorf("now label = %v, want \"now 20%%\"", text)
	}

	t.Run("outside the span", func(t *testing.T) {
		_, els := parseSVG(t, pts, plotNow.Add(100*day), 0.1, "label")
		if n := len(find(els, "line", "plot-now")); n != 0 {
			t.Errorf("now after the plotted span: %d now lines, want none", n)
		}
	})
}

func TestConfidencePlotNeverDecays(t *testing.T) {
	from := plotNow.Add(-10 * day)
	pts := []PlotPoint{{At: from, Value: 1}, {At: from.Add(30 * day), Value: 1}, {At: from.Add(60 * day), Value: 1}}
	_, els := parseSVG(t, pts, plotNow, 0.1, "Confidence 100% now, never forgotten")
	curves := find(els, "path", "plot-curve")
	if len(curves) != 1 {
		t.Fatalf("plot has %d curves, want 1", len(curves))
	}
	for _, p := range pathPoints(t, curves[0].attrs["d"]) {
		if p[1] != plotTop {
			t.Errorf("a confidence that never decays is drawn at y %v, want flat at the top %d", p[1], plotTop)
		}
	}
	if n := len(find(els, "line", "plot-now")); n != 1 {
		t.Errorf("%d now lines, want 1", n)
	}
}

func TestConfidencePlotEscapesAndLabels(t *testing.T) {
	label := `Confidence <b>64%</b> now & "soon" forgotten`
	out, els := parseSVG(t, decaying(), plotNow, 0.1, label)
	if strings.Contains(out, "<b>") {
		t.Error("label rendered as markup")
	}
	if got := els[0].attrs["aria-label"]; got != label {
		t.Errorf("aria-label = %q, want %q", got, label)
	}
	if got := els[0].attrs["role"]; got != "img" {
		t.Errorf("role = %q, want img", got)
	}
	titles := find(els, "title", "confidence-plot")
	if len(titles) != 1 || titles[0].text != label {
		t.Errorf("title = %v, want %q", titles, label)
	}
}

func TestConfidencePlotDegenerateInput(t *testing.T) {
	for name, pts := range map[string][]PlotPoint{
		"no points":    nil,
		"one point":    {{At: plotNow, Value: 0.5}},
		"out of range": {{At: plotNow.Add(-day), Value: 1.7}, {At: plotNow.Add(day), Value: -0.2}},
	} {
		t.Run(name, func(t *testing.T) {
			_, els := parseSVG(t, pts, plotNow, 0.1, name)
			for _, c := range find(els, "path", "plot-curve") {
				for _, p := range pathPoints(t, c.attrs["d"]) {
					if math.IsNaN(p[0]) || math.IsNaN(p[1]) || p[1] < plotTop || p[1] > plotTop+plotInnerH {
						t.Errorf("point %v lies outside the plot area", p)
					}
				}
			}
		})
	}
}

func TestConfidencePlotDateTicks(t *testing.T) {
	tests := []struct {
		span        time.Duration
		first, last string
		n           int
	}{
		{40 * day, "10 Nov", "20 Dec", 5},
		{2 * 365 * day, "Nov 2026", "Nov 2028", 4},
		{36 * time.Hour, "30 Nov 12:00", "2 Dec 00:00", 4},
	}
	for _, tt := range tests {
		from := plotNow
		if tt.span == 40*day {
			from = plotNow.Add(-20 * day)
		}
		pts := []PlotPoint{{At: from, Value: 0.9}, {At: from.Add(tt.span), Value: 0.2}}
		_, els := parseSVG(t, pts, plotNow, 0.1, "label")
		dates := find(els, "text", "plot-x-axis")
		if len(dates) != tt.n || dates[0].text != tt.first || dates[len(dates)-1].text != tt.last {
			var got []string
			for _, d := range dates {
				got = append(got, d.text)
			}
			t.Errorf("span %s: x labels = %q, want %d from %q to %q", tt.span, got, tt.n, tt.first, tt.last)
		}
	}
}

// TestConfidencePlotPiecewiseAxis: with a break, the to-scale part spans the
// left 70% of the width and the compressed part the rest, shaded and
// labelled, with a break mark; the last date reaches the last point.
func TestConfidencePlotPiecewiseAxis(t *testing.T) {
	from := plotNow.Add(-30 * day)
	brk := from.Add(365 * day)
	end := from.Add(32 * 365 * day)
	pts := []PlotPoint{{At: from, Value: 0.95}, {At: plotNow, Value: 0.94}, {At: brk, Value: 0.9}, {At: end, Value: 0.1}}
	forget := PlotMarker{At: end, Label: "forgotten", TestID: "plot-forget", Danger: true}
	_, els := parseSVGWith(t, pts, plotNow, 0.1, "label", PlotOptions{Break: brk, Markers: []PlotMarker{forget}})
	got := pathPoints(t, find(els, "path", "plot-curve")[0].attrs["d"])
	split := plotLeft + defaultBreakShare*plotInnerW
	wantX := []float64{plotLeft, plotLeft + 30.0/365*(split-plotLeft), split, plotLeft + plotInnerW}
	for i := range pts {
		if !near(got[i][0], wantX[i]) {
			t.Errorf("point %d drawn at x %v, want %v", i, got[i][0], wantX[i])
		}
	}
	if band := find(els, "rect", "plot-break"); len(band) != 1 || !near(attrFloat(t, band[0], "x"), split) {
		t.Errorf("compressed band = %v, want one starting at %v", band, split)
	}
	if txt := find(els, "text", "plot-break"); len(txt) != 1 || txt[0].text != "compressed" {
		t.Errorf("compressed label = %v", txt)
	}
	dates := find(els, "text", "plot-x-axis")
	if len(dates) != 4 || dates[len(dates)-1].text != end.Format("Jan 2006") {
		t.Errorf("x labels = %v, want 4 ending with %s", dates, end.Format("Jan 2006"))
	}
	marker := find(els, "line", "plot-forget")
	if len(marker) != 1 || !near(attrFloat(t, marker[0], "x1"), plotLeft+plotInnerW) {
		t.Errorf("forget marker = %v, want it at the right edge", marker)
	}
	if label := find(els, "text", "plot-forget"); len(label) != 1 || label[0].text != "forgotten" || label[0].attrs["text-anchor"] != "end" {
		t.Errorf("forget label = %v", label)
	}
	if dot := find(els, "circle", "plot-forget"); len(dot) != 1 || !near(attrFloat(t, dot[0], "cy"), plotTop+0.9*plotInnerH) {
		t.Errorf("forget dot = %v, want it on the floor", dot)
	}
	if n := len(find(els, "line", "plot-now")); n != 1 {
		t.Errorf("%d now lines, want 1", n)
	}

	t.Run("break outside the span is ignored", func(t *testing.T) {
		_, els := parseSVGWith(t, decaying(), plotNow, 0.1, "label", PlotOptions{Break: plotNow.Add(400 * day)})
		if n := len(find(els, "rect", "plot-break")); n != 0 {
			t.Errorf("%d compressed bands, want none", n)
		}
	})
}

func parseSVGWith(t *testing.T, points []PlotPoint, now time.Time, floor float64, label string, opts PlotOptions) (string, []element) {
	t.Helper()
	var buf bytes.Buffer
	if err := ConfidencePlotWith(points, now, floor, label, opts).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return parseSVGString(t, buf.String())
}
