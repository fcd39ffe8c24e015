package memory

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"
)

// TestListScopes: every scope holding entities or working rows, sorted.
func TestListScopes(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.create(t, reviewer, NewFact{Scope: "work", Entity: "Ann", Content: "Ann leads the team"})
	if _, err := fx.s.Push(ctx, bot, "acme", []NewNode{{Content: "Bob likes tea"}}); err != nil {
		t.Fatal(err)
	}
	fx.create(t, reviewer, NewFact{Scope: "acme", Entity: "Bob", Content: "Bob likes coffee"})
	scopes, err := fx.s.Scopes(ctx)
	if err != nil || !slices.Equal(scopes, []string{"acme", "work"}) {
		t.Errorf("Scopes() = %v, %v, want [acme work]", scopes, err)
	}
}

// TestListObligations: active obligations in three sections, each in its
// order, optionally in one scope and bounded.
func TestListObligations(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	at := func(d time.Duration) *time.Time { t := fxStart.Add(d); return &t }
	obligation := func(scope, content string, deadline *time.Time) int64 {
		return fx.create(t, reviewer, NewFact{Scope: scope, Entity: "Ann", Content: content,
			Category: CategoryObligation, Deadline: deadline}).ID
	}
	soon := obligation("home", "Ann renews her passport", at(48*time.Hour))
	later := obligation("home", "Ann files her taxes", at(20*24*time.Hour))
	none1 := obligation("home", "Ann calls the bank", nil)
	work := obligation("work", "Ann reviews the budget", at(24*time.Hour))
	none2 := obligation("work", "Ann books the offsite", nil)
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann likes tea"})
	fx.advance(72 * time.Hour) // soon and work are overdue now

	ids := func(obs []Obligation) []int64 {
		var out []int64
		for _, o := range obs {
			out = append(out, o.ID)
		}
		return out
	}
	got, err := fx.s.ListObligations(ctx, ObligationFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if o := ids(got.Overdue); !slices.Equal(o, []int64{work, soon}) {
		t.Errorf("overdue = %v, want the oldest deadline first: %v", o, []int64{work, soon})
	}
	if u := ids(got.Upcoming); !slices.Equal(u, []int64{later}) {
		t.Errorf("upcoming = %v, want %v", u, []int64{later})
	}
	if n := ids(got.NoDeadline); !slices.Equal(n, []int64{none2, none1}) {
		t.Errorf("without deadline = %v, want the newest first: %v", n, []int64{none2, none1})
	}
	if o := got.Upcoming[0]; o.Entity != "Ann" || o.Scope != "home" || o.Content != "Ann files her taxes" ||
		o.Deadline == nil || !o.Deadline.Equal(*at(20 * 24 * time.Hour)) || o.EffectiveConfidence <= 0 {
		t.Errorf("upcoming obligation = %+v", o)
	}
	if got.NoDeadline[0].Deadline != nil {
		t.Errorf("obligation without deadline has deadline %v", got.NoDeadline[0].Deadline)
	}

	// At moves the line between overdue and upcoming.
	got, err = fx.s.ListObligations(ctx, ObligationFilter{At: fxStart})
	if err != nil {
		t.Fatal(err)
	}
	if o, u := ids(got.Overdue), ids(got.Upcoming); len(o) != 0 || !slices.Equal(u, []int64{work, soon, later}) {
		t.Errorf("at the start: overdue %v, upcoming %v; want none and %v", o, u, []int64{work, soon, later})
	}

	got, err = fx.s.ListObligations(ctx, ObligationFilter{Scope: "home", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if o, u, n := ids(got.Overdue), ids(got.Upcoming), ids(got.NoDeadline); !slices.Equal(o, []int64{soon}) ||
		!slices.Equal(u, []int64{later}) || !slices.Equal(n, []int64{none1}) {
		t.Errorf("home, one each: %v %v %v", o, u, n)
	}

	_, err = fx.s.ListObligations(ctx, ObligationFilter{Scope: "Bad Scope"})
	if me := wantError(t, "ListObligations", err, CodeInvalid, "invalid scope"); me.Field != "scope" {
		t.Errorf("field = %q, want scope", me.Field)
	}
	_, err = fx.s.ListObligations(ctx, ObligationFilter{Limit: 1001})
	wantError(t, "ListObligations", err, CodeInvalid, "invalid limit 1001")
}

// TestOverviewCounts: the overview's counts and lists, and their bounds.
func TestOverviewCounts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	fx := &fixture{s: e.store, pool: e.pool}
	at := func(d time.Duration) *time.Time { t := start.Add(d); return &t }
	mood := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann is cheerful", Category: CategoryMood})
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann likes tea", Category: CategoryPreference})
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Bob", Content: "Bob likes coffee", Category: CategoryPreference})
	due := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann renews her passport",
		Category: CategoryObligation, Deadline: at(48 * time.Hour)})
	late := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann pays the rent",
		Category: CategoryObligation, Deadline: at(-48 * time.Hour)})
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann files her taxes",
		Category: CategoryObligation, Deadline: at(60 * 24 * time.Hour)})
	e.push(t, "acme", NewNode{Content: "Deploy is running", Durability: "transient"},
		NewNode{Content: "Ann lives in Lyon"}, NewNode{Content: "Ann likes green tea", Durability: "durable"})
	if _, err := e.pool.Exec(ctx, `INSERT INTO review_items (kind, scope) VALUES ('repeated_mood', 'home'), ('repeated_mood', 'home')`); err != nil {
		t.Fatal(err)
	}

	o, err := e.store.Overview(ctx, OverviewOptions{ForgetWithin: 7 * 24 * time.Hour, DueWithin: 14 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	axes := map[[2]string]int64{}
	for _, a := range o.Axes {
		axes[[2]string{string(a.Durability), a.Category}] = a.Facts
	}
	if axes[[2]string{"long_term", "preference"}] != 2 || axes[[2]string{"ephemeral", "mood"}] != 1 ||
		axes[[2]string{"short_term", "obligation"}] != 3 || len(axes) != 3 {
		t.Errorf("axes = %v", o.Axes)
	}
	if !slices.ContainsFunc(o.Forgetting, func(f ForgettingFact) bool { return f.ID == mood.ID }) || o.MoreForgetting {
		t.Errorf("forgetting = %+v (more %v), want the mood among them", o.Forgetting, o.MoreForgetting)
	}
	for i := 1; i < len(o.Forgetting); i++ {
		if o.Forgetting[i].ForgetAt.Before(o.Forgetting[i-1].ForgetAt) {
			t.Errorf("forgetting = %+v, want the soonest first", o.Forgetting)
		}
	}
	if len(o.Upcoming) != 1 || o.Upcoming[0].ID != due.ID || o.MoreUpcoming {
		t.Errorf("upcoming = %+v, want the passport only", o.Upcoming)
	}
	if len(o.Overdue) != 1 || o.Overdue[0].ID != late.ID || o.MoreOverdue {
		t.Errorf("overdue = %+v, want the rent only", o.Overdue)
	}
	if o.Pending[MarkerDurable] != 2 || o.Pending[MarkerTransient] != 1 || o.Pending[MarkerExpired] != 0 {
		t.Errorf("pending = %v, want 2 durable and 1 transient", o.Pending)
	}
	if o.OpenReview["repeated_mood"] != 2 || len(o.OpenReview) != 1 {
		t.Errorf("open review = %v, want 2 repeated moods", o.OpenReview)
	}
	if len(o.Runs) != 0 {
		t.Errorf("runs = %v before any run", o.Runs)
	}

	for range 6 {
		e.consolidate(t)
		e.clock.Advance(time.Minute)
	}
	// A second fact about to be forgotten (the obligations with a deadline
	// never are: decay holds them once overdue).
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Bob", Content: "Bob is sleepy", Category: CategoryMood})
	o, err = e.store.Overview(ctx, OverviewOptions{ForgetWithin: 7 * 24 * time.Hour, DueWithin: 14 * 24 * time.Hour, Rows: 1, Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Runs) != 2 || o.Runs[0].ID <= o.Runs[1].ID || o.Runs[0].Status != "succeeded" {
		t.Errorf("runs = %+v, want the 2 newest, newest first", o.Runs)
	}
	if len(o.Forgetting) != 1 || !o.MoreForgetting {
		t.Errorf("forgetting = %+v (more %v), want one and more", o.Forgetting, o.MoreForgetting)
	}
	if o.Pending[MarkerDurable] != 0 {
		t.Errorf("pending after runs = %v, want no durable row left", o.Pending)
	}
}

// TestOverviewQueueCountsFollowWrites: the open review items and the rows
// set aside that the overview and the working page show, read from the
// counts triggers keep, equal a count of the rows themselves after inserts,
// resolutions, retries, deletes, a fold of the counts and truncates.
func TestOverviewQueueCountsFollowWrites(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		v, err := e.store.Overview(ctx, OverviewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := e.pool.Query(ctx, `SELECT kind, count(*) FROM review_items WHERE status = 'open' GROUP BY kind`)
		if err != nil {
			t.Fatal(err)
		}
		review := map[string]int64{}
		for rows.Next() {
			var kind string
			var n int64
			if err := rows.Scan(&kind, &n); err != nil {
				t.Fatal(err)
			}
			review[kind] = n
		}
		if !maps.Equal(v.OpenReview, review) {
			t.Errorf("%s: overview open review = %v, counted %v", when, v.OpenReview, review)
		}
		var faults FaultCounts
		if err := e.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE retry_at IS NOT NULL), count(*) FILTER (WHERE retry_at IS NULL)
			FROM consolidation_faults`).Scan(&faults.Waiting, &faults.Held); err != nil {
			t.Fatal(err)
		}
		if v.SetAside != faults {
			t.Errorf("%s: overview set aside = %+v, counted %+v", when, v.SetAside, faults)
		}
		if got, err := e.store.CountFaults(ctx); err != nil || got != faults {
			t.Errorf("%s: CountFaults() = %+v, %v, counted %+v", when, got, err, faults)
		}
	}
	check("empty")
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := e.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%v\n%s", err, sql)
		}
	}
	exec(`INSERT INTO review_items (kind, scope) SELECT CASE WHEN i % 3 = 0 THEN 'repeated_mood' ELSE 'decision_refusal' END, 'acme'
		FROM generate_series(1, 10) i`)
	ids := e.push(t, "acme", NewNode{Content: "one"}, NewNode{Content: "two"}, NewNode{Content: "three"})
	for _, id := range ids {
		exec(`INSERT INTO consolidation_faults (node_id, scope, phase, error, first_failed_at, last_failed_at, retry_at)
			VALUES ($1, 'acme', 10, 'broken', now(), now(), now() + interval '5 minutes')`, id)
	}
	check("after inserts")
	exec(`UPDATE review_items SET status = 'dismissed', resolved_at = now(), resolved_by = 'ann' WHERE id IN (SELECT min(id) FROM review_items)`)
	exec(`UPDATE consolidation_faults SET retry_at = NULL WHERE node_id = $1`, ids[0])
	check("after a resolution and a hold")
	exec(`DELETE FROM review_items WHERE kind = 'repeated_mood'`)
	exec(`DELETE FROM memory_nodes WHERE id = $1`, ids[1])
	check("after deletes")
	for range foldConsoleAt + 5 {
		exec(`INSERT INTO review_items (kind, scope) VALUES ('decision_refusal', 'work')`)
	}
	check("before the fold")
	check("after the fold")
	var parts int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM console_counts`).Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if parts > 10 {
		t.Errorf("console_counts holds %d rows after the fold, want one per counter and key", parts)
	}
	exec(`TRUNCATE review_items, consolidation_faults`)
	check("after truncates")
}
