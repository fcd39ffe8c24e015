package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// prop is one property of a listed input schema, as a client reads it.
type prop struct {
	Enum       []string        `json:"enum"`
	Minimum    *float64        `json:"minimum"`
	Maximum    *float64        `json:"maximum"`
	MaxItems   *int            `json:"maxItems"`
	Properties map[string]prop `json:"properties"`
	Items      *prop           `json:"items"`
	Ref        string          `json:"$ref"`
}

// TestSchemasBounded checks that every closed vocabulary of the tools'
// arguments is listed as an enum and every number with its bounds, and that
// the bounds are the engine's: the value at a bound is taken, the one past
// it refused.
func TestSchemasBounded(t *testing.T) {
	f := newMCPFixture(t)
	cs := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenWriter))
	props := map[string]map[string]prop{}
	for name, tool := range listTools(t, cs) {
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]prop `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		props[name] = s.Properties
	}
	markers := []string{"durable", "transient", "expired"}
	durabilities := []string{"permanent", "long_term", "short_term", "ephemeral"}
	for _, c := range []struct {
		tool, path string
		enum       []string
	}{
		{"remember", "durability", markers},
		{"remember", "rows.durability", markers},
		{"remember", "properties.fact_durability", durabilities},
		{"recall", "durability", durabilities},
		{"set_durability", "durability", markers},
		{"context", "format", []string{"text", "json"}},
		{"extract", "mode", []string{"rules", "llm"}},
		{"list_decisions", "state", []string{"current", "superseded", "reopened", "open"}},
	} {
		if p := lookup(props[c.tool], c.path); !slices.Equal(p.Enum, c.enum) {
			t.Errorf("%s %s enum = %v, want %v", c.tool, c.path, p.Enum, c.enum)
		}
	}
	for _, c := range []struct {
		tool, path string
		lo, hi     float64
	}{
		{"remember", "importance", 0, 1},
		{"remember", "rows.importance", 0, 1},
		{"remember", "ttl_seconds", 1, 31536000},
		{"remember", "rows.ttl_seconds", 1, 31536000},
		{"remember", "properties.confidence", 0, 1},
		{"remember", "rows.properties.confidence", 0, 1},
		{"recall", "limit", 1, 100},
		{"context", "budget", memory.MinBriefBudget, memory.MaxBriefBudget},
		{"list_decisions", "limit", 1, 500},
	} {
		p := lookup(props[c.tool], c.path)
		if p.Minimum == nil || p.Maximum == nil || *p.Minimum != c.lo || *p.Maximum != c.hi {
			t.Errorf("%s %s bounds = %v..%v, want %v..%v", c.tool, c.path, p.Minimum, p.Maximum, c.lo, c.hi)
		}
	}
	if p := props["remember"]["rows"]; p.MaxItems == nil || *p.MaxItems != memory.MaxPushBatch {
		t.Errorf("remember rows maxItems = %v, want %d", p.MaxItems, memory.MaxPushBatch)
	}

	// The advertised bounds are the engine's.
	call(t, cs, "remember", map[string]any{"content": "a year", "ttl_seconds": 31536000}, nil)
	if msg := callError(t, cs, "remember", map[string]any{"content": "a year and a second", "ttl_seconds": 31536001}); !strings.Contains(msg, "ttl_seconds") {
		t.Errorf("remember(ttl past a year) error = %q", msg)
	}
	call(t, cs, "recall", map[string]any{"limit": 100}, nil)
	if msg := callError(t, cs, "recall", map[string]any{"limit": 101}); !strings.Contains(msg, "1 to 100") {
		t.Errorf("recall(limit 101) error = %q", msg)
	}
	call(t, cs, "list_decisions", map[string]any{"limit": 500}, nil)
	if msg := callError(t, cs, "list_decisions", map[string]any{"limit": 501}); !strings.Contains(msg, "500") {
		t.Errorf("list_decisions(limit 501) error = %q", msg)
	}
	if msg := callError(t, cs, "remember", map[string]any{"content": strings.Repeat("x", 10001)}); !strings.Contains(msg, "at most 10000") {
		t.Errorf("remember(10001 characters) error = %q", msg)
	}
}

// lookup follows a dotted path through properties (and rows' items, whose
// fields are $refs to the top-level ones).
func lookup(props map[string]prop, path string) prop {
	root := props
	var p prop
	for _, name := range strings.Split(path, ".") {
		p = props[name]
		if ref, ok := strings.CutPrefix(p.Ref, "#/properties/"); ok {
			p = root[ref]
		}
		props = p.Properties
		if p.Items != nil {
			props = p.Items.Properties
		}
	}
	return p
}

// TestRecallTextCompact checks that recall's text is one short line per
// fact, not JSON, while the structured content keeps every field.
func TestRecallTextCompact(t *testing.T) {
	f := newMCPFixture(t)
	person := memory.Human("ann@example.com")
	// Ten lines in words of their own (lines differing only by a number
	// are one templated line, which recall shows once).
	teas := []string{"green", "black", "oolong", "white", "mint", "jasmine", "earl grey", "chai", "rooibos", "matcha"}
	for i, kind := range teas {
		if _, _, err := f.store.CreateFact(t.Context(), person, memory.NewFact{Scope: "acme", Entity: "Ann",
			Key: fmt.Sprintf("likes_%d", i), Content: "Ann likes " + kind + " tea", Category: "preference"}); err != nil {
			t.Fatal(err)
		}
	}
	cs := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenReader))
	var out recallOut
	res := call(t, cs, "recall", map[string]any{"query": "tea"}, &out)
	if len(out.Results) != 10 {
		t.Fatalf("recall(tea) = %d results, want 10 in the structured content", len(out.Results))
	}
	text := toolText(res)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	// About 110 characters a line: the fact, its entity and key, its axes,
	// its confidence and when it was observed.
	if len(lines) != 10 || strings.ContainsAny(text, "{}") || len(text) > 1150 {
		t.Errorf("recall text (%d characters, %d lines) = %q, want 10 compact lines without JSON", len(text), len(lines), text)
	}
	if !strings.Contains(lines[0], "Ann likes ") || !strings.Contains(lines[0], "Ann / likes_") ||
		!strings.Contains(lines[0], "preference") || !strings.Contains(lines[0], "confidence 0.80") || !strings.Contains(lines[0], "observed 2026-06-01, just now") {
		t.Errorf("recall line = %q, want content, entity / key, category, confidence, date and age", lines[0])
	}
	if r := out.Results[0]; r.Fact.ID == 0 || r.Fact.Scope != "acme" || r.Fact.EffectiveConfidence == 0 {
		t.Errorf("structured fact = %+v, want all its fields", r.Fact)
	}
}

// TestRememberErrorsUseArgumentNames checks that a batch's errors name the
// tool's argument, rows, not the engine's nodes.
func TestRememberErrorsUseArgumentNames(t *testing.T) {
	f := newMCPFixture(t)
	cs := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenWriter))
	msg := callError(t, cs, "remember", map[string]any{"rows": []map[string]any{
		{"content": "fine"}, {"content": "bad", "durability": "forever"},
	}})
	if !strings.HasPrefix(msg, "rows[1].durability:") || strings.Contains(msg, "nodes") {
		t.Errorf("batch error = %q, want it about rows[1].durability", msg)
	}
	rows := make([]map[string]any, memory.MaxPushBatch+1)
	for i := range rows {
		rows[i] = map[string]any{"content": "row"}
	}
	msg = callError(t, cs, "remember", map[string]any{"rows": rows})
	if !strings.Contains(msg, "at most 1000 rows per call") || strings.Contains(msg, "nodes") || strings.Contains(msg, "push") {
		t.Errorf("oversized batch error = %q, want at most 1000 rows per call", msg)
	}
}
