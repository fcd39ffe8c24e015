package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

const factsPageSize = 50

// factList shows facts, newest first, filtered by the query string, one
// keyset page at a time.
func (s *Console) factList(c echo.Context) error {
	ctx := c.Request().Context()
	filter, mf, err := parseFactsFilter(c.QueryParams())
	if err != nil {
		return err
	}
	mf.Limit, mf.At = factsPageSize, s.now()
	view := pages.FactsPage{Filter: filter, Now: mf.At, CanEdit: signedInAs(c, auth.RoleReviewer),
		ReturnURL: factsURL(filter, mf.BeforeID)}
	list, err := s.store.ListFacts(ctx, mf)
	if err != nil {
		return err
	}
	view.EntityMissing = list.EntityMissing
	view.Durabilities = durabilityNames
	if list.Next != 0 {
		view.NextURL = factsURL(filter, list.Next)
	}
	if mf.BeforeID != 0 {
		view.FirstURL = factsURL(filter, 0)
	}
	for _, f := range list.Facts {
		view.Facts = append(view.Facts, pages.FactRow{
			ID: f.ID, Scope: f.Scope, Entity: f.Entity, Key: f.Key, Content: f.Content,
			Durability: string(f.Durability), Category: f.Category, Status: string(f.Status), Source: f.Source,
			Confidence: f.Confidence, Effective: f.EffectiveConfidence, ConfirmedAt: f.ConfirmedAt,
			ForgetAt: f.ForgetAt, Deadline: f.Deadline,
		})
	}
	if !isHTMX(c) || view.CanEdit {
		// The filter bar and the bulk bar offer every category in use.
		cats, err := s.store.Categories(ctx)
		if err != nil {
			return err
		}
		view.Categories = mergeSorted(memory.SuggestedCategories(), cats)
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Facts", "facts", nil, pages.FactsResults(view))
	}
	if view.Scopes, err = s.store.Scopes(ctx); err != nil {
		return err
	}
	if filter.Scope != "" {
		if view.EntityNames, err = s.store.EntityNames(ctx, filter.Scope, maxEntitySuggestions); err != nil {
			return err
		}
	}
	return s.page(c, http.StatusOK, "Facts", "facts", pages.Facts(view), nil)
}

// durabilityNames are the durabilities the filter and the forms offer,
// worked out once; pages only read them.
var durabilityNames = func() []string {
	var out []string
	for _, d := range memory.Durabilities() {
		out = append(out, string(d))
	}
	return out
}()

// maxEntitySuggestions bounds the entity names the filter suggests.
const maxEntitySuggestions = 500

// parseFactsFilter reads the facts filter: the page's view of it, and the
// engine's, which validates it; a bad value is a 400 that names the
// parameter and what it accepts. Text the store cannot take (not UTF-8, a
// NUL, a control character) is refused first, in any parameter.
func parseFactsFilter(v url.Values) (pages.FactsFilter, memory.FactFilter, error) {
	if err := memory.CheckParams(v); err != nil {
		return pages.FactsFilter{Status: string(memory.StatusActive)}, memory.FactFilter{}, err
	}
	f := pages.FactsFilter{
		Scope:      strings.TrimSpace(v.Get("scope")),
		Durability: strings.TrimSpace(v.Get("durability")),
		Category:   strings.TrimSpace(v.Get("category")),
		Status:     strings.TrimSpace(v.Get("status")),
		Query:      strings.TrimSpace(v.Get("q")),
		Entity:     strings.TrimSpace(v.Get("entity")),
	}
	mf := memory.FactFilter{Scope: f.Scope, Durability: f.Durability, Category: f.Category,
		Status: f.Status, Entity: f.Entity, Query: f.Query}
	if err := mf.Validate(); err != nil {
		return f, mf, err
	}
	if f.Status == "" {
		f.Status = string(memory.StatusActive)
	}
	var err error
	mf.BeforeID, err = keysetBefore(v, "fact")
	return f, mf, err
}

// factsURL is the facts list URL for filter, starting below fact id before.
// Active, the default status, is left out.
func factsURL(f pages.FactsFilter, before int64) string {
	status := f.Status
	if status == string(memory.StatusActive) {
		status = ""
	}
	return pages.ListURL("/facts", map[string]string{"scope": f.Scope, "durability": f.Durability,
		"category": f.Category, "status": status, "q": f.Query, "entity": f.Entity}, before)
}

// mergeSorted returns the sorted union of a and b without duplicates.
func mergeSorted(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
