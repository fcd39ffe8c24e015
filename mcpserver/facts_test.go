package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// factOut is correct's and forget's structured content: the fact whole.
type factOut struct {
	ID            int64  `json:"id"`
	Scope         string `json:"scope"`
	Entity        string `json:"entity"`
	Key           string `json:"key"`
	Content       string `json:"content"`
	Category      string `json:"category"`
	Durability    string `json:"durability"`
	Status        string `json:"status"`
	ArchiveReason string `json:"archive_reason"`
	Version       int32  `json:"version"`
}

var reviewer = memory.Human("ann@example.com")

// newFact writes a fact as a reviewer and returns it.
func newFact(t *testing.T, f *mcpFixture, in memory.NewFact) memory.Fact {
	t.Helper()
	fact, _, err := f.store.CreateFact(context.Background(), reviewer, in)
	if err != nil {
		t.Fatal(err)
	}
	return fact
}

// oneProseLine checks that a tool's text is one line of prose, not JSON.
func oneProseLine(t *testing.T, tool, text string) {
	t.Helper()
	if strings.Contains(text, "\n") || strings.HasPrefix(text, "{") || text == "" {
		t.Errorf("%s text = %q, want one line of prose", tool, text)
	}
}

// TestCorrect: correct changes a fact's content, key and category, with
// the reason audited under the token; the same correction again changes
// nothing; a stale version is refused with the current one.
func TestCorrect(t *testing.T) {
	f := newMCPFixture(t)
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	fact := newFact(t, f, memory.NewFact{Scope: "acme", Entity: "Ann", Key: "note", Content: "Ann lives in Berlin", Category: "observation"})

	args := map[string]any{"fact_id": fact.ID, "content": "Ann lives in Munich", "key": "home_city", "category": "identity",
		"reason": "Ann moved to Munich in May"}
	var out factOut
	res := call(t, cs, "correct", args, &out)
	if out.ID != fact.ID || out.Content != "Ann lives in Munich" || out.Key != "home_city" || out.Category != "identity" ||
		out.Scope != "acme" || out.Status != "active" || out.Version != fact.Version+1 {
		t.Errorf("correct = %+v, want the fact with its new content, key and category, one version on", out)
	}
	text := toolText(res)
	oneProseLine(t, "correct", text)
	if !strings.Contains(text, "content, key, category changed") || !strings.Contains(text, "Ann lives in Munich") {
		t.Errorf("correct text = %q, want what changed and what the fact says now", text)
	}
	const audited = `SELECT count(*) FROM audit_log WHERE action = 'fact.update' AND actor = 'token:agent' AND target_id = $1::bigint::text AND reason = 'Ann moved to Munich in May'`
	if n := f.count(t, audited, fact.ID); n != 1 {
		t.Errorf("audit rows of the correction by token:agent with its reason = %d, want 1", n)
	}

	// Again: nothing to change, nothing written.
	res = call(t, cs, "correct", args, &out)
	if text := toolText(res); !strings.Contains(text, "nothing changed") || out.Version != fact.Version+1 {
		t.Errorf("correct again = %q (version %d), want nothing changed", text, out.Version)
	}
	if n := f.count(t, audited, fact.ID); n != 1 {
		t.Errorf("audit rows after the same correction again = %d, want 1", n)
	}

	// A version read before someone else's change is refused.
	msg := callError(t, cs, "correct", map[string]any{"fact_id": fact.ID, "content": "Ann lives in Hamburg",
		"reason": "a stale read", "version": fact.Version})
	if !strings.Contains(msg, "changed by someone else (now version 2)") {
		t.Errorf("stale correction error = %q, want the current version", msg)
	}
	// A durability may go down.
	call(t, cs, "correct", map[string]any{"fact_id": fact.ID, "durability": "short_term", "reason": "she may move again"}, &out)
	if out.Durability != "short_term" {
		t.Errorf("durability lowered = %q, want short_term", out.Durability)
	}
}

