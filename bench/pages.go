package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// pageCase is one timed request: a console page (signed in as a viewer) or
// an API list (with a bearer token), and beside it, where one makes sense,
// the bare store call that reads the page's rows, marshalled to JSON.
type pageCase struct {
	name   string
	path   string
	api    bool
	target time.Duration
	bare   func() error // nil when the page has no single bare query
}

// The targets of the pages: facts and decisions pages p99 under 20 ms,
// every other page and API list under 50 ms.
const (
	listTarget = 20 * time.Millisecond
	pageTarget = 50 * time.Millisecond
)

// pagesScope is the scope of the working rows consolidated while a page is
// timed; no other workload reads it.
const pagesScope = "bench-pages"

// absentWord is in no seeded text: the searches that find nothing.
const absentWord = "absentword"

// pages times every console page with the filters it offers (text found in
// many, few and no facts, an entity, a scope, archived facts, a
// combination, the second and tenth page; decisions by text and entity;
// working rows; the rejection log; the consolidation page; the overview)
// and every API list, in-process like the facts page workload, each with its
// p50, p95 and p99 beside the p99 of its bare store call; then one page
// while a consolidation run is going.
func pages(ctx context.Context, pool *pgxpool.Pool, store *memory.Store, now time.Time, o Options) ([]Result, error) {
	fmt.Fprintln(o.Progress, "console pages and API lists, each filter, then a page during a consolidation run")
	clock := func() time.Time { return now }
	assets, err := static.New()
	if err != nil {
		return nil, err
	}
	srv, err := server.New(server.Config{Pool: pool, Logger: o.Logger, Now: clock, Store: store, Assets: assets})
	if err != nil {
		return nil, err
	}
	s, err := signInViewer(ctx, pool, srv, "pages@example.com")
	if err != nil {
		return nil, err
	}
	scope := Scope(0)
	token, _, err := auth.SeedToken(ctx, pool, auth.NewToken{Name: "bench-pages", Scope: scope, Role: auth.TokenWriter}, now)
	if err != nil {
		return nil, fmt.Errorf("pages token: %w", err)
	}
	cases, err := pageCases(ctx, store, scope, now, o)
	if err != nil {
		return nil, err
	}

	per := max(10, o.Requests/len(cases))
	perBudget := o.Budget / time.Duration(len(cases))
	var out []Result
	for _, c := range cases {
		var times, bare []time.Duration
		start := time.Now()
		for i := 0; i < per+3 && (i < 8 || time.Since(start) < perBudget); i++ {
			d, err := timeRequest(srv, s, token, c)
			if err != nil {
				return nil, err
			}
			var bd time.Duration
			if c.bare != nil {
				bstart := time.Now()
				if err := c.bare(); err != nil {
					return nil, fmt.Errorf("%s: bare query: %w", c.name, err)
				}
				bd = time.Since(bstart)
			}
			if i >= 3 { // the first requests warm caches
				times = append(times, d)
				bare = append(bare, bd)
			}
		}
		out = append(out, pageResult(c, times, bare))
	}
	during, err := pageDuringConsolidation(ctx, pool, store, srv, s, now, o)
	if err != nil {
		return nil, err
	}
	return append(out, during...), nil
}

// pageResult is a case's p99 with its p50 and p95 in its name, beside the
// bare call's p99.
func pageResult(c pageCase, times, bare []time.Duration) Result {
	p50, p95, p99 := percentile(times, 0.5), percentile(times, 0.95), percentile(times, 0.99)
	r := Result{Workload: fmt.Sprintf("%s, p99 (p50 %s ms, p95 %s ms; %d requests)", c.name, num(ms(p50)), num(ms(p95)), len(times)),
		Unit: "ms", Tenure: ms(p99), Target: "< " + strconv.Itoa(int(c.target/time.Millisecond)) + " ms", Met: met(p99 < c.target)}
	if c.bare != nil {
		b99 := percentile(bare, 0.99)
		r.Baseline, r.BaseName = ms(b99), "the bare store call + json.Marshal"
		if b99 > 0 {
			r.Ratio = float64(p99) / float64(b99)
		}
	}
	return r
}

// timeRequest serves one request of c and returns how long it took; an
// answer other than 200 is an error.
func timeRequest(h http.Handler, s *session, token string, c pageCase) (time.Duration, error) {
	req := httptest.NewRequest(http.MethodGet, c.path, nil)
	if c.api {
		req.Header.Set("Authorization", "Bearer "+token)
	} else {
		for _, ck := range s.cookies {
			req.AddCookie(ck)
		}
	}
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	d := time.Since(start)
	if rec.Code != http.StatusOK {
		return 0, fmt.Errorf("%s: GET %s = %d: %.300s", c.name, c.path, rec.Code, rec.Body.String())
	}
	return d, nil
}

