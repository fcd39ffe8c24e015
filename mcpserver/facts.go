package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// An agent cleans up after itself: correct fixes a fact it wrote wrong,
// forget archives one that no longer holds. Both act on one fact of the
// token's scope, with a reason the audit log keeps under the token's name
// (memory.Token), and every rule about what an automated writer may do is
// the engine's: moods never harden (memory.UpdateFact), a locked decision's
// key refuses the change (decision_locked, logged and queued for review).

// Tool names.
const (
	toolCorrect = "correct"
	toolForget  = "forget"
)

// Both change one fact, so neither adds rows: correct overwrites what the
// fact says (the earlier values are kept only in the audit log) and a new
// key or category may supersede other facts, forget archives it; both are
// destructive, though a reviewer can undo either. Both are idempotent: the
// same correction again finds nothing to change (or, with version, a
// version it already moved past), and an archived fact stays archived.
var (
	correctAnnotations = annotations("Correct a fact", false, true, true, false)
	forgetAnnotations  = annotations("Forget a fact", false, true, true, false)
)

// factExamples are the example calls listed in the two tools' schemas.
var factExamples = map[string]map[string]any{
	toolCorrect: {"fact_id": 42, "content": "Ann lives in Munich.", "key": "home_city",
		"reason": "Ann said she moved to Munich in May; Berlin was her old city."},
	toolForget: {"fact_id": 42, "reason": "Ann was only joking about learning the tuba."},
}

// registerFacts adds correct and forget to s; they are writer tools
// (writeTools), so a reader's server never lists them.
func (t *tools) registerFacts(s *mcp.Server) {
	addTool(t, s, &mcp.Tool{
		Name:  toolCorrect,
		Title: "Correct a fact",
		Description: "Correct one fact of your scope that is wrong: give its fact_id (as recall returns it), what is wrong " +
			"(new content, key, category or durability) and a reason, which the audit log keeps under your token's name. " +
			"The REST API's counterpart is updateFact (PATCH /api/v1/scopes/{scope}/facts/{id}). As an automated writer you may " +
			"lower a fact's durability but never raise it, and never turn a mood or state into another category: only a " +
			"reviewer can. A fact on the key of a locked decision is refused (decision_locked, with the decision's reasoning); " +
			"a fact that records a decision changes by recording a new decision. A new key or category may supersede other " +
			"facts (archived, restorable). Give version (as you read it) to refuse the change if someone changed the fact since.",
		Annotations: correctAnnotations,
	}, true, t.correct)
	addTool(t, s, &mcp.Tool{
		Name:  toolForget,
		Title: "Forget a fact",
		Description: "Forget one fact of your scope that is wrong or no longer holds: it is archived, never deleted, with your " +
			"reason as its archive reason, audited under your token's name, and no longer recalled or briefed; a reviewer " +
			"can restore it in the console. A fact on the key of a locked decision is refused (decision_locked, with the " +
			"decision's reasoning), and a fact that records a decision is not forgotten: record a new decision instead. " +
			"Forgetting an archived fact changes nothing. The REST API has no archive operation: updateFact edits a fact, " +
			"it does not archive one.",
		Annotations: forgetAnnotations,
	}, true, t.forget)
}

// factSchemas adds the listed input schemas of correct and forget to out
// (see inputSchemas): the durability a vocabulary, the ids and the version
// bounded, and an example each.
func factSchemas(out map[string]*jsonschema.Schema) error {
	s, err := jsonschema.For[correctInput](nil)
	if err != nil {
		return fmt.Errorf("%s input schema: %w", toolCorrect, err)
	}
	setEnum(s, "durability", enumOf(memory.Durabilities()))
	setMin(s, "fact_id", 1)
	setRange(s, "version", memory.VersionBound.Min(), memory.VersionBound.Max())
	if p := s.Properties["content"]; p != nil {
		p.MaxLength = intp(maxContentLength)
	}
	idempotencyKeySchema(s)
	s.Examples = []any{factExamples[toolCorrect]}
	out[toolCorrect] = s

	s, err = jsonschema.For[forgetInput](nil)
	if err != nil {
		return fmt.Errorf("%s input schema: %w", toolForget, err)
	}
	setMin(s, "fact_id", 1)
	idempotencyKeySchema(s)
	s.Examples = []any{factExamples[toolForget]}
	out[toolForget] = s
	return nil
}

// correct

