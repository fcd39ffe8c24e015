package memory

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCheckHelpers(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		field, msg string
	}{
		{"text ok", CheckText("content", "Lives in Lisbon\n"), "", ""},
		{"text NUL", CheckText("content", "a\x00"), "content", "NUL"},
		{"text UTF-8", CheckText("q", "caf\xe9"), "q", "not valid UTF-8"},
		{"json ok", CheckJSON("metadata", map[string]any{"a": []any{1.0, "b"}}), "", ""},
		{"json nil map", CheckJSON("metadata", map[string]any(nil)), "", ""},
		{"json nested", CheckJSON("metadata", map[string]any{"a": []any{"x", "\x00"}}), "metadata.a[1]", "NUL"},
		{"json key", CheckJSON("properties", map[string]any{"k\x01": 1.0}), "properties", `the key "k\x01"`},
		{"json size", CheckJSON("metadata", map[string]any{"a": strings.Repeat("x", MaxJSONSize)}), "metadata", "larger than 65536 bytes"},
		{"params ok", CheckParams(map[string][]string{"q": {"x"}, "entity": {""}}), "", ""},
		{"params value", CheckParams(map[string][]string{"a": {"ok"}, "q": {"ok", "\x00"}}), "q", "NUL"},
		{"params name", CheckParams(map[string][]string{"q\xff": {"x"}}), "", "a parameter name is not valid UTF-8"},
		{"document", CheckDocument([]byte("{\"a\": {\"b\": \"\xff\"}}")), "a.b", "not valid UTF-8"},
		{"fields", CheckFields(struct {
			Rows []struct {
				Content string `json:"content"`
			} `json:"rows"`
		}{Rows: []struct {
			Content string `json:"content"`
		}{{"ok"}, {"\x1b"}}}), "rows[1].content", "U+001B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.msg == "" {
				if tt.err != nil {
					t.Fatalf("error = %v, want nil", tt.err)
				}
				return
			}
			var e *Error
			if !errors.As(tt.err, &e) || e.Code != CodeInvalid || e.Field != tt.field || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("error = %#v, want CodeInvalid on %q containing %q", tt.err, tt.field, tt.msg)
			}
		})
	}
}

// deepJSON is n levels of objects around a string.
func deepJSON(n int) map[string]any {
	v := map[string]any{"leaf": "x"}
	for i := 1; i < n; i++ {
		v = map[string]any{"a": v}
	}
	return v
}

