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

// decisionRequest is a decision to record.
type decisionRequest struct {
	Entity       string     `json:"entity"`
	EntityKind   string     `json:"entity_kind"`
	Key          string     `json:"key"`
	Decision     string     `json:"decision"`
	Alternatives []string   `json:"alternatives"`
	Reasoning    string     `json:"reasoning"`
	DecidedBy    string     `json:"decided_by"`
	DecidedAt    *time.Time `json:"decided_at"`
	DoNotReopen  *bool      `json:"do_not_reopen"`
}

// decisionCreate records a decision (201). While it holds (do_not_reopen,
// the default), no token may write a fact on its entity and key. Recording
// over a locked decision is 409 decision_locked; only a reviewer reopens.
func (h *handlers) decisionCreate(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	var req decisionRequest
	if err := decodeBody(c, maxBody, &req); err != nil {
		return err
	}
	in := memory.NewDecision{
		Scope: c.Param("scope"), Entity: req.Entity, EntityKind: req.EntityKind, Key: req.Key,
		Decision: req.Decision, Alternatives: req.Alternatives, Reasoning: req.Reasoning,
		DecidedBy: req.DecidedBy, DoNotReopen: req.DoNotReopen,
	}
	if req.DecidedAt != nil {
		in.DecidedAt = *req.DecidedAt
	}
	d, err := h.store.RecordDecision(c.Request().Context(), actor(c), in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, wire.NewDecision(d))
}

// decisionList lists the scope's decisions, newest first, filtered by
// entity, lock, state (current, superseded, reopened) and text.
func (h *handlers) decisionList(c echo.Context) error {
	q, err := newQuery(c, "entity", "locked", "state", "query", "q", "limit", "cursor", "before_id")
	if err != nil {
		return err
	}
	limit, before, err := q.pagination()
	if err != nil {
		return err
	}
	// before_id is the deprecated name of cursor, as list_decisions over MCP
	// also still takes it.
	if s := strings.TrimSpace(q.values.Get("before_id")); s != "" {
		if before != 0 {
			return memory.Invalidf("before_id", "before_id is the deprecated name of cursor: give cursor only")
		}
		if before, err = strconv.ParseInt(s, 10, 64); err != nil || before <= 0 {
			return memory.Invalidf("before_id", "invalid before_id %q: give the next_cursor of the previous page as cursor", s)
		}
	}
	f := memory.DecisionFilter{Scope: c.Param("scope"), BeforeID: before, Limit: fetchSize(limit)}
	if f.Entity, err = q.text("entity", 200); err != nil {
		return err
	}
	if f.Locked, err = q.boolean("locked"); err != nil {
		return err
	}
	if f.State, err = q.text("state", 20); err != nil {
		return err
	}
	var used string
	if f.Query, used, err = q.renamed("query", "q", 200); err != nil {
		return err
	}
	rows, err := h.store.ListDecisions(c.Request().Context(), f)
	if err != nil {
		return asField(err, "query", used)
	}
	return c.JSON(http.StatusOK, wire.Paginate(rows, limit, fetchSize(limit),
		func(d memory.Decision) int64 { return d.ID }, wire.NewDecision))
}

// decisionShow answers with one decision of the scope.
func (h *handlers) decisionShow(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	d, err := h.store.GetDecision(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if scope := c.Param("scope"); d.Scope != scope {
		return memory.NotFoundf("no decision with id %d in scope %s", id, scope)
	}
	return c.JSON(http.StatusOK, wire.NewDecision(d))
}
