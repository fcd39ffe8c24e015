package classify

import (
	"regexp"
	"time"
)

var atClockRe = regexp.MustCompile(`\b(?:at|around|by) (?:\d{1,2}(?::\d{2})? ?(?:am\b|pm\b|a\.m\.|p\.m\.)|\d{1,2}:\d{2}\b|noon\b|midnight\b)`)

func (t *text) routine(now time.Time, past bool) (Classification, bool) {
	if loc := t.find(fRecur, recurRe); loc != nil {
		return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "routine",
			Reason: "routine " + t.quote(loc[0], loc[1])}, true
	}
	if past {
		return Classification{}, false
	}
	if loc := t.find(fWork, workScheduleRe); loc != nil {
		return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "work_schedule",
			Reason: "work schedule " + t.quote(loc[0], loc[1])}, true
	}
	if loc := t.find(fDate, atClockRe); loc != nil {
		if d, ok := t.findDate(now); ok && !d.clockOnly {
			return Classification{}, false // a dated appointment, not a habit
		}
		return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "routine",
			Reason: "time of day " + t.quote(loc[0], loc[1])}, true
	}
	return Classification{}, false
}
