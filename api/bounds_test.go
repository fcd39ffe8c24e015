package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/memory"
)

// TestBoundsNamedAtTheEdge sends every bounded field of the API past its
// bound, in the forms a client may write it: each is a 400 naming the field
// with the one sentence of its bound, whether or not the number fits the
// field's Go type, and nothing is written.
func TestBoundsNamedAtTheEdge(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	const (
		ttl  = "is out of range: use a whole number of seconds from 1 to 31536000 (365 days)"
		unit = "is out of range: use 0, or a number from 0.001 to 1"
		when = "is out of range: use a time from 1970-01-01T00:00:00Z to 9000-01-01T00:00:00Z"
	)
	fact, _, err := f.store.CreateFact(t.Context(), memory.Human("ann@example.com"),
		memory.NewFact{Scope: "home", Entity: "Ann", Content: "Ann lives in Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path, body, field, want string
	}{
		{"ttl past int32", "POST", "/nodes", `{"content": "x", "ttl_seconds": 2147483648}`, "ttl_seconds", "2147483648 " + ttl},
		{"ttl past a year", "POST", "/nodes", `{"content": "x", "ttl_seconds": 31536001}`, "ttl_seconds", "31536001 " + ttl},
		{"ttl zero", "POST", "/nodes", `{"content": "x", "ttl_seconds": 0}`, "ttl_seconds", "0 " + ttl},
		{"ttl as an exponent", "POST", "/nodes", `{"rows": [{"content": "x"}, {"content": "y", "ttl_seconds": 1e30}]}`, "rows[1].ttl_seconds", "1e30 " + ttl},
		{"importance overflowing a float", "POST", "/nodes", `{"content": "x", "importance": 1e400}`, "importance", "1e400 " + unit},
		{"importance underflowing", "POST", "/nodes", `{"content": "x", "importance": 5e-324}`, "importance", "5e-324 " + unit},
		{"row confidence overflowing a float", "POST", "/nodes", `{"rows": [{"content": "x"}, {"content": "y", "properties": {"confidence": 1e400}}]}`, "rows[1].properties.confidence", "1e400 " + unit},
		{"row confidence underflowing", "POST", "/nodes", `{"content": "x", "properties": {"confidence": 5e-324}}`, "properties.confidence", "5e-324 " + unit},
		{"row deadline in 9999", "POST", "/nodes", `{"content": "x", "properties": {"deadline": "9999-12-31T23:59:59Z"}}`, "properties.deadline", "9999-12-31T23:59:59Z " + when},
		{"row deadline in 0000", "POST", "/nodes", `{"content": "x", "properties": {"deadline": "0000-01-01T00:00:00Z"}}`, "properties.deadline", "0000-01-01T00:00:00Z " + when},
		{"metadata number past a float", "POST", "/nodes", `{"content": "x", "metadata": {"score": -1e999}}`, "metadata.score", "-1e999 is out of range"},
		{"fact confidence underflowing", "POST", "/facts", `{"entity": "Ann", "content": "x", "confidence": 5e-324}`, "confidence", "5e-324 " + unit},
		{"fact deadline in 9999", "POST", "/facts", `{"entity": "Ann", "content": "x", "category": "obligation", "deadline": "9999-12-31T23:59:59Z"}`, "deadline", when},
		{"fact deadline in 0000", "POST", "/facts", `{"entity": "Ann", "content": "x", "category": "obligation", "deadline": "0000-01-01T00:00:00Z"}`, "deadline", when},
		{"fact deadline at Go's zero", "POST", "/facts", `{"entity": "Ann", "content": "x", "category": "obligation", "deadline": "0001-01-01T00:00:00Z"}`, "deadline", when},
		{"fact expiry past the bound", "POST", "/facts", `{"entity": "Ann", "content": "x", "expires_at": "9000-01-01T00:00:00.000001Z"}`, "expires_at", when},
		{"edit deadline in 9999", "PATCH", fmt.Sprintf("/facts/%d", fact.ID), `{"version": 1, "deadline": "9999-12-31T23:59:59+14:00"}`, "deadline", when},
		{"edit from version 0", "PATCH", fmt.Sprintf("/facts/%d", fact.ID), `{"version": 0, "importance": 0.5}`, "version", "from 1 to 2147483647"},
		{"edit from a version past int32", "PATCH", fmt.Sprintf("/facts/%d", fact.ID), `{"version": 2147483648, "importance": 0.5}`, "version", "from 1 to 2147483647"},
		{"edit importance underflowing", "PATCH", fmt.Sprintf("/facts/%d", fact.ID), `{"version": 1, "importance": 1e-10}`, "importance", unit},
		{"decision at Go's zero", "POST", "/decisions", `{"entity": "Ann", "key": "db", "decision": "PG", "reasoning": "r", "decided_at": "0001-01-01T00:00:00Z"}`, "decided_at", when},
		{"brief since in the year 10000 in UTC", "GET", "/context?format=json&since=9999-12-31T23%3A59%3A59-23%3A59", "", "since", when},
		{"brief since before 1970", "GET", "/context?since=1969-12-31T23%3A59%3A59Z", "", "since", when},
		{"decision in 1969", "POST", "/decisions", `{"entity": "Ann", "key": "db", "decision": "PG", "reasoning": "r", "decided_at": "1969-12-31T23:59:59.999Z"}`, "decided_at", when},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			e := f.call(t, tt.method, "/api/v1/scopes/home"+tt.path, token, body).wantError(t, http.StatusBadRequest, "invalid")
			if e.Error.Field != tt.field || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("error = %+v, want field %q and a message containing %q", e.Error, tt.field, tt.want)
			}
		})
	}
	if n := f.count(t, "SELECT count(*) FROM memory_nodes"); n != 0 {
		t.Errorf("rows after refused pushes = %d, want 0", n)
	}
	if n := f.count(t, "SELECT count(*) FROM entity_facts"); n != 1 {
		t.Errorf("facts after refused writes = %d, want the 1 written by the test", n)
	}

	// An import line past a bound is named by its line and field.
	body := `{"scope": "home", "entity": "Ann", "content": "a", "durability": "long_term", "category": "observation"}
{"scope": "home", "entity": "Ann", "content": "b", "durability": "long_term", "category": "observation", "confirmed_at": "9999-01-01T00:00:00Z"}
{"scope": "home", "entity": "Ann", "content": "c", "durability": "long_term", "category": "observation", "confidence": 1e400}
{"scope": "home", "entity": "Ann", "content": "d", "durability": "long_term", "category": "observation", "importance": 5e-324, "extraction_count": 3000000000}
`
	res := f.call(t, http.MethodPost, "/api/v1/import", token, body)
	res.wantStatus(t, http.StatusBadRequest)
	for _, want := range []string{`"line":2`, `"field":"confirmed_at"`, `"line":3`, `"field":"confidence"`, "1e400 " + unit,
		`"line":4`, `"field":"extraction_count"`, "3000000000 is out of range: use a whole number from 1 to 2147483647"} {
		if !strings.Contains(string(res.body), want) {
			t.Errorf("import refusal %s, want it to hold %s", res.body, want)
		}
	}
}
