package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

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
	return c.JSON(http.StatusOK, wire.NewRecall(rq.Query, results))
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
	return c.JSON(http.StatusOK, wire.NewBrief(b))
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