// TestWritesRefuseUnstorableText is the engine's last line of defence: every
// write refuses text PostgreSQL cannot store (or that has no place in a
// memory) with CodeInvalid naming the field, and writes nothing, whatever
// edge it came through.
func TestWritesRefuseUnstorableText(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	f := fx.create(t, reviewer, NewFact{Scope: "s", Entity: "ann", Key: "lives_in", Content: "Lisbon"})
	d, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "s", Entity: "proj", Key: "db", Decision: "PostgreSQL",
		Reasoning: "it is what we know"})
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]int{}
	tables := []string{"memory_nodes", "entity_facts", "decisions", "entities", "audit_log"}
	for _, table := range tables {
		before[table] = fx.count(t, "SELECT count(*) FROM "+table)
	}
	bad := "bad\x00text"
	tests := []struct {
		name, field, msg string
		call             func() error
	}{
		{"push content", "content", "NUL", func() error {
			_, err := fx.s.Push(ctx, bot, "s", []NewNode{{Content: bad}})
			return err
		}},
		{"push content invalid UTF-8", "nodes[1].content", "UTF-8", func() error {
			_, err := fx.s.Push(ctx, bot, "s", []NewNode{{Content: "ok"}, {Content: "caf\xe9"}})
			return err
		}},
		{"push metadata key", "metadata", "the key", func() error {
			_, err := fx.s.Push(ctx, bot, "s", []NewNode{{Content: "a", Metadata: map[string]any{"k\x00": "v"}}})
			return err
		}},
		{"push metadata depth", "metadata", "nested more than 32 levels", func() error {
			_, err := fx.s.Push(ctx, bot, "s", []NewNode{{Content: "a", Metadata: deepJSON(33)}})
			return err
		}},
		{"push properties size", "properties", "larger than", func() error {
			_, err := fx.s.Push(ctx, bot, "s", []NewNode{{Content: "a", Properties: map[string]any{"note": strings.Repeat("é", 40000)}}})
			return err
		}},
		{"set markers reason", "reason", "NUL", func() error {
			_, err := fx.s.SetMarkers(ctx, reviewer, "", []int64{1}, "durable", bad)
			return err
		}},
		{"fact entity", "entity", "NUL", func() error {
			_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "s", Entity: bad, Content: "x"})
			return err
		}},
		{"fact content", "content", "control character U+0007", func() error {
			_, _, err := fx.s.CreateFact(ctx, bot, NewFact{Scope: "s", Entity: "ann", Content: "ring\a"})
			return err
		}},
		{"fact edit", "content", "NUL", func() error {
			_, err := fx.s.UpdateFact(ctx, reviewer, f.ID, f.Version, FactChanges{Content: &bad}, "")
			return err
		}},
		{"fact edit reason", "reason", "NUL", func() error {
			c := "Porto"
			_, err := fx.s.UpdateFact(ctx, reviewer, f.ID, f.Version, FactChanges{Content: &c}, bad)
			return err
		}},
		{"archive reason", "reason", "NUL", func() error {
			_, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{f.ID}, bad)
			return err
		}},
		{"decision reasoning", "reasoning", "NUL", func() error {
			_, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "s", Entity: "p", Key: "k", Decision: "x", Reasoning: bad})
			return err
		}},
		{"decision alternative", "alternatives[1]", "UTF-8", func() error {
			_, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "s", Entity: "p", Key: "k", Decision: "x", Reasoning: "r",
				Alternatives: []string{"a", "\xff"}})
			return err
		}},
		{"decision decided_by", "decided_by", "NUL", func() error {
			_, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "s", Entity: "p", Key: "k", Decision: "x", Reasoning: "r", DecidedBy: bad})
			return err
		}},
		{"decision edit", "decision", "NUL", func() error {
			_, err := fx.s.EditDecision(ctx, reviewer, d.ID, d.Version, DecisionChanges{Decision: &bad}, "")
			return err
		}},
		{"decision reopen", "reason", "NUL", func() error {
			_, err := fx.s.ReopenDecision(ctx, reviewer, d.ID, bad)
			return err
		}},
		{"decision list", "q", "NUL", func() error {
			_, err := fx.s.ListDecisions(ctx, DecisionFilter{Query: bad})
			return err
		}},
		{"decision list entity", "entity", "UTF-8", func() error {
			_, err := fx.s.ListDecisions(ctx, DecisionFilter{Entity: "\xff"})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalid || e.Field != tt.field || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("error = %#v, want CodeInvalid on %q containing %q", err, tt.field, tt.msg)
			}
		})
	}

	t.Run("import", func(t *testing.T) {
		lines := []ImportLine{
			{Line: 1, Fact: TransferFact{Scope: "s", Entity: "ann", Content: "ok", Durability: "long_term", Category: "observation"}},
			{Line: 2, Fact: TransferFact{Scope: "s", Entity: "ann", Content: bad, Durability: "long_term", Category: "observation"}},
			{Line: 3, Fact: TransferFact{Scope: "s", Entity: "p", Key: "k", Content: "x", Durability: "permanent", Category: "decision",
				Decision: &TransferDecision{Decision: "x", Reasoning: "r", Alternatives: []string{"\x00"}}}},
		}
		_, err := fx.s.Import(ctx, reviewer, lines, ImportOptions{})
		ie := AsError(err)
		if ie == nil || len(ie.Problems) != 2 {
			t.Fatalf("Import = %v, want a refusal with two problems", err)
		}
		for i, want := range []ImportProblem{{Line: 2, Field: "content"}, {Line: 3, Field: "decision.alternatives[0]"}} {
			if p := ie.Problems[i]; p.Line != want.Line || p.Field != want.Field || !strings.Contains(p.Message, "NUL") {
				t.Errorf("problem %d = %+v, want line %d, field %s, NUL named", i, p, want.Line, want.Field)
			}
		}
	})

	for _, table := range tables {
		if n := fx.count(t, "SELECT count(*) FROM "+table); n != before[table] {
			t.Errorf("%s holds %d rows after the refused writes, want %d", table, n, before[table])
		}
	}
}
