package memory

import (
	"context"
	"testing"

	"github.com/tenurehq/tenure/replica"
)

// TestRefusedWritesAreNotNoted: a write the engine refused inside its
// transaction wrote nothing, so the reads after it may still go to a
// standby; a write that committed sends them to the primary.
func TestRefusedWritesAreNotNoted(t *testing.T) {
	e := newEnv(t)
	ctx := replica.WithMinLSN(context.Background(), 0)
	if _, err := e.store.ArchiveFacts(ctx, System("test"), []int64{999999}, "no such fact"); err == nil {
		t.Fatal("ArchiveFacts(an unknown id) = nil, want a refusal")
	}
	if n := replica.Writes(ctx); n != 0 {
		t.Errorf("after a refused write, %d writes noted, want 0", n)
	}
	if _, err := e.store.Push(ctx, agent, "acme", []NewNode{{Content: "Acme renews in March."}}); err != nil {
		t.Fatal(err)
	}
	if n := replica.Writes(ctx); n != 1 {
		t.Errorf("after a push, %d writes noted, want 1", n)
	}
}
