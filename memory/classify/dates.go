package classify

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	monthPat   = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
	isoDateRe  = regexp.MustCompile(`\b(\d{4})-(\d{1,2})-(\d{1,2})(?:[t ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(z|[+-]\d{2}(?::?\d{2})?)?)?\b`)
	monthDayRe = regexp.MustCompile(`\b` + monthPat + `\.? (\d{1,2})(?:st|nd|rd|th)?\b(?:,? (\d{4})\b)?`)
	dayMonthRe = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?` + monthPat + `\b\.?(?:,? (\d{4})\b)?`)
	weekdayRe  = regexp.MustCompile(`\b(?:(next|this|coming|on|by|before|until|till|due) )?(monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thu|friday|fri|saturday|sat|sunday|sun)\b`)
	relDayRe   = regexp.MustCompile(`\b(?:(the day after tomorrow)|(tomorrow|tmrw|tmr)|(today|tonight|eod|end of (?:the )?day|this morning|this afternoon|this evening))\b`)
	inNRe      = regexp.MustCompile(`\b(?:in|within) (a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a few|several|\d{1,3}) (minutes?|hours?|days?|weeks?|months?|years?)\b`)
	periodRe   = regexp.MustCompile(`\b(?:(?:the )?end of (?:the )?(?:(this|next) )?(week|month|year|quarter)|eo(w|m|y|q)|(this|next) (week|weekend|month|year|quarter))\b`)
	// monthOnlyRe: a month named without a day ("in September", "at the
	// end of March", "by June"); group 1 says which part of it.
	monthOnlyRe = regexp.MustCompile(`\b(?:(in|by|before|until|till|through|from|after|during|starting|early|mid|late|end of|beginning of|start of|middle of)(?: the (end|beginning|start|middle) of)? )` + monthPat + `\b`)
	monthWordRe = regexp.MustCompile(`^` + monthPat + `\.?$`)
	// ordinalDayRe: a day of the month without the month ("by the 10th").
	ordinalDayRe = regexp.MustCompile(`\bthe (\d{1,2})(?:st|nd|rd|th)\b`)
	clockRe      = regexp.MustCompile(`\b(\d{1,2})(?::(\d{2}))? ?(am\b|pm\b|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b|\b(noon|midday|midnight)\b`)
)

// date is a date found in a text.
type date struct {
	start, end int // in norm
	qualStart  int // start of the "by"/"due" before it, when qualified
	t          time.Time
	exact      bool // carries its own time of day
	qualified  bool // preceded by by/before/due/no later than
	bound      bool // preceded by until/till/through/from/after: a state's end, not a deadline
	clockOnly  bool // only a clock time was found; the day is today or tomorrow
}

func endOfDay(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 23, 59, 59, 0, time.UTC)
}

func parseMonth(s string) time.Month {
	if len(s) < 3 {
		return 0
	}
	switch s[:3] {
	case "jan":
		return time.January
	case "feb":
		return time.February
	case "mar":
		return time.March
	case "apr":
		return time.April
	case "may":
		return time.May
	case "jun":
		return time.June
	case "jul":
		return time.July
	case "aug":
		return time.August
	case "sep":
		return time.September
	case "oct":
		return time.October
	case "nov":
		return time.November
	case "dec":
		return time.December
	}
	return 0
}

func parseWeekday(s string) time.Weekday {
	switch s[:2] {
	case "mo":
		return time.Monday
	case "tu":
		return time.Tuesday
	case "we":
		return time.Wednesday
	case "th":
		return time.Thursday
	case "fr":
		return time.Friday
	case "sa":
		return time.Saturday
	}
	return time.Sunday
}

func parseNumber(s string) int {
	switch s {
	case "a", "an", "one":
		return 1
	case "two", "a couple of":
		return 2
	case "three", "a few", "several":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	case "eleven":
		return 11
	case "twelve":
		return 12
	}
	n, _ := strconv.Atoi(s)
	return n
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// dayOf returns the end of day y-m-d when it exists (no February 30).
func dayOf(y int, m time.Month, d int) (time.Time, bool) {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := endOfDay(y, m, d)
	return t, t.Day() == d && t.Month() == m
}

// nextDate is the next m-d on or after today.
func nextDate(today time.Time, m time.Month, d int) (time.Time, bool) {
	for y := today.Year(); y <= today.Year()+8; y++ {
		t, ok := dayOf(y, m, d)
		if ok && !t.Before(today) {
			return t, true
		}
	}
	return time.Time{}, false
}

// scanDate finds the deadline a text names, relative to now (UTC).
//
// It reads ISO dates with an optional time and offset (2026-12-31,
// 2026-12-31T15:00, 2026-12-31T15:00+02:00), "May 15", "May 15th, 2027",
// "15 May", weekdays ("on Friday", "next Monday"), "today", "tonight",
// "tomorrow", "the day after tomorrow", "in 3 days", "within two weeks",
// "end of week/month/quarter/year", "this/next week" and a clock time ("at
// 3pm", "by 17:30", "noon"). A date without a year is its next occurrence on
// or after today; a weekday is its next occurrence after today ("this Friday"
// said on a Friday is today); a week ends on its Friday. The deadline is the
// end of that day, 23:59:59 UTC, unless a time is given. A clock time alone is
// today, or tomorrow once it has passed. Impossible dates (Feb 30) are
// ignored. A date after "by", "before", "due" or "no later than" wins;
// otherwise the first date in the text. Dates after "every", "each", "last"
// or "since" are not deadlines, and one after "until", "till" or "from" is the
// end of a state rather than a deadline.
func scanDate(t *text, now time.Time) (date, bool) {
	s := t.norm
	ny, nm, nd := now.Date()
	today := endOfDay(ny, nm, nd)
	var found [12]date
	n := 0
	add := func(a, b int, when time.Time, exact bool) {
		if n == len(found) {
			return
		}
		var prev [3]string
		k := wordsBefore(s, a, prev[:])
		c := date{start: a, end: b, t: when, exact: exact, qualStart: a}
		if k > 1 && prev[0] == "other" && (prev[1] == "every" || prev[1] == "each") {
			return // "every other Thursday"
		}
		if k > 0 {
			switch prev[0] {
			case "every", "each", "last", "since", "past", "previous":
				return
			case "by", "before", "due", "deadline", "than":
				c.qualified = true
			case "until", "till", "til", "through", "thru", "from", "after", "between":
				c.bound = true
			}
			if c.qualified {
				// qualStart: include the qualifier in the reason.
				c.qualStart = strings.LastIndex(s[:a], prev[0])
			}
		}
		found[n] = c
		n++
	}
	all := func(f flags, re *regexp.Regexp) [][]int {
		if t.flags&f != f {
			return nil
		}
		return re.FindAllStringSubmatchIndex(s, 4)
	}
	for _, m := range all(fDigit, isoDateRe) {
		yy, mm, dd := atoi(s[m[2]:m[3]]), time.Month(atoi(s[m[4]:m[5]])), atoi(s[m[6]:m[7]])
		when, ok := dayOf(yy, mm, dd)
		if !ok {
			continue
		}
		exact := false
		if m[8] >= 0 {
			h, mi, sec := atoi(s[m[8]:m[9]]), atoi(s[m[10]:m[11]]), 0
			if m[12] >= 0 {
				sec = atoi(s[m[12]:m[13]])
			}
			if h > 23 || mi > 59 || sec > 59 {
				continue
			}
			when = time.Date(yy, mm, dd, h, mi, sec, 0, time.UTC)
			if m[14] >= 0 && s[m[14]:m[15]] != "z" {
				z := s[m[14]:m[15]]
				zh, zm := atoi(z[1:3]), 0
				if rest := strings.TrimPrefix(z[3:], ":"); rest != "" {
					zm = atoi(rest)
				}
				shift := time.Duration(zh)*time.Hour + time.Duration(zm)*time.Minute
				if z[0] == '+' {
					shift = -shift
				}
				when = when.Add(shift)
			}
			exact = true
		}
		add(m[0], m[1], when, exact)
	}
	// addDay adds a month and day match, in the year its group 3 names or
	// else on the next such date.
	addDay := func(m []int, mon time.Month, day int) {
		var when time.Time
		var ok bool
		if m[6] >= 0 {
			when, ok = dayOf(atoi(s[m[6]:m[7]]), mon, day)
		} else {
			when, ok = nextDate(today, mon, day)
		}
		if ok {
			add(m[0], m[1], when, false)
		}
	}
	for _, m := range all(fMonth|fDigit, monthDayRe) {
		addDay(m, parseMonth(s[m[2]:m[3]]), atoi(s[m[4]:m[5]]))
	}
	for _, m := range all(fMonth|fDigit, dayMonthRe) {
		addDay(m, parseMonth(s[m[4]:m[5]]), atoi(s[m[2]:m[3]]))
	}
	for _, m := range all(fWeekday, weekdayRe) {
		qual, name := "", s[m[4]:m[5]]
		if m[2] >= 0 {
			qual = s[m[2]:m[3]]
		}
		if qual == "" && len(name) <= 4 && name != "tues" {
			continue // "sat", "sun", "wed" alone are other words
		}
		days := (int(parseWeekday(name)) - int(now.Weekday()) + 7) % 7
		if days == 0 && qual != "this" {
			days = 7 // a weekday names the next one, not today
		}
		a := m[0]
		if m[2] >= 0 && qual != "next" && qual != "this" && qual != "coming" {
			a = m[4] // let "by"/"until" be seen as the qualifier
		}
		add(a, m[1], today.AddDate(0, 0, days), false)
	}
	for _, m := range all(fRelDay, relDayRe) {
		switch {
		case m[2] >= 0:
			add(m[0], m[1], today.AddDate(0, 0, 2), false)
		case m[4] >= 0:
			add(m[0], m[1], today.AddDate(0, 0, 1), false)
		default:
			add(m[0], m[1], today, false)
		}
	}
	for _, m := range all(fUnit, inNRe) {
		k := parseNumber(s[m[2]:m[3]])
		if k <= 0 || k > 1000 {
			continue
		}
		unit := strings.TrimSuffix(s[m[4]:m[5]], "s")
		switch unit {
		case "minute":
			add(m[0], m[1], now.Add(time.Duration(k)*time.Minute).Truncate(time.Second), true)
		case "hour":
			add(m[0], m[1], now.Add(time.Duration(k)*time.Hour).Truncate(time.Second), true)
		case "day":
			add(m[0], m[1], today.AddDate(0, 0, k), false)
		case "week":
			add(m[0], m[1], today.AddDate(0, 0, 7*k), false)
		case "month":
			add(m[0], m[1], addMonths(today, k), false)
		case "year":
			add(m[0], m[1], addMonths(today, 12*k), false)
		}
	}
	for _, mm := range all(fPeriod, periodRe) {
		which, unit := "this", ""
		switch {
		case mm[6] >= 0: // eow, eom...
			switch s[mm[6]:mm[7]] {
			case "w":
				unit = "week"
			case "m":
				unit = "month"
			case "y":
				unit = "year"
			default:
				unit = "quarter"
			}
		case mm[8] >= 0:
			which, unit = s[mm[8]:mm[9]], s[mm[10]:mm[11]]
		default:
			if mm[2] >= 0 {
				which = s[mm[2]:mm[3]]
			}
			unit = s[mm[4]:mm[5]]
		}
		when, ok := periodEnd(today, which, unit)
		if ok {
			add(mm[0], mm[1], when, false)
		}
	}
	for _, m := range all(fMonth, monthOnlyRe) {
		if next, _ := nextWord(s, m[1]); next != "" && next[0] >= '0' && next[0] <= '9' {
			continue // "in March 2027" or "by June 5": a day or a year, read above
		}
		part := ""
		if m[2] >= 0 {
			part = s[m[2]:m[3]]
		}
		if m[4] >= 0 {
			part = s[m[4]:m[5]]
		}
		mon := parseMonth(s[m[6]:m[7]])
		y := ny
		if mon < nm {
			y++
		}
		var when time.Time
		switch part {
		case "by", "before":
			when = endOfDay(y, mon, 0) // by June: before it begins
			if when.Before(today) {
				when = endOfDay(y+1, mon, 0)
			}
		case "early", "beginning", "beginning of", "start", "start of":
			when = endOfDay(y, mon, 10)
		case "mid", "middle", "middle of":
			when = endOfDay(y, mon, 15)
		default:
			when = endOfDay(y, mon+1, 0)
		}
		if when.Before(today) {
			continue
		}
		add(m[6], m[1], when, false)
	}
	for _, m := range all(fDigit, ordinalDayRe) {
		if next, _ := nextWord(s, m[1]); next == "of" || monthWordRe.MatchString(next) {
			continue // "the 10th of May": read above
		}
		d := atoi(s[m[2]:m[3]])
		for k := range 3 {
			first := time.Date(ny, nm+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
			if when, ok := dayOf(first.Year(), first.Month(), d); ok && !when.Before(today) {
				add(m[0], m[1], when, false)
				break
			}
		}
	}
	clock := t.has(fDigit | fClockWord)
	if n == 0 && !clock {
		return date{}, false
	}
	if n == 0 {
		// A clock time alone ("call back by 5pm") is today, or tomorrow once passed.
		if c := clockRe.FindStringSubmatchIndex(s); c != nil {
			if h, mi, ok := parseClock(s, c); ok {
				when := time.Date(ny, nm, nd, h, mi, 0, 0, time.UTC)
				if h == 23 && mi == 59 {
					when = today
				}
				if when.Before(now) {
					when = when.AddDate(0, 0, 1)
				}
				var prev [1]string
				q := wordsBefore(s, c[0], prev[:]) == 1 && (prev[0] == "by" || prev[0] == "before")
				qs := c[0]
				if q {
					qs = strings.LastIndex(s[:c[0]], prev[0])
				}
				return date{start: c[0], end: c[1], qualStart: qs, t: when, exact: true, qualified: q, clockOnly: true}, true
			}
		}
		return date{}, false
	}
	best := 0
	for i := range n {
		if found[i].qualified && (!found[best].qualified || found[i].start < found[best].start) {
			best = i
		} else if !found[best].qualified && found[i].start < found[best].start {
			best = i
		}
	}
	c := found[best]
	if !c.exact && clock {
		for from, tries := 0, 0; from < len(s) && tries < maxTries; tries++ {
			cl := clockRe.FindStringSubmatchIndex(s[from:])
			if cl == nil {
				break
			}
			for i := range cl {
				if cl[i] >= 0 {
					cl[i] += from
				}
			}
			from = cl[1]
			if cl[0] >= c.start && cl[0] < c.end {
				continue // a part of the date itself
			}
			if h, mi, ok := parseClock(s, cl); ok {
				yy, mo, dd := c.t.Date()
				if h == 23 && mi == 59 {
					c.t = endOfDay(yy, mo, dd)
				} else {
					c.t = time.Date(yy, mo, dd, h, mi, 0, 0, time.UTC)
				}
				break
			}
		}
	}
	return c, true
}

// addMonths is the end of the day k months after day, on the last day of
// the target month when it is shorter (Jan 31 + 1 month is Feb 28).
func addMonths(day time.Time, k int) time.Time {
	y, m, d := day.Date()
	first := time.Date(y, m+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
	last := endOfDay(first.Year(), first.Month()+1, 0).Day()
	return endOfDay(first.Year(), first.Month(), min(d, last))
}

// parseClock reads the clock time of a clockRe match.
func parseClock(s string, c []int) (h, mi int, ok bool) {
	switch {
	case c[12] >= 0:
		switch s[c[12]:c[13]] {
		case "noon", "midday":
			return 12, 0, true
		default:
			return 23, 59, true
		}
	case c[2] >= 0:
		h = atoi(s[c[2]:c[3]])
		if c[4] >= 0 {
			mi = atoi(s[c[4]:c[5]])
		}
		if h < 1 || h > 12 || mi > 59 {
			return 0, 0, false
		}
		pm := s[c[6]] == 'p'
		if h == 12 {
			h = 0
		}
		if pm {
			h += 12
		}
		return h, mi, true
	case c[8] >= 0:
		h, mi = atoi(s[c[8]:c[9]]), atoi(s[c[10]:c[11]])
		if h > 23 || mi > 59 {
			return 0, 0, false
		}
		return h, mi, true
	}
	return 0, 0, false
}

// periodEnd is the last day of this or next week (its Friday), weekend
// (its Sunday), month, quarter or year.
func periodEnd(today time.Time, which, unit string) (time.Time, bool) {
	y, m, _ := today.Date()
	next := which == "next"
	switch unit {
	case "week":
		days := (int(time.Friday) - int(today.Weekday()) + 7) % 7
		if next {
			days += 7
		}
		return today.AddDate(0, 0, days), true
	case "weekend":
		days := (int(time.Sunday) - int(today.Weekday()) + 7) % 7
		if next {
			days += 7
		}
		return today.AddDate(0, 0, days), true
	case "month":
		if next {
			m++
		}
		return endOfDay(y, m+1, 0), true
	case "quarter":
		q := (int(m)-1)/3*3 + 3 // last month of this quarter
		if next {
			q += 3
		}
		return endOfDay(y, time.Month(q)+1, 0), true
	case "year":
		if next {
			y++
		}
		return endOfDay(y, time.December, 31), true
	}
	return time.Time{}, false
}
