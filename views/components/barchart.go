package components

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/a-h/templ"
)

// BarSeries is one layer of a stacked bar chart, such as one refusal reason.
type BarSeries struct {
	Name string // shown in the legend, the tooltips and the table
	// Color fills the series' segments. A presentation attribute (the CSP
	// allows no inline styles), so a custom property with a fallback works:
	// "var(--m-transient-fg, #8c3a0c)" follows the light or dark theme.
	Color string
}

// BarGroup is one bar: a value per series, stacked bottom-up in the order of
// the chart's series.
type BarGroup struct {
	Label  string // under the bar, e.g. "#12"
	Title  string // names the bar in its tooltip and the table, e.g. "Run 12"; Label when empty
	Values []int
}

// StackedBarChart describes a stacked bar chart drawn as inline SVG.
type StackedBarChart struct {
	ID          string // unique on the page: prefixes the ids of the title and description
	Title       string // the accessible name, and the caption of the table alternative
	Description string // what the chart shows, for screen readers
	Category    string // what a bar is, heading the table's first column, e.g. "Run"
	Unit        string // what the values count, e.g. "refusals"
	Series      []BarSeries
	Bars        []BarGroup
	EmptyText   string // shown in the plot when there are no bars
}

// The chart's geometry in its own units (the viewBox). The SVG takes the
// width of its container and scales its height with it.
const (
	barChartWidth  = 960
	barChartHeight = 220
	barChartLeft   = 44 // room for the value labels
	barChartRight  = 12
	barChartTop    = 12 // room for the top value label
	barChartBottom = 28 // room for the bar labels
	barChartInnerW = barChartWidth - barChartLeft - barChartRight
	barChartInnerH = barChartHeight - barChartTop - barChartBottom
	barChartMaxBar = 36 // the widest a bar gets when there are few
	barChartLabels = 15 // at most this many bar labels; others are skipped
)

// StackedBars renders the chart: a legend in HTML (so that it stays legible
// when the SVG scales down on a phone), an inline SVG (role img, with a title
// and a description), and a visually hidden table of the same numbers for
// screen readers.
func StackedBars(c StackedBarChart) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, StackedBarSVG(c))
		return err
	})
}

