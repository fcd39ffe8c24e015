// Package contract holds the REST API and the MCP tools to one contract:
// the same names, enums and bounds for the same concepts, taken from the
// engine's own values.
package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/mcpserver"
	"github.com/tenurehq/tenure/memory"
)

// bounds is what a schema says about one field's values: its closed
// vocabulary and its numeric and size bounds.
type bounds struct {
	Enum      []string
	Minimum   *float64
	Maximum   *float64
	MaxLength *int
	MaxItems  *int
}

func (b bounds) String() string {
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	n := func(p *int) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("enum=%v min=%s max=%s maxLength=%s maxItems=%s",
		b.Enum, f(b.Minimum), f(b.Maximum), n(b.MaxLength), n(b.MaxItems))
}

// equal compares two fields' bounds, the enums as sets.
func (b bounds) equal(o bounds) bool {
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	fe := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	ie := func(x, y *int) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return slices.Equal(sorted(b.Enum), sorted(o.Enum)) &&
		fe(b.Minimum, o.Minimum) && fe(b.Maximum, o.Maximum) &&
		ie(b.MaxLength, o.MaxLength) && ie(b.MaxItems, o.MaxItems)
}

func boundsOf(s map[string]any) bounds {
	var b bounds
	if e, ok := s["enum"].([]any); ok {
		for _, v := range e {
			b.Enum = append(b.Enum, fmt.Sprint(v))
		}
	}
	num := func(key string) *float64 {
		if v, ok := s[key].(float64); ok {
			return &v
		}
		return nil
	}
	count := func(key string) *int {
		if v, ok := s[key].(float64); ok {
			n := int(v)
			return &n
		}
		return nil
	}
	b.Minimum, b.Maximum = num("minimum"), num("maximum")
	b.MaxLength, b.MaxItems = count("maxLength"), count("maxItems")
	return b
}

// openAPIDoc is the REST API's OpenAPI document, with its local $refs
// resolvable.
type openAPIDoc struct{ root map[string]any }

func (d openAPIDoc) resolve(t *testing.T, v any) map[string]any {
	t.Helper()
	m, _ := v.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var cur any = d.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			next, _ := cur.(map[string]any)
			cur = next[part]
		}
		if cur == nil {
			t.Fatalf("unresolvable $ref %s", ref)
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

// field finds the schema of a REST field: "query:name" is a query
// parameter of the operation, "header:Name" a header parameter, "body:a.b"
// a property of its JSON request body (through arrays' items).
func (d openAPIDoc) field(t *testing.T, method, path, where string) map[string]any {
	t.Helper()
	paths, _ := d.root["paths"].(map[string]any)
	item, _ := paths[path].(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	if op == nil {
		t.Fatalf("OpenAPI document has no %s %s", method, path)
	}
	kind, name, _ := strings.Cut(where, ":")
	switch kind {
	case "query", "header":
		params, _ := op["parameters"].([]any)
		for _, p := range params {
			p := d.resolve(t, p)
			if p["in"] == kind && p["name"] == name {
				return d.resolve(t, p["schema"])
			}
		}
	case "body":
		rb := d.resolve(t, op["requestBody"])
		content, _ := rb["content"].(map[string]any)
		media, _ := content["application/json"].(map[string]any)
		s := d.resolve(t, media["schema"])
		for _, part := range strings.Split(name, ".") {
			if items := d.resolve(t, s["items"]); items != nil {
				s = items
			}
			props, _ := s["properties"].(map[string]any)
			s = d.resolve(t, props[part])
			if s == nil {
				break
			}
		}
		if s != nil {
			return s
		}
	}
	t.Fatalf("OpenAPI document: %s %s has no %s", method, path, where)
	return nil
}

// mcpField finds the schema of an MCP tool argument by dotted path
// (through arrays' items and local $refs, such as an item of remember's rows
// refers to the top-level row's fields).
func mcpField(t *testing.T, schemas map[string]map[string]any, tool, path string) map[string]any {
	t.Helper()
	root := schemas[tool]
	resolve := func(s map[string]any) map[string]any {
		for s != nil {
			ref, ok := s["$ref"].(string)
			if !ok {
				return s
			}
			var cur any = root
			for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
				m, _ := cur.(map[string]any)
				cur = m[part]
			}
			s, _ = cur.(map[string]any)
		}
		return nil
	}
	s := root
	for _, part := range strings.Split(path, ".") {
		if items, ok := s["items"].(map[string]any); ok {
			s = resolve(items)
		}
		props, _ := s["properties"].(map[string]any)
		s, _ = props[part].(map[string]any)
		s = resolve(s)
		if s == nil {
			t.Fatalf("MCP tool %s has no argument %s", tool, path)
		}
	}
	return s
}

func strs[T ~string](v []T) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = string(s)
	}
	return out
}

