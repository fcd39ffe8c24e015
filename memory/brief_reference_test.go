package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// The brief's reference: the plain reading of its rules, one query a
// section reading all of it (every durable fact of the scope scored), packed
// by plain loops (refPackBrief). ContextBrief, which reads pages, must
// return exactly what it returns.

const refDecisionsSQL = `
SELECT d.id, e.name, d.key, d.decision, d.reasoning, d.alternatives, d.decided_by, d.decided_at
FROM decisions d
JOIN entities e ON e.id = d.entity_id
WHERE d.scope = @scope AND d.do_not_reopen AND (@entity::text IS NULL OR e.name = @entity::text)
ORDER BY d.decided_at DESC, d.id DESC`

const refObligationsSQL = `
SELECT f.id, e.name, f.key, f.content, f.durability, f.category, f.deadline, f.confirmed_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.status = 'active' AND f.deadline IS NOT NULL AND f.deadline < @due_before::timestamptz
  AND f.category = 'obligation' AND f.scope = @scope
  AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz OR f.deadline <= f.forget_at)
  AND (@entity::text IS NULL OR e.name = @entity::text)
ORDER BY f.deadline, f.id`

const refStatesSQL = `
SELECT f.id, e.name, f.key, f.content, f.durability, f.category, f.deadline, f.confirmed_at,
    tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz)
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
WHERE f.scope = @scope AND f.status = 'active'
  AND f.category IN ('state', 'mood') AND f.durability IN ('short_term', 'ephemeral')
  AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
  AND NOT (f.category = 'mood' AND f.confirmed_at < @mood_cutoff::timestamptz)
  AND NOT (f.durability = 'ephemeral' AND f.decay_half_life IS NOT NULL
           AND f.decay_from + f.decay_half_life * interval '1 second' < @now::timestamptz)
  AND (@entity::text IS NULL OR e.name = @entity::text)
ORDER BY f.confirmed_at DESC, f.id DESC`

const refDurableSQL = `
SELECT f.id, e.name, f.key, f.content, f.durability, f.category, f.deadline, f.confirmed_at, m.ec
FROM (
    SELECT f.id, tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, @now::timestamptz) AS ec,
        f.importance
    FROM entity_facts f
    JOIN entities e ON e.id = f.entity_id
    WHERE f.scope = @scope AND f.status = 'active'
      AND f.durability IN ('permanent', 'long_term') AND f.category <> 'decision'
      AND (f.forget_at IS NULL OR f.forget_at > @now::timestamptz)
      AND (@entity::text IS NULL OR e.name = @entity::text)
    OFFSET 0
) m
JOIN entity_facts f ON f.id = m.id
JOIN entities e ON e.id = f.entity_id
ORDER BY m.ec * m.importance DESC, m.id DESC`

// referenceBrief is the brief of o at now by the reference.
func referenceBrief(t *testing.T, rf *recallFixture, o BriefOptions) Brief {
	t.Helper()
	ctx := context.Background()
	o, err := o.validate()
	if err != nil {
		t.Fatal(err)
	}
	now := rf.now
	args := pgx.NamedArgs{"scope": o.Scope, "entity": nil, "now": now,
		"due_before": now.Add(obligationHorizon), "mood_cutoff": now.Add(-moodFresh)}
	if o.Entity != "" {
		args["entity"] = o.Entity
	}
	var c briefCandidates
	err = pgx.BeginTxFunc(ctx, rf.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, refDecisionsSQL, args)
		if err != nil {
			return err
		}
		c.decisions, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (BriefDecision, error) {
			var d BriefDecision
			err := r.Scan(&d.ID, &d.Entity, &d.Key, &d.Decision, &d.Reasoning, &d.Alternatives, &d.DecidedBy, &d.DecidedAt)
			if d.Alternatives == nil {
				d.Alternatives = []string{}
			}
			return d, err
		})
		if err != nil {
			return err
		}
		items := func(sql string) ([]BriefItem, error) {
			rows, err := tx.Query(ctx, sql, args)
			if err != nil {
				return nil, err
			}
			return pgx.CollectRows(rows, func(r pgx.CollectableRow) (BriefItem, error) {
				var it BriefItem
				err := r.Scan(&it.FactID, &it.Entity, &it.Key, &it.Content, &it.Durability, &it.Category,
					&it.Deadline, &it.ConfirmedAt, &it.Confidence)
				it.Overdue = it.Category == CategoryObligation && it.Deadline != nil && it.Deadline.Before(now)
				return it, err
			})
		}
		if c.obligations, err = items(refObligationsSQL); err != nil {
			return err
		}
		states, err := items(refStatesSQL)
		if err != nil {
			return err
		}
		seenKey := map[[2]string]bool{}
		for _, it := range states {
			if it.Key != "" {
				if seenKey[[2]string{it.Entity, it.Key}] {
					continue
				}
				seenKey[[2]string{it.Entity, it.Key}] = true
			}
			c.states = append(c.states, it)
		}
		facts, err := items(refDurableSQL)
		if err != nil {
			return err
		}
		shown := map[int64]bool{}
		for _, it := range append(append([]BriefItem{}, c.obligations...), c.states...) {
			shown[it.FactID] = true
		}
		for _, it := range facts {
			if !shown[it.FactID] {
				c.facts = append(c.facts, it)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reference brief: %v", err)
	}
	return refPackBrief(o.Scope, o.Budget, c, now)
}