// marshalled runs a store call and marshals what it returns, as a page's
// bare query.
func marshalled[T any](call func() (T, error)) func() error {
	return func() error {
		v, err := call()
		if err != nil {
			return err
		}
		_, err = json.Marshal(v)
		return err
	}
}

// pageCases lists the timed pages on the seeded data: the word postgres is
// in about one fact in thirty of the dense vocabulary's scopes, the Zipf
// word of rank 5,000 in a few facts, absentWord in none.
func pageCases(ctx context.Context, store *memory.Store, scope string, now time.Time, o Options) ([]pageCase, error) {
	many, few := "postgres", zipfVocabulary[min(5000, len(zipfVocabulary)-1)]
	entity := "entity-7"
	if o.Seed.Facts/20/max(1, o.Seed.Scopes) <= 7 {
		entity = "entity-0"
	}
	facts := func(v url.Values) func() error {
		f := memory.FactFilter{Scope: v.Get("scope"), Entity: v.Get("entity"), Category: v.Get("category"),
			Status: v.Get("status"), Query: v.Get("q"), Limit: 50, At: now}
		if b := v.Get("before"); b != "" {
			f.BeforeID, _ = strconv.ParseInt(b, 10, 64)
		}
		return marshalled(func() (memory.FactPage, error) { return store.ListFacts(ctx, f) })
	}
	// The cursors of the second and tenth pages, unfiltered and of the
	// text found in many facts.
	cursor := func(f memory.FactFilter, page int) (int64, error) {
		f.Limit, f.At = 50, now
		for i := 1; i < page; i++ {
			p, err := store.ListFacts(ctx, f)
			if err != nil {
				return 0, err
			}
			if p.Next == 0 {
				break
			}
			f.BeforeID = p.Next
		}
		return f.BeforeID, nil
	}
	var cursors [3]int64
	var err error
	if cursors[0], err = cursor(memory.FactFilter{}, 2); err != nil {
		return nil, err
	}
	if cursors[1], err = cursor(memory.FactFilter{}, 10); err != nil {
		return nil, err
	}
	if cursors[2], err = cursor(memory.FactFilter{Query: many}, 10); err != nil {
		return nil, err
	}
	var cases []pageCase
	addFacts := func(name string, v url.Values) {
		cases = append(cases, pageCase{name: "facts page " + name, path: "/facts?" + v.Encode(), target: listTarget, bare: facts(v)})
	}
	addFacts("unfiltered", url.Values{})
	addFacts("text in many ("+many+")", url.Values{"q": {many}})
	addFacts("text in few ("+few+")", url.Values{"q": {few}})
	addFacts("text in none", url.Values{"q": {absentWord}})
	addFacts("entity "+entity, url.Values{"entity": {entity}})
	addFacts("scope", url.Values{"scope": {Scope(1 % max(1, o.Seed.Scopes))}})
	addFacts("archived", url.Values{"status": {"archived"}})
	addFacts("scope, category and text", url.Values{"scope": {scope}, "category": {memory.CategoryPreference}, "q": {many}})
	addFacts("entity and text in none", url.Values{"entity": {entity}, "q": {absentWord}})
	addFacts("archived and text in none", url.Values{"status": {"archived"}, "q": {absentWord}})
	if cursors[0] != 0 {
		addFacts("page 2", url.Values{"before": {strconv.FormatInt(cursors[0], 10)}})
	}
	if cursors[1] != 0 {
		addFacts("page 10", url.Values{"before": {strconv.FormatInt(cursors[1], 10)}})
	}
	if cursors[2] != 0 {
		addFacts("text in many, page 10", url.Values{"q": {many}, "before": {strconv.FormatInt(cursors[2], 10)}})
	}

	addDecisions := func(name string, v url.Values) {
		f := memory.DecisionFilter{Scope: v.Get("scope"), Entity: v.Get("entity"), State: v.Get("state"), Query: v.Get("q"), Limit: 51}
		cases = append(cases, pageCase{name: "decisions page " + name, path: "/decisions?" + v.Encode(), target: listTarget,
			bare: marshalled(func() ([]memory.Decision, error) { return store.ListDecisions(ctx, f) })})
	}
	addDecisions("unfiltered", url.Values{})
	addDecisions("text in many ("+many+")", url.Values{"q": {many}})
	addDecisions("text in few ("+few+")", url.Values{"q": {few}})
	addDecisions("text in none", url.Values{"q": {absentWord}})
	addDecisions("entity "+entity, url.Values{"entity": {entity}})
	addDecisions("scope and text in none", url.Values{"scope": {scope}, "q": {absentWord}})
	addDecisions("superseded", url.Values{"state": {memory.DecisionSuperseded}})
	addDecisions("reopened", url.Values{"state": {memory.DecisionReopened}})

	addNodes := func(name string, v url.Values, f memory.NodeFilter) {
		f.Limit = 51
		cases = append(cases, pageCase{name: "working page " + name, path: "/working?" + v.Encode(), target: pageTarget,
			bare: marshalled(func() ([]memory.Node, error) { return store.ListNodes(ctx, f) })})
	}
	addNodes("(pending)", url.Values{}, memory.NodeFilter{State: memory.NodesPending})
	addNodes("every row, expired", url.Values{"state": {"all"}, "marker": {"expired"}}, memory.NodeFilter{Marker: "expired"})
	addNodes("set aside", url.Values{"state": {memory.NodesSetAside}}, memory.NodeFilter{State: memory.NodesSetAside})
	addNodes("scope, promoted, transient", url.Values{"scope": {scope}, "state": {memory.NodesPromoted}, "marker": {"transient"}},
		memory.NodeFilter{Scope: scope, State: memory.NodesPromoted, Marker: "transient"})

	addRejections := func(name string, v url.Values, f memory.RejectionFilter) {
		f.Limit = 51
		cases = append(cases, pageCase{name: "rejection log " + name, path: "/consolidation/rejections?" + v.Encode(), target: pageTarget,
			bare: marshalled(func() ([]memory.Rejection, error) { return store.ListRejections(ctx, f) })})
	}
	addRejections("unfiltered", url.Values{}, memory.RejectionFilter{})
	addRejections("reason expired", url.Values{"reason": {memory.ReasonExpired}}, memory.RejectionFilter{Reason: memory.ReasonExpired})
	addRejections("reason decision_locked", url.Values{"reason": {memory.ReasonDecisionLocked}},
		memory.RejectionFilter{Reason: memory.ReasonDecisionLocked})
	addRejections("source import", url.Values{"source": {"import"}}, memory.RejectionFilter{Source: "import"})

	cases = append(cases,
		pageCase{name: "consolidation page", path: "/consolidation", target: pageTarget,
			bare: marshalled(func() ([]memory.Run, error) { return store.ListRuns(ctx, 0, 51) })},
		pageCase{name: "overview", path: "/", target: pageTarget,
			bare: marshalled(func() (memory.Overview, error) {
				return store.Overview(ctx, memory.OverviewOptions{At: now, ForgetWithin: 7 * 24 * time.Hour, DueWithin: 7 * 24 * time.Hour})
			})},
	)

	// The API lists, in the token's scope.
	api := func(name, path string, bare func() error) {
		cases = append(cases, pageCase{name: "API " + name, path: path, api: true, target: pageTarget, bare: bare})
	}
	base := "/api/v1/scopes/" + scope
	api("facts", base+"/facts", facts(url.Values{"scope": {scope}}))
	api("facts, text in many", base+"/facts?query="+many, facts(url.Values{"scope": {scope}, "q": {many}}))
	api("facts, text in none", base+"/facts?query="+absentWord, facts(url.Values{"scope": {scope}, "q": {absentWord}}))
	api("facts, entity", base+"/facts?entity="+entity, facts(url.Values{"scope": {scope}, "entity": {entity}}))
	decisions := func(f memory.DecisionFilter) func() error {
		f.Scope, f.Limit = scope, 51
		return marshalled(func() ([]memory.Decision, error) { return store.ListDecisions(ctx, f) })
	}
	api("decisions", base+"/decisions", decisions(memory.DecisionFilter{}))
	api("decisions, text in many", base+"/decisions?query="+many, decisions(memory.DecisionFilter{Query: many}))
	api("decisions, text in none", base+"/decisions?query="+absentWord, decisions(memory.DecisionFilter{Query: absentWord}))
	nodes := func(f memory.NodeFilter) func() error {
		f.Scope, f.Limit = scope, 51
		return marshalled(func() ([]memory.Node, error) { return store.ListNodes(ctx, f) })
	}
	api("working rows", base+"/nodes", nodes(memory.NodeFilter{}))
	api("working rows, pending", base+"/nodes?pending=true", nodes(memory.NodeFilter{PendingOnly: true}))
	api("working rows, expired", base+"/nodes?durability=expired", nodes(memory.NodeFilter{Marker: "expired"}))
	rejections := func(f memory.RejectionFilter) func() error {
		f.Scope, f.Limit = scope, 51
		return marshalled(func() ([]memory.Rejection, error) { return store.ListRejections(ctx, f) })
	}
	api("rejections", "/api/v1/consolidation/rejections", rejections(memory.RejectionFilter{}))
	api("rejections, reason decision_locked", "/api/v1/consolidation/rejections?reason=decision_locked",
		rejections(memory.RejectionFilter{Reason: memory.ReasonDecisionLocked}))
	return cases, nil
}

