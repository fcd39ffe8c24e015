package components

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// chartElement is a parsed element of the chart's markup.
type chartElement struct {
	name  string
	attrs map[string]string
	text  string // the character data directly inside
}

// parseChartXML checks that markup is well-formed XML and returns its
// elements in document order.
func parseChartXML(t *testing.T, markup string) []*chartElement {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(markup))
	d.Strict = true
	var out []*chartElement
	var stack []*chartElement
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chart markup is not well-formed XML: %v\n%s", err, markup)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &chartElement{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("chart markup leaves %d elements open", len(stack))
	}
	return out
}

func chartFind(elems []*chartElement, name, attr, value string) []*chartElement {
	var out []*chartElement
	for _, e := range elems {
		if e.name == name && (attr == "" || e.attrs[attr] == value) {
			out = append(out, e)
		}
	}
	return out
}

func chartAttr(t *testing.T, e *chartElement, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attrs[name], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", e.name, name, e.attrs[name], err)
	}
	return v
}

var testSeries = []BarSeries{
	{Name: "transient", Color: "var(--m-transient-fg, #8c3a0c)"},
	{Name: "expired", Color: "var(--m-expired-fg, #575f69)"},
	{Name: "decision_locked", Color: "#c9363d"},
}

func TestStackedBarSVGHeightsAreProportional(t *testing.T) {
	chart := StackedBarChart{
		ID: "rejections-chart", Title: "Refusals per run", Description: "Stacked by reason.",
		Category: "Run", Unit: "refusals", Series: testSeries,
		Bars: []BarGroup{
			{Label: "#1", Title: "Run 1", Values: []int{4, 2, 0}},
			{Label: "#2", Title: "Run 2", Values: []int{0, 0, 0}},
			{Label: "#3", Title: "Run 3", Values: []int{1, 0, 3}},
			{Label: "#4", Title: "Run 4", Values: []int{8, 0, 0}},
		},
	}
	elems := parseChartXML(t, StackedBarSVG(chart))

	svg := chartFind(elems, "svg", "role", "img")
	if len(svg) != 1 || svg[0].attrs["role"] != "img" || svg[0].attrs["aria-labelledby"] != "rejections-chart-title rejections-chart-desc" {
		t.Fatalf("svg = %+v, want one role=img labelled by its title and description", svg)
	}
	if title := chartFind(elems, "title", "id", "rejections-chart-title"); len(title) != 1 || title[0].text != "Refusals per run" {
		t.Errorf("chart title = %+v, want Refusals per run", title)
	}

	rects := chartFind(elems, "rect", "data-series", "transient")
	rects = append(rects, chartFind(elems, "rect", "data-series", "expired")...)
	rects = append(rects, chartFind(elems, "rect", "data-series", "decision_locked")...)
	if len(rects) != 5 {
		t.Fatalf("%d bar segments, want 5 (zero values draw none)", len(rects))
	}
	// Height per unit must be the same for every segment.
	top, _ := BarScale(8)
	perUnit := float64(barChartInnerH) / float64(top)
	for _, r := range rects {
		v := chartAttr(t, r, "data-value")
		h := chartAttr(t, r, "height")
		if math.Abs(h-v*perUnit) > 0.01 {
			t.Errorf("segment %s=%v has height %v, want %v (proportional)", r.attrs["data-series"], v, h, v*perUnit)
		}
	}
	// The tallest bar (8) reaches the top of the axis; segments stack.
	tall := chartFind(elems, "rect", "data-value", "8")
	if len(tall) != 1 || math.Abs(chartAttr(t, tall[0], "y")-barChartTop) > 0.01 {
		t.Errorf("the bar of 8 starts at y=%v, want the top of the plot %d", tall[0].attrs["y"], barChartTop)
	}
	run1 := chartFind(elems, "rect", "x", chartFind(elems, "rect", "data-value", "4")[0].attrs["x"])
	if len(run1) != 2 {
		t.Fatalf("run 1 has %d segments, want 2", len(run1))
	}
	lower, upper := run1[0], run1[1]
	if math.Abs(chartAttr(t, upper, "y")+chartAttr(t, upper, "height")-chartAttr(t, lower, "y")) > 0.01 {
		t.Errorf("run 1's expired segment does not sit on its transient segment: %v, %v", lower.attrs, upper.attrs)
	}

	bars := chartFind(elems, "g", "data-testid", "chart-bar")
	if len(bars) != 4 || bars[3].attrs["data-total"] != "8" {
		t.Errorf("%d bars (last total %q), want 4 with the last totalling 8", len(bars), bars[len(bars)-1].attrs["data-total"])
	}
	tips := chartFind(elems, "title", "", "")
	if !strings.Contains(tips[1].text, "Run 1: 4 transient, 2 expired, 0 decision_locked (6 refusals)") {
		t.Errorf("first bar's tooltip = %q", tips[1].text)
	}
	var legend []string
	for _, e := range chartFind(elems, "span", "class", "nowrap") {
		legend = append(legend, strings.TrimSpace(e.text))
	}
	if strings.Join(legend, ",") != "transient,expired,decision_locked" {
		t.Errorf("legend = %q, want the three series", legend)
	}
	if len(chartFind(elems, "div", "data-testid", "chart-legend")) != 1 {
		t.Error("no legend")
	}
	swatches := chartFind(elems, "rect", "fill", "var(--m-transient-fg, #8c3a0c)")
	if len(swatches) != 4 || swatches[0].attrs["data-series"] != "" {
		t.Errorf("%d rects in transient's colour, want its legend swatch and its three segments", len(swatches))
	}

	// The table alternative carries every number.
	table := chartFind(elems, "table", "class", "visually-hidden")
	if len(table) != 1 {
		t.Fatal("no visually hidden table alternative")
	}
	var cells []string
	for _, e := range elems {
		if e.name == "td" || (e.name == "th" && e.attrs["scope"] == "row") {
			cells = append(cells, e.text)
		}
	}
	want := "Run 1 4 2 0 6 Run 2 0 0 0 0 Run 3 1 0 3 4 Run 4 8 0 0 8"
	if strings.Join(cells, " ") != want {
		t.Errorf("table cells = %q, want %q", strings.Join(cells, " "), want)
	}
}

