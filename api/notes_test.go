package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// pushNote is a note as the API answers it.
type pushNote struct {
	Row        int    `json:"row"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	DecisionID *int64 `json:"decision_id"`
	Decision   string `json:"decision"`
	Reasoning  string `json:"reasoning"`
	FactID     *int64 `json:"fact_id"`
}

type pushAnswer struct {
	IDs   []int64    `json:"ids"`
	Notes []pushNote `json:"notes"`
}

// notesFixture is a scope with a locked decision on Acme Robotics /
// rma_policy and a live fact "Ann lives in Berlin." on Ann / home_city.
func notesFixture(t *testing.T) (*apiFixture, string, int64, int64) {
	t.Helper()
	f := newAPIFixture(t)
	ctx := context.Background()
	d, err := f.store.RecordDecision(ctx, memory.Human("lead@example.com"), memory.NewDecision{Scope: "acme",
		Entity: "Acme Robotics", Key: "rma_policy", Decision: "Cracked housings are replaced without photos.",
		Reasoning: "Photos delayed every RMA by a week."})
	if err != nil {
		t.Fatal(err)
	}
	fact, _, err := f.store.CreateFact(ctx, memory.Human("lead@example.com"), memory.NewFact{Scope: "acme", Entity: "Ann",
		Key: "home_city", Content: "Ann lives in Berlin.", Category: "identity"})
	if err != nil {
		t.Fatal(err)
	}
	return f, f.newToken(t, "acme", "agent", auth.TokenWriter), d.ID, fact.ID
}

func TestPushNotesAndStrict(t *testing.T) {
	f, tok, decisionID, factID := notesFixture(t)
	locked := map[string]any{"content": "Cracked housings are replaced without photos.",
		"properties": map[string]any{"entity": "Acme Robotics", "key": "rma_policy"}}
	repeat := map[string]any{"content": "Ann lives in Berlin.", "properties": map[string]any{"entity": "Ann", "key": "home_city"}}
	plain := map[string]any{"content": "Ann likes tea."}

	var one pushAnswer
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, plain)
	res.wantStatus(t, http.StatusCreated)
	res.decode(t, &one)
	if len(one.IDs) != 1 || one.Notes == nil || len(one.Notes) != 0 || !strings.Contains(string(res.body), `"notes":[]`) {
		t.Errorf("plain push = %s, want one id and an empty notes list", res.body)
	}

	var batch pushAnswer
	res = f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"nodes": []any{plain, locked, repeat}})
	res.wantStatus(t, http.StatusCreated)
	res.decode(t, &batch)
	if len(batch.IDs) != 3 || len(batch.Notes) != 2 {
		t.Fatalf("batch push = %s, want three ids and two notes", res.body)
	}
	n := batch.Notes[0]
	if n.Row != 1 || n.Code != "decision_locked" || n.DecisionID == nil || *n.DecisionID != decisionID ||
		n.Decision != "Cracked housings are replaced without photos." || n.Reasoning != "Photos delayed every RMA by a week." ||
		n.FactID != nil || !strings.Contains(n.Message, fmt.Sprint(decisionID)) {
		t.Errorf("note on the locked row = %+v", n)
	}
	if n := batch.Notes[1]; n.Row != 2 || n.Code != "duplicate" || n.FactID == nil || *n.FactID != factID || n.DecisionID != nil {
		t.Errorf("note on the repeated row = %+v, want duplicate of fact %d", n, factID)
	}

	before := f.count(t, `SELECT count(*) FROM memory_nodes`)
	e := f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"nodes": []any{plain, locked}, "strict": true}).
		wantError(t, http.StatusConflict, "conflict")
	if e.Error.Field != "nodes[1].key" || !strings.Contains(e.Error.Message, "strict") || !strings.Contains(e.Error.Message, fmt.Sprint(decisionID)) {
		t.Errorf("strict batch refusal = %+v, want nodes[1].key, the decision and strict named", e.Error)
	}
	e = f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"nodes": []any{repeat}, "strict": true}).
		wantError(t, http.StatusConflict, "conflict")
	if e.Error.Field != "nodes[0].key" {
		t.Errorf("strict batch-of-one refusal field = %q, want nodes[0].key", e.Error.Field)
	}
	locked["strict"] = true
	e = f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, locked).wantError(t, http.StatusConflict, "conflict")
	if e.Error.Field != "key" {
		t.Errorf("strict single refusal field = %q, want key", e.Error.Field)
	}
	if after := f.count(t, `SELECT count(*) FROM memory_nodes`); after != before {
		t.Errorf("rows = %d after strict refusals, want %d", after, before)
	}
	var ok pushAnswer
	f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, map[string]any{"nodes": []any{plain}, "strict": true}).decode(t, &ok)
	if len(ok.IDs) != 1 || len(ok.Notes) != 0 {
		t.Errorf("strict push without notes = %+v, want it written", ok)
	}
	f.call(t, http.MethodPost, "/api/v1/scopes/acme/nodes", tok, `{"content": "x", "strict": "yes"}`).wantError(t, http.StatusBadRequest, "invalid")
}

func TestExtractStoreNotes(t *testing.T) {
	f, tok, _, factID := notesFixture(t)
	var out struct {
		StoredNodeIDs []int64    `json:"stored_node_ids"`
		Notes         []pushNote `json:"notes"`
	}
	body := map[string]any{"text": "Ann lives in Berlin.", "entity": "Ann", "store": true}
	res := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok, body)
	res.wantStatus(t, http.StatusCreated)
	res.decode(t, &out)
	if len(out.StoredNodeIDs) != 1 || len(out.Notes) != 1 || out.Notes[0].Code != "duplicate" || *out.Notes[0].FactID != factID {
		t.Fatalf("extract with store = %s, want one row noted as a duplicate of fact %d", res.body, factID)
	}
	before := f.count(t, `SELECT count(*) FROM memory_nodes`)
	body["strict"] = true
	e := f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok, body).wantError(t, http.StatusConflict, "conflict")
	if e.Error.Field != "candidates[0].key" {
		t.Errorf("strict extraction refusal field = %q, want candidates[0].key", e.Error.Field)
	}
	if after := f.count(t, `SELECT count(*) FROM memory_nodes`); after != before {
		t.Errorf("rows = %d after a strict refusal, want %d", after, before)
	}
	e = f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "Ann likes tea.", "strict": true}).
		wantError(t, http.StatusBadRequest, "invalid")
	if e.Error.Field != "strict" {
		t.Errorf("strict without store: field = %q, want strict", e.Error.Field)
	}
	res = f.call(t, http.MethodPost, "/api/v1/scopes/acme/extract", tok, map[string]any{"text": "Ann likes tea."})
	res.wantStatus(t, http.StatusOK)
	if strings.Contains(string(res.body), `"notes"`) {
		t.Errorf("extraction without store = %s, want no notes", res.body)
	}
}

func TestDecisionStateAndSupersededBy(t *testing.T) {
	f := newAPIFixture(t)
	ctx := context.Background()
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	lead := memory.Human("lead@example.com")
	record := func(key, text string) int64 {
		t.Helper()
		var d struct{ ID int64 }
		f.call(t, http.MethodPost, "/api/v1/scopes/acme/decisions", tok, map[string]any{
			"entity": "Acme Robotics", "key": key, "decision": text, "reasoning": "Because."}).decode(t, &d)
		return d.ID
	}
	first := record("rma_policy", "No photos.")
	if _, err := f.store.ReopenDecision(ctx, lead, first, "new contract"); err != nil {
		t.Fatal(err)
	}
	second := record("rma_policy", "Two photos.")
	open := record("shipping", "Ship by DHL.")
	if _, err := f.store.ReopenDecision(ctx, lead, open, "carrier changed"); err != nil {
		t.Fatal(err)
	}

	type decisionBody struct {
		ID           int64  `json:"id"`
		SupersededBy *int64 `json:"superseded_by"`
	}
	var got decisionBody
	res := f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/scopes/acme/decisions/%d", first), tok, nil)
	res.decode(t, &got)
	if got.SupersededBy == nil || *got.SupersededBy != second {
		t.Errorf("replaced decision = %s, want superseded_by %d", res.body, second)
	}
	res = f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/scopes/acme/decisions/%d", second), tok, nil)
	if !strings.Contains(string(res.body), `"superseded_by":null`) {
		t.Errorf("current decision = %s, want superseded_by null", res.body)
	}
	for state, want := range map[string][]int64{
		"current": {second}, "superseded": {first}, "reopened": {open}, "": {open, second, first},
	} {
		var page struct{ Items []decisionBody }
		f.call(t, http.MethodGet, "/api/v1/scopes/acme/decisions?state="+state, tok, nil).decode(t, &page)
		var ids []int64
		for _, d := range page.Items {
			ids = append(ids, d.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Errorf("decisions?state=%s = %v, want %v", state, ids, want)
		}
		for _, d := range page.Items {
			if (d.ID == first) != (d.SupersededBy != nil) {
				t.Errorf("decisions?state=%s: decision %d superseded_by = %v", state, d.ID, d.SupersededBy)
			}
		}
	}
	e := f.call(t, http.MethodGet, "/api/v1/scopes/acme/decisions?state=old", tok, nil).wantError(t, http.StatusBadRequest, "invalid")
	if e.Error.Field != "state" || !strings.Contains(e.Error.Message, "current, superseded, reopened") {
		t.Errorf("state=old refusal = %+v, want state named with the allowed values", e.Error)
	}
}

func TestContextSince(t *testing.T) {
	f := newAPIFixture(t)
	ctx := context.Background()
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	lead := memory.Human("lead@example.com")
	if _, _, err := f.store.CreateFact(ctx, lead, memory.NewFact{Scope: "acme", Entity: "billing-db", Key: "replication_lag",
		Content: "billing-db replication lag is 40 s.", Category: "state", Durability: memory.ShortTerm}); err != nil {
		t.Fatal(err)
	}
	f.clock.advance(time.Hour)
	since := f.clock.now()
	f.clock.advance(time.Minute)
	newer, _, err := f.store.CreateFact(ctx, lead, memory.NewFact{Scope: "acme", Entity: "billing-db", Key: "replication_lag",
		Content: "billing-db replication lag recovered.", Category: "state", Durability: memory.ShortTerm})
	if err != nil {
		t.Fatal(err)
	}

	var b struct {
		Since   *time.Time `json:"since"`
		Changes []struct {
			Kind       string `json:"kind"`
			FactID     *int64 `json:"fact_id"`
			DecisionID *int64 `json:"decision_id"`
			Reason     string `json:"reason"`
			At         string `json:"at"`
		} `json:"changes"`
		States []any  `json:"states"`
		Text   string `json:"text"`
	}
	q := "/api/v1/scopes/acme/context?format=json&since=" + url.QueryEscape(since.In(time.FixedZone("CEST", 2*3600)).Format(time.RFC3339))
	res := f.call(t, http.MethodGet, q, tok, nil)
	res.wantStatus(t, http.StatusOK)
	res.decode(t, &b)
	if b.Since == nil || !b.Since.Equal(since) || len(b.Changes) != 2 || len(b.States) != 0 {
		t.Fatalf("brief since = %s, want the two changes since %s", res.body, since)
	}
	kinds := map[string]bool{}
	for _, ch := range b.Changes {
		kinds[ch.Kind] = true
		if ch.FactID == nil || ch.DecisionID != nil || !strings.HasSuffix(ch.At, "Z") {
			t.Errorf("change = %+v, want a fact's change in UTC", ch)
		}
		if ch.Kind == "superseded" && ch.Reason != fmt.Sprintf("superseded by fact %d", newer.ID) {
			t.Errorf("superseded change reason = %q", ch.Reason)
		}
	}
	if !kinds["new"] || !kinds["superseded"] || !strings.Contains(b.Text, "Changes:") {
		t.Errorf("brief since = %s, want a new and a superseded fact under Changes:", res.body)
	}

	res = f.call(t, http.MethodGet, "/api/v1/scopes/acme/context?format=text&since="+url.QueryEscape(f.clock.now().Format(time.RFC3339)), tok, nil)
	res.wantStatus(t, http.StatusOK)
	if !strings.Contains(string(res.body), "Nothing changed.") {
		t.Errorf("brief since now = %q, want Nothing changed.", res.body)
	}
	res = f.call(t, http.MethodGet, "/api/v1/scopes/acme/context?format=json&since="+url.QueryEscape(f.clock.now().Format(time.RFC3339)), tok, nil)
	if !strings.Contains(string(res.body), `"changes":[]`) {
		t.Errorf("brief since now = %s, want an empty changes list", res.body)
	}
	res = f.call(t, http.MethodGet, "/api/v1/scopes/acme/context?format=json", tok, nil)
	if strings.Contains(string(res.body), `"changes"`) || strings.Contains(string(res.body), `"since"`) || !strings.Contains(string(res.body), `"confirmed_at"`) {
		t.Errorf("brief without since = %s, want no changes nor since, and confirmed_at on items", res.body)
	}
	for _, bad := range []string{"yesterday", "2026-03-02", "2026-03-02T10:00:00 02:00"} {
		e := f.call(t, http.MethodGet, "/api/v1/scopes/acme/context?since="+url.QueryEscape(bad), tok, nil).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "since" || !strings.Contains(e.Error.Message, "RFC 3339") {
			t.Errorf("since=%q refusal = %+v, want since named with the format", bad, e.Error)
		}
	}
}
