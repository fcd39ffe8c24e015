package quality

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestTeamScenario replays the second scenario (an ops team and three
// people, two writers, name variants, paraphrased decisions, fulfilled
// obligations, a log flood) compressed into four days, and asserts that
// every count is computed, and that the naive store fails each count the
// script plants, so the script exercises it. Tenure's own counts are logged,
// not asserted: QUALITY.md reports them.
func TestTeamScenario(t *testing.T) {
	rep, err := Run(context.Background(), pgtest.NewPool(t), Options{Days: 4, Scenario: "team"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d checks, %d rows pushed (%d durable), %d live facts; tenure %+v; naive %+v",
		rep.Checks, rep.Pushed, rep.DurablePushed, rep.LiveFacts, rep.Tenure, rep.Naive)
	for _, ex := range rep.Examples {
		t.Log("  tenure: " + ex)
	}
	if rep.Scenario != "team" || rep.Days != 4 || rep.Checks != 4*24 {
		t.Errorf("scenario %q, %d days, %d checks; want team, 4, 96", rep.Scenario, rep.Days, rep.Checks)
	}
	for who, sc := range map[string]Scores{"tenure": rep.Tenure, "naive": rep.Naive} {
		for name, v := range counts(sc) {
			if v < 0 {
				t.Errorf("%s %s = %d", who, name, v)
			}
		}
		raw, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		var back Scores
		if err := json.Unmarshal(raw, &back); err != nil || back != sc {
			t.Errorf("%s scores do not survive JSON: %s (%v)", who, raw, err)
		}
	}
	n := rep.Naive
	for name, v := range map[string]int{
		"stale lines": n.StaleStates, "contradictions": n.Contradictions, "duplicate lines": n.DuplicateLines,
		"locked decisions beside another value": n.LockedBesideOther, "current facts crowded out": n.CrowdedOut,
		"decisions overwritten": n.DecisionsOverwritten, "unwarned locked writes": n.UnwarnedLockedWrites,
	} {
		if v == 0 {
			t.Errorf("the naive store scores 0 %s: the team script does not exercise them", name)
		}
	}
	if rep.StatesShown+rep.Tenure.CrowdedOut == 0 {
		t.Errorf("tenure's briefs showed nothing to check")
	}
}

// TestScenarioNames: the month is the default, the team is chosen by name,
// and any other name is refused before anything runs.
func TestScenarioNames(t *testing.T) {
	for _, name := range []string{"", "month", "team"} {
		if _, err := scenarioNamed(name); err != nil {
			t.Errorf("scenario %q: %v", name, err)
		}
	}
	if sc, _ := scenarioNamed(""); sc.name != "month" || sc.days != 30 || sc.extended {
		t.Errorf("default scenario = %q (%d days, extended %v), want the month", sc.name, sc.days, sc.extended)
	}
	if _, err := Run(context.Background(), nil, Options{Scenario: "year"}); err == nil {
		t.Error(`Run with scenario "year" succeeded`)
	}
}

// counts are the scores that count failures, by name.
func counts(s Scores) map[string]int {
	return map[string]int{"stale_states": s.StaleStates, "old_moods": s.OldMoods, "contradictions": s.Contradictions,
		"duplicate_lines": s.DuplicateLines, "decisions_overwritten": s.DecisionsOverwritten,
		"unwarned_locked_writes": s.UnwarnedLockedWrites, "overdue_listed_as_due": s.OverdueListedAsDue,
		"locked_beside_other": s.LockedBesideOther, "crowded_out": s.CrowdedOut}
}