func fp(f float64) *float64 { return &f }
func ip(n int) *int         { return &n }

// TestOpenAPIMatchesMCPSchemas holds the REST API's OpenAPI document and
// the MCP tools' input schemas to each other and to the engine: every pair
// of fields that mean the same thing has the same enum (as a set) and the
// same bounds, and those are the engine's values. Bounds the engine does
// not export (recall's 100, a page's 500, a year's TTL, content's 10,000
// characters) are written out; TestSchemasBounded and the api tests check
// them against the engine's refusals.
func TestOpenAPIMatchesMCPSchemas(t *testing.T) {
	var doc openAPIDoc
	if err := json.Unmarshal(api.OpenAPI(), &doc.root); err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}

	schemas := map[string]map[string]any{}
	for name, schema := range mcpserver.ToolSchemas() {
		raw, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		schemas[name] = s
	}

	markers := bounds{Enum: strs(memory.Markers())}
	durabilities := bounds{Enum: strs(memory.Durabilities())}
	unit := bounds{Minimum: fp(0), Maximum: fp(1)}
	ttl := bounds{Minimum: fp(1), Maximum: fp(365 * 24 * 3600)}
	content := bounds{MaxLength: ip(10000)}
	idempotencyKey := bounds{MaxLength: ip(memory.MaxIdempotencyKey)}

	const (
		nodes     = "/api/v1/scopes/{scope}/nodes"
		recall    = "/api/v1/scopes/{scope}/recall"
		ctx       = "/api/v1/scopes/{scope}/context"
		decisions = "/api/v1/scopes/{scope}/decisions"
		facts     = "/api/v1/scopes/{scope}/facts"
		extractP  = "/api/v1/scopes/{scope}/extract"
		upgrade   = "/api/v1/scopes/{scope}/nodes/{id}/durability"
	)
	for _, c := range []struct {
		method, path, rest string // REST field: query:name or body:dotted.path
		tool, arg          string // MCP tool argument, dotted
		engine             bounds // the engine's values
	}{
		{"GET", recall, "query:durability", "recall", "durability", durabilities},
		{"GET", recall, "query:limit", "recall", "limit", bounds{Minimum: fp(1), Maximum: fp(100)}},
		{"GET", facts, "query:durability", "recall", "durability", durabilities},
		{"GET", ctx, "query:budget", "context", "budget",
			bounds{Minimum: fp(memory.MinBriefBudget), Maximum: fp(memory.MaxBriefBudget)}},
		{"GET", ctx, "query:format", "context", "format", bounds{Enum: []string{"text", "json"}}},
		{"GET", decisions, "query:state", "list_decisions", "state",
			bounds{Enum: memory.DecisionFilterStates}},
		{"GET", decisions, "query:limit", "list_decisions", "limit", bounds{Minimum: fp(1), Maximum: fp(500)}},
		{"POST", extractP, "body:mode", "extract", "mode", bounds{Enum: []string{extract.ModeRules, extract.ModeLLM}}},
		{"POST", extractP, "body:text", "extract", "text", bounds{MaxLength: ip(50000)}},
		{"POST", extractP, "body:entity", "extract", "entity", bounds{MaxLength: ip(200)}},
		{"POST", upgrade, "body:durability", "set_durability", "durability", markers},
		{"GET", nodes, "query:durability", "set_durability", "durability", markers},
		{"POST", nodes, "body:durability", "remember", "durability", markers},
		{"POST", nodes, "body:importance", "remember", "importance", unit},
		{"POST", nodes, "body:ttl_seconds", "remember", "ttl_seconds", ttl},
		{"POST", nodes, "body:content", "remember", "content", content},
		{"POST", nodes, "body:properties.fact_durability", "remember", "properties.fact_durability", durabilities},
		{"POST", nodes, "body:properties.confidence", "remember", "properties.confidence", unit},
		{"POST", nodes, "body:rows", "remember", "rows", bounds{MaxItems: ip(memory.MaxPushBatch)}},
		{"POST", nodes, "body:rows.durability", "remember", "rows.durability", markers},
		{"POST", nodes, "body:rows.importance", "remember", "rows.importance", unit},
		{"POST", nodes, "body:rows.ttl_seconds", "remember", "rows.ttl_seconds", ttl},
		{"POST", nodes, "body:rows.content", "remember", "rows.content", content},
		{"POST", nodes, "body:rows.properties.fact_durability", "remember", "rows.properties.fact_durability", durabilities},
		{"POST", nodes, "body:rows.properties.confidence", "remember", "rows.properties.confidence", unit},
		{"POST", nodes, "header:Idempotency-Key", "remember", "idempotency_key", idempotencyKey},
		{"POST", decisions, "header:Idempotency-Key", "record_decision", "idempotency_key", idempotencyKey},
		{"POST", upgrade, "header:Idempotency-Key", "set_durability", "idempotency_key", idempotencyKey},
		{"POST", extractP, "header:Idempotency-Key", "extract", "idempotency_key", idempotencyKey},
	} {
		rest := boundsOf(doc.field(t, c.method, c.path, c.rest))
		m := boundsOf(mcpField(t, schemas, c.tool, c.arg))
		if !rest.equal(m) {
			t.Errorf("REST %s %s %s (%v) and MCP %s.%s (%v) differ", c.method, c.path, c.rest, rest, c.tool, c.arg, m)
		}
		if !rest.equal(c.engine) {
			t.Errorf("REST %s %s %s = %v, want the engine's %v", c.method, c.path, c.rest, rest, c.engine)
		}
		if !m.equal(c.engine) {
			t.Errorf("MCP %s.%s = %v, want the engine's %v", c.tool, c.arg, m, c.engine)
		}
	}

	// One name per concept: every argument a tool takes (deprecated names
	// aside) is a field of the same name in the REST operation that does
	// the same, where it is found in the query or the body.
	for _, c := range []struct {
		tool, method, path, in string
		elsewhere              []string // arguments REST takes in the path
	}{
		{"recall", "GET", recall, "query", nil},
		{"context", "GET", ctx, "query", nil},
		{"list_decisions", "GET", decisions, "query", nil},
		{"record_decision", "POST", decisions, "body", nil},
		{"set_durability", "POST", upgrade, "body", []string{"node_id"}},
		{"remember", "POST", nodes, "body", nil},
		{"extract", "POST", extractP, "body", nil},
	} {
		props, _ := schemas[c.tool]["properties"].(map[string]any)
		if len(props) == 0 {
			t.Fatalf("MCP tool %s lists no arguments", c.tool)
		}
		for name, p := range props {
			if p.(map[string]any)["deprecated"] == true || slices.Contains(c.elsewhere, name) {
				continue
			}
			if name == "idempotency_key" { // REST takes it as the header Idempotency-Key
				doc.field(t, c.method, c.path, "header:Idempotency-Key")
				continue
			}
			doc.field(t, c.method, c.path, c.in+":"+name)
		}
	}
}
