package memory

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The brief's shares: when not everything fits, each section first fills
// its share of the room (briefShares), then what the shares leave goes to
// the items not yet taken in priority order.

// briefCandidatesFromBrief is what b shows, as candidates.
func briefCandidatesFromBrief(b Brief) briefCandidates {
	return briefCandidates{decisions: b.Decisions, obligations: b.Obligations, states: b.States, facts: b.Facts}
}

// briefSectionLines are the lines of section s of c (without their line
// breaks), and the id of each.
func briefSectionLines(c briefCandidates, s int, now time.Time) (lines []string, ids []int64) {
	switch s {
	case briefRowDecision:
		for _, d := range c.decisions {
			lines, ids = append(lines, decisionLine(d)), append(ids, d.ID)
		}
		return lines, ids
	case briefRowObligation:
		for _, it := range c.obligations {
			lines, ids = append(lines, obligationLine(it)), append(ids, it.FactID)
		}
		return lines, ids
	case briefRowState:
		for _, it := range c.states {
			lines, ids = append(lines, stateLine(it, now)), append(ids, it.FactID)
		}
		return lines, ids
	}
	for _, it := range c.facts {
		lines, ids = append(lines, factLine(it)), append(ids, it.FactID)
	}
	return lines, ids
}

// briefTitleCost is what a section's title takes in Text: a blank line, the
// title and its line break.
func briefTitleCost(s int) int { return 1 + utf8.RuneCountInString(briefSectionTitles[s]) + 1 }

// briefSectionChars is what section s of b takes in its Text.
func briefSectionChars(b Brief, s int) int {
	lines, _ := briefSectionLines(briefCandidatesFromBrief(b), s, b.now)
	if len(lines) == 0 {
		return 0
	}
	n := briefTitleCost(s)
	for _, l := range lines {
		n += utf8.RuneCountInString(l) + 1
	}
	return n
}

// checkBriefShares checks b against its candidates c, none of which says
// what another says: Used is Text's runes and within Budget; each section
// shows a subsequence of its candidates, in their order; nothing left out
// would still fit in the room b leaves; and in an abridged brief each
// section that left something out filled its share: every item it left out
// costs more than what its share has beyond what the section shows.
func checkBriefShares(t *testing.T, b Brief, c briefCandidates) {
	t.Helper()
	text := b.Text()
	if n := utf8.RuneCountInString(text); b.Used != n || n > b.Budget {
		t.Fatalf("budget %d: Used = %d, Text() is %d runes:\n%s", b.Budget, b.Used, n, text)
	}
	room := b.Budget - b.Used
	share := (b.Budget - utf8.RuneCountInString(briefHeader(b.Scope, true, b.AsOf)) - 1)
	if b.Truncated && len(c.decisions) > 0 {
		// An abridged brief with decisions keeps room for the line saying
		// how many it left out, whether it shows or not.
		reserve := briefLeftOutReserve(b.Scope, b.Budget, b.AsOf)
		share -= reserve
		if b.DecisionsLeftOut == 0 {
			room -= reserve
		} else {
			room -= reserve - utf8.RuneCountInString(decisionsLeftOutLine(b.DecisionsLeftOut, briefLeftOutLong(b.Budget))) - 1
		}
	}
	for s := range briefSections {
		lines, ids := briefSectionLines(c, s, b.now)
		_, shownIDs := briefSectionLines(briefCandidatesFromBrief(b), s, b.now)
		if !isSubsequence(shownIDs, ids) {
			t.Fatalf("budget %d: section %q shows %v, not in the order of %v", b.Budget, briefSectionTitles[s], shownIDs, ids)
		}
		chars := briefSectionChars(b, s)
		for i, l := range lines {
			if slices.Contains(shownIDs, ids[i]) {
				continue
			}
			if !b.Truncated {
				t.Fatalf("budget %d: %q is left out of a brief that is not truncated", b.Budget, l)
			}
			cost := utf8.RuneCountInString(l) + 1
			if len(shownIDs) == 0 {
				cost += briefTitleCost(s)
			}
			if cost <= room {
				t.Fatalf("budget %d: %q (%d characters) is left out, but the brief leaves %d:\n%s", b.Budget, l, cost, room, text)
			}
			if mine := share * briefShares[s] / 100; cost <= mine-chars {
				t.Fatalf("budget %d: %q (%d characters) is left out, but section %q shows %d of its share of %d:\n%s",
					b.Budget, l, cost, briefSectionTitles[s], chars, mine, text)
			}
		}
	}
}

// plainWord is a word for n without digits, so that lines made with it
// are distinct and share no template.
func plainWord(n int) string {
	w := []byte("q")
	for ; n > 0; n /= 26 {
		w = append(w, byte('a'+n%26))
	}
	return string(w)
}

