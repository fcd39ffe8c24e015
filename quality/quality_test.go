package quality

import (
	"context"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestShortMonth replays the script compressed into four days (96 hourly
// checks of the brief and recall) and asserts that Tenure never recites a
// stale, contradicted or duplicated state, an old mood or an overdue
// obligation as due, never lets a locked decision be overwritten, and warns
// every write against one; and that the naive store fails every count, so
// the script exercises each of them.
func TestShortMonth(t *testing.T) {
	rep, err := Run(context.Background(), pgtest.NewPool(t), Options{Days: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d checks, %d rows pushed (%d durable), %d live facts; tenure %+v; naive %+v",
		rep.Checks, rep.Pushed, rep.DurablePushed, rep.LiveFacts, rep.Tenure, rep.Naive)
	if rep.StatesShown < rep.Checks {
		t.Errorf("tenure's briefs showed %d current states over %d checks: the checks saw too little", rep.StatesShown, rep.Checks)
	}
	if !rep.Tenure.Zero() {
		t.Errorf("tenure failed %+v:", rep.Tenure)
		for _, ex := range rep.Examples {
			t.Log("  " + ex)
		}
	}
	n := rep.Naive
	for name, v := range map[string]int{
		"stale states": n.StaleStates, "old moods": n.OldMoods, "contradictions": n.Contradictions,
		"duplicate lines": n.DuplicateLines, "decisions overwritten": n.DecisionsOverwritten,
		"unwarned locked writes": n.UnwarnedLockedWrites, "overdue listed as due": n.OverdueListedAsDue,
	} {
		if v == 0 {
			t.Errorf("the naive store scores 0 %s: the script does not exercise them", name)
		}
	}
	if rep.Tenure.FactsPerPushed >= rep.Naive.FactsPerPushed {
		t.Errorf("tenure keeps %.2f facts per row pushed, the naive store %.2f", rep.Tenure.FactsPerPushed, rep.Naive.FactsPerPushed)
	}
}
