package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// liveDoc is the OpenAPI document, decoded, to check live responses
// against.
type liveDoc struct {
	raw map[string]any
}

func loadLiveDoc(t *testing.T) liveDoc {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal(api.OpenAPI(), &raw); err != nil {
		t.Fatal(err)
	}
	return liveDoc{raw: raw}
}

// resolve follows a local $ref.
func (d liveDoc) resolve(t *testing.T, ref string) map[string]any {
	t.Helper()
	var cur any = d.raw
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := cur.(map[string]any)
		cur = m[part]
	}
	m, ok := cur.(map[string]any)
	if !ok {
		t.Fatalf("$ref %s does not resolve", ref)
	}
	return m
}

// check fails the test unless res, answered to method on the documented
// path template, is described by the document: its status is among the
// operation's responses and its JSON body matches the schema given there.
func (d liveDoc) check(t *testing.T, method, path string, res apiResponse) {
	t.Helper()
	paths, _ := d.raw["paths"].(map[string]any)
	item, _ := paths[path].(map[string]any)
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if !ok {
		t.Fatalf("openapi.json has no %s %s", method, path)
	}
	responses, _ := op["responses"].(map[string]any)
	resp, ok := responses[strconv.Itoa(res.status)].(map[string]any)
	if !ok {
		t.Fatalf("%s %s answered %d, which openapi.json does not document; body %s", method, path, res.status, res.body)
	}
	if ref, ok := resp["$ref"].(string); ok {
		resp = d.resolve(t, ref)
	}
	content, _ := resp["content"].(map[string]any)
	if ct := res.header.Get("Content-Type"); strings.HasPrefix(ct, "text/plain") {
		if _, ok := content["text/plain"]; !ok {
			t.Errorf("%s %s %d answered %s, which openapi.json does not document", method, path, res.status, ct)
		}
		return
	}
	media, _ := content["application/json"].(map[string]any)
	schema, ok := media["schema"].(map[string]any)
	if !ok {
		t.Fatalf("%s %s %d documents no JSON body", method, path, res.status)
	}
	var body any
	if err := json.Unmarshal(res.body, &body); err != nil {
		t.Fatalf("%s %s: body is not JSON: %v", method, path, err)
	}
	var problems []string
	d.validate(t, schema, body, "$", &problems)
	if len(problems) > 0 {
		t.Errorf("%s %s %d does not match openapi.json:\n  %s\nbody %s", method, path, res.status,
			strings.Join(problems, "\n  "), res.body)
	}
}

// validate checks v against the subset of JSON Schema the document uses:
// $ref, type (with null), enum, properties, required, additionalProperties,
// items, anyOf and format date-time.
func (d liveDoc) validate(t *testing.T, schema map[string]any, v any, at string, problems *[]string) {
	t.Helper()
	if ref, ok := schema["$ref"].(string); ok {
		d.validate(t, d.resolve(t, ref), v, at, problems)
		return
	}
	fail := func(format string, args ...any) { *problems = append(*problems, at+": "+fmt.Sprintf(format, args...)) }
	if anyOf, ok := schema["anyOf"].([]any); ok {
		for _, alt := range anyOf {
			var sub []string
			d.validate(t, alt.(map[string]any), v, at, &sub)
			if len(sub) == 0 {
				return
			}
		}
		fail("matches none of anyOf")
		return
	}
	if types := schemaTypes(schema["type"]); len(types) > 0 && !slices.Contains(types, jsonType(v)) &&
		!(jsonType(v) == "integer" && slices.Contains(types, "number")) {
		fail("is %s, want %s", jsonType(v), strings.Join(types, " or "))
		return
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return e == v }) {
		fail("%v is not one of %v", v, enum)
	}
	switch v := v.(type) {
	case string:
		if schema["format"] == "date-time" {
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				fail("%q is not a date-time", v)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range v {
				d.validate(t, items, e, fmt.Sprintf("%s[%d]", at, i), problems)
			}
		}
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for _, r := range asStrings(schema["required"]) {
			if _, ok := v[r]; !ok {
				fail("lacks required %s", r)
			}
		}
		for k, e := range v {
			if p, ok := props[k].(map[string]any); ok {
				d.validate(t, p, e, at+"."+k, problems)
				continue
			}
			switch extra := schema["additionalProperties"].(type) {
			case bool:
				if !extra {
					fail("has %s, which the schema does not list", k)
				}
			case map[string]any:
				d.validate(t, extra, e, at+"."+k, problems)
			}
		}
	}
}

