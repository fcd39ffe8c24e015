package api_test

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/api"
)

// TestOpenAPILintRules holds the document to the structural rules of
// Redocly's recommended ruleset it once broke, without needing Redocly:
// info has a license (with a url or an SPDX identifier), every tag is
// declared with a description and used, every operation documents a 4XX
// answer, and every component is referenced from outside itself.
func TestOpenAPILintRules(t *testing.T) {
	var doc struct {
		Info struct {
			License *struct {
				Name       string `json:"name"`
				URL        string `json:"url"`
				Identifier string `json:"identifier"`
			} `json:"license"`
		} `json:"info"`
		Tags []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tags"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}

	if l := doc.Info.License; l == nil || l.Name == "" || (l.URL == "" && l.Identifier == "") {
		t.Errorf("info.license = %+v, want a name and a url or identifier", l)
	}

	declared := map[string]bool{}
	for _, tag := range doc.Tags {
		if strings.TrimSpace(tag.Description) == "" {
			t.Errorf("tag %q has no description", tag.Name)
		}
		declared[tag.Name] = true
	}
	used := map[string]bool{}
	methods := []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if !slices.Contains(methods, method) {
				continue
			}
			var op struct {
				Tags      []string                   `json:"tags"`
				Responses map[string]json.RawMessage `json:"responses"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			if len(op.Tags) == 0 {
				t.Errorf("%s %s has no tag", method, path)
			}
			for _, tag := range op.Tags {
				used[tag] = true
				if !declared[tag] {
					t.Errorf("%s %s uses tag %q, which is not declared", method, path, tag)
				}
			}
			if !slices.ContainsFunc(slices.Collect(maps.Keys(op.Responses)), func(status string) bool {
				return strings.HasPrefix(strings.ToUpper(status), "4")
			}) {
				t.Errorf("%s %s documents no 4XX response", method, path)
			}
		}
	}
	for tag := range declared {
		if !used[tag] {
			t.Errorf("tag %q is declared but no operation uses it", tag)
		}
	}

	// Every component is referenced from somewhere other than itself.
	var raw map[string]any
	if err := json.Unmarshal(api.OpenAPI(), &raw); err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && ref != at && !strings.HasPrefix(at, ref+"/") {
				refs[ref] = true
			}
			for k, e := range v {
				walk(e, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		case []any:
			for _, e := range v {
				walk(e, at)
			}
		}
	}
	walk(raw, "#")
	components, _ := raw["components"].(map[string]any)
	for kind, group := range components {
		if kind == "securitySchemes" {
			continue // used by name in security requirements, not by $ref
		}
		entries, _ := group.(map[string]any)
		for name := range entries {
			if ref := "#/components/" + kind + "/" + name; !refs[ref] {
				t.Errorf("component %s is never referenced", ref)
			}
		}
	}
	schemes, _ := components["securitySchemes"].(map[string]any)
	security, _ := raw["security"].([]any)
	for name := range schemes {
		if !slices.ContainsFunc(security, func(req any) bool { _, ok := req.(map[string]any)[name]; return ok }) {
			t.Errorf("security scheme %s is not required anywhere", name)
		}
	}
}

// TestOpenAPIDocumentNegotiates checks the 4XX the document's own operation
// documents: GET /api/openapi.json answers 406 not_acceptable, in the shape
// openapi.json gives, when the Accept header rules out application/json, and
// the document otherwise.
func TestOpenAPIDocumentNegotiates(t *testing.T) {
	f := newAPIFixture(t)
	doc := loadLiveDoc(t)
	for _, tt := range []struct {
		accept []string // nil sends no Accept header
		want   int
	}{
		{nil, http.StatusOK},
		{[]string{""}, http.StatusOK},
		{[]string{"*/*"}, http.StatusOK},
		{[]string{"application/json"}, http.StatusOK},
		{[]string{"Application/JSON; charset=utf-8"}, http.StatusOK},
		{[]string{"application/*;q=0.5"}, http.StatusOK},
		{[]string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}, http.StatusOK},
		{[]string{"text/html", "application/json"}, http.StatusOK},
		{[]string{"application/json;q=0, text/html"}, http.StatusNotAcceptable},
		{[]string{"application/json;q=0, */*"}, http.StatusNotAcceptable},
		{[]string{"*/*;q=0"}, http.StatusNotAcceptable},
		{[]string{"text/html"}, http.StatusNotAcceptable},
		{[]string{"application/xml"}, http.StatusNotAcceptable},
		{[]string{"application/json;q=zero"}, http.StatusNotAcceptable},
	} {
		req, err := http.NewRequest(http.MethodGet, f.srv.URL+"/api/openapi.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range tt.accept {
			req.Header.Add("Accept", v)
		}
		resp, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		res := apiResponse{status: resp.StatusCode, header: resp.Header, body: body}
		if res.status != tt.want {
			t.Errorf("Accept %q: status %d, want %d; body %.200s", tt.accept, res.status, tt.want, body)
			continue
		}
		if vary := strings.Join(res.header.Values("Vary"), ","); !strings.Contains(vary, "Accept") {
			t.Errorf("Accept %q: Vary = %q, want Accept", tt.accept, vary)
		}
		doc.check(t, http.MethodGet, "/api/openapi.json", res)
		if res.status == http.StatusNotAcceptable {
			res.wantError(t, http.StatusNotAcceptable, "not_acceptable")
		} else if string(body) != string(api.OpenAPI()) {
			t.Errorf("Accept %q: the body is not the document", tt.accept)
		}
	}
}
