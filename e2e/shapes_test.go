package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
)

// TestOneShapePerConcept asks the same thing of the REST API and of the MCP
// server and compares the answers: a decision, a page of decisions, a push's
// answer, a recall, a brief, an extraction, a working row whose marker was
// set, a corrected and a forgotten fact are the same JSON objects on both
// surfaces (the MCP tool's structured content). Where both read the same
// state the objects must be equal, but for the instant they were read; where
// each wrote its own rows, they must have the same keys, nested alike.
func TestOneShapePerConcept(t *testing.T) {
	srv, pool := robustServer(t, io.Discard)
	const scope = "shapes"
	token := robustToken(t, pool, scope, "shape-writer", auth.TokenWriter)
	s := &surfaces{t: t, base: srv.URL, token: token, scope: scope}

	// Writes, one on each surface: the answers have one shape.
	row := map[string]any{"content": "Ann lives in Berlin.", "properties": map[string]any{"entity": "Ann", "key": "home_city"}}
	restPush := s.rest(http.MethodPost, "/nodes", map[string]any{"rows": []any{row}}, http.StatusCreated)
	mcpPush := s.mcp("remember", map[string]any{"rows": []any{row}})
	sameShape(t, "push", restPush, mcpPush)

	decision := map[string]any{"entity": "backend", "key": "database", "decision": "Use PostgreSQL.",
		"reasoning": "The team already runs it.", "alternatives": []any{"MySQL"}, "do_not_reopen": false}
	restDecision := s.rest(http.MethodPost, "/decisions", decision, http.StatusCreated)
	decision["key"] = "queue"
	mcpDecision := s.mcp("record_decision", decision)
	sameShape(t, "decision", restDecision, mcpDecision)
	if restDecision["state"] != "open" || mcpDecision["state"] != "open" {
		t.Errorf("a decision recorded without a lock: states %v and %v, want open", restDecision["state"], mcpDecision["state"])
	}

	locked := s.rest(http.MethodPost, "/decisions", map[string]any{"entity": "backend", "key": "cache", "decision": "No cache in front of the API.",
		"reasoning": "Every read must see the latest write."}, http.StatusCreated)
	if locked["state"] != "locked" {
		t.Errorf("a decision recorded with the default lock: state %v, want locked", locked["state"])
	}

	// The rows become facts, so that reads have something to find.
	s.rest(http.MethodPost, "/facts", map[string]any{"entity": "Ann", "key": "drink", "content": "Ann drinks coffee every morning.",
		"durability": "long_term", "category": "preference"}, http.StatusCreated)
	s.rest(http.MethodPost, "/facts", map[string]any{"entity": "Ann", "key": "team", "content": "Ann works on the payments team.",
		"durability": "long_term", "category": "identity"}, http.StatusCreated)
	run := s.restAt(http.MethodPost, "/api/v1/consolidation/runs", nil, http.StatusCreated)
	if run["status"] != "succeeded" {
		t.Fatalf("consolidation: %v", run)
	}

	// Reads of the same state: equal objects.
	sameObject(t, "decisions page",
		s.rest(http.MethodGet, "/decisions?limit=1", nil, http.StatusOK),
		s.mcp("list_decisions", map[string]any{"limit": 1}))
	sameObject(t, "decisions by query (deprecated q on both)",
		s.rest(http.MethodGet, "/decisions?q=PostgreSQL", nil, http.StatusOK),
		s.mcp("list_decisions", map[string]any{"q": "PostgreSQL"}))
	sameObject(t, "open decisions",
		s.rest(http.MethodGet, "/decisions?state=open", nil, http.StatusOK),
		s.mcp("list_decisions", map[string]any{"state": "open"}))
	first := s.rest(http.MethodGet, "/decisions?limit=1", nil, http.StatusOK)
	cursor := first["next_cursor"].(string)
	sameObject(t, "second page by before_id (deprecated on both)",
		s.rest(http.MethodGet, "/decisions?limit=1&before_id="+cursor, nil, http.StatusOK),
		s.mcp("list_decisions", map[string]any{"limit": 1, "before_id": json.Number(cursor)}))
	sameObject(t, "recall",
		s.rest(http.MethodGet, "/recall?query=Where+does+Ann+live%3F", nil, http.StatusOK),
		s.mcp("recall", map[string]any{"query": "Where does Ann live?"}))
	sameObject(t, "recall (deprecated q on both)",
		s.rest(http.MethodGet, "/recall?q=coffee", nil, http.StatusOK),
		s.mcp("recall", map[string]any{"q": "coffee"}))
	sameObject(t, "brief",
		s.rest(http.MethodGet, "/context?format=json&budget=2000", nil, http.StatusOK),
		s.mcp("context", map[string]any{"format": "json", "budget": 2000}))
	sameObject(t, "brief asked as text (its structured content is the brief all the same)",
		s.rest(http.MethodGet, "/context?format=json", nil, http.StatusOK),
		s.mcp("context", map[string]any{}))
	text := "I'm Ann. I moved to Hamburg in March and I prefer tea over coffee."
	sameObject(t, "extraction",
		s.rest(http.MethodPost, "/extract", map[string]any{"text": text}, http.StatusOK),
		s.mcp("extract", map[string]any{"text": text}))
	sameShape(t, "stored extraction",
		s.rest(http.MethodPost, "/extract", map[string]any{"text": "Bo is on call this week.", "store": true}, http.StatusCreated),
		s.mcp("extract", map[string]any{"text": "Cy is on call this week.", "store": true}))

	// A working row's marker, set twice to the same value: the same row.
	pushed := s.rest(http.MethodPost, "/nodes", map[string]any{"content": "Syncing, ETA 30s", "durability": "transient"}, http.StatusCreated)
	node := int64(pushed["ids"].([]any)[0].(float64))
	sameObject(t, "working row",
		s.rest(http.MethodPost, fmt.Sprintf("/nodes/%d/durability", node), map[string]any{"durability": "expired"}, http.StatusOK),
		s.mcp("set_durability", map[string]any{"node_id": node, "durability": "expired"}))

	// A correction and a forgetting, one fact each: the fact's shape.
	var ids []int64
	for _, content := range []string{"Ann's desk is on floor 3.", "Ann's desk is on floor 4."} {
		w := s.rest(http.MethodPost, "/facts", map[string]any{"entity": "Ann", "key": "desk_" + content[len(content)-2:len(content)-1],
			"content": content, "durability": "long_term", "category": "observation"}, http.StatusCreated)
		ids = append(ids, int64(w["fact"].(map[string]any)["id"].(float64)))
	}
	restFact := s.rest(http.MethodGet, fmt.Sprintf("/facts/%d", ids[0]), nil, http.StatusOK)
	restCorrected := s.rest(http.MethodPatch, fmt.Sprintf("/facts/%d", ids[0]), map[string]any{
		"version": restFact["version"], "content": "Ann's desk is on floor 5.", "reason": "she moved"}, http.StatusOK)
	mcpCorrected := s.mcp("correct", map[string]any{"fact_id": ids[1], "content": "Ann's desk is on floor 6.", "reason": "she moved"})
	sameShape(t, "corrected fact", restCorrected, mcpCorrected)
	restForgot := s.rest(http.MethodPost, fmt.Sprintf("/facts/%d/forget", ids[0]), map[string]any{"reason": "she left"}, http.StatusOK)
	mcpForgot := s.mcp("forget", map[string]any{"fact_id": ids[1], "reason": "she left"})
	sameShape(t, "forgotten fact", restForgot, mcpForgot)
	for name, f := range map[string]map[string]any{"REST": restForgot, "MCP": mcpForgot} {
		if f["status"] != "archived" || f["archive_reason"] != "she left" {
			t.Errorf("%s forget: status %v, reason %v; want archived with the reason", name, f["status"], f["archive_reason"])
		}
	}

	// A reader may extract without store on both surfaces, and store on
	// neither.
	reader := robustToken(t, pool, scope, "shape-reader", auth.TokenReader)
	r := &surfaces{t: t, base: srv.URL, token: reader, scope: scope}
	sameObject(t, "reader's extraction",
		r.rest(http.MethodPost, "/extract", map[string]any{"text": text}, http.StatusOK),
		r.mcp("extract", map[string]any{"text": text}))
	r.rest(http.MethodPost, "/extract", map[string]any{"text": text, "store": true}, http.StatusForbidden)
	if msg := r.mcpError("extract", map[string]any{"text": text, "store": true}); !strings.Contains(msg, "reader token") {
		t.Errorf("a reader's extract with store over MCP: %q, want a reader-token refusal", msg)
	}
}

