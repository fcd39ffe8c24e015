package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// Entities, their aliases and merges. Every writer reads a name through
// the scope's aliases, so a merge or an alias changes where later writes
// land; merging and aliasing need a writer token, like every write, and are
// audited under the token's name. A merge is undone with POST
// .../entities/merges/{id}/undo.

// entityJSON is one entity of the scope, with its counts and aliases.
type entityJSON struct {
	ID          int64     `json:"id"`
	Scope       string    `json:"scope"`
	Name        string    `json:"name"`
	Kind        string    `json:"kind"`
	CreatedAt   time.Time `json:"created_at"`
	ActiveFacts int64     `json:"active_facts"`
	Decisions   int64     `json:"decisions"`
	Aliases     []string  `json:"aliases"`
}

// entityListJSON is the scope's entities, by name.
type entityListJSON struct {
	Items []entityJSON `json:"items"`
}

// mergeJSON is one merge of an entity into another.
type mergeJSON struct {
	ID           int64      `json:"id"`
	Scope        string     `json:"scope"`
	FromEntityID int64      `json:"from_entity_id"`
	From         string     `json:"from"`
	IntoEntityID int64      `json:"into_entity_id"`
	Into         string     `json:"into"`
	Actor        string     `json:"actor"`
	CreatedAt    time.Time  `json:"created_at"`
	UndoneAt     *time.Time `json:"undone_at"`
	UndoneBy     string     `json:"undone_by"`
	Facts        int        `json:"facts"`
	Decisions    int        `json:"decisions"`
	Nodes        int        `json:"nodes"`
	Archived     int        `json:"archived"`
}

func newMergeJSON(m memory.Merge) mergeJSON {
	return mergeJSON{ID: m.ID, Scope: m.Scope, FromEntityID: m.FromEntityID, From: m.From,
		IntoEntityID: m.IntoEntityID, Into: m.Into, Actor: m.Actor, CreatedAt: utc(m.CreatedAt),
		UndoneAt: utcPtr(m.UndoneAt), UndoneBy: m.UndoneBy, Facts: m.Facts, Decisions: m.Decisions,
		Nodes: m.Nodes, Archived: m.Archived}
}

// aliasJSON is one alias of an entity.
type aliasJSON struct {
	Alias     string    `json:"alias"`
	EntityID  int64     `json:"entity_id"`
	Entity    string    `json:"entity"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	MergeID   *int64    `json:"merge_id"`
}

func newAliasJSON(a memory.Alias) aliasJSON {
	return aliasJSON{Alias: a.Alias, EntityID: a.EntityID, Entity: a.Entity, CreatedBy: a.CreatedBy,
		CreatedAt: utc(a.CreatedAt), MergeID: a.MergeID}
}

// aliasListJSON is an entity's aliases.
type aliasListJSON struct {
	Items []aliasJSON `json:"items"`
}

// entityList lists the scope's entities by name (those merged into another
// left out), each with its active facts, decisions and aliases: the first
// limit of them, narrowed by query.
func (h *handlers) entityList(c echo.Context) error {
	q, err := newQuery(c, "query", "limit")
	if err != nil {
		return err
	}
	limit, err := q.intRange("limit", defaultLimit, 1, maxLimit)
	if err != nil {
		return err
	}
	text, err := q.text("query", 200)
	if err != nil {
		return err
	}
	rows, err := h.store.ListEntities(c.Request().Context(), memory.EntityFilter{
		Scope: c.Param("scope"), Query: text, Limit: limit})
	if err != nil {
		return err
	}
	out := entityListJSON{Items: make([]entityJSON, len(rows))}
	for i, e := range rows {
		out.Items[i] = entityJSON{ID: e.ID, Scope: e.Scope, Name: e.Name, Kind: e.Kind, CreatedAt: utc(e.CreatedAt),
			ActiveFacts: e.ActiveFacts, Decisions: e.Decisions, Aliases: e.Aliases}
	}
	return c.JSON(http.StatusOK, out)
}

// mergeRequest names the two entities of a merge, as writers name them.
type mergeRequest struct {
	From string `json:"from"`
	Into string `json:"into"`
}

// entityMerge merges one entity of the scope into another (201): its facts,
// decisions and pending working rows move, its name becomes an alias.
func (h *handlers) entityMerge(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	var req mergeRequest
	if err := decodeBody(c, maxBody, &req); err != nil {
		return err
	}
	m, err := h.store.MergeEntities(c.Request().Context(), c.Param("scope"), req.From, req.Into, actor(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, newMergeJSON(m))
}

// mergeList lists the scope's merges, newest first, undone ones included.
func (h *handlers) mergeList(c echo.Context) error {
	q, err := newQuery(c, "limit", "cursor")
	if err != nil {
		return err
	}
	limit, before, err := q.pagination()
	if err != nil {
		return err
	}
	rows, err := h.store.ListMerges(c.Request().Context(), c.Param("scope"), before, fetchSize(limit))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.Paginate(rows, limit, fetchSize(limit),
		func(m memory.Merge) int64 { return m.ID }, newMergeJSON))
}

// mergeUndo undoes one merge of the scope; undoing it again is a 409.
func (h *handlers) mergeUndo(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	m, err := h.store.GetMerge(ctx, id)
	if err != nil {
		return err
	}
	if scope := c.Param("scope"); m.Scope != scope {
		return memory.NotFoundf("no merge with id %d in scope %s", id, scope)
	}
	if m, err = h.store.UndoMerge(ctx, id, actor(c)); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newMergeJSON(m))
}

// aliasList lists the aliases of one entity of the scope.
func (h *handlers) aliasList(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	rows, err := h.store.Aliases(c.Request().Context(), c.Param("scope"), id)
	if err != nil {
		return err
	}
	out := aliasListJSON{Items: make([]aliasJSON, len(rows))}
	for i, a := range rows {
		out.Items[i] = newAliasJSON(a)
	}
	return c.JSON(http.StatusOK, out)
}

// aliasRequest is an alias to add.
type aliasRequest struct {
	Alias string `json:"alias"`
}

// aliasCreate adds an alias to one entity of the scope (201).
func (h *handlers) aliasCreate(c echo.Context) error {
	if _, err := newQuery(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var req aliasRequest
	if err := decodeBody(c, maxBody, &req); err != nil {
		return err
	}
	a, err := h.store.AddAlias(c.Request().Context(), actor(c), c.Param("scope"), id, req.Alias)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, newAliasJSON(a))
}

// aliasDelete removes the alias given as ?alias= (any spelling of it) from
// one entity of the scope, and answers with it.
func (h *handlers) aliasDelete(c echo.Context) error {
	q, err := newQuery(c, "alias")
	if err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	alias, err := q.text("alias", 200)
	if err != nil {
		return err
	}
	a, err := h.store.RemoveAlias(c.Request().Context(), actor(c), c.Param("scope"), id, alias)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newAliasJSON(a))
}
