package quality

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/client"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// Options tune a simulation.
type Options struct {
	Days     int    // simulated days; default 30
	Seed     uint64 // default 1
	Budget   int    // the brief's budget in characters; default 4000
	Progress io.Writer
	// Scenario chooses the script: "month" (the default) or "team" (an ops
	// team and three people over three weeks: name variants, paraphrased
	// decisions, fulfilled obligations, log floods, two writers; 21 days
	// unless Days says otherwise).
	Scenario string
}

// Scores are the counts of one store over the whole simulation; every one
// but the last two should be 0.
type Scores struct {
	StaleStates          int `json:"stale_states"`           // a state shown as current that a newer one replaced, past its half-life, or marked transient
	OldMoods             int `json:"old_moods"`              // a mood older than 48 h shown
	Contradictions       int `json:"contradictions"`         // two lines of one brief on the same thing that disagree
	DuplicateLines       int `json:"duplicate_lines"`        // a line shown twice in one brief
	DecisionsOverwritten int `json:"decisions_overwritten"`  // a locked decision changed by an automated writer
	UnwarnedLockedWrites int `json:"unwarned_locked_writes"` // a write against a locked decision answered without a warning
	OverdueListedAsDue   int `json:"overdue_listed_as_due"`  // an obligation past its deadline listed as due, or past deadline plus grace listed at all
	// Counted by the team scenario alone.
	LockedBesideOther int `json:"locked_beside_other,omitempty"` // a locked decision shown beside another value of what it settles
	CrowdedOut        int `json:"crowded_out,omitempty"`         // a current fact every brief should show left out of one
	// FactsPerPushed is the live facts kept per durable row pushed.
	FactsPerPushed float64 `json:"facts_per_pushed"`
	// MeanBriefChars is the brief's mean size in characters.
	MeanBriefChars int `json:"mean_brief_chars"`
}

// Zero says whether every count that should be zero is.
func (s Scores) Zero() bool {
	return s.StaleStates+s.OldMoods+s.Contradictions+s.DuplicateLines+s.DecisionsOverwritten+
		s.UnwarnedLockedWrites+s.OverdueListedAsDue+s.LockedBesideOther+s.CrowdedOut == 0
}

// Report is what a simulation found.
type Report struct {
	Scenario       string   `json:"scenario,omitempty"` // the script, when not the month
	Days           int      `json:"days"`
	Checks         int      `json:"checks"`          // briefs and recalls checked, one of each every hour
	Pushed         int      `json:"pushed"`          // working rows pushed
	DurablePushed  int      `json:"durable_pushed"`  // of them, rows not marked transient or expired
	LiveFacts      int      `json:"live_facts"`      // active facts at the end
	BriefChars     []int    `json:"brief_chars"`     // the brief's size at noon of each day
	Tenure         Scores   `json:"tenure"`          // Tenure
	Naive          Scores   `json:"naive"`           // a store that keeps every row and recites the newest
	Examples       []string `json:"examples"`        // the first few failures of Tenure, for a person to read
	NaiveExamples  []string `json:"naive_examples"`  // and of the naive store
	ElapsedSeconds float64  `json:"elapsed_seconds"` // wall time of the simulation
	// StatesShown counts the current-state lines Tenure's briefs showed:
	// the checks above looked at something.
	StatesShown int `json:"states_shown"`
}

// obligationGrace is how long past its deadline an obligation may still be
// listed (as overdue): after it, the obligation has decayed away.
const obligationGrace = 5 * 24 * time.Hour

// moodFresh is how long a mood may show.
const moodFresh = 48 * time.Hour

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.t) {
		c.t = t
	}
}

// truth is what the script knows at an instant: the current content of each
// thing it talks about, when each content was last said, the moods, the
// obligations' deadlines, and the transient lines.
type truth struct {
	current   map[string]string    // truth key → content said last
	keyOf     map[string]string    // content → truth key
	saidAt    map[string]time.Time // content → when last said
	mood      map[string]bool
	deadline  map[string]time.Time
	transient map[string]bool
	fulfilled map[string]time.Time // obligation content → when it was fulfilled
	essential map[string]bool      // truth keys every brief should show
}

func newTruth() *truth {
	return &truth{current: map[string]string{}, keyOf: map[string]string{}, saidAt: map[string]time.Time{},
		mood: map[string]bool{}, deadline: map[string]time.Time{}, transient: map[string]bool{},
		fulfilled: map[string]time.Time{}, essential: map[string]bool{}}
}

