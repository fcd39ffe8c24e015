package memory

import (
	"context"
	"slices"

	"github.com/tenurehq/tenure/queries"
)

// Reading a brief a page at a time.
//
// The brief packs greedily (packBriefWith): an item that does not fit is
// skipped, and a shorter one after it may still fit. Reading every candidate
// of every section would cost thousands of rows per brief in a large scope,
// so readBrief reads pages and proves, from what it packed, that the rows it
// did not read change nothing:
//
//   - a section whose read rows (its prefix) are all of it is complete;
//   - otherwise, let a pass's probe be its state just before the first row
//     after the prefix. When the first packing (plain header, one pass) had
//     not left anything out by then, a later row that does not fit would be
//     the first left out (the brief's header says so), so the next page is
//     read. When it had, an unread row changes nothing if its line costs
//     more than the room it would be offered. It is offered in the first
//     packing, and, since that one leaves something out, in both passes of
//     the second: within its section's share, then within the leftover. In
//     each pass the room only shrinks from one candidate to the next (a
//     section's share as the section takes items, the whole budget's rest
//     as anything is taken), so the room at its place is at most the room
//     at the probe before it; the probes report each pass's room, and the
//     bound is the largest of them. An unread row that costs more than that
//     bound is skipped in every pass: in the share pass it waits for the
//     leftover pass without being looked at further (only lines shown count
//     for the rule that no line shows twice), and in the others it is left
//     out, which the header already says. Nothing else changes, so the
//     passes reach every later row in the state the read rows alone give,
//     and the argument goes on row by row, section by section. A line
//     costs briefLineFloor characters, plus its entity's name, plus what
//     its text takes (tenure_brief_len; a decision's line with its tail:
//     tenure_brief_decision_len), plus its tail's least (briefTailFloor),
//     plus the section's title when it is the section's first. So only the
//     rows after the prefix whose line could cost no more than that bound
//     are read, through the section's index, which ends with the text's
//     length so that the rows the bound leaves out cost no visit to the
//     table; the entity's name is added on the rows it lets through.
//
// A read is not sent at all when even the scope's shortest entity name and
// the shortest text of the section's rows would not fit (briefFloors, three
// index probes, read once the brief leaves something out). The proof is
// checked again after every read, since the new rows change the packing,
// until every section holds. A brief whose decisions overflow their share
// usually reads one page of decisions, the floors, and the rows of the other
// sections that fit their shares.
const (
	// briefPageChars sizes the first page of a section: budget /
	// briefPageChars + 1 rows, a line of 64 characters each.
	briefPageChars = 64
	// briefLineFloor is what a line takes besides its entity's name, its
	// text and its tail: "- [", "] " and the line break.
	briefLineFloor = 6
	// briefFilterRows is how many rows a filtered read first asks for: the
	// first rows that fit shrink the room, and a read after them asks for
	// four times as many when it must (fewer rows walk less of the facts'
	// groups: 32 took 13 to 20 ms in the slowest bench scopes, 8 takes 8 to
	// 10).
	briefFilterRows = 8
	// briefAll is "every row" for a read.
	briefAll = 1 << 30
)

// briefMaxRounds bounds the reads of one brief; past it every section still
// open is read whole (the proof has never needed more than a few). A
// variable so that a test can reach the fallback.
var briefMaxRounds = 24

// briefFloors are the least a line's parts take in the scope: its entity's
// name, and the text of a row of each section (a decision's line besides its
// entity; a live fact's text for the others).
type briefFloors struct {
	entity int
	text   [briefSections]int
}

// briefTailFloor is the least each section's tail takes beyond what the
// section's length counts: an obligation's " (due 2006-01-02)", a state's
// " (as of 1 h ago)" (a fact's confirmed_at is never the zero time, which
// alone shows no age), a durable fact's " (as of 2006-01-02)", the day it
// was last observed; a decision's length counts its tail.
var briefTailFloor = [briefSections]int{
	briefRowObligation: len(" (due 2006-01-02)"),
	briefRowState:      len(" (as of 1 h ago)"),
	briefRowFact:       factTailLen,
}

