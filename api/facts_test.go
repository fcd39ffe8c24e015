package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

type factBody struct {
	ID                  int64   `json:"id"`
	Scope               string  `json:"scope"`
	Entity              string  `json:"entity"`
	Key                 string  `json:"key"`
	Content             string  `json:"content"`
	Durability          string  `json:"durability"`
	Category            string  `json:"category"`
	Confidence          float64 `json:"confidence"`
	EffectiveConfidence float64 `json:"effective_confidence"`
	Status              string  `json:"status"`
	Source              string  `json:"source"`
	Version             int32   `json:"version"`
	ConfirmedAt         string  `json:"confirmed_at"`
}

type factWritten struct {
	Fact       factBody `json:"fact"`
	Reinforced bool     `json:"reinforced"`
}

type factPage struct {
	Items      []factBody `json:"items"`
	NextCursor *string    `json:"next_cursor"`
}

func (f *apiFixture) createFact(t *testing.T, token string, body map[string]any) factBody {
	t.Helper()
	res := f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, body)
	res.wantStatus(t, http.StatusCreated)
	var w factWritten
	res.decode(t, &w)
	return w.Fact
}

func TestFactCreate(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")

	fact := f.createFact(t, token, map[string]any{"entity": "Ann", "key": "lives_in", "content": "Ann lives in Berlin",
		"durability": "long_term", "category": "observation", "confidence": 0.9})
	if fact.Scope != "home" || fact.Durability != "long_term" || fact.Source != "api" || fact.Version != 1 ||
		fact.EffectiveConfidence != 0.9 || !strings.HasSuffix(fact.ConfirmedAt, "Z") {
		t.Errorf("created fact = %+v", fact)
	}

	t.Run("reinforce", func(t *testing.T) {
		res := f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, map[string]any{
			"entity": "Ann", "key": "lives_in", "content": "ann lives in berlin", "confidence": 0.5})
		res.wantStatus(t, http.StatusOK)
		var w factWritten
		res.decode(t, &w)
		if !w.Reinforced || w.Fact.ID != fact.ID || w.Fact.Confidence <= 0.9 {
			t.Errorf("reinforcement = %+v, want fact %d reinforced", w, fact.ID)
		}
	})

	legacy := []struct{ dataType, durability, category string }{
		{"temporal", "short_term", "state"},
		{"permanent", "permanent", "identity"},
		{"identity", "permanent", "identity"},
		{"preference", "long_term", "preference"},
		{"observation", "long_term", "observation"},
	}
	for _, l := range legacy {
		t.Run("data_type "+l.dataType, func(t *testing.T) {
			got := f.createFact(t, token, map[string]any{"entity": "Bob", "key": "k_" + l.dataType, "content": "legacy " + l.dataType, "data_type": l.dataType})
			if got.Durability != l.durability || got.Category != l.category {
				t.Errorf("data_type %s = (%s, %s), want (%s, %s)", l.dataType, got.Durability, got.Category, l.durability, l.category)
			}
		})
	}
	t.Run("bad data_type", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, map[string]any{"entity": "Bob", "content": "x", "data_type": "episodic"}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "data_type" || !strings.Contains(e.Error.Message, "permanent, identity, preference, observation, temporal") {
			t.Errorf("error = %+v, want data_type and the allowed values", e.Error)
		}
	})
	t.Run("data_type with durability", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, map[string]any{"entity": "Bob", "content": "x", "data_type": "temporal", "durability": "short_term"}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "data_type" || !strings.Contains(e.Error.Message, "not both") {
			t.Errorf("error = %+v, want the ambiguity named", e.Error)
		}
	})
	t.Run("invalid durability", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, map[string]any{"entity": "Bob", "content": "x", "durability": "forever"}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "durability" || !strings.Contains(e.Error.Message, "permanent, long_term, short_term, ephemeral") {
			t.Errorf("error = %+v", e.Error)
		}
	})
	t.Run("decision category", func(t *testing.T) {
		f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, map[string]any{"entity": "Bob", "content": "x", "category": "decision"}).
			wantError(t, http.StatusBadRequest, "invalid")
	})
	t.Run("bad time", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, map[string]any{"entity": "Bob", "content": "x", "expires_at": "tomorrow"}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "expires_at" || !strings.Contains(e.Error.Message, "RFC 3339") {
			t.Errorf("error = %+v", e.Error)
		}
	})
}