// line is one item a store recites: what it is about and what it says.
type line struct {
	content    string
	durability string // "" when the store does not say
	overdue    bool
	text       string // the whole line as shown
	decision   bool   // a locked decision
}

// sim is one simulation's state.
type sim struct {
	o       Options
	clock   *clock
	store   *memory.Store
	srv     *httptest.Server
	token   string   // the first agent's
	toks    []string // every agent's, by index
	sc      scenario
	truth   *truth
	rep     Report
	naive   []naiveRow
	locked  map[int64]decisionEvent // decisions no person reopened, by id
	decided map[string]int64        // entity/key → the locked decision's id
	// replay writes each event with the time it happened (observed_at,
	// decided_at) rather than at it (Replay).
	replay bool
}

type naiveRow struct {
	content  string
	at       time.Time
	decision bool
}

// Run replays the script against the migrated, empty database behind pool.
func Run(ctx context.Context, pool *pgxpool.Pool, o Options) (Report, error) {
	sc, err := scenarioNamed(o.Scenario)
	if err != nil {
		return Report{}, err
	}
	if o.Days <= 0 {
		o.Days = sc.days
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Budget == 0 {
		o.Budget = 4000
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	began := time.Now()
	s := &sim{o: o, sc: sc, clock: &clock{t: Start}, truth: newTruth(), locked: map[int64]decisionEvent{}, decided: map[string]int64{}}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s.store = memory.NewStore(pool, memory.Options{Logger: logger, Now: s.clock.Now})
	assets, err := static.New()
	if err != nil {
		return Report{}, err
	}
	app, err := server.New(server.Config{Pool: pool, Assets: assets, Logger: logger, Now: s.clock.Now, Store: s.store})
	if err != nil {
		return Report{}, err
	}
	s.srv = httptest.NewServer(app)
	defer s.srv.Close()
	if err := s.tokens(ctx, pool); err != nil {
		return Report{}, err
	}

	evs := s.sortedEvents()
	s.rep.Days = o.Days
	if sc.name != "month" {
		s.rep.Scenario = sc.name
	}
	next := 0
	var briefChars, briefs int
	var naiveChars int
	for h := 0; h < o.Days*24; h++ {
		end := Start.Add(time.Duration(h+1) * time.Hour)
		for next < len(evs) && evs[next].at.Before(end) {
			s.clock.Set(evs[next].at)
			if err := s.apply(ctx, evs[next]); err != nil {
				return Report{}, err
			}
			next++
		}
		// Consolidation (with its decay phase) runs on its schedule.
		s.clock.Set(end)
		if _, err := s.store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerSchedule}); err != nil {
			return Report{}, fmt.Errorf("quality: consolidate at %s: %w", end, err)
		}
		used, err := s.checkTenure(ctx, end)
		if err != nil {
			return Report{}, err
		}
		briefChars += used
		briefs++
		naiveChars += s.checkNaive(end)
		if (h+1)%24 == 12 {
			s.rep.BriefChars = append(s.rep.BriefChars, used)
		}
		if (h+1)%24 == 0 {
			fmt.Fprintf(o.Progress, "day %d: %d checks, tenure %+v\n", (h+1)/24, s.rep.Checks, s.rep.Tenure)
		}
	}
	live, err := countLive(ctx, pool)
	if err != nil {
		return Report{}, err
	}
	s.rep.LiveFacts = live
	if s.rep.DurablePushed > 0 {
		s.rep.Tenure.FactsPerPushed = float64(live) / float64(s.rep.DurablePushed)
		s.rep.Naive.FactsPerPushed = float64(s.rep.Pushed) / float64(s.rep.DurablePushed)
	}
	if briefs > 0 {
		s.rep.Tenure.MeanBriefChars = briefChars / briefs
		s.rep.Naive.MeanBriefChars = naiveChars / briefs
	}
	s.rep.ElapsedSeconds = time.Since(began).Seconds()
	return s.rep, nil
}

