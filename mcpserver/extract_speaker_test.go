package mcpserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/mcpserver"
	"github.com/tenurehq/tenure/memory"
)

// The extract tool attributes what it finds: "I" to the user, named people
// and systems to themselves; the assistant's lines are no facts.
func TestExtractAttribution(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	var out extractOut
	call(t, cs, "extract", map[string]any{"text": "User: I live in Denver.\nAssistant: You live in Denver and work as a pilot.\n" +
		"User: Jordan works nights. billing-db replication lag recovered."}, &out)
	want := []struct{ entity, key string }{{memory.UserEntity, "home_city"}, {"Jordan", "work_schedule"},
		{"billing-db", "replication_lag"}}
	if len(out.Candidates) != len(want) {
		t.Fatalf("extract = %+v, want %d candidates", out.Candidates, len(want))
	}
	for i, c := range out.Candidates {
		if c.Entity != want[i].entity || c.Key != want[i].key {
			t.Errorf("candidate %d = %+v, want about %s on %s", i, c, want[i].entity, want[i].key)
		}
	}
}

// plainExtractor knows nothing of speakers.
type plainExtractor struct{}

func (plainExtractor) Name() string { return "plain" }

func (plainExtractor) Extract(_ context.Context, text, entity string, _ time.Time) ([]mcpserver.Candidate, error) {
	return []mcpserver.Candidate{{Content: text, Entity: entity}}, nil
}

func TestExtractFor(t *testing.T) {
	ctx, now := context.Background(), time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	for _, e := range []mcpserver.Extractor{mcpserver.OfflineExtractor{}, mcpserver.ExtractorOf(extract.Rules{})} {
		cands, err := mcpserver.ExtractFor(ctx, e, "I'm a nurse.", "", "Jordan", now)
		if err != nil || len(cands) != 1 || cands[0].Entity != "Jordan" || cands[0].Key != "occupation" {
			t.Errorf("ExtractFor(%T, speaker Jordan) = %+v, %v", e, cands, err)
		}
		cands, err = e.Extract(ctx, "I'm a nurse.", "", now)
		if err != nil || len(cands) != 1 || cands[0].Entity != memory.UserEntity {
			t.Errorf("%T.Extract = %+v, %v; want it about %s", e, cands, err, memory.UserEntity)
		}
	}
	cands, err := mcpserver.ExtractFor(ctx, plainExtractor{}, "I'm a nurse.", "Ann", "Jordan", now)
	if err != nil || len(cands) != 1 || cands[0].Entity != "Ann" {
		t.Errorf("ExtractFor(a plain extractor) = %+v, %v; want its own answer", cands, err)
	}
}