// TestForget: forget archives a fact with the reason, audited under the
// token; a reviewer can restore it; forgetting it again changes nothing.
func TestForget(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	fact := newFact(t, f, memory.NewFact{Scope: "acme", Entity: "Ann", Key: "instrument", Content: "Ann is learning the tuba", Category: "observation"})

	var out factOut
	res := call(t, cs, "forget", map[string]any{"fact_id": fact.ID, "reason": "Ann was joking about the tuba"}, &out)
	if out.ID != fact.ID || out.Status != "archived" || out.ArchiveReason != "Ann was joking about the tuba" || out.Content != fact.Content {
		t.Errorf("forget = %+v, want the fact archived with the reason", out)
	}
	oneProseLine(t, "forget", toolText(res))
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.archive' AND actor = 'token:agent' AND target_id = $1::bigint::text AND reason = 'Ann was joking about the tuba'`,
		fact.ID); n != 1 {
		t.Errorf("audit rows of the archive by token:agent with its reason = %d, want 1", n)
	}
	var recalled recallOut
	call(t, cs, "recall", map[string]any{"query": "tuba"}, &recalled)
	if len(recalled.Results) != 0 {
		t.Errorf("recall(tuba) after forget = %+v, want nothing", recalled.Results)
	}

	res = call(t, cs, "forget", map[string]any{"fact_id": fact.ID, "reason": "again"}, &out)
	if text := toolText(res); !strings.Contains(text, "already archived") || out.ArchiveReason != "Ann was joking about the tuba" {
		t.Errorf("forget again = %q (%+v), want already archived, the first reason kept", text, out)
	}

	if n, err := f.store.RestoreFacts(ctx, reviewer, []int64{fact.ID}, "it was true after all"); err != nil || n != 1 {
		t.Fatalf("RestoreFacts = %d, %v; want the fact restored", n, err)
	}
	if got, err := f.store.GetFact(ctx, fact.ID); err != nil || got.Status != memory.StatusActive {
		t.Errorf("restored fact = %+v, %v; want it active", got, err)
	}
}

// TestReaderHasNoFactTools: a reader token neither lists nor may call
// correct and forget.
func TestReaderHasNoFactTools(t *testing.T) {
	f := newMCPFixture(t)
	reader := desktopAgent(t, f.url, f.token(t, "dashboard", "acme", auth.TokenReader))
	tools := listTools(t, reader)
	for _, name := range []string{"correct", "forget"} {
		if _, ok := tools[name]; ok {
			t.Errorf("a reader's tools/list shows %s", name)
		}
	}
	fact := newFact(t, f, memory.NewFact{Scope: "acme", Entity: "Ann", Key: "drink", Content: "Ann likes tea", Category: "preference"})
	for name, args := range map[string]map[string]any{
		"correct": {"fact_id": fact.ID, "content": "Ann likes coffee", "reason": "wrong"},
		"forget":  {"fact_id": fact.ID, "reason": "wrong"},
	} {
		if msg := callError(t, reader, name, args); !strings.Contains(msg, `token "dashboard" is a reader token`) {
			t.Errorf("%s by a reader: error = %q, want the reader refusal", name, msg)
		}
	}
	if got, _ := f.store.GetFact(context.Background(), fact.ID); got.Version != fact.Version || got.Status != memory.StatusActive {
		t.Errorf("fact after a reader's calls = %+v, want it unchanged", got)
	}
}

