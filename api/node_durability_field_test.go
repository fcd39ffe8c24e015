package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// TestNodeDurabilityNamesPathID checks that setting the marker of a row
// consolidation already promoted is refused naming the path's id, the
// input the request sent, not the engine's ids.
func TestNodeDurabilityNamesPathID(t *testing.T) {
	f := newAPIFixture(t)
	token := f.newToken(t, "home", "laptop", auth.TokenWriter)
	var out struct{ IDs []int64 }
	f.call(t, http.MethodPost, "/api/v1/scopes/home/nodes", token, map[string]any{
		"content": "Ann lives in Hamburg.", "properties": map[string]any{"entity": "Ann", "key": "home_city"},
	}).decode(t, &out)
	if _, err := f.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest}); err != nil {
		t.Fatal(err)
	}
	e := f.call(t, http.MethodPost, fmt.Sprintf("/api/v1/scopes/home/nodes/%d/durability", out.IDs[0]), token,
		map[string]any{"durability": "expired"}).wantError(t, http.StatusConflict, "conflict")
	if e.Error.Field != "id" || !strings.Contains(e.Error.Message, "already promoted") {
		t.Errorf("error = %+v, want the already promoted row named by id", e.Error)
	}
}
