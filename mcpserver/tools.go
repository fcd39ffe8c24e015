package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenurehq/tenure/extract"
	"github.com/tenurehq/tenure/internal/httpx"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/wire"
)

// tools are the MCP tools over one Store.
type tools struct {
	store      *memory.Store
	logger     *slog.Logger
	extractor  Extractor
	extractors *extract.Set
	llm        bool // the extract tool may call an LLM endpoint
}

// Tool names.
const (
	toolRemember       = "remember"
	toolRecall         = "recall"
	toolContext        = "context"
	toolRecordDecision = "record_decision"
	toolSetDurability  = "set_durability"
	toolListDecisions  = "list_decisions"
	toolExtract        = "extract"
)

// Limits of extract's input.
const (
	maxExtractText      = 50000
	maxEntityNameLength = 200
)

// renamedTools maps the deprecated names of tools to their names now. A
// call by an old name is served as a call by the new one; tools/list shows
// only the new names.
var renamedTools = map[string]string{
	// It sets the marker either way: durable, transient or expired.
	"upgrade_durability": toolSetDurability,
}

// renames serves calls made by a tool's deprecated name (renamedTools).
func renames(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			if name, ok := renamedTools[call.Params.Name]; ok {
				call.Params.Name = name
			}
		}
		return next(ctx, method, req)
	}
}

// writeTools are the tools only a writer token may call; a reader's server
// does not list them, and refuses them by name (refuseWrites). extract
// writes only with store, which its handler refuses to readers.
var writeTools = map[string]bool{toolRemember: true, toolRecordDecision: true, toolSetDurability: true, toolCorrect: true, toolForget: true}

// Tool annotations tell a client what a call may do before it makes it.
// Every tool works on this server's database only, so openWorldHint is false,
// except extract's when the server has an LLM endpoint (mode llm sends the
// text to it). A read tool changes nothing. remember and record_decision only
// add rows (a new decision on a key replaces the current one, which is kept,
// superseded), so they are not destructive, and not idempotent: each call
// adds a row. set_durability is idempotent (setting a marker twice is
// setting it once) and destructive: "expired" retires a row, which the next
// cleanup deletes. extract adds rows only with store; for a reader token,
// which cannot store, it is read-only.
func annotations(title string, readOnly, destructive, idempotent, openWorld bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    readOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  idempotent,
		OpenWorldHint:   &openWorld,
	}
}

