package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

// These tests read memory from outside, as its writers do, so that the
// last one can store what the extractor found as the API's store mode does.

var (
	start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	agent = memory.Token("test-agent")
)

// denyEnv is a store on a fresh database with a settable clock and its log.
type denyEnv struct {
	store *memory.Store
	pool  *pgxpool.Pool
	mu    sync.Mutex
	now   time.Time
	logs  bytes.Buffer
}

func (e *denyEnv) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.logs.Write(p)
}

func (e *denyEnv) Now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *denyEnv) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}

func newDenyEnv(t *testing.T) *denyEnv {
	t.Helper()
	e := &denyEnv{pool: pgtest.NewPool(t), now: start}
	e.store = memory.NewStore(e.pool, memory.Options{Logger: slog.New(slog.NewJSONHandler(e, nil)), Now: e.Now})
	return e
}

func (e *denyEnv) push(t *testing.T, nodes ...memory.NewNode) {
	t.Helper()
	if _, err := e.store.Push(context.Background(), agent, "me", nodes); err != nil {
		t.Fatalf("Push() error = %v", err)
	}
}

func (e *denyEnv) consolidate(t *testing.T) memory.Run {
	t.Helper()
	run, err := e.store.Consolidate(context.Background(), memory.ConsolidateOptions{Trigger: memory.TriggerTest})
	if err != nil || run.Status != memory.RunSucceeded {
		t.Fatalf("Consolidate() = %s, %v; want succeeded", run.Status, err)
	}
	return run
}

func (e *denyEnv) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// logged counts the log lines with message msg.
func (e *denyEnv) logged(t *testing.T, msg string) int {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, line := range strings.Split(e.logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			n++
		}
	}
	return n
}

// factState is the id, status and archive reason of the one fact with
// content.
func (e *denyEnv) factState(t *testing.T, content string) (id int64, status, reason string) {
	t.Helper()
	if err := e.pool.QueryRow(context.Background(), `SELECT id, status, coalesce(archive_reason, '')
		FROM entity_facts WHERE content = $1`, content).Scan(&id, &status, &reason); err != nil {
		t.Fatalf("fact %q: %v", content, err)
	}
	return id, status, reason
}

// TestRetractReadsTheDeniedValue checks what a negation denies, across the
// shapes negations take: the attribute (its canonical key) and the value
// in the text's words; a statement, a denial that goes on to the new value
// and a passing state deny nothing.
func TestRetractReadsTheDeniedValue(t *testing.T) {
	for _, tc := range []struct{ text, key, value string }{
		{"I no longer live in Berlin", "home_city", "Berlin"},
		{"I don't live in Berlin anymore.", "home_city", "Berlin"},
		{"I moved away from Berlin last year.", "home_city", "Berlin"},
		{"I'm not based in Lisbon anymore", "home_city", "Lisbon"},
		{"I don't live in São Paulo anymore.", "home_city", "São Paulo"},
		{"I'm not vegetarian anymore", "diet", "vegetarian"},
		{"I'm no longer a vegetarian", "diet", "vegetarian"},
		{"I'm not a strict vegan anymore", "diet", "vegan"},
		{"I quit my job at Acme", "employer", "Acme"},
		{"I left my job at Acme last month", "employer", "Acme"},
		{"I resigned from my position at Umbrella", "employer", "Umbrella"},
		{"Jordan no longer works at Acme", "employer", "Acme"},
		{"I'm not working at Initech anymore", "employer", "Initech"},
		{"I used to be a nurse", "occupation", "nurse"},
		{"Sam no longer works as a barista at Blue Bottle", "occupation", "barista"},
		{"I stopped drinking coffee", "drink", "coffee"},
		{"Honestly, I don't drink tea anymore.", "drink", "tea"},
		{"I live in Berlin", "", ""},
		{"I'm not a nurse anymore, I'm a teacher", "", ""},
		{"The VPN is no longer flaky", "", ""},
		{"Is Jordan still at Acme?", "", ""},
	} {
		key, value := memory.Denial(tc.text, memory.Classify(tc.text, start))
		if key != tc.key || value != tc.value {
			t.Errorf("Denial(%q) = %q, %q; want %q, %q", tc.text, key, value, tc.key, tc.value)
		}
	}
}

