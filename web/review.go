package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

const reviewPageSize = 50

// reviewList shows the open review queue, oldest first, or the dismissed
// items, the newest first, filtered by kind and scope, one keyset page at a
// time. After a dismissal without htmx, undo names the item dismissed, which
// the page offers to put back.
func (s *Console) reviewList(c echo.Context) error {
	filter, after, err := parseReviewFilter(c.QueryParams())
	if err != nil {
		return err
	}
	view, err := s.reviewPage(c, filter, after)
	if err != nil {
		return err
	}
	if id, err := strconv.ParseInt(c.QueryParam("undo"), 10, 64); err == nil && id > 0 && !filter.Dismissed() {
		if it, err := s.store.GetReviewItem(c.Request().Context(), id); err == nil && it.Status == memory.ReviewDismissed {
			view.Undo = &pages.ReviewUndo{ID: id, Message: fmt.Sprintf("Item %d dismissed.", id)}
		}
	}
	return s.page(c, http.StatusOK, "Review queue", "review", pages.Review(view), nil)
}

// reviewPage builds the queue's view model for one page.
func (s *Console) reviewPage(c echo.Context, filter pages.ReviewFilter, after int64) (pages.ReviewPage, error) {
	ctx := c.Request().Context()
	items, err := s.store.ReviewQueue(ctx, memory.ReviewFilter{
		Status: filter.Status, Kind: filter.Kind, Scope: filter.Scope, AfterID: after, Limit: reviewPageSize + 1,
	})
	if err != nil {
		return pages.ReviewPage{}, err
	}
	view, err := s.reviewCounted(c, filter)
	if err != nil {
		return view, err
	}
	view.After = after
	if len(items) > reviewPageSize {
		items = items[:reviewPageSize]
		view.NextURL = reviewURL(filter, items[len(items)-1].ID)
	}
	if after != 0 {
		view.FirstURL = reviewURL(filter, 0)
	}
	for _, it := range items {
		view.Items = append(view.Items, reviewItemView(it))
	}
	if view.Scopes, err = s.store.Scopes(ctx); err != nil {
		return view, err
	}
	return view, nil
}

// reviewCounted is reviewFrame with the counts of both lists, which the
// summary and the filter show.
func (s *Console) reviewCounted(c echo.Context, filter pages.ReviewFilter) (pages.ReviewPage, error) {
	ctx := c.Request().Context()
	view := s.reviewFrame(c, filter)
	open, err := s.store.CountOpenReviewItems(ctx, filter.Scope)
	if err != nil {
		return view, err
	}
	dismissed, err := s.store.CountDismissedReviewItems(ctx, filter.Scope)
	if err != nil {
		return view, err
	}
	view.OpenTotal, view.DismissedTotal = reviewTotal(open, ""), reviewTotal(dismissed, "")
	view.Counts = open
	if filter.Dismissed() {
		view.Counts = dismissed
	}
	return view, nil
}

// reviewFrame is what every rendering of a review item needs besides the item.
func (s *Console) reviewFrame(c echo.Context, filter pages.ReviewFilter) pages.ReviewPage {
	view := pages.ReviewPage{
		Filter: filter, Kinds: memory.ReviewKinds(), CanEdit: signedInAs(c, auth.RoleReviewer), Now: s.now(),
		ScriptPath: s.assets.Path("js/review.js"),
	}
	for _, c := range memory.SuggestedCategories() {
		if c != memory.CategoryMood && c != memory.CategoryDecision {
			view.Categories = append(view.Categories, c)
		}
	}
	for _, d := range memory.Durabilities() {
		if d != memory.Ephemeral {
			view.Durabilities = append(view.Durabilities, string(d))
		}
	}
	return view
}

