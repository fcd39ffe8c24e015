package api_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
)

// TestDecisionsBeforeID: before_id, the former name of cursor (which
// list_decisions over MCP also takes), pages the decisions; given with
// cursor, or not a positive id, it is refused naming before_id.
func TestDecisionsBeforeID(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	var ids []int64
	for _, key := range []string{"database", "queue"} {
		var d struct {
			ID int64 `json:"id"`
		}
		res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/decisions", tok, map[string]any{
			"entity": "backend", "key": key, "decision": "Use PostgreSQL for " + key, "reasoning": "We run it."})
		res.wantStatus(t, http.StatusCreated)
		res.decode(t, &d)
		ids = append(ids, d.ID)
	}
	var page struct {
		Items []struct {
			ID int64 `json:"id"`
		} `json:"items"`
	}
	res := f.call(t, http.MethodGet, "/api/v1/scopes/acme/decisions?before_id="+strconv.FormatInt(ids[1], 10), tok, nil)
	res.wantStatus(t, http.StatusOK)
	res.decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != ids[0] {
		t.Errorf("decisions below %d = %+v, want decision %d", ids[1], page.Items, ids[0])
	}
	for _, q := range []string{"before_id=" + strconv.FormatInt(ids[1], 10) + "&cursor=" + strconv.FormatInt(ids[1], 10), "before_id=0", "before_id=abc"} {
		e := f.call(t, http.MethodGet, "/api/v1/scopes/acme/decisions?"+q, tok, nil).wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "before_id" || !strings.Contains(e.Error.Message, "cursor") {
			t.Errorf("%s: error = %+v, want before_id named and cursor offered", q, e.Error)
		}
	}
}
