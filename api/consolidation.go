package api

import (
	"bytes"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// runCreate runs one consolidation of the token's scope now and answers 201
// with its report. Only one run (of any scope) exists at a time across every
// replica: while another runs, the answer is 409. A run that fails is
// recorded with its error and answered as a 500.
func (h *handlers) runCreate(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	// The body is optional; when there is one, it must be an empty object.
	body, err := readBody(c, maxBody)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := decodeJSON(body, &struct{}{}); err != nil {
			return err
		}
	}
	run, err := h.store.Consolidate(c.Request().Context(), memory.ConsolidateOptions{
		Trigger: memory.TriggerAPI, Scope: callerToken(c).Scope,
	})
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/consolidation/runs/"+itoa(run.ID))
	return c.JSON(http.StatusCreated, wire.NewRun(run))
}

// runShow answers with one run as the token's scope may see it
// (memory.Store.GetScopeRun): a run of another scope is not found, and a run
// of every scope counts only the scope's refusals.
func (h *handlers) runShow(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	run, err := h.store.GetScopeRun(c.Request().Context(), id, callerToken(c).Scope)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.NewRun(run))
}

// rejectionList lists the rejection log of the token's scope, newest first,
// filtered by run, phase (8 to 12, or its name) and reason.
func (h *handlers) rejectionList(c echo.Context) error {
	q, err := newQuery(c, "run", "phase", "reason", "source", "limit", "cursor")
	if err != nil {
		return err
	}
	limit, before, err := q.pagination()
	if err != nil {
		return err
	}
	f := memory.RejectionFilter{Scope: callerToken(c).Scope, BeforeID: before, Limit: fetchSize(limit)}
	if run, err := q.text("run", 20); err != nil {
		return err
	} else if run != "" {
		n, err := q.intRange("run", 0, 1, 1<<62)
		if err != nil {
			return memory.Invalidf("run", "invalid run %q: use the id of a consolidation run", run)
		}
		f.RunID = int64(n)
	}
	if phase, err := q.text("phase", 20); err != nil {
		return err
	} else if phase != "" {
		if f.Phase, err = memory.ParsePhase(phase); err != nil {
			return err
		}
	}
	if f.Reason, err = q.text("reason", 40); err != nil {
		return err
	}
	if f.Source, err = q.text("source", 40); err != nil {
		return err
	}
	rows, err := h.store.ListRejections(c.Request().Context(), f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.Paginate(rows, limit, fetchSize(limit),
		func(r memory.Rejection) int64 { return r.ID }, wire.NewRejection))
}