// register adds the tools to s: all of them, or for reader tokens only those
// that read.
func (t *tools) register(s *mcp.Server, reader bool) {
	s.AddReceivingMiddleware(advertise(listedSchemas()), t.boundNumbers, t.requireArguments(reader))
	if !reader {
		addTool(t, s, &mcp.Tool{
			Name:  toolRemember,
			Title: "Remember",
			Description: "Write one working-memory row (content) or a batch (rows, at most 1000) to your scope. " +
				"Consolidation later turns durable rows into long-term facts. Give durability \"transient\" for what is true now " +
				"but will soon be wrong (\"is in a meeting\"): such rows are never promoted. Importance is a separate axis. " +
				"One invalid row refuses the whole batch and nothing is written. The answer warns, row by row, of what will not " +
				"become a new fact: a row on the entity and key of a locked decision (consolidation will refuse it; the decision " +
				"and its reasoning are given), a row repeating a live fact word for word (it only reinforces that fact) and a row " +
				"observed so long ago that its fact is already forgotten. With strict true such a batch is refused whole and nothing is written. " +
				"Give observed_at (RFC 3339) for what was said earlier, as when replaying a conversation: the fact ages from then, and of two " +
				"values of one attribute the later-observed one is current, whichever you write first.",
			Annotations: annotations("Remember", false, false, false, false),
		}, true, t.remember)
	}
	addTool(t, s, &mcp.Tool{
		Name:  toolRecall,
		Title: "Recall",
		Description: "Search long-term memory of your scope. Pass the question as you would ask it (\"What did Caroline " +
			"research?\"): facts holding any of its words match, ranked by BM25 relevance (rarer words weigh more) times their " +
			"confidence now (confidence decays with time). A fact's words include its entity's name and key. " +
			"\"exact phrase\" must occur, -word must not; without a query the most confident facts come first. Decisions come with their reasoning. A query also finds the durable rows you " +
			"remembered that no consolidation run has promoted yet, at once, marked pending (not yet consolidated).",
		Annotations: annotations("Recall", true, false, true, false),
	}, false, t.recall)
	addTool(t, s, &mcp.Tool{
		Name:  toolContext,
		Title: "Context brief",
		Description: "Call at the start of a turn: the compact state you must not forget, within a budget of characters: " +
			"settled decisions with their reasoning (never reopen them), obligations due within 14 days or overdue, " +
			"current short-term states, then the most confident durable facts. Later in a long session, pass since (the " +
			"time of your last brief) to get only what changed after it: new facts, facts superseded or archived, " +
			"decisions recorded, reopened or locked again.",
		Annotations: annotations("Context brief", true, false, true, false),
	}, false, t.contextBrief)
	if !reader {
		addTool(t, s, &mcp.Tool{
			Name:  toolRecordDecision,
			Title: "Record decision",
			Description: "Record a decision with its reasoning and the alternatives rejected. By default it is locked " +
				"(do_not_reopen): no agent may then write on the same entity and key; only a reviewer can reopen it. " +
				"Recording over a locked decision is refused with the decision's id and reasoning. " +
				"A decision on a key that has an open one replaces it; the replaced decision is kept, superseded.",
			Annotations: annotations("Record decision", false, false, false, false),
		}, true, t.recordDecision)
		addTool(t, s, &mcp.Tool{
			Name:  toolSetDurability,
			Title: "Set a row's durability marker",
			Description: "Set the durability marker of one working row of your scope: \"durable\" promotes it (consolidation " +
				"may then make it a fact), \"expired\" retires it (it is deleted at the next cleanup and never becomes a fact), " +
				"\"transient\" holds it back. Every other property of the row is kept. (Formerly upgrade_durability; that name is still served.)",
			Annotations: annotations("Set durability marker", false, true, true, false),
		}, true, t.setDurability)
		t.registerFacts(s) // correct and forget (facts.go)
	}
	addTool(t, s, &mcp.Tool{
		Name:  toolListDecisions,
		Title: "List decisions",
		Description: "List the decisions of your scope, newest first, optionally for one entity, only locked (or only unlocked) ones, " +
			"by state (current: locked; superseded: replaced by a later decision on the same key; reopened by a reviewer; open: never locked), " +
			"or matching a text. A replaced decision says which decision replaced it.",
		Annotations: annotations("List decisions", true, false, true, false),
	}, false, t.listDecisions)
	desc := "Turn a text into candidate facts, each classified on both axes (durability and category) with the " +
		"classifier's reason. \"I\", \"me\" and \"my\" are the speaker (by default the name they introduce " +
		"themselves with, else the user). "
	if reader {
		desc += "Your token is a reader token: it may not store the candidates (store true is refused)."
	} else {
		desc += "With store true, the candidates are written as working rows (their axes " +
			"in the rows' properties) so consolidation's gates decide what becomes a fact, with the warnings remember gives; " +
			"strict true then refuses the write when any candidate would get one."
	}
	if t.llm {
		desc += " Mode rules runs offline; mode llm sends the text to the LLM endpoint configured on this server, outside Tenure."
	} else {
		desc += " It runs offline: this server has no LLM endpoint for mode llm."
	}
	addTool(t, s, &mcp.Tool{
		Name:        toolExtract,
		Title:       "Extract facts",
		Description: desc,
		Annotations: annotations("Extract facts", reader, false, false, t.llm),
	}, false, t.extract)
}

// refuseWrites answers a reader's call of a write tool, which its server does
// not list, with the same tool error as a refused write (errReader) rather
// than the SDK's "unknown tool".
func (t *tools) refuseWrites(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil || !writeTools[call.Params.Name] {
			return next(ctx, method, req)
		}
		c, err := callerOf(call)
		if err != nil {
			return nil, err
		}
		err = t.toolError(call.Params.Name, c, errReader(c, call.Params.Name))
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
}

// addTool adds a tool whose handler gets the caller, refuses reader tokens
// when the tool writes, and turns the engine's errors into tool errors.
func addTool[In, Out any](t *tools, s *mcp.Server, tool *mcp.Tool, writes bool,
	h func(ctx context.Context, c TokenInfo, in In) (*mcp.CallToolResult, Out, error)) {
	mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		c, err := callerOf(req)
		if err != nil {
			return nil, zero, err
		}
		if writes && c.Reader() {
			return nil, zero, t.toolError(tool.Name, c, errReader(c, tool.Name))
		}
		if writes {
			// What a write checks before writing is read where it writes,
			// not on a standby (memory/reads.go).
			replica.UsePrimary(ctx)
		}
		if err := checkArguments(req, in); err != nil {
			return nil, zero, t.toolError(tool.Name, c, err)
		}
		res, out, err := runIdempotent(ctx, t, tool.Name, c, req, in, func() (*mcp.CallToolResult, Out, error) {
			return h(ctx, c, in)
		})
		if err != nil {
			return nil, zero, t.toolError(tool.Name, c, err)
		}
		return res, out, nil
	})
}

