package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
)

// rpcCall posts one JSON-RPC tools/call with arguments sent byte for byte
// as given, so that they may hold what a JSON encoder would never write, and
// returns the HTTP status and the decoded response.
func rpcCall(t *testing.T, f *mcpFixture, token, tool, arguments string) (int, map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + arguments + `}}`
	req, err := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &out) != nil {
		t.Fatalf("response %q is not JSON", raw)
	}
	return resp.StatusCode, out
}

// TestToolArgumentsRefuseUnstorableText sends every tool a NUL, bytes that
// are not UTF-8, control characters and oversized metadata: each call is a
// tool error naming the argument, as for any invalid argument, and nothing
// is written.
func TestToolArgumentsRefuseUnstorableText(t *testing.T) {
	f := newMCPFixture(t)
	tok := f.token(t, "agent", "acme", auth.TokenWriter)
	deep := strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200)
	tests := []struct {
		name, tool, args, field string
	}{
		{"remember NUL", "remember", `{"content": "a\u0000b"}`, "content"},
		{"remember invalid UTF-8", "remember", "{\"content\": \"caf\xe9\"}", "content"},
		{"remember control", "remember", `{"content": "\u001b[2J"}`, "content"},
		{"remember batch", "remember", `{"rows": [{"content": "ok"}, {"content": "\u0000"}]}`, "rows[1].content"},
		{"remember metadata key", "remember", `{"content": "x", "metadata": {"k\u0000": 1}}`, "metadata"},
		{"remember metadata key not UTF-8", "remember", "{\"content\": \"x\", \"metadata\": {\"k\xff\": 1}}", "metadata"},
		{"remember properties deep", "remember", `{"content": "x", "properties": {"a": ` + deep + `}}`, "properties"},
		{"remember metadata large", "remember", `{"content": "x", "metadata": {"a": "` + strings.Repeat("x", 70000) + `"}}`, "metadata"},
		{"recall query", "recall", `{"query": "\u0000"}`, "query"},
		{"recall entity", "recall", "{\"entity\": \"\xff\"}", "entity"},
		{"context entity", "context", `{"entity": "a\u0000"}`, "entity"},
		{"record_decision reasoning", "record_decision", `{"entity": "p", "key": "k", "decision": "d", "reasoning": "\u0000"}`, "reasoning"},
		{"record_decision alternatives", "record_decision", `{"entity": "p", "key": "k", "decision": "d", "reasoning": "r", "alternatives": ["\u0007"]}`, "alternatives[0]"},
		{"list_decisions query", "list_decisions", `{"query": "%\u0000"}`, "query"},
		{"set_durability", "set_durability", `{"node_id": 1, "durability": "durable\u0000"}`, "durability"},
		{"extract", "extract", `{"text": "I hate mornings\u0000", "store": true}`, "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := rpcCall(t, f, tok, tt.tool, tt.args)
			if status != http.StatusOK {
				t.Fatalf("status = %d, want 200 with a tool error; response %v", status, out)
			}
			res, _ := out["result"].(map[string]any)
			if res == nil || res["isError"] != true {
				t.Fatalf("response = %v, want a tool error", out)
			}
			text, _ := json.Marshal(res["content"])
			if !strings.Contains(string(text), tt.field+":") {
				t.Errorf("tool error %s does not name %s", text, tt.field)
			}
			if strings.Contains(string(text), "failed inside Tenure") {
				t.Errorf("tool error %s reads as a failure of Tenure", text)
			}
		})
	}
	for _, table := range []string{"memory_nodes", "entity_facts", "decisions"} {
		if n := f.count(t, "SELECT count(*) FROM "+table); n != 0 {
			t.Errorf("%s holds %d rows after refused calls, want none", table, n)
		}
	}
}
