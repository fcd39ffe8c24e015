package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/memory"
)

// Bounds the engine enforces but does not export; the tests check each
// against the engine's refusals so that they cannot drift.
const (
	maxRecallLimit    = 100   // memory's maxRecallLimit
	maxDecisionsLimit = 500   // memory's maxDecisionsPage
	maxContentLength  = 10000 // memory's limit on a row's content
)

// toolExamples are the arguments of one realistic call of each tool, listed
// in its input schema (examples). A test validates each against the schema
// and makes the call.
var toolExamples = map[string]map[string]any{
	toolRemember: {"rows": []any{
		map[string]any{"content": "Ann prefers tea over coffee.",
			"properties": map[string]any{"entity": "Ann", "key": "drink", "category": "preference"}},
		map[string]any{"content": "Ann is on a call until noon.", "durability": "transient",
			"properties": map[string]any{"entity": "Ann"}},
	}},
	toolRecall:  {"query": "tea", "entity": "Ann", "limit": 5},
	toolContext: {"budget": 2000},
	toolRecordDecision: {"entity": "checkout-service", "key": "database", "decision": "Use PostgreSQL.",
		"reasoning":    "The team already runs it and orders and payments need one transaction.",
		"alternatives": []any{"MongoDB", "DynamoDB"}},
	toolSetDurability: {"node_id": 42, "durability": "durable"},
	toolListDecisions: {"entity": "checkout-service", "state": "current", "limit": 10},
	toolExtract:       {"text": "I'm Ann. I moved to Hamburg in March and I prefer tea over coffee.", "entity": "Ann"},
}

// inputSchemas are the input schemas the tools are listed with: those the
// SDK infers from the input structs, with every closed vocabulary an enum
// and every number bounded, the values taken from the engine's own. The SDK
// validates arguments against the inferred schemas (types, required and
// unknown arguments); the engine checks the values and its refusals name the
// argument, the value and what is allowed, which a schema validator's do not.
func inputSchemas() (map[string]*jsonschema.Schema, error) {
	out := map[string]*jsonschema.Schema{}
	add := func(name string, s *jsonschema.Schema, err error, adjust func(s *jsonschema.Schema)) error {
		if err != nil {
			return fmt.Errorf("%s input schema: %w", name, err)
		}
		adjust(s)
		idempotencyKeySchema(s)
		s.Examples = []any{toolExamples[name]}
		out[name] = s
		return nil
	}
	markers := enumOf(memory.Markers())
	durabilities := enumOf(memory.Durabilities())

	s, err := jsonschema.For[rememberInput](nil)
	if err := add(toolRemember, s, err, func(s *jsonschema.Schema) {
		rowSchema(s, markers, durabilities)
		if rows := s.Properties["rows"]; rows != nil {
			rows.MinItems, rows.MaxItems = intp(1), intp(memory.MaxPushBatch)
			rows.Items = rowItems(s)
		}
		// nodes, the deprecated name of rows, is listed as rows is, by
		// reference, which costs a model a few tokens rather than a copy.
		if p := s.Properties["nodes"]; p != nil {
			s.Properties["nodes"] = &jsonschema.Schema{Ref: "#/properties/rows", Deprecated: true, Description: p.Description}
		}
	}); err != nil {
		return nil, err
	}

	s, err = jsonschema.For[recallInput](nil)
	if err := add(toolRecall, s, err, func(s *jsonschema.Schema) {
		setEnum(s, "durability", durabilities)
		deprecate(s, "q")
		setRange(s, "limit", 1, maxRecallLimit)
		for _, name := range []string{"since", "until"} {
			if p := s.Properties[name]; p != nil {
				p.Format = "date-time"
			}
		}
	}); err != nil {
		return nil, err
	}

	s, err = jsonschema.For[contextInput](nil)
	if err := add(toolContext, s, err, func(s *jsonschema.Schema) {
		setEnum(s, "format", []any{"text", "json"})
		setRange(s, "budget", memory.MinBriefBudget, memory.MaxBriefBudget)
		if p := s.Properties["since"]; p != nil {
			p.Format = "date-time"
		}
	}); err != nil {
		return nil, err
	}

	s, err = jsonschema.For[recordDecisionInput](nil)
	if err := add(toolRecordDecision, s, err, func(s *jsonschema.Schema) {
		if p := s.Properties["decided_at"]; p != nil {
			p.Format = "date-time"
		}
	}); err != nil {
		return nil, err
	}

	s, err = jsonschema.For[setDurabilityInput](nil)
	if err := add(toolSetDurability, s, err, func(s *jsonschema.Schema) {
		setEnum(s, "durability", markers)
		setMin(s, "node_id", 1)
	}); err != nil {
		return nil, err
	}

	s, err = jsonschema.For[listDecisionsInput](nil)
	if err := add(toolListDecisions, s, err, func(s *jsonschema.Schema) {
		setEnum(s, "state", enumOf(memory.DecisionFilterStates))
		setRange(s, "limit", 1, maxDecisionsLimit)
		setMin(s, "before_id", 0)
		deprecate(s, "before_id", "q")
		if p := s.Properties["cursor"]; p != nil {
			p.Pattern = "^[1-9][0-9]{0,18}$"
		}
	}); err != nil {
		return nil, err
	}

	s, err = jsonschema.For[extractInput](nil)
	if err := add(toolExtract, s, err, func(s *jsonschema.Schema) {
		setEnum(s, "mode", []any{extract.ModeRules, extract.ModeLLM})
		if p := s.Properties["text"]; p != nil {
			p.MaxLength = intp(maxExtractText)
		}
		if p := s.Properties["entity"]; p != nil {
			p.MaxLength = intp(maxEntityNameLength)
		}
		if p := s.Properties["observed_at"]; p != nil {
			p.Format = "date-time"
		}
	}); err != nil {
		return nil, err
	}
	if err := factSchemas(out); err != nil {
		return nil, err
	}
	for _, s := range out {
		notNull(s)
	}
	return out, nil
}

