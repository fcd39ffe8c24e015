package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// observedFact is what a test reads of a fact.
type observedFact struct {
	id                   int64
	content, status      string
	confidence           float64
	confirmedAt          time.Time
	decayFrom, forgetAt  *time.Time
	wantFrom, wantForget *time.Time // tenure_decay_state of the row, as the trigger computes it
	extractions          int
}

func (e *env) observedFacts(t *testing.T, scope string) []observedFact {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `
		SELECT f.id, f.content, f.status, f.confidence, f.confirmed_at, f.decay_from, f.forget_at,
			s.decay_from, s.forget_at, f.extraction_count
		FROM entity_facts f
		CROSS JOIN LATERAL tenure_decay_state(f.durability, f.category, f.confidence, f.confirmed_at,
			f.expires_at, f.deadline) s
		WHERE f.scope = $1 ORDER BY f.id`, scope)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []observedFact
	for rows.Next() {
		var f observedFact
		if err := rows.Scan(&f.id, &f.content, &f.status, &f.confidence, &f.confirmedAt, &f.decayFrom, &f.forgetAt,
			&f.wantFrom, &f.wantForget, &f.extractions); err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func timePtrNear(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Sub(*b).Abs() <= time.Microsecond
}

// TestConsolidationConfirmsAtObservedAt: a promoted fact is confirmed when
// its row was observed, decays from then, and its decay terms are the ones
// the trigger computes for that confirmation, for every kind of policy.
func TestConsolidationConfirmsAtObservedAt(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	observed := start.Add(-10 * 24 * time.Hour)
	deadline := start.Add(-5 * 24 * time.Hour)
	later := start.Add(3 * 24 * time.Hour)
	e.push(t, "obs",
		NewNode{Content: "billing-db replication lag is 4 s", ObservedAt: &observed, Properties: map[string]any{
			"entity": "billing-db", "key": "replication_lag", "category": "state", "fact_durability": "short_term", "confidence": 0.8}},
		NewNode{Content: "Ann lives in Porto", ObservedAt: &observed, Properties: map[string]any{
			"entity": "Ann", "key": "home", "category": "identity"}},
		NewNode{Content: "Ann must send the report", ObservedAt: &observed, Properties: map[string]any{
			"entity": "Ann", "key": "report", "category": "obligation", "deadline": deadline.Format(time.RFC3339)}},
		NewNode{Content: "Ann must file taxes", ObservedAt: &observed, Properties: map[string]any{
			"entity": "Ann", "key": "taxes", "category": "obligation", "deadline": later.Format(time.RFC3339)}},
		NewNode{Content: "Use PostgreSQL for billing", ObservedAt: &observed, Properties: map[string]any{
			"entity": "billing", "key": "database", "category": "routine"}},
		NewNode{Content: "billing-db disk is 70% full", Properties: map[string]any{
			"entity": "billing-db", "key": "disk", "category": "state", "fact_durability": "short_term"}},
	)
	e.consolidate(t)
	facts := e.observedFacts(t, "obs")
	if len(facts) != 6 {
		t.Fatalf("%d facts, want 6", len(facts))
	}
	for _, f := range facts {
		want := observed
		if f.content == "billing-db disk is 70% full" {
			want = start // observed when written
		}
		if !f.confirmedAt.Equal(want) {
			t.Errorf("%q confirmed_at = %s, want %s", f.content, f.confirmedAt, want)
		}
		if !timePtrNear(f.decayFrom, f.wantFrom) || !timePtrNear(f.forgetAt, f.wantForget) {
			t.Errorf("%q decay_from %v forget_at %v, want the trigger's %v %v", f.content, f.decayFrom, f.forgetAt, f.wantFrom, f.wantForget)
		}
	}
	got, err := e.store.GetFact(ctx, facts[0].id)
	if err != nil {
		t.Fatal(err)
	}
	if !near(got.EffectiveConfidence, 0.4) {
		t.Errorf("effective confidence = %v, want 0.4: 0.8 over one 10-day half-life since it was observed", got.EffectiveConfidence)
	}
	if facts[2].decayFrom == nil || !facts[2].decayFrom.Equal(deadline) {
		t.Errorf("overdue obligation decays from %v, want its deadline %s (after the observation)", facts[2].decayFrom, deadline)
	}
}

// TestOlderObservationNeverFreshens: a row observed before the fact it
// repeats reinforces it as the older confirmation it is: confirmed_at stays,
// and its confidence counts decayed from its time to the fact's. A newer
// observation, even one from the past, confirms the fact at its time.
func TestOlderObservationNeverFreshens(t *testing.T) {
	e := newEnv(t)
	const h = 10 * 24 * time.Hour // short_term half-life
	t1, t2, t3 := start.Add(-20*24*time.Hour), start.Add(-10*24*time.Hour), start.Add(-5*24*time.Hour)
	row := func(at time.Time, c float64) NewNode {
		return NewNode{Content: "billing-db replication lag is 4 s", ObservedAt: &at, Properties: map[string]any{
			"entity": "billing-db", "key": "replication_lag", "category": "state", "fact_durability": "short_term", "confidence": c}}
	}
	decay := func(c float64, d time.Duration) float64 { return c * math.Pow(2, -d.Hours()/h.Hours()) }

	e.push(t, "obs", row(t2, 0.6))
	e.consolidate(t)
	e.push(t, "obs", row(t1, 0.5)) // older, arrives later
	e.consolidate(t)
	facts := e.observedFacts(t, "obs")
	if len(facts) != 1 || facts[0].extractions != 2 {
		t.Fatalf("facts = %+v, want one fact reinforced once", facts)
	}
	want := 1 - (1-0.6)*(1-decay(0.5, t2.Sub(t1)))
	if !facts[0].confirmedAt.Equal(t2) || !near(facts[0].confidence, want) {
		t.Errorf("after an older observation: confirmed_at %s confidence %v, want %s and %v (0.5 decayed over the 10 days before the fact)",
			facts[0].confirmedAt, facts[0].confidence, t2, want)
	}

	e.push(t, "obs", row(t3, 0.7)) // newer, still in the past
	e.consolidate(t)
	facts = e.observedFacts(t, "obs")
	want = 1 - (1-decay(want, t3.Sub(t2)))*(1-0.7)
	if !facts[0].confirmedAt.Equal(t3) || !near(facts[0].confidence, want) {
		t.Errorf("after a newer observation: confirmed_at %s confidence %v, want %s and %v", facts[0].confirmedAt, facts[0].confidence, t3, want)
	}
	if !timePtrNear(facts[0].forgetAt, facts[0].wantForget) {
		t.Errorf("forget_at %v, want %v", facts[0].forgetAt, facts[0].wantForget)
	}

	// The same through the API's fact writer.
	ctx := context.Background()
	f, _, err := e.store.CreateFact(ctx, agent, NewFact{Scope: "api", Entity: "Ann", Key: "drink", Content: "Ann drinks tea",
		Category: "preference", Durability: ShortTerm, Confidence: pointerTo(0.6), ObservedAt: &t2})
	if err != nil {
		t.Fatal(err)
	}
	f, reinforced, err := e.store.CreateFact(ctx, agent, NewFact{Scope: "api", Entity: "Ann", Key: "drink", Content: "Ann drinks tea",
		Category: "preference", Durability: ShortTerm, Confidence: pointerTo(0.5), ObservedAt: &t1})
	if err != nil {
		t.Fatal(err)
	}
	want = 1 - (1-0.6)*(1-decay(0.5, t2.Sub(t1)))
	if !reinforced || !f.ConfirmedAt.Equal(t2) || !near(f.Confidence, want) {
		t.Errorf("CreateFact of an older observation: reinforced %v, confirmed_at %s, confidence %v; want true, %s, %v",
			reinforced, f.ConfirmedAt, f.Confidence, t2, want)
	}
}

// TestRepeatsInOneBatchFoldInObservedOrder: rows of one batch that state
// the same fact are folded one after the other, in the order they were
// observed, as if each had come in its own run: one fact, confirmed at the
// latest, with the confidence of reinforcing it step by step.
func TestRepeatsInOneBatchFoldInObservedOrder(t *testing.T) {
	e := newEnv(t)
	const h = 10 * 24 * time.Hour
	t1, t2, t3 := start.Add(-9*24*time.Hour), start.Add(-6*24*time.Hour), start.Add(-2*24*time.Hour)
	row := func(at time.Time, c float64) NewNode {
		return NewNode{Content: "Ann drinks tea", ObservedAt: &at, Properties: map[string]any{
			"entity": "Ann", "key": "drink", "category": "preference", "fact_durability": "short_term", "confidence": c}}
	}
	// Pushed out of order, in one batch.
	e.push(t, "obs", row(t3, 0.5), row(t1, 0.6), row(t2, 0.4))
	run := e.consolidate(t)
	facts := e.observedFacts(t, "obs")
	if len(facts) != 1 {
		t.Fatalf("facts = %+v, want one (report %v)", facts, run.Report)
	}
	decay := func(c float64, d time.Duration) float64 { return c * math.Pow(2, -d.Hours()/h.Hours()) }
	c := 0.6
	c = 1 - (1-decay(c, t2.Sub(t1)))*(1-0.4)
	c = 1 - (1-decay(c, t3.Sub(t2)))*(1-0.5)
	if !facts[0].confirmedAt.Equal(t3) || !near(facts[0].confidence, c) || facts[0].extractions != 3 {
		t.Errorf("fact = %+v, want confirmed %s, confidence %v, 3 extractions", facts[0], t3, c)
	}
}

// TestForgottenBeforeObservedIsNotReinforced: a fact whose forget_at had
// passed when a repeat of it was observed is not reinforced by it: the
// repeat is a new fact, and the old one is archived as decayed.
func TestForgottenBeforeObservedIsNotReinforced(t *testing.T) {
	e := newEnv(t)
	t1, t2 := start.Add(-12*24*time.Hour), start.Add(-2*time.Hour)
	mood := func(at time.Time) NewNode {
		return NewNode{Content: "Ann is so tired", ObservedAt: &at, Properties: map[string]any{"entity": "Ann", "category": "mood"}}
	}
	e.push(t, "obs", mood(t1), mood(t2))
	e.consolidate(t)
	if _, err := e.store.Decay(context.Background(), System("decay")); err != nil {
		t.Fatal(err)
	}
	facts := e.observedFacts(t, "obs")
	if len(facts) != 2 || facts[0].status != "archived" || !facts[0].confirmedAt.Equal(t1) ||
		facts[1].status != "active" || !facts[1].confirmedAt.Equal(t2) || facts[1].extractions != 1 {
		t.Fatalf("facts = %+v, want the mood of 12 days ago archived and a new one of 2 hours ago", facts)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE archive_reason = 'decayed'`); n != 1 {
		t.Errorf("archived as decayed: %d, want 1", n)
	}
}

// TestDecisionRowDecidedWhenObserved: a decision pushed as a row is decided
// when the row was observed.
func TestDecisionRowDecidedWhenObserved(t *testing.T) {
	e := newEnv(t)
	at := start.Add(-30 * 24 * time.Hour)
	e.push(t, "obs", NewNode{Content: "We decided to use PostgreSQL instead of MySQL because we already run it.", ObservedAt: &at,
		Properties: map[string]any{"entity": "billing", "key": "database", "category": "decision"}})
	e.consolidate(t)
	if n := e.count(t, `SELECT count(*) FROM decisions d JOIN entity_facts f ON f.id = d.fact_id
		WHERE d.decided_at = $1 AND f.confirmed_at = $1`, at); n != 1 {
		t.Errorf("decisions decided and confirmed when observed: %d, want 1", n)
	}
}

// TestObligationDatesReadAsOfObservation: the classifier reads a row's dates
// as of when it was said.
func TestObligationDatesReadAsOfObservation(t *testing.T) {
	e := newEnv(t)
	said := time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC) // a Monday
	e.push(t, "obs", NewNode{Content: "Ann must send the invoice by Friday", ObservedAt: &said})
	e.consolidate(t)
	var deadline time.Time
	if err := e.pool.QueryRow(context.Background(), `SELECT deadline FROM entity_facts WHERE category = 'obligation'`).Scan(&deadline); err != nil {
		t.Fatal(err)
	}
	if deadline.Format(time.DateOnly) != "2026-02-06" {
		t.Errorf("deadline = %s, want the Friday after it was said, 2026-02-06", deadline)
	}
}

// factStates lists the facts of a scope on entity and key as "content
// status reason", oldest first.
func (e *env) factStates(t *testing.T, scope string) map[string]string {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `
		SELECT f.content, f.status, coalesce(f.archive_reason, ''),
			coalesce((SELECT w.content FROM entity_facts w
				WHERE f.archive_reason LIKE 'superseded by fact %'
				  AND w.id = substr(f.archive_reason, length('superseded by fact ') + 1)::bigint), '')
		FROM entity_facts f WHERE f.scope = $1 ORDER BY f.id`, scope)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var content, status, reason, by string
		if err := rows.Scan(&content, &status, &reason, &by); err != nil {
			t.Fatal(err)
		}
		switch {
		case by != "":
			out[content] = status + " superseded by " + by
		case reason != "":
			out[content] = status + " " + reason
		default:
			out[content] = status
		}
	}
	return out
}

func wantStates(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("facts = %v, want %v", got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

// TestSupersessionInObservedOrder: of two values of one attribute, the
// later-observed one is current even when it arrived first, whichever
// writer writes them; the earlier one is archived as superseded by it.
func TestSupersessionInObservedOrder(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	day := func(d int) *time.Time { at := start.Add(time.Duration(d) * 24 * time.Hour); return &at }
	home := func(content string, at *time.Time) NewNode {
		return NewNode{Content: content, ObservedAt: at, Properties: map[string]any{"entity": "Ann", "key": "home", "category": "identity"}}
	}

	// Across runs: the newer value arrives first.
	e.push(t, "runs", home("Ann lives in Porto.", day(-3)))
	e.consolidate(t)
	e.push(t, "runs", home("Ann lives in Lisbon.", day(-40)))
	e.consolidate(t)
	wantStates(t, e.factStates(t, "runs"), map[string]string{
		"Ann lives in Porto.": "active", "Ann lives in Lisbon.": "archived superseded by Ann lives in Porto."})

	// In one batch, pushed newest first.
	e.push(t, "batch", home("Ann lives in Porto.", day(-3)), home("Ann lives in Faro.", day(-20)), home("Ann lives in Lisbon.", day(-40)))
	e.consolidate(t)
	got := e.factStates(t, "batch")
	if got["Ann lives in Porto."] != "active" || got["Ann lives in Faro."] != "archived superseded by Ann lives in Porto." ||
		got["Ann lives in Lisbon."] != "archived superseded by Ann lives in Porto." {
		t.Errorf("one batch newest first: %v, want Porto current and the others superseded by it", got)
	}

	// A value, another, then the first again, replayed in one batch: as
	// written at the time, the first is superseded and comes back as a
	// new fact.
	e.push(t, "again", home("Ann lives in Porto.", day(-30)), home("Ann lives in Faro.", day(-20)), home("Ann lives in Porto.", day(-10)))
	e.consolidate(t)
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE scope = 'again' AND status = 'active'`); n != 1 {
		t.Errorf("active facts = %d, want 1", n)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE scope = 'again' AND status = 'active'
		AND content = 'Ann lives in Porto.' AND confirmed_at = $1 AND extraction_count = 1`, *day(-10)); n != 1 {
		t.Errorf("the current fact is not Porto as said again 10 days ago, a new fact: %v", e.factStates(t, "again"))
	}

	// Through the API's fact writer: a late older value is archived at once,
	// and the answer says so.
	f, _, err := e.store.CreateFact(ctx, agent, NewFact{Scope: "api", Entity: "Ann", Key: "home", Content: "Ann lives in Porto.",
		Category: "identity", ObservedAt: day(-3)})
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := e.store.CreateFact(ctx, agent, NewFact{Scope: "api", Entity: "Ann", Key: "home", Content: "Ann lives in Lisbon.",
		Category: "identity", ObservedAt: day(-40)})
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != StatusArchived || old.ArchiveReason != fmt.Sprintf("superseded by fact %d", f.ID) {
		t.Errorf("late older fact = %s (%q), want archived as superseded by fact %d", old.Status, old.ArchiveReason, f.ID)
	}
	if cur := e.factStates(t, "api"); cur["Ann lives in Porto."] != "active" {
		t.Errorf("api facts = %v, want Porto current", cur)
	}

	// A generic key never supersedes, in whatever order.
	status := func(content string, at *time.Time) NewNode {
		return NewNode{Content: content, ObservedAt: at, Properties: map[string]any{"entity": "deploy", "key": "status", "category": "state"}}
	}
	e.push(t, "generic", status("deploy 41 finished", day(-1)), status("deploy 41 is rolling out", day(-2)))
	e.consolidate(t)
	wantStates(t, e.factStates(t, "generic"), map[string]string{"deploy 41 finished": "active", "deploy 41 is rolling out": "active"})
}

// TestForgottenBeforeSupersededIsDecayed: a value already forgotten when
// the next one was observed was never replaced by it: it is archived as
// decayed, while the later value, forgotten since, still replaced the
// value it did outlive.
func TestForgottenBeforeSupersededIsDecayed(t *testing.T) {
	e := newEnv(t)
	day := func(d int) *time.Time { at := start.Add(time.Duration(d) * 24 * time.Hour); return &at }
	lag := func(content string, at *time.Time, durability string) NewNode {
		return NewNode{Content: content, ObservedAt: at, Properties: map[string]any{
			"entity": "billing-db", "key": "replication_lag", "category": "state", "fact_durability": durability}}
	}
	// Ephemeral: forgotten about 4 days after it was observed.
	e.push(t, "ops", lag("billing-db replication lag is 4 s", day(-20), "ephemeral"),
		lag("billing-db replication lag is 9 s", day(-10), "ephemeral"),
		lag("billing-db replication lag is 6 s", day(-9), "short_term"))
	e.consolidate(t)
	if _, err := e.store.Decay(context.Background(), System("decay")); err != nil {
		t.Fatal(err)
	}
	wantStates(t, e.factStates(t, "ops"), map[string]string{
		"billing-db replication lag is 4 s": "archived decayed",
		"billing-db replication lag is 9 s": "archived superseded by billing-db replication lag is 6 s",
		"billing-db replication lag is 6 s": "active",
	})
}

// TestRecallSinceUntil: recall keeps, with since and until, only the facts
// last observed in between, and the pending rows observed then; each result
// carries when it was observed.
func TestRecallSinceUntil(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	day := func(d int) *time.Time { at := start.Add(time.Duration(d) * 24 * time.Hour); return &at }
	paint := func(content string, at *time.Time) NewNode {
		return NewNode{Content: content, ObservedAt: at, Properties: map[string]any{"entity": "Melanie", "category": "observation"}}
	}
	e.push(t, "chat", paint("Melanie painted a sunrise over the lake.", day(-40)),
		paint("Melanie painted a portrait of her dog.", day(-20)),
		paint("Melanie painted the garden shed blue.", day(-5)))
	e.consolidate(t)
	e.push(t, "chat", paint("Melanie painted a mural at the school.", day(-10))) // pending
	recalled := func(q RecallQuery) map[string]time.Time {
		t.Helper()
		q.Scope, q.Query = "chat", "When did Melanie paint?"
		res, err := e.store.Recall(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]time.Time{}
		for _, r := range res {
			out[r.Fact.Content] = r.Fact.ConfirmedAt
		}
		return out
	}
	all := recalled(RecallQuery{})
	if len(all) != 4 || !all["Melanie painted a sunrise over the lake."].Equal(*day(-40)) ||
		!all["Melanie painted a mural at the school."].Equal(*day(-10)) {
		t.Errorf("recall = %v, want the four paintings, each with when it was observed", all)
	}
	got := recalled(RecallQuery{Since: day(-25), Until: day(-8)})
	if len(got) != 2 || got["Melanie painted a portrait of her dog."].IsZero() || got["Melanie painted a mural at the school."].IsZero() {
		t.Errorf("recall since day -25 until day -8 = %v, want the portrait and the pending mural", got)
	}
	if got := recalled(RecallQuery{Until: day(-30)}); len(got) != 1 || got["Melanie painted a sunrise over the lake."].IsZero() {
		t.Errorf("recall until day -30 = %v, want the sunrise", got)
	}
	res, err := e.store.Recall(ctx, RecallQuery{Scope: "chat", Since: day(-6)})
	if err != nil || len(res) != 1 || res[0].Fact.Content != "Melanie painted the garden shed blue." {
		t.Errorf("recall without a query since day -6 = %+v, %v; want the shed", res, err)
	}
	_, err = e.store.Recall(ctx, RecallQuery{Scope: "chat", Query: "paint", Since: day(-1), Until: day(-2)})
	if e := AsError(err); e == nil || e.Field != "until" {
		t.Errorf("until before since = %v, want a refusal naming until", err)
	}
}

// TestBriefInObservedTime: the brief's lines say when each fact was last
// observed; asked with since, it reports what changed after since in
// observed time: a replayed statement observed before since is not news,
// one observed after it is, and so is a value superseded by a value
// observed after it.
func TestBriefInObservedTime(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	day := func(d int) *time.Time { at := start.Add(time.Duration(d) * 24 * time.Hour); return &at }
	e.push(t, "b",
		NewNode{Content: "Ann lives in Lisbon.", ObservedAt: day(-30), Properties: map[string]any{"entity": "Ann", "key": "home", "category": "identity"}},
		NewNode{Content: "Ann plays the cello.", ObservedAt: day(-20), Properties: map[string]any{"entity": "Ann", "key": "instrument", "category": "observation"}},
		NewNode{Content: "Ann lives in Porto.", ObservedAt: day(-3), Properties: map[string]any{"entity": "Ann", "key": "home", "category": "identity"}},
		NewNode{Content: "Ann is on call.", ObservedAt: day(-1), Properties: map[string]any{"entity": "Ann", "key": "on_call", "category": "state"}})
	e.consolidate(t)
	b, err := e.store.ContextBrief(ctx, BriefOptions{Scope: "b"})
	if err != nil {
		t.Fatal(err)
	}
	text := b.Text()
	for _, want := range []string{
		"- [Ann] Ann lives in Porto. (as of " + day(-3).Format(time.DateOnly) + ")",
		"- [Ann] Ann plays the cello. (as of " + day(-20).Format(time.DateOnly) + ")",
		"- [Ann] Ann is on call. (as of 24 h ago)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("brief lacks %q:\n%s", want, text)
		}
	}
	if n := utf8.RuneCountInString(text); n != b.Used {
		t.Errorf("brief used %d, its text has %d characters", b.Used, n)
	}

	b, err = e.store.ContextBrief(ctx, BriefOptions{Scope: "b", Since: day(-10)})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, ch := range b.Changes {
		kinds[ch.Content] = ch.Kind
	}
	if len(kinds) != 3 || kinds["Ann lives in Porto."] != ChangeNew || kinds["Ann is on call."] != ChangeNew ||
		kinds["Ann lives in Lisbon."] != ChangeSuperseded {
		t.Errorf("changes since day -10 = %v, want Porto and on call new and Lisbon superseded (the cello, said 20 days ago, is not news)", kinds)
	}
	b, err = e.store.ContextBrief(ctx, BriefOptions{Scope: "b", Since: day(-2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Changes) != 1 || b.Changes[0].Content != "Ann is on call." || !b.Changes[0].At.Equal(*day(-1)) {
		t.Errorf("changes since day -2 = %+v, want only the state observed a day ago", b.Changes)
	}
}
