package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
)

// recallJSON is the answer to a recall: the facts that answer the query,
// best first.
type recallJSON struct {
	Query   string             `json:"query"`
	Results []recallResultJSON `json:"results"`
}

// recallResultJSON is one recalled fact. Score is relevance times the
// fact's effective confidence now, what results are ranked by; a decision's
// fact carries the decision, with its reasoning. A pending result is a
// durable working row not consolidated yet: NodeID is the row's id, and
// Fact the fact consolidation plans to make of it (id 0).
type recallResultJSON struct {
	Fact                factJSON      `json:"fact"`
	EffectiveConfidence float64       `json:"effective_confidence"`
	Relevance           float64       `json:"relevance"`
	Score               float64       `json:"score"`
	Decision            *decisionJSON `json:"decision"`
	Pending             bool          `json:"pending"`
	NodeID              *int64        `json:"node_id"`
}

// recall ranks the scope's live facts for the question (any word may match,
// BM25 relevance) times their effective confidence, and with them the
// durable working rows not consolidated yet, marked pending; without q, the
// facts by effective confidence alone.
func (h *handlers) recall(c echo.Context) error {
	q, err := newQuery(c, "query", "q", "category", "durability", "entity", "limit", "since", "until")
	if err != nil {
		return err
	}
	rq := memory.RecallQuery{Scope: c.Param("scope")}
	var used string
	if rq.Query, used, err = q.renamed("query", "q", 1000); err != nil {
		return err
	}
	if rq.Category, err = q.text("category", 40); err != nil {
		return err
	}
	if rq.Durability, err = q.text("durability", 20); err != nil {
		return err
	}
	if rq.Entity, err = q.text("entity", 200); err != nil {
		return err
	}
	if rq.Limit, err = q.intRange("limit", 0, 1, 100); err != nil {
		return err
	}
	// since and until bound when each fact was (last) observed.
	for _, t := range []struct {
		name string
		at   **time.Time
	}{{"since", &rq.Since}, {"until", &rq.Until}} {
		s, err := q.text(t.name, 64)
		if err != nil {
			return err
		}
		if *t.at, err = parseInstant(t.name, s); err != nil {
			return err
		}
	}
	results, err := h.store.Recall(c.Request().Context(), rq)
	if err != nil {
		return asField(err, "query", used)
	}
	out := recallJSON{Query: rq.Query, Results: make([]recallResultJSON, len(results))}
	for i, r := range results {
		out.Results[i] = recallResultJSON{
			Fact: newFactJSON(r.Fact), EffectiveConfidence: r.Fact.EffectiveConfidence,
			Relevance: r.Relevance, Score: r.Score, Pending: r.Pending,
		}
		if r.Pending {
			out.Results[i].NodeID = &r.NodeID
		}
		if r.Decision != nil {
			d := newDecisionJSON(*r.Decision)
			out.Results[i].Decision = &d
		}
	}
	return c.JSON(http.StatusOK, out)
}

// briefJSON is the context brief: what an agent must not forget at the
// start of a turn, within a budget of characters. Text is the same brief as
// a block ready to paste into a prompt; Used counts its characters and
// never exceeds Budget. Asked with since, it is only what changed after
// that time: Since and Changes are then present and the four lists empty.
type briefJSON struct {
	memory.Brief
	Since   *time.Time         `json:"since,omitempty"`
	Changes *[]briefChangeJSON `json:"changes,omitempty"`
	Text    string             `json:"text"`
}

// briefChangeJSON is one change since the time a brief was asked with:
// a new fact, a fact superseded or archived, a decision recorded, reopened
// or locked again. FactID is null for a decision's change, DecisionID for a
// fact's.
type briefChangeJSON struct {
	Kind       string    `json:"kind"`
	FactID     *int64    `json:"fact_id"`
	DecisionID *int64    `json:"decision_id"`
	Entity     string    `json:"entity"`
	Key        string    `json:"key"`
	Content    string    `json:"content"`
	Category   string    `json:"category"`
	Reason     string    `json:"reason"`
	At         time.Time `json:"at"`
}

