package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
)

// boundCase is one call that breaks one bound of a listed input schema.
type boundCase struct {
	tool, keyword string
	field         string         // the argument as sent: limit, rows[0].content, properties.confidence
	args          map[string]any // the call's arguments
}

// TestEverySchemaBoundEnforced walks the input schema of every tool a
// writer lists and, for every bound in it (minimum, maximum, minLength,
// maxLength, enum, required, minItems, maxItems, pattern), makes a call
// that breaks that bound alone, starting from the tool's listed example.
// The server must refuse each with a tool error of its own that names the
// argument as sent ("field: ..."), not the SDK's schema validation message.
// A bound added to a schema without the server enforcing it fails here.
func TestEverySchemaBoundEnforced(t *testing.T) {
	f := newMCPFixture(t)
	cs := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenWriter))
	var cases []boundCase
	for name, tool := range listTools(t, cs) {
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var root map[string]any
		if err := json.Unmarshal(raw, &root); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, boundCases(t, name, root)...)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.keyword] = true
		res := callRaw(t, cs, c.tool, c.args)
		text := toolText(res)
		if !res.IsError {
			t.Errorf("%s %s %s: accepted %s", c.tool, c.field, c.keyword, brief(c.args))
			continue
		}
		if !strings.HasPrefix(text, c.field+": ") || strings.Contains(text, "validating") {
			t.Errorf("%s %s %s: error = %q, want the server's refusal naming %s", c.tool, c.field, c.keyword, text, c.field)
		}
	}
	// The walk itself must find the bounds the schemas are known to have.
	for _, k := range []string{"minimum", "maximum", "minLength", "maxLength", "enum", "required", "minItems", "maxItems", "pattern"} {
		if !seen[k] {
			t.Errorf("no schema bound %s found: the walk is broken", k)
		}
	}
	if len(cases) < 40 {
		t.Errorf("%d bounds found, want at least 40", len(cases))
	}
}

// boundCases lists a violating call for each bound of a tool's schema.
func boundCases(t *testing.T, tool string, root map[string]any) []boundCase {
	t.Helper()
	examples, _ := root["examples"].([]any)
	if len(examples) == 0 {
		t.Fatalf("%s lists no example", tool)
	}
	var out []boundCase
	// add records a call that sets (or, with remove, deletes) the argument
	// at path in a fresh copy of the example.
	add := func(keyword string, path []string, value any, remove bool) {
		args := deepCopy(examples[0]).(map[string]any)
		switch {
		case tool == "remember" && path[0] == "nodes":
			// The batch under its deprecated name.
			args = map[string]any{"nodes": args["rows"]}
		case tool == "remember" && path[0] != "rows":
			// The single row's fields, not beside a batch.
			args = map[string]any{"content": "Ann is here."}
		}
		setPath(args, path, value, remove)
		out = append(out, boundCase{tool: tool, keyword: keyword, field: fieldName(path), args: args})
	}
	var walk func(s map[string]any, path []string)
	walk = func(s map[string]any, path []string) {
		s = resolveRef(t, root, s)
		if len(path) > 0 {
			for _, c := range violations(s) {
				add(c.keyword, path, c.value, false)
			}
		}
		for _, name := range sortedKeys(s["required"]) {
			add("required", append(slices.Clone(path), name), nil, true)
		}
		props, _ := s["properties"].(map[string]any)
		for _, name := range slices.Sorted(mapKeys(props)) {
			walk(props[name].(map[string]any), append(slices.Clone(path), name))
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(items, append(slices.Clone(path), "[0]"))
		}
	}
	walk(root, nil)
	return out
}

type violation struct {
	keyword string
	value   any
}

// violations are values that break each bound of s, one bound each.
func violations(s map[string]any) []violation {
	var out []violation
	integer := s["type"] == "integer" || slices.Contains(anys(s["type"]), "integer")
	if m, ok := s["minimum"].(float64); ok {
		out = append(out, violation{"minimum", step(m, -1, integer)})
	}
	if m, ok := s["maximum"].(float64); ok {
		out = append(out, violation{"maximum", step(m, 1, integer)})
	}
	if n, ok := s["minLength"].(float64); ok && n > 0 {
		out = append(out, violation{"minLength", strings.Repeat("x", int(n)-1)})
	}
	if n, ok := s["maxLength"].(float64); ok {
		out = append(out, violation{"maxLength", strings.Repeat("x", int(n)+1)})
	}
	if _, ok := s["enum"]; ok {
		out = append(out, violation{"enum", "not-a-listed-value"})
	}
	if n, ok := s["minItems"].(float64); ok && n > 0 {
		out = append(out, violation{"minItems", make([]any, int(n)-1)})
	}
	if n, ok := s["maxItems"].(float64); ok {
		rows := make([]any, int(n)+1)
		for i := range rows {
			rows[i] = map[string]any{"content": "row " + strconv.Itoa(i)}
		}
		out = append(out, violation{"maxItems", rows})
	}
	if p, ok := s["pattern"].(string); ok {
		re := regexp.MustCompile(p)
		for _, v := range []string{" x", "0", "x", "-1"} {
			if !re.MatchString(v) {
				out = append(out, violation{"pattern", v})
				break
			}
		}
	}
	return out
}

// step is a number one step past bound b in direction dir: a whole number
// for integers, half a unit for other numbers.
func step(b float64, dir int, integer bool) float64 {
	if integer {
		return b + float64(dir)
	}
	return b + float64(dir)*0.5
}

// resolveRef follows a local $ref of s in root.
func resolveRef(t *testing.T, root, s map[string]any) map[string]any {
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		var cur any = root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, _ := cur.(map[string]any)
			cur = m[part]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("unresolvable $ref %s", ref)
		}
		s = next
	}
}

// fieldName is a path as an argument is named in errors: rows[0].content.
func fieldName(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// setPath sets (or deletes) the value at path in args, making the objects
// and the first array element on the way.
func setPath(args map[string]any, path []string, value any, remove bool) {
	var cur any = args
	for i, p := range path {
		last := i == len(path)-1
		if p == "[0]" {
			a := cur.([]any)
			if last {
				a[0] = value
				return
			}
			cur = a[0]
			continue
		}
		m := cur.(map[string]any)
		switch {
		case last && remove:
			delete(m, p)
		case last:
			m[p] = value
		default:
			next, ok := m[p]
			if !ok {
				if path[i+1] == "[0]" {
					next = []any{map[string]any{}}
				} else {
					next = map[string]any{}
				}
				m[p] = next
			}
			cur = next
		}
	}
}

func deepCopy(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return out
}

func anys(v any) []any { a, _ := v.([]any); return a }

func sortedKeys(v any) []string {
	var out []string
	for _, k := range anys(v) {
		out = append(out, fmt.Sprint(k))
	}
	slices.Sort(out)
	return out
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// brief shows a call's arguments, long strings and lists cut.
func brief(args map[string]any) string {
	raw, _ := json.Marshal(args)
	if len(raw) > 200 {
		return string(raw[:200]) + "…"
	}
	return string(raw)
}
