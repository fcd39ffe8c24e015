package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

type decisionBody struct {
	ID           int64    `json:"id"`
	FactID       int64    `json:"fact_id"`
	Scope        string   `json:"scope"`
	Entity       string   `json:"entity"`
	Key          string   `json:"key"`
	Decision     string   `json:"decision"`
	Alternatives []string `json:"alternatives"`
	Reasoning    string   `json:"reasoning"`
	DecidedBy    string   `json:"decided_by"`
	DecidedAt    string   `json:"decided_at"`
	DoNotReopen  bool     `json:"do_not_reopen"`
}

func (f *apiFixture) recordDecision(t *testing.T, token string, body map[string]any) decisionBody {
	t.Helper()
	res := f.call(t, http.MethodPost, "/api/v1/scopes/home/decisions", token, body)
	res.wantStatus(t, http.StatusCreated)
	var d decisionBody
	res.decode(t, &d)
	return d
}

func TestDecisions(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	d := f.recordDecision(t, token, map[string]any{
		"entity": "backend", "key": "database", "decision": "Use PostgreSQL",
		"alternatives": []string{"MySQL", "SQLite"}, "reasoning": "We already run it and know it well",
		"decided_by": "Ann", "decided_at": "2026-02-01T10:00:00Z",
	})
	if d.Scope != "home" || !d.DoNotReopen || d.DecidedBy != "Ann" || d.DecidedAt != "2026-02-01T10:00:00Z" ||
		len(d.Alternatives) != 2 || d.FactID == 0 {
		t.Errorf("recorded decision = %+v", d)
	}
	f.recordDecision(t, token, map[string]any{"entity": "frontend", "key": "framework", "decision": "Use htmx",
		"reasoning": "Server-rendered pages", "do_not_reopen": false})

	var list struct {
		Items      []decisionBody `json:"items"`
		NextCursor *string        `json:"next_cursor"`
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/decisions", token, nil).decode(t, &list)
	if len(list.Items) != 2 || list.Items[0].Decision != "Use htmx" || list.NextCursor != nil {
		t.Errorf("decisions = %+v, want both, newest first", list)
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/decisions?locked=true&entity=backend", token, nil).decode(t, &list)
	if len(list.Items) != 1 || list.Items[0].ID != d.ID {
		t.Errorf("locked backend decisions = %+v, want decision %d", list.Items, d.ID)
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/decisions?limit=1", token, nil).decode(t, &list)
	if len(list.Items) != 1 || list.NextCursor == nil {
		t.Fatalf("first page = %+v, want one decision and a cursor", list)
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/decisions?limit=1&cursor="+*list.NextCursor, token, nil).decode(t, &list)
	if len(list.Items) != 1 || list.Items[0].ID != d.ID || list.NextCursor != nil {
		t.Errorf("second page = %+v, want decision %d and no cursor", list, d.ID)
	}
	var one decisionBody
	f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/scopes/home/decisions/%d", d.ID), token, nil).decode(t, &one)
	if one.Reasoning != "We already run it and know it well" {
		t.Errorf("GET decision = %+v", one)
	}

	t.Run("reasoning required", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/decisions", token, map[string]any{"entity": "x", "key": "y", "decision": "z"}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "reasoning" {
			t.Errorf("field = %q, want reasoning", e.Error.Field)
		}
	})
	t.Run("alternatives must be strings", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/decisions", token, `{"entity": "x", "key": "y", "decision": "z", "reasoning": "r", "alternatives": ["a", 2]}`).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "alternatives[1]" {
			t.Errorf("field = %q, want alternatives[1]", e.Error.Field)
		}
	})

	t.Run("write against the locked decision", func(t *testing.T) {
		before := f.count(t, "SELECT count(*) FROM entity_facts")
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, map[string]any{
			"entity": "backend", "key": "database", "content": "We should use MySQL"}).wantError(t, http.StatusConflict, "decision_locked")
		if e.Error.DecisionID == nil || *e.Error.DecisionID != d.ID || e.Error.Reasoning != "We already run it and know it well" {
			t.Errorf("error = %+v, want decision %d and its reasoning", e.Error, d.ID)
		}
		if after := f.count(t, "SELECT count(*) FROM entity_facts"); after != before {
			t.Errorf("facts = %d after a refused write, want %d", after, before)
		}
		if n := f.count(t, `SELECT count(*) FROM consolidation_rejections
			WHERE reason = 'decision_locked' AND decision_id = $1 AND scope = 'home' AND source = 'api' AND content = 'We should use MySQL'`, d.ID); n != 1 {
			t.Errorf("rejection rows = %d, want 1", n)
		}
		if !strings.Contains(f.logs.String(), "decision_locked") {
			t.Errorf("no decision_locked log line")
		}

		var rej struct {
			Items []struct {
				Reason     string `json:"reason"`
				DecisionID *int64 `json:"decision_id"`
				RunID      *int64 `json:"run_id"`
				Source     string `json:"source"`
			} `json:"items"`
		}
		f.call(t, http.MethodGet, "/api/v1/consolidation/rejections?reason=decision_locked", token, nil).decode(t, &rej)
		if len(rej.Items) != 1 || rej.Items[0].DecisionID == nil || *rej.Items[0].DecisionID != d.ID || rej.Items[0].RunID != nil || rej.Items[0].Source != "api" {
			t.Errorf("rejection log = %+v, want the refused API write", rej.Items)
		}
	})
	t.Run("recording over the locked decision", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/decisions", token, map[string]any{
			"entity": "backend", "key": "database", "decision": "Use MySQL", "reasoning": "cheaper"}).
			wantError(t, http.StatusConflict, "decision_locked")
		if e.Error.DecisionID == nil || *e.Error.DecisionID != d.ID {
			t.Errorf("error = %+v, want decision %d", e.Error, d.ID)
		}
	})
	t.Run("other scope", func(t *testing.T) {
		work := f.newToken(t, "work", "desk", "writer")
		f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/scopes/work/decisions/%d", d.ID), work, nil).wantError(t, http.StatusNotFound, "not_found")
	})
}
