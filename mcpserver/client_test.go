package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/mcpserver"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// hints are a tool's annotations as a client reads them.
type hints struct {
	readOnly, destructive, idempotent, openWorld bool
}

// wantHints are the annotations of every tool on a server without an LLM
// endpoint, for a writer token.
var wantHints = map[string]hints{
	"remember":        {readOnly: false, destructive: false, idempotent: false, openWorld: false},
	"recall":          {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	"context":         {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	"record_decision": {readOnly: false, destructive: false, idempotent: false, openWorld: false},
	"set_durability":  {readOnly: false, destructive: true, idempotent: true, openWorld: false},
	"list_decisions":  {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	"extract":         {readOnly: false, destructive: false, idempotent: false, openWorld: false},
	"correct":         {readOnly: false, destructive: true, idempotent: true, openWorld: false},
	"forget":          {readOnly: false, destructive: true, idempotent: true, openWorld: false},
}

// desktopAgent connects to url the way a desktop agent does: the SDK's own
// client over streamable HTTP, its HTTP client adding the bearer token.
func desktopAgent(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "desktop-agent", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listTools lists the tools of cs by name, checking that each input schema
// is an object with documented properties.
func listTools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatalf("%s input schema %s: %v", tool.Name, raw, err)
		}
		if schema.Type != "object" || len(schema.Properties) == 0 {
			t.Errorf("%s input schema = %s, want an object with properties", tool.Name, raw)
		}
	}
	return tools
}

func names(tools map[string]*mcp.Tool) []string {
	var out []string
	for name := range tools {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// checkHints compares a tool's annotations with want; the pointer hints
// must be set, since their defaults (destructive, open world) are the
// pessimistic ones.
func checkHints(t *testing.T, tool *mcp.Tool, want hints) {
	t.Helper()
	a := tool.Annotations
	if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
		t.Errorf("%s annotations = %+v, want every hint set", tool.Name, a)
		return
	}
	got := hints{readOnly: a.ReadOnlyHint, destructive: *a.DestructiveHint, idempotent: a.IdempotentHint, openWorld: *a.OpenWorldHint}
	if got != want {
		t.Errorf("%s hints = %+v, want %+v", tool.Name, got, want)
	}
	if a.Title == "" {
		t.Errorf("%s annotations have no title", tool.Name)
	}
}

// TestDesktopAgent drives /mcp as a desktop agent would: initialize, list
// the tools (a reader sees only those it may call), remember, recall.
func TestDesktopAgent(t *testing.T) {
	f := newMCPFixture(t)
	writer := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenWriter))
	reader := desktopAgent(t, f.url, f.token(t, "dashboard", "acme", auth.TokenReader))

	if init := writer.InitializeResult(); init.ServerInfo.Name != "tenure" || !strings.Contains(init.Instructions, "remember") {
		t.Errorf("writer initialize = %+v, want server tenure with instructions naming remember", init)
	}
	if init := reader.InitializeResult(); !strings.Contains(init.Instructions, "reader token") || strings.Contains(init.Instructions, "remember") {
		t.Errorf("reader instructions = %q, want them to say it only reads", init.Instructions)
	}

	tools := listTools(t, writer)
	if got, want := names(tools), []string{"context", "correct", "extract", "forget", "list_decisions", "recall", "record_decision", "remember", "set_durability"}; !slices.Equal(got, want) {
		t.Errorf("writer tools = %v, want %v", got, want)
	}
	for name, tool := range tools {
		checkHints(t, tool, wantHints[name])
	}
	if d := tools["extract"].Description; !strings.Contains(d, "no LLM endpoint") {
		t.Errorf("extract description = %q, want it to say the server has no LLM endpoint", d)
	}

	readerTools := listTools(t, reader)
	if got, want := names(readerTools), []string{"context", "extract", "list_decisions", "recall"}; !slices.Equal(got, want) {
		t.Errorf("reader tools = %v, want %v", got, want)
	}
	for name, tool := range readerTools {
		want := wantHints[name]
		if name == "extract" {
			want.readOnly = true // a reader may not store
		}
		checkHints(t, tool, want)
	}

	var remembered wire.Push
	call(t, writer, "remember", map[string]any{
		"content":    "Ann lives in Berlin",
		"properties": map[string]any{"entity": "Ann", "key": "lives_in", "category": "observation"},
	}, &remembered)
	if len(remembered.IDs) != 1 {
		t.Fatalf("remember = %+v, want one row", remembered)
	}
	if _, err := f.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	for _, cs := range []*mcp.ClientSession{writer, reader} {
		var out recallOut
		call(t, cs, "recall", map[string]any{"query": "berlin"}, &out)
		if len(out.Results) != 1 || out.Results[0].Fact.Content != "Ann lives in Berlin" {
			t.Errorf("recall(berlin) = %+v, want the remembered fact", out.Results)
		}
	}

	// A reader calling a write tool it was not shown is refused by name,
	// as a tool error the agent can read.
	for _, name := range []string{"remember", "record_decision", "set_durability"} {
		msg := callError(t, reader, name, map[string]any{"content": "Ann moved to Munich"})
		if want := `token "dashboard" is a reader token: it may call recall, context, list_decisions and extract (without store), not ` + name; !strings.Contains(msg, want) {
			t.Errorf("%s by a reader: error = %q, want %q", name, msg, want)
		}
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 1 {
		t.Errorf("memory rows = %d, want only the writer's", n)
	}
}

// TestExtractOpenWorldWithLLM checks that extract says it reaches outside
// Tenure when the server has an LLM endpoint.
func TestExtractOpenWorldWithLLM(t *testing.T) {
	set, err := extract.NewSet(extract.Config{URL: "http://127.0.0.1:1/v1", Model: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f := newMCPFixture(t, mcpserver.WithExtractors(set))
	for _, role := range []string{auth.TokenWriter, auth.TokenReader} {
		tools := listTools(t, desktopAgent(t, f.url, f.token(t, "agent-"+role, "acme", role)))
		tool := tools["extract"]
		if tool == nil {
			t.Fatalf("%s: no extract tool", role)
		}
		want := wantHints["extract"]
		want.openWorld = true
		want.readOnly = role == auth.TokenReader
		checkHints(t, tool, want)
		if !strings.Contains(tool.Description, "mode llm sends the text to the LLM endpoint") {
			t.Errorf("%s: extract description = %q, want it to say mode llm calls the endpoint", role, tool.Description)
		}
	}
}

// TestToolExamples: every tool lists one example call in its input schema;
// the example is valid against that schema, and made as it stands (with a
// row id that exists) it succeeds.
func TestToolExamples(t *testing.T) {
	f := newMCPFixture(t)
	cs := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenWriter))
	tools := listTools(t, cs)
	var node int64
	for _, name := range []string{"remember", "set_durability", "record_decision", "list_decisions", "recall", "context", "extract"} {
		tool, ok := tools[name]
		if !ok {
			t.Fatalf("tool %s is not listed", name)
		}
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema jsonschema.Schema
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		// What tools/list shows is what ToolSchemas gives (the schemas the
		// contract tests hold to the OpenAPI document).
		want, err := json.Marshal(mcpserver.ToolSchemas()[name])
		if err != nil {
			t.Fatal(err)
		}
		var listed, given any
		if json.Unmarshal(raw, &listed) != nil || json.Unmarshal(want, &given) != nil || !reflect.DeepEqual(listed, given) {
			t.Errorf("%s listed schema differs from ToolSchemas:\n%s\nwant\n%s", name, raw, want)
		}
		if len(schema.Examples) != 1 {
			t.Errorf("%s lists %d examples, want one", name, len(schema.Examples))
			continue
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s schema: %v", name, err)
		}
		example, ok := schema.Examples[0].(map[string]any)
		if !ok {
			t.Fatalf("%s example is %T, want an object", name, schema.Examples[0])
		}
		if err := resolved.Validate(example); err != nil {
			t.Errorf("%s example %v is not valid against its schema: %v", name, example, err)
		}
		if name == "set_durability" {
			example["node_id"] = node
		}
		var out struct {
			IDs []int64 `json:"ids"`
		}
		call(t, cs, name, example, &out)
		if name == "remember" {
			if len(out.IDs) == 0 {
				t.Fatalf("remember's example wrote no row")
			}
			node = out.IDs[1]
		}
	}
}
