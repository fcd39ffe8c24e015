package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

// The entities page: one scope's entities with their aliases, a form to
// merge two of them and the scope's recent merges, each undoable. Changes
// need a reviewer; each answers with a redirect to the page and a message.

const (
	// entitiesLimit is the most entities the list shows.
	entitiesLimit = 200
	// entitiesMergeNames is the most entity names the merge form offers.
	entitiesMergeNames = 1000
	// entitiesMerges is how many recent merges the page lists.
	entitiesMerges = 20
)

// entityList shows the entities of the scope asked for (the first scope
// when none is), narrowed by name.
func (s *Console) entityList(c echo.Context) error {
	ctx := c.Request().Context()
	view := pages.EntitiesPage{Scope: strings.TrimSpace(c.QueryParam("scope")), Query: strings.TrimSpace(c.QueryParam("query")),
		Limit: entitiesLimit, CanEdit: signedInAs(c, auth.RoleReviewer), Now: s.now()}
	if err := memory.CheckParams(c.QueryParams()); err != nil {
		return err
	}
	scopes, err := s.store.Scopes(ctx)
	if err != nil {
		return err
	}
	view.Scopes = scopes
	if view.Scope == "" && len(scopes) > 0 {
		view.Scope = scopes[0]
	}
	if view.Scope == "" {
		return s.page(c, http.StatusOK, "Entities", "entities", pages.Entities(view), nil)
	}
	if !slices.Contains(view.Scopes, view.Scope) {
		if _, err := memory.ParseScope(view.Scope); err != nil {
			return err
		}
		view.Scopes = append(view.Scopes, view.Scope)
		slices.Sort(view.Scopes)
	}
	list, err := s.store.ListEntities(ctx, memory.EntityFilter{Scope: view.Scope, Query: view.Query, Limit: entitiesLimit})
	if err != nil {
		return err
	}
	for _, e := range list {
		row := pages.EntityRow{ID: e.ID, Name: e.Name, Kind: e.Kind, ActiveFacts: e.ActiveFacts,
			Decisions: e.Decisions, CreatedAt: e.CreatedAt}
		for _, a := range e.Aliases {
			row.Aliases = append(row.Aliases, pages.EntityAlias{Alias: a, Merged: slices.Contains(e.MergedAliases, a)})
		}
		view.Entities = append(view.Entities, row)
	}
	if view.CanEdit {
		names := list
		if view.Query != "" || len(list) >= entitiesLimit {
			if names, err = s.store.ListEntities(ctx, memory.EntityFilter{Scope: view.Scope, Limit: entitiesMergeNames}); err != nil {
				return err
			}
		}
		for _, e := range names {
			view.Names = append(view.Names, e.Name)
		}
	}
	merges, err := s.store.ListMerges(ctx, view.Scope, 0, entitiesMerges)
	if err != nil {
		return err
	}
	for _, m := range merges {
		view.Merges = append(view.Merges, pages.MergeRow{ID: m.ID, From: m.From, Into: m.Into, Actor: m.Actor,
			CreatedAt: m.CreatedAt, Facts: m.Facts, Decisions: m.Decisions, Nodes: m.Nodes, Archived: m.Archived,
			UndoneAt: m.UndoneAt, UndoneBy: m.UndoneBy})
	}
	return s.page(c, http.StatusOK, "Entities", "entities", pages.Entities(view), nil)
}

// entitiesBack is the entities page of the form's scope, where a change
// comes back to.
func entitiesBack(c echo.Context) string {
	scope := strings.TrimSpace(c.FormValue("scope"))
	if _, err := memory.ParseScope(scope); err != nil {
		return "/entities"
	}
	return pages.EntitiesURL(scope, "")
}

// entitiesRefused answers a refused change: the engine's refusals (bad
// input, an unknown entity, a conflict) come back to the page as an error
// message, with nothing changed; any other error is the error page's.
func (s *Console) entitiesRefused(c echo.Context, back, what string, err error) error {
	switch memory.ErrorCode(err) {
	case memory.CodeInvalid, memory.CodeNotFound, memory.CodeConflict, memory.CodeForbidden:
		return s.redirectWithFlash(c, back, "error", what+": "+sentenceCase(messageOf(err))+".")
	}
	return err
}

// entityMerge merges the form's entity from into its entity into.
func (s *Console) entityMerge(c echo.Context) error {
	back := entitiesBack(c)
	if err := checkForm(c); err != nil {
		return s.entitiesRefused(c, back, "Nothing was merged", err)
	}
	m, err := s.store.MergeEntities(c.Request().Context(), c.FormValue("scope"), c.FormValue("from"), c.FormValue("into"), actor(c))
	if err != nil {
		return s.entitiesRefused(c, back, "Nothing was merged", err)
	}
	msg := fmt.Sprintf("Merged %s into %s: %s, %s and %s moved; %q is now an alias of %s.",
		m.From, m.Into, entitiesCount(m.Facts, "fact"), entitiesCount(m.Decisions, "decision"),
		entitiesCount(m.Nodes, "working row"), m.From, m.Into)
	if m.Archived > 0 {
		msg += fmt.Sprintf(" %s superseded by later values.", entitiesCount(m.Archived, "fact"))
	}
	return s.redirectWithFlash(c, back, "ok", msg)
}

// entitiesCount is n of a noun: "1 fact", "3 facts".
func entitiesCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

// mergeUndo undoes a merge; undoing it again is refused with a message.
func (s *Console) mergeUndo(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	back := entitiesBack(c)
	if err := checkForm(c); err != nil {
		return s.entitiesRefused(c, back, "Nothing was undone", err)
	}
	m, err := s.store.UndoMerge(c.Request().Context(), id, actor(c))
	if err != nil {
		return s.entitiesRefused(c, back, "Nothing was undone", err)
	}
	return s.redirectWithFlash(c, pages.EntitiesURL(m.Scope, ""), "ok",
		fmt.Sprintf("Merge %d undone: %s is an entity of its own again.", m.ID, m.From))
}

// aliasAdd adds the form's alias to an entity.
func (s *Console) aliasAdd(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	back := entitiesBack(c)
	if err := checkForm(c); err != nil {
		return s.entitiesRefused(c, back, "No alias was added", err)
	}
	a, err := s.store.AddAlias(c.Request().Context(), actor(c), c.FormValue("scope"), id, c.FormValue("alias"))
	if err != nil {
		return s.entitiesRefused(c, back, "No alias was added", err)
	}
	return s.redirectWithFlash(c, back, "ok", fmt.Sprintf("%q is now an alias of %s.", a.Alias, a.Entity))
}

// aliasRemove removes the form's alias from an entity.
func (s *Console) aliasRemove(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	back := entitiesBack(c)
	if err := checkForm(c); err != nil {
		return s.entitiesRefused(c, back, "No alias was removed", err)
	}
	a, err := s.store.RemoveAlias(c.Request().Context(), actor(c), c.FormValue("scope"), id, c.FormValue("alias"))
	if err != nil {
		return s.entitiesRefused(c, back, "No alias was removed", err)
	}
	return s.redirectWithFlash(c, back, "ok", fmt.Sprintf("%q is no longer an alias of %s.", a.Alias, a.Entity))
}