type correctInput struct {
	idempotency
	FactID     int64   `json:"fact_id" jsonschema:"the id of the fact to correct, as recall returns it (fact.id)"`
	Content    *string `json:"content,omitempty" jsonschema:"what the fact should say"`
	Key        *string `json:"key,omitempty" jsonschema:"the attribute the fact sets, a short slug such as home_city; empty for none"`
	Category   *string `json:"category,omitempty" jsonschema:"the fact's category (observation, preference, identity, mood, routine, state, obligation, ...); a mood or state keeps its category"`
	Durability *string `json:"durability,omitempty" jsonschema:"how long the fact persists: permanent, long_term, short_term or ephemeral; it may be lowered, never raised"`
	Reason     string  `json:"reason" jsonschema:"why the fact was wrong (at most 2000 characters): the audit log keeps it for reviewers"`
	Version    *int32  `json:"version,omitempty" jsonschema:"the fact.version you read: if the fact changed since, the correction is refused"`
}

func (t *tools) correct(ctx context.Context, c TokenInfo, in correctInput) (*mcp.CallToolResult, wire.Fact, error) {
	if in.Content == nil && in.Key == nil && in.Category == nil && in.Durability == nil {
		return nil, wire.Fact{}, memory.Invalidf("", "nothing to correct: give the fact's new content, key, category or durability")
	}
	if err := memory.RequireReason(in.Reason); err != nil {
		return nil, wire.Fact{}, err
	}
	// The arguments' bounds first, then whether the fact is there.
	if in.Content != nil {
		if n := utf8.RuneCountInString(strings.TrimSpace(*in.Content)); n > maxContentLength {
			return nil, wire.Fact{}, memory.Invalidf("content", "the content is %d characters long: at most %d are allowed", n, maxContentLength)
		}
	}
	ch := memory.FactChanges{Content: in.Content, Key: in.Key, Category: in.Category}
	if in.Durability != nil {
		d, err := memory.ParseDurability(*in.Durability)
		if err != nil {
			return nil, wire.Fact{}, err
		}
		ch.Durability = &d
	}
	cur, err := t.store.ScopedFact(ctx, c.Scope, in.FactID, "fact_id")
	if err != nil {
		return nil, wire.Fact{}, err
	}
	version := cur.Version
	if in.Version != nil {
		version = *in.Version
	}
	f, err := t.store.UpdateFact(ctx, memory.Token(c.Name), cur.ID, version, ch, in.Reason)
	if err != nil {
		return nil, wire.Fact{}, factError(err)
	}
	return textResult(correctedText(cur, f)), wire.NewFact(f), nil
}

// correctedText is correct's answer in one line: what changed and what the
// fact says now.
func correctedText(before, after memory.Fact) string {
	var changed []string
	for _, c := range []struct {
		name string
		diff bool
	}{
		{"content", before.Content != after.Content},
		{"key", before.Key != after.Key},
		{"category", before.Category != after.Category},
		{"durability", before.Durability != after.Durability},
	} {
		if c.diff {
			changed = append(changed, c.name)
		}
	}
	if len(changed) == 0 {
		return fmt.Sprintf("Fact %d (%s) already says so; nothing changed.", after.ID, factLabel(after))
	}
	text := fmt.Sprintf("Corrected fact %d (%s; %s changed): now %q (%s, %s), version %d.",
		after.ID, factLabel(after), strings.Join(changed, ", "), oneLine(after.Content), after.Category, after.Durability, after.Version)
	if after.Status == memory.StatusArchived {
		text += " It is archived: " + oneLine(after.ArchiveReason) + "."
	}
	return text
}

// forget

type forgetInput struct {
	idempotency
	FactID int64  `json:"fact_id" jsonschema:"the id of the fact to forget, as recall returns it (fact.id)"`
	Reason string `json:"reason" jsonschema:"why the fact no longer holds (at most 2000 characters): it becomes the fact's archive reason, which reviewers read"`
}

func (t *tools) forget(ctx context.Context, c TokenInfo, in forgetInput) (*mcp.CallToolResult, wire.Fact, error) {
	f, archived, err := t.store.ForgetFact(ctx, memory.Token(c.Name), c.Scope, in.FactID, in.Reason, "fact_id")
	if err != nil {
		return nil, wire.Fact{}, err
	}
	if !archived {
		return textResult(fmt.Sprintf("Fact %d (%s) was already archived (%s); nothing changed.",
			f.ID, factLabel(f), oneLine(f.ArchiveReason))), wire.NewFact(f), nil
	}
	return textResult(fmt.Sprintf("Forgot fact %d (%s) %q: archived with your reason; a reviewer can restore it.",
		f.ID, factLabel(f), oneLine(f.Content))), wire.NewFact(f), nil
}

// factError names the engine's fields as the tools do: the fact's id is
// fact_id.
func factError(err error) error {
	e := memory.AsError(err)
	if e == nil || e.Field != "id" {
		return err
	}
	renamed := *e
	renamed.Field = "fact_id"
	return &renamed
}

// factLabel is a fact's entity and key, as recall shows them.
func factLabel(f memory.Fact) string {
	if f.Key == "" {
		return oneLine(f.Entity)
	}
	return oneLine(f.Entity) + " / " + f.Key
}