// TestFactToolRefusals: an unknown id, another scope's fact, a locked
// decision's fact or key, a mood raised or turned into another category,
// an open decision's fact, no reason or nothing to correct: each is
// refused with what is wrong, naming the argument, and changes nothing.
func TestFactToolRefusals(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	cs := f.connect(t, f.token(t, "agent", "acme", auth.TokenWriter))
	other := newFact(t, f, memory.NewFact{Scope: "other", Entity: "Ann", Key: "drink", Content: "Ann likes tea", Category: "preference"})
	mood := newFact(t, f, memory.NewFact{Scope: "acme", Entity: "Ann", Key: "mood", Content: "Ann is so tired today", Category: "mood"})
	locked, err := f.store.RecordDecision(ctx, reviewer, memory.NewDecision{Scope: "acme", Entity: "backend", Key: "database",
		Decision: "Use PostgreSQL", Reasoning: "the team runs it and payments need transactions"})
	if err != nil {
		t.Fatal(err)
	}
	onLockedKey := newFact(t, f, memory.NewFact{Scope: "acme", Entity: "backend", Key: "database", Content: "The backend runs PostgreSQL 16", Category: "observation"})
	open, err := f.store.RecordDecision(ctx, reviewer, memory.NewDecision{Scope: "acme", Entity: "cli", Key: "language",
		Decision: "Write the CLI in Go", Reasoning: "the team knows it well", DoNotReopen: new(bool)})
	if err != nil {
		t.Fatal(err)
	}
	plain := newFact(t, f, memory.NewFact{Scope: "acme", Entity: "Ann", Key: "drink", Content: "Ann likes coffee", Category: "preference"})

	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       []string
	}{
		{"unknown id", "correct", map[string]any{"fact_id": 999999, "content": "x", "reason": "wrong"},
			[]string{"fact_id: no fact with id 999999 in scope acme"}},
		{"unknown id", "forget", map[string]any{"fact_id": 999999, "reason": "wrong"},
			[]string{"fact_id: no fact with id 999999 in scope acme"}},
		{"other scope", "correct", map[string]any{"fact_id": other.ID, "content": "Ann likes coffee", "reason": "wrong"},
			[]string{"fact_id: no fact with id " + itoa(other.ID) + " in scope acme"}},
		{"other scope", "forget", map[string]any{"fact_id": other.ID, "reason": "wrong"},
			[]string{"fact_id: no fact with id " + itoa(other.ID) + " in scope acme"}},
		{"locked decision's fact", "correct", map[string]any{"fact_id": locked.FactID, "content": "Use MongoDB", "reason": "changed our minds"},
			[]string{"decision_locked", "decision " + itoa(locked.ID), "payments need transactions"}},
		{"locked decision's fact", "forget", map[string]any{"fact_id": locked.FactID, "reason": "changed our minds"},
			[]string{"decision_locked", "decision " + itoa(locked.ID)}},
		{"fact on a locked key", "correct", map[string]any{"fact_id": onLockedKey.ID, "content": "The backend runs MongoDB", "reason": "migrated"},
			[]string{"decision_locked", "decision " + itoa(locked.ID)}},
		{"fact on a locked key", "forget", map[string]any{"fact_id": onLockedKey.ID, "reason": "migrated"},
			[]string{"decision_locked", "decision " + itoa(locked.ID)}},
		{"mood raised to permanent", "correct", map[string]any{"fact_id": mood.ID, "durability": "permanent", "reason": "she is always tired"},
			[]string{"durability:", "may not raise its durability to permanent", "only a reviewer"}},
		{"mood made an identity", "correct", map[string]any{"fact_id": mood.ID, "category": "identity", "reason": "she is a tired person"},
			[]string{"category:", "moods and states never harden"}},
		{"open decision's fact", "forget", map[string]any{"fact_id": open.FactID, "reason": "we use Rust now"},
			[]string{"fact_id:", "records decision " + itoa(open.ID), "record a new decision"}},
		{"open decision's fact", "correct", map[string]any{"fact_id": open.FactID, "content": "Write the CLI in Rust", "reason": "we use Rust now"},
			[]string{"fact_id:", "records decision " + itoa(open.ID)}},
		{"no reason", "correct", map[string]any{"fact_id": plain.ID, "content": "Ann likes green tea", "reason": " "},
			[]string{"reason: a reason is required"}},
		{"no reason", "forget", map[string]any{"fact_id": plain.ID, "reason": ""},
			[]string{"reason: a reason is required"}},
		{"nothing to correct", "correct", map[string]any{"fact_id": plain.ID, "reason": "wrong"},
			[]string{"nothing to correct", "content, key, category or durability"}},
		{"unknown durability", "correct", map[string]any{"fact_id": plain.ID, "durability": "forever", "reason": "wrong"},
			[]string{"forever", "permanent, long_term, short_term, ephemeral"}},
	} {
		msg := callError(t, cs, c.tool, c.args)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %s: error = %q, want it to say %q", c.tool, c.name, msg, w)
			}
		}
	}
	for _, before := range []memory.Fact{other, mood, onLockedKey, plain} {
		after, err := f.store.GetFact(ctx, before.ID)
		if err != nil || after.Version != before.Version || after.Status != before.Status || after.Durability != before.Durability {
			t.Errorf("fact %d after refusals = %+v, %v; want it unchanged", before.ID, after, err)
		}
	}
	for _, d := range []memory.Decision{locked, open} {
		if after, err := f.store.GetFact(ctx, d.FactID); err != nil || after.Status != memory.StatusActive || after.Content != d.Decision {
			t.Errorf("decision %d's fact after refusals = %+v, %v; want it unchanged", d.ID, after, err)
		}
	}
	// Each refusal on the locked key is logged for review, as any automated write.
	if n := f.count(t, `SELECT count(*) FROM consolidation_rejections WHERE reason = 'decision_locked' AND decision_id = $1`, locked.ID); n != 4 {
		t.Errorf("logged refusals of writes on the locked key = %d, want 4", n)
	}
}