func countLive(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND scope = $1`, scope).Scan(&n)
	return n, err
}

// apply plays one event through the API (a person's reopening through the
// engine, as the console does), and keeps the script's truth.
func (s *sim) apply(ctx context.Context, e event) error {
	now := s.clock.Now()
	switch e.kind {
	case evPush:
		var observed *time.Time
		if s.replay {
			at := e.at.UTC()
			observed = &at
		}
		rows := make([]client.NodeRow, len(e.rows))
		for i, r := range e.rows {
			var err error
			if rows[i], err = nodeRow(r, observed); err != nil {
				return err
			}
		}
		c, err := s.api(s.toks[e.agent])
		if err != nil {
			return err
		}
		res, err := c.PushNodesWithResponse(ctx, scope, nil, client.PushRequest{Rows: &rows})
		if err != nil {
			return fmt.Errorf("quality: push: %w", err)
		}
		if err := serverFault("push", res.StatusCode(), res.Body); err != nil {
			return err
		}
		if res.JSON201 == nil {
			return fmt.Errorf("quality: push at %s answered %d", now, res.StatusCode())
		}
		notes := res.JSON201.Notes
		for i, r := range e.rows {
			s.rep.Pushed++
			s.naive = append(s.naive, naiveRow{content: r.Content, at: now})
			if r.Durability == "transient" || r.Durability == "expired" {
				s.truth.transient[r.Content] = true
				continue
			}
			s.rep.DurablePushed++
			if k := e.truthKeys[i]; k != "" {
				// A write against a locked decision is about what the
				// decision settles, but does not change it.
				if !e.onLocked[i] {
					s.truth.current[k] = r.Content
				}
				s.truth.keyOf[r.Content] = k
				if e.essential[i] {
					s.truth.essential[k] = true
				}
			}
			if f := e.fulfils[i]; f != "" {
				s.truth.fulfilled[f] = now
			}
			s.truth.saidAt[r.Content] = now
			if e.moods[i] {
				s.truth.mood[r.Content] = true
			}
			if d := e.deadlines[i]; d != nil {
				s.truth.deadline[r.Content] = *d
			}
			if e.onLocked[i] {
				warned := false
				for _, n := range notes {
					warned = warned || (n.Row == i && n.Code == client.PushNoteCodeDecisionLocked)
				}
				if !warned {
					s.fail(&s.rep.Tenure.UnwarnedLockedWrites, &s.rep.Examples, "push of %q on a locked decision's key answered without a warning", r.Content)
				}
				// A store without decisions takes the write as the new truth.
				s.rep.Naive.DecisionsOverwritten++
				s.rep.Naive.UnwarnedLockedWrites++
			}
		}
	case evDecide, evDecideOnLocked:
		d := e.decision
		req := client.DecisionRequest{Entity: d.Entity, Key: d.Key, Decision: d.Decision, Reasoning: d.Reasoning, Alternatives: &d.Alternatives}
		if s.replay {
			at := e.at.UTC()
			req.DecidedAt = &at
		}
		c, err := s.api(s.toks[e.agent])
		if err != nil {
			return err
		}
		res, err := c.RecordDecisionWithResponse(ctx, scope, nil, req)
		if err != nil {
			return fmt.Errorf("quality: decision: %w", err)
		}
		if err := serverFault("decision", res.StatusCode(), res.Body); err != nil {
			return err
		}
		status := res.StatusCode()
		if d.truth != "" {
			s.truth.keyOf[d.Decision] = d.truth
			s.truth.saidAt[d.Decision] = now
			if e.kind == evDecide {
				s.truth.current[d.truth] = d.Decision
				s.truth.essential[d.truth] = true
			}
		}
		if s.sc.extended {
			// The naive store keeps a decision as one more row.
			s.naive = append(s.naive, naiveRow{content: d.Decision, at: now, decision: e.kind == evDecide})
		}
		if e.kind == evDecideOnLocked {
			if status != http.StatusConflict {
				s.fail(&s.rep.Tenure.UnwarnedLockedWrites, &s.rep.Examples, "a decision on locked key %s/%s answered %d, not 409", d.Entity, d.Key, status)
			}
			s.rep.Naive.DecisionsOverwritten++
			s.rep.Naive.UnwarnedLockedWrites++
			return nil
		}
		if res.JSON201 == nil {
			return fmt.Errorf("quality: decision at %s answered %d", now, status)
		}
		s.locked[res.JSON201.ID] = *d
		s.decided[d.Entity+"/"+d.Key] = res.JSON201.ID
	case evReopen:
		d := e.decision
		id := s.decided[d.Entity+"/"+d.Key]
		if _, err := s.store.ReopenDecision(ctx, memory.Human("ops@example.com"), id, "the replication fix shipped"); err != nil {
			return fmt.Errorf("quality: reopen: %w", err)
		}
		delete(s.locked, id)
	}
	return nil
}

// exampleLimit is how many failures of each store a report describes.
var exampleLimit = 12

// fail counts one failure and keeps its description among the first ones.
func (s *sim) fail(count *int, examples *[]string, format string, args ...any) {
	*count++
	if len(*examples) < exampleLimit {
		*examples = append(*examples, s.clock.Now().Format("Jan 2 15:04")+": "+fmt.Sprintf(format, args...))
	}
}

// api is a client of the simulation's server that sends token.
func (s *sim) api(token string) (*client.ClientWithResponses, error) {
	return client.NewWithToken(s.srv.URL, token, client.WithHTTPClient(s.srv.Client()))
}

// serverFault is an error for an answer of the server's own failure (5xx),
// with its body; nil for any other.
func serverFault(what string, status int, body []byte) error {
	if status >= 500 {
		return fmt.Errorf("quality: %s answered %d: %s", what, status, body)
	}
	return nil
}

// nodeRow is a scripted row as a push sends it; observed, when not nil, is
// when its statement was observed (a replay).
func nodeRow(r row, observed *time.Time) (client.NodeRow, error) {
	n := client.NodeRow{Content: r.Content, ObservedAt: observed}
	if r.Durability != "" {
		d := client.NodeRowDurability(r.Durability)
		n.Durability = &d
	}
	if r.Properties != nil {
		// The script writes properties as a free-form map, as an agent
		// does; the model reads them from the same JSON.
		raw, err := json.Marshal(r.Properties)
		if err != nil {
			return n, err
		}
		n.Properties = &client.NodeRow_Properties{}
		if err := json.Unmarshal(raw, n.Properties); err != nil {
			return n, fmt.Errorf("quality: properties of %q: %w", r.Content, err)
		}
	}
	return n, nil
}

// checkTenure reads the brief and recall as an agent would and scores them.
func (s *sim) checkTenure(ctx context.Context, now time.Time) (int, error) {
	c, err := s.api(s.token)
	if err != nil {
		return 0, err
	}
	format := client.ContextBriefParamsFormatJSON
	res, err := c.ContextBriefWithResponse(ctx, scope, &client.ContextBriefParams{Format: &format, Budget: &s.o.Budget})
	if err != nil {
		return 0, fmt.Errorf("quality: context: %w", err)
	}
	if err := serverFault("context", res.StatusCode(), res.Body); err != nil {
		return 0, err
	}
	if res.JSON200 == nil {
		return 0, fmt.Errorf("quality: context answered %d", res.StatusCode())
	}
	b := res.JSON200
	s.rep.Checks++
	var lines []line
	for _, it := range b.Obligations {
		lines = append(lines, line{content: it.Content, durability: string(it.Durability), overdue: it.Overdue, text: "[" + it.Entity + "] " + it.Content})
	}
	s.rep.StatesShown += len(b.States)
	for _, it := range b.States {
		lines = append(lines, line{content: it.Content, durability: string(it.Durability), text: "[" + it.Entity + "] " + it.Content})
	}
	for _, it := range b.Facts {
		lines = append(lines, line{content: it.Content, durability: string(it.Durability), text: "[" + it.Entity + "] " + it.Content})
	}
	for _, d := range b.Decisions {
		lines = append(lines, line{content: d.Decision, text: "[" + d.Entity + "] " + d.Decision, decision: true})
	}
	s.score(now, lines, &s.rep.Tenure, &s.rep.Examples)

	// Recall of the things that change: no result may be stale either.
	limit := 10
	for _, q := range s.sc.recall {
		res, err := c.RecallWithResponse(ctx, scope, &client.RecallParams{Query: &q, Limit: &limit})
		if err != nil {
			return 0, fmt.Errorf("quality: recall: %w", err)
		}
		if err := serverFault("recall", res.StatusCode(), res.Body); err != nil {
			return 0, err
		}
		if res.JSON200 == nil {
			return 0, fmt.Errorf("quality: recall answered %d", res.StatusCode())
		}
		for _, r := range res.JSON200.Results {
			if why := s.stale(now, r.Fact.Content, string(r.Fact.Durability)); why != "" {
				s.fail(&s.rep.Tenure.StaleStates, &s.rep.Examples, "recall %q returned %q: %s", q, r.Fact.Content, why)
			}
		}
	}
	for id, d := range s.locked {
		got, err := s.store.GetDecision(ctx, id)
		if err != nil {
			return 0, err
		}
		if got.Decision != d.Decision || !got.DoNotReopen {
			s.fail(&s.rep.Tenure.DecisionsOverwritten, &s.rep.Examples, "decision %d now says %q (locked %v)", id, got.Decision, got.DoNotReopen)
		}
	}
	return b.Used, nil
}

// stale says why content is not current at now, or "".
func (s *sim) stale(now time.Time, content, durability string) string {
	if s.truth.transient[content] {
		return "a line marked transient"
	}
	if k, ok := s.truth.keyOf[content]; ok && s.truth.current[k] != content {
		return fmt.Sprintf("replaced by %q", s.truth.current[k])
	}
	said, ok := s.truth.saidAt[content]
	if !ok {
		return ""
	}
	switch durability {
	case "ephemeral":
		if now.Sub(said) > 36*time.Hour {
			return "an ephemeral state older than its half-life"
		}
	case "short_term":
		if now.Sub(said) > 10*24*time.Hour {
			return "a short-term state older than its half-life"
		}
	}
	return ""
}

// score counts the failures among the lines one brief recites.
func (s *sim) score(now time.Time, lines []line, sc *Scores, examples *[]string) {
	seen := map[string]int{}
	byKey := map[string]string{}
	for _, l := range lines {
		if same := l.text; same != "" {
			if s.sc.extended {
				// The same words under two spellings of a name are one line
				// twice.
				same = folded(l.content)
			}
			seen[same]++
			if seen[same] == 2 {
				s.fail(&sc.DuplicateLines, examples, "%q shown twice", l.text)
			}
		}
		_, obligation := s.truth.deadline[l.content]
		fulfilled, done := s.truth.fulfilled[l.content]
		if done && now.Before(fulfilled) {
			done = false
		}
		if done {
			s.fail(&sc.StaleStates, examples, "obligation %q listed %s after it was fulfilled", l.content, now.Sub(fulfilled).Round(time.Hour))
		} else if why := s.stale(now, l.content, l.durability); why != "" && !s.truth.mood[l.content] && !obligation {
			s.fail(&sc.StaleStates, examples, "%q shown as current: %s", l.content, why)
		}
		if s.truth.mood[l.content] && now.Sub(s.truth.saidAt[l.content]) > moodFresh {
			s.fail(&sc.OldMoods, examples, "mood %q, said %s before, shown", l.content, now.Sub(s.truth.saidAt[l.content]).Round(time.Hour))
		}
		if k, ok := s.truth.keyOf[l.content]; ok {
			if other, dup := byKey[k]; dup && other != l.content {
				s.fail(&sc.Contradictions, examples, "%q beside %q", other, l.content)
			}
			byKey[k] = l.content
		}
		if d, ok := s.truth.deadline[l.content]; ok && !done {
			switch {
			case now.After(d.Add(obligationGrace)):
				s.fail(&sc.OverdueListedAsDue, examples, "obligation %q listed %s after its deadline", l.content, now.Sub(d).Round(time.Hour))
			case now.After(d) && !l.overdue:
				s.fail(&sc.OverdueListedAsDue, examples, "obligation %q past its deadline listed as due", l.content)
			}
		}
	}
	if s.sc.extended {
		s.scoreExtended(lines, sc, examples)
	}
}

// checkNaive scores a store that keeps every row it is given and recites
// the newest within the budget: no markers, no supersession, no decay.
func (s *sim) checkNaive(now time.Time) int {
	var lines []line
	used := 0
	for i := len(s.naive) - 1; i >= 0; i-- {
		r := s.naive[i]
		text := "- " + strings.Join(strings.Fields(r.content), " ")
		if used+len(text)+1 > s.o.Budget {
			break
		}
		used += len(text) + 1
		lines = append(lines, line{content: r.content, text: text, decision: r.decision})
	}
	s.score(now, lines, &s.rep.Naive, &s.rep.NaiveExamples)
	return used
}