// parseReviewFilter reads and validates the queue's filter, text the store
// cannot take (memory.CheckParams) first.
func parseReviewFilter(v url.Values) (pages.ReviewFilter, int64, error) {
	if err := memory.CheckParams(v); err != nil {
		return pages.ReviewFilter{}, 0, err
	}
	f := pages.ReviewFilter{Kind: strings.TrimSpace(v.Get("kind")), Scope: strings.TrimSpace(v.Get("scope"))}
	status, err := memory.ParseReviewStatus(strings.TrimSpace(v.Get("status")))
	if err != nil {
		return f, 0, err
	}
	if status == memory.ReviewDismissed {
		f.Status = status
	}
	if f.Kind != "" {
		if _, err := memory.ParseReviewKind(f.Kind); err != nil {
			return f, 0, err
		}
	}
	if f.Scope != "" {
		if _, err := memory.ParseScope(f.Scope); err != nil {
			return f, 0, err
		}
	}
	var after int64
	if a := v.Get("after"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n <= 0 {
			return f, 0, memory.Invalidf("after", "invalid page cursor %q: it must be a positive review item id", a)
		}
		after = n
	}
	return f, after, nil
}

// reviewURL is the queue's URL for filter, starting after item id after.
func reviewURL(f pages.ReviewFilter, after int64) string {
	v := url.Values{}
	if f.Status != "" {
		v.Set("status", f.Status)
	}
	if f.Kind != "" {
		v.Set("kind", f.Kind)
	}
	if f.Scope != "" {
		v.Set("scope", f.Scope)
	}
	if after > 0 {
		v.Set("after", strconv.FormatInt(after, 10))
	}
	if len(v) == 0 {
		return "/review"
	}
	return "/review?" + v.Encode()
}

func reviewFactOf(f *memory.Fact) *pages.ReviewFact {
	if f == nil {
		return nil
	}
	return &pages.ReviewFact{
		ID: f.ID, Entity: f.Entity, Key: f.Key, Content: f.Content, Durability: string(f.Durability),
		Category: f.Category, Status: string(f.Status), ArchiveReason: f.ArchiveReason, Source: f.Source,
		Confidence: f.Confidence, Effective: f.EffectiveConfidence, ConfirmedAt: f.ConfirmedAt,
		CreatedAt: f.CreatedAt, ExtractionCount: f.ExtractionCount,
	}
}

// reviewItemView is an item as the queue shows it, its form filled with
// the defaults a reviewer starts from.
func reviewItemView(it memory.ReviewItem) pages.ReviewItemView {
	v := pages.ReviewItemView{ID: it.ID, Kind: it.Kind, Scope: it.Scope, CreatedAt: it.CreatedAt,
		Status: it.Status, ResolvedAt: it.ResolvedAt, ResolvedBy: it.ResolvedBy}
	for _, a := range memory.ReviewActions(it.Kind) {
		v.Actions = append(v.Actions, string(a))
	}
	switch it.Kind {
	case memory.ReviewNearDuplicate:
		v.Older, v.Newer = reviewFactOf(it.OtherFact), reviewFactOf(it.Fact)
		if v.Older != nil && v.Newer != nil && v.Older.ID > v.Newer.ID {
			v.Older, v.Newer = v.Newer, v.Older
		}
	case memory.ReviewRepeatedMood:
		v.Mood = reviewFactOf(it.Fact)
		if v.Mood != nil {
			v.Form.Content, v.Form.Key = v.Mood.Content, v.Mood.Key
		}
	case memory.ReviewDecisionRefusal:
		if r := it.Rejection; r != nil {
			v.Refusal = &pages.ReviewRefusal{Content: r.Content, Source: r.Source, RunID: r.RunID, Phase: r.Phase, At: r.CreatedAt}
			var props struct {
				Actor  string `json:"actor"`
				Action string `json:"action"`
			}
			if r.RunID == nil && json.Unmarshal(r.Properties, &props) == nil {
				v.Refusal.Actor, v.Refusal.Action = props.Actor, props.Action
			}
		}
		if d := it.Decision; d != nil {
			v.Decision = &pages.ReviewDecision{ID: d.ID, Entity: d.Entity, Key: d.Key, Decision: d.Decision,
				Reasoning: d.Reasoning, Locked: d.DoNotReopen, Reopened: d.ReopenedAt != nil}
		}
	}
	return v
}

var reviewFields = []string{"reason", "category", "durability", "content", "key"}