// TestRetractThroughConsolidation is the issue: negations pushed as
// working rows retire the value they deny, on the denied key only, and
// file nothing current; recall and the brief no longer give the old value.
func TestRetractThroughConsolidation(t *testing.T) {
	e := newDenyEnv(t)
	ctx := context.Background()
	e.push(t, memory.NewNode{Content: "I live in Berlin"}, memory.NewNode{Content: "I'm vegetarian"},
		memory.NewNode{Content: "I work at Acme"}, memory.NewNode{Content: "I drink coffee every morning"},
		memory.NewNode{Content: "Jordan works at Acme"})
	e.consolidate(t)
	e.advance(time.Hour)
	e.push(t, memory.NewNode{Content: "I no longer live in Berlin"}, memory.NewNode{Content: "I'm not vegetarian anymore"},
		memory.NewNode{Content: "I quit my job at Acme"})
	run := e.consolidate(t)

	for _, tc := range []struct{ fact, denial, key, value string }{
		{"I live in Berlin", "I no longer live in Berlin", "home_city", "Berlin"},
		{"I'm vegetarian", "I'm not vegetarian anymore", "diet", "vegetarian"},
		{"I work at Acme", "I quit my job at Acme", "employer", "Acme"},
	} {
		id, status, reason := e.factState(t, tc.fact)
		record, recordStatus, recordReason := e.factState(t, tc.denial)
		if want := fmt.Sprintf("denied by fact %d: %q", record, tc.denial); status != "archived" || reason != want {
			t.Errorf("%q = %s (%q), want archived (%q)", tc.fact, status, reason, want)
		}
		if want := fmt.Sprintf("denial of %s %q: retired fact %d", tc.key, tc.value, id); recordStatus != "archived" || recordReason != want {
			t.Errorf("denial %q = %s (%q), want its archived record (%q)", tc.denial, recordStatus, recordReason, want)
		}
		if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.deny' AND target_id = $1`, fmt.Sprint(id)); n != 1 {
			t.Errorf("fact.deny audit rows of %q = %d, want 1", tc.fact, n)
		}
		if n := e.count(t, `SELECT count(*) FROM memory_nodes WHERE content = $1 AND promoted_fact_id = $2`, tc.denial, record); n != 1 {
			t.Errorf("the row %q is not promoted into its record %d", tc.denial, record)
		}
	}
	// Another key, and another entity's employer, are left alone.
	for _, fact := range []string{"I drink coffee every morning", "Jordan works at Acme"} {
		if _, status, _ := e.factState(t, fact); status != "active" {
			t.Errorf("%q = %s, want active: no denial named it", fact, status)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active'`); n != 2 {
		t.Errorf("active facts = %d, want 2: a denial is never current", n)
	}
	if got := run.Count(memory.PhasePromote, "denials"); got != 3 {
		t.Errorf("report denials = %d, want 3", got)
	}
	if got := run.Count(memory.PhasePromote, "denied"); got != 3 {
		t.Errorf("report denied = %d, want 3", got)
	}
	if logs := e.logged(t, "consolidation.denied"); logs != 3 {
		t.Errorf("consolidation.denied log lines = %d, want 3", logs)
	}

	res, err := e.store.Recall(ctx, memory.RecallQuery{Scope: "me", Query: "Where do I live? Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if strings.Contains(r.Fact.Content, "Berlin") {
			t.Errorf("recall answers %q (%s): the denied value is no longer current", r.Fact.Content, r.Fact.Status)
		}
	}
	b, err := e.store.ContextBrief(ctx, memory.BriefOptions{Scope: "me"})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"Berlin", "vegetarian", "I work at Acme", "quit"} {
		if strings.Contains(b.Text(), gone) {
			t.Errorf("the brief still says %q:\n%s", gone, b.Text())
		}
	}
	if !strings.Contains(b.Text(), "Jordan works at Acme") {
		t.Errorf("the brief lost Jordan's employer:\n%s", b.Text())
	}
}