// randomShareCandidates are candidates of every section, none saying what
// another says, with many long decisions half the time, and sometimes one
// section alone.
func randomShareCandidates(r *rand.Rand) briefCandidates {
	var c briefCandidates
	n := 0
	next := func() int { n++; return n }
	decisions, items := r.IntN(8), 12
	if r.IntN(2) == 0 {
		decisions = 20 + r.IntN(60)
	}
	alone := -1
	if r.IntN(5) == 0 {
		alone = r.IntN(briefSections)
		decisions, items = 40, 60
	}
	if alone < 0 || alone == briefRowDecision {
		for range decisions {
			id := next()
			c.decisions = append(c.decisions, BriefDecision{ID: int64(id), Entity: randomWords(r, 1, 2),
				Decision: randomWords(r, 1, 40) + " " + plainWord(id), Reasoning: randomWords(r, 0, 60),
				Alternatives: strings.Fields(randomWords(r, 0, 3))})
		}
	}
	deadline := recallNow.Add(24 * time.Hour)
	for s, list := range []*[]BriefItem{briefRowObligation: &c.obligations, briefRowState: &c.states, briefRowFact: &c.facts} {
		if list == nil || alone >= 0 && alone != s {
			continue
		}
		for range r.IntN(items) {
			id := next()
			it := BriefItem{FactID: int64(id), Entity: randomWords(r, 1, 2), Content: randomWords(r, 1, 40) + " " + plainWord(id),
				ConfirmedAt: recallNow.Add(-time.Duration(r.IntN(1e6)) * time.Second)}
			if s == briefRowObligation {
				it.Deadline, it.Overdue = &deadline, r.IntN(2) == 0
			}
			*list = append(*list, it)
		}
	}
	return c
}

// TestPackBriefSharesProperty packs many random candidate sets, crowded by
// decisions or by one section alone: Used never exceeds Budget; each section
// keeps its order; nothing left out would still fit; each section that left
// something out filled its share; a brief that fits is the plain priority
// packing's, the brief of every budget as large (nothing changes when
// nothing is left out); and the brief is the reference's.
func TestPackBriefSharesProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	crowded, fits := 0, 0
	for range 3000 {
		c := randomShareCandidates(r)
		budget := MinBriefBudget + r.IntN(4000)
		b := packBrief("acme", budget, c, recallNow)
		checkBriefShares(t, b, c)
		if want := refPackBrief("acme", budget, c, recallNow); !sameBrief(b, want) {
			t.Fatalf("budget %d: packBrief =\n%s\nwant the reference's\n%s", budget, b.Text(), want.Text())
		}
		if plain := refPack("acme", budget, c, recallNow, false); !plain.Truncated {
			fits++
			plain.Used = utf8.RuneCountInString(plain.Text())
			if !sameBrief(b, plain) {
				t.Fatalf("budget %d: a brief that fits =\n%s\nwant the priority packing's\n%s", budget, b.Text(), plain.Text())
			}
			larger := packBrief("acme", budget+r.IntN(2000), c, recallNow)
			larger.Budget = budget
			if !sameBrief(b, larger) {
				t.Fatalf("budget %d: a brief that fits changes with a larger budget:\n%s\nwant\n%s", budget, b.Text(), larger.Text())
			}
		} else if len(c.decisions) >= 20 && len(b.Facts)+len(b.Obligations) > 0 {
			crowded++
		}
	}
	if crowded < 100 || fits < 100 {
		t.Errorf("%d crowded briefs showed facts or obligations, %d briefs fit: the cases are not tested", crowded, fits)
	}
}

func sameBrief(a, b Brief) bool {
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	return string(aj) == string(bj) && a.Text() == b.Text()
}

// TestPackBriefSectionAloneFillsBudget: a section with no other section
// beside it is not held to its share, whichever it is: it fills the budget
// as far as its lines allow.
func TestPackBriefSectionAloneFillsBudget(t *testing.T) {
	deadline := recallNow.Add(24 * time.Hour)
	for s := range briefSections {
		var c briefCandidates
		for i := range 100 {
			id := int64(i + 1)
			text := "Line " + plainWord(i+1) + " of a section alone"
			switch s {
			case briefRowDecision:
				c.decisions = append(c.decisions, BriefDecision{ID: id, Entity: "Ann", Decision: text, Alternatives: []string{}})
			case briefRowObligation:
				c.obligations = append(c.obligations, BriefItem{FactID: id, Entity: "Ann", Content: text, Deadline: &deadline})
			case briefRowState:
				c.states = append(c.states, BriefItem{FactID: id, Entity: "Ann", Content: text, ConfirmedAt: recallNow.Add(-time.Hour)})
			default:
				c.facts = append(c.facts, BriefItem{FactID: id, Entity: "Ann", Content: text, ConfirmedAt: recallNow})
			}
		}
		b := packBrief("acme", 2000, c, recallNow)
		checkBriefShares(t, b, c)
		lines, _ := briefSectionLines(c, s, recallNow)
		// Less than a line: less than the longest (lines differ in length).
		most := 0
		for _, l := range lines {
			most = max(most, utf8.RuneCountInString(l)+1)
		}
		if got := briefSectionChars(b, s); !b.Truncated || b.Used <= b.Budget-most {
			t.Errorf("section %q alone takes %d characters of %d (truncated %v), want all but less than a line (%d):\n%s",
				briefSectionTitles[s], got, b.Budget, b.Truncated, most, b.Text())
		}
	}
}

