package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// nodeRow is one working row to push.
type nodeRow struct {
	Content    string         `json:"content"`
	Durability string         `json:"durability"`
	Metadata   map[string]any `json:"metadata"`
	Importance *float64       `json:"importance"`
	TTLSeconds *int32         `json:"ttl_seconds"`
	Properties map[string]any `json:"properties"`
	// ObservedAt is when the row's statement was observed (RFC 3339);
	// absent means now.
	ObservedAt *time.Time `json:"observed_at"`
}

// pushRequest is one row, or a batch of rows under "rows" (or "nodes", its
// deprecated name, as the MCP tool remember also says rows). Strict refuses
// the push (409, nothing written) when a row would get a note.
type pushRequest struct {
	nodeRow
	Rows   *[]nodeRow `json:"rows"`
	Nodes  *[]nodeRow `json:"nodes" deprecated:"rows"`
	Strict bool       `json:"strict"`
}

func (r nodeRow) empty() bool {
	return r.Content == "" && r.Durability == "" && r.Metadata == nil && r.Importance == nil &&
		r.TTLSeconds == nil && r.Properties == nil && r.ObservedAt == nil
}

func (r nodeRow) newNode() memory.NewNode {
	return memory.NewNode{Content: r.Content, Durability: r.Durability, Metadata: r.Metadata,
		Properties: r.Properties, Importance: r.Importance, TTLSeconds: r.TTLSeconds, ObservedAt: r.ObservedAt}
}

// nodePush writes one working row, or a batch of up to 1,000, and answers
// 201 with their ids in order and the notes on them. One bad row refuses
// the whole batch; with strict, so does one row with a note (409).
func (h *handlers) nodePush(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	var req pushRequest
	if err := decodeBody(c, maxPushBody, &req); err != nil {
		return err
	}
	batch, name := req.Rows, "rows"
	if req.Nodes != nil {
		if req.Rows != nil {
			return memory.Invalidf("nodes", "nodes is the deprecated name of rows: give rows only")
		}
		batch, name = req.Nodes, "nodes"
	}
	var rows []memory.NewNode
	if batch != nil {
		if !req.nodeRow.empty() {
			return memory.Invalidf(name, "send either one row or a batch under %s, not both", name)
		}
		rows = make([]memory.NewNode, len(*batch))
		for i, r := range *batch {
			rows[i] = r.newNode()
		}
	} else {
		rows = []memory.NewNode{req.nodeRow.newNode()}
	}
	res, err := h.store.PushNoted(c.Request().Context(), actor(c), c.Param("scope"), rows, memory.PushOptions{Strict: req.Strict})
	if err != nil && batch != nil {
		return batchField(err, name, len(rows))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, wire.NewPush(res))
}

// batchField names an error about a batch's rows as the caller sent them:
// the engine's field nodes[i] becomes name[i] (rows or nodes), and a batch
// of one, which the engine names as a single row, is still name[0].
func batchField(err error, name string, n int) error {
	var me *memory.Error
	if !errors.As(err, &me) || me.Field == "" {
		return err
	}
	named := *me
	switch {
	case strings.HasPrefix(me.Field, "nodes"):
		named.Field = name + strings.TrimPrefix(me.Field, "nodes")
	case n == 1:
		named.Field = name + "[0]." + me.Field
	default:
		return err
	}
	return &named
}

// nodeList lists the scope's working rows, newest first, filtered by marker.
func (h *handlers) nodeList(c echo.Context) error {
	q, err := newQuery(c, "durability", "pending", "limit", "cursor")
	if err != nil {
		return err
	}
	limit, before, err := q.pagination()
	if err != nil {
		return err
	}
	pending, err := q.boolean("pending")
	if err != nil {
		return err
	}
	marker, err := q.text("durability", 20)
	if err != nil {
		return err
	}
	rows, err := h.store.ListNodes(c.Request().Context(), memory.NodeFilter{
		Scope: c.Param("scope"), Marker: marker, PendingOnly: pending != nil && *pending,
		BeforeID: before, Limit: int32(fetchSize(limit)),
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.Paginate(rows, limit, fetchSize(limit), func(n memory.Node) int64 { return n.ID }, wire.NewNode))
}

// durabilityRequest sets a working row's marker.
type durabilityRequest struct {
	Durability string `json:"durability"`
}

// nodeDurability promotes (durable) or retires (expired) one working row,
// keeping every other property, and answers with the row.
func (h *handlers) nodeDurability(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var req durabilityRequest
	if err := decodeBody(c, maxBody, &req); err != nil {
		return err
	}
	if req.Durability == "" {
		return memory.Invalidf("durability", "durability is required: allowed values are durable, transient, expired")
	}
	ctx := c.Request().Context()
	if err := h.store.UpgradeDurability(ctx, actor(c), c.Param("scope"), id, req.Durability); err != nil {
		// The engine names the rows of a bulk change ids; here it is the
		// path's {id}.
		if e := memory.AsError(err); e != nil && e.Field == "ids" {
			named := *e
			named.Field = "id"
			return &named
		}
		return err
	}
	nodes, err := h.store.GetNodes(ctx, []int64{id})
	if err != nil {
		return err
	}
	if len(nodes) != 1 {
		return memory.NotFoundf("working row %d was pruned meanwhile", id)
	}
	return c.JSON(http.StatusOK, wire.NewNode(nodes[0]))
}
