package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestRefusalsNameWhatIsAllowed pins the status, code, field and message of
// the API's refusals of bad paths, query parameters and bodies: each says
// what was wrong and what is allowed.
func TestRefusalsNameWhatIsAllowed(t *testing.T) {
	f := newAPIFixture(t)
	writer := f.newToken(t, "acme", "agent", "writer")
	reader := f.newToken(t, "acme", "dashboard", "reader")
	long := strings.Repeat("x", 201)

	tests := []struct {
		name, method, path, token string
		body                      any
		status                    int
		code, field, want         string
	}{
		{"unknown status", http.MethodGet, "/api/v1/scopes/acme/facts?status=bogus", writer, nil,
			400, "invalid", "status", `unknown status "bogus": allowed values are active (the default), archived, all`},
		{"limit out of range", http.MethodGet, "/api/v1/scopes/acme/facts?limit=0", writer, nil,
			400, "invalid", "limit", "use a whole number from 1 to 500"},
		{"bad cursor", http.MethodGet, "/api/v1/scopes/acme/facts?cursor=abc", writer, nil,
			400, "invalid", "cursor", "pass the next_cursor of the previous page unchanged"},
		{"parameter given twice", http.MethodGet, "/api/v1/scopes/acme/facts?limit=5&limit=6", writer, nil,
			400, "invalid", "limit", "given 2 times: give it once"},
		{"text parameter too long", http.MethodGet, "/api/v1/scopes/acme/facts?q=" + long, writer, nil,
			400, "invalid", "q", "is 201 characters long: at most 200 are allowed"},
		{"parameter on a route that takes none", http.MethodGet, "/api/v1/scopes/acme/facts/1?verbose=1", writer, nil,
			400, "invalid", "verbose", "this route takes none"},
		{"bad path id", http.MethodGet, "/api/v1/scopes/acme/facts/abc", writer, nil,
			400, "invalid", "id", "ids are positive whole numbers"},
		{"unknown decision", http.MethodGet, "/api/v1/scopes/acme/decisions/999", writer, nil,
			404, "not_found", "", "no decision with id 999"},
		{"bad boolean", http.MethodGet, "/api/v1/scopes/acme/decisions?locked=maybe", writer, nil,
			400, "invalid", "locked", "use true or false"},
		{"patch without version", http.MethodPatch, "/api/v1/scopes/acme/facts/1", writer, map[string]any{"content": "x"},
			400, "invalid", "version", "version is required"},
		{"durability missing", http.MethodPost, "/api/v1/scopes/acme/nodes/1/durability", writer, map[string]any{},
			400, "invalid", "durability", "allowed values are durable, transient, expired"},
		{"bad budget", http.MethodGet, "/api/v1/scopes/acme/context?budget=abc", writer, nil,
			400, "invalid", "budget", "200 to 100000"},
		{"unknown context format", http.MethodGet, "/api/v1/scopes/acme/context?format=xml", writer, nil,
			400, "invalid", "format", "allowed values are text (the default), json"},
		{"bad run filter", http.MethodGet, "/api/v1/consolidation/rejections?run=abc", writer, nil,
			400, "invalid", "run", "use the id of a consolidation run"},
		{"reader writes", http.MethodPost, "/api/v1/scopes/acme/nodes", reader, map[string]any{"content": "x"},
			403, "forbidden", "", "it may only read; writing needs a writer token"},
		{"unknown route", http.MethodGet, "/api/v1/nothing", writer, nil,
			404, "not_found", "", "no such API route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := f.call(t, tt.method, tt.path, tt.token, tt.body).wantError(t, tt.status, tt.code)
			if e.Error.Field != tt.field || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("error = field %q, message %q; want field %q and a message containing %q",
					e.Error.Field, e.Error.Message, tt.field, tt.want)
			}
		})
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 0 {
		t.Errorf("refused requests wrote %d rows", n)
	}
}