// barEsc escapes text for XML and HTML alike, quotes included.
func barEsc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func barNum(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// BarScale returns the top of the value axis and its tick step for the
// largest stacked total: a round step (1, 2 or 5 times a power of ten) giving
// at most five ticks above zero, and a top at a whole number of steps.
func BarScale(maxTotal int) (top, step int) {
	if maxTotal <= 0 {
		return 1, 1
	}
	raw := float64(maxTotal) / 5
	step = 1
	if raw > 1 {
		pow := math.Pow(10, math.Floor(math.Log10(raw)))
		switch f := raw / pow; {
		case f <= 1:
			step = int(pow)
		case f <= 2:
			step = int(2 * pow)
		case f <= 5:
			step = int(5 * pow)
		default:
			step = int(10 * pow)
		}
	}
	top = (maxTotal + step - 1) / step * step
	return top, step
}

// barTotal sums a bar's values, ignoring negative ones.
func barTotal(g BarGroup) int {
	t := 0
	for _, v := range g.Values {
		t += max(v, 0)
	}
	return t
}

// barTitle names a bar and its values, e.g. "Run 12: 3 transient, 1 expired
// (4 refusals)".
func barTitle(c StackedBarChart, g BarGroup) string {
	name := g.Title
	if name == "" {
		name = g.Label
	}
	parts := make([]string, 0, len(c.Series))
	for i, s := range c.Series {
		v := 0
		if i < len(g.Values) {
			v = g.Values[i]
		}
		parts = append(parts, fmt.Sprintf("%d %s", v, s.Name))
	}
	unit := c.Unit
	if unit == "" {
		unit = "in total"
	}
	return fmt.Sprintf("%s: %s (%d %s)", name, strings.Join(parts, ", "), barTotal(g), unit)
}

// StackedBarSVG draws the chart's markup: well-formed XML, every text
// escaped. Bar heights are proportional to their values on an axis from zero
// to BarScale's top. With no bars it draws an empty plot with EmptyText.
func StackedBarSVG(c StackedBarChart) string {
	id := c.ID
	if id == "" {
		id = "chart"
	}
	maxTotal := 0
	for _, g := range c.Bars {
		maxTotal = max(maxTotal, barTotal(g))
	}
	top, step := BarScale(maxTotal)
	y := func(v float64) float64 { return barChartTop + barChartInnerH - v/float64(top)*barChartInnerH }

	var b strings.Builder
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	w(`<div class="chart" data-testid="`, barEsc(id), `">`)

	// Legend: a colour swatch (a tiny SVG, as the CSP allows no inline
	// styles) and the series' name.
	w(`<div class="actions small" data-testid="chart-legend">`)
	for _, s := range c.Series {
		w(`<span class="nowrap"><svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true" focusable="false">`,
			`<rect width="12" height="12" rx="2" fill="`, barEsc(s.Color), `"/></svg> `, barEsc(s.Name), `</span>`)
	}
	w(`</div>`)
	w(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `, strconv.Itoa(barChartWidth), ` `, strconv.Itoa(barChartHeight),
		`" width="100%" role="img" aria-labelledby="`,
		barEsc(id), `-title `, barEsc(id), `-desc" font-size="12" fill="currentColor">`)
	w(`<title id="`, barEsc(id), `-title">`, barEsc(c.Title), `</title>`)
	desc := c.Description
	if len(c.Bars) > 0 {
		desc = strings.TrimSpace(desc + " The table that follows gives the same numbers.")
	}
	w(`<desc id="`, barEsc(id), `-desc">`, barEsc(desc), `</desc>`)

	// Value axis: grid lines and labels at each step.
	w(`<g data-testid="chart-y-axis">`)
	for v := 0; v <= top; v += step {
		yy := barNum(y(float64(v)))
		opacity := "0.15"
		if v == 0 {
			opacity = "0.6"
		}
		w(`<line x1="`, strconv.Itoa(barChartLeft), `" x2="`, strconv.Itoa(barChartLeft+barChartInnerW), `" y1="`, yy, `" y2="`, yy,
			`" stroke="currentColor" stroke-opacity="`, opacity, `"/>`)
		w(`<text x="`, strconv.Itoa(barChartLeft-6), `" y="`, barNum(y(float64(v))+4), `" text-anchor="end">`, strconv.Itoa(v), `</text>`)
	}
	w(`</g>`)

	if len(c.Bars) == 0 {
		text := c.EmptyText
		if text == "" {
			text = "No data yet."
		}
		w(`<text x="`, barNum(barChartLeft+barChartInnerW/2.0), `" y="`, barNum(barChartTop+barChartInnerH/2.0),
			`" text-anchor="middle" fill-opacity="0.7" data-testid="chart-empty">`, barEsc(text), `</text>`)
		w(`</svg></div>`)
		return b.String()
	}

	// Bars, oldest on the left, each a group with its tooltip.
	n := len(c.Bars)
	slot := float64(barChartInnerW) / float64(n)
	barW := math.Min(slot*0.7, barChartMaxBar)
	every := (n + barChartLabels - 1) / barChartLabels
	w(`<g data-testid="chart-bars">`)
	for i, g := range c.Bars {
		x := float64(barChartLeft) + float64(i)*slot + (slot-barW)/2
		w(`<g data-testid="chart-bar" data-total="`, strconv.Itoa(barTotal(g)), `">`)
		w(`<title>`, barEsc(barTitle(c, g)), `</title>`)
		base := 0.0
		for si, s := range c.Series {
			if si >= len(g.Values) || g.Values[si] <= 0 {
				continue
			}
			v := float64(g.Values[si])
			w(`<rect x="`, barNum(x), `" y="`, barNum(y(base+v)), `" width="`, barNum(barW), `" height="`,
				barNum(v/float64(top)*barChartInnerH), `" fill="`, barEsc(s.Color), `" data-series="`, barEsc(s.Name),
				`" data-value="`, strconv.Itoa(g.Values[si]), `"/>`)
			base += v
		}
		if (n-1-i)%every == 0 { // always label the newest bar
			w(`<text x="`, barNum(x+barW/2), `" y="`, strconv.Itoa(barChartTop+barChartInnerH+18), `" text-anchor="middle" fill-opacity="0.8">`,
				barEsc(g.Label), `</text>`)
		}
		w(`</g>`)
	}
	w(`</g></svg>`)

	// The same numbers as a table, for screen readers.
	w(`<table class="visually-hidden" data-testid="chart-table"><caption>`, barEsc(c.Title), `</caption><thead><tr>`)
	category := c.Category
	if category == "" {
		category = "Bar"
	}
	w(`<th scope="col">`, barEsc(category), `</th>`)
	for _, s := range c.Series {
		w(`<th scope="col">`, barEsc(s.Name), `</th>`)
	}
	w(`<th scope="col">Total</th></tr></thead><tbody>`)
	for _, g := range c.Bars {
		name := g.Title
		if name == "" {
			name = g.Label
		}
		w(`<tr><th scope="row">`, barEsc(name), `</th>`)
		for si := range c.Series {
			v := 0
			if si < len(g.Values) {
				v = g.Values[si]
			}
			w(`<td>`, strconv.Itoa(v), `</td>`)
		}
		w(`<td>`, strconv.Itoa(barTotal(g)), `</td></tr>`)
	}
	w(`</tbody></table></div>`)
	return b.String()
}