// TestContextBriefManyDecisionsKeepFactsShare: a scope with 300 long locked
// decisions, more than any budget here holds, also has obligations due,
// current states and identity facts. Under every budget whose shares each
// hold a line of their section the brief shows obligations, states and facts
// beside the decisions; under every budget each section that left something
// out filled its share, and the brief is the reference's (which reads every
// row).
func TestContextBriefManyDecisionsKeepFactsShare(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := rf.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	var ann int64
	if err := rf.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ('crowd', 'Ann') RETURNING id`).Scan(&ann); err != nil {
		t.Fatal(err)
	}
	// Texts spell their numbers in letters: lines with digits in them
	// would share a template.
	exec(`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence, importance,
			confirmed_at, deadline)
		SELECT 'crowd', $1::bigint, 'd' || i, 'Settled choice ' || translate(i::text, '0123456789', 'abcdefghij'),
			'permanent', 'decision', 0.9, 0.9, $2::timestamptz - i * interval '1 minute', NULL
		FROM generate_series(1, 300) i
		UNION ALL
		SELECT 'crowd', $1::bigint, '', 'Renew the certificate ' || translate(i::text, '0123456789', 'abcdefghij'),
			'short_term', 'obligation', 0.9, 0.9, $2::timestamptz, $2::timestamptz + i * interval '1 day'
		FROM generate_series(1, 8) i
		UNION ALL
		SELECT 'crowd', $1::bigint, 's' || i, 'Working on rollout ' || translate(i::text, '0123456789', 'abcdefghij'),
			'short_term', 'state', 0.9, 0.9, $2::timestamptz - i * interval '1 hour', NULL
		FROM generate_series(1, 12) i
		UNION ALL
		SELECT 'crowd', $1::bigint, 'f' || i, 'Ann is the owner of service ' || translate(i::text, '0123456789', 'abcdefghij'),
			'permanent', 'identity', 0.5 + i / 100.0, 0.9, $2::timestamptz, NULL
		FROM generate_series(1, 40) i`, ann, rf.now)
	exec(`INSERT INTO decisions (fact_id, scope, entity_id, key, decision, reasoning, alternatives, decided_at)
		SELECT id, scope, entity_id, key, content, 'it was argued at length over many weeks of review',
			ARRAY['the other choice'], confirmed_at
		FROM entity_facts WHERE scope = 'crowd' AND category = 'decision'`)
	exec(`ANALYZE entity_facts`)
	exec(`ANALYZE decisions`)

	all := rf.brief(t, BriefOptions{Scope: "crowd", Budget: MaxBriefBudget})
	if all.Truncated || len(all.Decisions) != 300 || len(all.Obligations) != 8 || len(all.States) != 12 || len(all.Facts) != 40 {
		t.Fatalf("the whole brief shows %d decisions, %d obligations, %d states, %d facts (truncated %v), want 300, 8, 12, 40",
			len(all.Decisions), len(all.Obligations), len(all.States), len(all.Facts), all.Truncated)
	}
	for _, budget := range []int{400, 700, 1000, 2000, 4000, 8000, 16000} {
		o := BriefOptions{Scope: "crowd", Budget: budget}
		b := rf.brief(t, o)
		if want := referenceBrief(t, rf, o); !sameBrief(b, want) {
			t.Fatalf("budget %d: brief differs from the reference:\n%s\nwant\n%s", budget, b.Text(), want.Text())
		}
		if briefSectionChars(all, briefRowDecision) <= budget {
			t.Fatalf("budget %d holds every decision: the decisions do not crowd it", budget)
		}
		// At 400 characters the decisions' share (35% of 334) holds none of
		// their lines (148 characters with the title): they get only what
		// the other shares leave.
		if budget >= 700 && (len(b.Decisions) == 0 || len(b.Obligations) == 0 || len(b.Facts) == 0 || len(b.States) == 0) {
			t.Errorf("budget %d: %d decisions, %d obligations, %d states, %d facts; want every section shown:\n%s",
				budget, len(b.Decisions), len(b.Obligations), len(b.States), len(b.Facts), b.Text())
		}
		checkBriefShares(t, b, briefCandidatesFromBrief(all))
	}
}
