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
	return ConfidencePlotWith(points, now, floor, label, PlotOptions{})
}

// PlotOptions are what a confidence plot may show besides its curve.
type PlotOptions struct {
	// Break, when it lies inside the points' span, makes the time axis
	// piecewise: to scale from the first point to Break over the left
	// BreakShare of the width (0.7 when zero), then compressed, still
	// linear, from Break to the last point over the rest. The compressed
	// part is shaded and labelled, and the axis shows a break mark, so that
	// a moment decades away (a forget date) is on the plot beside the days
	// around now.
	Break      time.Time
	BreakShare float64
	// Markers are moments drawn as dashed vertical lines with a label.
	Markers []PlotMarker
}

// PlotMarker is one moment of a plot, such as the forget date or a deadline.
type PlotMarker struct {
	At    time.Time
	Label string // e.g. "forgotten", "due"
	// TestID names the marker's group (data-testid), e.g. "plot-forget".
	TestID string
	// Danger draws the marker in the floor's colour, as the moment a fact
	// is forgotten; otherwise it follows the text colour.
	Danger bool
}

// ConfidencePlotWith is ConfidencePlot with a piecewise time axis and
// markers (see PlotOptions).
func ConfidencePlotWith(points []PlotPoint, now time.Time, floor float64, label string, opts PlotOptions) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, confidenceSVG(points, now, floor, label, opts))
		return err
	})
}

// defaultBreakShare is the share of the width the to-scale part of a
// piecewise time axis takes.
const defaultBreakShare = 0.7

// plotFrame maps instants and confidences to SVG coordinates.
type plotFrame struct {
	from, to time.Time
	// brk, when not zero, is where the axis turns from to scale to
	// compressed, at the share brkShare of the width.
	brk      time.Time
	brkShare float64
}

func newPlotFrame(points []PlotPoint, now time.Time, opts PlotOptions) plotFrame {
	if len(points) == 0 {
		return plotFrame{from: now.Add(-30 * 24 * time.Hour), to: now.Add(30 * 24 * time.Hour)}
	}
	f := plotFrame{from: points[0].At, to: points[len(points)-1].At}
	if !f.to.After(f.from) {
		f.to = f.from.Add(time.Hour)
	}
	if opts.Break.After(f.from) && opts.Break.Before(f.to) {
		f.brk, f.brkShare = opts.Break, opts.BreakShare
		if f.brkShare <= 0 || f.brkShare >= 1 {
			f.brkShare = defaultBreakShare
		}
	}
	return f
}

// seconds is b - a in seconds, without the saturation of time.Duration.
func seconds(a, b time.Time) float64 {
	return float64(b.Unix()-a.Unix()) + float64(b.Nanosecond()-a.Nanosecond())/1e9
}