// briefSectionRead is what readBrief has read of one section.
type briefSectionRead struct {
	// prefix is the section's first rows, in its order.
	prefix []queries.BriefRow
	// exhausted is set when the prefix is the whole section.
	exhausted bool
	// filtered are rows after the prefix, in order, read by filtered reads:
	// segment k holds filtered[segs[k].start:segs[k+1].start].
	filtered []queries.BriefRow
	segs     []briefSegment
}

// briefSegment is what one filtered read covered: every row after the row
// before filtered[start] whose line (entity and text, tail floor aside)
// takes at most maxLine characters, up to the last row it returned, or to
// the end of the section when complete.
type briefSegment struct {
	start    int
	maxLine  int
	complete bool
}

// briefAsk is one section's read in a round: rows (0: none) after the
// prefix, all of them (filtered false), or, filtered, after
// filtered[start-1] (the prefix when start is 0) only those whose text takes
// at most maxLen characters and at most maxLine with their entity's name.
type briefAsk struct {
	rows            int32
	filtered        bool
	start           int
	maxLen, maxLine int32
}

// readBrief packs the brief of scope within budget, reading the sections
// through q (one snapshot) as the comment above describes. p carries the
// scope, entity and times; readBrief sets the rest. lockedDecisions counts
// the locked decisions the brief covers, read only when the brief leaves
// out decisions it did not read: they are all left out, since the proof
// shows they fit nowhere.
func readBrief(ctx context.Context, q *queries.Queries, scope string, budget int, p queries.BriefParams,
	lockedDecisions func() (int, error)) (Brief, error) {
	page := int32(budget/briefPageChars + 1)
	var secs [briefSections]briefSectionRead
	var asks [briefSections]briefAsk
	asks[briefRowDecision].rows = page
	var floors *briefFloors // read once something is left out
	for round := 1; ; round++ {
		if round > briefMaxRounds {
			for s := range asks {
				if asks[s].rows > 0 {
					asks[s] = briefAsk{rows: briefAll}
				}
			}
		}
		rows, err := readBriefRound(ctx, q, p, &secs, &asks)
		if err != nil {
			return Brief{}, err
		}
		takeBriefRows(&secs, &asks, rows)

		// The marks: each section's candidates from its prefix, then from
		// its prefix and the filtered rows before each segment's start,
		// then from all it read.
		var all []queries.BriefRow
		var marks [briefSections][]int
		for s := range secs {
			sec := &secs[s]
			count := func(n int) int {
				c := briefCandidatesOf(append(slices.Clone(sec.prefix), sec.filtered[:n]...), p.Now, p.DueBefore)
				return [briefSections]int{len(c.decisions), len(c.obligations), len(c.states), len(c.facts)}[s]
			}
			for _, g := range sec.segs {
				marks[s] = append(marks[s], count(g.start))
			}
			if len(sec.segs) == 0 {
				marks[s] = append(marks[s], count(0))
			}
			marks[s] = append(marks[s], count(len(sec.filtered)))
			all = append(append(all, sec.prefix...), sec.filtered...)
		}
		b, probes := packBriefProbed(scope, budget, briefCandidatesOf(all, p.Now, p.DueBefore), &marks, p.Now)
		if b.Truncated && floors == nil {
			f, err := q.BriefFloors(ctx, scope)
			if err != nil {
				return Brief{}, err
			}
			floors = &briefFloors{entity: int(f.EntityFloor)}
			if p.Entity != nil { // the entity asked for is every line's
				floors.entity = runeLen(oneLine(*p.Entity))
			}
			floors.text = [briefSections]int{int(f.DecisionFloor), int(f.FactFloor), int(f.FactFloor), int(f.FactFloor)}
		}
		if !nextBriefAsks(&secs, probes, page, floors, &asks) {
			if dec := &secs[briefRowDecision]; b.Truncated && !dec.exhausted {
				total, err := lockedDecisions()
				if err != nil {
					return Brief{}, err
				}
				// Every decision not read was left out (see above).
				b.DecisionsLeftOut += max(0, total-len(dec.prefix)-len(dec.filtered))
				b.Used = runeLen(b.Text())
			}
			return b, nil
		}
	}
}