// checkArguments refuses, naming the argument, text the store cannot take
// before any of it reaches the engine: bytes that are not UTF-8 in the raw
// arguments (decoding turns them into U+FFFD without a word), and in the
// decoded in a NUL or another control character than tab, newline and
// carriage return in any string or key, or metadata and properties nested
// deeper than memory.MaxJSONDepth or larger than memory.MaxJSONSize.
//
// It also refuses an idempotency_key given empty, which the input cannot
// tell from one left out, before anything else of the call is looked at.
func checkArguments(req *mcp.CallToolRequest, in any) error {
	if req != nil && req.Params != nil {
		if err := memory.CheckDocument(req.Params.Arguments); err != nil {
			return err
		}
		if _, ok := in.(keyed); ok {
			var given struct {
				Key *string `json:"idempotency_key"`
			}
			if json.Unmarshal(req.Params.Arguments, &given) == nil && given.Key != nil {
				if err := memory.CheckIdempotencyKey(argIdempotencyKey, *given.Key); err != nil {
					return err
				}
			}
		}
	}
	return memory.CheckFields(in)
}

func errReader(c TokenInfo, tool string) error {
	return &memory.Error{Code: memory.CodeForbidden, Field: "token", Message: fmt.Sprintf(
		"token %q is a reader token: it may call recall, context, list_decisions and extract (without store), not %s; ask an admin for a writer token",
		c.Name, tool)}
}

// toolError is what the agent reads when a call fails: the engine's message
// (what was wrong and what is allowed); while the database cannot be reached
// or does not answer in time (httpx.IsUnavailable), that the store is
// unavailable and to retry; for another failure of Tenure itself, a generic
// message. The details go to the log.
func (t *tools) toolError(tool string, c TokenInfo, err error) error {
	attrs := []any{slog.String("tool", tool), slog.String("scope", c.Scope), slog.String("token", c.Name)}
	var e *memory.Error
	if errors.As(err, &e) {
		if e.Locked != nil {
			attrs = append(attrs, slog.String("code", string(e.Code)), slog.Int64("decision_id", e.Locked.ID))
			t.logger.Info("mcp.tool_refused", attrs...)
			// One line, not the engine's message with the whole reasoning.
			return &memory.Error{Code: e.Code, Field: e.Field, Locked: e.Locked, Message: lockedText(*e.Locked)}
		}
		attrs = append(attrs, slog.String("code", string(e.Code)), slog.String("error", e.Error()))
		t.logger.Info("mcp.tool_refused", attrs...)
		return e
	}
	if httpx.IsUnavailable(err) {
		t.logger.Error("mcp.tool_unavailable", append(attrs, slog.String("error", err.Error()))...)
		return errors.New(unavailable(tool + " could not run"))
	}
	t.logger.Error("mcp.tool_failed", append(attrs, slog.String("error", err.Error()))...)
	return fmt.Errorf("%s failed inside Tenure; try again later", tool)
}

// remember

type rememberRow struct {
	Content    string         `json:"content,omitempty" jsonschema:"the text to remember"`
	Durability string         `json:"durability,omitempty" jsonschema:"the row's marker, not the fact's durability (properties.fact_durability): durable (default; may become a fact), transient (true now, soon wrong: never promoted), expired (retired: never promoted, deleted at the next cleanup)"`
	Metadata   map[string]any `json:"metadata,omitempty" jsonschema:"free-form, kept with the row; metadata.durability may give the marker (durability wins)"`
	Importance *float64       `json:"importance,omitempty" jsonschema:"how much the row matters now: 0, or 0.001 to 1 (default 0.5); not durability"`
	TTLSeconds *int32         `json:"ttl_seconds,omitempty" jsonschema:"prune the row once it is this many seconds old (at most 365 days)"`
	Properties map[string]any `json:"properties,omitempty" jsonschema:"guidance for consolidation: the keys below; for a decision also alternatives, reasoning, decided_by"`
	ObservedAt string         `json:"observed_at,omitempty" jsonschema:"when it was said (default now), from 1970 to 5 minutes past the server's clock: its fact ages from then, and of two values of one attribute the later-observed is current"`
}