func TestFactShowAndUpdate(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	other := f.newToken(t, "work", "desk", "writer")
	fact := f.createFact(t, token, map[string]any{"entity": "Ann", "key": "lives_in", "content": "Ann lives in Berlin"})
	path := fmt.Sprintf("/api/v1/scopes/home/facts/%d", fact.ID)

	var got factBody
	f.call(t, http.MethodGet, path, token, nil).decode(t, &got)
	if got.ID != fact.ID || got.Content != "Ann lives in Berlin" || got.EffectiveConfidence <= 0 {
		t.Errorf("GET fact = %+v", got)
	}
	f.call(t, http.MethodGet, fmt.Sprintf("/api/v1/scopes/work/facts/%d", fact.ID), other, nil).wantError(t, http.StatusNotFound, "not_found")
	f.call(t, http.MethodGet, "/api/v1/scopes/home/facts/999999", token, nil).wantError(t, http.StatusNotFound, "not_found")

	res := f.call(t, http.MethodPatch, path, token, map[string]any{"version": 1, "content": "Ann lives in Hamburg", "durability": "short_term", "reason": "moved"})
	res.wantStatus(t, http.StatusOK)
	var updated factBody
	res.decode(t, &updated)
	if updated.Content != "Ann lives in Hamburg" || updated.Version != 2 || updated.Durability != "short_term" {
		t.Errorf("PATCH = %+v, want the new content at version 2", updated)
	}

	t.Run("stale version", func(t *testing.T) {
		e := f.call(t, http.MethodPatch, path, token, map[string]any{"version": 1, "content": "Ann lives in Paris"}).
			wantError(t, http.StatusConflict, "conflict")
		var cur factBody
		if err := jsonUnmarshal(e.Error.Current, &cur); err != nil || cur.Version != 2 || cur.Content != "Ann lives in Hamburg" {
			t.Errorf("current = %s (%v), want the fact at version 2", e.Error.Current, err)
		}
		var after factBody
		f.call(t, http.MethodGet, path, token, nil).decode(t, &after)
		if after.Content != "Ann lives in Hamburg" {
			t.Errorf("content after a stale PATCH = %q, want it unchanged", after.Content)
		}
	})
	t.Run("version required", func(t *testing.T) {
		e := f.call(t, http.MethodPatch, path, token, map[string]any{"content": "x"}).wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "version" {
			t.Errorf("field = %q, want version", e.Error.Field)
		}
	})
	t.Run("tokens may not raise durability", func(t *testing.T) {
		f.call(t, http.MethodPatch, path, token, map[string]any{"version": 2, "durability": "permanent"}).
			wantError(t, http.StatusForbidden, "forbidden")
	})
	t.Run("clear expires_at with null", func(t *testing.T) {
		f.call(t, http.MethodPatch, path, token, map[string]any{"version": 2, "expires_at": "2027-01-01T00:00:00Z"}).wantStatus(t, http.StatusOK)
		res := f.call(t, http.MethodPatch, path, token, `{"version": 3, "expires_at": null}`)
		res.wantStatus(t, http.StatusOK)
		if m := res.object(t); m["expires_at"] != nil || m["version"] != float64(4) {
			t.Errorf("after clearing expires_at: %v", m)
		}
	})
	t.Run("other scope", func(t *testing.T) {
		f.call(t, http.MethodPatch, fmt.Sprintf("/api/v1/scopes/work/facts/%d", fact.ID), other, map[string]any{"version": 4, "content": "x"}).
			wantError(t, http.StatusNotFound, "not_found")
	})
}

