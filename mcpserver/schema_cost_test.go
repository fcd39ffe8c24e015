package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/tenurehq/tenure/auth"
)

// maxSchemaTokens is what the input schemas of the tools a writer lists
// may cost together, in tokens of cl100k_base: every agent pays it on
// every session, whether or not it calls a tool.
const maxSchemaTokens = 3000

// TestToolSchemasCost counts, with a real tokenizer (cl100k_base, whose
// BPE ranks the loader embeds: nothing is downloaded), the tokens of the
// input schemas a writer's tools/list carries, as sent, and holds them to
// maxSchemaTokens. It logs each tool's cost: the input schema, the tool as
// a model is given it (name, description and input schema), and the whole
// tools/list result, output schemas included.
func TestToolSchemasCost(t *testing.T) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatalf("tokenizer: %v", err)
	}
	count := func(v any) int {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return len(enc.Encode(string(raw), nil, nil))
	}

	f := newMCPFixture(t)
	cs := desktopAgent(t, f.url, f.token(t, "agent", "acme", auth.TokenWriter))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	slices.SortFunc(res.Tools, func(a, b *mcp.Tool) int { return count(b.InputSchema) - count(a.InputSchema) })
	var schemas, given int
	for _, tool := range res.Tools {
		s := count(tool.InputSchema)
		g := count(map[string]any{"name": tool.Name, "description": tool.Description, "input_schema": tool.InputSchema})
		schemas += s
		given += g
		t.Logf("%-16s input schema %5d tokens; as given to a model %5d", tool.Name, s, g)
	}
	t.Logf("writer: input schemas %d tokens; tools as given to a model %d; whole tools/list result %d",
		schemas, given, count(res))
	if schemas > maxSchemaTokens {
		t.Errorf("a writer's tool input schemas cost %d tokens, want at most %d", schemas, maxSchemaTokens)
	}
}