func schemaTypes(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		return asStrings(v)
	}
	return nil
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// TestOpenAPIDescribesLiveResponses holds the document to what the API
// answers, for every operation it lists: pushes with notes and a strict
// refusal, a marker set, facts created, shown and corrected, decisions
// replaced by later ones (superseded_by) and filtered by state, recall,
// briefs as text and as JSON with and without since, extractions, a
// consolidation run, an import report, the lists. Every operation must have
// been answered with success at least once, and every success answer is
// checked against the document.
//
// With TENURE_OPENAPI_EXAMPLES=write it also writes the first success
// answer (and request body) of every operation into openapi.json as its
// example, which TestOpenAPIExamples then holds to the schemas.
func TestOpenAPIDescribesLiveResponses(t *testing.T) {
	f := newAPIFixture(t)
	doc := loadLiveDoc(t)
	ctx := context.Background()
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	const (
		nodes     = "/api/v1/scopes/{scope}/nodes"
		marker    = "/api/v1/scopes/{scope}/nodes/{id}/durability"
		facts     = "/api/v1/scopes/{scope}/facts"
		fact      = "/api/v1/scopes/{scope}/facts/{id}"
		forget    = "/api/v1/scopes/{scope}/facts/{id}/forget"
		decisions = "/api/v1/scopes/{scope}/decisions"
		decision  = "/api/v1/scopes/{scope}/decisions/{id}"
		recall    = "/api/v1/scopes/{scope}/recall"
		brief     = "/api/v1/scopes/{scope}/context"
		extract   = "/api/v1/scopes/{scope}/extract"
		runs      = "/api/v1/consolidation/runs"
		run       = "/api/v1/consolidation/runs/{id}"
	)
	book := newExampleBook()
	live := func(method, template, path string, body any) apiResponse {
		t.Helper()
		res := f.call(t, method, path, tok, body)
		doc.check(t, method, template, res)
		book.record(t, method, template, body, res)
		return res
	}

	live(http.MethodGet, "/api/openapi.json", "/api/openapi.json", nil)

	// A decision, reopened and replaced by a later one on its key.
	var first, second struct {
		ID           int64  `json:"id"`
		SupersededBy *int64 `json:"superseded_by"`
	}
	live(http.MethodPost, decisions, "/api/v1/scopes/acme/decisions", map[string]any{
		"entity": "Acme Robotics", "key": "rma_policy", "decision": "Cracked housings are replaced without photos.",
		"reasoning": "Photos delayed every RMA by a week.", "alternatives": []string{"Ask for two photos of the crack"},
	}).decode(t, &first)
	if _, err := f.store.ReopenDecision(ctx, memory.Human("lead@example.com"), first.ID, "the new contract asks for photos"); err != nil {
		t.Fatal(err)
	}
	f.clock.advance(time.Minute)
	since := f.clock.now()
	f.clock.advance(time.Minute)
	live(http.MethodPost, decisions, "/api/v1/scopes/acme/decisions", map[string]any{
		"entity": "Acme Robotics", "key": "rma_policy", "decision": "RMAs need two photos of the crack.",
		"reasoning": "The new contract asks for them.",
	}).decode(t, &second)
	live(http.MethodGet, decision, fmt.Sprintf("/api/v1/scopes/acme/decisions/%d", first.ID), nil).decode(t, &first)
	if first.SupersededBy == nil || *first.SupersededBy != second.ID {
		t.Errorf("replaced decision superseded_by = %v, want %d", first.SupersededBy, second.ID)
	}
	live(http.MethodGet, decisions, "/api/v1/scopes/acme/decisions?state=superseded", nil)
	live(http.MethodGet, decisions, "/api/v1/scopes/acme/decisions?query=photos&limit=1", nil)
	live(http.MethodGet, decisions, "/api/v1/scopes/acme/decisions?state=old", nil)

	// Facts: created (and created again: the same fact, reinforced), shown,
	// corrected, and corrected from a stale version.
	var created struct {
		Fact struct {
			ID      int64 `json:"id"`
			Version int   `json:"version"`
		} `json:"fact"`
	}
	annCity := map[string]any{"entity": "Ann", "entity_kind": "person", "key": "home_city", "content": "Ann lives in Berlin.",
		"durability": "long_term", "category": "identity", "confidence": 0.9}
	live(http.MethodPost, facts, "/api/v1/scopes/acme/facts", annCity)
	live(http.MethodPost, facts, "/api/v1/scopes/acme/facts", annCity).decode(t, &created)
	factPath := fmt.Sprintf("/api/v1/scopes/acme/facts/%d", created.Fact.ID)
	live(http.MethodGet, fact, factPath, nil)
	live(http.MethodPatch, fact, factPath, map[string]any{"version": created.Fact.Version, "content": "Ann lives in Hamburg.",
		"reason": "Ann moved in March"})
	live(http.MethodPatch, fact, factPath, map[string]any{"version": created.Fact.Version, "content": "Ann lives in Paris."})
	live(http.MethodGet, fact, "/api/v1/scopes/acme/facts/999999", nil)

	// A fact forgotten, forgotten again (unchanged), and one of no fact.
	var coffee struct {
		Fact struct {
			ID int64 `json:"id"`
		} `json:"fact"`
	}
	live(http.MethodPost, facts, "/api/v1/scopes/acme/facts", map[string]any{"entity": "Ann", "key": "drink",
		"content": "Ann drinks coffee.", "durability": "long_term", "category": "preference"}).decode(t, &coffee)
	forgetPath := fmt.Sprintf("/api/v1/scopes/acme/facts/%d/forget", coffee.Fact.ID)
	var forgotten struct {
		Status        string `json:"status"`
		ArchiveReason string `json:"archive_reason"`
	}
	live(http.MethodPost, forget, forgetPath, map[string]any{"reason": "Ann gave up coffee"}).decode(t, &forgotten)
	if forgotten.Status != "archived" || forgotten.ArchiveReason != "Ann gave up coffee" {
		t.Errorf("forgotten fact = %+v, want archived with the reason", forgotten)
	}
	live(http.MethodPost, forget, forgetPath, map[string]any{"reason": "again"})
	live(http.MethodPost, forget, "/api/v1/scopes/acme/facts/999999/forget", map[string]any{"reason": "x"})
	live(http.MethodPost, forget, forgetPath, map[string]any{"reason": " "})

	// A push with a note on each row, and the same push refused as strict.
	var pushed struct {
		IDs   []int64          `json:"ids"`
		Notes []map[string]any `json:"notes"`
	}
	rows := []map[string]any{
		{"content": "Cracked housings are replaced without photos.", "properties": map[string]any{"entity": "Acme Robotics", "key": "rma_policy"}},
		{"content": "Ann lives in Hamburg.", "properties": map[string]any{"entity": "Ann", "key": "home_city"}},
		{"content": "Ann is on a call until noon.", "durability": "transient", "properties": map[string]any{"entity": "Ann"}},
	}
	live(http.MethodPost, nodes, "/api/v1/scopes/acme/nodes", map[string]any{"rows": rows}).decode(t, &pushed)
	if len(pushed.Notes) != 2 {
		t.Errorf("push notes = %v, want two", pushed.Notes)
	}
	live(http.MethodPost, nodes, "/api/v1/scopes/acme/nodes", map[string]any{"rows": rows, "strict": true})
	live(http.MethodPost, nodes, "/api/v1/scopes/acme/nodes", map[string]any{"content": "Ann likes coffee.", "strict": true})
	live(http.MethodGet, nodes, "/api/v1/scopes/acme/nodes?limit=2", nil)
	live(http.MethodPost, marker, fmt.Sprintf("/api/v1/scopes/acme/nodes/%d/durability", pushed.IDs[2]),
		map[string]any{"durability": "expired"})
	live(http.MethodPost, marker, fmt.Sprintf("/api/v1/scopes/acme/nodes/%d/durability", pushed.IDs[2]),
		map[string]any{"durability": "permanent"})

	// Extractions: offered only, and stored with a note on the row that
	// repeats a fact.
	live(http.MethodPost, extract, "/api/v1/scopes/acme/extract",
		map[string]any{"text": "I'm Ann. I live in Hamburg and I prefer tea over coffee.", "entity": "Ann"})
	live(http.MethodPost, extract, "/api/v1/scopes/acme/extract",
		map[string]any{"text": "Ann lives in Hamburg.", "entity": "Ann", "store": true})

	// Recall, and briefs: as text by default, as JSON, and only what
	// changed since.
	live(http.MethodGet, recall, "/api/v1/scopes/acme/recall?query=hamburg&limit=5", nil)
	live(http.MethodGet, recall, "/api/v1/scopes/acme/recall?query=photos", nil)
	var changed struct {
		Since   *time.Time       `json:"since"`
		Changes []map[string]any `json:"changes"`
	}
	live(http.MethodGet, brief, "/api/v1/scopes/acme/context?budget=2000", nil)
	live(http.MethodGet, brief, "/api/v1/scopes/acme/context?format=json", nil)
	live(http.MethodGet, brief, "/api/v1/scopes/acme/context?format=json&since="+url.QueryEscape(since.Format(time.RFC3339)), nil).decode(t, &changed)
	if changed.Since == nil || len(changed.Changes) == 0 {
		t.Errorf("brief since %s = %+v, want the changes", since, changed)
	}
	live(http.MethodGet, brief, "/api/v1/scopes/acme/context?since=yesterday", nil)

	// A consolidation run, an import report, the lists.
	var started struct {
		ID int64 `json:"id"`
	}
	live(http.MethodPost, runs, "/api/v1/consolidation/runs", nil).decode(t, &started)
	live(http.MethodGet, run, fmt.Sprintf("/api/v1/consolidation/runs/%d", started.ID), nil)
	live(http.MethodGet, facts, "/api/v1/scopes/acme/facts?limit=2", nil)
	live(http.MethodGet, "/api/v1/consolidation/rejections", "/api/v1/consolidation/rejections?limit=2", nil)
	// Entities: a merge (with a pending row naming the merged entity), the
	// lists, an alias added and removed, the undo.
	live(http.MethodPost, facts, "/api/v1/scopes/acme/facts", map[string]any{"entity": "Ann L.", "key": "home_city",
		"content": "Ann lives in Munich.", "observed_at": "2026-03-01T09:00:00Z"})
	live(http.MethodPost, nodes, "/api/v1/scopes/acme/nodes", map[string]any{"content": "Ann L. manages the RMA desk.",
		"properties": map[string]any{"entity": "Ann L."}})
	var merged struct {
		ID           int64 `json:"id"`
		IntoEntityID int64 `json:"into_entity_id"`
	}
	live(http.MethodPost, "/api/v1/scopes/{scope}/entities/merge", "/api/v1/scopes/acme/entities/merge",
		map[string]any{"from": "Ann L.", "into": "Ann"}).decode(t, &merged)
	live(http.MethodGet, "/api/v1/scopes/{scope}/entities", "/api/v1/scopes/acme/entities?query=ann", nil)
	live(http.MethodGet, "/api/v1/scopes/{scope}/entities/merges", "/api/v1/scopes/acme/entities/merges?limit=5", nil)
	aliases := fmt.Sprintf("/api/v1/scopes/acme/entities/%d/aliases", merged.IntoEntityID)
	const aliasesPath = "/api/v1/scopes/{scope}/entities/{id}/aliases"
	live(http.MethodPost, aliasesPath, aliases, map[string]any{"alias": "my manager"})
	live(http.MethodGet, aliasesPath, aliases, nil)
	live(http.MethodPost, aliasesPath, aliases, map[string]any{"alias": "Ann L."})
	live(http.MethodDelete, aliasesPath, aliases+"?alias=my%20manager", nil)
	live(http.MethodDelete, aliasesPath, aliases+"?alias=Ann%20L.", nil)
	const undo = "/api/v1/scopes/{scope}/entities/merges/{id}/undo"
	live(http.MethodPost, undo, fmt.Sprintf("/api/v1/scopes/acme/entities/merges/%d/undo", merged.ID), nil)
	live(http.MethodPost, undo, fmt.Sprintf("/api/v1/scopes/acme/entities/merges/%d/undo", merged.ID), nil)

	for _, query := range []string{"?dry_run=true", ""} {
		res := f.postImport(t, query, tok, importFile)
		doc.check(t, http.MethodPost, "/api/v1/import", res)
		book.record(t, http.MethodPost, "/api/v1/import", importFile, res)
	}

	for _, op := range doc.operations() {
		if !book.answered[op] {
			t.Errorf("%s was never answered with success: the test must call every operation", op)
		}
	}
	if os.Getenv("TENURE_OPENAPI_EXAMPLES") == "write" {
		book.write(t)
	}
}