// reviewResolve applies a reviewer's action to one item through the engine.
// A plain form post gets 303 back to the queue; htmx gets the item swapped
// out and a message for the live region. A missing field is 422 with the
// item re-rendered and the error beside the field; an item someone else
// resolved first is 409.
func (s *Console) reviewResolve(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	filter, _ := reviewFormFilter(c)
	form := pages.ReviewItemForm{
		Reason: c.FormValue("reason"), Category: strings.TrimSpace(c.FormValue("category")),
		Durability: strings.TrimSpace(c.FormValue("durability")), Content: c.FormValue("content"),
		Key: c.FormValue("key"),
	}
	res := memory.Resolution{
		Action: memory.ReviewAction(c.FormValue("action")), Reason: form.Reason, Content: form.Content,
		Category: form.Category, Durability: memory.Durability(form.Durability),
	}
	if _, ok := c.Request().Form["key"]; ok {
		key := strings.TrimSpace(form.Key)
		res.Key = &key
	}
	if err := checkForm(c); err != nil {
		return s.reviewFailed(c, id, filter, form, err)
	}
	out, err := s.store.ResolveReviewItem(ctx, actor(c), id, res)
	if err != nil {
		return s.reviewFailed(c, id, filter, form, err)
	}
	msg := reviewOutcomeMessage(out)
	var undo int64
	if out.Item.Status == memory.ReviewDismissed {
		undo = out.Item.ID
	}
	if isHTMX(c) {
		c.Response().Header().Add("Vary", "HX-Request")
		view, err := s.reviewCounted(c, filter)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, pages.ReviewResolved(view, msg, undo))
	}
	if undo > 0 {
		// The queue offers to undo the dismissal (reviewList).
		target := reviewURL(filter, 0)
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		return c.Redirect(http.StatusSeeOther, target+sep+"undo="+strconv.FormatInt(undo, 10))
	}
	return s.redirectWithFlash(c, reviewURL(filter, 0), "ok", msg)
}

// reviewFormFilter reads the filter a review form carries (filter_kind,
// filter_scope, filter_status) and its page cursor (filter_after), dropping
// what is not valid: the answer goes back to the queue as it was shown.
func reviewFormFilter(c echo.Context) (pages.ReviewFilter, int64) {
	filter := pages.ReviewFilter{Kind: c.FormValue("filter_kind"), Scope: c.FormValue("filter_scope")}
	if _, err := memory.ParseReviewKind(filter.Kind); err != nil {
		filter.Kind = ""
	}
	if _, err := memory.ParseScope(filter.Scope); err != nil {
		filter.Scope = ""
	}
	if c.FormValue("filter_status") == memory.ReviewDismissed {
		filter.Status = memory.ReviewDismissed
	}
	after, err := strconv.ParseInt(c.FormValue("filter_after"), 10, 64)
	if err != nil || after < 0 {
		after = 0
	}
	return filter, after
}

// reviewUndismiss undoes a dismissal through the engine: the item is open
// again. From the open queue (the undo after a dismissal) htmx gets the
// list's page again with the item back in it; from the list of dismissed
// items, the item goes from that list. Either way the counts follow. A plain
// form post gets 303 back to the queue with a message; an item that cannot
// be put back (it is open, or was accepted or merged, or another open item
// names its facts) is 409 with the reason.
func (s *Console) reviewUndismiss(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	filter, after := reviewFormFilter(c)
	if err = checkForm(c); err == nil {
		_, err = s.store.UndismissReviewItem(ctx, actor(c), id, "dismissal undone")
	}
	if err != nil {
		me := memory.AsError(err)
		if me == nil || (me.Code != memory.CodeConflict && me.Code != memory.CodeInvalid && me.Code != memory.CodeNotFound) {
			return err
		}
		status := http.StatusConflict
		if me.Code == memory.CodeNotFound {
			status = http.StatusNotFound
		}
		if isHTMX(c) {
			c.Response().Header().Add("Vary", "HX-Request")
			view, verr := s.reviewCounted(c, filter)
			if verr != nil {
				return verr
			}
			return render(c, status, pages.ReviewNotice(view, "Nothing was changed: "+me.Message+"."))
		}
		return s.redirectWithFlash(c, reviewURL(filter, 0), "error", "Nothing was changed: "+me.Message+".")
	}
	msg := fmt.Sprintf("Item %d is back in the queue.", id)
	if !isHTMX(c) {
		return s.redirectWithFlash(c, reviewURL(filter, 0), "ok", msg)
	}
	c.Response().Header().Add("Vary", "HX-Request")
	if filter.Dismissed() {
		view, err := s.reviewCounted(c, filter)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, pages.ReviewResolved(view, msg, 0))
	}
	view, err := s.reviewPage(c, filter, after)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.ReviewRestored(view, msg))
}

