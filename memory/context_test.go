package memory

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/queries"
)

func (rf *recallFixture) brief(t *testing.T, o BriefOptions) Brief {
	t.Helper()
	b, err := rf.s.ContextBrief(context.Background(), o)
	if err != nil {
		t.Fatalf("ContextBrief(%+v) error = %v", o, err)
	}
	checkBriefBudget(t, b)
	return b
}

// checkBriefBudget checks the invariants of every brief: Used is the rune
// count of Text() and never exceeds Budget.
func checkBriefBudget(t *testing.T, b Brief) {
	t.Helper()
	text := b.Text()
	if n := len([]rune(text)); b.Used != n {
		t.Errorf("brief Used = %d, want len([]rune(Text())) = %d", b.Used, n)
	}
	if b.Used > b.Budget {
		t.Errorf("brief Used = %d, over its budget %d:\n%s", b.Used, b.Budget, text)
	}
}

// decide records a decision by a person, decided age before now.
func (rf *recallFixture) decide(t *testing.T, entity, key, decision, reasoning string, age time.Duration, alternatives ...string) Decision {
	t.Helper()
	d, err := rf.s.RecordDecision(context.Background(), Human("ann@example.com"), NewDecision{
		Scope: "acme", Entity: entity, Key: key, Decision: decision, Reasoning: reasoning,
		Alternatives: alternatives, DecidedAt: rf.now.Add(-age),
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestContextBriefOrderAndFormat(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	day := 24 * time.Hour
	older := rf.decide(t, "backend", "queue", "Use river for jobs", "Transactional enqueueing", 10*day)
	newer := rf.decide(t, "backend", "database", "Use PostgreSQL", "We already run it", day, "MySQL", "SQLite")
	reopened := rf.decide(t, "backend", "cache", "No cache for now", "Not needed yet", 2*day)
	if _, err := rf.s.ReopenDecision(ctx, Human("ann@example.com"), reopened.ID, "traffic grew"); err != nil {
		t.Fatal(err)
	}

	overdue, soon, later := rf.now.Add(-2*day), rf.now.Add(3*day), rf.now.Add(30*day)
	soonID := rf.insert(t, recallFact{content: "Send the quarterly report", durability: "short_term", category: "obligation", deadline: &soon})
	overdueID := rf.insert(t, recallFact{content: "Renew the\npassport", durability: "short_term", category: "obligation", deadline: &overdue})
	rf.insert(t, recallFact{content: "File the taxes", durability: "short_term", category: "obligation", deadline: &later})
	rf.insert(t, recallFact{content: "Someday learn Go", durability: "short_term", category: "obligation"})

	oldState := rf.insert(t, recallFact{content: "Working from Lisbon", durability: "short_term", category: "state", age: 3 * day})
	newState := rf.insert(t, recallFact{entity: "Bob", content: "In a meeting until 3pm", durability: "ephemeral", category: "state", age: time.Hour})
	rf.insert(t, recallFact{content: "Was in Paris", durability: "short_term", category: "state", confidence: 0.3, age: 30 * day}) // past its floor
	mood := rf.insert(t, recallFact{content: "Feeling tired", durability: "ephemeral", category: "mood"})
	rf.insert(t, recallFact{content: "Felt sad", durability: "ephemeral", category: "mood", age: 49 * time.Hour}) // older than 48 h

	identity := rf.insert(t, recallFact{key: "name", content: "Ann Smith is the CTO", durability: "permanent", category: "identity", confidence: 0.95, importance: 0.9})
	pref := rf.insert(t, recallFact{key: "prefers", content: "Prefers short meetings", category: "preference", confidence: 0.9, importance: 0.6})
	faded := rf.insert(t, recallFact{content: "Likes jazz", confidence: 0.9, importance: 0.6, age: 180 * day})
	rf.insert(t, recallFact{content: "Hated the old office", archived: true})
	rf.insert(t, recallFact{scope: "other", content: "Not in this scope", durability: "permanent"})

	b := rf.brief(t, BriefOptions{Scope: "acme"})
	if b.Truncated || b.Budget != DefaultBriefBudget || b.Scope != "acme" {
		t.Errorf("brief = scope %q, budget %d, truncated %v, want acme, %d, false", b.Scope, b.Budget, b.Truncated, DefaultBriefBudget)
	}
	if got := briefDecisionIDs(b); !slices.Equal(got, []int64{newer.ID, older.ID}) {
		t.Errorf("decisions = %v, want the locked ones newest first: %v", got, []int64{newer.ID, older.ID})
	}
	if got := briefItemIDs(b.Obligations); !slices.Equal(got, []int64{overdueID, soonID}) {
		t.Errorf("obligations = %v, want overdue then due soon: %v", got, []int64{overdueID, soonID})
	}
	if !b.Obligations[0].Overdue || b.Obligations[1].Overdue {
		t.Errorf("overdue flags = %v, %v, want true, false", b.Obligations[0].Overdue, b.Obligations[1].Overdue)
	}
	if got := briefItemIDs(b.States); !slices.Equal(got, []int64{mood, newState, oldState}) {
		t.Errorf("states = %v, want the fresh mood and the states, newest first: %v", got, []int64{mood, newState, oldState})
	}
	if got := briefItemIDs(b.Facts); !slices.Equal(got, []int64{identity, pref, faded}) {
		t.Errorf("facts = %v, want by effective confidence × importance: %v", got, []int64{identity, pref, faded})
	}
	if c := b.Facts[2].Confidence; c < 0.44 || c > 0.46 {
		t.Errorf("faded fact confidence = %v, want its effective confidence 0.45", c)
	}

	want := `Memory brief for scope acme, as of 2026-06-01 12:00 UTC

Decisions (settled, do not reopen):
- [backend] Use PostgreSQL — because We already run it (rejected: MySQL, SQLite)
- [backend] Use river for jobs — because Transactional enqueueing

Obligations:
- [Ann] Renew the passport (due 2026-05-30, overdue)
- [Ann] Send the quarterly report (due 2026-06-04)

Current state:
- [Ann] Feeling tired (as of just now)
- [Bob] In a meeting until 3pm (as of 1 h ago)
- [Ann] Working from Lisbon (as of 3 d ago)

Known facts:
- [Ann] Ann Smith is the CTO (as of 2026-06-01)
- [Ann] Prefers short meetings (as of 2026-06-01)
- [Ann] Likes jazz (as of 2025-12-03)
`
	if got := b.Text(); got != want {
		t.Errorf("Text() =\n%s\nwant\n%s", got, want)
	}

	t.Run("entity", func(t *testing.T) {
		b := rf.brief(t, BriefOptions{Scope: "acme", Entity: "Bob"})
		if got := b.Text(); got != "Memory brief for scope acme, as of 2026-06-01 12:00 UTC\n\nCurrent state:\n- [Bob] In a meeting until 3pm (as of 1 h ago)\n" {
			t.Errorf("Text() for entity Bob =\n%s", got)
		}
	})

	t.Run("empty", func(t *testing.T) {
		b := rf.brief(t, BriefOptions{Scope: "empty"})
		if got, want := b.Text(), "Memory brief for scope empty, as of 2026-06-01 12:00 UTC\n\nNothing is remembered here yet.\n"; got != want || b.Truncated {
			t.Errorf("Text() of an empty scope = %q, want %q", got, want)
		}
		if b.Decisions == nil || b.Obligations == nil || b.States == nil || b.Facts == nil {
			t.Errorf("empty brief has nil sections: %+v; want empty lists (JSON [])", b)
		}
	})
}

func TestContextBriefDecisionsFirstWithTinyBudget(t *testing.T) {
	rf := newRecallFixture(t)
	var ids []int64
	for i := range 6 {
		d := rf.decide(t, "backend", fmt.Sprintf("k%d", i), fmt.Sprintf("Decision %d", i),
			"Argued", time.Duration(6-i)*time.Hour)
		ids = append(ids, d.ID)
	}
	for i := range 20 {
		rf.insert(t, recallFact{content: "Durable fact " + strings.Repeat("x", i+1), durability: "permanent", confidence: 0.99, importance: 1})
	}
	b := rf.brief(t, BriefOptions{Scope: "acme", Budget: MinBriefBudget})
	if !b.Truncated {
		t.Errorf("brief of budget %d is not truncated", MinBriefBudget)
	}
	if len(b.Decisions) == 0 {
		t.Fatalf("brief of budget %d has no decisions:\n%s", MinBriefBudget, b.Text())
	}
	if got := briefDecisionIDs(b); !slices.Equal(got, []int64{ids[5], ids[4]}[:len(got)]) {
		t.Errorf("decisions = %v, want the newest first: %v", got, []int64{ids[5], ids[4]})
	}
	// The facts' share of so small a budget holds no fact's line, and what
	// the shares leave goes to the decisions first.
	if len(b.Facts) > 0 {
		t.Errorf("facts shown while decisions were left out:\n%s", b.Text())
	}
	if !strings.HasPrefix(b.Text(), "Memory brief for scope acme, as of 2026-06-01 12:00 UTC (abridged; recall finds more)\n5 locked decisions left out\n\nDecisions (settled, do not reopen):\n") {
		t.Errorf("Text() = %q, want the abridged header, then decisions", b.Text())
	}

	t.Run("a decision too long for the budget is left out whole", func(t *testing.T) {
		rf.decide(t, "backend", "long", strings.Repeat("very ", 60)+"long decision", "Because", 0)
		b := rf.brief(t, BriefOptions{Scope: "acme", Budget: MinBriefBudget})
		if strings.Contains(b.Text(), "very") || len(b.Decisions) == 0 || !b.Truncated {
			t.Errorf("brief = %+v, want the long decision left out whole and older ones shown:\n%s", b, b.Text())
		}
	})

	t.Run("a large budget shows everything", func(t *testing.T) {
		b := rf.brief(t, BriefOptions{Scope: "acme", Budget: MaxBriefBudget})
		if b.Truncated || len(b.Decisions) != 7 || len(b.Facts) != 20 {
			t.Errorf("brief = %d decisions, %d facts, truncated %v; want 7, 20, false", len(b.Decisions), len(b.Facts), b.Truncated)
		}
	})
}

func TestContextBriefRefusesBadOptions(t *testing.T) {
	rf := newRecallFixture(t)
	tests := []struct {
		o     BriefOptions
		field string
		want  string
	}{
		{BriefOptions{}, "scope", "scope is empty"},
		{BriefOptions{Scope: "A B"}, "scope", "lowercase"},
		{BriefOptions{Scope: "acme", Budget: 199}, "budget", "200 to 100000"},
		{BriefOptions{Scope: "acme", Budget: -1}, "budget", "200 to 100000"},
		{BriefOptions{Scope: "acme", Budget: 100001}, "budget", "200 to 100000"},
		{BriefOptions{Scope: "acme", Entity: strings.Repeat("x", 201)}, "entity", "at most 200"},
	}
	for _, tt := range tests {
		_, err := rf.s.ContextBrief(context.Background(), tt.o)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalid || e.Field != tt.field || !strings.Contains(e.Message, tt.want) {
			t.Errorf("ContextBrief(%+v) error = %v, want invalid %s naming %q", tt.o, err, tt.field, tt.want)
		}
	}
}

// TestContextBriefBudgetProperty fills a scope with random memories of
// random lengths (multi-byte letters and line breaks included) and asks for
// briefs of random budgets: Used never exceeds Budget, and the brief is
// truncated exactly when something was left out.
func TestContextBriefBudgetProperty(t *testing.T) {
	rf := newRecallFixture(t)
	r := rand.New(rand.NewPCG(1, 2))
	day := 24 * time.Hour
	total := 0
	for i := range 15 {
		rf.decide(t, randomWords(r, 1, 2), fmt.Sprintf("k%d", i), randomWords(r, 1, 30), randomWords(r, 1, 40),
			time.Duration(r.IntN(100))*day, strings.Fields(randomWords(r, 0, 3))...)
		total++
	}
	for range 60 {
		f := recallFact{entity: randomWords(r, 1, 2), content: randomWords(r, 1, 80), confidence: 0.2 + 0.8*r.Float64(),
			importance: 0.01 + 0.99*r.Float64(), age: time.Duration(r.IntN(20*24)) * time.Hour}
		switch r.IntN(4) {
		case 0:
			d := rf.now.Add(time.Duration(r.IntN(20*24)-5*24) * time.Hour)
			f.durability, f.category, f.deadline, f.age = "short_term", "obligation", &d, 0
		case 1:
			f.durability, f.category = []string{"short_term", "ephemeral"}[r.IntN(2)], "state"
		default:
			f.durability, f.category = []string{"permanent", "long_term"}[r.IntN(2)], []string{"identity", "preference", "observation"}[r.IntN(3)]
		}
		rf.insert(t, f)
	}
	all := rf.brief(t, BriefOptions{Scope: "acme", Budget: MaxBriefBudget})
	if all.Truncated {
		t.Fatalf("brief of the largest budget is truncated")
	}
	everything := briefCount(all)
	if len(all.Decisions) != total || everything < 40 {
		t.Fatalf("largest brief has %d decisions and %d items in all, want %d decisions and most facts", len(all.Decisions), everything, total)
	}
	for range 150 {
		budget := MinBriefBudget + r.IntN(all.Used+200-MinBriefBudget)
		b := rf.brief(t, BriefOptions{Scope: "acme", Budget: budget})
		if b.Budget != budget {
			t.Fatalf("brief budget = %d, want %d", b.Budget, budget)
		}
		if got := briefCount(b); b.Truncated != (got < everything) {
			t.Errorf("budget %d: truncated = %v with %d of %d items", budget, b.Truncated, got, everything)
		}
		if budget >= all.Used && b.Truncated {
			t.Errorf("budget %d ≥ the full brief's %d characters, but truncated", budget, all.Used)
		}
		// Items keep their priority order: each section is a subsequence of
		// the full brief's.
		if !isSubsequence(briefDecisionIDs(b), briefDecisionIDs(all)) || !isSubsequence(briefItemIDs(b.Obligations), briefItemIDs(all.Obligations)) ||
			!isSubsequence(briefItemIDs(b.States), briefItemIDs(all.States)) || !isSubsequence(briefItemIDs(b.Facts), briefItemIDs(all.Facts)) {
			t.Errorf("budget %d: items out of priority order", budget)
		}
		// Nothing left out would still fit in the room the brief leaves, and
		// a section that left something out filled its share first.
		checkBriefShares(t, b, briefCandidatesFromBrief(all))
	}
}

// TestPackBriefProperty checks the packing alone on many random candidate
// sets, without a database.
func TestPackBriefProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	deadline := recallNow
	for i := range 2000 {
		var c briefCandidates
		n := 0
		for range r.IntN(8) {
			c.decisions = append(c.decisions, BriefDecision{ID: int64(n), Entity: randomWords(r, 1, 3),
				Decision: randomWords(r, 1, 60), Reasoning: randomWords(r, 0, 60), Alternatives: strings.Fields(randomWords(r, 0, 4))})
			n++
		}
		for _, list := range []*[]BriefItem{&c.obligations, &c.states, &c.facts} {
			for range r.IntN(12) {
				// Distinct texts: the packer leaves out a line said twice.
				it := BriefItem{FactID: int64(n), Entity: randomWords(r, 1, 3), Content: randomWords(r, 1, 120) + " " + fmt.Sprint(n),
					ConfirmedAt: recallNow.Add(-time.Duration(r.IntN(1e6)) * time.Second)}
				if list == &c.obligations {
					it.Deadline, it.Overdue = &deadline, r.IntN(2) == 0
				}
				*list = append(*list, it)
				n++
			}
		}
		budget := MinBriefBudget + r.IntN(3000)
		if i%10 == 0 {
			budget = MinBriefBudget + r.IntN(50)
		}
		b := packBrief("s"+strings.Repeat("x", r.IntN(62)), budget, c, recallNow)
		if n := utf8.RuneCountInString(b.Text()); b.Used != n || n > budget {
			t.Fatalf("packBrief(budget %d): Used = %d, Text() is %d runes", budget, b.Used, n)
		}
		if got := briefCount(b); b.Truncated != (got < n) {
			t.Fatalf("packBrief(budget %d): truncated = %v with %d of %d items", budget, b.Truncated, got, n)
		}
	}
}

// randomWords returns min to max words of mixed scripts, with an occasional
// line break.
func randomWords(r *rand.Rand, min, max int) string {
	words := []string{"tea", "Kyoto", "naïve", "日本語", "réunion", "data", "Ωmega", "go", "a", "Postgres", "東京", "line\nbreak"}
	n := min + r.IntN(max-min+1)
	out := make([]string, n)
	for i := range out {
		out[i] = words[r.IntN(len(words))]
	}
	return strings.Join(out, " ")
}

func briefDecisionIDs(b Brief) []int64 {
	ids := make([]int64, len(b.Decisions))
	for i, d := range b.Decisions {
		ids[i] = d.ID
	}
	return ids
}

func briefItemIDs(items []BriefItem) []int64 {
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = it.FactID
	}
	return ids
}

func briefCount(b Brief) int {
	return len(b.Decisions) + len(b.Obligations) + len(b.States) + len(b.Facts)
}

func isSubsequence(sub, full []int64) bool {
	i := 0
	for _, x := range full {
		if i < len(sub) && sub[i] == x {
			i++
		}
	}
	return i == len(sub)
}

// TestBriefFactsAgreeWithFullRanking: the brief's walk of durable facts
// picks the same facts, in the same order and with the same confidences, as
// scoring every durable fact of the scope: when the best scores lie deep in
// a group (old facts with a high confidence × importance that have decayed),
// when obligations wait for a deadline ahead or decay from one behind (more
// of those than a first walk reads, which takes a deeper one), when one
// group holds most of the best, when facts tie at the last place and when
// facts past their forget_at rank first.
func TestBriefFactsAgreeWithFullRanking(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	now := fx.clock()
	if _, err := fx.pool.Exec(ctx, `INSERT INTO entities (scope, name) VALUES ('acme', 'Ann'), ('other', 'Bob')`); err != nil {
		t.Fatal(err)
	}
	// 1,000 permanent facts confirmed 20 years ago (a quarter of their
	// confidence left), with high bounds; 1,000 long-term facts confirmed in
	// the last month; obligations due ahead and behind; decisions,
	// short-term facts and another scope's, which never count.
	if _, err := fx.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, content, durability, category,
			confidence, importance, confirmed_at, deadline)
		SELECT e.scope, e.id, 'fact ' || i, d.durability, d.category,
			d.c0 + (i % 97) / 1000.0, d.imp - (i % 89) / 1000.0, $1::timestamptz - d.age - (i % 30) * interval '1 day',
			CASE WHEN d.category = 'obligation' THEN $1::timestamptz + ((i % 40) - 4) * interval '1 day' END
		FROM generate_series(1, 1000) i
		CROSS JOIN (VALUES
			('permanent', 'identity', 0.9, 0.99, interval '7300 days', 'acme'),
			('long_term', 'preference', 0.5, 0.6, interval '0 days', 'acme'),
			('long_term', 'obligation', 0.7, 0.9, interval '0 days', 'acme'),
			('permanent', 'decision', 0.9, 0.99, interval '0 days', 'acme'),
			('short_term', 'state', 0.9, 0.99, interval '0 days', 'acme'),
			('long_term', 'preference', 0.9, 0.99, interval '0 days', 'other')
		) AS d(durability, category, c0, imp, age, scope)
		JOIN entities e ON e.scope = d.scope
		UNION ALL
		-- 300 routines that never decay, all with the same score: ties,
		-- broken by the newest id.
		SELECT e.scope, e.id, 'routine ' || i, 'long_term', 'routine', 0.7, 0.7, $1::timestamptz, NULL
		FROM generate_series(1, 300) i
		JOIN entities e ON e.scope = 'acme'
		UNION ALL
		-- 400 long-term facts stated at one instant with one confidence and
		-- importance: a block of equal scores in a decaying group.
		SELECT e.scope, e.id, 'same ' || i, 'long_term', 'observation', 0.62, 0.62, $1::timestamptz - interval '3 days', NULL
		FROM generate_series(1, 400) i
		JOIN entities e ON e.scope = 'acme'
		UNION ALL
		-- 1,200 obligations with the highest confidence × importance, due a
		-- day or three ago: decaying since, they rank far below their bound.
		SELECT e.scope, e.id, 'overdue ' || i, 'long_term', 'obligation', 0.99, 0.99 - (i % 7) / 1000.0,
			$1::timestamptz - interval '10 days', $1::timestamptz - (1 + i % 3) * interval '1 day' - (i % 60) * interval '1 minute'
		FROM generate_series(1, 1200) i
		JOIN entities e ON e.scope = 'acme'`, now); err != nil {
		t.Fatal(err)
	}
	// The best long-term fact is archived, and some of the best permanent
	// ones are past their expiry (forgotten, not yet archived).
	if _, err := fx.pool.Exec(ctx, `UPDATE entity_facts SET status = 'archived', archived_at = $1
		WHERE id IN (SELECT id FROM entity_facts WHERE durability = 'long_term' AND scope = 'acme' ORDER BY confidence DESC LIMIT 1)`, now); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.pool.Exec(ctx, `UPDATE entity_facts SET expires_at = $1::timestamptz - interval '1 hour'
		WHERE id IN (SELECT id FROM entity_facts WHERE category = 'routine' ORDER BY id LIMIT 20)`, now); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.pool.Exec(ctx, `ANALYZE entity_facts`); err != nil {
		t.Fatal(err)
	}
	q := queries.New(fx.pool)
	deeper := 0
	for _, n := range []int32{1, 7, 40, 279, 280, 281, 400, 699, 700, 701, 1500, 5000} {
		// No obligation is due before the year 1, so none leaves the facts
		// for the obligations' list.
		p := queries.BriefParams{Scope: "acme", FactRows: n, Now: now, DueBefore: time.Time{}, MoodCutoff: now}
		rows, err := briefRows(ctx, q, p)
		if err != nil {
			t.Fatal(err)
		}
		got := briefCandidatesOf(rows, now, time.Time{}).facts
		var wantIDs []int64
		var wantConf []float64
		wrows, err := fx.pool.Query(ctx, `SELECT m.id, m.ec FROM (
				SELECT f.id, f.importance,
					tenure_decayed(f.confidence, f.decay_from, f.decay_half_life, $1::timestamptz) AS ec
				FROM entity_facts f
				WHERE f.scope = 'acme' AND f.status = 'active' AND f.durability IN ('permanent', 'long_term')
				  AND f.category <> 'decision' AND (f.forget_at IS NULL OR f.forget_at > $1::timestamptz)
				OFFSET 0) m
			ORDER BY m.ec * m.importance DESC, m.id DESC LIMIT $2`, now, n)
		if err != nil {
			t.Fatal(err)
		}
		for wrows.Next() {
			var id int64
			var ec float64
			if err := wrows.Scan(&id, &ec); err != nil {
				t.Fatal(err)
			}
			wantIDs, wantConf = append(wantIDs, id), append(wantConf, ec)
		}
		if err := wrows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(wantIDs) {
			t.Fatalf("n=%d: the walk returned %d facts, the full ranking %d", n, len(got), len(wantIDs))
		}
		for i := range got {
			if got[i].FactID != wantIDs[i] || got[i].Confidence != wantConf[i] {
				t.Fatalf("n=%d: fact %d is %d (%v), the full ranking has %d (%v)", n, i, got[i].FactID,
					got[i].Confidence, wantIDs[i], wantConf[i])
			}
		}
		p.Depth = 1
		if first, err := q.Brief(ctx, p); err != nil {
			t.Fatal(err)
		} else if slices.ContainsFunc(first, func(r queries.BriefRow) bool { return !r.Complete }) {
			deeper++
		}
	}
	if deeper == 0 {
		t.Errorf("no brief needed a deeper walk: the deeper walk is not tested")
	}
}

// autoExplain makes briefs of o through a connection that logs the plan of
// every statement it runs, nested ones included, and returns those plans.
func autoExplain(t *testing.T, rf *recallFixture, o BriefOptions) []string {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var plans []string
	cfg := rf.pool.Config().Copy()
	cfg.MaxConns = 1
	cfg.ConnConfig.Tracer = nil
	cfg.ConnConfig.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		plans = append(plans, n.Message)
		mu.Unlock()
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		for _, set := range []string{"LOAD 'auto_explain'", "SET auto_explain.log_min_duration = 0",
			"SET auto_explain.log_nested_statements = on", "SET auto_explain.log_level = notice"} {
			if _, err := conn.Exec(ctx, set); err != nil {
				return fmt.Errorf("%s: %w", set, err)
			}
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := NewStore(pool, Options{Now: func() time.Time { return rf.now }})
	// Enough briefs that the function's statements run on cached plans as
	// well as on fresh ones.
	for range 8 {
		if _, err := s.ContextBrief(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(plans)
}

// TestContextBriefReadsItsIndexes shows the plans of the statements a brief
// runs on a scope among many: each list is read from its own index in the
// order it is shown, not sorted from a scan of the scope.
func TestContextBriefReadsItsIndexes(t *testing.T) {
	rf := newRecallFixture(t)
	ctx := context.Background()
	if _, err := rf.pool.Exec(ctx, `INSERT INTO entities (scope, name)
		SELECT 'scope-' || s, 'Ann' FROM generate_series(0, 9) s`); err != nil {
		t.Fatal(err)
	}
	if _, err := rf.pool.Exec(ctx, `INSERT INTO entity_facts (scope, entity_id, key, content, durability, category,
			confirmed_at, deadline)
		SELECT e.scope, e.id, 'k' || i, 'fact ' || i, d.durability, d.category, $1::timestamptz - i * interval '1 minute',
			CASE WHEN d.category = 'obligation' THEN $1::timestamptz + i * interval '1 hour' END
		FROM generate_series(1, 800) i, entities e,
			(VALUES ('long_term', 'preference'), ('short_term', 'state'), ('short_term', 'obligation'),
			        ('permanent', 'decision'), ('long_term', 'observation'), ('permanent', 'identity'),
			        ('long_term', 'routine'), ('long_term', 'obligation')) AS d(durability, category)`, rf.now); err != nil {
		t.Fatal(err)
	}
	if _, err := rf.pool.Exec(ctx, `INSERT INTO decisions (fact_id, scope, entity_id, key, decision, decided_at)
		SELECT id, scope, entity_id, key, content, confirmed_at FROM entity_facts WHERE category = 'decision'`); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"entities", "entity_facts", "decisions"} {
		if _, err := rf.pool.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
			t.Fatal(err)
		}
	}
	// 800 locked decisions fill a budget of 200 alone: a page of decisions,
	// the next page while the first left room, then one round of filtered
	// reads, which find nothing that fits.
	o := BriefOptions{Scope: "scope-3", Budget: 200}
	before := len(rf.sent.stmts)
	if b := rf.brief(t, o); len(b.Decisions) == 0 || len(b.Obligations)+len(b.States)+len(b.Facts) != 0 || !b.Truncated {
		t.Fatalf("brief of 200 characters = %+v, want decisions alone, truncated", b)
	} else if b.DecisionsLeftOut != 800-len(b.Decisions) || b.Used > b.Budget ||
		!strings.Contains(b.Text(), fmt.Sprintf("\n%d locked decisions left out\n", b.DecisionsLeftOut)) {
		t.Fatalf("brief of 200 characters left out %d decisions, want %d said in its text:\n%s", b.DecisionsLeftOut, 800-len(b.Decisions), b.Text())
	}
	if n := rf.sent.countSince(before, "-- name: Brief :many"); n > 3 {
		t.Errorf("a brief the decisions fill sent %d Brief statements, want at most 3", n)
	}
	// The plan of a statement that reads every section after a cursor,
	// filtered by length: a section walked through its index, in its order,
	// has the length bound as an index condition (no table row visited for
	// a row the bound leaves out).
	q := queries.New(rf.pool)
	at, id, short, line := rf.now.Add(time.Hour), int64(1<<40), int32(12), int32(20)
	if _, err := q.Brief(ctx, queries.BriefParams{Scope: "scope-3", Now: rf.now, Depth: 1,
		DueBefore: rf.now.Add(obligationHorizon), MoodCutoff: rf.now.Add(-moodFresh),
		DecRows: 32, DecAfterAt: &at, DecAfterID: &id, DecMaxLen: &short, DecMaxLine: &line,
		OblRows: 32, OblMaxLen: &short, OblMaxLine: &line,
		StRows: 32, StAfterAt: &at, StAfterID: &id, StMaxLen: &short, StMaxLine: &line, StNewestPerKey: true,
		FactRows: 32, FactMaxLen: &short, FactMaxLine: &line}); err != nil {
		t.Fatal(err)
	}
	stmt := rf.sent.stmts[len(rf.sent.stmts)-1]
	text := explain(t, rf.pool, stmt.SQL, stmt.Args...)
	// The decisions are read through one of their two brief indexes: in
	// order (the length bound an index condition), or, when few are short
	// enough, by length; so are the obligations and states when the planner
	// takes a brief index for them.
	walked := false
	for _, ix := range []string{"decisions_brief_idx", "decisions_brief_len_idx",
		"entity_facts_brief_obligations_idx", "entity_facts_brief_states_idx", "entity_facts_brief_len_idx"} {
		scans := []string{"Index Scan Backward using ", "Index Scan using "}
		if strings.Contains(ix, "_len_") {
			scans = append(scans, "Bitmap Index Scan on ")
		}
		i := -1
		for _, scan := range scans {
			if i < 0 {
				i = strings.Index(text, scan+ix+" ")
			}
		}
		if i < 0 {
			continue // on this small table the planner may take another index
		}
		walked = walked || strings.HasPrefix(ix, "decisions_")
		node := text[i:]
		if j := strings.Index(node, "->"); j >= 0 {
			node = node[:j]
		}
		bound := "regexp_replace("
		if strings.HasPrefix(ix, "decisions_") {
			bound = "tenure_brief_decision_len("
		}
		if !strings.Contains(node, "Index Cond:") || !strings.Contains(node[strings.Index(node, "Index Cond:"):], bound) {
			t.Errorf("the length bound is not an index condition of %s:\n%s", ix, node)
		}
		if ix != "entity_facts_brief_len_idx" && ix != "decisions_brief_len_idx" && strings.Contains(text[max(0, i-300):i], "Sort") {
			t.Errorf("the brief sorts what %s reads in order:\n%s", ix, text)
		}
	}
	if !walked {
		t.Errorf("the brief reads the decisions through neither brief index:\n%s", text)
	}
	if strings.Contains(text, "Seq Scan on entity_facts") || strings.Contains(text, "Seq Scan on decisions") {
		t.Errorf("the brief scans a whole table:\n%s", text)
	}

	// The floors every truncated brief reads are index probes: the shortest
	// entity name, decision line and fact text of the scope, none a scan of
	// a table.
	if _, err := q.BriefFloors(ctx, "scope-3"); err != nil {
		t.Fatal(err)
	}
	floors := rf.sent.stmts[len(rf.sent.stmts)-1]
	plan := explain(t, rf.pool, floors.SQL, floors.Args...)
	for _, ix := range []string{"decisions_brief_len_idx", "entity_facts_brief_len_idx"} {
		if !strings.Contains(plan, ix) {
			t.Errorf("BriefFloors does not read %s:\n%s", ix, plan)
		}
	}
	if strings.Contains(plan, "Seq Scan on entity_facts") || strings.Contains(plan, "Seq Scan on decisions") {
		t.Errorf("BriefFloors scans a whole table:\n%s", plan)
	}

	// The durable facts come from tenure_brief_facts: every plan of its
	// statements walks the brief's rank index, first fresh then cached.
	plans := autoExplain(t, rf, BriefOptions{Scope: "scope-3", Budget: MaxBriefBudget})
	walks := 0
	for _, plan := range plans {
		if !strings.Contains(plan, "tenure_brief_group") || strings.Contains(plan, "tenure_brief_facts(") {
			continue
		}
		walks++
		if !strings.Contains(plan, "entity_facts_brief_rank_idx") || strings.Contains(plan, "Seq Scan on entity_facts") {
			t.Errorf("the walk of durable facts does not read entity_facts_brief_rank_idx:\n%s", plan)
		}
	}
	if walks < 8 {
		t.Errorf("saw %d plans of the walk of durable facts in 8 briefs, want 8 or more; plans:\n%s", walks, strings.Join(plans, "\n\n"))
	}
}

// TestBriefSaysDecisionsLeftOut: an abridged brief counts the locked
// decisions it left out and says so on the line under its header, within
// budget; a brief that shows every decision says nothing; as_of is the time
// the brief was made, in JSON and in the header.
func TestBriefSaysDecisionsLeftOut(t *testing.T) {
	var c briefCandidates
	for i := range 40 {
		c.decisions = append(c.decisions, BriefDecision{ID: int64(i + 1), Entity: "backend",
			Decision: "Decision " + plainWord(i+1) + " stands", Reasoning: "it was argued at length", Alternatives: []string{}})
	}
	for _, budget := range []int{MinBriefBudget, 500, 999, 1000, 2500} {
		b := packBrief("acme", budget, c, recallNow)
		want := len(c.decisions) - len(b.Decisions)
		if b.DecisionsLeftOut != want || b.Used > b.Budget || want == 0 {
			t.Fatalf("budget %d: left out %d, want %d (> 0), used %d", budget, b.DecisionsLeftOut, want, b.Used)
		}
		line := fmt.Sprintf("\n%d locked decisions left out\n", want)
		if budget >= budgetLeftOutLong {
			line = fmt.Sprintf("\n%d locked decisions left out: raise budget to see them\n", want)
		}
		if !strings.Contains(b.Text(), line) {
			t.Errorf("budget %d: text does not say %q:\n%s", budget, line, b.Text())
		}
	}
	b := packBrief("acme", MaxBriefBudget, c, recallNow)
	if b.DecisionsLeftOut != 0 || b.Truncated || strings.Contains(b.Text(), "left out") {
		t.Errorf("a brief showing every decision says %d left out:\n%s", b.DecisionsLeftOut, b.Text())
	}
	if !b.AsOf.Equal(recallNow) || !strings.HasPrefix(b.Text(), "Memory brief for scope acme, as of "+recallNow.UTC().Format("2006-01-02 15:04")+" UTC\n") {
		t.Errorf("as_of %v, header %q", b.AsOf, strings.SplitN(b.Text(), "\n", 2)[0])
	}
	if got := decisionsLeftOutLine(1, true); got != "1 locked decision left out: raise budget to see it" {
		t.Errorf("one left out: %q", got)
	}
	if got := decisionsLeftOutLine(123456, false); got != "99999+ locked decisions left out" {
		t.Errorf("many left out: %q", got)
	}
}
