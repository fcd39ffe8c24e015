package quality

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report as the tables of QUALITY.md.
func WriteMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	if r.Scenario == "team" {
		b.WriteString("Scenario team: an ops team and three people written by two agents (name variants, paraphrased decisions, fulfilled obligations, a flood of log lines).\n\n")
	}
	fmt.Fprintf(&b, "%d simulated days, %d hourly checks of the brief and of recall (%d current-state lines read), %d working rows pushed (%d not marked transient or expired), %.0f s.\n\n",
		r.Days, r.Checks, r.StatesShown, r.Pushed, r.DurablePushed, r.ElapsedSeconds)
	b.WriteString("| what an agent is told | goal | Tenure | naive store |\n| --- | --- | --- | --- |\n")
	row := func(name, goal string, t, n any) { fmt.Fprintf(&b, "| %s | %s | %v | %v |\n", name, goal, t, n) }
	row("stale states shown as current (replaced, past their half-life, or marked transient)", "0", r.Tenure.StaleStates, r.Naive.StaleStates)
	row("moods older than 48 h shown", "0", r.Tenure.OldMoods, r.Naive.OldMoods)
	row("contradictory pairs in one brief", "0", r.Tenure.Contradictions, r.Naive.Contradictions)
	row("duplicate lines in one brief", "0", r.Tenure.DuplicateLines, r.Naive.DuplicateLines)
	row("locked decisions overwritten", "0", r.Tenure.DecisionsOverwritten, r.Naive.DecisionsOverwritten)
	row("writes against locked decisions answered without a warning", "0", r.Tenure.UnwarnedLockedWrites, r.Naive.UnwarnedLockedWrites)
	row("obligations past their deadline listed as due, or listed past deadline + 5 days", "0", r.Tenure.OverdueListedAsDue, r.Naive.OverdueListedAsDue)
	if r.Scenario == "team" {
		row("locked decisions shown beside another value of what they settle", "0", r.Tenure.LockedBesideOther, r.Naive.LockedBesideOther)
		row("current facts crowded out of the brief (identities, standing facts, locked decisions, the open obligation)", "0", r.Tenure.CrowdedOut, r.Naive.CrowdedOut)
	}
	row("facts kept per row pushed", "low", fmt.Sprintf("%.2f (%d live facts)", r.Tenure.FactsPerPushed, r.LiveFacts),
		fmt.Sprintf("%.2f", r.Naive.FactsPerPushed))
	row("mean brief size, characters", "small", r.Tenure.MeanBriefChars, r.Naive.MeanBriefChars)
	if len(r.BriefChars) > 0 {
		b.WriteString("\nTenure's brief at noon, day by day (characters): ")
		for i, c := range r.BriefChars {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, c)
		}
		b.WriteString(".\n")
	}
	if len(r.Examples) > 0 {
		b.WriteString("\nTenure's failures (first ones):\n\n")
		for _, e := range r.Examples {
			b.WriteString("- " + e + "\n")
		}
	}
	if len(r.NaiveExamples) > 0 {
		b.WriteString("\nThe naive store's failures (first ones):\n\n")
		for _, e := range r.NaiveExamples {
			b.WriteString("- " + e + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
