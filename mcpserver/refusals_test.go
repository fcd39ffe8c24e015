package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/mcpserver"
)

// TestToolRefusalsNameWhatIsAllowed pins the messages of the tools'
// refusals of bad arguments: each names what is wrong and what is allowed,
// and nothing is written.
func TestToolRefusalsNameWhatIsAllowed(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	reader := f.connect(t, f.token(t, "dashboard", "acme", auth.TokenReader))

	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"one row and rows", "remember", map[string]any{"content": "x", "rows": []map[string]any{{"content": "y"}}},
			"give either one row (content and its fields) or rows, not both"},
		{"decided_at not RFC 3339", "record_decision", map[string]any{
			"entity": "backend", "key": "db", "decision": "Use PostgreSQL", "reasoning": "We run it", "decided_at": "yesterday"},
			`invalid time "yesterday": use RFC 3339`},
		{"text too long", "extract", map[string]any{"text": strings.Repeat("x", 50001)},
			"the text is 50001 characters long: at most 50000 are allowed"},
		{"entity too long", "extract", map[string]any{"text": "Ann is tired.", "entity": strings.Repeat("e", 201)},
			"the entity name is 201 characters long: at most 200 are allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if msg := callError(t, cs, tt.tool, tt.args); !strings.Contains(msg, tt.want) {
				t.Errorf("%s(%s) error = %q, want it to contain %q", tt.tool, tt.name, msg, tt.want)
			}
		})
	}
	t.Run("reader extracting with store", func(t *testing.T) {
		msg := callError(t, reader, "extract", map[string]any{"text": "Ann lives in Berlin.", "store": true})
		if want := `token "dashboard" is a reader token: it may call recall, context, list_decisions and extract (without store), not extract with store`; !strings.Contains(msg, want) {
			t.Errorf("error = %q, want %q", msg, want)
		}
	})
	if n := f.count(t, `SELECT (SELECT count(*) FROM memory_nodes) + (SELECT count(*) FROM decisions)`); n != 0 {
		t.Errorf("refused calls wrote %d rows", n)
	}
}

// failingExtractor fails the way a broken dependency of Tenure does.
type failingExtractor struct{}

func (failingExtractor) Name() string { return "broken" }

func (failingExtractor) Extract(context.Context, string, string, time.Time) ([]mcpserver.Candidate, error) {
	return nil, errors.New("connection refused by 10.0.0.7:5432")
}

// TestInternalFailureIsGeneric checks that a failure inside Tenure reaches
// the agent as a generic message naming the tool, never its details.
func TestInternalFailureIsGeneric(t *testing.T) {
	f := newMCPFixture(t, mcpserver.WithExtractor(failingExtractor{}))
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	msg := callError(t, cs, "extract", map[string]any{"text": "Ann is tired."})
	if msg != "extract failed inside Tenure; try again later" {
		t.Errorf("error = %q, want the generic message without the cause", msg)
	}
}
