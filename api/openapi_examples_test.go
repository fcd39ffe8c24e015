package api_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// exampleBook keeps, per operation, the first request body and the first
// answer of each success status and media type that a live test saw: the
// material of the document's examples.
type exampleBook struct {
	answered  map[string]bool
	requests  map[string]any
	responses map[string]map[string]any // operation → "status media" → body
}

func newExampleBook() *exampleBook {
	return &exampleBook{answered: map[string]bool{}, requests: map[string]any{}, responses: map[string]map[string]any{}}
}

// record notes res, answered to method on template for body, when it is a
// success.
func (b *exampleBook) record(t *testing.T, method, template string, body any, res apiResponse) {
	t.Helper()
	if res.status < 200 || res.status > 299 {
		return
	}
	op := strings.ToUpper(method) + " " + template
	b.answered[op] = true
	if _, ok := b.requests[op]; !ok && body != nil {
		b.requests[op] = body
	}
	media := "application/json"
	var v any = string(res.body)
	if ct := res.header.Get("Content-Type"); strings.HasPrefix(ct, "text/plain") {
		media = "text/plain"
	} else if err := json.Unmarshal(res.body, &v); err != nil {
		t.Fatalf("%s answered %s that is not JSON: %v", op, res.body, err)
	}
	key := strconv.Itoa(res.status) + " " + media
	if b.responses[op] == nil {
		b.responses[op] = map[string]any{}
	}
	if _, ok := b.responses[op][key]; !ok {
		b.responses[op][key] = v
	}
}

// write saves the book as JSON to the file TENURE_OPENAPI_EXAMPLES_FILE
// names (examples.json in the working folder by default), from which the
// examples are pasted into openapi.json.
func (b *exampleBook) write(t *testing.T) {
	t.Helper()
	name := os.Getenv("TENURE_OPENAPI_EXAMPLES_FILE")
	if name == "" {
		name = "examples.json"
	}
	raw, err := json.MarshalIndent(map[string]any{"requests": b.requests, "responses": b.responses}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// operations lists the document's operations as "METHOD /path/{template}".
func (d liveDoc) operations() []string {
	var ops []string
	paths, _ := d.raw["paths"].(map[string]any)
	for path, item := range paths {
		for method := range item.(map[string]any) {
			switch method {
			case "get", "put", "post", "patch", "delete":
				ops = append(ops, strings.ToUpper(method)+" "+path)
			}
		}
	}
	slices.Sort(ops)
	return ops
}

// TestOpenAPIExamples holds every operation to one realistic example: its
// request body, when it takes one, and each success answer it documents,
// every JSON example valid against its schema.
func TestOpenAPIExamples(t *testing.T) {
	doc := loadLiveDoc(t)
	paths := doc.raw["paths"].(map[string]any)
	for _, op := range doc.operations() {
		method, path, _ := strings.Cut(op, " ")
		o := paths[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
		if rb, ok := o["requestBody"].(map[string]any); ok {
			if ref, ok := rb["$ref"].(string); ok {
				rb = doc.resolve(t, ref)
			}
			for media, m := range rb["content"].(map[string]any) {
				doc.checkExample(t, op+" request "+media, media, m.(map[string]any))
			}
		}
		for status, r := range o["responses"].(map[string]any) {
			if !strings.HasPrefix(status, "2") {
				continue
			}
			resp := r.(map[string]any)
			if ref, ok := resp["$ref"].(string); ok {
				resp = doc.resolve(t, ref)
			}
			content, _ := resp["content"].(map[string]any)
			for media, m := range content {
				doc.checkExample(t, fmt.Sprintf("%s %s %s", op, status, media), media, m.(map[string]any))
			}
		}
	}
}

// checkExample fails unless the media type object m has an example that
// its schema describes.
func (d liveDoc) checkExample(t *testing.T, what, media string, m map[string]any) {
	t.Helper()
	ex, ok := m["example"]
	if !ok || ex == nil {
		t.Errorf("%s has no example", what)
		return
	}
	if media == "text/plain" {
		if s, ok := ex.(string); !ok || strings.TrimSpace(s) == "" {
			t.Errorf("%s: example is %T, want a non-empty text", what, ex)
		}
		return
	}
	schema, _ := m["schema"].(map[string]any)
	var problems []string
	d.validate(t, schema, ex, "$", &problems)
	if len(problems) > 0 {
		t.Errorf("%s: example does not match its schema:\n  %s", what, strings.Join(problems, "\n  "))
	}
}
