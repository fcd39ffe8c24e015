package pages

import (
	"fmt"
	"math"
	"time"
)

// relative describes t as seen from now, such as "3 d ago" or "in 5 h".
func relative(now, t time.Time) string {
	d := t.Sub(now)
	suffix := ""
	prefix := "in "
	if d < 0 {
		d = -d
		prefix, suffix = "", " ago"
	}
	var n float64
	var unit string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		n, unit = d.Minutes(), "min"
	case d < 48*time.Hour:
		n, unit = d.Hours(), "h"
	case d < 730*24*time.Hour:
		n, unit = d.Hours()/24, "d"
	default:
		n, unit = d.Hours()/24/365, "y"
	}
	return fmt.Sprintf("%s%d %s%s", prefix, int(math.Floor(n)), unit, suffix)
}

// stamp is a full timestamp for tooltips and datetime attributes.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func percent(v float64) string {
	return fmt.Sprintf("%.0f%%", v*100)
}