func reviewTotal(counts map[string]int, kind string) int {
	if kind != "" {
		return counts[kind]
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// reviewOutcomeMessage says what an action did, for the flash or live region.
func reviewOutcomeMessage(out memory.ReviewOutcome) string {
	it := out.Item
	switch {
	case it.Status == "merged" && out.Fact != nil:
		merged := *it.FactID
		if it.OtherFactID != nil && *it.OtherFactID != out.Fact.ID {
			merged = *it.OtherFactID
		}
		return fmt.Sprintf("Item %d merged: fact %d archived into fact %d, which is reinforced.", it.ID, merged, out.Fact.ID)
	case it.Kind == memory.ReviewNearDuplicate && it.Status == "accepted":
		return fmt.Sprintf("Item %d accepted: both facts are kept as distinct.", it.ID)
	case it.Kind == memory.ReviewDecisionRefusal && it.Status == "accepted" && out.Decision != nil:
		if out.AlreadyOpen {
			return fmt.Sprintf("Item %d accepted: decision %d was already reopened by %s.", it.ID, out.Decision.ID, out.Decision.ReopenedBy)
		}
		return fmt.Sprintf("Item %d accepted: decision %d is reopened.", it.ID, out.Decision.ID)
	case it.Kind == memory.ReviewRepeatedMood && it.Status == "accepted" && out.Fact != nil:
		return fmt.Sprintf("Item %d accepted: fact %d written as a %s %s; the mood stays ephemeral.",
			it.ID, out.Fact.ID, out.Fact.Durability.Label(), out.Fact.Category)
	}
	return fmt.Sprintf("Item %d dismissed.", it.ID)
}

// reviewFailed answers a refused action: 422 with the item and the error
// beside its field, 409 when the item was resolved already or its facts
// changed, anything else through the error page.
func (s *Console) reviewFailed(c echo.Context, id int64, filter pages.ReviewFilter, form pages.ReviewItemForm, err error) error {
	ctx := c.Request().Context()
	if resolved := memory.AsError(err); resolved != nil && resolved.Review != nil {
		msg := resolved.Message
		if isHTMX(c) {
			c.Response().Header().Add("Vary", "HX-Request")
			view, verr := s.reviewCounted(c, filter)
			if verr != nil {
				return verr
			}
			return render(c, http.StatusConflict, pages.ReviewStale(view, id, msg))
		}
		view, verr := s.reviewPage(c, filter, 0)
		if verr != nil {
			return verr
		}
		view.Alert = msg
		return s.page(c, http.StatusConflict, "Review queue", "review", pages.Review(view), nil)
	}
	status := http.StatusUnprocessableEntity
	field, msg, ok := decisionFieldError(err, reviewFields...)
	if !ok {
		var me *memory.Error
		if !errors.As(err, &me) || me.Code != memory.CodeConflict {
			return err
		}
		status, field, msg = http.StatusConflict, "", me.Message
	}
	item, gerr := s.store.GetReviewItem(ctx, id)
	if gerr != nil {
		return gerr
	}
	iv := reviewItemView(item)
	form.Errors = map[string]string{field: msg}
	iv.Form = form
	if isHTMX(c) {
		c.Response().Header().Add("Vary", "HX-Request")
		return render(c, status, pages.ReviewItem(s.reviewFrame(c, filter), iv))
	}
	view, verr := s.reviewPage(c, filter, 0)
	if verr != nil {
		return verr
	}
	found := false
	for i := range view.Items {
		if view.Items[i].ID == id {
			view.Items[i] = iv
			found = true
		}
	}
	if !found {
		view.Items = append([]pages.ReviewItemView{iv}, view.Items...)
	}
	return s.page(c, status, "Review queue", "review", pages.Review(view), nil)
}