func TestStackedBarSVGEmpty(t *testing.T) {
	elems := parseChartXML(t, StackedBarSVG(StackedBarChart{ID: "c", Title: "Refusals per run", Series: testSeries, EmptyText: "No runs yet."}))
	if empty := chartFind(elems, "text", "data-testid", "chart-empty"); len(empty) != 1 || empty[0].text != "No runs yet." {
		t.Errorf("empty chart text = %+v, want No runs yet.", empty)
	}
	if n := len(chartFind(elems, "g", "data-testid", "chart-bar")); n != 0 {
		t.Errorf("empty chart draws %d bars", n)
	}
	if n := len(chartFind(elems, "table", "", "")); n != 0 {
		t.Errorf("empty chart has %d tables, want none", n)
	}

	// Bars that are all zero draw no segments and no division by zero.
	elems = parseChartXML(t, StackedBarSVG(StackedBarChart{Series: testSeries, Bars: []BarGroup{{Label: "#1", Values: []int{0, 0, 0}}}}))
	for _, r := range chartFind(elems, "rect", "", "") {
		if _, ok := r.attrs["data-series"]; ok {
			t.Errorf("an all-zero bar drew segment %v", r.attrs)
		}
		for _, a := range []string{"x", "y", "width", "height"} {
			if v := r.attrs[a]; strings.Contains(v, "NaN") || strings.Contains(v, "Inf") {
				t.Errorf("rect %s = %s", a, v)
			}
		}
	}
}

func TestStackedBarSVGEscapes(t *testing.T) {
	markup := StackedBarSVG(StackedBarChart{
		ID: `x"><script>`, Title: "<script>alert(1)</script>", Description: `a & b "c"`,
		Series: []BarSeries{{Name: "<b>", Color: `red" onload="alert(1)`}},
		Bars:   []BarGroup{{Label: "<i>", Title: "</svg>", Values: []int{1}}},
	})
	parseChartXML(t, markup)
	for _, bad := range []string{"<script>", "<b>", "<i>", `" onload="`} {
		if strings.Contains(markup, bad) {
			t.Errorf("markup contains %q unescaped", bad)
		}
	}
	if n := strings.Count(markup, "</svg>"); n != 2 {
		t.Errorf("markup closes %d svg elements, want 2 (the swatch and the chart)", n)
	}
}

func TestBarScale(t *testing.T) {
	tests := []struct{ max, top, step int }{
		{0, 1, 1}, {1, 1, 1}, {3, 3, 1}, {5, 5, 1}, {7, 8, 2}, {12, 15, 5}, {48, 50, 10}, {100, 100, 20}, {1234, 1500, 500},
	}
	for _, tt := range tests {
		top, step := BarScale(tt.max)
		if top != tt.top || step != tt.step {
			t.Errorf("BarScale(%d) = %d, %d; want %d, %d", tt.max, top, step, tt.top, tt.step)
		}
		if top < tt.max || top/step > 5 {
			t.Errorf("BarScale(%d) = %d, %d: the axis must hold the maximum in at most 5 steps", tt.max, top, step)
		}
	}
}

func TestStackedBarSVGSkipsCrowdedLabels(t *testing.T) {
	var bars []BarGroup
	for i := 1; i <= 30; i++ {
		bars = append(bars, BarGroup{Label: "#" + strconv.Itoa(i), Values: []int{i % 3, 1, 0}})
	}
	elems := parseChartXML(t, StackedBarSVG(StackedBarChart{Series: testSeries, Bars: bars}))
	var labels []string
	for _, e := range chartFind(elems, "text", "text-anchor", "middle") {
		labels = append(labels, e.text)
	}
	if len(labels) > barChartLabels || labels[len(labels)-1] != "#30" {
		t.Errorf("bar labels = %v, want at most %d ending with the newest", labels, barChartLabels)
	}
}
