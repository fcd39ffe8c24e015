package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
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
	return c.JSON(http.StatusCreated, newDecisionJSON(d))
}

// decisionList lists the scope's decisions, newest first, filtered by
// entity, lock, state (current, superseded, reopened) and text.
func (h *handlers) decisionList(c echo.Context) error {
	q, err := newQuery(c, "entity", "locked", "state", "query", "q", "limit", "cursor")
	if err != nil {
		return err
	}
	limit, before, err := q.pagination()
	if err != nil {
		return err
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
	return c.JSON(http.StatusOK, paginate(rows, limit, fetchSize(limit),
		func(d memory.Decision) int64 { return d.ID }, newDecisionJSON))
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
	return c.JSON(http.StatusOK, newDecisionJSON(d))
}
