package memory

import (
	"context"
	"testing"
)

// TestUndismissReviewItem: a dismissal is undone, audited; the dismissed
// items are listed and counted; what was not dismissed cannot be undone.
func TestUndismissReviewItem(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ann := Human("ann@example.com")
	it := queueNearDuplicate(t, e)
	if _, err := e.store.ResolveReviewItem(ctx, ann, it.ID, Resolution{Action: ActionDismiss}); err != nil {
		t.Fatal(err)
	}
	open, err := e.store.ReviewQueue(ctx, ReviewFilter{})
	if err != nil || len(open) != 0 {
		t.Fatalf("open queue = %v, %v; want empty after the dismissal", open, err)
	}
	dismissed, err := e.store.ReviewQueue(ctx, ReviewFilter{Status: ReviewDismissed, Kind: ReviewNearDuplicate})
	if err != nil || len(dismissed) != 1 || dismissed[0].ID != it.ID || dismissed[0].Fact == nil ||
		dismissed[0].ResolvedBy != "ann@example.com" {
		t.Fatalf("dismissed list = %+v, %v; want the item with its facts and who dismissed it", dismissed, err)
	}
	if counts, err := e.store.CountDismissedReviewItems(ctx, ""); err != nil || counts[ReviewNearDuplicate] != 1 {
		t.Errorf("dismissed counts = %v, %v", counts, err)
	}

	_, err = e.store.UndismissReviewItem(ctx, agent, it.ID, "")
	wantCode(t, "undismiss by an agent", err, CodeForbidden, "only a reviewer")

	back, err := e.store.UndismissReviewItem(ctx, Human("bob@example.com"), it.ID, "dismissed by mistake")
	if err != nil {
		t.Fatalf("UndismissReviewItem() error = %v", err)
	}
	if back.Status != "open" || back.ResolvedAt != nil || back.ResolvedBy != "" || back.Fact == nil {
		t.Errorf("undismissed item = %+v, want it open again with its facts", back)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'review.undismiss' AND target_id = $1
		AND actor = 'user:bob@example.com' AND reason = 'dismissed by mistake'
		AND before->>'status' = 'dismissed' AND after->>'status' = 'open'`, itoa(it.ID)); n != 1 {
		t.Errorf("%d undismiss audit rows, want 1", n)
	}
	if counts, _ := e.store.CountOpenReviewItems(ctx, ""); counts[ReviewNearDuplicate] != 1 {
		t.Errorf("open counts = %v, want the item counted again", counts)
	}
	o, err := e.store.Overview(ctx, OverviewOptions{})
	if err != nil || o.OpenReview[ReviewNearDuplicate] != 1 {
		t.Errorf("overview open review = %v, %v; want the item counted again", o.OpenReview, err)
	}

	// It can be resolved again like any open item.
	if _, err := e.store.ResolveReviewItem(ctx, ann, it.ID, Resolution{Action: ActionAccept}); err != nil {
		t.Fatalf("accept after undismiss: %v", err)
	}
	_, err = e.store.UndismissReviewItem(ctx, ann, it.ID, "")
	wantCode(t, "undismiss an accepted item", err, CodeConflict, "already accepted")
}

// TestUndismissKeepsOneOpenItemPerPair: an item stays dismissed when
// another open item names the same facts.
func TestUndismissKeepsOneOpenItemPerPair(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ann := Human("ann@example.com")
	it := queueNearDuplicate(t, e)
	if _, err := e.store.ResolveReviewItem(ctx, ann, it.ID, Resolution{Action: ActionDismiss}); err != nil {
		t.Fatal(err)
	}
	var twin int64
	if err := e.pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id, other_fact_id, detail)
		SELECT kind, scope, fact_id, other_fact_id, detail FROM review_items WHERE id = $1 RETURNING id`, it.ID).Scan(&twin); err != nil {
		t.Fatal(err)
	}
	_, err := e.store.UndismissReviewItem(ctx, ann, it.ID, "")
	wantCode(t, "undismiss beside an open twin", err, CodeConflict, "another open item")
	_, err = e.store.UndismissReviewItem(ctx, ann, twin, "")
	wantCode(t, "undismiss an open item", err, CodeConflict, "open already")
}
