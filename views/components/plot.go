package components

import (
	"context"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
)

// PlotPoint is one point of a confidence curve: a confidence in [0, 1] at an
// instant.
type PlotPoint struct {
	At    time.Time
	Value float64
}

// The plot's geometry, in the SVG's own units (the viewBox); the SVG scales
// to the width of its container.
const (
	plotWidth  = 420 // narrow enough that text stays readable on a phone
	plotHeight = 230
	plotLeft   = 40 // room for the percent labels
	plotRight  = 18
	plotTop    = 24 // room for the "now" label
	plotBottom = 36 // room for the date labels
	plotInnerW = plotWidth - plotLeft - plotRight
	plotInnerH = plotHeight - plotTop - plotBottom
)

// The plot's colours: presentation attributes, because the console's CSP
// allows no inline styles. Text and axes use currentColor, so they follow
// the light or dark theme; the curve and the floor read on both.
const (
	plotCurveColor = "#2f74d8"
	plotFloorColor = "#c9363d"
)

// ConfidencePlot draws a confidence curve as an inline SVG: the points as a
// line over an area, the floor as a dashed line, now as a vertical line with
// a label (when now lies within the points' span), and axes with dates and 0
// to 100%. label is the plot's accessible name (its <title> and aria-label),
// e.g. "Confidence 64% now, forgotten in 12 days". Every text is escaped.
func ConfidencePlot(points []PlotPoint, now time.Time, floor float64, label string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, confidenceSVG(points, now, floor, label))
		return err
	})
}

// plotFrame maps instants and confidences to SVG coordinates.
type plotFrame struct {
	from, to time.Time
}

func newPlotFrame(points []PlotPoint, now time.Time) plotFrame {
	if len(points) == 0 {
		return plotFrame{from: now.Add(-30 * 24 * time.Hour), to: now.Add(30 * 24 * time.Hour)}
	}
	f := plotFrame{from: points[0].At, to: points[len(points)-1].At}
	if !f.to.After(f.from) {
		f.to = f.from.Add(time.Hour)
	}
	return f
}

// x is the horizontal position of t; instants outside the frame map outside
// the plot area.
func (f plotFrame) x(t time.Time) float64 {
	span := f.to.Sub(f.from).Seconds()
	return plotLeft + t.Sub(f.from).Seconds()/span*plotInnerW
}

// y is the vertical position of confidence v, clamped to [0, 1].
func (f plotFrame) y(v float64) float64 {
	v = min(1, max(0, v))
	return plotTop + (1-v)*plotInnerH
}

func (f plotFrame) contains(t time.Time) bool {
	return !t.Before(f.from) && !t.After(f.to)
}

// valueAt interpolates the curve at t, which must lie within the points.
func valueAt(points []PlotPoint, t time.Time) float64 {
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		if t.After(b.At) {
			continue
		}
		span := b.At.Sub(a.At).Seconds()
		if span <= 0 {
			return b.Value
		}
		return a.Value + (b.Value-a.Value)*t.Sub(a.At).Seconds()/span
	}
	return points[len(points)-1].Value
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func pct(v float64) string { return strconv.Itoa(int(v*100+0.5)) + "%" }

// dateLabel formats a tick's date for a plot spanning span.
func dateLabel(t time.Time, span time.Duration) string {
	t = t.UTC()
	switch {
	case span <= 3*24*time.Hour:
		return t.Format("2 Jan 15:04")
	case span <= 400*24*time.Hour:
		return t.Format("2 Jan")
	default:
		return t.Format("Jan 2006")
	}
}