// readBriefRound reads the rows asks asks for: the first page of decisions
// through BriefDecisionsPage, anything else through Brief.
func readBriefRound(ctx context.Context, q *queries.Queries, p queries.BriefParams,
	secs *[briefSections]briefSectionRead, asks *[briefSections]briefAsk) ([]queries.BriefRow, error) {
	if d := asks[briefRowDecision]; d.rows > 0 && !d.filtered && len(secs[briefRowDecision].prefix) == 0 &&
		asks[briefRowObligation].rows == 0 && asks[briefRowState].rows == 0 && asks[briefRowFact].rows == 0 {
		page, err := q.BriefDecisionsPage(ctx, queries.BriefDecisionsPageParams{Scope: p.Scope, Entity: p.Entity, MaxRows: d.rows})
		rows := make([]queries.BriefRow, len(page))
		for i, r := range page {
			rows[i] = queries.BriefRow(r)
		}
		return rows, err
	}
	return briefRows(ctx, q, briefParamsFor(p, secs, asks))
}

// nextBriefAsks sets the reads the next round needs, and reports whether
// there is one: a section not proven complete by the probes is read further,
// in order, up to the first that needs its next page.
func nextBriefAsks(secs *[briefSections]briefSectionRead, probes briefProbes, page int32, floors *briefFloors, asks *[briefSections]briefAsk) bool {
	more := false
	*asks = [briefSections]briefAsk{}
	for s := range secs {
		sec := &secs[s]
		if sec.exhausted {
			continue
		}
		if !probes.first[s][0].truncated {
			n := max(page, int32(len(sec.prefix))*3)
			if s == briefRowFact { // the facts are read from the top every time
				n += int32(len(sec.prefix))
			}
			asks[s] = briefAsk{rows: min(n, briefAll)}
			// What the later sections need depends on what this read
			// brings: they wait for the next round.
			return true
		}
		// line is the most a line's entity and text may take and still fit
		// at mark i in some pass: the first packing's, or the share pass or
		// the leftover pass of the second.
		line := func(i int) int {
			l := briefLineRoom(s, probes.first[s][i])
			if probes.secondRan {
				l = max(l, briefLineRoom(s, probes.shares[s][i]), briefLineRoom(s, probes.leftover[s][i]))
			}
			return l
		}
		// Something was left out before the probe, so the floors are read.
		entityFloor := floors.entity
		// fits reports whether a row of the section could take l characters
		// with its entity: the shortest entity and text of the scope must.
		fits := func(l int) bool { return l-entityFloor >= floors.text[s] }
		ask := func(start, l int) {
			asks[s] = briefAsk{rows: briefFilterRows, filtered: true, start: start,
				maxLen: int32(l - entityFloor), maxLine: int32(l)}
			more = true
		}
		done := false
		for i, g := range sec.segs {
			if l := line(i); !fits(l) {
				done = true
			} else if g.maxLine < l {
				ask(g.start, l) // the room grew since: read the segment again
				done = true
			} else if g.complete {
				done = true
			}
			if done {
				break
			}
		}
		if done {
			continue
		}
		end := len(sec.segs) // the mark after every filtered row
		if len(sec.segs) == 0 {
			end = 0
		}
		if l := line(end); fits(l) {
			ask(len(sec.filtered), l)
		}
	}
	return more
}

// briefLineRoom is the most an unread line's entity and text may take and
// still fit at probe pr of section s (or after it): the room, less the
// floors and, when the section shows nothing yet, its title (charged to the
// first line it shows, at most the room left then).
func briefLineRoom(s int, pr briefProbe) int {
	l := pr.room - briefLineFloor - briefTailFloor[s]
	if !pr.started {
		l -= 1 + len(briefSectionTitles[s]) + 1
	}
	return l
}

// briefSectionTitles are the sections' titles, in section order.
var briefSectionTitles = [briefSections]string{briefSectionDecisions, briefSectionObligations, briefSectionStates, briefSectionFacts}

