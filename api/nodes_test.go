package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestPushOneRow(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	res := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{
		"content": "Ann lives in Berlin", "durability": "durable", "metadata": map[string]any{"source": "chat"},
		"importance": 0.7, "ttl_seconds": 3600, "properties": map[string]any{"entity": "Ann", "key": "lives_in"},
	})
	res.wantStatus(t, http.StatusCreated)
	var out struct{ IDs []int64 }
	res.decode(t, &out)
	if len(out.IDs) != 1 {
		t.Fatalf("ids = %v, want one", out.IDs)
	}
	var props string
	var importance float64
	if err := f.pool.QueryRow(context.Background(), "SELECT properties::text, importance FROM memory_nodes WHERE id = $1", out.IDs[0]).
		Scan(&props, &importance); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"durability": "durable"`, `"entity": "Ann"`, `"metadata": {"source": "chat"}`} {
		if !strings.Contains(props, want) {
			t.Errorf("properties = %s, want %s", props, want)
		}
	}
	if importance != 0.7 {
		t.Errorf("importance = %v, want 0.7 (never derived from durability)", importance)
	}
	if a := f.count(t, "SELECT count(*) FROM audit_log WHERE actor = 'token:laptop' AND action = 'node.push'"); a != 1 {
		t.Errorf("audit rows for the push = %d, want 1 by token:laptop", a)
	}

	t.Run("no durability writes no key", func(t *testing.T) {
		res := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"content": "plain"})
		res.wantStatus(t, http.StatusCreated)
		var out struct{ IDs []int64 }
		res.decode(t, &out)
		if n := f.count(t, "SELECT count(*) FROM memory_nodes WHERE id = $1 AND properties ? 'durability'", out.IDs[0]); n != 0 {
			t.Errorf("a push without durability stored a durability key")
		}
	})
	t.Run("metadata durability", func(t *testing.T) {
		res := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{
			"content": "tired", "metadata": map[string]any{"durability": "transient"}})
		res.wantStatus(t, http.StatusCreated)
		var out struct{ IDs []int64 }
		res.decode(t, &out)
		if n := f.count(t, "SELECT count(*) FROM memory_nodes WHERE id = $1 AND properties->>'durability' = 'transient'", out.IDs[0]); n != 1 {
			t.Errorf("metadata.durability transient was not stored as the marker")
		}
	})
	t.Run("invalid durability", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"content": "x", "durability": "forever"}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "durability" || !strings.Contains(e.Error.Message, "durable, transient, expired") {
			t.Errorf("error = %+v, want field durability and the allowed values", e.Error)
		}
	})
}

func TestPushBatch(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	rows := make([]map[string]any, 1000)
	for i := range rows {
		rows[i] = map[string]any{"content": fmt.Sprintf("row %d", i), "durability": []string{"durable", "transient", "expired"}[i%3]}
	}
	res := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"rows": rows})
	res.wantStatus(t, http.StatusCreated)
	var out struct{ IDs []int64 }
	res.decode(t, &out)
	if len(out.IDs) != 1000 {
		t.Fatalf("ids = %d, want 1000", len(out.IDs))
	}
	for i := 1; i < len(out.IDs); i++ {
		if out.IDs[i] <= out.IDs[i-1] {
			t.Fatalf("ids not in order at %d: %d after %d", i, out.IDs[i], out.IDs[i-1])
		}
	}
	if n := f.count(t, "SELECT count(*) FROM memory_nodes WHERE scope = 'home'"); n != 1000 {
		t.Errorf("rows = %d, want 1000", n)
	}

	t.Run("over 1000", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"rows": append(rows, rows[0])}).
			wantError(t, http.StatusBadRequest, "invalid")
		if !strings.Contains(e.Error.Message, "1000") {
			t.Errorf("message = %q, want the limit named", e.Error.Message)
		}
	})
	t.Run("invalid durability in row 3", func(t *testing.T) {
		before := f.count(t, "SELECT count(*) FROM memory_nodes")
		bad := []map[string]any{{"content": "a"}, {"content": "b", "durability": "transient"}, {"content": "c", "durability": "permanent"}, {"content": "d"}}
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"rows": bad}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "rows[2].durability" {
			t.Errorf("field = %q, want rows[2].durability", e.Error.Field)
		}
		// nodes, the deprecated name of rows, is still taken, and errors
		// name the batch as it was sent.
		e = f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"nodes": bad}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "nodes[2].durability" {
			t.Errorf("field = %q, want nodes[2].durability", e.Error.Field)
		}
		if !strings.Contains(e.Error.Message, "durable, transient, expired") || !strings.Contains(e.Error.Message, `"permanent"`) {
			t.Errorf("message = %q, want the bad value and the allowed values", e.Error.Message)
		}
		if after := f.count(t, "SELECT count(*) FROM memory_nodes"); after != before {
			t.Errorf("rows = %d after a refused batch, want %d: nothing of it written", after, before)
		}
	})
	t.Run("batch of one names its row", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"rows": []any{map[string]any{"content": "a", "durability": "x"}}}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "rows[0].durability" {
			t.Errorf("field = %q, want rows[0].durability", e.Error.Field)
		}
	})
	t.Run("wrong type in a row", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, `{"nodes": [{"content": "a"}, {"content": "b", "importance": "high"}]}`).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "nodes[1].importance" || !strings.Contains(e.Error.Message, "must be a number, not a string") {
			t.Errorf("error = %+v, want nodes[1].importance to be a number", e.Error)
		}
	})
	t.Run("row and batch together", func(t *testing.T) {
		f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"content": "x", "nodes": []any{map[string]any{"content": "y"}}}).
			wantError(t, http.StatusBadRequest, "invalid")
	})
	t.Run("empty batch", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"rows": []any{}}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "rows" {
			t.Errorf("field = %q, want rows", e.Error.Field)
		}
	})
	t.Run("rows and nodes together", func(t *testing.T) {
		e := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token,
			map[string]any{"rows": []any{map[string]any{"content": "y"}}, "nodes": []any{map[string]any{"content": "z"}}}).
			wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "nodes" || !strings.Contains(e.Error.Message, "deprecated name of rows") {
			t.Errorf("error = %+v, want nodes named as rows' deprecated name", e.Error)
		}
	})
}

func TestRequestBodies(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	tests := []struct {
		name, body, field, want string
	}{
		{"unknown field", `{"content": "x", "colour": "red"}`, "colour", "allowed fields are content, durability, metadata, importance, ttl_seconds, properties, observed_at, rows, strict"},
		{"unknown field in a row", `{"nodes": [{"content": "x"}, {"content": "y", "tags": []}]}`, "nodes[1].tags", "unknown field"},
		{"syntax", `{"content": "x",}`, "", "byte offset"},
		{"truncated", `{"content": "x"`, "", "before the value is complete"},
		{"trailing", `{"content": "x"} {"content": "y"}`, "", "more than one JSON value"},
		{"not an object", `["x"]`, "", "must be a JSON object, not an array"},
		{"empty", ``, "", "the request body is empty"},
		{"wrong type", `{"content": 12}`, "content", "must be a string, not the number 12"},
		{"fraction for a whole number", `{"content": "x", "ttl_seconds": 1.5}`, "ttl_seconds", "use a whole number of seconds from 1 to 31536000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, tt.body).wantError(t, http.StatusBadRequest, "invalid")
			if e.Error.Field != tt.field || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("error = %+v, want field %q and a message containing %q", e.Error, tt.field, tt.want)
			}
		})
	}
	if n := f.count(t, "SELECT count(*) FROM memory_nodes"); n != 0 {
		t.Errorf("rows after refused bodies = %d, want 0", n)
	}

	t.Run("too large", func(t *testing.T) {
		big := `{"entity": "ann", "content": "` + strings.Repeat("x", 3<<20) + `"}`
		f.call(t, http.MethodPost, "/api/v1/scopes/home/facts", token, big).wantError(t, http.StatusRequestEntityTooLarge, "payload_too_large")
		huge := `{"content": "` + strings.Repeat("x", 17<<20) + `"}`
		f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, huge).wantError(t, http.StatusRequestEntityTooLarge, "payload_too_large")
	})
	t.Run("unknown query parameter", func(t *testing.T) {
		e := f.call(t, http.MethodGet, "/api/v1/scopes/home/facts?durabilty=permanent", token, nil).wantError(t, http.StatusBadRequest, "invalid")
		if e.Error.Field != "durabilty" || !strings.Contains(e.Error.Message, "durability") {
			t.Errorf("error = %+v, want the typo named and the allowed parameters", e.Error)
		}
	})
}

func TestNodeListAndDurability(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", "writer")
	other := f.newToken(t, "work", "desk", "writer")
	res := f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{"nodes": []any{
		map[string]any{"content": "Ann lives in Berlin"},
		map[string]any{"content": "Ann is tired", "durability": "transient", "metadata": map[string]any{"mood": true}},
		map[string]any{"content": "It rains", "durability": "expired"},
	}})
	res.wantStatus(t, http.StatusCreated)
	var pushed struct{ IDs []int64 }
	res.decode(t, &pushed)
	f.call(t, http.MethodPost, "/api/v1/scopes/work/nodes", other, map[string]any{"content": "elsewhere"}).wantStatus(t, http.StatusCreated)

	type node struct {
		ID                 int64          `json:"id"`
		Scope              string         `json:"scope"`
		Content            string         `json:"content"`
		Durability         string         `json:"durability"`
		DurabilityExplicit bool           `json:"durability_explicit"`
		Metadata           map[string]any `json:"metadata"`
		CreatedAt          string         `json:"created_at"`
	}
	type nodePage struct {
		Items      []node  `json:"items"`
		NextCursor *string `json:"next_cursor"`
	}
	var all nodePage
	f.call(t, http.MethodGet, "/api/v1/scopes/home/nodes", token, nil).decode(t, &all)
	if len(all.Items) != 3 || all.NextCursor != nil {
		t.Fatalf("list = %+v, want the 3 home rows and no next page", all)
	}
	if all.Items[0].Content != "It rains" || all.Items[2].Durability != "durable" || all.Items[2].DurabilityExplicit {
		t.Errorf("list = %+v, want newest first, the first row durable without a marker", all.Items)
	}
	if !strings.HasSuffix(all.Items[0].CreatedAt, "Z") {
		t.Errorf("created_at = %q, want RFC 3339 UTC", all.Items[0].CreatedAt)
	}
	var transient nodePage
	f.call(t, http.MethodGet, "/api/v1/scopes/home/nodes?durability=transient", token, nil).decode(t, &transient)
	if len(transient.Items) != 1 || transient.Items[0].Content != "Ann is tired" || transient.Items[0].Metadata["mood"] != true {
		t.Errorf("transient rows = %+v, want Ann is tired with its metadata", transient.Items)
	}
	var durable nodePage
	f.call(t, http.MethodGet, "/api/v1/scopes/home/nodes?durability=durable", token, nil).decode(t, &durable)
	if len(durable.Items) != 1 {
		t.Errorf("durable rows = %+v, want the row without a marker", durable.Items)
	}
	e := f.call(t, http.MethodGet, "/api/v1/scopes/home/nodes?durability=forever", token, nil).wantError(t, http.StatusBadRequest, "invalid")
	if e.Error.Field != "durability" {
		t.Errorf("field = %q, want durability", e.Error.Field)
	}

	var p1, p2 nodePage
	f.call(t, http.MethodGet, "/api/v1/scopes/home/nodes?limit=2", token, nil).decode(t, &p1)
	if len(p1.Items) != 2 || p1.NextCursor == nil {
		t.Fatalf("first page = %+v, want 2 rows and a cursor", p1)
	}
	f.call(t, http.MethodGet, "/api/v1/scopes/home/nodes?limit=2&cursor="+*p1.NextCursor, token, nil).decode(t, &p2)
	if len(p2.Items) != 1 || p2.NextCursor != nil || p2.Items[0].ID != pushed.IDs[0] {
		t.Errorf("second page = %+v, want the oldest row and no cursor", p2)
	}

	t.Run("upgrade", func(t *testing.T) {
		res := f.call(t, http.MethodPost, fmt.Sprintf("/api/v1/scopes/home/nodes/%d/durability", pushed.IDs[1]), token,
			map[string]any{"durability": "durable"})
		res.wantStatus(t, http.StatusOK)
		var n node
		res.decode(t, &n)
		if n.Durability != "durable" || !n.DurabilityExplicit || n.Metadata["mood"] != true {
			t.Errorf("row after upgrade = %+v, want durable with its metadata kept", n)
		}
		if a := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'node.durability' AND actor = 'token:laptop'"); a != 1 {
			t.Errorf("audit rows = %d, want 1", a)
		}
	})
	t.Run("retire", func(t *testing.T) {
		f.call(t, http.MethodPost, fmt.Sprintf("/api/v1/scopes/home/nodes/%d/durability", pushed.IDs[0]), token,
			map[string]any{"durability": "expired"}).wantStatus(t, http.StatusOK)
	})
	t.Run("invalid value", func(t *testing.T) {
		e := f.call(t, http.MethodPost, fmt.Sprintf("/api/v1/scopes/home/nodes/%d/durability", pushed.IDs[0]), token,
			map[string]any{"durability": "sticky"}).wantError(t, http.StatusBadRequest, "invalid")
		if !strings.Contains(e.Error.Message, "durable, transient, expired") {
			t.Errorf("message = %q, want the allowed values", e.Error.Message)
		}
	})
	t.Run("missing value", func(t *testing.T) {
		f.call(t, http.MethodPost, fmt.Sprintf("/api/v1/scopes/home/nodes/%d/durability", pushed.IDs[0]), token,
			map[string]any{}).wantError(t, http.StatusBadRequest, "invalid")
	})
	t.Run("row of another scope", func(t *testing.T) {
		var work nodePage
		f.call(t, http.MethodGet, "/api/v1/scopes/work/nodes", other, nil).decode(t, &work)
		f.call(t, http.MethodPost, fmt.Sprintf("/api/v1/scopes/home/nodes/%d/durability", work.Items[0].ID), token,
			map[string]any{"durability": "expired"}).wantError(t, http.StatusNotFound, "not_found")
	})
	t.Run("bad id", func(t *testing.T) {
		f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes/abc/durability", token,
			map[string]any{"durability": "expired"}).wantError(t, http.StatusBadRequest, "invalid")
	})
}
