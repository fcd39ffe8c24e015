package client_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/client"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const scope = "acme"

// newClient starts the whole server over a fresh database and returns a
// client holding a writer token of scope, and the server's address.
func newClient(t *testing.T) (*client.ClientWithResponses, string) {
	t.Helper()
	pool := pgtest.NewPool(t)
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	app, err := server.New(server.Config{Pool: pool, Assets: assets, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	token, _, err := auth.SeedToken(context.Background(), pool,
		auth.NewToken{Name: "client-test", Scope: scope, Role: auth.TokenWriter}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewWithToken(srv.URL, token, client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return c, srv.URL
}

func ptr[T any](v T) *T { return &v }

// TestPushRecallConsolidateBrief: rows pushed are recalled at once as
// pending; after a consolidation run they are facts, recalled as such and
// recited by the JSON brief; the transient row is in neither.
func TestPushRecallConsolidateBrief(t *testing.T) {
	c, _ := newClient(t)
	ctx := context.Background()
	push, err := c.PushNodesWithResponse(ctx, scope, nil, client.PushRequest{Rows: &[]client.NodeRow{
		{Content: "Jordan works as a nurse.", Properties: &client.NodeRow_Properties{
			Entity: ptr("Jordan"), Key: ptr("occupation"), Category: ptr("identity")}},
		{Content: "Jordan prefers tea in the morning.", Properties: &client.NodeRow_Properties{
			Entity: ptr("Jordan"), Key: ptr("morning_drink"), Category: ptr("preference")}},
		{Content: "Jordan's build is still compiling.", Durability: ptr(client.NodeRowDurabilityTransient)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if push.JSON201 == nil {
		t.Fatalf("push answered %d: %s", push.StatusCode(), push.Body)
	}
	if len(push.JSON201.Ids) != 3 || len(push.JSON201.Notes) != 0 {
		t.Fatalf("push answered ids %v, notes %+v; want 3 ids and no notes", push.JSON201.Ids, push.JSON201.Notes)
	}

	recall := func() []client.RecallResult {
		t.Helper()
		res, err := c.RecallWithResponse(ctx, scope, &client.RecallParams{Query: ptr("Jordan"), Limit: ptr(10)})
		if err != nil {
			t.Fatal(err)
		}
		if res.JSON200 == nil {
			t.Fatalf("recall answered %d: %s", res.StatusCode(), res.Body)
		}
		if res.JSON200.Query != "Jordan" {
			t.Errorf("recall echoed query %q", res.JSON200.Query)
		}
		return res.JSON200.Results
	}
	contents := func(rs []client.RecallResult) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Fact.Content)
		}
		slices.Sort(out)
		return out
	}
	want := []string{"Jordan prefers tea in the morning.", "Jordan works as a nurse."}
	pending := recall()
	if got := contents(pending); !slices.Equal(got, want) {
		t.Errorf("recall before consolidation = %q, want %q", got, want)
	}
	for _, r := range pending {
		if !r.Pending || r.NodeID == nil || !slices.Contains(push.JSON201.Ids, *r.NodeID) || r.Fact.Entity != "Jordan" {
			t.Errorf("recall before consolidation: %q pending %v, node %v, entity %q; want a pending row of the push about Jordan",
				r.Fact.Content, r.Pending, r.NodeID, r.Fact.Entity)
		}
	}

	run, err := c.StartRunWithResponse(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.JSON201 == nil {
		t.Fatalf("consolidation run answered %d: %s", run.StatusCode(), run.Body)
	}
	if run.JSON201.Status != client.RunStatusSucceeded || run.JSON201.Scope == nil || *run.JSON201.Scope != scope {
		t.Errorf("run %s of scope %v, want succeeded of %s", run.JSON201.Status, run.JSON201.Scope, scope)
	}

	facts := recall()
	if got := contents(facts); !slices.Equal(got, want) {
		t.Errorf("recall after consolidation = %q, want %q", got, want)
	}
	for _, r := range facts {
		if r.Pending || r.Fact.ID == 0 || r.Fact.Status != client.FactStatusActive {
			t.Errorf("recall after consolidation: %q pending %v, id %d, status %s; want an active fact",
				r.Fact.Content, r.Pending, r.Fact.ID, r.Fact.Status)
		}
	}
	if occupation := facts[slices.IndexFunc(facts, func(r client.RecallResult) bool { return r.Fact.Key == "occupation" })]; occupation.Fact.Category != "identity" ||
		occupation.Fact.Durability != client.FactDurabilityPermanent {
		t.Errorf("the occupation fact is %s/%s, want permanent/identity", occupation.Fact.Durability, occupation.Fact.Category)
	}

	brief, err := c.ContextBriefWithResponse(ctx, scope, &client.ContextBriefParams{
		Format: ptr(client.ContextBriefParamsFormatJSON), Budget: ptr(2000)})
	if err != nil {
		t.Fatal(err)
	}
	if brief.JSON200 == nil {
		t.Fatalf("brief answered %d: %s", brief.StatusCode(), brief.Body)
	}
	b := brief.JSON200
	var shown []string
	for _, it := range b.Facts {
		shown = append(shown, it.Content)
	}
	slices.Sort(shown)
	if !slices.Equal(shown, want) {
		t.Errorf("brief facts = %q, want %q", shown, want)
	}
	if b.Scope != scope || b.Budget != 2000 || b.Used != len(b.Text) || b.Used > b.Budget {
		t.Errorf("brief of scope %q, budget %d, used %d for %d characters of text", b.Scope, b.Budget, b.Used, len(b.Text))
	}
	if !strings.Contains(b.Text, "Jordan works as a nurse.") || strings.Contains(b.Text, "compiling") {
		t.Errorf("brief text recites the wrong rows:\n%s", b.Text)
	}
}

// TestDecisionsPagedAndLocked: decisions recorded come back as written, a
// list pages through them newest first, and a second decision or a push on
// a locked key is refused or warned of with the decision named.
func TestDecisionsPagedAndLocked(t *testing.T) {
	c, _ := newClient(t)
	ctx := context.Background()
	var ids []int64
	for _, d := range []client.DecisionRequest{
		{Entity: "billing-db", Key: "engine", Decision: "billing-db moves to PostgreSQL 17.",
			Reasoning: "The replication fix shipped in 17.2.", Alternatives: &[]string{"stay on 15"}},
		{Entity: "billing-db", Key: "region", Decision: "billing-db stays in eu-west.", Reasoning: "The customers are there."},
		{Entity: "deploy", Key: "window", Decision: "Deploys happen on weekdays before 15:00.", Reasoning: "Someone is around to roll back."},
	} {
		res, err := c.RecordDecisionWithResponse(ctx, scope, nil, d)
		if err != nil {
			t.Fatal(err)
		}
		if res.JSON201 == nil {
			t.Fatalf("decision answered %d: %s", res.StatusCode(), res.Body)
		}
		got := res.JSON201
		alternatives := []string{}
		if d.Alternatives != nil {
			alternatives = *d.Alternatives
		}
		if got.Entity != d.Entity || got.Key != d.Key || got.Decision != d.Decision || got.Reasoning != d.Reasoning ||
			!slices.Equal(got.Alternatives, alternatives) || !got.DoNotReopen || got.Scope != scope || got.DecidedBy != "client-test" {
			t.Errorf("decision recorded as %+v, want %+v locked, decided by the token", got, d)
		}
		ids = append(ids, got.ID)
	}

	var listed []int64
	var cursor *string
	for page := 1; ; page++ {
		res, err := c.ListDecisionsWithResponse(ctx, scope, &client.ListDecisionsParams{Limit: ptr(2), Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if res.JSON200 == nil {
			t.Fatalf("decisions page %d answered %d: %s", page, res.StatusCode(), res.Body)
		}
		if want := []int{2, 1}[min(page, 2)-1]; len(res.JSON200.Items) != want {
			t.Fatalf("decisions page %d holds %d items, want %d", page, len(res.JSON200.Items), want)
		}
		for _, d := range res.JSON200.Items {
			listed = append(listed, d.ID)
		}
		cursor = res.JSON200.NextCursor
		if cursor == nil {
			break
		}
	}
	if want := []int64{ids[2], ids[1], ids[0]}; !slices.Equal(listed, want) {
		t.Errorf("decisions listed %v, want %v (newest first, each once)", listed, want)
	}

	again, err := c.RecordDecisionWithResponse(ctx, scope, nil, client.DecisionRequest{
		Entity: "billing-db", Key: "engine", Decision: "billing-db moves to MySQL.", Reasoning: "A vendor asked."})
	if err != nil {
		t.Fatal(err)
	}
	if again.StatusCode() != http.StatusConflict || again.JSON409 == nil {
		t.Fatalf("a decision on a locked key answered %d: %s", again.StatusCode(), again.Body)
	}
	e := again.JSON409.Error
	if e.Code != client.ErrorDetailCodeDecisionLocked || e.DecisionID == nil || *e.DecisionID != ids[0] ||
		e.Decision == nil || *e.Decision != "billing-db moves to PostgreSQL 17." || e.Message == "" {
		t.Errorf("409 answered %+v, want decision_locked naming decision %d", e, ids[0])
	}

	push, err := c.PushNodesWithResponse(ctx, scope, nil, client.PushRequest{
		Content:    ptr("billing-db moves to MySQL next week."),
		Properties: &client.PushRequest_Properties{Entity: ptr("billing-db"), Key: ptr("engine"), Category: ptr("decision")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if push.JSON201 == nil {
		t.Fatalf("push on a locked key answered %d: %s", push.StatusCode(), push.Body)
	}
	notes := push.JSON201.Notes
	if len(notes) != 1 || notes[0].Code != client.PushNoteCodeDecisionLocked || notes[0].Row != 0 ||
		notes[0].DecisionID == nil || *notes[0].DecisionID != ids[0] {
		t.Errorf("push on a locked key noted %+v, want one decision_locked note naming decision %d", notes, ids[0])
	}
}

// TestCreatePatchFact: a fact written is read back; a patch with its
// version changes it; a patch with the old version is refused with the
// fact as it is now.
func TestCreatePatchFact(t *testing.T) {
	c, _ := newClient(t)
	ctx := context.Background()
	created, err := c.CreateFactWithResponse(ctx, scope, nil, client.FactRequest{
		Entity: "Ann", Key: ptr("lives_in"), Content: "Ann lives in Lyon.", Category: ptr("identity"), Confidence: ptr(0.9)})
	if err != nil {
		t.Fatal(err)
	}
	if created.JSON201 == nil {
		t.Fatalf("create answered %d: %s", created.StatusCode(), created.Body)
	}
	f := created.JSON201.Fact
	if created.JSON201.Reinforced || f.Entity != "Ann" || f.Key != "lives_in" || f.Content != "Ann lives in Lyon." ||
		f.Category != "identity" || f.Durability != client.FactDurabilityPermanent || f.Confidence != 0.9 || f.Source != client.FactSourceAPI {
		t.Errorf("created %+v (reinforced %v)", f, created.JSON201.Reinforced)
	}

	patched, err := c.UpdateFactWithResponse(ctx, scope, f.ID, nil, client.FactPatch{
		Version: f.Version, Content: ptr("Ann lives in Porto."), Reason: ptr("She moved in March.")})
	if err != nil {
		t.Fatal(err)
	}
	if patched.JSON200 == nil {
		t.Fatalf("patch answered %d: %s", patched.StatusCode(), patched.Body)
	}
	if p := patched.JSON200; p.ID != f.ID || p.Content != "Ann lives in Porto." || p.Version != f.Version+1 || p.Key != "lives_in" {
		t.Errorf("patched %+v, want fact %d saying Porto at version %d", p, f.ID, f.Version+1)
	}
	got, err := c.GetFactWithResponse(ctx, scope, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.JSON200 == nil || got.JSON200.Content != "Ann lives in Porto." {
		t.Fatalf("get after the patch answered %d: %s", got.StatusCode(), got.Body)
	}

	stale, err := c.UpdateFactWithResponse(ctx, scope, f.ID, nil, client.FactPatch{Version: f.Version, Content: ptr("Ann lives in Nice.")})
	if err != nil {
		t.Fatal(err)
	}
	if stale.JSON409 == nil {
		t.Fatalf("a stale patch answered %d: %s", stale.StatusCode(), stale.Body)
	}
	if e := stale.JSON409.Error; e.Code != client.ErrorDetailCodeConflict || e.Current == nil || e.Current.Content != "Ann lives in Porto." ||
		e.Current.Version != f.Version+1 {
		t.Errorf("stale patch answered %+v, want conflict with the fact now", e)
	}
}

// TestErrorAnswers: refusals decode into the Error model, with the code,
// the field at fault and a message.
func TestErrorAnswers(t *testing.T) {
	c, base := newClient(t)
	ctx := context.Background()
	bad, err := c.ContextBriefWithResponse(ctx, scope, &client.ContextBriefParams{Budget: ptr(5)})
	if err != nil {
		t.Fatal(err)
	}
	if bad.StatusCode() != http.StatusBadRequest || bad.JSON400 == nil {
		t.Fatalf("budget 5 answered %d: %s", bad.StatusCode(), bad.Body)
	}
	if e := bad.JSON400.Error; e.Code != client.ErrorDetailCodeInvalid || e.Field == nil || *e.Field != "budget" || e.Message == "" {
		t.Errorf("budget 5 answered %+v, want invalid naming budget", e)
	}

	missing, err := c.GetFactWithResponse(ctx, scope, 987654)
	if err != nil {
		t.Fatal(err)
	}
	if missing.JSON404 == nil || missing.JSON404.Error.Code != client.ErrorDetailCodeNotFound {
		t.Errorf("a missing fact answered %d: %s", missing.StatusCode(), missing.Body)
	}

	stranger, err := client.NewWithToken(base, "tnr_not-a-token")
	if err != nil {
		t.Fatal(err)
	}
	denied, err := stranger.RecallWithResponse(ctx, scope, &client.RecallParams{Query: ptr("Jordan")})
	if err != nil {
		t.Fatal(err)
	}
	if denied.JSON401 == nil || denied.JSON401.Error.Code != client.ErrorDetailCodeUnauthorized {
		t.Errorf("an unknown token answered %d: %s", denied.StatusCode(), denied.Body)
	}
}