func TestFactList(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	other := f.newToken(t, "work", "desk", "writer")
	f.createFact(t, token, map[string]any{"entity": "Ann", "key": "lives_in", "content": "Ann lives in Berlin"})
	f.createFact(t, token, map[string]any{"entity": "Ann", "key": "likes", "content": "Ann likes tea", "category": "preference"})
	f.createFact(t, token, map[string]any{"entity": "Ann", "key": "mood", "content": "Ann is cheerful", "category": "mood"})
	f.createFact(t, token, map[string]any{"entity": "Bob", "key": "name", "content": "Bob is Bob", "data_type": "identity"})
	f.createFact(t, token, map[string]any{"entity": "Bob", "key": "status", "content": "Bob is travelling", "data_type": "temporal"})
	f.call(t, http.MethodPost, "/api/v1/scopes/work/facts", other, map[string]any{"entity": "Ann", "content": "Ann works here"}).wantStatus(t, http.StatusCreated)

	list := func(query string) factPage {
		t.Helper()
		var p factPage
		res := f.call(t, http.MethodGet, "/api/v1/scopes/home/facts"+query, token, nil)
		res.wantStatus(t, http.StatusOK)
		res.decode(t, &p)
		return p
	}
	contents := func(p factPage) string {
		var out []string
		for _, it := range p.Items {
			out = append(out, it.Content)
		}
		return strings.Join(out, "; ")
	}
	tests := []struct{ query, want string }{
		{"", "Bob is travelling; Bob is Bob; Ann is cheerful; Ann likes tea; Ann lives in Berlin"},
		{"?category=preference", "Ann likes tea"},
		{"?durability=permanent", "Bob is Bob"},
		{"?durability=short_term&category=state", "Bob is travelling"},
		{"?durability=ephemeral", "Ann is cheerful"},
		{"?entity=Bob", "Bob is travelling; Bob is Bob"},
		{"?entity=Nobody", ""},
		{"?query=tea", "Ann likes tea"},
		{"?q=tea", "Ann likes tea"},
		{"?status=archived", ""},
		{"?status=all&entity=Ann&category=observation", "Ann lives in Berlin"},
	}
	for _, tt := range tests {
		if got := contents(list(tt.query)); got != tt.want {
			t.Errorf("GET facts%s = %q, want %q", tt.query, got, tt.want)
		}
	}

	t.Run("pagination", func(t *testing.T) {
		var seen []string
		query := "?limit=2"
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("pagination does not end")
			}
			p := list(query)
			if len(p.Items) > 2 {
				t.Fatalf("page of %d items, want at most 2", len(p.Items))
			}
			seen = append(seen, contents(p))
			if p.NextCursor == nil {
				break
			}
			query = "?limit=2&cursor=" + *p.NextCursor
		}
		if got := strings.Join(seen, " | "); got != "Bob is travelling; Bob is Bob | Ann is cheerful; Ann likes tea | Ann lives in Berlin" {
			t.Errorf("pages = %q", got)
		}
		if p := list("?limit=5"); p.NextCursor != nil {
			t.Errorf("a page holding the last fact has next_cursor %q, want null", *p.NextCursor)
		}
	})

	for _, bad := range []struct{ query, field string }{
		{"?durability=forever", "durability"},
		{"?category=Not A Slug", "category"},
		{"?status=deleted", "status"},
		{"?limit=0", "limit"},
		{"?limit=501", "limit"},
		{"?cursor=abc", "cursor"},
		// Of several bad parameters, the first in the order category,
		// durability, status, query, entity is named.
		{"?durability=forever&category=Not A Slug", "category"},
		{"?category=Not A Slug&status=" + strings.Repeat("x", 11), "category"},
		{"?durability=forever&status=deleted", "durability"},
		{"?status=deleted&query=" + strings.Repeat("x", 201), "status"},
		{"?q=" + strings.Repeat("x", 201) + "&entity=" + strings.Repeat("x", 201), "q"},
	} {
		e := f.call(t, http.MethodGet, "/api/v1/scopes/home/facts"+strings.ReplaceAll(bad.query, " ", "%20"), token, nil).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != bad.field {
			t.Errorf("GET facts%s field = %q, want %q", bad.query, e.Error.Field, bad.field)
		}
	}
}
