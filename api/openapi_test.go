package api_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
)

// openAPIDoc is the part of the OpenAPI document the test checks.
type openAPIDoc struct {
	OpenAPI string                                 `json:"openapi"`
	Paths   map[string]map[string]openAPIOperation `json:"paths"`
}

type openAPIOperation struct {
	OperationID string            `json:"operationId"`
	Parameters  []json.RawMessage `json:"parameters"`
	Responses   map[string]any    `json:"responses"`
}

var routeParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// TestOpenAPIMatchesRoutes holds the document and the router to each other:
// every /api/ route is documented, and every documented operation is routed.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	f := newAPIFixture(t)
	var doc openAPIDoc
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("openapi = %q, want 3.x", doc.OpenAPI)
	}

	routed := map[string]bool{}
	for _, r := range f.echo.Routes() {
		if !strings.HasPrefix(r.Path, "/api/") || r.Method == echo.RouteNotFound || strings.HasSuffix(r.Path, "*") {
			continue
		}
		routed[strings.ToLower(r.Method)+" "+routeParam.ReplaceAllString(r.Path, "{$1}")] = true
	}
	documented := map[string]bool{}
	methods := []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}
	for path, item := range doc.Paths {
		for method := range item {
			if slices.Contains(methods, method) {
				documented[method+" "+path] = true
			}
		}
	}
	if len(routed) < 15 {
		t.Fatalf("only %d API routes found: %v", len(routed), routed)
	}
	for op := range routed {
		if !documented[op] {
			t.Errorf("route %s is not in openapi.json", op)
		}
	}
	for op := range documented {
		if !routed[op] {
			t.Errorf("openapi.json documents %s, which is not routed", op)
		}
	}
}

// TestOpenAPIIsWellFormed checks what a client generator relies on: every
// $ref resolves, every path parameter is declared, and every operation has
// a unique id and a success response.
func TestOpenAPIIsWellFormed(t *testing.T) {
	var raw map[string]any
	if err := json.Unmarshal(api.OpenAPI(), &raw); err != nil {
		t.Fatal(err)
	}
	resolve := func(ref string) (any, bool) {
		if !strings.HasPrefix(ref, "#/") {
			return nil, false
		}
		var cur any = raw
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]; !ok {
				return nil, false
			}
		}
		return cur, true
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if _, ok := resolve(ref); !ok {
					t.Errorf("%s: $ref %q does not resolve", at, ref)
				}
			}
			for k, e := range v {
				walk(e, at+"/"+k)
			}
		case []any:
			for _, e := range v {
				walk(e, at)
			}
		}
	}
	walk(raw, "#")

	var doc openAPIDoc
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	template := regexp.MustCompile(`\{([^}]+)\}`)
	for path, item := range doc.Paths {
		for method, op := range item {
			where := method + " " + path
			if op.OperationID == "" {
				t.Errorf("%s has no operationId", where)
			} else if other, dup := ids[op.OperationID]; dup {
				t.Errorf("%s and %s share operationId %s", where, other, op.OperationID)
			}
			ids[op.OperationID] = where
			declared := map[string]bool{}
			for _, p := range op.Parameters {
				var param struct {
					Ref  string `json:"$ref"`
					Name string `json:"name"`
					In   string `json:"in"`
				}
				if err := json.Unmarshal(p, &param); err != nil {
					t.Fatal(err)
				}
				if param.Ref != "" {
					target, _ := resolve(param.Ref)
					b, _ := json.Marshal(target)
					_ = json.Unmarshal(b, &param)
				}
				if param.In == "path" {
					declared[param.Name] = true
				}
			}
			for _, m := range template.FindAllStringSubmatch(path, -1) {
				if !declared[m[1]] {
					t.Errorf("%s does not declare its path parameter %s", where, m[1])
				}
			}
			ok := false
			for code := range op.Responses {
				ok = ok || strings.HasPrefix(code, "2")
			}
			if !ok {
				t.Errorf("%s has no success response", where)
			}
		}
	}
}

func TestOpenAPIIsServed(t *testing.T) {
	f := newAPIFixture(t)
	res := f.call(t, http.MethodGet, "/api/openapi.json", "", nil)
	res.wantStatus(t, http.StatusOK)
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	if string(res.body) != string(api.OpenAPI()) {
		t.Errorf("served document differs from api.OpenAPI()")
	}
}

func TestMapDataType(t *testing.T) {
	tests := []struct{ in, durability, category string }{
		{"permanent", "permanent", "identity"},
		{"identity", "permanent", "identity"},
		{"preference", "long_term", "preference"},
		{"observation", "long_term", "observation"},
		{"temporal", "short_term", "state"},
	}
	for _, tt := range tests {
		d, c, err := api.MapDataType(tt.in)
		if err != nil || string(d) != tt.durability || c != tt.category {
			t.Errorf("MapDataType(%q) = (%s, %s, %v), want (%s, %s)", tt.in, d, c, err, tt.durability, tt.category)
		}
	}
	for _, bad := range []string{"", "Temporal", "mood", "episodic"} {
		if _, _, err := api.MapDataType(bad); err == nil || !strings.Contains(err.Error(), "allowed values are permanent, identity, preference, observation, temporal") {
			t.Errorf("MapDataType(%q) error = %v, want the allowed values named", bad, err)
		}
	}
}
