package quality

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
)

// A scenario is a script and how it is read back.
type scenario struct {
	name string
	days int // its length when Options.Days is 0
	// events builds the script, days long.
	events func(days int, seed uint64) []event
	// recall are the queries recall is checked with every hour.
	recall []string
	// agents name the writers' tokens; events choose one by index.
	agents []string
	// extended turns on what the team scenario adds: the counts of locked
	// decisions shown beside another value and of current facts crowded
	// out, decisions kept by the naive store as rows, and duplicates found
	// by content rather than by whole line.
	extended bool
}

// Scenarios names the scripts Options.Scenario may choose, the default
// first.
var Scenarios = []string{"month", "team"}

func scenarioNamed(name string) (scenario, error) {
	switch name {
	case "", "month":
		return scenario{name: "month", days: 30, events: script,
			recall: []string{"replication lag", "latency", "Jordan", "deploy"}, agents: []string{"sim-agent"}}, nil
	case "team":
		return scenario{name: "team", days: 21, events: teamScript,
			recall:   []string{"Ana", "José", "Jun", "night shift", "Acme Robotics", "invoice", "reindex"},
			agents:   []string{"assistant", "ops-bot"},
			extended: true}, nil
	}
	return scenario{}, fmt.Errorf("quality: unknown scenario %q (want one of %s)", name, strings.Join(Scenarios, ", "))
}

// tokens creates a writer token in the scope for each of the scenario's
// agents.
func (s *sim) tokens(ctx context.Context, pool *pgxpool.Pool) error {
	s.toks = s.toks[:0]
	for _, name := range s.sc.agents {
		tok, _, err := auth.NewAdmin(pool, s.clock.Now).CreateToken(ctx, auth.Session{}, auth.NewToken{Name: name, Scope: scope, Role: "writer"})
		if err != nil {
			return fmt.Errorf("quality: token: %w", err)
		}
		s.toks = append(s.toks, tok)
	}
	s.token = s.toks[0]
	return nil
}

// sortedEvents is the scenario's script in time order.
func (s *sim) sortedEvents() []event {
	evs := s.sc.events(s.o.Days, s.o.Seed)
	slices.SortStableFunc(evs, func(a, b event) int { return a.at.Compare(b.at) })
	return evs
}

// folded is a line's content as the team scenario compares it for
// duplicates: case and white space folded, a final full stop dropped.
func folded(content string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Join(strings.Fields(content), " ")), ".")
}

// scoreExtended counts, in one brief's lines, the locked decisions shown
// beside another value of what they settle, and the current essential
// facts the brief leaves out.
func (s *sim) scoreExtended(lines []line, sc *Scores, examples *[]string) {
	for _, l := range lines {
		if !l.decision {
			continue
		}
		k, ok := s.truth.keyOf[l.content]
		if !ok {
			continue
		}
		for _, o := range lines {
			if o.content != l.content && s.truth.keyOf[o.content] == k {
				s.fail(&sc.LockedBesideOther, examples, "locked decision %q shown beside %q", l.content, o.content)
				break
			}
		}
	}
	shown := map[string]bool{}
	for _, l := range lines {
		shown[l.content] = true
	}
	keys := make([]string, 0, len(s.truth.essential))
	for k := range s.truth.essential {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if c, ok := s.truth.current[k]; ok && !shown[c] {
			s.fail(&sc.CrowdedOut, examples, "current %q (%s) not in the brief", c, k)
		}
	}
}