// rowSchema bounds the fields of one working row (remember's single row, or
// an item of rows) and describes the properties consolidation reads.
func rowSchema(s *jsonschema.Schema, markers, durabilities []any) {
	setEnum(s, "durability", markers)
	setRange(s, "importance", 0.0, 1.0)
	setRange(s, "ttl_seconds", memory.TTLBound.Min(), memory.TTLBound.Max())
	if p := s.Properties["content"]; p != nil {
		p.MaxLength = intp(maxContentLength)
	}
	if p := s.Properties["observed_at"]; p != nil {
		p.Format = "date-time"
	}
	p := s.Properties["properties"]
	if p == nil {
		return
	}
	if p.Properties == nil {
		p.Properties = map[string]*jsonschema.Schema{}
	}
	p.Properties["entity"] = &jsonschema.Schema{Type: "string", Description: "who or what the fact is about"}
	p.Properties["key"] = &jsonschema.Schema{Type: "string", Description: "the attribute the fact sets, a short slug such as lives_in"}
	p.Properties["category"] = &jsonschema.Schema{Type: "string", Description: "observation, preference, identity, mood, decision, routine, state, obligation, ..."}
	p.Properties["fact_durability"] = &jsonschema.Schema{Type: "string", Enum: durabilities,
		Description: "how long the fact persists (not the row's marker)"}
	p.Properties["confidence"] = &jsonschema.Schema{Type: "number", Minimum: floatp(0), Maximum: floatp(1),
		Description: "how sure the fact is: 0, or from 0.001 to 1"}
	p.Properties["deadline"] = &jsonschema.Schema{Type: "string", Format: "date-time",
		Description: "when an obligation is due, from 1970 to 9000"}
}

// rowFields are the fields of one working row, as remember takes them at
// its top level and in each item of rows.
var rowFields = jsonFields(reflect.TypeFor[rememberRow]())

// rowItems is the schema of an item of remember's rows: the same fields as
// the single row at the top level of s, each a $ref to it rather than a
// copy (a copy doubles what the schema costs a model to read), and content
// required.
func rowItems(s *jsonschema.Schema) *jsonschema.Schema {
	items := &jsonschema.Schema{Type: "object", Required: []string{"content"},
		Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: falseSchema()}
	for _, name := range rowFields {
		if _, ok := s.Properties[name]; ok {
			items.Properties[name] = &jsonschema.Schema{Ref: "#/properties/" + name}
		}
	}
	return items
}

// jsonFields are the JSON names of the fields of struct type t.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// deprecate marks the properties names of s deprecated: former names of
// arguments, still accepted, as the API accepts them.
func deprecate(s *jsonschema.Schema, names ...string) {
	for _, name := range names {
		if p := s.Properties[name]; p != nil {
			p.Deprecated = true
		}
	}
}

func falseSchema() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }

// notNull lists the type of every property of s that the SDK infers as
// nullable (a Go pointer: ["null", "number"]) as the type alone: null only
// means the argument is absent, which leaving it out says in fewer words.
func notNull(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
		notNull(p)
	}
}

// setEnum makes property name of s one of values.
func setEnum(s *jsonschema.Schema, name string, values []any) {
	if p := s.Properties[name]; p != nil {
		p.Enum = values
	}
}

// setRange bounds the number property name of s to [lo, hi].
func setRange[N int | int64 | float64](s *jsonschema.Schema, name string, lo, hi N) {
	if p := s.Properties[name]; p != nil {
		p.Minimum, p.Maximum = floatp(float64(lo)), floatp(float64(hi))
	}
}