// refPackBrief packs c by the brief's rules read plainly: every item in
// priority order under the plain header, each when it fits; and when that
// leaves something out, again under the abridged header in two passes: each
// section within its share of the room after the header, then the rest of
// the budget to the items not yet taken, in priority order.
func refPackBrief(scope string, budget int, c briefCandidates, now time.Time) Brief {
	b := refPack(scope, budget, c, now, false)
	if b.Truncated {
		b = refPack(scope, budget, c, now, true)
	}
	b.Used = utf8.RuneCountInString(b.Text())
	return b
}

// refItem is a candidate as the reference sees it: its section, its place
// there, and its line.
type refItem struct {
	section, index  int
	entity, content string
	line            string
}

// refPack packs c under the plain header in one pass, or, abridged, in the
// two passes of the shares. An item is taken when its line has not been
// shown before (same entity and text, case and white space aside; a line of
// general and the same text of anyone; for states and facts the same
// template) and it fits whole.
func refPack(scope string, budget int, c briefCandidates, now time.Time, abridged bool) Brief {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	item := func(it BriefItem) string { return "- [" + norm(it.Entity) + "] " + norm(it.Content) }
	var items []refItem
	for i, d := range c.decisions {
		line := "- [" + norm(d.Entity) + "] " + norm(d.Decision)
		if r := norm(d.Reasoning); r != "" {
			line += " — because " + r
		}
		var alts []string
		for _, a := range d.Alternatives {
			if a = norm(a); a != "" {
				alts = append(alts, a)
			}
		}
		if len(alts) > 0 {
			line += " (rejected: " + strings.Join(alts, ", ") + ")"
		}
		items = append(items, refItem{briefRowDecision, i, d.Entity, d.Decision, line})
	}
	for i, it := range c.obligations {
		line := item(it)
		if it.Deadline != nil {
			line += " (due " + it.Deadline.UTC().Format(time.DateOnly)
			if it.Overdue {
				line += ", overdue"
			}
			line += ")"
		}
		items = append(items, refItem{briefRowObligation, i, it.Entity, it.Content, line})
	}
	for i, it := range c.states {
		line := item(it)
		if !it.ConfirmedAt.IsZero() {
			switch d := now.Sub(it.ConfirmedAt); {
			case d < time.Minute:
				line += " (as of just now)"
			case d < time.Hour:
				line += fmt.Sprintf(" (as of %d min ago)", int(d/time.Minute))
			case d < 48*time.Hour:
				line += fmt.Sprintf(" (as of %d h ago)", int(d/time.Hour))
			default:
				line += fmt.Sprintf(" (as of %d d ago)", int(d/(24*time.Hour)))
			}
		}
		items = append(items, refItem{briefRowState, i, it.Entity, it.Content, line})
	}
	for i, it := range c.facts {
		line := item(it) + " (as of " + it.ConfirmedAt.UTC().Format(time.DateOnly) + ")"
		items = append(items, refItem{briefRowFact, i, it.Entity, it.Content, line})
	}

	said := map[string]bool{}
	key := func(entity, content string) string {
		return strings.ToLower(norm(entity)) + "\x00" + strings.ToLower(norm(content))
	}
	// States and facts also say their template once (lineTemplate).
	template := func(it refItem) string {
		if t := lineTemplate(it.content); t != "" && (it.section == briefRowState || it.section == briefRowFact) {
			return strings.ToLower(norm(it.entity)) + "\x00" + t
		}
		return ""
	}
	// A line of general says what the same text says of anyone.
	fresh := func(it refItem) bool {
		anyone := "\x01" + strings.ToLower(norm(it.content))
		t := template(it)
		return !said[key(it.entity, it.content)] && !said[key(defaultEntity, it.content)] &&
			!(norm(it.entity) == defaultEntity && said[anyone]) && (t == "" || !said[t])
	}
	titles := []string{briefSectionDecisions, briefSectionObligations, briefSectionStates, briefSectionFacts}
	header := utf8.RuneCountInString(briefHeader(scope, abridged, now)) + 1
	if abridged && len(c.decisions) > 0 {
		// Room kept for the line saying how many decisions were left out.
		header += briefLeftOutReserve(scope, budget, now)
	}
	used := header
	truncated := abridged
	taken := make([]bool, len(items))
	// done: taken, or saying what a line shown says (in an abridged packing,
	// once it would fit: a longer one is left out like any other).
	done := make([]bool, len(items))
	var shown [briefSections]int
	// offer takes it when it is fresh and costs at most room, and reports
	// what it cost.
	offer := func(n int, room int) int {
		it := items[n]
		cost := utf8.RuneCountInString(it.line) + 1
		if shown[it.section] == 0 {
			cost += 1 + utf8.RuneCountInString(titles[it.section]) + 1
		}
		if !fresh(it) {
			done[n] = !abridged || cost <= room
			return 0
		}
		if cost > room {
			return 0
		}
		said[key(it.entity, it.content)] = true
		said["\x01"+strings.ToLower(norm(it.content))] = true
		if t := template(it); t != "" {
			said[t] = true
		}
		taken[n], done[n] = true, true
		shown[it.section]++
		used += cost
		return cost
	}
	if abridged {
		room := budget - header
		shares := []int{35, 20, 20, 25}
		var spent [briefSections]int
		for n, it := range items {
			spent[it.section] += offer(n, room*shares[it.section]/100-spent[it.section])
		}
	}
	for n := range items {
		if !done[n] {
			offer(n, budget-used)
			truncated = truncated || !done[n]
		}
	}

	b := Brief{Scope: scope, Budget: budget, Truncated: truncated, AsOf: now.UTC(), now: now,
		Decisions: []BriefDecision{}, Obligations: []BriefItem{}, States: []BriefItem{}, Facts: []BriefItem{}}
	for n, it := range items {
		if !taken[n] {
			if it.section == briefRowDecision && !done[n] {
				b.DecisionsLeftOut++
			}
			continue
		}
		switch it.section {
		case briefRowDecision:
			b.Decisions = append(b.Decisions, c.decisions[it.index])
		case briefRowObligation:
			b.Obligations = append(b.Obligations, c.obligations[it.index])
		case briefRowState:
			b.States = append(b.States, c.states[it.index])
		case briefRowFact:
			b.Facts = append(b.Facts, c.facts[it.index])
		}
	}
	return b
}

