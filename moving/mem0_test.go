package moving

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/memory"
)

// mem0Now is the time of the Mem0 imports below (novaNow).
var mem0Now = novaNow

// mem0GetAll is the answer of Mem0's get_all for two users and an agent,
// as its Python client prints it.
const mem0GetAll = `{
  "results": [
    {"id": "6a0e1b6e-0001", "memory": "Is a vegetarian", "hash": "5f1c", "metadata": null,
     "categories": ["food", "personal_details"], "created_at": "2026-03-02T09:15:22.123456-08:00", "updated_at": null, "user_id": "alex"},
    {"id": "6a0e1b6e-0002", "memory": "Name is Alex", "hash": "77aa", "metadata": {"app": "support-chat"},
     "categories": ["personal_details"], "created_at": "2026-03-02T09:15:22.5-08:00", "updated_at": null, "user_id": "alex"},
    {"id": "6a0e1b6e-0003", "memory": "Prefers dark mode in every editor", "hash": "a1b2", "metadata": {"durability": "forever", "source": "ide"},
     "categories": ["preferences"], "created_at": "2026-04-01T10:00:00+00:00", "updated_at": "2026-04-20T10:00:00+00:00", "user_id": "alex"},
    {"id": "6a0e1b6e-0004", "memory": "Feeling stressed about the launch today", "hash": "c3d4", "metadata": null,
     "categories": null, "created_at": "2026-04-30T08:00:00+00:00", "updated_at": "2026-04-30T08:00:00+00:00", "user_id": "alex"},
    {"id": "6a0e1b6e-0005", "memory": "User is frustrated right now", "hash": "e5f6", "metadata": null,
     "categories": [], "created_at": "2026-05-01T11:50:00+00:00", "updated_at": "2026-05-01T11:50:00+00:00", "user_id": "alex", "run_id": "session-42"},
    {"id": "6a0e1b6e-0006", "memory": "The nightly backup is still running, ETA 10 minutes", "hash": "0a0b", "metadata": null,
     "categories": ["work"], "created_at": "2026-05-01 09:00:00", "updated_at": null, "user_id": "alex"},
    {"id": "6a0e1b6e-0007", "memory": "Has a dentist appointment on June 3", "hash": "1c1d", "metadata": null,
     "categories": ["health"], "created_at": "2026-04-28T12:00:00Z", "updated_at": null, "user_id": "alex"},
    {"id": "6a0e1b6e-0008", "memory": "Goes running every morning", "hash": "2e2f", "metadata": null,
     "categories": ["sports"], "created_at": "2026-02-11T07:00:00Z", "updated_at": null, "user_id": "alex"},
    {"id": "6a0e1b6e-0009", "memory": "Allergic to peanuts", "hash": "3a3b", "metadata": null,
     "categories": ["health"], "created_at": "2026-01-20T18:30:00Z", "updated_at": null, "user_id": "Jordan.Lee@Example.com"},
    {"id": "6a0e1b6e-0010", "memory": "Decided to use PostgreSQL instead of MySQL because of JSONB support", "hash": "4c4d", "metadata": null,
     "categories": ["technology"], "created_at": "2026-03-10T16:00:00Z", "updated_at": null, "agent_id": "support-bot"}
  ],
  "relations": []
}`

// mem0Want is how each memory of mem0GetAll is classified and marked.
var mem0Want = map[string]struct {
	durability, category, marker string
}{
	"Is a vegetarian":                                                     {"permanent", "identity", "durable"},
	"Name is Alex":                                                        {"long_term", "observation", "durable"},
	"Prefers dark mode in every editor":                                   {"long_term", "preference", "durable"},
	"Feeling stressed about the launch today":                             {"ephemeral", "mood", "expired"},
	"User is frustrated right now":                                        {"ephemeral", "mood", "transient"},
	"The nightly backup is still running, ETA 10 minutes":                 {"ephemeral", "state", "expired"},
	"Has a dentist appointment on June 3":                                 {"short_term", "obligation", "durable"},
	"Goes running every morning":                                          {"long_term", "routine", "durable"},
	"Allergic to peanuts":                                                 {"permanent", "identity", "durable"},
	"Decided to use PostgreSQL instead of MySQL because of JSONB support": {"permanent", "decision", "durable"},
}

func readMem0(t *testing.T, doc string) []Mem0Memory {
	t.Helper()
	mems, err := ReadMem0(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("ReadMem0: %v", err)
	}
	return mems
}