// x is the horizontal position of t; instants outside the frame map outside
// the plot area.
func (f plotFrame) x(t time.Time) float64 {
	if f.brk.IsZero() {
		return plotLeft + seconds(f.from, t)/seconds(f.from, f.to)*plotInnerW
	}
	split := plotLeft + f.brkShare*plotInnerW
	if !t.After(f.brk) {
		return plotLeft + seconds(f.from, t)/seconds(f.from, f.brk)*(split-plotLeft)
	}
	return split + seconds(f.brk, t)/seconds(f.brk, f.to)*(plotLeft+plotInnerW-split)
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

// yearLabels is a span long enough for dateLabel to name months and years.
const yearLabels = 401 * 24 * time.Hour

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

// tick is one labelled date of the time axis.
type tick struct {
	at     time.Time
	label  string
	anchor string
}

// xTicks are the dates along the bottom: evenly spaced on a linear axis;
// on a piecewise one, three in the to-scale part (its start, middle and the
// break) and the end of the compressed part, in years.
func (f plotFrame) xTicks() []tick {
	var out []tick
	if f.brk.IsZero() {
		span := f.to.Sub(f.from)
		// Short labels ("2 Jan") fit five ticks; longer ones get four.
		n := 4
		if len(dateLabel(f.from, span)) > 6 {
			n = 3
		}
		for i := 0; i <= n; i++ {
			t := f.from.Add(span * time.Duration(i) / time.Duration(n))
			out = append(out, tick{at: t, label: dateLabel(t, span)})
		}
	} else {
		// Months and years throughout: the to-scale part is a year or more.
		span := f.brk.Sub(f.from)
		for i := 0; i <= 2; i++ {
			t := f.from.Add(span * time.Duration(i) / 2)
			out = append(out, tick{at: t, label: dateLabel(t, max(span, yearLabels))})
		}
		out = append(out, tick{at: f.to, label: dateLabel(f.to, yearLabels)})
	}
	for i := range out {
		out[i].anchor = "middle"
	}
	out[0].anchor, out[len(out)-1].anchor = "start", "end"
	return out
}

func confidenceSVG(points []PlotPoint, now time.Time, floor float64, label string, opts PlotOptions) string {
	points = slices.Clone(points)
	slices.SortStableFunc(points, func(a, b PlotPoint) int { return a.At.Compare(b.At) })
	fr := newPlotFrame(points, now, opts)
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

	// The compressed part of a piecewise time axis: shaded, labelled, and
	// a break mark across the axis where it starts.
	if !fr.brk.IsZero() {
		x0, x1 := fr.x(fr.brk), float64(plotLeft+plotInnerW)
		b.WriteString(`<g data-testid="plot-break">`)
		b.WriteString(`<rect x="` + num(x0) + `" y="` + num(plotTop) + `" width="` + num(x1-x0) + `" height="` + num(plotInnerH) +
			`" fill="currentColor" fill-opacity="0.06"/>`)
		b.WriteString(`<line x1="` + num(x0) + `" x2="` + num(x0) + `" y1="` + num(plotTop) + `" y2="` + num(plotTop+plotInnerH) +
			`" stroke="currentColor" stroke-opacity="0.35" stroke-dasharray="2 3"/>`)
		base := float64(plotTop + plotInnerH)
		for _, dx := range []float64{-3, 2} {
			b.WriteString(`<line x1="` + num(x0+dx-2) + `" x2="` + num(x0+dx+2) + `" y1="` + num(base+5) + `" y2="` +
				num(base-5) + `" stroke="currentColor" stroke-width="1.5"/>`)
		}
		b.WriteString(`<text x="` + num((x0+x1)/2) + `" y="` + num(plotTop+13) + `" text-anchor="middle" font-size="10" fill-opacity="0.8">` +
			`compressed</text>`)
		b.WriteString(`</g>`)
	}

	// Date ticks along the bottom.
	b.WriteString(`<g data-testid="plot-x-axis">`)
	for _, tk := range fr.xTicks() {
		x := num(fr.x(tk.at))
		b.WriteString(`<line x1="` + x + `" x2="` + x + `" y1="` + num(plotTop+plotInnerH) + `" y2="` +
			num(plotTop+plotInnerH+5) + `" stroke="currentColor" stroke-opacity="0.5"/>`)
		b.WriteString(`<text x="` + x + `" y="` + num(plotTop+plotInnerH+19) + `" text-anchor="` + tk.anchor + `">` +
			`<tspan>` + esc(tk.label) + `</tspan></text>`)
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

	// The markers that lie within the plotted span.
	for _, m := range opts.Markers {
		if len(points) == 0 || !fr.contains(m.At) {
			continue
		}
		x := fr.x(m.At)
		color := "currentColor"
		if m.Danger {
			color = plotFloorColor
		}
		anchor, tx := "end", x-4
		if x < plotLeft+plotInnerW/2 {
			anchor, tx = "start", x+4
		}
		b.WriteString(`<g data-testid="` + esc(m.TestID) + `">`)
		b.WriteString(`<line x1="` + num(x) + `" x2="` + num(x) + `" y1="` + num(plotTop) + `" y2="` + num(plotTop+plotInnerH) +
			`" stroke="` + color + `" stroke-width="1.5" stroke-dasharray="4 3"/>`)
		if m.Danger {
			b.WriteString(`<circle cx="` + num(x) + `" cy="` + num(fr.y(floor)) + `" r="4" fill="` + plotFloorColor + `"/>`)
		}
		b.WriteString(`<text x="` + num(tx) + `" y="` + num(plotTop+plotInnerH-6) + `" text-anchor="` + anchor +
			`" font-weight="600">` + esc(m.Label) + `</text>`)
		b.WriteString(`</g>`)
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
