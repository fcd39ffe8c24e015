package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

type mergeBody struct {
	ID           int64   `json:"id"`
	FromEntityID int64   `json:"from_entity_id"`
	From         string  `json:"from"`
	IntoEntityID int64   `json:"into_entity_id"`
	Into         string  `json:"into"`
	Actor        string  `json:"actor"`
	UndoneAt     *string `json:"undone_at"`
	Facts        int     `json:"facts"`
	Archived     int     `json:"archived"`
}

// TestEntityMergeAndAliases: a writer token merges two entities, adds and
// removes an alias and undoes the merge; writes under the merged name and
// an alias land on the target, whose lock refuses them; every refusal says
// what is wrong.
func TestEntityMergeAndAliases(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "home", "agent", "writer")
	reader := f.newToken(t, "home", "reader", "reader")
	other := f.newToken(t, "work", "other", "writer")
	post := func(path string, body any) apiResponse {
		t.Helper()
		return f.call(t, http.MethodPost, "/api/v1/scopes/home"+path, tok, body)
	}
	post("/facts", map[string]any{"entity": "Ana Ruiz", "key": "home_city", "content": "Ana lives in Lisbon.",
		"observed_at": "2026-03-01T09:00:00Z"}).wantStatus(t, http.StatusCreated)
	post("/facts", map[string]any{"entity": "Wife", "key": "home_city", "content": "Wife lives in Porto.",
		"observed_at": "2026-03-02T09:00:00Z"}).wantStatus(t, http.StatusCreated)
	d := f.recordDecision(t, tok, map[string]any{"entity": "Ana Ruiz", "key": "wedding_venue",
		"decision": "The wedding is at the old mill.", "reasoning": "Both families fit there."})

	var m mergeBody
	res := post("/entities/merge", map[string]any{"from": "wife", "into": "ana ruiz"})
	res.wantStatus(t, http.StatusCreated)
	res.decode(t, &m)
	if m.From != "Wife" || m.Into != "Ana Ruiz" || m.Facts != 1 || m.Archived != 1 || m.Actor != "token:agent" || m.UndoneAt != nil {
		t.Errorf("merge = %+v, want Wife into Ana Ruiz, 1 fact moved, Lisbon archived, by token:agent", m)
	}
	var entities struct {
		Items []struct {
			ID          int64    `json:"id"`
			Name        string   `json:"name"`
			ActiveFacts int64    `json:"active_facts"`
			Aliases     []string `json:"aliases"`
		} `json:"items"`
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/entities?query=ANA", reader, nil).decode(t, &entities)
	if len(entities.Items) != 1 || entities.Items[0].Name != "Ana Ruiz" || entities.Items[0].ActiveFacts != 2 ||
		!slices.Equal(entities.Items[0].Aliases, []string{"Wife"}) {
		t.Errorf("entities = %+v, want Ana Ruiz with 2 active facts and alias Wife", entities)
	}

	// Aliases: added, listed, used by writers, refused when taken.
	aliases := fmt.Sprintf("/entities/%d/aliases", m.IntoEntityID)
	post(aliases, map[string]any{"alias": "@ana"}).wantStatus(t, http.StatusCreated)
	var list struct {
		Items []struct {
			Alias   string `json:"alias"`
			MergeID *int64 `json:"merge_id"`
		} `json:"items"`
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home"+aliases, reader, nil).decode(t, &list)
	if len(list.Items) != 2 || list.Items[0].Alias != "@ana" || list.Items[0].MergeID != nil ||
		list.Items[1].Alias != "Wife" || list.Items[1].MergeID == nil || *list.Items[1].MergeID != m.ID {
		t.Errorf("aliases = %+v, want @ana by hand and Wife by merge %d", list.Items, m.ID)
	}
	var fact struct {
		Fact struct {
			Entity string `json:"entity"`
		} `json:"fact"`
	}
	res = post("/facts", map[string]any{"entity": "@ANA", "key": "drink", "content": "Ana drinks green tea."})
	res.wantStatus(t, http.StatusCreated)
	res.decode(t, &fact)
	if fact.Fact.Entity != "Ana Ruiz" {
		t.Errorf("a fact written under an alias is on %q, want Ana Ruiz", fact.Fact.Entity)
	}
	e := post("/facts", map[string]any{"entity": "wife", "key": "wedding_venue", "content": "The wedding is at the beach."}).
		wantError(t, http.StatusConflict, "decision_locked")
	if e.Error.DecisionID == nil || *e.Error.DecisionID != d.ID {
		t.Errorf("refusal names decision %v, want %d", e.Error.DecisionID, d.ID)
	}
	post(aliases, map[string]any{"alias": "wife"}).wantError(t, http.StatusConflict, "conflict")
	post(aliases, map[string]any{"alias": ""}).wantError(t, http.StatusBadRequest, "invalid")
	post(aliases, map[string]any{"name": "x"}).wantError(t, http.StatusBadRequest, "invalid")
	del := func(alias string) apiResponse {
		return f.call(t, http.MethodDelete, "/api/v1/scopes/home"+aliases+"?alias="+url.QueryEscape(alias), tok, nil)
	}
	if e := del("wife").wantError(t, http.StatusConflict, "conflict"); !strings.Contains(e.Error.Message, "undo the merge") {
		t.Errorf("removing a merge's alias: %q, want it to say undo the merge", e.Error.Message)
	}
	del("nobody").wantError(t, http.StatusNotFound, "not_found")
	f.call(t, http.MethodDelete, "/api/v1/scopes/home"+aliases, tok, nil).wantError(t, http.StatusBadRequest, "invalid")
	del("@Ana").wantStatus(t, http.StatusOK)
	f.call(t, http.MethodGet, "/api/v1/scopes/home/entities/999/aliases", tok, nil).wantError(t, http.StatusNotFound, "not_found")

	// Merges: refused for readers and other scopes, for unknown and
	// identical entities.
	f.call(t, http.MethodPost, "/api/v1/scopes/home/entities/merge", reader, map[string]any{"from": "a", "into": "b"}).
		wantError(t, http.StatusForbidden, "forbidden")
	f.call(t, http.MethodPost, "/api/v1/scopes/home/entities/merge", other, map[string]any{"from": "a", "into": "b"}).
		wantError(t, http.StatusForbidden, "forbidden")
	if e := post("/entities/merge", map[string]any{"from": "Zed", "into": "Ana Ruiz"}).wantError(t, http.StatusNotFound, "not_found"); e.Error.Field != "from" {
		t.Errorf("unknown from: field %q, want from", e.Error.Field)
	}
	post("/entities/merge", map[string]any{"from": "Wife", "into": "Ana Ruiz"}).wantError(t, http.StatusBadRequest, "invalid")
	post("/entities/merge", map[string]any{"scope": "home", "from": "a", "into": "b"}).wantError(t, http.StatusBadRequest, "invalid")
	var merges struct {
		Items      []mergeBody `json:"items"`
		NextCursor *string     `json:"next_cursor"`
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/entities/merges", reader, nil).decode(t, &merges)
	if len(merges.Items) != 1 || merges.Items[0].ID != m.ID || merges.Items[0].UndoneAt != nil {
		t.Errorf("merges = %+v, want merge %d", merges, m.ID)
	}

	// The undo, once; another scope's token cannot reach it.
	undo := fmt.Sprintf("/api/v1/scopes/home/entities/merges/%d/undo", m.ID)
	f.call(t, http.MethodPost, fmt.Sprintf("/api/v1/scopes/work/entities/merges/%d/undo", m.ID), other, nil).
		wantError(t, http.StatusNotFound, "not_found")
	res = f.call(t, http.MethodPost, undo, tok, nil)
	res.wantStatus(t, http.StatusOK)
	res.decode(t, &m)
	if m.UndoneAt == nil {
		t.Errorf("undone merge = %+v, want undone_at", m)
	}
	f.call(t, http.MethodPost, undo, tok, nil).wantError(t, http.StatusConflict, "conflict")
	f.call(t, http.MethodGet, "/api/v1/scopes/home/entities", tok, nil).decode(t, &entities)
	if len(entities.Items) != 2 {
		t.Errorf("entities after the undo = %+v, want Ana Ruiz and Wife", entities.Items)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE action LIKE 'entity.%' AND actor = 'token:agent'`); n != 4 {
		t.Errorf("entity audit rows = %d, want 4 (merge, alias added and removed, undo)", n)
	}
}