type rememberInput struct {
	rememberRow
	idempotency
	Rows []rememberRow `json:"rows,omitempty" jsonschema:"a batch instead of one row, each item with a row's fields"`
	// Nodes is the deprecated name of rows, accepted as the API accepts it.
	Nodes  []rememberRow `json:"nodes,omitempty" jsonschema:"deprecated: the former name of rows"`
	Strict bool          `json:"strict,omitempty" jsonschema:"write nothing if any row would get a warning (a locked decision's key, a repeat of a live fact)"`
}

// node is the row to push; field names the row's observed_at in a refusal.
func (r rememberRow) node(field string) (memory.NewNode, error) {
	n := memory.NewNode{
		Content: r.Content, Durability: r.Durability, Metadata: r.Metadata, Properties: r.Properties,
		Importance: r.Importance, TTLSeconds: r.TTLSeconds,
	}
	var err error
	n.ObservedAt, err = parseObservedAt(field, r.ObservedAt)
	return n, err
}

// parseTimeArg reads an RFC 3339 time argument within memory's bounds;
// empty is none.
func parseTimeArg(field, s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, memory.Invalidf(field, "invalid %s %q: use an RFC 3339 time such as 2026-05-01T09:00:00Z", field, s)
	}
	if err := memory.CheckTime(field, t); err != nil {
		return nil, err
	}
	return &t, nil
}

// parseObservedAt reads an observation time argument: empty is none (now),
// anything else an RFC 3339 time within memory's bounds (the engine refuses
// one too far ahead of its clock).
func parseObservedAt(field, s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, memory.Invalidf(field, "invalid observed_at %q: use an RFC 3339 time such as 2026-05-01T09:00:00Z", s)
	}
	if err := memory.CheckTime(field, t); err != nil {
		return nil, err
	}
	return &t, nil
}

func (r rememberRow) empty() bool { return reflect.ValueOf(r).IsZero() }

// oneRowError names the row of a batch of one given as rows (rows[0].content)
// in the engine's refusal of one of its fields, which names a lone row's
// field alone (content), as it does the single row given without rows.
func oneRowError(err error, rows int, name string) error {
	e := memory.AsError(err)
	if rows != 1 || e == nil || e.Code != memory.CodeInvalid {
		return err
	}
	root, _, _ := strings.Cut(e.Field, ".")
	if !slices.Contains(rowFields, root) {
		return err
	}
	named := *e
	named.Field = name + "[0]." + e.Field
	return &named
}

func (t *tools) remember(ctx context.Context, c TokenInfo, in rememberInput) (*mcp.CallToolResult, wire.Push, error) {
	batch, name := in.Rows, "rows"
	if in.Nodes != nil {
		if in.Rows != nil {
			return nil, wire.Push{}, memory.Invalidf("nodes", "nodes is the deprecated name of rows: give rows only")
		}
		batch, name = in.Nodes, "nodes"
	}
	var nodes []memory.NewNode
	switch {
	case len(batch) > 0 && !in.rememberRow.empty():
		return nil, wire.Push{}, memory.Invalidf(name, "give either one row (content and its fields) or %s, not both", name)
	case batch != nil && len(batch) == 0:
		return nil, wire.Push{}, memory.Invalidf(name, "%s is empty: give 1 to %d rows, or one row's content without %s", name, memory.MaxPushBatch, name)
	case len(batch) > 0:
		for i, r := range batch {
			n, err := r.node(fmt.Sprintf("%s[%d].observed_at", name, i))
			if err != nil {
				return nil, wire.Push{}, err
			}
			nodes = append(nodes, n)
		}
	default:
		n, err := in.rememberRow.node("observed_at")
		if err != nil {
			return nil, wire.Push{}, err
		}
		nodes = []memory.NewNode{n}
	}
	res, err := t.store.PushNoted(ctx, memory.Token(c.Name), c.Scope, nodes, memory.PushOptions{Strict: in.Strict})
	if err != nil {
		return nil, wire.Push{}, batchError(oneRowError(err, len(batch), name), name, len(nodes))
	}
	out := wire.NewPush(res)
	rows, ids := "rows", "ids"
	if len(out.IDs) == 1 {
		rows, ids = "row", "id"
	}
	text := fmt.Sprintf("Wrote %d working %s to scope %s (%s %s).", len(out.IDs), rows, c.Scope, ids, joinIDs(out.IDs))
	if len(res.Notes) > 0 {
		text += "\n" + notesText(res.Notes)
	}
	return textResult(text), out, nil
}