// setMin bounds the number property name of s from below.
func setMin(s *jsonschema.Schema, name string, lo float64) {
	if p := s.Properties[name]; p != nil {
		p.Minimum = floatp(lo)
	}
}

func enumOf[T ~string](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

func intp(n int) *int           { return &n }
func floatp(f float64) *float64 { return &f }

// advertise lists each tool with its bounded input schema (inputSchemas),
// leaving the server's own tools untouched.
func advertise(schemas map[string]*jsonschema.Schema) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			list, ok := res.(*mcp.ListToolsResult)
			if err != nil || !ok || list == nil {
				return res, err
			}
			copied := *list
			copied.Tools = make([]*mcp.Tool, len(list.Tools))
			for i, tool := range list.Tools {
				if s, ok := schemas[tool.Name]; ok && tool != nil {
					c := *tool
					c.InputSchema = s
					tool = &c
				}
				copied.Tools[i] = tool
			}
			return &copied, nil
		}
	}
}

// ToolSchemas returns the input schema each tool is listed with, by tool
// name (for a writer token: every tool).
func ToolSchemas() map[string]*jsonschema.Schema {
	out := make(map[string]*jsonschema.Schema, len(listedSchemas()))
	for name, s := range listedSchemas() {
		out[name] = s.CloneSchemas()
	}
	return out
}

// listedSchemas are inputSchemas, built once; they derive from static types
// and the engine's constants, so an error is a programming error.
var listedSchemas = sync.OnceValue(func() map[string]*jsonschema.Schema {
	s, err := inputSchemas()
	if err != nil {
		panic(err)
	}
	return s
})

// boundNumbers refuses a tool call whose arguments hold a number outside its
// bound (memory.CheckNumbers), before the SDK decodes them into the tool's
// input: a number the input's Go type cannot hold (a ttl_seconds of
// 2147483648, an importance of 1e400) is then refused with the engine's own
// sentence, naming the argument, as one the type holds is refused by the
// engine, not with the SDK's schema validation message.
func (t *tools) boundNumbers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil || len(call.Params.Arguments) == 0 {
			return next(ctx, method, req)
		}
		dec := json.NewDecoder(bytes.NewReader(call.Params.Arguments))
		dec.UseNumber()
		var args any
		if dec.Decode(&args) != nil {
			return next(ctx, method, req) // the SDK says what is wrong
		}
		err := memory.CheckNumbers(args)
		if err == nil {
			return next(ctx, method, req)
		}
		c, cerr := callerOf(call)
		if cerr != nil {
			return nil, cerr
		}
		err = t.toolError(call.Params.Name, c, err)
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
}

// requireArguments refuses a call that leaves out an argument its listed
// schema requires, at the top level or in an item of an array argument
// (rows[2].content), with the server's sentence naming the argument as
// sent, before the SDK's schema validation refuses it in its own words. A
// reader's call of a write tool is left to refuseWrites.
func (t *tools) requireArguments(reader bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params == nil || (reader && writeTools[call.Params.Name]) {
				return next(ctx, method, req)
			}
			s := listedSchemas()[call.Params.Name]
			var args map[string]any
			if s == nil || (len(call.Params.Arguments) > 0 && json.Unmarshal(call.Params.Arguments, &args) != nil) {
				return next(ctx, method, req) // the SDK says what is wrong
			}
			err := missingArgument(s, args)
			if err == nil {
				return next(ctx, method, req)
			}
			c, cerr := callerOf(call)
			if cerr != nil {
				return nil, cerr
			}
			err = t.toolError(call.Params.Name, c, err)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
	}
}

// missingArgument refuses the first argument that root requires and args
// leave out: a required property of root, or of an item of one of its
// array properties.
func missingArgument(root *jsonschema.Schema, args map[string]any) error {
	check := func(s *jsonschema.Schema, obj map[string]any, prefix string) error {
		for _, name := range s.Required {
			if _, ok := obj[name]; !ok {
				return memory.Invalidf(prefix+name, "%s is required: %s", name, describe(root, s.Properties[name]))
			}
		}
		return nil
	}
	if err := check(root, args, ""); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(root.Properties)) {
		p := root.Properties[name]
		list, ok := args[name].([]any)
		if !ok || p.Items == nil || len(p.Items.Required) == 0 {
			continue
		}
		for i, v := range list {
			if obj, ok := v.(map[string]any); ok {
				if err := check(p.Items, obj, fmt.Sprintf("%s[%d].", name, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// describe is the description of property p of root, following a $ref to
// a property of root.
func describe(root, p *jsonschema.Schema) string {
	if p != nil && strings.HasPrefix(p.Ref, "#/properties/") {
		p = root.Properties[strings.TrimPrefix(p.Ref, "#/properties/")]
	}
	if p == nil {
		return "see the tool's input schema"
	}
	return p.Description
}