// signInViewer signs a new viewer in to the console served by h.
func signInViewer(ctx context.Context, pool *pgxpool.Pool, h http.Handler, email string) (*session, error) {
	const password = "a long enough secret"
	if _, err := auth.SeedUser(ctx, pool, auth.NewUser{Email: email, Role: string(auth.RoleViewer), Password: password}); err != nil {
		return nil, fmt.Errorf("bench user: %w", err)
	}
	s := &session{h: h, cookies: map[string]*http.Cookie{}}
	rec := s.do(httptest.NewRequest(http.MethodGet, "/login", nil))
	m := csrfField.FindStringSubmatch(rec.Body.String())
	if m == nil {
		return nil, fmt.Errorf("sign in: no CSRF field on /login (%d)", rec.Code)
	}
	form := url.Values{"email": {email}, "password": {password}, "_csrf": {m[1]}}
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec := s.do(req); rec.Code != http.StatusSeeOther {
		return nil, fmt.Errorf("sign in = %d, want 303", rec.Code)
	}
	return s, nil
}

// pageDuringConsolidation writes working rows (a tenth of the seeded ones,
// at least 2,000; one in six transient) into a scope of their own, starts a
// consolidation run, and times the facts page with text found in many facts
// and the overview, in turn, until the run ends; then the same pages with
// no run going, as the baseline.
func pageDuringConsolidation(ctx context.Context, pool *pgxpool.Pool, store *memory.Store, h http.Handler, s *session,
	now time.Time, o Options) ([]Result, error) {
	n := max(2000, o.Seed.Nodes/10)
	r := rand.New(rand.NewPCG(uint64(o.Seed.Seed), 4))
	rows := make([][]any, n)
	for i := range rows {
		marker := "durable"
		if i%6 == 1 {
			marker = "transient"
		}
		props, _ := json.Marshal(map[string]any{"durability": marker, "entity": "pages", "key": fmt.Sprintf("p_%d", i%500)})
		rows[i] = []any{pagesScope, sentence(r, 8+r.IntN(8)), string(props), 0.5, now}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"memory_nodes"}, []string{"scope", "content", "properties", "importance", "created_at"},
		pgx.CopyFromRows(rows)); err != nil {
		return nil, fmt.Errorf("pages: working rows: %w", err)
	}
	paths := []pageCase{
		{name: "facts page text in many", path: "/facts?q=postgres", target: listTarget},
		{name: "overview", path: "/", target: pageTarget},
	}
	done := make(chan error, 1)
	go func() {
		_, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerManual})
		done <- err
	}()
	during := make([][]time.Duration, len(paths))
	var runErr error
	running := true
	for i := 0; running || i < 2*len(paths); i++ {
		select {
		case runErr = <-done:
			running = false
		default:
		}
		if !running && i >= 2*len(paths) {
			break
		}
		c := paths[i%len(paths)]
		d, err := timeRequest(h, s, "", c)
		if err != nil {
			if running {
				<-done
			}
			return nil, err
		}
		if running {
			during[i%len(paths)] = append(during[i%len(paths)], d)
		}
	}
	if runErr != nil {
		return nil, fmt.Errorf("pages: consolidation: %w", runErr)
	}
	var out []Result
	for k, c := range paths {
		var quiet []time.Duration
		for range max(10, len(during[k])) {
			d, err := timeRequest(h, s, "", c)
			if err != nil {
				return nil, err
			}
			quiet = append(quiet, d)
		}
		times := during[k]
		if len(times) == 0 {
			// The run ended before the first request: nothing to report
			// beside the quiet figure.
			times = quiet
		}
		p99, q99 := percentile(times, 0.99), percentile(quiet, 0.99)
		out = append(out, Result{
			Workload: fmt.Sprintf("%s during a consolidation run of %d rows, p99 (p50 %s ms; %d requests)",
				c.name, n, num(ms(percentile(times, 0.5))), len(during[k])),
			Unit: "ms", Tenure: ms(p99), Baseline: ms(q99), BaseName: "the same page with no run going",
			Ratio: float64(p99) / float64(max(q99, 1)), Target: "< " + strconv.Itoa(int(c.target/time.Millisecond)) + " ms",
			Met: met(p99 < c.target)})
	}
	return out, nil
}