// TestRetractUnknownValueChangesNothing: a negation of a value no fact
// holds archives nothing and files nothing current.
func TestRetractUnknownValueChangesNothing(t *testing.T) {
	e := newDenyEnv(t)
	e.push(t, memory.NewNode{Content: "I live in Berlin"})
	e.consolidate(t)
	e.advance(time.Hour)
	e.push(t, memory.NewNode{Content: "I no longer live in Paris"})
	run := e.consolidate(t)
	if _, status, _ := e.factState(t, "I live in Berlin"); status != "active" {
		t.Errorf("Berlin = %s, want active: the denial named Paris", status)
	}
	if _, status, reason := e.factState(t, "I no longer live in Paris"); status != "archived" ||
		reason != `denial of home_city "Paris": no active fact named it` {
		t.Errorf("the denial = %s (%q), want its archived record saying it retired nothing", status, reason)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active'`); n != 1 {
		t.Errorf("active facts = %d, want 1", n)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.deny'`); n != 0 {
		t.Errorf("fact.deny audit rows = %d, want 0", n)
	}
	if got := run.Count(memory.PhasePromote, "denied"); got != 0 {
		t.Errorf("report denied = %d, want 0", got)
	}
}

// TestRetractExtractedRowsAndSynonyms: a row as the extractor stores a
// retraction (key and denies in its properties) retires a fact written
// under a synonym of the key, accents aside, and only the facts observed
// before it.
func TestRetractExtractedRowsAndSynonyms(t *testing.T) {
	e := newDenyEnv(t)
	ctx := context.Background()
	old := start.Add(-48 * time.Hour)
	for _, in := range []memory.NewFact{
		{Scope: "me", Entity: "Ana", Key: "lives_in", Content: "Ana lives in Zürich", ObservedAt: &old},
		{Scope: "me", Entity: "Ana", Key: "works_at", Content: "Ana works at Globex", ObservedAt: &old},
	} {
		if _, _, err := e.store.CreateFact(ctx, agent, in); err != nil {
			t.Fatal(err)
		}
	}
	e.advance(time.Hour)
	// Observed before Ana said it: Ana moved back to Zürich after the
	// denial, so the later statement holds.
	denied := start.Add(-24 * time.Hour)
	later := start.Add(-time.Hour)
	if _, _, err := e.store.CreateFact(ctx, agent, memory.NewFact{Scope: "me", Entity: "Ana", Key: "works_at",
		Content: "Ana works at Initech", ObservedAt: &later}); err != nil {
		t.Fatal(err)
	}
	extracted := func(content, key, value string, at time.Time) memory.NewNode {
		return memory.NewNode{Content: content, ObservedAt: &at, Properties: map[string]any{"entity": "Ana", "key": key,
			"denies": value, "category": "observation", "fact_durability": "long_term"}}
	}
	e.push(t, extracted("Ana doesn't live in Zurich anymore", "home_city", "Zurich", denied),
		extracted("Ana no longer works at Initech", "employer", "Initech", denied))
	e.consolidate(t)
	if _, status, reason := e.factState(t, "Ana lives in Zürich"); status != "archived" || !strings.HasPrefix(reason, "denied by fact ") {
		t.Errorf("Zürich = %s (%q), want denied", status, reason)
	}
	if _, status, _ := e.factState(t, "Ana works at Initech"); status != "active" {
		t.Errorf("Initech = %s, want active: it was observed after the denial", status)
	}
	if _, status, _ := e.factState(t, "Ana works at Globex"); status != "active" {
		t.Errorf("Globex = %s, want active: the denial named Initech", status)
	}
}

// TestRetractSameBatch: a value and its denial pushed together, in the
// order they were observed, leave nothing current on the key.
func TestRetractSameBatch(t *testing.T) {
	e := newDenyEnv(t)
	said := start.Add(-time.Hour)
	e.push(t, memory.NewNode{Content: "I no longer live in Berlin"}, memory.NewNode{Content: "I live in Berlin", ObservedAt: &said})
	e.consolidate(t)
	if _, status, _ := e.factState(t, "I live in Berlin"); status != "archived" {
		t.Errorf("Berlin = %s, want archived: the denial was observed after it", status)
	}
}

