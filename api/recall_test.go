package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRecall(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	d := f.recordDecision(t, token, map[string]any{"entity": "backend", "key": "database", "decision": "Use PostgreSQL for the database",
		"reasoning": "We already run PostgreSQL", "alternatives": []string{"MySQL"}})
	f.createFact(t, token, map[string]any{"entity": "Ann", "key": "lives_in", "content": "Ann lives in Berlin", "confidence": 0.9})
	f.createFact(t, token, map[string]any{"entity": "Bob", "key": "lives_in", "content": "Bob lives in Berlin too", "confidence": 0.4, "category": "preference"})
	other := f.newToken(t, "work", "desk", "writer")
	f.call(t, http.MethodPost, "/api/v1/scopes/work/facts", other, map[string]any{"entity": "Ann", "content": "Ann lives in Berlin at work"}).
		wantStatus(t, http.StatusCreated)

	type result struct {
		Fact                factBody      `json:"fact"`
		EffectiveConfidence float64       `json:"effective_confidence"`
		Score               float64       `json:"score"`
		Decision            *decisionBody `json:"decision"`
	}
	var out struct {
		Query   string   `json:"query"`
		Results []result `json:"results"`
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/recall?query=Berlin", token, nil).decode(t, &out)
	if len(out.Results) != 2 || out.Results[0].Fact.Content != "Ann lives in Berlin" || out.Results[0].EffectiveConfidence != 0.9 ||
		out.Results[0].Decision != nil || out.Results[0].Score < out.Results[1].Score {
		t.Errorf("recall Berlin = %+v, want Ann's fact first, with its effective confidence", out.Results)
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/recall?query=Berlin&entity=Bob&category=preference&durability=long_term&limit=5", token, nil).decode(t, &out)
	if len(out.Results) != 1 || out.Results[0].Fact.Entity != "Bob" {
		t.Errorf("filtered recall = %+v, want Bob's fact", out.Results)
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/recall?q=postgresql", token, nil).decode(t, &out)
	if len(out.Results) != 1 || out.Results[0].Decision == nil || out.Results[0].Decision.ID != d.ID ||
		out.Results[0].Decision.Reasoning != "We already run PostgreSQL" {
		t.Errorf("recall postgresql = %+v, want the decision with its reasoning", out.Results)
	}
	// q is query's deprecated name: still accepted, and named in errors
	// when it is what the caller sent.
	var old struct {
		Results []result `json:"results"`
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/recall?q=Berlin", token, nil).decode(t, &old)
	if len(old.Results) != 2 {
		t.Errorf("recall ?q=Berlin = %d results, want the 2 of ?query=Berlin", len(old.Results))
	}
	long := strings.Repeat("x", 1001)
	for _, bad := range []struct{ query, field string }{{"?limit=101", "limit"}, {"?durability=forever", "durability"}, {"?category=Bad!", "category"},
		{"?query=" + long, "query"}, {"?q=" + long, "q"}, {"?q=a&query=b", "q"}} {
		e := f.call(t, http.MethodGet, "/api/v1/scopes/home/recall"+bad.query, token, nil).wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != bad.field {
			t.Errorf("recall%s field = %q, want %q", bad.query, e.Error.Field, bad.field)
		}
	}
}

func TestContextBrief(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	for i := range 40 {
		f.createFact(t, token, map[string]any{"entity": fmt.Sprintf("thing%d", i), "key": "about",
			"content": fmt.Sprintf("Thing %d is a fairly long durable fact that takes up room in the brief", i), "durability": "long_term"})
	}
	f.createFact(t, token, map[string]any{"entity": "Ann", "key": "status", "content": "Ann is travelling", "data_type": "temporal"})
	d := f.recordDecision(t, token, map[string]any{"entity": "backend", "key": "database", "decision": "Use PostgreSQL",
		"reasoning": "We already run it", "alternatives": []string{"MySQL"}})

	type brief struct {
		Budget           int       `json:"budget"`
		Used             int       `json:"used"`
		Truncated        bool      `json:"truncated"`
		AsOf             time.Time `json:"as_of"`
		DecisionsLeftOut int       `json:"decisions_left_out"`
		Decisions        []struct {
			ID        int64  `json:"id"`
			Reasoning string `json:"reasoning"`
		} `json:"decisions"`
		States []struct{ Content string } `json:"states"`
		Facts  []struct{ Content string } `json:"facts"`
		Text   string                     `json:"text"`
	}
	var b brief
	f.call(t, http.MethodGet, "/api/v1/scopes/home/context?format=json", token, nil).decode(t, &b)
	if b.Budget != 4000 || b.Used > 4000 || utf8.RuneCountInString(b.Text) != b.Used {
		t.Errorf("brief budget %d used %d (text %d), want the default 4000 and never over", b.Budget, b.Used, utf8.RuneCountInString(b.Text))
	}
	if len(b.Decisions) != 1 || b.Decisions[0].ID != d.ID || b.Decisions[0].Reasoning != "We already run it" || len(b.States) != 1 {
		t.Errorf("brief = %+v, want the decision with its reasoning and Ann's state", b)
	}
	if b.AsOf.IsZero() || b.AsOf.Location() != time.UTC || b.DecisionsLeftOut != 0 ||
		!strings.HasPrefix(b.Text, "Memory brief for scope home, as of "+b.AsOf.Format("2006-01-02 15:04")+" UTC") {
		t.Errorf("brief as_of %v, decisions_left_out %d, header %q", b.AsOf, b.DecisionsLeftOut, strings.SplitN(b.Text, "\n", 2)[0])
	}

	for _, budget := range []int{200, 300, 1000} {
		t.Run(fmt.Sprint("budget ", budget), func(t *testing.T) {
			var b brief
			f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/scopes/home/context?format=json&budget=%d", budget), token, nil).decode(t, &b)
			if b.Used > budget || utf8.RuneCountInString(b.Text) > budget || !b.Truncated {
				t.Errorf("brief within %d: used %d, text %d runes, truncated %v; want within budget and truncated", budget, b.Used, utf8.RuneCountInString(b.Text), b.Truncated)
			}
			// Within 200 the header, its time and the room kept for the
			// line saying what was left out leave no room for this
			// decision's line: the brief says so instead.
			if budget == 200 {
				if len(b.Decisions) != 0 || b.DecisionsLeftOut != 1 || !strings.Contains(b.Text, "\n1 locked decision left out\n") {
					t.Errorf("brief within 200 = %+v, want the decision said to be left out", b)
				}
			} else if len(b.Decisions) != 1 || b.DecisionsLeftOut != 0 {
				t.Errorf("brief within %d has %d decisions (%d left out), want the decision first", budget, len(b.Decisions), b.DecisionsLeftOut)
			}
			res := f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/scopes/home/context?budget=%d&format=text", budget), token, nil)
			res.wantStatus(t, http.StatusOK)
			text := string(res.body)
			if !strings.HasPrefix(res.header.Get("Content-Type"), "text/plain") {
				t.Errorf("Content-Type = %q, want text/plain", res.header.Get("Content-Type"))
			}
			if n := utf8.RuneCountInString(text); n > budget {
				t.Errorf("text brief is %d characters, over the budget of %d", n, budget)
			}
			di, fi := strings.Index(text, "Use PostgreSQL — because We already run it"), strings.Index(text, "Known facts:")
			if budget > 200 && (di < 0 || (fi >= 0 && fi < di)) {
				t.Errorf("text brief = %q, want the decision with its reasoning before any fact", text)
			}
			if text != b.Text {
				t.Errorf("format=text = %q, want the JSON's text %q", text, b.Text)
			}
		})
	}
	// Text by default, as over MCP; JSON on request, by format or Accept.
	for _, tt := range []struct {
		name, query, accept string
		json                bool
	}{
		{"default", "", "", false},
		{"any type", "", "*/*", false},
		{"text and json accepted", "", "application/json, text/plain, */*", false},
		{"json accepted", "", "application/json", true},
		{"format json", "?format=json", "text/plain", true},
		{"format text", "?format=text", "application/json", false},
	} {
		res := f.callWith(t, http.MethodGet, "/api/v1/scopes/home/context"+tt.query, token, nil, map[string]string{"Accept": tt.accept})
		res.wantStatus(t, http.StatusOK)
		ct := res.header.Get("Content-Type")
		if tt.json {
			var got brief
			res.decode(t, &got)
			if !strings.HasPrefix(ct, "application/json") || got.Text != b.Text {
				t.Errorf("%s: Content-Type %q, text %q; want JSON with the brief", tt.name, ct, got.Text)
			}
		} else if !strings.HasPrefix(ct, "text/plain") || string(res.body) != b.Text {
			t.Errorf("%s: Content-Type %q, body %q; want the brief as text", tt.name, ct, res.body)
		}
	}

	for _, bad := range []struct{ query, field string }{{"?budget=10", "budget"}, {"?budget=lots", "budget"}, {"?format=xml", "format"}} {
		e := f.call(t, http.MethodGet, "/api/v1/scopes/home/context"+bad.query, token, nil).wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != bad.field {
			t.Errorf("context%s field = %q, want %q", bad.query, e.Error.Field, bad.field)
		}
	}
}

// TestRecallPending checks that a durable row pushed over the API is
// recalled as soon as the push returns, marked pending with its node id, as
// the document describes; that a transient row never is; and that after a
// consolidation run the same text comes back once, as a fact.
func TestRecallPending(t *testing.T) {
	f := newAPIFixture(t)
	doc := loadLiveDoc(t)
	token := f.newToken(t, "home", "laptop", "writer")
	f.createFact(t, token, map[string]any{"entity": "Ann", "key": "lives_in", "content": "Ann lives in Berlin"})
	var pushed struct {
		IDs []int64 `json:"ids"`
	}
	res := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"rows": []map[string]any{
		{"content": "Ann moved to Hamburg in March", "properties": map[string]any{"entity": "Ann", "confidence": 0.8}},
		{"content": "Ann is packing boxes for Hamburg right now", "durability": "transient"},
	}})
	res.wantStatus(t, http.StatusCreated)
	res.decode(t, &pushed)

	type result struct {
		Fact    factBody `json:"fact"`
		Score   float64  `json:"score"`
		Pending bool     `json:"pending"`
		NodeID  *int64   `json:"node_id"`
	}
	var out struct {
		Results []result `json:"results"`
	}
	recall := func() {
		t.Helper()
		res := f.call(t, http.MethodGet, "/api/v1/scopes/home/recall?query=Where+does+Ann+live+now%3F+Hamburg", token, nil)
		doc.check(t, http.MethodGet, "/api/v1/scopes/{scope}/recall", res)
		res.decode(t, &out)
	}
	recall()
	if len(out.Results) != 2 || !out.Results[0].Pending || out.Results[0].NodeID == nil || *out.Results[0].NodeID != pushed.IDs[0] ||
		out.Results[0].Fact.ID != 0 || out.Results[0].Fact.Content != "Ann moved to Hamburg in March" || out.Results[0].Fact.Entity != "Ann" ||
		out.Results[1].Pending || out.Results[1].NodeID != nil || out.Results[1].Fact.Content != "Ann lives in Berlin" {
		t.Fatalf("recall right after the push = %+v, want the pushed row first, pending, then Ann's fact (not the transient row)", out.Results)
	}

	f.call(t, http.MethodPost, "/api/v1/consolidation/runs", token, nil).wantStatus(t, http.StatusCreated)
	recall()
	n := 0
	for _, r := range out.Results {
		if r.Pending || r.NodeID != nil {
			t.Errorf("after consolidation, result %+v is still pending", r)
		}
		if r.Fact.Content == "Ann moved to Hamburg in March" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("after consolidation, the row's text came back %d times, want once as a fact: %+v", n, out.Results)
	}
}