func confidenceSVG(points []PlotPoint, now time.Time, floor float64, label string) string {
	points = slices.Clone(points)
	slices.SortStableFunc(points, func(a, b PlotPoint) int { return a.At.Compare(b.At) })
	fr := newPlotFrame(points, now)
	esc := html.EscapeString
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + strconv.Itoa(plotWidth) + ` ` +
		strconv.Itoa(plotHeight) + `" width="100%" role="img" aria-label="` + esc(label) +
		`" data-testid="confidence-plot" font-size="12" fill="currentColor">`)
	b.WriteString(`<title>` + esc(label) + `</title>`)

	// Horizontal grid and the percent axis.
	b.WriteString(`<g data-testid="plot-y-axis">`)
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := num(fr.y(v))
		opacity := "0.15"
		if v == 0 {
			opacity = "0.5"
		}
		b.WriteString(`<line x1="` + num(plotLeft) + `" x2="` + num(plotLeft+plotInnerW) + `" y1="` + y + `" y2="` + y +
			`" stroke="currentColor" stroke-opacity="` + opacity + `"/>`)
		b.WriteString(`<text x="` + num(plotLeft-6) + `" y="` + num(fr.y(v)+4) + `" text-anchor="end">` + pct(v) + `</text>`)
	}
	b.WriteString(`</g>`)

	// Date ticks along the bottom.
	span := fr.to.Sub(fr.from)
	b.WriteString(`<g data-testid="plot-x-axis">`)
	// Short labels ("2 Jan") fit five ticks; longer ones get four.
	ticks := 4
	if len(dateLabel(fr.from, span)) > 6 {
		ticks = 3
	}
	for i := 0; i <= ticks; i++ {
		t := fr.from.Add(span * time.Duration(i) / time.Duration(ticks))
		x := num(fr.x(t))
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case ticks:
			anchor = "end"
		}
		b.WriteString(`<line x1="` + x + `" x2="` + x + `" y1="` + num(plotTop+plotInnerH) + `" y2="` +
			num(plotTop+plotInnerH+5) + `" stroke="currentColor" stroke-opacity="0.5"/>`)
		b.WriteString(`<text x="` + x + `" y="` + num(plotTop+plotInnerH+19) + `" text-anchor="` + anchor + `">` +
			`<tspan>` + esc(dateLabel(t, span)) + `</tspan></text>`)
	}
	b.WriteString(`</g>`)

	// The curve, over a light area down to 0%.
	if len(points) > 0 {
		var d strings.Builder
		for i, p := range points {
			if i == 0 {
				d.WriteString("M")
			} else {
				d.WriteString(" L")
			}
			d.WriteString(num(fr.x(p.At)) + "," + num(fr.y(p.Value)))
		}
		base := num(fr.y(0))
		area := d.String() + " L" + num(fr.x(points[len(points)-1].At)) + "," + base +
			" L" + num(fr.x(points[0].At)) + "," + base + " Z"
		b.WriteString(`<path d="` + area + `" fill="` + plotCurveColor + `" fill-opacity="0.12" stroke="none"/>`)
		b.WriteString(`<path data-testid="plot-curve" d="` + d.String() + `" fill="none" stroke="` + plotCurveColor +
			`" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/>`)
	}

	// The floor, below which the fact is archived.
	if floor > 0 && floor < 1 {
		y := num(fr.y(floor))
		b.WriteString(`<line data-testid="plot-floor" x1="` + num(plotLeft) + `" x2="` + num(plotLeft+plotInnerW) +
			`" y1="` + y + `" y2="` + y + `" stroke="` + plotFloorColor + `" stroke-width="1.5" stroke-dasharray="6 4"/>`)
		// Labelled at the left, where the curve is usually well above it.
		b.WriteString(`<text x="` + num(plotLeft+6) + `" y="` + num(fr.y(floor)-5) +
			`" text-anchor="start">floor ` + pct(floor) + `</text>`)
	}

	// Now, when it lies within the plotted span.
	if len(points) > 0 && fr.contains(now) {
		x := fr.x(now)
		v := valueAt(points, now)
		anchor := "middle"
		switch {
		case x < plotLeft+40:
			anchor = "start"
		case x > plotLeft+plotInnerW-40:
			anchor = "end"
		}
		b.WriteString(`<g data-testid="plot-now">`)
		b.WriteString(`<line x1="` + num(x) + `" x2="` + num(x) + `" y1="` + num(plotTop) + `" y2="` + num(plotTop+plotInnerH) +
			`" stroke="currentColor" stroke-width="1.5"/>`)
		b.WriteString(`<circle cx="` + num(x) + `" cy="` + num(fr.y(v)) + `" r="4" fill="` + plotCurveColor +
			`" stroke="currentColor" stroke-width="1"/>`)
		b.WriteString(`<text x="` + num(x) + `" y="` + num(plotTop-8) + `" text-anchor="` + anchor +
			`" font-weight="600">now ` + pct(v) + `</text>`)
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return b.String()
}
