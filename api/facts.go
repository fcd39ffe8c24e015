package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// factList lists the scope's facts, newest first, filtered by category,
// durability, entity name, status (active by default, archived or all) and
// text, one keyset page at a time.
func (h *handlers) factList(c echo.Context) error {
	q, err := newQuery(c, "category", "durability", "entity", "status", "query", "q", "limit", "cursor")
	if err != nil {
		return err
	}
	f := memory.FactFilter{Scope: c.Param("scope")}
	if f.Limit, f.BeforeID, err = q.pagination(); err != nil {
		return err
	}
	// The engine checks each value as it is read, so that of several bad
	// parameters the first in this order is the one named.
	if f.Category, err = q.text("category", 40); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		return err
	}
	if f.Durability, err = q.text("durability", 20); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		return err
	}
	if f.Status, err = q.text("status", 10); err != nil {
		return err
	}
	switch f.Status {
	case "", memory.FactStatusAll:
	default:
		// The API's contract names the default among the allowed values.
		if _, err := memory.ParseStatus(f.Status); err != nil {
			return memory.Invalidf("status", "unknown status %q: allowed values are active (the default), archived, all", f.Status)
		}
	}
	if f.Query, _, err = q.renamed("query", "q", 200); err != nil {
		return err
	}
	if f.Entity, err = q.text("entity", 200); err != nil {
		return err
	}
	list, err := h.store.ListFacts(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := wire.Page[wire.FactSummary]{Items: make([]wire.FactSummary, len(list.Facts))}
	for i, s := range list.Facts {
		out.Items[i] = wire.NewFactSummary(s)
	}
	if list.Next != 0 {
		out.NextCursor = pointerTo(itoa(list.Next))
	}
	return c.JSON(http.StatusOK, out)
}

// factRequest is a fact to write. The two axes come as durability and
// category, or as a legacy data_type that stands for both, never both forms.
type factRequest struct {
	Entity     string     `json:"entity"`
	EntityKind string     `json:"entity_kind"`
	Key        string     `json:"key"`
	Content    string     `json:"content"`
	Durability string     `json:"durability"`
	Category   string     `json:"category"`
	DataType   string     `json:"data_type"`
	Confidence *float64   `json:"confidence"`
	Importance *float64   `json:"importance"`
	ExpiresAt  *time.Time `json:"expires_at"`
	Deadline   *time.Time `json:"deadline"`
	ObservedAt *time.Time `json:"observed_at"`
}

// factWritten is the answer to a fact write: the fact, and whether an
// identical active fact was reinforced rather than a new one created.
type factWritten struct {
	Fact       wire.Fact `json:"fact"`
	Reinforced bool      `json:"reinforced"`
}

// factCreate writes a fact in the scope (201), or reinforces the identical
// active fact (200). A write on the entity and key of a locked decision is
// refused with 409 decision_locked, and logged in the rejection log.
func (h *handlers) factCreate(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	var req factRequest
	if err := decodeBody(c, maxBody, &req); err != nil {
		return err
	}
	in := memory.NewFact{
		Scope: c.Param("scope"), Entity: req.Entity, EntityKind: req.EntityKind, Key: req.Key,
		Content: req.Content, Durability: memory.Durability(req.Durability), Category: req.Category,
		Confidence: req.Confidence, Importance: req.Importance, ExpiresAt: req.ExpiresAt, Deadline: req.Deadline,
		ObservedAt: req.ObservedAt,
	}
	if req.DataType != "" {
		if req.Durability != "" || req.Category != "" {
			return memory.Invalidf("data_type", "data_type is the legacy form of durability and category together: send either data_type or durability and category, not both")
		}
		d, cat, err := MapDataType(req.DataType)
		if err != nil {
			return err
		}
		in.Durability, in.Category = d, cat
	}
	f, reinforced, err := h.store.CreateFact(c.Request().Context(), actor(c), in)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if reinforced {
		status = http.StatusOK
	}
	return c.JSON(status, factWritten{Fact: wire.NewFact(f), Reinforced: reinforced})
}

// scopedFact returns the fact with the path's id if it lies in the path's
// scope; a fact of another scope is as unknown as a missing one.
func (h *handlers) scopedFact(c echo.Context) (memory.Fact, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return memory.Fact{}, err
	}
	f, err := h.store.GetFact(c.Request().Context(), id)
	if err != nil {
		return memory.Fact{}, err
	}
	if scope := c.Param("scope"); f.Scope != scope {
		return memory.Fact{}, memory.NotFoundf("no fact with id %d in scope %s", id, scope)
	}
	return f, nil
}

// factShow answers with one fact and its effective confidence now.
func (h *handlers) factShow(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	f, err := h.scopedFact(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.NewFact(f))
}

// factPatch edits a fact. Version is the version the caller read; absent
// fields stay as they are, and null clears deadline or expires_at.
type factPatch struct {
	Version    *int32              `json:"version"`
	Content    *string             `json:"content"`
	Key        *string             `json:"key"`
	Durability *string             `json:"durability"`
	Category   *string             `json:"category"`
	Confidence *float64            `json:"confidence"`
	Importance *float64            `json:"importance"`
	Deadline   nullable[time.Time] `json:"deadline"`
	ExpiresAt  nullable[time.Time] `json:"expires_at"`
	Reason     string              `json:"reason"`
}

// factUpdate edits a fact if it is still at the version sent; a stale
// version is 409 with the current fact. Tokens may not raise durability nor
// harden a mood or state (403), nor touch a locked decision's key (409).
func (h *handlers) factUpdate(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	var req factPatch
	if err := decodeBody(c, maxBody, &req); err != nil {
		return err
	}
	if req.Version == nil {
		return memory.Invalidf("version", "version is required: send the version you read, so that nobody's change is overwritten unseen")
	}
	f, err := h.scopedFact(c)
	if err != nil {
		return err
	}
	ch := memory.FactChanges{
		Content: req.Content, Key: req.Key, Category: req.Category, Confidence: req.Confidence,
		Importance: req.Importance, ClearDeadline: req.Deadline.Null, ClearExpiresAt: req.ExpiresAt.Null,
	}
	if req.Durability != nil {
		d, err := memory.ParseDurability(*req.Durability)
		if err != nil {
			return err
		}
		ch.Durability = &d
	}
	if req.Deadline.Set && !req.Deadline.Null {
		ch.Deadline = &req.Deadline.Value
	}
	if req.ExpiresAt.Set && !req.ExpiresAt.Null {
		ch.ExpiresAt = &req.ExpiresAt.Value
	}
	updated, err := h.store.UpdateFact(c.Request().Context(), actor(c), f.ID, *req.Version, ch, req.Reason)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.NewFact(updated))
}

// forgetRequest says why a fact no longer holds.
type forgetRequest struct {
	Reason string `json:"reason"`
}

// factForget archives one fact of the scope with the reason given (200,
// the fact as it is now); a reviewer can restore it. A fact already
// archived is answered as it is, unchanged. The fact of a decision recorded
// open is refused (400: record a new decision instead), that of a locked
// decision 409 decision_locked. It is the MCP tool forget.
func (h *handlers) factForget(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var req forgetRequest
	if err := decodeBody(c, maxBody, &req); err != nil {
		return err
	}
	f, _, err := h.store.ForgetFact(c.Request().Context(), actor(c), c.Param("scope"), id, req.Reason, "id")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.NewFact(f))
}