// notesText is one warning line per noted row.
func notesText(notes []memory.PushNote) string {
	lines := make([]string, len(notes))
	for i, n := range notes {
		switch n.Code {
		case memory.NoteDecisionLocked:
			lines[i] = fmt.Sprintf("row %d: not stored as a fact — decision %d '%s' is locked (because %s): consolidation will refuse this row; "+
				"a person can reopen the decision in the console", n.Row, n.DecisionID, oneLine(n.Decision), oneLine(n.Reasoning))
		case memory.NoteDuplicate:
			lines[i] = fmt.Sprintf("row %d: not stored as a new fact — it repeats fact %d word for word: consolidation will reinforce that fact instead",
				n.Row, n.FactID)
		default:
			lines[i] = fmt.Sprintf("row %d: %s", n.Row, oneLine(n.Message))
		}
	}
	return strings.Join(lines, "\n")
}

// textResult is a tool result whose text is text; the structured output
// is added by the SDK.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// joinIDs lists ids, or for a long batch its first and last (every id is
// in the structured result).
func joinIDs(ids []int64) string {
	switch n := len(ids); {
	case n == 0:
		return "none"
	case n > 20:
		return fmt.Sprintf("%d … %d, in order", ids[0], ids[n-1])
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ", ")
}

// oneLine is s with its line breaks and runs of space made single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// limitArg is the page size a limit argument asks for: def when it is left
// out, refused when given outside 1 to most (0 does not mean the default).
func limitArg(limit *int, most, def int) (int, error) {
	switch {
	case limit == nil:
		return def, nil
	case *limit < 1 || *limit > most:
		return 0, memory.Invalidf("limit", "limit %d is out of range: use 1 to %d (default %d)", *limit, most, def)
	}
	return *limit, nil
}

// recall

type recallInput struct {
	Query string `json:"query,omitempty" jsonschema:"the question as asked, or keywords: any word may match; \"a phrase\" must occur, -word must not; empty lists the most confident facts"`
	// Q is the deprecated name of query, accepted as the API accepts it.
	Q          string `json:"q,omitempty" jsonschema:"deprecated: the former name of query"`
	Category   string `json:"category,omitempty" jsonschema:"only facts of this category (preference, mood, state, obligation, ...)"`
	Durability string `json:"durability,omitempty" jsonschema:"only facts of this durability (how long a fact persists; not a row's marker)"`
	Entity     string `json:"entity,omitempty" jsonschema:"only facts about the entity with this exact name"`
	Limit      *int   `json:"limit,omitempty" jsonschema:"how many facts, 1 to 100 (default 10)"`
	Since      string `json:"since,omitempty" jsonschema:"only facts last observed (confirmed_at) at or after this time"`
	Until      string `json:"until,omitempty" jsonschema:"only facts last observed at or before this time"`
}

func (t *tools) recall(ctx context.Context, c TokenInfo, in recallInput) (*mcp.CallToolResult, wire.Recall, error) {
	limit, err := limitArg(in.Limit, maxRecallLimit, 10)
	if err != nil {
		return nil, wire.Recall{}, err
	}
	query, used, err := renamedArg("query", in.Query, "q", in.Q)
	if err != nil {
		return nil, wire.Recall{}, err
	}
	rq := memory.RecallQuery{
		Scope: c.Scope, Query: query, Category: in.Category, Durability: in.Durability, Entity: in.Entity, Limit: limit,
	}
	if rq.Since, err = parseTimeArg("since", in.Since); err != nil {
		return nil, wire.Recall{}, err
	}
	if rq.Until, err = parseTimeArg("until", in.Until); err != nil {
		return nil, wire.Recall{}, err
	}
	res, err := t.store.Recall(ctx, rq)
	if err != nil {
		return nil, wire.Recall{}, renameField(err, "query", used)
	}
	return textResult(recallText(res, t.store.Now())), wire.NewRecall(rq.Query, res), nil
}

// renamedArg is the argument name, or its deprecated former name old when
// that was given instead (both given is refused), and the name used, which
// errors about the value name.
func renamedArg(name, value, old, oldValue string) (string, string, error) {
	switch {
	case oldValue == "":
		return value, name, nil
	case value != "":
		return "", "", memory.Invalidf(old, "%s is the deprecated name of %s: give %s only", old, name, name)
	}
	return oldValue, old, nil
}

// context

type contextInput struct {
	Budget int    `json:"budget,omitempty" jsonschema:"the most characters the brief may take, 200 to 100000 (default 4000)"`
	Format string `json:"format,omitempty" jsonschema:"text (default: a block ready for a prompt) or json (the brief's items as data, and the text)"`
	Entity string `json:"entity,omitempty" jsonschema:"only memories about the entity with this exact name"`
	Since  string `json:"since,omitempty" jsonschema:"such as the time of your last brief: only what changed after it, in observed time (new, superseded or archived facts; decisions recorded, reopened or locked again)"`
}

