package pages

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"
)

// ListURL is the URL of the list at path filtered by params, leaving out
// empty values, and starting below id before when before > 0.
func ListURL(path string, params map[string]string, before int64) string {
	v := url.Values{}
	for k, val := range params {
		if val != "" {
			v.Set(k, val)
		}
	}
	if before > 0 {
		v.Set("before", strconv.FormatInt(before, 10))
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

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