func TestMem0IntoOneScope(t *testing.T) {
	ctx := context.Background()
	pool, store := tenure(t)
	mems := readMem0(t, mem0GetAll)
	if len(mems) != 10 || mems[4].RunID != "session-42" || mems[9].AgentID != "support-bot" || mems[0].Path != "results[0]" {
		t.Fatalf("read %d memories: %+v", len(mems), mems)
	}
	opts := Mem0Options{Scope: "acme"}
	rows, err := PlanMem0(mems, opts, store.Now())
	if err != nil {
		t.Fatal(err)
	}

	// A dry run classifies and reports, and pushes nothing.
	dry := opts
	dry.DryRun = true
	report, err := ImportMem0(ctx, store, memory.System(memory.SourceImport), rows, dry)
	if err != nil || !report.DryRun || report.Rows != 10 || report.Batches != 1 {
		t.Fatalf("dry run = %+v, %v", report, err)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_nodes`) + count(t, pool, `SELECT count(*) FROM audit_log`); n != 0 {
		t.Fatalf("a dry run wrote %d rows", n)
	}

	var progress []string
	opts.Progress = func(done, total int) { progress = append(progress, fmt.Sprintf("%d/%d", done, total)) }
	report, err = ImportMem0(ctx, store, memory.System(memory.SourceImport), rows, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantDurability := map[string]int{"permanent": 3, "long_term": 3, "short_term": 1, "ephemeral": 3}
	wantCategory := map[string]int{"identity": 2, "observation": 1, "preference": 1, "mood": 2, "state": 1, "obligation": 1, "routine": 1, "decision": 1}
	wantMarker := map[string]int{"durable": 7, "transient": 1, "expired": 2}
	if report.DryRun || report.Memories != 10 || report.Rows != 10 || report.Batches != 1 || !maps.Equal(report.Scopes, map[string]int{"acme": 10}) ||
		!maps.Equal(report.ByDurability, wantDurability) || !maps.Equal(report.ByCategory, wantCategory) || !maps.Equal(report.ByMarker, wantMarker) ||
		report.Atomicity != "one batch, one transaction: all or nothing" || len(report.Notes) != 0 {
		t.Errorf("report = %+v", report)
	}
	if strings.Join(progress, " ") != "10/10" {
		t.Errorf("progress = %v", progress)
	}

	// Each memory is a working row with its axes, its marker (none written
	// for a durable one) and Mem0's fields in its metadata.
	rowsQ, err := pool.Query(ctx, `SELECT content, properties FROM memory_nodes WHERE scope = 'acme' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rowsQ.Next() {
		var content string
		var props struct {
			Durability     *string `json:"durability"`
			FactDurability string  `json:"fact_durability"`
			Category       string  `json:"category"`
			Entity         string  `json:"entity"`
			Key            string  `json:"key"`
			Deadline       string  `json:"deadline"`
			Alternatives   []string
			Metadata       map[string]any `json:"metadata"`
		}
		var raw []byte
		if err := rowsQ.Scan(&content, &raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &props); err != nil {
			t.Fatal(err)
		}
		w, ok := mem0Want[content]
		if !ok {
			t.Errorf("unexpected row %q", content)
			continue
		}
		n++
		marker := "durable"
		if props.Durability != nil {
			marker = *props.Durability
			if marker == "durable" {
				t.Errorf("row %q carries an explicit durable marker; a durable row writes none", content)
			}
		}
		if props.FactDurability != w.durability || props.Category != w.category || marker != w.marker {
			t.Errorf("row %q = %s/%s marker %s, want %s/%s marker %s", content, props.FactDurability, props.Category, marker, w.durability, w.category, w.marker)
		}
		if props.Metadata["source"] != "mem0" || props.Metadata["classified_by"] != "offline" || props.Metadata["reason"] == "" ||
			!strings.HasPrefix(fmt.Sprint(props.Metadata["mem0_id"]), "6a0e1b6e-") {
			t.Errorf("row %q metadata = %v", content, props.Metadata)
		}
		switch content {
		case "Prefers dark mode in every editor":
			// Mem0's own metadata is kept apart: its "durability" is no marker.
			md, _ := props.Metadata["mem0_metadata"].(map[string]any)
			if props.Entity != "alex" || props.Key == "" || md["durability"] != "forever" ||
				props.Metadata["mem0_updated_at"] != "2026-04-20T10:00:00Z" {
				t.Errorf("row %q: entity %q, key %q, metadata %v", content, props.Entity, props.Key, props.Metadata)
			}
		case "Has a dentist appointment on June 3":
			if !strings.HasPrefix(props.Deadline, "2026-06-03T") {
				t.Errorf("the appointment's deadline = %q, want June 3 of the year it was said", props.Deadline)
			}
		case "Decided to use PostgreSQL instead of MySQL because of JSONB support":
			if props.Entity != "support-bot" || len(props.Alternatives) == 0 {
				t.Errorf("the agent's decision: entity %q, alternatives %v", props.Entity, props.Alternatives)
			}
		case "Allergic to peanuts":
			if props.Entity != "Jordan.Lee@Example.com" {
				t.Errorf("entity = %q, want the Mem0 user id", props.Entity)
			}
		}
	}
	if err := rowsQ.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Errorf("%d working rows, want 10", n)
	}
	if c := count(t, pool, `SELECT count(*) FROM audit_log WHERE action = 'node.push' AND actor = 'system:import' AND scope = 'acme'`); c != 1 {
		t.Errorf("%d push audit rows, want 1", c)
	}

	// They pass consolidation's gates like any push: the passing rows are
	// refused, the others become facts with the axes given.
	run, err := store.Consolidate(ctx, memory.ConsolidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if run.TransientRejected != 1 || run.ExpiredRejected != 2 {
		t.Errorf("run refused %d transient and %d expired rows, want 1 and 2", run.TransientRejected, run.ExpiredRejected)
	}
	if c := count(t, pool, `SELECT count(*) FROM entity_facts WHERE scope = 'acme' AND (content, durability, category) IN (
		('Is a vegetarian', 'permanent', 'identity'), ('Name is Alex', 'long_term', 'observation'),
		('Prefers dark mode in every editor', 'long_term', 'preference'), ('Has a dentist appointment on June 3', 'short_term', 'obligation'),
		('Goes running every morning', 'long_term', 'routine'), ('Allergic to peanuts', 'permanent', 'identity'))`); c != 6 {
		t.Errorf("%d facts with the classified axes, want 6", c)
	}
	if c := count(t, pool, `SELECT count(*) FROM entity_facts WHERE scope = 'acme' AND category IN ('mood', 'state')`); c != 0 {
		t.Errorf("%d passing memories became facts", c)
	}
	if c := count(t, pool, `SELECT count(*) FROM decisions WHERE scope = 'acme' AND 'MySQL' = ANY (alternatives)`); c != 1 {
		t.Errorf("%d decisions with MySQL as the alternative, want 1", c)
	}

	// Pushed again, each durable row that became a fact is noted as a duplicate.
	report, err = ImportMem0(ctx, store, memory.System(memory.SourceImport), rows, Mem0Options{Scope: "acme"})
	if err != nil || report.Notes[memory.NoteDuplicate] == 0 {
		t.Errorf("second push = %+v, %v; want duplicate notes", report, err)
	}
}

func TestMem0ScopePerUser(t *testing.T) {
	ctx := context.Background()
	pool, store := tenure(t)
	mems := readMem0(t, mem0GetAll)
	_, err := PlanMem0(mems, Mem0Options{ScopePerUser: true}, mem0Now)
	if err == nil || !strings.Contains(err.Error(), "results[9] (Mem0 id 6a0e1b6e-0010) has no user_id") {
		t.Fatalf("per user with an agent's memory = %v, want it refused naming the item", err)
	}
	rows, err := PlanMem0(mems[:9], Mem0Options{ScopePerUser: true}, mem0Now)
	if err != nil {
		t.Fatal(err)
	}
	report, err := ImportMem0(ctx, store, memory.System(memory.SourceImport), rows, Mem0Options{ScopePerUser: true})
	if err != nil {
		t.Fatal(err)
	}
	wantScopes := map[string]int{"alex": 8, "jordan.lee-example.com": 1}
	if !maps.Equal(report.Scopes, wantScopes) || report.Batches != 2 || report.Rows != 9 ||
		report.Atomicity != "2 batches of at most 1000 rows of one scope, in one transaction: all or nothing" {
		t.Errorf("report = %+v", report)
	}
	for scope, want := range wantScopes {
		if n := count(t, pool, `SELECT count(*) FROM memory_nodes WHERE scope = $1`, scope); n != want {
			t.Errorf("scope %s holds %d rows, want %d", scope, n, want)
		}
	}

	// Two user ids that make the same scope cannot be kept apart.
	clash := readMem0(t, `[{"memory": "Likes tea", "user_id": "Alex"}, {"memory": "Likes coffee", "user_id": "alex"}]`)
	if _, err := PlanMem0(clash, Mem0Options{ScopePerUser: true}, mem0Now); err == nil ||
		!strings.Contains(err.Error(), `user_ids "Alex" and "alex" both make scope alex`) {
		t.Errorf("clashing user ids = %v", err)
	}
	for _, tt := range []struct {
		opts Mem0Options
		want string
	}{
		{Mem0Options{}, "name the Tenure scope Mem0's memories go to (--scope), or put each user's in a scope of its own (--scope-per-user)"},
		{Mem0Options{Scope: "acme", ScopePerUser: true}, "not both"},
		{Mem0Options{Scope: "Acme Support"}, `invalid scope "Acme Support"`},
	} {
		if _, err := PlanMem0(clash, tt.opts, mem0Now); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("PlanMem0(%+v) = %v, want %q", tt.opts, err, tt.want)
		}
	}
}

