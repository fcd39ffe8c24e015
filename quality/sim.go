package quality

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
		var resp struct {
			IDs   []int64           `json:"ids"`
			Notes []memory.PushNote `json:"notes"`
		}
		body := map[string]any{"nodes": e.rows}
		if s.replay {
			body = map[string]any{"rows": observedRows(e.rows, e.at)}
		}
		status, err := s.callAs(s.toks[e.agent], http.MethodPost, "/api/v1/scopes/"+scope+"/nodes", body, &resp)
		if err != nil {
			return err
		}
		if status != http.StatusCreated && status != http.StatusOK {
			return fmt.Errorf("quality: push at %s answered %d", now, status)
		}
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
				for _, n := range resp.Notes {
					warned = warned || (n.Row == i && n.Code == memory.NoteDecisionLocked)
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
		var resp struct {
			ID int64 `json:"id"`
		}
		body := map[string]any{
			"entity": d.Entity, "key": d.Key, "decision": d.Decision, "reasoning": d.Reasoning, "alternatives": d.Alternatives,
		}
		if s.replay {
			body["decided_at"] = e.at.UTC().Format(time.RFC3339Nano)
		}
		status, err := s.callAs(s.toks[e.agent], http.MethodPost, "/api/v1/scopes/"+scope+"/decisions", body, &resp)
		if err != nil {
			return err
		}
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
		if status != http.StatusCreated {
			return fmt.Errorf("quality: decision at %s answered %d", now, status)
		}
		s.locked[resp.ID] = *d
		s.decided[d.Entity+"/"+d.Key] = resp.ID
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

// call sends a JSON request with the first agent's token and decodes the
// answer.
func (s *sim) call(method, path string, body any, out any) (int, error) {
	return s.callAs(s.token, method, path, body, out)
}

// callAs sends a JSON request with token and decodes the answer.
func (s *sim) callAs(token, method, path string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.srv.URL+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.srv.Client().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode >= 500 {
		return resp.StatusCode, fmt.Errorf("quality: %s %s answered %d: %s", method, path, resp.StatusCode, raw)
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("quality: %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// checkTenure reads the brief and recall as an agent would and scores them.
func (s *sim) checkTenure(ctx context.Context, now time.Time) (int, error) {
	var b memory.Brief
	status, err := s.call(http.MethodGet, "/api/v1/scopes/"+scope+"/context?format=json&budget="+fmt.Sprint(s.o.Budget), nil, &b)
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("quality: context answered %d", status)
	}
	s.rep.Checks++
	var lines []line
	for _, it := range b.Obligations {
		lines = append(lines, line{content: it.Content, durability: it.Durability, overdue: it.Overdue, text: "[" + it.Entity + "] " + it.Content})
	}
	s.rep.StatesShown += len(b.States)
	for _, it := range b.States {
		lines = append(lines, line{content: it.Content, durability: it.Durability, text: "[" + it.Entity + "] " + it.Content})
	}
	for _, it := range b.Facts {
		lines = append(lines, line{content: it.Content, durability: it.Durability, text: "[" + it.Entity + "] " + it.Content})
	}
	for _, d := range b.Decisions {
		lines = append(lines, line{content: d.Decision, text: "[" + d.Entity + "] " + d.Decision, decision: true})
	}
	s.score(now, lines, &s.rep.Tenure, &s.rep.Examples)

	// Recall of the things that change: no result may be stale either.
	for _, q := range s.sc.recall {
		var rec struct {
			Results []struct {
				Fact struct {
					Content    string `json:"content"`
					Durability string `json:"durability"`
				} `json:"fact"`
			} `json:"results"`
		}
		status, err := s.call(http.MethodGet, "/api/v1/scopes/"+scope+"/recall?limit=10&query="+url.QueryEscape(q), nil, &rec)
		if err != nil {
			return 0, err
		}
		if status != http.StatusOK {
			return 0, fmt.Errorf("quality: recall answered %d", status)
		}
		for _, r := range rec.Results {
			if why := s.stale(now, r.Fact.Content, r.Fact.Durability); why != "" {
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