func (t *tools) contextBrief(ctx context.Context, c TokenInfo, in contextInput) (*mcp.CallToolResult, wire.Brief, error) {
	format := strings.TrimSpace(in.Format)
	if format != "" && format != "text" && format != "json" {
		return nil, wire.Brief{}, memory.Invalidf("format", "unknown format %q: allowed values are text, json", in.Format)
	}
	o := memory.BriefOptions{Scope: c.Scope, Budget: in.Budget, Entity: in.Entity}
	if s := strings.TrimSpace(in.Since); s != "" {
		since, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return nil, wire.Brief{}, memory.Invalidf("since", "invalid since %q: use an RFC 3339 time such as 2026-05-01T09:00:00Z", in.Since)
		}
		if err := memory.CheckTime("since", since); err != nil {
			return nil, wire.Brief{}, err
		}
		o.Since = &since
	}
	b, err := t.store.ContextBrief(ctx, o)
	if err != nil {
		return nil, wire.Brief{}, err
	}
	out := wire.NewBrief(b)
	if format == "json" {
		// The brief's JSON is the text content too.
		return nil, out, nil
	}
	// The text itself is the result an agent reads, not a JSON wrapping of it.
	return textResult(out.Text), out, nil
}

// record_decision

type recordDecisionInput struct {
	Entity       string   `json:"entity" jsonschema:"who or what the decision is about, for example a project"`
	Key          string   `json:"key" jsonschema:"the question it settles, a short slug such as database; the lock holds on entity and key"`
	Decision     string   `json:"decision" jsonschema:"what was decided"`
	Reasoning    string   `json:"reasoning" jsonschema:"why: kept so that nobody reopens it without knowing"`
	Alternatives []string `json:"alternatives,omitempty" jsonschema:"the options considered and rejected"`
	DecidedBy    string   `json:"decided_by,omitempty" jsonschema:"who decided (default: your token's name)"`
	DecidedAt    string   `json:"decided_at,omitempty" jsonschema:"when (default now); not in the future"`
	DoNotReopen  *bool    `json:"do_not_reopen,omitempty" jsonschema:"lock the decision (default true)"`
	idempotency
}

func (t *tools) recordDecision(ctx context.Context, c TokenInfo, in recordDecisionInput) (*mcp.CallToolResult, wire.Decision, error) {
	var decidedAt time.Time
	if s := strings.TrimSpace(in.DecidedAt); s != "" {
		var err error
		if decidedAt, err = time.Parse(time.RFC3339, s); err != nil {
			return nil, wire.Decision{}, memory.Invalidf("decided_at", "invalid time %q: use RFC 3339, such as 2026-05-01T09:00:00Z", in.DecidedAt)
		}
		// Before the engine reads a zero time (0001-01-01) as "now".
		if err := memory.CheckTime("decided_at", decidedAt); err != nil {
			return nil, wire.Decision{}, err
		}
	}
	d, err := t.store.RecordDecision(ctx, memory.Token(c.Name), memory.NewDecision{
		Scope: c.Scope, Entity: in.Entity, Key: in.Key, Decision: in.Decision, Reasoning: in.Reasoning,
		Alternatives: in.Alternatives, DecidedBy: in.DecidedBy, DecidedAt: decidedAt, DoNotReopen: in.DoNotReopen,
	})
	if err != nil {
		return nil, wire.Decision{}, err
	}
	return textResult(recordedText(d)), wire.NewDecision(d), nil
}

// set_durability

type setDurabilityInput struct {
	NodeID     int64  `json:"node_id" jsonschema:"the id of the working row, as remember returned it"`
	Durability string `json:"durability" jsonschema:"the working row's new marker, not a fact's durability: durable (promote), transient (hold back) or expired (retire)"`
	idempotency
}

