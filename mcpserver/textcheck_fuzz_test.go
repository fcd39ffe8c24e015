package mcpserver

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/internal/textcheck"
	"github.com/tenurehq/tenure/memory"
)

// FuzzCheckArguments drives the check every tool call passes before its
// handler runs with any arguments, raw as they come over the wire and
// decoded into each tool's input: it never panics, a refusal is CodeInvalid
// naming the argument, and arguments it lets through are UTF-8 and hold only
// clean text, metadata and properties within their depth and size.
func FuzzCheckArguments(f *testing.F) {
	for _, seed := range []string{
		`{"content": "Lives in Lisbon", "metadata": {"tags": ["a"]}}`,
		`{"rows": [{"content": "ok"}, {"content": "\u0000"}]}`,
		"{\"content\": \"caf\xe9\"}",
		"{\"metadata\": {\"k\xff\": 1}}",
		`{"query": "\u001b[2J", "entity": "ann"}`,
		`{"entity": "p", "key": "k", "decision": "d", "reasoning": "r", "alternatives": ["\u0007"]}`,
		`{"properties": {"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}`,
		`{"text": "I hate mornings", "store": true}`,
	} {
		for i := range inputTypes() {
			f.Add([]byte(seed), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, args []byte, target uint8) {
		types := inputTypes()
		in := types[int(target)%len(types)]()
		if json.Unmarshal(args, in) != nil {
			return // the SDK refuses what does not decode before any handler runs
		}
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: args}}
		err := checkArguments(req, in)
		if err != nil {
			var me *memory.Error
			if !errors.As(err, &me) || me.Code != memory.CodeInvalid || me.Message == "" {
				t.Fatalf("checkArguments(%q) = %#v, want a CodeInvalid *memory.Error", args, err)
			}
			return
		}
		if !utf8.Valid(args) {
			t.Fatalf("checkArguments let invalid UTF-8 through: %q", args)
		}
		if err := textcheck.Struct(in); err != nil {
			t.Fatalf("checkArguments let unclean text through in %q: %v", args, err)
		}
	})
}

// inputTypes are the tools' argument types.
func inputTypes() []func() any {
	return []func() any{
		func() any { return new(rememberInput) },
		func() any { return new(recallInput) },
		func() any { return new(contextInput) },
		func() any { return new(recordDecisionInput) },
		func() any { return new(setDurabilityInput) },
		func() any { return new(listDecisionsInput) },
		func() any { return new(extractInput) },
	}
}
