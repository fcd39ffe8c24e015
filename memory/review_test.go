package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// queueNearDuplicate lets consolidation find two facts that say different
// things on one key, and returns the open item.
func queueNearDuplicate(t *testing.T, e *env) ReviewItem {
	t.Helper()
	props := map[string]any{"entity": "Edmund", "key": "visited_city", "category": "observation"}
	e.push(t, "pa", NewNode{Content: "Edmund lives in Austin.", Properties: props})
	e.consolidate(t)
	e.clock.Advance(time.Hour)
	e.push(t, "pa", NewNode{Content: "Edmund lives in Austin, Texas.", Properties: props})
	e.consolidate(t)
	items, err := e.store.ReviewQueue(context.Background(), ReviewFilter{Kind: ReviewNearDuplicate})
	if err != nil || len(items) != 1 {
		t.Fatalf("ReviewQueue(near_duplicate) = %v, %v; want one item", items, err)
	}
	return items[0]
}

func TestReviewQueueNearDuplicateMerge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	it := queueNearDuplicate(t, e)
	if it.Fact == nil || it.OtherFact == nil || it.Fact.ID <= it.OtherFact.ID ||
		it.Fact.Content != "Edmund lives in Austin, Texas." || it.OtherFact.Content != "Edmund lives in Austin." {
		t.Fatalf("item = %+v, want the newer fact and the older one loaded", it)
	}
	older, newer := *it.OtherFact, *it.Fact
	e.clock.Advance(24 * time.Hour)
	now := e.clock.Now()
	cOld := effective(t, e, older.ID, now)
	cNew := effective(t, e, newer.ID, now)

	out, err := e.store.ResolveReviewItem(ctx, Human("ann@example.com"), it.ID, Resolution{Action: ActionMerge, Reason: "same city"})
	if err != nil {
		t.Fatalf("ResolveReviewItem(merge) error = %v", err)
	}
	if out.Item.Status != "merged" || out.Item.ResolvedBy != "ann@example.com" || out.Item.ResolvedAt == nil ||
		!out.Item.ResolvedAt.Equal(now) || out.Fact == nil || out.Fact.ID != older.ID {
		t.Errorf("ResolveReviewItem(merge) = %+v, want the item merged by ann now and the older fact surviving", out)
	}
	got, err := e.store.GetFact(ctx, newer.ID)
	if err != nil || got.Status != StatusArchived || got.ArchiveReason != "merged into fact "+itoa(older.ID) {
		t.Errorf("newer fact = %+v, %v; want it archived as merged into the older", got, err)
	}
	survivor, err := e.store.GetFact(ctx, older.ID)
	want := 1 - (1-cOld)*(1-cNew)
	if err != nil || survivor.Status != StatusActive || math.Abs(survivor.Confidence-want) > 1e-9 ||
		!survivor.ConfirmedAt.Equal(now) || survivor.ExtractionCount != older.ExtractionCount+newer.ExtractionCount ||
		survivor.Durability != older.Durability || survivor.Category != older.Category {
		t.Errorf("survivor = %+v, %v; want confidence %v, confirmed now, extraction count %d, axes unchanged",
			survivor, err, want, older.ExtractionCount+newer.ExtractionCount)
	}
	for _, c := range []struct{ target, id, action string }{
		{"review_item", itoa(it.ID), "review.merge"},
		{"fact", itoa(newer.ID), "fact.archive"},
		{"fact", itoa(older.ID), "fact.reinforce"},
	} {
		if n := e.count(t, `SELECT count(*) FROM audit_log WHERE target_type = $1 AND target_id = $2 AND action = $3
			AND actor = 'user:ann@example.com' AND reason LIKE '%same city%'`, c.target, c.id, c.action); n != 1 {
			t.Errorf("audit %s %s %s rows = %d, want 1 carrying the reason", c.action, c.target, c.id, n)
		}
	}
	if items, _ := e.store.ReviewQueue(ctx, ReviewFilter{}); len(items) != 0 {
		t.Errorf("queue after merge = %v, want empty", items)
	}

	_, err = e.store.ResolveReviewItem(ctx, Human("bob@example.com"), it.ID, Resolution{Action: ActionDismiss})
	var resolved *Error
	if !errors.As(err, &resolved) || resolved.Review == nil || ErrorCode(err) != CodeConflict || !strings.Contains(err.Error(), "already merged by ann@example.com") {
		t.Errorf("second resolution = %v, want a conflict naming the first", err)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE target_type = 'review_item'`); n != 1 {
		t.Errorf("review audit rows = %d, want 1: the refused second action writes nothing", n)
	}
}

func effective(t *testing.T, e *env, id int64, at time.Time) float64 {
	t.Helper()
	var c float64
	err := e.pool.QueryRow(context.Background(), `SELECT tenure_effective_confidence(durability, category, confidence,
		confirmed_at, deadline, $2) FROM entity_facts WHERE id = $1`, id, at).Scan(&c)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

func TestReviewNearDuplicateAcceptDismissAndStaleMerge(t *testing.T) {
	ctx := context.Background()
	for _, action := range []ReviewAction{ActionAccept, ActionDismiss} {
		t.Run(string(action), func(t *testing.T) {
			e := newEnv(t)
			it := queueNearDuplicate(t, e)
			before := e.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active'`)
			versions := e.count(t, `SELECT sum(version)::int FROM entity_facts`)
			out, err := e.store.ResolveReviewItem(ctx, Human("ann@example.com"), it.ID, Resolution{Action: action})
			if err != nil {
				t.Fatalf("ResolveReviewItem(%s) error = %v", action, err)
			}
			if want := resolvedStatus(action); out.Item.Status != want || out.Fact != nil {
				t.Errorf("status = %s, fact %v; want %s and no fact changed", out.Item.Status, out.Fact, want)
			}
			if e.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active'`) != before ||
				e.count(t, `SELECT sum(version)::int FROM entity_facts`) != versions {
				t.Error("accept or dismiss changed facts; both must stay as they are")
			}
			if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = $1 AND target_id = $2`, "review."+string(action), itoa(it.ID)); n != 1 {
				t.Errorf("audit rows = %d, want 1", n)
			}
		})
	}

	t.Run("merge of an archived fact", func(t *testing.T) {
		e := newEnv(t)
		it := queueNearDuplicate(t, e)
		if _, err := e.store.ArchiveFacts(ctx, Human("bob@example.com"), []int64{it.OtherFact.ID}, "wrong"); err != nil {
			t.Fatal(err)
		}
		_, err := e.store.ResolveReviewItem(ctx, Human("ann@example.com"), it.ID, Resolution{Action: ActionMerge})
		wantCode(t, "merge with an archived fact", err, CodeConflict, "is archived")
		if got, _ := e.store.GetReviewItem(ctx, it.ID); got.Status != "open" {
			t.Errorf("item status = %s, want still open", got.Status)
		}
		if f, _ := e.store.GetFact(ctx, it.Fact.ID); f.Status != StatusActive {
			t.Error("the refused merge archived the newer fact")
		}
	})
}

func wantCode(t *testing.T, call string, err error, code Code, part string) *Error {
	t.Helper()
	var me *Error
	if !errors.As(err, &me) || me.Code != code || !strings.Contains(err.Error(), part) {
		t.Fatalf("%s = %v, want a %s error mentioning %q", call, err, code, part)
	}
	return me
}

func TestReviewDecisionRefusal(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d := fx.recordLock(t, "acme", "Acme Robotics", "rma_policy")
	refuse := func(content string) ReviewItem {
		t.Helper()
		_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy", Content: content})
		if ErrorCode(err) != CodeDecisionLocked || AsError(err).Locked == nil {
			t.Fatalf("CreateFact(locked) = %v, want a refusal", err)
		}
		items, err := fx.s.ReviewQueue(ctx, ReviewFilter{Kind: ReviewDecisionRefusal})
		if err != nil || len(items) == 0 {
			t.Fatalf("ReviewQueue = %v, %v", items, err)
		}
		return items[len(items)-1]
	}
	it := refuse("RMAs should wait for photos.")
	if it.Rejection == nil || it.Rejection.Content != "RMAs should wait for photos." || it.Decision == nil ||
		it.Decision.ID != d.ID || it.Decision.Reasoning != d.Reasoning {
		t.Fatalf("item = %+v, want the refused content and the decision with its reasoning", it)
	}

	t.Run("merge does not apply", func(t *testing.T) {
		_, err := fx.s.ResolveReviewItem(ctx, reviewer, it.ID, Resolution{Action: ActionMerge})
		if e := wantCode(t, "merge a refusal", err, CodeInvalid, "accept, dismiss"); e.Field != "action" {
			t.Errorf("field = %q, want action", e.Field)
		}
	})

	t.Run("accept needs a reason", func(t *testing.T) {
		_, err := fx.s.ResolveReviewItem(ctx, reviewer, it.ID, Resolution{Action: ActionAccept, Reason: "  "})
		if e := wantCode(t, "accept without a reason", err, CodeInvalid, "reason is required"); e.Field != "reason" {
			t.Errorf("field = %q, want reason", e.Field)
		}
		if got, _ := fx.s.GetDecision(ctx, d.ID); !got.DoNotReopen {
			t.Error("the decision was reopened without a reason")
		}
	})

	t.Run("dismiss keeps the decision", func(t *testing.T) {
		other := refuse("Photos are mandatory.")
		out, err := fx.s.ResolveReviewItem(ctx, reviewer, other.ID, Resolution{Action: ActionDismiss})
		if err != nil || out.Item.Status != "dismissed" {
			t.Fatalf("dismiss = %+v, %v", out, err)
		}
		if got, _ := fx.s.GetDecision(ctx, d.ID); !got.DoNotReopen || got.Version != d.Version {
			t.Errorf("decision after dismiss = %+v, want it untouched", got)
		}
	})

	t.Run("accept reopens", func(t *testing.T) {
		fx.advance(time.Hour)
		out, err := fx.s.ResolveReviewItem(ctx, reviewer, it.ID, Resolution{Action: ActionAccept, Reason: "Photos are cheap now."})
		if err != nil {
			t.Fatalf("accept = %v", err)
		}
		if out.Item.Status != "accepted" || out.Decision == nil || out.Decision.DoNotReopen || out.AlreadyOpen ||
			out.Decision.ReopenReason != "Photos are cheap now." || out.Decision.ReopenedBy != "ann@example.com" {
			t.Errorf("accept = %+v, want the decision reopened by ann with the reason", out)
		}
		if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'decision.reopen' AND target_id = $1::bigint::text
			AND reason = 'Photos are cheap now.'`, d.ID); n != 1 {
			t.Errorf("decision.reopen audit rows = %d, want 1 with the reason", n)
		}
		if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'review.accept' AND target_id = $1::bigint::text`, it.ID); n != 1 {
			t.Errorf("review.accept audit rows = %d, want 1", n)
		}
		// The write refused before now goes through.
		if _, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "rma_policy",
			Content: "RMAs should wait for photos."}); err != nil {
			t.Errorf("CreateFact after reopening = %v, want it written", err)
		}
	})

	t.Run("accept on an open decision", func(t *testing.T) {
		d2 := fx.recordLock(t, "acme", "Acme Robotics", "warranty")
		_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "acme", Entity: "Acme Robotics", Key: "warranty", Content: "Two years."})
		if err == nil {
			t.Fatal("want a refusal")
		}
		items, _ := fx.s.ReviewQueue(ctx, ReviewFilter{Kind: ReviewDecisionRefusal})
		last := items[len(items)-1]
		if _, err := fx.s.ReopenDecision(ctx, Human("bob@example.com"), d2.ID, "revisit"); err != nil {
			t.Fatal(err)
		}
		out, err := fx.s.ResolveReviewItem(ctx, reviewer, last.ID, Resolution{Action: ActionAccept, Reason: "agreed"})
		if err != nil || !out.AlreadyOpen || out.Item.Status != "accepted" || out.Decision.ReopenedBy != "bob@example.com" {
			t.Errorf("accept = %+v, %v; want it resolved, leaving bob's reopening", out, err)
		}
	})
}

func TestReviewRepeatedMood(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	mood := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Key: "mood", Content: "Mia is anxious about work.", Category: CategoryMood})
	for range 4 {
		fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Key: "mood", Content: "Mia is anxious about work.", Category: CategoryMood})
	}
	var id int64
	if err := fx.pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id, detail)
		VALUES ('repeated_mood', 'home', $1, '{"extraction_count": 5}') RETURNING id`, mood.ID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	it, err := fx.s.GetReviewItem(ctx, id)
	if err != nil || it.Fact == nil || it.Fact.ExtractionCount != 5 || it.Fact.Category != CategoryMood {
		t.Fatalf("GetReviewItem = %+v, %v; want the mood seen 5 times", it, err)
	}

	for _, c := range []struct {
		name  string
		res   Resolution
		field string
		part  string
	}{
		{"no category", Resolution{Action: ActionAccept, Durability: LongTerm}, "category", "choose the category"},
		{"still a mood", Resolution{Action: ActionAccept, Category: "mood", Durability: LongTerm}, "category", "a mood stays a mood"},
		{"decision", Resolution{Action: ActionAccept, Category: "decision", Durability: LongTerm}, "category", "reserved"},
		{"no durability", Resolution{Action: ActionAccept, Category: "state"}, "durability", "choose how long"},
		{"ephemeral", Resolution{Action: ActionAccept, Category: "state", Durability: Ephemeral}, "durability", "does not last"},
		{"bad key", Resolution{Action: ActionAccept, Category: "state", Durability: LongTerm, Key: pointerTo("Bad Key")}, "key", "invalid key"},
		{"merge", Resolution{Action: ActionMerge}, "action", "does not apply"},
	} {
		_, err := fx.s.ResolveReviewItem(ctx, reviewer, id, c.res)
		if e := wantCode(t, c.name, err, CodeInvalid, c.part); e.Field != c.field {
			t.Errorf("%s field = %q, want %q", c.name, e.Field, c.field)
		}
	}
	if n := fx.count(t, `SELECT count(*) FROM entity_facts`); n != 1 {
		t.Fatalf("facts = %d after refused actions, want only the mood", n)
	}

	out, err := fx.s.ResolveReviewItem(ctx, reviewer, id, Resolution{
		Action: ActionAccept, Category: "state", Durability: LongTerm, Key: pointerTo("work_stress"),
		Content: "Mia is under lasting stress at work.", Reason: "five times in a week",
	})
	if err != nil {
		t.Fatalf("accept = %v", err)
	}
	f := out.Fact
	if out.Item.Status != "accepted" || f == nil || f.Category != "state" || f.Durability != LongTerm ||
		f.Source != SourceHuman || f.Key != "work_stress" || f.Content != "Mia is under lasting stress at work." ||
		f.Entity != "Mia" || f.Scope != "home" || f.ID == mood.ID {
		t.Errorf("accept = %+v (fact %+v), want a new long-term state written by a human", out, f)
	}
	after := fx.get(t, mood.ID)
	if after.Category != CategoryMood || after.Durability != Ephemeral || after.Status != StatusActive || after.Version != 5 {
		t.Errorf("mood after accept = %+v, want it still an ephemeral mood, untouched", after)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.create' AND target_id = $1::bigint::text
		AND actor = 'user:ann@example.com' AND reason LIKE '%raised from mood fact%five times in a week'`, f.ID); n != 1 {
		t.Errorf("fact.create audit rows = %d, want 1 naming the mood and the reason", n)
	}

	t.Run("defaults to the mood's content and key", func(t *testing.T) {
		var id2 int64
		if err := fx.pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id) VALUES ('repeated_mood', 'home', $1) RETURNING id`,
			mood.ID).Scan(&id2); err != nil {
			t.Fatal(err)
		}
		out, err := fx.s.ResolveReviewItem(ctx, reviewer, id2, Resolution{Action: ActionAccept, Category: "preference", Durability: ShortTerm})
		if err != nil || out.Fact.Content != mood.Content || out.Fact.Key != mood.Key || out.Fact.ID == mood.ID {
			t.Errorf("accept with defaults = %+v, %v; want a new fact with the mood's content and key", out.Fact, err)
		}
	})
}

