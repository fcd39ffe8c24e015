package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/memory"
)

type runBody struct {
	ID       int64  `json:"id"`
	Trigger  string `json:"trigger"`
	Status   string `json:"status"`
	Finished string `json:"finished_at"`
	Phases   []struct {
		Phase  int            `json:"phase"`
		Name   string         `json:"name"`
		Counts map[string]int `json:"counts"`
	} `json:"phases"`
	TransientRejected int     `json:"transient_rejected"`
	Scope             *string `json:"scope"`
}

func TestConsolidation(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	work := f.newToken(t, "work", "desk", "writer")
	reader := f.newToken(t, "home", "dashboard", "reader")
	f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"nodes": []any{
		map[string]any{"content": "Ann lives in Berlin", "properties": map[string]any{"entity": "Ann", "key": "lives_in"}},
		map[string]any{"content": "Ann is tired right now", "durability": "transient"},
	}}).wantStatus(t, http.StatusCreated)
	f.call(t, http.MethodPost, "/api/v1/scopes/work/nodes", work, map[string]any{"content": "The build is red", "durability": "transient"}).
		wantStatus(t, http.StatusCreated)

	res := f.call(t, http.MethodPost, "/api/v1/consolidation/runs", token, nil)
	res.wantStatus(t, http.StatusCreated)
	var run runBody
	res.decode(t, &run)
	if run.Trigger != "api" || run.Status != "succeeded" || run.TransientRejected != 1 || run.Finished == "" ||
		run.Scope == nil || *run.Scope != "home" {
		t.Errorf("run = %+v, want a succeeded api run of home with 1 transient refusal", run)
	}
	if loc := res.header.Get("Location"); loc != fmt.Sprintf("/api/v1/consolidation/runs/%d", run.ID) {
		t.Errorf("Location = %q", loc)
	}
	if len(run.Phases) != 5 || run.Phases[1].Name != "promote" || run.Phases[1].Counts["promoted"] != 1 {
		t.Errorf("phases = %+v, want promote to count 1 promoted", run.Phases)
	}

	var got runBody
	f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/consolidation/runs/%d", run.ID), reader, nil).decode(t, &got)
	if got.ID != run.ID || got.Status != "succeeded" {
		t.Errorf("GET run = %+v", got)
	}
	f.call(t, http.MethodGet, "/api/v1/consolidation/runs/999999", token, nil).wantError(t, http.StatusNotFound, "not_found")
	// The home run left work alone, and is not work's to read.
	var pending int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM memory_nodes WHERE scope = 'work' AND promoted_at IS NULL`).Scan(&pending); err != nil || pending != 1 {
		t.Errorf("work rows pending after the home run = %d, %v; want 1", pending, err)
	}
	f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/consolidation/runs/%d", run.ID), work, nil).wantError(t, http.StatusNotFound, "not_found")

	// A run of every scope, as the schedule starts it, shows each token its
	// status and its own refusals only.
	full, err := f.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerSchedule})
	if err != nil || full.TransientRejected != 1 {
		t.Fatalf("full run = %+v, %v; want the work refusal", full, err)
	}
	var workView, homeView runBody
	f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/consolidation/runs/%d", full.ID), work, nil).decode(t, &workView)
	if got := workView; got.Status != "succeeded" || got.Finished == "" || got.TransientRejected != 1 ||
		got.Phases[1].Counts["transient_rejected"] != 1 || len(got.Phases[1].Counts) != 1 {
		t.Errorf("work reads the full run = %+v, want its status and its one refusal only", got)
	}
	if workView.Scope != nil {
		t.Errorf("the full run's scope = %q, want null (every scope)", *workView.Scope)
	}
	f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/consolidation/runs/%d", full.ID), token, nil).decode(t, &homeView)
	if got := homeView; got.Status != "succeeded" || got.TransientRejected != 0 || len(got.Phases[1].Counts) != 0 {
		t.Errorf("home reads the full run = %+v, want its status and no counts", got)
	}

	type rejection struct {
		RunID     *int64 `json:"run_id"`
		Phase     *int   `json:"phase"`
		PhaseName string `json:"phase_name"`
		Scope     string `json:"scope"`
		Reason    string `json:"reason"`
		Content   string `json:"content"`
	}
	var rej struct {
		Items      []rejection `json:"items"`
		NextCursor *string     `json:"next_cursor"`
	}
	f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/consolidation/rejections?run=%d&phase=promote&reason=transient", run.ID), token, nil).decode(t, &rej)
	if len(rej.Items) != 1 || rej.Items[0].Scope != "home" || rej.Items[0].Content != "Ann is tired right now" ||
		rej.Items[0].Phase == nil || *rej.Items[0].Phase != 10 || rej.Items[0].PhaseName != "promote" {
		t.Errorf("rejections of the home token = %+v, want only the home refusal", rej.Items)
	}
	f.call(t, http.MethodGet, "/api/v1/consolidation/rejections?phase=10", work, nil).decode(t, &rej)
	if len(rej.Items) != 1 || rej.Items[0].Scope != "work" {
		t.Errorf("rejections of the work token = %+v, want only the work refusal", rej.Items)
	}
	for _, bad := range []struct{ query, field string }{{"?phase=13", "phase"}, {"?reason=bored", "reason"}, {"?run=x", "run"}, {"?scope=work", "scope"}} {
		e := f.call(t, http.MethodGet, "/api/v1/consolidation/rejections"+bad.query, token, nil).wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != bad.field {
			t.Errorf("rejections%s field = %q, want %q", bad.query, e.Error.Field, bad.field)
		}
	}

	t.Run("body must be empty", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/consolidation/runs", token, `{"phase": 10}`).wantError(t, http.StatusBadRequest, "invalid")
		if !strings.Contains(e.Error.Message, "unknown field") {
			t.Errorf("message = %q", e.Error.Message)
		}
		f.call(t, http.MethodPost, "/api/v1/consolidation/runs", token, `{}`).wantStatus(t, http.StatusCreated)
	})
}