// TestLiveDocValidates: the check above finds what it should.
func TestLiveDocValidates(t *testing.T) {
	doc := loadLiveDoc(t)
	note := map[string]any{"$ref": "#/components/schemas/PushNote"}
	for _, tt := range []struct {
		body string
		want string // "" when valid
	}{
		{`{"row": 0, "code": "duplicate", "message": "m", "fact_id": 3}`, ""},
		{`{"row": 0, "code": "duplicate"}`, "lacks required message"},
		{`{"row": 0, "code": "stale", "message": "m"}`, "is not one of"},
		{`{"row": 0.5, "code": "duplicate", "message": "m"}`, "is number, want integer"},
		{`{"row": 0, "code": "duplicate", "message": "m", "extra": 1}`, "has extra"},
		{`{"row": null, "code": "duplicate", "message": "m"}`, "is null"},
	} {
		var v any
		if err := json.Unmarshal([]byte(tt.body), &v); err != nil {
			t.Fatal(err)
		}
		var problems []string
		doc.validate(t, note, v, "$", &problems)
		got := strings.Join(problems, "; ")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("validate(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
	var problems []string
	var v any
	_ = json.Unmarshal([]byte(`{"decided_at": "yesterday"}`), &v)
	doc.validate(t, map[string]any{"$ref": "#/components/schemas/Decision"}, v, "$", &problems)
	if got := strings.Join(problems, "; "); !strings.Contains(got, "not a date-time") || !strings.Contains(got, "lacks required superseded_by") {
		t.Errorf("validate(decision) = %q", got)
	}
}