// newBriefJSON is b with its times in UTC, like every time the API writes.
func newBriefJSON(b memory.Brief) briefJSON {
	out := briefJSON{Brief: b, Text: b.Text(), Since: utcPtr(b.Since)}
	out.Decisions = make([]memory.BriefDecision, len(b.Decisions))
	for i, d := range b.Decisions {
		if d.Alternatives == nil {
			d.Alternatives = []string{}
		}
		d.DecidedAt = utc(d.DecidedAt)
		out.Decisions[i] = d
	}
	for _, items := range []*[]memory.BriefItem{&out.Obligations, &out.States, &out.Facts} {
		utcItems := make([]memory.BriefItem, len(*items))
		for i, it := range *items {
			it.Deadline = utcPtr(it.Deadline)
			it.ConfirmedAt = utc(it.ConfirmedAt)
			utcItems[i] = it
		}
		*items = utcItems
	}
	if b.Since != nil {
		changes := make([]briefChangeJSON, len(b.Changes))
		for i, ch := range b.Changes {
			changes[i] = briefChangeJSON{Kind: ch.Kind, Entity: ch.Entity, Key: ch.Key, Content: ch.Content,
				Category: ch.Category, Reason: ch.Reason, At: utc(ch.At)}
			if ch.FactID != 0 {
				changes[i].FactID = pointerTo(ch.FactID)
			}
			if ch.DecisionID != 0 {
				changes[i].DecisionID = pointerTo(ch.DecisionID)
			}
		}
		out.Changes = &changes
	}
	return out
}

// parseSince reads a brief's since: an RFC 3339 timestamp.
func parseSince(s string) (*time.Time, error) { return parseInstant("since", s) }

// parseInstant reads the time parameter name (RFC 3339), empty for none.
func parseInstant(name, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		hint := ""
		if strings.Contains(s, " ") {
			hint = " (a + in a query string must be sent as %2B)"
		}
		return nil, memory.Invalidf(name, "invalid %s %q: use an RFC 3339 timestamp such as 2026-05-01T09:00:00Z%s", name, s, hint)
	}
	// The brief answers with since: a time outside the bounds (the year
	// 9999 at -23:59 is in the year 10000 in UTC) could not be written back.
	if err := memory.CheckTime(name, t); err != nil {
		return nil, err
	}
	return &t, nil
}

// contextShow answers with the scope's context brief: locked decisions
// first, then obligations, current states and the most confident durable
// facts, never over budget characters (default 4,000). With since, only
// what changed after that time. It is the plain-text block to paste into a
// prompt, as over MCP, unless JSON is asked for (briefFormat).
func (h *handlers) contextShow(c echo.Context) error {
	q, err := newQuery(c, "budget", "entity", "since", "format")
	if err != nil {
		return err
	}
	o := memory.BriefOptions{Scope: c.Param("scope")}
	if s := strings.TrimSpace(q.values.Get("budget")); s != "" {
		if o.Budget, err = strconv.Atoi(s); err != nil || o.Budget == 0 {
			return memory.Invalidf("budget", "invalid budget %q: give the most characters the brief may take, %d to %d (default %d)",
				s, memory.MinBriefBudget, memory.MaxBriefBudget, memory.DefaultBriefBudget)
		}
	}
	if o.Entity, err = q.text("entity", 200); err != nil {
		return err
	}
	since, err := q.text("since", 64)
	if err != nil {
		return err
	}
	if o.Since, err = parseSince(since); err != nil {
		return err
	}
	format, err := briefFormat(c, q)
	if err != nil {
		return err
	}
	b, err := h.store.ContextBrief(c.Request().Context(), o)
	if err != nil {
		return err
	}
	if format == "text" {
		return c.String(http.StatusOK, b.Text())
	}
	return c.JSON(http.StatusOK, newBriefJSON(b))
}

// briefFormat is how a brief is answered: text, the default on every
// surface, or json when the format parameter says so or, without it, when
// the Accept header names application/json and not text/plain.
func briefFormat(c echo.Context, q query) (string, error) {
	format, err := q.text("format", 10)
	if err != nil {
		return "", err
	}
	switch format {
	case "text", "json":
		return format, nil
	case "":
	default:
		return "", memory.Invalidf("format", "unknown format %q: allowed values are text (the default), json", format)
	}
	accept := strings.ToLower(c.Request().Header.Get(echo.HeaderAccept))
	if strings.Contains(accept, echo.MIMEApplicationJSON) && !strings.Contains(accept, "text/plain") {
		return "json", nil
	}
	return "text", nil
}
