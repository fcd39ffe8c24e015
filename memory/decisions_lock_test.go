package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestLockable(t *testing.T) {
	cases := []struct {
		reasoning string
		want      bool
	}{
		{"", false},
		{"   ", false},
		{"transactions", false},
		{" speed\t", false},
		{"Its store saves disk.", true},
		{"the team already runs it", true},
		{"faster builds", true},
		{"cheaper\nhosting", true},
	}
	for _, tc := range cases {
		if got := Lockable(tc.reasoning); got != tc.want {
			t.Errorf("Lockable(%q) = %t, want %t", tc.reasoning, got, tc.want)
		}
	}
}

// TestDecisionWithoutReasoningIsNotLocked: consolidation, an automated
// writer, records every decision row as a decision but locks only those
// whose reasoning a later session can weigh. An unlocked decision is no
// "settled, do not reopen" line of the brief, and refuses no later row on
// its key.
func TestDecisionWithoutReasoningIsNotLocked(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ids := e.push(t, "ops",
		NewNode{Content: "Sam decided to move the night shift to Thursdays.",
			Properties: map[string]any{"entity": "Ops"}},
		NewNode{Content: "We run Postgres for the main database.",
			Properties: map[string]any{"entity": "Ops", "key": "db", "category": "decision", "reasoning": "transactions"}},
		NewNode{Content: "We use RabbitMQ for the job queue.",
			Properties: map[string]any{"entity": "Ops", "key": "queue", "category": "decision",
				"reasoning": "the team already runs it"}},
	)
	run := e.consolidate(t)
	if n := run.Count(PhaseDecide, "decisions"); n != 3 {
		t.Fatalf("report = %v, want three decisions", run.Report)
	}
	want := []struct {
		reasoning string
		locked    bool
	}{{"", false}, {"transactions", false}, {"the team already runs it", true}}
	keys := make([]string, len(ids))
	for i, id := range ids {
		var reasoning string
		var locked bool
		err := e.pool.QueryRow(ctx, `SELECT d.key, d.reasoning, d.do_not_reopen FROM decisions d
			JOIN entity_facts f ON f.id = d.fact_id WHERE f.source_node_id = $1`, id).Scan(&keys[i], &reasoning, &locked)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if reasoning != want[i].reasoning || locked != want[i].locked {
			t.Errorf("row %d: decision on %q with reasoning %q, do_not_reopen = %t; want reasoning %q, do_not_reopen = %t",
				i, keys[i], reasoning, locked, want[i].reasoning, want[i].locked)
		}
	}

	b, err := e.store.ContextBrief(ctx, BriefOptions{Scope: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Decisions) != 1 || b.Decisions[0].Key != "queue" {
		t.Errorf("brief decisions = %+v, want only the locked decision on queue", b.Decisions)
	}

	// A later row on the unlocked decision's key gets no note and becomes a
	// fact; one on the locked decision's key is refused.
	res, err := e.store.PushNoted(ctx, agent, "ops", []NewNode{
		{Content: "The main database moves to MySQL.", Properties: map[string]any{"entity": "Ops", "key": "db"}},
		{Content: "The job queue moves to Kafka.", Properties: map[string]any{"entity": "Ops", "key": "queue"}},
	}, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || res.Notes[0].Row != 1 || res.Notes[0].Code != NoteDecisionLocked {
		t.Errorf("notes = %+v, want one decision_locked note, on the row about the queue", res.Notes)
	}
	next := e.consolidate(t)
	if next.DecisionLocked != 1 {
		t.Errorf("decision_locked = %d, want 1, the row on queue (report %v)", next.DecisionLocked, next.Report)
	}
	if n := e.count(t, `SELECT count(*) FROM consolidation_rejections WHERE node_id = $1`, res.IDs[0]); n != 0 {
		t.Errorf("the row on db was refused %d times; an unlocked decision refuses nothing", n)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE source_node_id = $1 AND key = 'db' AND status = 'active'`,
		res.IDs[0]); n != 1 {
		t.Errorf("%d active facts from the row on db, want 1", n)
	}
	// The keyless decision's key is the classifier's; a row on it is not
	// refused either.
	e.push(t, "ops", NewNode{Content: "The night shift stays on Tuesdays.",
		Properties: map[string]any{"entity": "Ops", "key": keys[0]}})
	if again := e.consolidate(t); again.DecisionLocked != 0 {
		t.Errorf("decision_locked = %d on the keyless decision's key %q, want 0", again.DecisionLocked, keys[0])
	}
}

// TestParaphrasedDecisionIsRefused: an automated decision about the entity
// of a locked decision, on another key but on its topic ("night shift ...
// Thursdays" beside the locked "night shift ... Tuesdays"), is refused as
// decision_locked naming the locked decision, whatever spelling of the
// entity it uses, and never becomes a second decision; a decision of the
// same entity on another topic is written.
func TestParaphrasedDecisionIsRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	locked, err := e.store.RecordDecision(ctx, Human("lead@example.com"), NewDecision{Scope: "ops", Entity: "Ops Team", Key: "night_shift",
		Decision: "The night shift is on Tuesdays.", Alternatives: []string{"Thursdays"},
		Reasoning: "Tuesday has the lowest incident volume."})
	if err != nil {
		t.Fatal(err)
	}
	e.push(t, "ops",
		NewNode{Content: "Night shift runs on Thursdays from now on.", Properties: map[string]any{
			"entity": "ops team", "key": "night_shift_day", "category": "decision", "reasoning": "Sam prefers it this way."}},
		NewNode{Content: "We decided to freeze deploys on Fridays.", Properties: map[string]any{
			"entity": "Ops Team", "category": "decision", "reasoning": "Weekend incidents cost the most."}})
	run := e.consolidate(t)
	if run.DecisionLocked != 1 {
		t.Errorf("decision_locked = %d, want 1 (the paraphrase)", run.DecisionLocked)
	}
	var refusedBy int64
	if err := e.pool.QueryRow(ctx, `SELECT decision_id FROM consolidation_rejections WHERE reason = 'decision_locked'`).Scan(&refusedBy); err != nil {
		t.Fatal(err)
	}
	if refusedBy != locked.ID {
		t.Errorf("the paraphrase was refused by decision %d, want %d", refusedBy, locked.ID)
	}
	var decisions []string
	rows, err := e.pool.Query(ctx, `SELECT decision FROM decisions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		decisions = append(decisions, d)
	}
	if len(decisions) != 2 || decisions[1] != "We decided to freeze deploys on Fridays." {
		t.Errorf("decisions = %q, want the locked one and the deploy freeze", decisions)
	}
}

// TestSameTopic: topics share two words, stop words and plurals aside.
func TestSameTopic(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"The night shift is on Tuesdays. night shift", "Night shift runs on Thursdays from now on. night shift day", true},
		{"We use Postgres for billing. billing db", "We decided to use Postgres for the billing service. db choice", true},
		{"Acme stays on the Standard support tier. support tier", "Let's go with Premium support for Acme. support plan", true},
		{"The night shift is on Tuesdays. night shift", "We decided to freeze deploys on Fridays.", false},
		{"We use Postgres for billing.", "We use Redis for caching.", false},
		{"Use option 1. mcp 1", "Use option 9. choice 9", false},
	} {
		if got := sameTopic(topicWords(tc.a), topicWords(tc.b)); got != tc.want {
			t.Errorf("sameTopic(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestRecordedParaphraseIsRefused: an automated writer recording a decision
// on another key of a locked decision's topic, for any spelling of its
// entity, is refused as decision_locked naming the locked decision; a
// person may record it (the question is theirs to reopen).
func TestRecordedParaphraseIsRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	locked, err := e.store.RecordDecision(ctx, Human("lead@example.com"), NewDecision{Scope: "ops", Entity: "Ops Team",
		Key: "night_shift", Decision: "The night shift is on Tuesdays.", Reasoning: "Tuesday has the lowest incident volume."})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.store.RecordDecision(ctx, agent, NewDecision{Scope: "ops", Entity: "ops team", Key: "night_shift_day",
		Decision: "Night shift runs on Thursdays from now on.", Reasoning: "Sam prefers it."})
	var me *Error
	if !errors.As(err, &me) || me.Code != CodeDecisionLocked || !strings.Contains(me.Message, fmt.Sprint(locked.ID)) {
		t.Fatalf("automated paraphrase = %v, want decision_locked naming decision %d", err, locked.ID)
	}
	if _, err := e.store.RecordDecision(ctx, agent, NewDecision{Scope: "ops", Entity: "Ops Team", Key: "deploy_freeze",
		Decision: "Deploys freeze on Fridays.", Reasoning: "Weekend incidents cost the most."}); err != nil {
		t.Errorf("a decision on another topic = %v, want it recorded", err)
	}
}

// TestNumberedKeysAreNotOneTopic: decisions on keys that differ only by
// their numbers (choice_1, choice_9) are distinct questions however alike
// their words.
func TestNumberedKeysAreNotOneTopic(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i := range 3 {
		if _, err := e.store.RecordDecision(ctx, agent, NewDecision{Scope: "acme", Entity: "Ann", Key: fmt.Sprintf("choice_%d", i),
			Decision: fmt.Sprintf("Use option %d", i), Reasoning: "It was cheaper."}); err != nil {
			t.Errorf("decision on choice_%d = %v, want it recorded", i, err)
		}
	}
}

// TestDecisionForTheTeamIsRefused: a person deciding what a team's locked
// decision settles ("José decided to move the night shift to Thursdays"
// beside the ops team's locked night shift) is refused, by consolidation
// and by an automated RecordDecision, naming the locked decision, whether
// or not the person is known yet; a person's decision that shares the
// topic's words but does not name the question (its key), and one in
// another scope, are written.
func TestDecisionForTheTeamIsRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	locked, err := e.store.RecordDecision(ctx, Human("lead@example.com"), NewDecision{Scope: "ops", Entity: "Ops Team", Key: "night_shift",
		Decision: "The ops night shift moves to Tuesdays.", Alternatives: []string{"Thursdays"},
		Reasoning: "Tuesday has the fewest tickets."})
	if err != nil {
		t.Fatal(err)
	}
	e.push(t, "ops", NewNode{Content: "José decided to move the night shift to Thursdays.", Properties: map[string]any{
		"entity": "José Martínez", "category": "decision", "reasoning": "He asked the team on Monday."}})
	if run := e.consolidate(t); run.DecisionLocked != 1 {
		t.Errorf("decision_locked = %d, want 1 (José's decision on the team's night shift)", run.DecisionLocked)
	}
	_, err = e.store.RecordDecision(ctx, agent, NewDecision{Scope: "ops", Entity: "Sam Ortiz", Key: "sam_shift",
		Decision: "Sam decided the night shift moves to Wednesdays.", Reasoning: "Sam has a class on Tuesdays."})
	var me *Error
	if !errors.As(err, &me) || me.Code != CodeDecisionLocked || !strings.Contains(me.Message, fmt.Sprint(locked.ID)) {
		t.Errorf("automated decision of a new entity on the team's question = %v, want decision_locked naming decision %d", err, locked.ID)
	}
	for _, d := range []NewDecision{
		// Shares "night" and "Thursdays" but asks another question.
		{Scope: "ops", Entity: "Sam Ortiz", Key: "gym_night", Decision: "Sam decided gym night is Thursdays.", Reasoning: "The gym is quieter then."},
		{Scope: "home", Entity: "José", Key: "night_shift", Decision: "José moves his night shift to Thursdays.", Reasoning: "His hospital rota changed."},
	} {
		if _, err := e.store.RecordDecision(ctx, agent, d); err != nil {
			t.Errorf("%q in %s = %v, want it recorded", d.Decision, d.Scope, err)
		}
	}
	var n int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM decisions WHERE decision ILIKE '%night shift%' AND scope = 'ops'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d decisions on the ops night shift, want the locked one alone", n)
	}
}

// TestPushNotesAReopening: a push of a row that settles a locked decision's
// question again on another key or for another entity, or names an
// alternative the decision rejected, is answered at once with a
// decision_locked note naming the decision (and refused whole with
// strict); a row that only mentions the topic gets no note.
func TestPushNotesAReopening(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	locked, err := e.store.RecordDecision(ctx, Human("lead@example.com"), NewDecision{Scope: "ops", Entity: "Ops Team", Key: "night_shift",
		Decision: "The ops night shift moves to Tuesdays.", Alternatives: []string{"Thursdays"},
		Reasoning: "Tuesday has the fewest tickets."})
	if err != nil {
		t.Fatal(err)
	}
	rows := []NewNode{
		{Content: "José decided to move the night shift to Thursdays."},
		{Content: "We're moving the night shift to Thursday next week.", Properties: map[string]any{
			"entity": "ops team", "key": "shift_day", "category": "observation"}},
		{Content: "The night shift had three incidents on Tuesday.", Properties: map[string]any{"entity": "Ops Team", "key": "incidents"}},
	}
	res, err := e.store.PushNoted(ctx, agent, "ops", rows, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	noted := map[int]int64{}
	for _, n := range res.Notes {
		if n.Code == NoteDecisionLocked {
			noted[n.Row] = n.DecisionID
		}
	}
	if noted[0] != locked.ID || noted[1] != locked.ID || len(noted) != 2 {
		t.Errorf("decision_locked notes by row = %v, want rows 0 and 1 naming decision %d", noted, locked.ID)
	}
	if _, err := e.store.PushNoted(ctx, agent, "ops", rows[:1], PushOptions{Strict: true}); err == nil {
		t.Error("a strict push of a reopening row succeeded, want it refused")
	}
	run := e.consolidate(t)
	if run.DecisionLocked != 2 {
		t.Errorf("consolidation refused %d rows as decision_locked, want the 2 noted", run.DecisionLocked)
	}
}