func TestScopeForUser(t *testing.T) {
	for id, want := range map[string]string{
		"alex":                   "alex",
		"Jordan.Lee@Example.com": "jordan.lee-example.com",
		"  user 42 ":             "user-42",
		"__ops:bot":              "ops:bot",
		"josé":                   "jos",
	} {
		if got, err := ScopeForUser(id); err != nil || got != want {
			t.Errorf("ScopeForUser(%q) = %q, %v; want %q", id, got, err, want)
		}
	}
	for id, want := range map[string]string{
		"😀":                     "holds no letter or digit",
		"---":                   "holds no letter or digit",
		strings.Repeat("a", 64): "makes a scope name of 64 characters",
	} {
		if _, err := ScopeForUser(id); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--scope") {
			t.Errorf("ScopeForUser(%q) = %v, want an error containing %q that points to --scope", id, err, want)
		}
	}
}

func TestMem0MalformedInput(t *testing.T) {
	long := strings.Repeat("Likes tea. ", 1000)
	tests := []struct {
		name, doc, want string
	}{
		{"broken item", `{"results": [{"id": "a", "memory": "Likes tea"}, {"id": "b", "memory": }]}`, "results[1]: not valid JSON"},
		{"blank memory", `{"results": [{"id": "a", "memory": "Likes tea"}, {"id": "b", "memory": "  "}]}`,
			"results[1] (Mem0 id b): the memory has no text (its memory field is empty)"},
		{"no memory field", `[{"id": "a", "memory": "Likes tea"}, {"id": "c"}]`, "[1] (Mem0 id c): the memory has no text (it has no memory field)"},
		{"memory not text", `{"results": [{"id": "d", "memory": ["Likes tea"]}]}`, "results[0]: memory must be the memory's text, not a list"},
		{"no results", `{"memories": []}`, "the object has no results list"},
		{"results not a list", `{"results": {"id": "a"}}`, "results must be the list of memories Mem0's get_all returns, not an object"},
		{"empty results", `{"results": []}`, "the file holds no memories"},
		{"not an object", `"hello"`, "the file holds text"},
		{"item not an object", `{"results": [{"memory": "Likes tea"}, 42]}`, "results[1] is a number, not a memory"},
		{"bad time", `{"results": [{"memory": "Likes tea", "created_at": "yesterday"}]}`, `results[0]: created_at "yesterday" is not a time`},
		{"bad metadata", `{"results": [{"id": "e", "memory": "Likes tea", "metadata": [1]}]}`, "results[0] (Mem0 id e): metadata must be an object, not a list"},
		{"bad categories", `{"results": [{"memory": "Likes tea", "categories": ["food", 3]}]}`, "results[0]: categories[1] must be text, not a number"},
		{"bad user id", `{"results": [{"memory": "Likes tea", "user_id": {"name": "alex"}}]}`, "results[0]: user_id must be text, not an object"},
		{"truncated", `{"results": [{"memory": "Likes tea"}, {"memory": "Likes`, "results[1]: not valid JSON"},
		{"trailing JSON", `{"results": [{"memory": "Likes tea"}]} {}`, "more JSON follows the memories"},
		{"two results", `{"results": [{"memory": "Likes tea"}], "relations": [], "results": [{"memory": "Likes coffee"}]}`, "the object holds two results lists"},
		{"broken relations", `{"relations": [{"source": "alex", "target": }], "results": [{"memory": "Likes tea"}]}`, "relations: not valid JSON"},
		{"empty file", ``, "not valid JSON: the file ends before the JSON is complete"},
		{"NUL in text", `{"results": [{"memory": "Likes\u0000tea"}]}`, "results[0]"},
		{"too long", `{"results": [{"id": "f", "memory": "` + long + `"}]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mems, err := ReadMem0(strings.NewReader(tt.doc))
			if err == nil {
				// What the reader lets through, the plan refuses.
				_, err = PlanMem0(mems, Mem0Options{Scope: "acme"}, mem0Now)
			}
			if err == nil {
				t.Fatalf("no error, want one containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
			// The check a file is given before an import refuses it alike.
			var checked error
			for _, err := range CheckMem0(StreamMem0(strings.NewReader(tt.doc)), Mem0Options{Scope: "acme"}) {
				checked = err
			}
			if checked == nil || checked.Error() != err.Error() {
				t.Errorf("CheckMem0 = %v, want %q", checked, err)
			}
		})
	}
	// The plan names the memory it refuses.
	mems := readMem0(t, `{"results": [{"memory": "Likes tea"}, {"id": "f", "memory": "`+long+`"}]}`)
	if _, err := PlanMem0(mems, Mem0Options{Scope: "acme"}, mem0Now); err == nil ||
		!strings.Contains(err.Error(), "results[1] (Mem0 id f): the memory is 10999 characters long: a working row holds at most 10000") {
		t.Errorf("a memory too long = %v", err)
	}
}

// breakingPusher pushes through the store after blanking the text of one
// row, which the engine refuses.
type breakingPusher struct {
	*memory.Store
	batch, row int
}

func (f *breakingPusher) PushStream(ctx context.Context, actor memory.Actor, batches iter.Seq2[memory.PushBatch, error], opts memory.PushStreamOptions) error {
	return f.Store.PushStream(ctx, actor, func(yield func(memory.PushBatch, error) bool) {
		i := 0
		for b, err := range batches {
			if i == f.batch {
				b.Nodes = slices.Clone(b.Nodes)
				b.Nodes[f.row].Content = "  "
			}
			i++
			if !yield(b, err) {
				return
			}
		}
	}, opts)
}

// TestMem0ImportIsAllOrNothing: 1,500 memories go in two batches of one
// transaction; a row the engine refuses in the second leaves nothing of
// either, and the error names the memory.
func TestMem0ImportIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	pool, store := tenure(t)
	var b strings.Builder
	b.WriteString(`{"results": [`)
	for i := range 1500 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "m%d", "memory": "Likes tea number %d", "user_id": "alex"}`, i, i)
	}
	b.WriteString(`]}`)
	rows, err := PlanMem0(readMem0(t, b.String()), Mem0Options{Scope: "acme"}, mem0Now)
	if err != nil {
		t.Fatal(err)
	}
	report, err := ImportMem0(ctx, &breakingPusher{Store: store, batch: 1, row: 3}, memory.System(memory.SourceImport), rows, Mem0Options{Scope: "acme"})
	if err == nil {
		t.Fatal("the import succeeded; want the second batch refused")
	}
	for _, want := range []string{"results[1003] (Mem0 id m1003)", "batches[1].nodes[3].content", "nothing was written"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %q, want it to contain %q", err, want)
		}
	}
	if !errors.Is(err, &memory.Error{Code: memory.CodeInvalid}) {
		t.Errorf("the error does not carry the engine's code: %v", err)
	}
	if report.Batches != 2 || report.Rows != 0 {
		t.Errorf("report = %+v, want 2 batches and no row written", report)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_nodes`); n != 0 {
		t.Errorf("a refused import left %d rows", n)
	}
	var progress [][2]int
	report, err = ImportMem0(ctx, store, memory.System(memory.SourceImport), rows, Mem0Options{Scope: "acme",
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if report.Rows != 1500 || count(t, pool, `SELECT count(*) FROM memory_nodes WHERE scope = 'acme'`) != 1500 ||
		!slices.Equal(progress, [][2]int{{1000, 1500}, {1500, 1500}}) {
		t.Errorf("report = %+v, progress %v; want 1,500 rows in two steps", report, progress)
	}
}

// TestMem0ParsesTimes: Mem0's times, with or without a zone, read as UTC.
func TestMem0ParsesTimes(t *testing.T) {
	mems := readMem0(t, mem0GetAll)
	want := []string{"2026-03-02T17:15:22.123456Z", "2026-03-02T17:15:22.5Z"}
	for i, w := range want {
		if got := mems[i].CreatedAt.Format(time.RFC3339Nano); got != w {
			t.Errorf("results[%d].created_at = %s, want %s", i, got, w)
		}
	}
	if got := mems[5].CreatedAt.Format(time.RFC3339); got != "2026-05-01T09:00:00Z" {
		t.Errorf("a time without a zone = %s, want it read as UTC", got)
	}
	if mems[0].UpdatedAt != nil {
		t.Errorf("updated_at null = %v, want none", mems[0].UpdatedAt)
	}
}
