package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
)

// TestDeprecatedNamesRefusedBesideTheirSuccessors: a former name (q, nodes)
// given with the name that replaced it is refused naming the former one, as
// the API refuses it; given alone, it works as its successor.
func TestDeprecatedNamesRefusedBesideTheirSuccessors(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	row := map[string]any{"content": "Ann lives in Berlin."}
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"recall", map[string]any{"query": "berlin", "q": "berlin"}, []string{"q:", "deprecated name of query"}},
		{"list_decisions", map[string]any{"query": "x", "q": "x"}, []string{"q:", "deprecated name of query"}},
		{"remember", map[string]any{"rows": []any{row}, "nodes": []any{row}}, []string{"nodes:", "deprecated name of rows"}},
		{"remember", map[string]any{"nodes": []any{}}, []string{"nodes:", "nodes is empty"}},
		{"remember", map[string]any{"content": "x", "nodes": []any{row}}, []string{"nodes:", "not both"}},
	} {
		msg := callError(t, cs, c.tool, c.args)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %v: error = %q, want it to say %q", c.tool, c.args, msg, w)
			}
		}
	}
	var pushed rememberOut
	call(t, cs, "remember", map[string]any{"nodes": []any{row, map[string]any{"content": "Bo likes tea."}}}, &pushed)
	if len(pushed.IDs) != 2 {
		t.Errorf("remember(nodes) = %+v, want two rows written", pushed)
	}
	if n := f.count(t, `SELECT count(*) FROM memory_nodes`); n != 2 {
		t.Errorf("%d rows written, want 2 (the refused calls wrote nothing)", n)
	}
}