// TestRetractLockedDecision: a negation on the key of a locked decision is
// refused as decision_locked, logged and queued; it retires nothing.
func TestRetractLockedDecision(t *testing.T) {
	e := newDenyEnv(t)
	ctx := context.Background()
	e.push(t, memory.NewNode{Content: "I live in Berlin"})
	e.consolidate(t)
	if _, err := e.store.RecordDecision(ctx, memory.Human("ann@example.com"), memory.NewDecision{Scope: "me", Entity: memory.UserEntity,
		Key: "home_city", Decision: "We stay in Berlin", Reasoning: "the team and the school are here"}); err != nil {
		t.Fatal(err)
	}
	e.advance(time.Hour)
	e.push(t, memory.NewNode{Content: "I no longer live in Berlin"})
	run := e.consolidate(t)
	if run.DecisionLocked != 1 {
		t.Errorf("decision_locked = %d, want 1", run.DecisionLocked)
	}
	if _, status, _ := e.factState(t, "I live in Berlin"); status != "active" {
		t.Errorf("Berlin = %s, want active: a locked decision holds the key", status)
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts WHERE content = 'I no longer live in Berlin'`); n != 0 {
		t.Errorf("the refused denial was recorded %d times", n)
	}

	// A direct write by an automated writer is refused the same way.
	_, _, err := e.store.CreateFact(ctx, agent, memory.NewFact{Scope: "me", Entity: memory.UserEntity, Content: "I don't live in Berlin anymore"})
	var me *memory.Error
	if !errors.As(err, &me) || me.Locked == nil {
		t.Errorf("CreateFact(denial on a locked key) error = %v, want decision_locked", err)
	}
	if _, status, _ := e.factState(t, "I live in Berlin"); status != "active" {
		t.Errorf("Berlin = %s after a refused direct denial, want active", status)
	}
}

// TestRetractCreateFact: a direct write of a negation retires what it
// denies and answers with its archived record.
func TestRetractCreateFact(t *testing.T) {
	e := newDenyEnv(t)
	ctx := context.Background()
	berlin, _, err := e.store.CreateFact(ctx, agent, memory.NewFact{Scope: "me", Entity: memory.UserEntity, Key: "home_city", Content: "I live in Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	e.advance(time.Minute)
	f, reinforced, err := e.store.CreateFact(ctx, agent, memory.NewFact{Scope: "me", Entity: memory.UserEntity, Content: "I no longer live in Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`denial of home_city "Berlin": retired fact %d`, berlin.ID)
	if reinforced || f.Status != memory.StatusArchived || f.Key != "home_city" || f.ArchiveReason != want {
		t.Errorf("CreateFact(denial) = %s %s %q, want the archived record (%q)", f.Status, f.Key, f.ArchiveReason, want)
	}
	got, err := e.store.GetFact(ctx, berlin.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != memory.StatusArchived || got.ArchiveReason != fmt.Sprintf("denied by fact %d: %q", f.ID, "I no longer live in Berlin") {
		t.Errorf("Berlin = %s (%q), want denied by fact %d", got.Status, got.ArchiveReason, f.ID)
	}
	// Under another key, the writer files the text as a fact of its own.
	other, _, err := e.store.CreateFact(ctx, agent, memory.NewFact{Scope: "me", Entity: memory.UserEntity, Key: "former_city", Content: "I used to live in Leeds"})
	if err != nil || other.Status != memory.StatusActive {
		t.Errorf("CreateFact(key former_city) = %s, %v; want an active fact", other.Status, err)
	}
}

// TestRetractThroughExtractStore: what the rule-based extractor finds in a
// conversation, stored as the API's store mode stores it (extract.Nodes,
// PushNoted), retires the denied values through consolidation and files
// the stated ones.
func TestRetractThroughExtractStore(t *testing.T) {
	e := newDenyEnv(t)
	ctx := context.Background()
	store := func(text string) {
		t.Helper()
		cands, err := extract.Rules{}.ExtractAs(ctx, text, "", "Grace", e.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.PushNoted(ctx, agent, "me", extract.Nodes(extract.ModeRules, cands), memory.PushOptions{}); err != nil {
			t.Fatal(err)
		}
		e.consolidate(t)
	}
	store("I'm vegetarian. I work at Acme. I drink coffee every morning.")
	e.advance(time.Hour)
	store("Quick update: I'm not vegetarian anymore. I quit my job at Acme. Can you update my profile?")
	for _, tc := range []struct{ fact, status string }{
		{"I'm vegetarian.", "archived"},
		{"I work at Acme.", "archived"},
		{"I drink coffee every morning.", "active"},
	} {
		if _, status, reason := e.factState(t, tc.fact); status != tc.status ||
			tc.status == "archived" && !strings.HasPrefix(reason, "denied by fact ") {
			t.Errorf("%q = %s (%q), want %s", tc.fact, status, reason, tc.status)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM entity_facts f JOIN entities x ON x.id = f.entity_id
		WHERE f.status = 'active' AND x.name = 'Grace'`); n != 1 {
		t.Errorf("Grace's active facts = %d, want 1 (coffee): a retraction is never current", n)
	}
}