func (t *tools) setDurability(ctx context.Context, c TokenInfo, in setDurabilityInput) (*mcp.CallToolResult, wire.Node, error) {
	if in.NodeID < 1 {
		return nil, wire.Node{}, memory.Invalidf("node_id", "%d is out of range: give the id of a working row, 1 or more, as remember returned it", in.NodeID)
	}
	if err := t.store.UpgradeDurability(ctx, memory.Token(c.Name), c.Scope, in.NodeID, in.Durability); err != nil {
		return nil, wire.Node{}, renameField(err, "ids", "node_id")
	}
	nodes, err := t.store.GetNodes(ctx, []int64{in.NodeID})
	if err != nil {
		return nil, wire.Node{}, err
	}
	if len(nodes) != 1 {
		return nil, wire.Node{}, &memory.Error{Code: memory.CodeNotFound, Field: "node_id",
			Message: fmt.Sprintf("working row %d was pruned meanwhile", in.NodeID)}
	}
	out := wire.NewNode(nodes[0])
	return textResult(durabilityText(out)), out, nil
}

// renameField names the engine's field from as the tool's argument to.
func renameField(err error, from, to string) error {
	e := memory.AsError(err)
	if e == nil || e.Field != from {
		return err
	}
	renamed := *e
	renamed.Field = to
	return &renamed
}

// list_decisions

type listDecisionsInput struct {
	Entity string `json:"entity,omitempty" jsonschema:"only decisions about the entity with this exact name"`
	Locked *bool  `json:"locked,omitempty" jsonschema:"true: only locked decisions; false: only unlocked ones (open or reopened)"`
	State  string `json:"state,omitempty" jsonschema:"current (locked, not replaced), superseded (replaced by a later one on its entity and key), reopened (reopened by a reviewer, not replaced) or open (recorded without a lock, not replaced); empty: all"`
	Query  string `json:"query,omitempty" jsonschema:"only decisions whose text, reasoning, alternatives or key contain this"`
	// Q is the deprecated name of query, accepted as the API accepts it.
	Q        string `json:"q,omitempty" jsonschema:"deprecated: the former name of query"`
	Limit    *int   `json:"limit,omitempty" jsonschema:"how many, 1 to 500 (default 50)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"the next page: the next_cursor of the previous answer, unchanged"`
	BeforeID int64  `json:"before_id,omitempty" jsonschema:"deprecated: the former name of cursor, as a number; give cursor"`
}

func (t *tools) listDecisions(ctx context.Context, c TokenInfo, in listDecisionsInput) (*mcp.CallToolResult, wire.Page[wire.Decision], error) {
	var none wire.Page[wire.Decision]
	limit, err := limitArg(in.Limit, maxDecisionsLimit, 50)
	if err != nil {
		return nil, none, err
	}
	before, err := decisionsCursor(in)
	if err != nil {
		return nil, none, err
	}
	query, used, err := renamedArg("query", in.Query, "q", in.Q)
	if err != nil {
		return nil, none, err
	}
	fetched := min(limit+1, maxDecisionsLimit)
	ds, err := t.store.ListDecisions(ctx, memory.DecisionFilter{
		Scope: c.Scope, Entity: in.Entity, Locked: in.Locked, State: in.State, Query: query, Limit: fetched, BeforeID: before,
	})
	if err != nil {
		return nil, none, renameField(err, "q", used)
	}
	out := wire.Paginate(ds, limit, fetched, func(d memory.Decision) int64 { return d.ID }, wire.NewDecision)
	return textResult(decisionsText(c.Scope, out)), out, nil
}

// decisionsCursor is the id a page of decisions starts below: cursor, as
// the API's keyset pages take it, or its deprecated form before_id.
func decisionsCursor(in listDecisionsInput) (int64, error) {
	if in.BeforeID < 0 {
		return 0, memory.Invalidf("before_id", "invalid before_id %d: give the next_cursor of the previous answer as cursor", in.BeforeID)
	}
	if in.Cursor == "" {
		return in.BeforeID, nil
	}
	if in.BeforeID != 0 {
		return 0, memory.Invalidf("before_id", "before_id is the deprecated name of cursor: give cursor only")
	}
	before, err := strconv.ParseInt(in.Cursor, 10, 64)
	if err != nil || before <= 0 {
		return 0, memory.Invalidf("cursor", "invalid cursor %q: pass the next_cursor of the previous answer unchanged", in.Cursor)
	}
	return before, nil
}

