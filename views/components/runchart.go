package components

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"
)

// RunBar is one row of a RowBarChart: a labelled stacked bar with a note
// (such as a run's duration) and a value per series.
type RunBar struct {
	Label string // e.g. "#12"
	Href  string // where the label links; none when empty
	Note  string // beside the label, e.g. "1.2 s"
	Title string // names the row for screen readers, e.g. "Run 12"
	// Values has one value per series of the chart, in its order.
	Values []int
}

// RowBarChart is a chart of one horizontal stacked bar per row, its label,
// note and figures in HTML around a bar drawn in SVG: the text keeps its
// size however narrow the page (a phone, a 500 px window), and only the bar
// scales. Every figure is written out, so a series too small to see beside
// the others (6 superseded beside 300 promoted) still reads.
type RowBarChart struct {
	ID          string // unique on the page: prefixes the ids of the heading and description
	Title       string // the accessible name
	Description string // what the chart shows, for screen readers
	Series      []BarSeries
	Rows        []RunBar
	EmptyText   string
}

// rowBarMin is the narrowest a non-zero segment is drawn, in thousandths of
// the bar's width, so that a small count still shows as a sliver.
const rowBarMin = 12

// RowBars renders the chart: a legend, then a list with one item per row.
func RowBars(c RowBarChart) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, RowBarHTML(c))
		return err
	})
}

// RowBarHTML is the chart's markup, every text escaped. Bars are
// proportional to their totals, the largest total taking the full width.
func RowBarHTML(c RowBarChart) string {
	id := c.ID
	if id == "" {
		id = "row-chart"
	}
	var b strings.Builder
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	w(`<figure class="row-chart" data-testid="`, barEsc(id), `" aria-labelledby="`, barEsc(id), `-title" aria-describedby="`,
		barEsc(id), `-desc">`)
	w(`<figcaption class="visually-hidden"><span id="`, barEsc(id), `-title">`, barEsc(c.Title), `</span> <span id="`,
		barEsc(id), `-desc">`, barEsc(c.Description), `</span></figcaption>`)
	w(`<div class="actions small row-chart-legend" data-testid="chart-legend" aria-hidden="true">`)
	for _, s := range c.Series {
		w(`<span class="nowrap"><svg width="12" height="12" viewBox="0 0 12 12" focusable="false">`,
			`<rect width="12" height="12" rx="2" fill="`, barEsc(s.Color), `"/></svg> `, barEsc(s.Name), `</span>`)
	}
	w(`</div>`)
	if len(c.Rows) == 0 {
		text := c.EmptyText
		if text == "" {
			text = "No data yet."
		}
		w(`<p class="empty" data-testid="chart-empty">`, barEsc(text), `</p></figure>`)
		return b.String()
	}
	maxTotal := 0
	for _, r := range c.Rows {
		maxTotal = max(maxTotal, barTotal(BarGroup{Values: r.Values}))
	}
	w(`<ol class="row-chart-rows">`)
	for _, r := range c.Rows {
		total := barTotal(BarGroup{Values: r.Values})
		w(`<li class="row-chart-row" data-testid="chart-row" data-total="`, strconv.Itoa(total), `">`)
		w(`<span class="row-chart-label">`)
		title := r.Title
		if title == "" {
			title = r.Label
		}
		if r.Href != "" {
			w(`<a href="`, barEsc(r.Href), `" title="`, barEsc(title), `">`, barEsc(r.Label), `</a>`)
		} else {
			w(`<span title="`, barEsc(title), `">`, barEsc(r.Label), `</span>`)
		}
		if r.Note != "" {
			w(` <span class="muted" data-testid="chart-note">`, barEsc(r.Note), `</span>`)
		}
		w(`</span>`)
		// The bar: thousandths of the width, stretched to the cell.
		w(`<svg class="row-chart-bar" viewBox="0 0 1000 10" preserveAspectRatio="none" width="100%" height="12" aria-hidden="true" focusable="false">`)
		w(`<rect width="1000" height="10" fill="currentColor" fill-opacity="0.06"/>`)
		if maxTotal > 0 {
			x := 0
			for si, s := range c.Series {
				if si >= len(r.Values) || r.Values[si] <= 0 {
					continue
				}
				width := max(r.Values[si]*1000/maxTotal, rowBarMin)
				width = min(width, 1000-x)
				if width <= 0 {
					continue
				}
				w(`<rect x="`, strconv.Itoa(x), `" width="`, strconv.Itoa(width), `" height="10" fill="`, barEsc(s.Color),
					`" data-series="`, barEsc(s.Name), `" data-value="`, strconv.Itoa(r.Values[si]), `"/>`)
				x += width
			}
		}
		w(`</svg>`)
		w(`<span class="row-chart-figures small">`)
		for si, s := range c.Series {
			v := 0
			if si < len(r.Values) {
				v = r.Values[si]
			}
			class := "nowrap"
			if v == 0 {
				class += " muted"
			}
			w(`<span class="`, class, `" data-testid="chart-figure" data-series="`, barEsc(s.Name), `">`)
			if v > 0 {
				w(`<svg width="8" height="8" viewBox="0 0 8 8" aria-hidden="true" focusable="false"><rect width="8" height="8" rx="1" fill="`,
					barEsc(s.Color), `"/></svg> `)
			}
			w(`<strong>`, strconv.Itoa(v), `</strong> `, barEsc(s.Name), `</span> `)
		}
		w(`</span></li>`)
	}
	w(`</ol></figure>`)
	return b.String()
}