// seedBriefScopes fills scopes acme and beta with a few thousand random
// memories of every kind: duplicates that differ only in case or white
// space, states sharing keys, obligations due long ago, soon and late,
// decayed and forgotten facts, ties of score, locked and reopened decisions.
func seedBriefScopes(t *testing.T, rf *recallFixture, seed uint64) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 11))
	names := []string{"Ann", "ann", "Bob", " Bob\tjr ", "Zoë", "東京", "x", "billing-db", "A very long entity name indeed"}
	ids := map[string][]int64{}
	for _, scope := range []string{"acme", "beta"} {
		for _, n := range names {
			var id int64
			if err := rf.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ($1, $2) RETURNING id`, scope, n).Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids[scope] = append(ids[scope], id)
		}
	}
	phrases := []string{"Prefers tea", "prefers  TEA", "Lives in Berlin", "lives in\nberlin", "日本語 を 話す",
		"Ships on Fridays", "Deploy freeze until the audit ends", "x", "Owes the report", "In a meeting",
		"Feeling tired", "Travelling in Japan", "Replication lag is 4 s.",
		// White space a line shows as one space, or not at all.
		"a\u3000\u3000\u3000b", "  spaced \u00a0\u2003 out\t\t\t\t\t\t\t\t text  ", "\u2028\u2029y\u0085"}
	content := func() string {
		if r.IntN(3) == 0 {
			return phrases[r.IntN(len(phrases))]
		}
		n := 1 + r.IntN(25)
		if r.IntN(20) == 0 {
			n = 200 + r.IntN(300) // longer than any small budget
		}
		return randomWords(r, n, n)
	}
	durs := []string{"permanent", "long_term", "short_term", "ephemeral"}
	cats := []string{"observation", "preference", "identity", "mood", "decision", "routine", "state", "obligation"}
	keys := []string{"", "", "", "mood", "status", "replication_lag", "city"}
	day := 24 * time.Hour
	var rows [][]any
	for i := range 4000 {
		scope := []string{"acme", "beta"}[i%2]
		dur, cat := durs[r.IntN(len(durs))], cats[r.IntN(len(cats))]
		key := keys[r.IntN(len(keys))]
		if cat == "decision" {
			key = fmt.Sprintf("k%d", i)
		}
		conf := []float64{0.8, 0.5, 1, 0}[r.IntN(4)]
		if r.IntN(2) == 0 {
			conf = 0.1 + 0.9*r.Float64()
		}
		imp := []float64{0.5, 1, 0.25, 0}[r.IntN(4)]
		if r.IntN(2) == 0 {
			imp = r.Float64()
		}
		age := time.Duration(r.Int64N(int64(400 * day)))
		switch r.IntN(4) {
		case 0:
			age = time.Duration(r.Int64N(int64(3 * day)))
		case 1:
			age = time.Duration(r.IntN(5)) * time.Hour // ties: the same instant
		}
		var deadline, expires, archivedAt *time.Time
		var reason *string
		status := "active"
		if cat == "obligation" && r.IntN(6) > 0 {
			d := rf.now.Add(time.Duration(r.Int64N(int64(40*day))) - 10*day)
			deadline = &d
		}
		if r.IntN(30) == 0 {
			e := rf.now.Add(-time.Hour)
			expires = &e
		}
		if r.IntN(20) == 0 {
			status, archivedAt, reason = "archived", &rf.now, new(string)
			*reason = "decayed"
		}
		rows = append(rows, []any{scope, ids[scope][r.IntN(len(names))], key, content(), dur, cat, conf, imp,
			rf.now.Add(-age), deadline, expires, status, archivedAt, reason})
	}
	if _, err := rf.pool.CopyFrom(ctx, pgx.Identifier{"entity_facts"}, []string{"scope", "entity_id", "key", "content",
		"durability", "category", "confidence", "importance", "confirmed_at", "deadline", "expires_at", "status",
		"archived_at", "archive_reason"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := rf.pool.Exec(ctx, `
		INSERT INTO decisions (fact_id, scope, entity_id, key, decision, reasoning, alternatives, decided_by,
			decided_at, do_not_reopen, reopened_at, reopened_by, reopen_reason)
		SELECT id, scope, entity_id, key, content,
			CASE WHEN id % 3 = 0 THEN '' ELSE 'because ' || left(content, 20) END,
			CASE WHEN id % 4 = 0 THEN ARRAY['MySQL', ' ', 'SQLite  db'] ELSE '{}' END, 'ann',
			confirmed_at - (id % 7) * interval '1 hour', id % 5 <> 0,
			CASE WHEN id % 5 = 0 THEN confirmed_at END, CASE WHEN id % 5 = 0 THEN 'bob' END,
			CASE WHEN id % 5 = 0 THEN 'traffic grew' END
		FROM entity_facts WHERE category = 'decision'`); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"entities", "entity_facts", "decisions"} {
		if _, err := rf.pool.Exec(ctx, "ANALYZE "+table); err != nil {
			t.Fatal(err)
		}
	}
}

// TestContextBriefMatchesReference: on thousands of random memories, every
// brief (whole scopes and single entities, budgets from the smallest to the
// largest) is exactly the reference's: the same items, in the same order,
// with the same confidences, the same text and the same flags.
func TestContextBriefMatchesReference(t *testing.T) {
	rf := newRecallFixture(t)
	seedBriefScopes(t, rf, 1)
	budgets := []int{MinBriefBudget, 201, 257, 333, 500, 800, 1000, 1700, 2500, 4000, 6500, 10000, 25000, MaxBriefBudget}
	for _, scope := range []string{"acme", "beta", "empty"} {
		for _, entity := range []string{"", "Ann", "ann", "Bob jr", "東京", "nobody"} {
			for _, budget := range budgets {
				o := BriefOptions{Scope: scope, Entity: entity, Budget: budget}
				got := rf.brief(t, o)
				want := referenceBrief(t, rf, o)
				gotJSON, _ := json.Marshal(got)
				wantJSON, _ := json.Marshal(want)
				if string(gotJSON) != string(wantJSON) || got.Text() != want.Text() {
					t.Fatalf("brief %+v differs from the reference:\n%s\nwant\n%s", o, got.Text(), want.Text())
				}
			}
		}
	}
	// Later, as memories age: states fall out, obligations become overdue,
	// facts decay past one another.
	for _, later := range []time.Duration{time.Hour, 3 * 24 * time.Hour, 200 * 24 * time.Hour} {
		rf.now = recallNow.Add(later)
		for _, budget := range []int{MinBriefBudget, 1000, 4000, MaxBriefBudget} {
			o := BriefOptions{Scope: "acme", Budget: budget}
			got, want := rf.brief(t, o), referenceBrief(t, rf, o)
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(want)
			if string(gotJSON) != string(wantJSON) {
				t.Fatalf("brief %+v %s later differs from the reference:\n%s\nwant\n%s", o, later, got.Text(), want.Text())
			}
		}
	}
}

// TestBriefLineHelpers holds the packer's shortcuts to what they stand for:
// oneLine to joining the fields, and each candidate's measure to the runes of
// its line.
func TestBriefLineHelpers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Ab", "É", "ǅ", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\u0085", "\xff", "\xe2\x80",
		"日本", "İ", "ß", "Σ", "-", ""}
	random := func() string {
		var sb strings.Builder
		for range r.IntN(8) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		return sb.String()
	}
	for range 20000 {
		s := random()
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
	deadline := recallNow.Add(-36 * time.Hour)
	for range 3000 {
		var c briefCandidates
		for range r.IntN(4) {
			c.decisions = append(c.decisions, BriefDecision{Entity: random(), Decision: random(), Reasoning: random(),
				Alternatives: []string{random(), random()}[:r.IntN(3)]})
		}
		for _, list := range []*[]BriefItem{&c.obligations, &c.states, &c.facts} {
			for range r.IntN(4) {
				it := BriefItem{Entity: random(), Content: random(), Overdue: r.IntN(2) == 0,
					ConfirmedAt: recallNow.Add(-time.Duration(r.Int64N(int64(90 * 24 * time.Hour))))}
				if r.IntN(3) > 0 {
					it.Deadline = &deadline
				}
				*list = append(*list, it)
			}
		}
		lines := briefLinesOf(c, recallNow)
		check := func(line string, l briefLine) {
			if got, want := l.base+l.tail, utf8.RuneCountInString(line)+1; got != want {
				t.Fatalf("%q costs %d, want %d", line, got, want)
			}
		}
		for i, d := range c.decisions {
			check(decisionLine(d), lines.decisions[i])
		}
		for i, it := range c.obligations {
			check(obligationLine(it), lines.obligations[i])
		}
		for i, it := range c.states {
			check(stateLine(it, recallNow), lines.states[i])
		}
		for i, it := range c.facts {
			check(factLine(it), lines.facts[i])
		}
	}
}

// TestPackBriefMatchesReference packs many random candidate sets, with lines
// that repeat one another across sections (in other case and spacing), under
// random budgets: packBrief takes exactly what the reference takes.
func TestPackBriefMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	entities := []string{"Ann", "ANN", " ann ", "Bob", "日本"}
	texts := []string{"Prefers tea", "prefers  TEA", "Lives in Berlin", "x", "Ships on Fridays after the review",
		strings.Repeat("long ", 40) + "text", "İstanbul trip", "i̇stanbul TRIP"}
	text := func() string {
		if r.IntN(4) == 0 {
			return randomWords(r, 1, 30)
		}
		return texts[r.IntN(len(texts))]
	}
	deadline := recallNow.Add(48 * time.Hour)
	for i := range 5000 {
		var c briefCandidates
		n := int64(0)
		for range r.IntN(6) {
			c.decisions = append(c.decisions, BriefDecision{ID: n, Entity: entities[r.IntN(len(entities))], Decision: text(),
				Reasoning: []string{"", "it is cheaper"}[r.IntN(2)], Alternatives: []string{"MySQL"}[:r.IntN(2)]})
			n++
		}
		for _, list := range []*[]BriefItem{&c.obligations, &c.states, &c.facts} {
			for range r.IntN(10) {
				it := BriefItem{FactID: n, Entity: entities[r.IntN(len(entities))], Content: text(),
					ConfirmedAt: recallNow.Add(-time.Duration(r.IntN(1e6)) * time.Second)}
				if list == &c.obligations {
					it.Deadline = &deadline
				}
				*list = append(*list, it)
				n++
			}
		}
		budget := MinBriefBudget + r.IntN(1500)
		if i%7 == 0 {
			budget = MinBriefBudget + r.IntN(40)
		}
		got := packBrief("acme", budget, c, recallNow)
		want := refPackBrief("acme", budget, c, recallNow)
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("budget %d: packBrief =\n%s\nwant\n%s", budget, got.Text(), want.Text())
		}
	}
}

// TestBriefLengthsMatchLines holds the database's measures of a line, which
// the brief's indexes end with and its reads filter on, to the packer's:
// tenure_brief_len(s) is runeLen(oneLine(s)), and tenure_brief_decision_len
// is a decision line's runes without "- [entity] " and its line break.
func TestBriefLengthsMatchLines(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"a", "Ab", "É", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u2003",
		"\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u0085", "\u200b", "\u180e", "日本", "—", "-", ""}
	// Most text has no white space but spaces: the measures take a shorter
	// way for it, which half the strings follow.
	plain := []string{"a", "Ab", "É", " ", "  ", "   ", "日本", "—", "-", ""}
	var from []string
	random := func() string {
		var sb strings.Builder
		for range r.IntN(9) {
			sb.WriteString(from[r.IntN(len(from))])
		}
		return sb.String()
	}
	for i := range 3000 {
		from = pieces
		if i%2 == 0 {
			from = plain
		}
		text, reasoning := random(), random()
		alts := make([]string, r.IntN(4))
		for i := range alts {
			alts[i] = random()
		}
		var n, dn int
		if err := rf.pool.QueryRow(ctx, `SELECT tenure_brief_len($1), tenure_brief_decision_len($1, $2, $3)`,
			text, reasoning, alts).Scan(&n, &dn); err != nil {
			t.Fatal(err)
		}
		if want := runeLen(oneLine(text)); n != want {
			t.Fatalf("tenure_brief_len(%q) = %d, want %d", text, n, want)
		}
		d := BriefDecision{Entity: "e", Decision: text, Reasoning: reasoning, Alternatives: alts}
		if want := runeLen(decisionLine(d)) - len("- [e] "); dn != want {
			t.Fatalf("tenure_brief_decision_len(%q, %q, %q) = %d, want %d", text, reasoning, alts, dn, want)
		}
	}
}

// TestBriefFindsWhatPagesHide puts the rows that decide a brief where a
// page-at-a-time read does not see them first: a short decision behind 400
// long ones, an older short state behind a newer long one on the same key,
// a durable obligation due soon among many durable facts. Under every budget
// from 200 to 3,000 characters the brief is the reference's, the short
// decision is found when it fits, the shadowed state never shows, and the
// obligation never shows as a fact.
func TestBriefFindsWhatPagesHide(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	var ann, bob int64
	if err := rf.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ('deep', 'Ann') RETURNING id`).Scan(&ann); err != nil {
		t.Fatal(err)
	}
	if err := rf.pool.QueryRow(ctx, `INSERT INTO entities (scope, name) VALUES ('deep', 'Bob') RETURNING id`).Scan(&bob); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a long settled choice ", 6)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := rf.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	// 400 long locked decisions, newest first, then the short one, oldest.
	exec(`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confirmed_at)
		SELECT 'deep', $1::bigint, 'd' || i, $2::text || i, 'permanent', 'decision', $3::timestamptz - i * interval '1 minute'
		FROM generate_series(1, 400) i
		UNION ALL
		SELECT 'deep', $1::bigint, 'tea', 'Use tea', 'permanent', 'decision', $3::timestamptz - interval '1000 minutes'`,
		ann, long, rf.now)
	exec(`INSERT INTO decisions (fact_id, scope, entity_id, key, decision, reasoning, decided_at)
		SELECT id, scope, entity_id, key, content, CASE WHEN key = 'tea' THEN 'cheap' ELSE 'it was argued at length' END,
			confirmed_at
		FROM entity_facts WHERE scope = 'deep' AND category = 'decision'`)
	// The newest state on key city is long; an older one on it is short.
	exec(`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confirmed_at) VALUES
		('deep', $1::bigint, 'city', $2::text, 'short_term', 'state', $3::timestamptz - interval '1 hour'),
		('deep', $1::bigint, 'city', 'In Paris', 'short_term', 'state', $3::timestamptz - interval '2 hours'),
		('deep', $4::bigint, '', 'Tired', 'short_term', 'state', $3::timestamptz - interval '3 hours')`,
		ann, strings.Repeat("travelling between cities ", 9), rf.now, bob)
	// Many durable facts, and a durable obligation due tomorrow.
	exec(`INSERT INTO entity_facts (scope, entity_id, key, content, durability, category, confidence, confirmed_at, deadline)
		SELECT 'deep', $1::bigint, '', 'fact number ' || i || ' ' || repeat('x', i % 90), 'long_term', 'observation',
			0.5 + (i % 50) / 100.0, $2::timestamptz - i * interval '1 hour', NULL
		FROM generate_series(1, 600) i
		UNION ALL
		SELECT 'deep', $3::bigint, '', 'Send the report', 'long_term', 'obligation', 0.99, $2::timestamptz, $2::timestamptz + interval '1 day'`,
		bob, rf.now, ann)
	exec(`ANALYZE entity_facts`)
	exec(`ANALYZE decisions`)

	foundTea := false
	for budget := MinBriefBudget; budget <= 3000; budget += 13 {
		o := BriefOptions{Scope: "deep", Budget: budget}
		got, want := rf.brief(t, o), referenceBrief(t, rf, o)
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("budget %d: brief differs from the reference:\n%s\nwant\n%s", budget, got.Text(), want.Text())
		}
		for _, d := range got.Decisions {
			foundTea = foundTea || d.Key == "tea"
		}
		for _, s := range got.States {
			if s.Content == "In Paris" {
				t.Fatalf("budget %d: the older state on key city shows beside the newer one:\n%s", budget, got.Text())
			}
		}
		for _, f := range got.Facts {
			if f.Category == CategoryObligation {
				t.Fatalf("budget %d: the obligation due tomorrow shows as a fact:\n%s", budget, got.Text())
			}
		}
	}
	if !foundTea {
		t.Errorf("no budget showed the short decision behind 400 long ones")
	}
}