// decisionsText is the list as an agent reads it: one line per decision
// with its reasoning and state; a replaced one names its replacement.
func decisionsText(scope string, out wire.Page[wire.Decision]) string {
	if len(out.Items) == 0 {
		return "No decisions in scope " + scope + " match."
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Decisions in scope %s, newest first:\n", scope)
	for _, d := range out.Items {
		fmt.Fprintf(&sb, "- decision %d [%s / %s] %s", d.ID, oneLine(d.Entity), d.Key, oneLine(d.Decision))
		if r := oneLine(d.Reasoning); r != "" {
			sb.WriteString(" — because " + r)
		}
		if d.SupersededBy != nil {
			fmt.Fprintf(&sb, " (replaced by decision %d)", *d.SupersededBy)
		} else {
			sb.WriteString(" (" + d.State + ")")
		}
		sb.WriteByte('\n')
	}
	if out.NextCursor != nil {
		fmt.Fprintf(&sb, "More: call again with cursor %q.\n", *out.NextCursor)
	}
	return sb.String()
}

// extract

type extractInput struct {
	Text    string `json:"text" jsonschema:"the text to extract facts from"`
	Entity  string `json:"entity,omitempty" jsonschema:"who or what the text is about"`
	Speaker string `json:"speaker,omitempty" jsonschema:"who speaks the text: whom I, me and my are about (default: the name the speaker introduces themselves with, else the user)"`
	Store   bool   `json:"store,omitempty" jsonschema:"also write the candidates as working rows (needs a writer token)"`
	Strict  bool   `json:"strict,omitempty" jsonschema:"with store: write nothing if any candidate would get a warning (a locked decision's key, a repeat of a live fact)"`
	Mode    string `json:"mode,omitempty" jsonschema:"rules (the default, offline) or llm (when the server has an LLM endpoint)"`
	// ObservedAt: see rememberRow.
	ObservedAt string `json:"observed_at,omitempty" jsonschema:"when the text was said (default now), from 1970 to 5 minutes past the server's clock: its dates are read relative to it, and stored rows are observed then"`
	idempotency
}

func (t *tools) extract(ctx context.Context, c TokenInfo, in extractInput) (*mcp.CallToolResult, wire.Extraction, error) {
	if in.Store && c.Reader() {
		return nil, wire.Extraction{}, errReader(c, toolExtract+" with store")
	}
	text := strings.TrimSpace(in.Text)
	if text == "" {
		return nil, wire.Extraction{}, memory.Invalidf("text", "the text is empty: give the text to extract facts from")
	}
	if n := utf8.RuneCountInString(text); n > maxExtractText {
		return nil, wire.Extraction{}, memory.Invalidf("text", "the text is %d characters long: at most %d are allowed", n, maxExtractText)
	}
	entity := strings.TrimSpace(in.Entity)
	if n := utf8.RuneCountInString(entity); n > maxEntityNameLength {
		return nil, wire.Extraction{}, memory.Invalidf("entity", "the entity name is %d characters long: at most %d are allowed", n, maxEntityNameLength)
	}
	speaker, err := extract.ParseSpeaker(in.Speaker)
	if err != nil {
		return nil, wire.Extraction{}, err
	}
	if in.Strict && !in.Store {
		return nil, wire.Extraction{}, memory.Invalidf("strict", "strict refuses a stored batch that would get warnings: it needs store true")
	}
	extractor := t.extractor
	if in.Mode != "" {
		e, err := t.extractors.Extractor(in.Mode)
		if err != nil {
			return nil, wire.Extraction{}, err
		}
		extractor = ExtractorOf(e)
	}
	observed, err := parseObservedAt("observed_at", in.ObservedAt)
	if err != nil {
		return nil, wire.Extraction{}, err
	}
	said := t.store.Now()
	if observed != nil {
		if err := memory.CheckObservedAt("observed_at", *observed, said); err != nil {
			return nil, wire.Extraction{}, err
		}
		said = *observed
	}
	cands, err := ExtractFor(ctx, extractor, text, entity, speaker, said)
	if err != nil {
		return nil, wire.Extraction{}, fmt.Errorf("extract: %w", err)
	}
	found := make([]extract.Candidate, len(cands))
	for i, cand := range cands {
		found[i] = extract.Candidate(cand)
	}
	out := wire.NewExtraction(extractor.Name(), found)
	if !in.Store {
		return textResult(extractedText(out, "")), out, nil
	}
	pushed := wire.Push{IDs: []int64{}, Notes: []wire.PushNote{}}
	if len(cands) > 0 {
		nodes := make([]memory.NewNode, len(cands))
		for i, cand := range cands {
			nodes[i] = cand.node(extractor.Name())
			nodes[i].ObservedAt = observed
		}
		res, err := t.store.PushNoted(ctx, memory.Token(c.Name), c.Scope, nodes, memory.PushOptions{Strict: in.Strict})
		if err != nil {
			return nil, wire.Extraction{}, batchError(err, "candidates", len(nodes))
		}
		pushed = wire.NewPush(res)
	}
	out.Stored(pushed)
	return textResult(extractedText(out, c.Scope)), out, nil
}
