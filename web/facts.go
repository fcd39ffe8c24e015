package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/views/pages"
)

const factsPageSize = 50

// factList shows facts, newest first, filtered by the query string, one
// keyset page at a time.
func (s *Server) factList(c echo.Context) error {
	ctx := c.Request().Context()
	filter, before, err := parseFactsFilter(c.QueryParams())
	if err != nil {
		return err
	}
	params := queries.ListFactsParams{Now: s.now(), BeforeID: before, PageSize: factsPageSize + 1}
	if filter.Scope != "" {
		params.Scope = &filter.Scope
	}
	if filter.Durability != "" {
		params.Durability = &filter.Durability
	}
	if filter.Category != "" {
		params.Category = &filter.Category
	}
	if filter.Status != "all" {
		params.Status = &filter.Status
	}
	if filter.Query != "" {
		params.Query = &filter.Query
	}
	view := pages.FactsPage{Filter: filter, Now: params.Now, CanEdit: signedInAs(c, auth.RoleReviewer),
		ReturnURL: factsURL(filter, before)}
	if filter.Entity != "" {
		if params.EntityIds, err = s.q.EntityIDsNamed(ctx, queries.EntityIDsNamedParams{
			Name: filter.Entity, Scope: params.Scope,
		}); err != nil {
			return err
		}
		view.EntityMissing = len(params.EntityIds) == 0
	}
	var rows []queries.ListFactsRow
	if !view.EntityMissing {
		if rows, err = s.q.ListFacts(ctx, params); err != nil {
			return err
		}
	}
	view.Durabilities = durabilityNames
	if len(rows) > factsPageSize {
		rows = rows[:factsPageSize]
		view.NextURL = factsURL(filter, rows[len(rows)-1].ID)
	}
	if before != 0 {
		view.FirstURL = factsURL(filter, 0)
	}
	for _, r := range rows {
		view.Facts = append(view.Facts, pages.FactRow{
			ID: r.ID, Scope: r.Scope, Entity: r.EntityName, Key: r.Key, Content: r.Content,
			Durability: r.Durability, Category: r.Category, Status: r.Status, Source: r.Source,
			Confidence: r.Confidence, Effective: r.EffectiveConfidence, ConfirmedAt: r.ConfirmedAt,
			ForgetAt: r.ForgetAt, Deadline: r.Deadline,
		})
	}
	if !isHTMX(c) || view.CanEdit {
		// The filter bar and the bulk bar offer every category in use.
		cats, err := s.q.ListCategories(ctx)
		if err != nil {
			return err
		}
		view.Categories = mergeSorted(memory.SuggestedCategories(), cats)
	}
	if isHTMX(c) {
		return s.page(c, http.StatusOK, "Facts", "facts", nil, pages.FactsResults(view))
	}
	if view.Scopes, err = s.q.ListScopes(ctx); err != nil {
		return err
	}
	if filter.Scope != "" {
		if view.EntityNames, err = s.q.EntityNamesInScope(ctx, queries.EntityNamesInScopeParams{
			Scope: filter.Scope, MaxRows: maxEntitySuggestions,
		}); err != nil {
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

// parseFactsFilter reads and validates the facts filter; a bad value is a 400
// that names the parameter and what it accepts. Text the store cannot take
// (not UTF-8, a NUL, a control character) is refused first, in any parameter.
func parseFactsFilter(v url.Values) (pages.FactsFilter, int64, error) {
	if err := memory.CheckParams(v); err != nil {
		return pages.FactsFilter{Status: string(memory.StatusActive)}, 0, err
	}
	f := pages.FactsFilter{
		Scope:      strings.TrimSpace(v.Get("scope")),
		Durability: strings.TrimSpace(v.Get("durability")),
		Category:   strings.TrimSpace(v.Get("category")),
		Status:     strings.TrimSpace(v.Get("status")),
		Query:      strings.TrimSpace(v.Get("q")),
		Entity:     strings.TrimSpace(v.Get("entity")),
	}
	if n := utf8.RuneCountInString(f.Entity); n > 200 {
		return f, 0, memory.Invalidf("entity", "the entity name is %d characters long: at most 200 are allowed", n)
	}
	if f.Scope != "" {
		if _, err := memory.ParseScope(f.Scope); err != nil {
			return f, 0, err
		}
	}
	if f.Durability != "" {
		if _, err := memory.ParseDurability(f.Durability); err != nil {
			return f, 0, err
		}
	}
	if f.Category != "" {
		if _, err := memory.ParseCategory(f.Category); err != nil {
			return f, 0, err
		}
	}
	switch f.Status {
	case "":
		f.Status = string(memory.StatusActive)
	case "all":
	default:
		if _, err := memory.ParseStatus(f.Status); err != nil {
			return f, 0, memory.Invalidf("status", "unknown status %q: allowed values are active, archived, all", f.Status)
		}
	}
	if utf8.RuneCountInString(f.Query) > 200 {
		return f, 0, memory.Invalidf("q", "the text search is %d characters long: at most 200 are allowed", utf8.RuneCountInString(f.Query))
	}
	before, err := keysetBefore(v, "fact")
	return f, before, err
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