// surfaces calls both agent surfaces of one server with one token.
type surfaces struct {
	t                  *testing.T
	base, token, scope string
	nextRPC            int
}

// rest calls path under the token's scope and decodes the JSON answer,
// failing unless its status is want.
func (s *surfaces) rest(method, path string, body any, want int) map[string]any {
	s.t.Helper()
	return s.restAt(method, "/api/v1/scopes/"+s.scope+path, body, want)
}

func (s *surfaces) restAt(method, path string, body any, want int) map[string]any {
	s.t.Helper()
	status, raw := s.send(method, path, body)
	if status != want {
		s.t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, raw)
	}
	return decodeObject(s.t, raw)
}

// mcp calls tool and returns its structured content, failing on an error.
func (s *surfaces) mcp(tool string, args map[string]any) map[string]any {
	s.t.Helper()
	res := s.call(tool, args)
	if res.IsError {
		s.t.Fatalf("%s %v: %s", tool, args, res.text())
	}
	if res.StructuredContent == nil {
		s.t.Fatalf("%s: no structured content", tool)
	}
	return decodeObject(s.t, res.StructuredContent)
}

// mcpError calls tool and returns its error's text, failing on success.
func (s *surfaces) mcpError(tool string, args map[string]any) string {
	s.t.Helper()
	res := s.call(tool, args)
	if !res.IsError {
		s.t.Fatalf("%s %v: accepted, want an error", tool, args)
	}
	return res.text()
}

type toolResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Text string `json:"text"`
	} `json:"content"`
}

func (r toolResult) text() string {
	var sb strings.Builder
	for _, c := range r.Content {
		sb.WriteString(c.Text)
	}
	return sb.String()
}

func (s *surfaces) call(tool string, args map[string]any) toolResult {
	s.t.Helper()
	s.nextRPC++
	status, raw := s.send(http.MethodPost, "/mcp", map[string]any{"jsonrpc": "2.0", "id": s.nextRPC, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if status != http.StatusOK {
		s.t.Fatalf("%s: status %d: %s", tool, status, raw)
	}
	var rpc struct {
		Result *toolResult `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &rpc); err != nil || rpc.Result == nil {
		s.t.Fatalf("%s: not a tool result (%v): %s", tool, err, raw)
	}
	return *rpc.Result
}

func (s *surfaces) send(method, path string, body any) (int, []byte) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return res.StatusCode, raw
}

func decodeObject(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("not a JSON object (%v): %s", err, raw)
	}
	return out
}

// sameObject fails unless rest and mcp are equal but for the instant each
// was read: a brief's as_of and the "as of" minute of its text, and numbers
// decayed by the microseconds between the two reads.
func sameObject(t *testing.T, what string, rest, mcp map[string]any) {
	t.Helper()
	a, b := readAlike(rest), readAlike(mcp)
	if !reflect.DeepEqual(a, b) {
		ra, _ := json.MarshalIndent(a, "", " ")
		rb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("%s: REST and MCP answer differently:\nREST %s\nMCP  %s", what, ra, rb)
	}
	// Equal empty lists would prove nothing.
	for _, list := range []string{"items", "results", "candidates", "decisions"} {
		if l, ok := rest[list].([]any); ok && len(l) == 0 {
			t.Errorf("%s: %s is empty on both surfaces; the comparison needs something to compare", what, list)
		}
	}
}

func readAlike(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			switch k {
			case "as_of":
				out[k] = "instant"
			case "text":
				s, _ := x.(string)
				if head, rest, ok := strings.Cut(s, "\n"); ok && strings.Contains(head, ", as of ") {
					s = "header\n" + rest
				}
				out[k] = s
			default:
				out[k] = readAlike(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = readAlike(x)
		}
		return out
	case float64:
		return math.Round(v*1e6) / 1e6
	}
	return v
}

// sameShape fails unless a and b have the same keys, nested alike, with
// values of the same JSON kinds (null aside, which a nullable value of
// either may be).
func sameShape(t *testing.T, what string, a, b map[string]any) {
	t.Helper()
	var diffs []string
	compareShape("", a, b, &diffs)
	if len(diffs) > 0 {
		t.Errorf("%s: REST and MCP objects differ in shape:\n%s", what, strings.Join(diffs, "\n"))
	}
}

func compareShape(path string, a, b any, diffs *[]string) {
	if a == nil || b == nil {
		return
	}
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: object on REST, %T on MCP", path, b))
			return
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range a {
				if !yield(k) {
					return
				}
			}
		})
		for k := range bm {
			if _, ok := a[k]; !ok {
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: only on MCP", path, k))
			}
		}
		for _, k := range keys {
			if _, ok := bm[k]; !ok {
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: only on REST", path, k))
				continue
			}
			compareShape(path+"."+k, a[k], bm[k], diffs)
		}
	case []any:
		bl, ok := b.([]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: array on REST, %T on MCP", path, b))
			return
		}
		if len(a) > 0 && len(bl) > 0 {
			compareShape(path+"[0]", a[0], bl[0], diffs)
		}
	default:
		if reflect.TypeOf(a) != reflect.TypeOf(b) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %T on REST, %T on MCP", path, a, b))
		}
	}
}
