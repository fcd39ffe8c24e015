package classify

import (
	"regexp"
	"time"
)

var (
	// dayClockRe: when someone goes to bed, gets up or starts work, by a
	// bare hour ("I go to bed by 10", "gets up at 6"), told in the present.
	dayClockRe = regexp.MustCompile(`\b(?:go(?:es)? to (?:bed|sleep)|gets? up|wakes? up|(?:am|'m|is|'s|are|'re) up|starts? work|finish(?:es)? work|leaves? work|clocks? (?:in|out)) (?:at|by|around|before|after|about|no later than) \d{1,2}(?::\d{2})?\b`)
	// shiftRe: the shifts or the hours someone works ("works 24-hour
	// shifts", "I work 8 to 4").
	shiftRe = regexp.MustCompile(`\bwork(?:s|ing)? (?:(?:[a-z0-9]+-hour|long|double|split|rotating|night|day|early|late|back-to-back|weekend) )?shifts\b|\bwork(?:s|ing)? (?:from )?\d{1,2}(?::\d{2})? ?(?:am|pm)? ?(?:to|till|until|-) ?\d{1,2}(?::\d{2})? ?(?:am|pm)?\b`)
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
	if loc := t.find(fWork, shiftRe); loc != nil && loc[0] < t.firstClauseEnd() {
		return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "work_schedule",
			Reason: "work schedule " + t.quote(loc[0], loc[1])}, true
	}
	if loc := t.find(fDigit, dayClockRe); loc != nil {
		if _, ok := t.findDate(now); !ok {
			return Classification{Durability: LongTerm, Category: CategoryRoutine, Key: "routine",
				Reason: "time of day " + t.quote(loc[0], loc[1])}, true
		}
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
