package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestUnstorableTextIsABadRequest sends what PostgreSQL cannot store (a NUL,
// bytes that are not UTF-8) and what has no place in a memory (control
// characters, metadata 9,999 levels deep or 15 MiB large) through every
// route that takes text: each is a 400 naming the field, nothing is written
// and nothing is logged as a failure of ours.
func TestUnstorableTextIsABadRequest(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "s", "agent", "writer")
	const base = "/api/v1/scopes/s"
	deep := strings.Repeat(`{"a":`, 9999) + `1` + strings.Repeat(`}`, 9999)
	huge := `{"a": "` + strings.Repeat("x", 15<<20) + `"}`
	tests := []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"push NUL", "POST", base + "/nodes", `{"content": "a\u0000b"}`, "content"},
		{"push invalid UTF-8", "POST", base + "/nodes", "{\"content\": \"caf\xe9\"}", "content"},
		{"push batch", "POST", base + "/nodes", `{"nodes": [{"content": "ok"}, {"content": "\u0000"}]}`, "nodes[1].content"},
		{"push metadata key", "POST", base + "/nodes", `{"content": "x", "metadata": {"\u0000": 1}}`, "metadata"},
		{"push properties value", "POST", base + "/nodes", `{"content": "x", "properties": {"entity": "a\u0000"}}`, "properties.entity"},
		{"push metadata 9999 deep", "POST", base + "/nodes", `{"content": "x", "metadata": ` + deep + `}`, "metadata"},
		{"push metadata 15 MiB", "POST", base + "/nodes", `{"content": "x", "metadata": ` + huge + `}`, "metadata"},
		{"fact content", "POST", base + "/facts", `{"entity": "ann", "content": "\u0000"}`, "content"},
		{"fact entity", "POST", base + "/facts", "{\"entity\": \"\xff\", \"content\": \"x\"}", "entity"},
		{"decision reasoning", "POST", base + "/decisions", `{"entity": "p", "key": "k", "decision": "d", "reasoning": "\u0007"}`, "reasoning"},
		{"extract", "POST", base + "/extract", `{"text": "I hate mornings\u0000", "store": true}`, "text"},
		{"facts q", "GET", base + "/facts?q=%00", nil, "q"},
		{"facts query", "GET", base + "/facts?query=%00", nil, "query"},
		{"facts entity", "GET", base + "/facts?entity=caf%E9", nil, "entity"},
		{"decisions q", "GET", base + "/decisions?q=a%00", nil, "q"},
		{"decisions entity", "GET", base + "/decisions?entity=%00", nil, "entity"},
		{"recall q", "GET", base + "/recall?q=%00", nil, "q"},
		{"recall query", "GET", base + "/recall?query=%00", nil, "query"},
		{"recall entity", "GET", base + "/recall?entity=%FF", nil, "entity"},
		{"context entity", "GET", base + "/context?entity=%00", nil, "entity"},
		{"nodes durability", "GET", base + "/nodes?durability=%00", nil, "durability"},
		{"unknown parameter value", "GET", base + "/facts?limit=%1b", nil, "limit"},
		{"rejections reason", "GET", "/api/v1/consolidation/rejections?reason=%00", nil, "reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := f.call(t, tt.method, tt.path, tok, tt.body).wantError(t, http.StatusBadRequest, "invalid")
			if e.Error.Field != tt.field {
				t.Errorf("field = %q, want %q (message %q)", e.Error.Field, tt.field, e.Error.Message)
			}
		})
	}

	t.Run("import", func(t *testing.T) {
		file := `{"scope":"s","entity":"ann","content":"ok","durability":"long_term","category":"observation"}` + "\n" +
			`{"scope":"s","entity":"ann","content":"a\u0000","durability":"long_term","category":"observation"}` + "\n" +
			"{\"scope\":\"s\",\"entity\":\"caf\xe9\",\"content\":\"x\",\"durability\":\"long_term\",\"category\":\"observation\"}\n"
		res := f.call(t, "POST", "/api/v1/import", tok, file)
		res.wantError(t, http.StatusBadRequest, "invalid")
		var body struct {
			Error struct {
				Lines []struct {
					Line  int    `json:"line"`
					Field string `json:"field"`
				} `json:"lines"`
			} `json:"error"`
		}
		res.decode(t, &body)
		if l := body.Error.Lines; len(l) != 2 || l[0].Line != 2 || l[0].Field != "content" || l[1].Line != 3 || l[1].Field != "entity" {
			t.Errorf("bad lines = %+v, want line 2 content and line 3 entity", l)
		}
	})

	for _, table := range []string{"memory_nodes", "entity_facts", "decisions", "audit_log"} {
		if n := f.count(t, "SELECT count(*) FROM "+table); n != 0 {
			t.Errorf("%s holds %d rows after refused requests, want none", table, n)
		}
	}
	if logs := f.logs.String(); strings.Contains(logs, "level=ERROR") {
		t.Errorf("refused input was logged as an error:\n%.2000s", logs)
	}
}