// TestPackBriefShowsWhatALeftOutLineSaid: a line counts as said only once it
// is shown. A decision whose reasoning does not fit is left out, and a
// shorter fact that says the same (in other case and spacing) shows in its
// place; a second fact saying it again does not.
func TestPackBriefShowsWhatALeftOutLineSaid(t *testing.T) {
	c := briefCandidates{
		decisions: []BriefDecision{{ID: 1, Entity: "backend", Decision: "Use PostgreSQL",
			Reasoning: strings.Repeat("we already run it and know it well ", 20), Alternatives: []string{}}},
		facts: []BriefItem{
			{FactID: 2, Entity: "Backend", Content: "use  postgresql"},
			{FactID: 3, Entity: "backend", Content: "Use PostgreSQL"},
		},
	}
	b := packBrief("acme", 300, c, recallNow)
	if !b.Truncated || len(b.Decisions) != 0 {
		t.Fatalf("the decision should be left out: %+v", b)
	}
	if len(b.Facts) != 1 || b.Facts[0].FactID != 2 {
		t.Fatalf("facts shown = %+v, want fact 2 alone:\n%s", b.Facts, b.Text())
	}
}

// TestContextBriefFallbackReadsWhole: past briefMaxRounds reads, a brief
// reads every section still open whole, and is still the reference's.
func TestContextBriefFallbackReadsWhole(t *testing.T) {
	defer func(n int) { briefMaxRounds = n }(briefMaxRounds)
	briefMaxRounds = 1
	rf := newRecallFixture(t)
	seedBriefScopes(t, rf, 3)
	for _, budget := range []int{MinBriefBudget, 333, 1000, 4000, 25000} {
		for _, entity := range []string{"", "Ann"} {
			o := BriefOptions{Scope: "acme", Entity: entity, Budget: budget}
			got, want := rf.brief(t, o), referenceBrief(t, rf, o)
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(want)
			if string(gotJSON) != string(wantJSON) {
				t.Fatalf("brief %+v read whole after one round differs from the reference:\n%s\nwant\n%s", o, got.Text(), want.Text())
			}
		}
	}
}