func TestReviewQueueFiltersAndRefusals(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	mood := fx.create(t, bot, NewFact{Scope: "home", Entity: "Mia", Content: "Mia is tired.", Category: CategoryMood})
	work := fx.create(t, bot, NewFact{Scope: "work", Entity: "Mia", Content: "Mia is bored.", Category: CategoryMood})
	var ids []int64
	for _, f := range []Fact{mood, work, mood} {
		var id int64
		if err := fx.pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id) VALUES ('repeated_mood', $1, $2) RETURNING id`,
			f.Scope, f.ID).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	got := func(f ReviewFilter) []int64 {
		t.Helper()
		items, err := fx.s.ReviewQueue(ctx, f)
		if err != nil {
			t.Fatalf("ReviewQueue(%+v) = %v", f, err)
		}
		var out []int64
		for _, it := range items {
			out = append(out, it.ID)
		}
		return out
	}
	for _, c := range []struct {
		name string
		f    ReviewFilter
		want []int64
	}{
		{"all, oldest first", ReviewFilter{}, ids},
		{"scope", ReviewFilter{Scope: "home"}, []int64{ids[0], ids[2]}},
		{"kind", ReviewFilter{Kind: ReviewNearDuplicate}, nil},
		{"page", ReviewFilter{Limit: 2}, ids[:2]},
		{"after", ReviewFilter{AfterID: ids[1]}, ids[2:]},
	} {
		if g := got(c.f); !equalIDs(g, c.want) {
			t.Errorf("%s: ReviewQueue = %v, want %v", c.name, g, c.want)
		}
	}
	counts, err := fx.s.CountOpenReviewItems(ctx, "")
	if err != nil || counts[ReviewRepeatedMood] != 3 {
		t.Errorf("CountOpenReviewItems = %v, %v", counts, err)
	}
	if _, err := fx.s.ReviewQueue(ctx, ReviewFilter{Kind: "bogus"}); ErrorCode(err) != CodeInvalid {
		t.Errorf("ReviewQueue(kind bogus) = %v, want invalid", err)
	}
	for _, c := range []struct {
		f           ReviewFilter
		field, want string
	}{
		{ReviewFilter{Kind: "bogus"}, "kind", "allowed values are near_duplicate, decision_refusal, repeated_mood"},
		{ReviewFilter{Limit: 501}, "limit", "limit 501 is out of range: it must be between 1 and 500"},
		{ReviewFilter{Limit: -1}, "limit", "between 1 and 500"},
		{ReviewFilter{AfterID: -1}, "after", "invalid page cursor -1: it must be a positive review item id"},
	} {
		_, err := fx.s.ReviewQueue(ctx, c.f)
		if e := wantCode(t, fmt.Sprintf("ReviewQueue(%+v)", c.f), err, CodeInvalid, c.want); e.Field != c.field {
			t.Errorf("ReviewQueue(%+v) field = %q, want %q", c.f, e.Field, c.field)
		}
	}

	_, err = fx.s.ResolveReviewItem(ctx, bot, ids[0], Resolution{Action: ActionDismiss})
	wantCode(t, "agent resolves", err, CodeForbidden, "only a reviewer")
	_, err = fx.s.ResolveReviewItem(ctx, reviewer, 999999, Resolution{Action: ActionDismiss})
	wantCode(t, "unknown item", err, CodeNotFound, "no review item")
	_, err = fx.s.ResolveReviewItem(ctx, reviewer, ids[0], Resolution{Action: "approve"})
	wantCode(t, "unknown action", err, CodeInvalid, "unknown action")
	if got(ReviewFilter{}) == nil || len(got(ReviewFilter{})) != 3 {
		t.Error("refused actions resolved items")
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