// briefParamsFor is p with the reads of asks, each after its section's
// cursor (the facts, which have no cursor, from the top).
func briefParamsFor(p queries.BriefParams, secs *[briefSections]briefSectionRead, asks *[briefSections]briefAsk) queries.BriefParams {
	cursor := func(s int) *queries.BriefRow {
		sec, a := &secs[s], asks[s]
		if a.filtered && a.start > 0 {
			return &sec.filtered[a.start-1]
		}
		if n := len(sec.prefix); n > 0 {
			return &sec.prefix[n-1]
		}
		return nil
	}
	lens := func(a briefAsk) (*int32, *int32) {
		if !a.filtered {
			return nil, nil
		}
		return &a.maxLen, &a.maxLine
	}
	if a := asks[briefRowDecision]; a.rows > 0 {
		p.DecRows = a.rows
		p.DecMaxLen, p.DecMaxLine = lens(a)
		if r := cursor(briefRowDecision); r != nil {
			p.DecAfterAt, p.DecAfterID = &r.At, &r.ID
		}
	}
	if a := asks[briefRowObligation]; a.rows > 0 {
		p.OblRows = a.rows
		p.OblMaxLen, p.OblMaxLine = lens(a)
		if r := cursor(briefRowObligation); r != nil {
			p.OblAfterDeadline, p.OblAfterID = r.Deadline, &r.ID
		}
	}
	if a := asks[briefRowState]; a.rows > 0 {
		p.StRows = a.rows
		p.StMaxLen, p.StMaxLine = lens(a)
		// A filtered read skips rows, so it must itself leave out a state
		// whose key a newer unread state holds.
		p.StNewestPerKey = a.filtered
		if r := cursor(briefRowState); r != nil {
			p.StAfterAt, p.StAfterID = &r.At, &r.ID
		}
	}
	if a := asks[briefRowFact]; a.rows > 0 {
		p.FactRows = a.rows
		p.FactMaxLen, p.FactMaxLine = lens(a)
		if a.filtered {
			p.FactRows = briefFactRows(&secs[briefRowFact], a)
		}
	}
	return p
}

// briefFactRows is how many facts a filtered read of the facts asks
// tenure_brief_facts for: it reads from the top, and of the rows before its
// cursor it can only return those already read (an unread one there takes
// more than an earlier, larger maxLine), so it asks for those too.
func briefFactRows(sec *briefSectionRead, a briefAsk) int32 {
	return min(a.rows+int32(len(sec.prefix)+a.start), briefAll)
}

// takeBriefRows files the rows of a round's reads into secs.
func takeBriefRows(secs *[briefSections]briefSectionRead, asks *[briefSections]briefAsk, rows []queries.BriefRow) {
	var got [briefSections][]queries.BriefRow
	for _, r := range rows {
		if r.Section >= 0 && int(r.Section) < briefSections {
			got[r.Section] = append(got[r.Section], r)
		}
	}
	for s := range secs {
		a, sec := asks[s], &secs[s]
		if a.rows == 0 {
			continue
		}
		order := briefOrder(int32(s))
		slices.SortFunc(got[s], func(a, b queries.BriefRow) int { return order(&a, &b) })
		n := int32(len(got[s]))
		if !a.filtered {
			if s == briefRowFact {
				sec.prefix = got[s]
			} else {
				sec.prefix = append(sec.prefix, got[s]...)
			}
			sec.exhausted = n < a.rows
			sec.filtered, sec.segs = nil, nil
			continue
		}
		asked := a.rows
		if s == briefRowFact {
			asked = briefFactRows(sec, a)
			// Keep only the rows after the cursor.
			var cursor *queries.BriefRow
			if a.start > 0 {
				cursor = &sec.filtered[a.start-1]
			} else if len(sec.prefix) > 0 {
				cursor = &sec.prefix[len(sec.prefix)-1]
			}
			if cursor != nil {
				got[s] = slices.DeleteFunc(got[s], func(r queries.BriefRow) bool { return order(&r, cursor) <= 0 })
			}
		}
		sec.filtered = append(sec.filtered[:a.start], got[s]...)
		i := 0
		for i < len(sec.segs) && sec.segs[i].start < a.start {
			i++
		}
		sec.segs = append(sec.segs[:i], briefSegment{start: a.start, maxLine: int(a.maxLine), complete: n < asked})
	}
}
