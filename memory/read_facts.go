package memory

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/queries"
)

// The fact list's bounds: the longest entity name and text search a filter
// may carry, and the page sizes.
const (
	maxFactFilterText = 200
	defaultFactsLimit = 50
	maxFactsLimit     = 500
)

// FactFilter selects one page of the fact list, newest first. Every zero
// field leaves its filter out, except Status, whose default is active. The
// console's facts page and the API's fact list both read through it.
type FactFilter struct {
	Scope      string // "" for every scope
	Durability string
	Category   string
	// Status is active (also the empty default), archived, or all.
	Status string
	// Entity is an entity's exact name: the facts about every entity so
	// called, in Scope when one is set.
	Entity string
	// Query is a text search over the facts, in web search syntax.
	Query    string
	BeforeID int64 // keyset cursor: facts with smaller ids; 0 for the first page
	Limit    int   // the page size; default 50, at most 500
	// At is the moment effective confidences are computed for; zero means
	// the store's now.
	At time.Time
}

// FactStatusAll is the Status of a FactFilter that lists active and
// archived facts alike.
const FactStatusAll = "all"

// FactSummary is a fact as lists show it: GetFact has its expiry, archive
// state and source row.
type FactSummary struct {
	ID                  int64
	Scope               string
	EntityID            int64
	Entity              string
	Key                 string
	Content             string
	Durability          Durability
	Category            string
	Confidence          float64 // at ConfirmedAt
	EffectiveConfidence float64 // at the filter's moment, after decay
	Importance          float64
	ConfirmedAt         time.Time
	Deadline            *time.Time
	ForgetAt            *time.Time // when decay will archive the fact; nil when it never decays
	Status              Status
	Source              string
	ExtractionCount     int32
	Version             int32
	CreatedAt           time.Time
}

// FactPage is one page of the fact list.
type FactPage struct {
	Facts []FactSummary
	// Next is the BeforeID of the next page; 0 on the last page.
	Next int64
	// EntityMissing is set when the filter names an entity that does not
	// exist (in its scope): the page is empty without being searched.
	EntityMissing bool
}

// Validate checks the filter without reading the database. A bad value is
// a CodeInvalid error naming the filter at fault and what it accepts; the
// checks run in a fixed order (entity, scope, durability, category, status,
// text search, page), so the same filter always gets the same answer.
func (f FactFilter) Validate() error {
	if n := utf8.RuneCountInString(f.Entity); n > maxFactFilterText {
		return Invalidf("entity", "the entity name is %d characters long: at most %d are allowed", n, maxFactFilterText)
	}
	if f.Scope != "" {
		if _, err := ParseScope(f.Scope); err != nil {
			return err
		}
	}
	if f.Durability != "" {
		if _, err := ParseDurability(f.Durability); err != nil {
			return err
		}
	}
	if f.Category != "" {
		if _, err := ParseCategory(f.Category); err != nil {
			return err
		}
	}
	switch f.Status {
	case "", FactStatusAll:
	default:
		if _, err := ParseStatus(f.Status); err != nil {
			return Invalidf("status", "unknown status %q: allowed values are active, archived, all", f.Status)
		}
	}
	if n := utf8.RuneCountInString(f.Query); n > maxFactFilterText {
		return Invalidf("q", "the text search is %d characters long: at most %d are allowed", n, maxFactFilterText)
	}
	if f.BeforeID < 0 {
		return Invalidf("before", "invalid page cursor %d: it must be a positive fact id", f.BeforeID)
	}
	if f.Limit < 0 || f.Limit > maxFactsLimit {
		return Invalidf("limit", "invalid limit %d: use a whole number from 1 to %d", f.Limit, maxFactsLimit)
	}
	return nil
}

// factsWalkRows is how many of the newest facts passing the cheap filters
// the fact list examines for the text and the entity before it searches the
// older ones through the indexes: 40 per row wanted, from 2,000 to 20,000.
// Examining a fact on the walk costs about as much as fetching a match the
// full-text index found (a few microseconds each), so the walk fills the page
// whenever more than one fact in 40 matches, and otherwise costs a few
// milliseconds before the search, whose cost follows the matches below the
// walk (at most about a fortieth of the facts when they are spread evenly;
// none, or a few, for the searches that find nothing or little).
func factsWalkRows(want int32) int32 {
	return min(max(40*want, 2000), 20000)
}

// ListFacts returns one page of facts matching f, newest first, with their
// effective confidence at f.At, and where the next page starts. A malformed
// filter is refused as Validate says.
func (s *Store) ListFacts(ctx context.Context, f FactFilter) (FactPage, error) {
	if err := f.Validate(); err != nil {
		return FactPage{}, err
	}
	var page FactPage
	err := s.read(ctx, func(ctx context.Context, db *queries.Queries) error {
		var err error
		page, err = s.listFacts(ctx, db, f)
		return err
	})
	return page, err
}

// listFacts is ListFacts of a valid f with queries db.
func (s *Store) listFacts(ctx context.Context, db *queries.Queries, f FactFilter) (FactPage, error) {
	limit := f.Limit
	if limit == 0 {
		limit = defaultFactsLimit
	}
	// One more row than the page tells whether another page follows.
	want := int32(limit + 1)
	var scope, durability, category, status, query *string
	if f.Scope != "" {
		scope = &f.Scope
	}
	if f.Durability != "" {
		durability = &f.Durability
	}
	if f.Category != "" {
		category = &f.Category
	}
	switch f.Status {
	case "":
		active := string(StatusActive)
		status = &active
	case FactStatusAll:
	default:
		status = &f.Status
	}
	if f.Query != "" {
		query = &f.Query
	}
	var entityIDs []int64
	if f.Entity != "" {
		ids, err := db.EntityIDsNamed(ctx, queries.EntityIDsNamedParams{Name: f.Entity, Scope: scope})
		if err != nil {
			return FactPage{}, fmt.Errorf("list facts: entity %q: %w", f.Entity, err)
		}
		if len(ids) == 0 {
			return FactPage{EntityMissing: true}, nil
		}
		entityIDs = ids
	}

	// First the walk: the newest facts passing the cheap filters, at most
	// walk of them, keeping those that match the text. When the text or
	// the entity is common, it fills the page.
	walk := factsWalkRows(want)
	var walked []queries.FactIDsWalkRow
	var err error
	if entityIDs != nil {
		var rows []queries.FactIDsWalkEntitiesRow
		rows, err = db.FactIDsWalkEntities(ctx, queries.FactIDsWalkEntitiesParams{
			EntityIds: entityIDs, Scope: scope, Durability: durability, Category: category, Status: status,
			BeforeID: f.BeforeID, WalkRows: walk, Query: query, PageSize: want})
		for _, r := range rows {
			walked = append(walked, queries.FactIDsWalkRow(r))
		}
	} else {
		walked, err = db.FactIDsWalk(ctx, queries.FactIDsWalkParams{
			Scope: scope, Durability: durability, Category: category, Status: status,
			BeforeID: f.BeforeID, WalkRows: walk, Query: query, PageSize: want})
	}
	if err != nil {
		return FactPage{}, fmt.Errorf("list facts: %w", err)
	}
	ids := make([]int64, 0, want)
	var walkEnd int64
	for _, r := range walked {
		if r.Hit {
			ids = append(ids, r.ID)
		}
		if r.Last {
			walkEnd = r.ID
		}
	}
	// Then, when the matches were sparse and older facts remain, the
	// search: the rest of the page below the walk, found through the
	// indexes of the filters, whose cost follows the number of matches.
	if int32(len(ids)) < want && walkEnd != 0 {
		more, err := db.FactIDsSearch(ctx, queries.FactIDsSearchParams{
			Scope: scope, EntityIds: entityIDs, Durability: durability, Category: category, Status: status,
			Query: query, BeforeID: walkEnd, PageSize: want - int32(len(ids))})
		if err != nil {
			return FactPage{}, fmt.Errorf("list facts: %w", err)
		}
		ids = append(ids, more...)
	}
	var rows []queries.ListFactsByIDsRow
	if len(ids) > 0 {
		at := f.At
		if at.IsZero() {
			at = s.Now()
		}
		if rows, err = db.ListFactsByIDs(ctx, queries.ListFactsByIDsParams{Now: at, Ids: ids}); err != nil {
			return FactPage{}, fmt.Errorf("list facts: %w", err)
		}
	}
	var page FactPage
	if len(rows) > limit {
		rows = rows[:limit]
		page.Next = rows[len(rows)-1].ID
	}
	page.Facts = make([]FactSummary, len(rows))
	for i, r := range rows {
		page.Facts[i] = FactSummary{
			ID: r.ID, Scope: r.Scope, EntityID: r.EntityID, Entity: r.EntityName, Key: r.Key,
			Content: r.Content, Durability: Durability(r.Durability), Category: r.Category,
			Confidence: r.Confidence, EffectiveConfidence: r.EffectiveConfidence, Importance: r.Importance,
			ConfirmedAt: r.ConfirmedAt, Deadline: r.Deadline, ForgetAt: r.ForgetAt, Status: Status(r.Status),
			Source: r.Source, ExtractionCount: r.ExtractionCount, Version: r.Version, CreatedAt: r.CreatedAt,
		}
	}
	return page, nil
}

// Categories returns every category in use, sorted.
func (s *Store) Categories(ctx context.Context) ([]string, error) {
	cats, err := s.q.ListCategories(ctx)
	if err != nil {
		return nil, fmt.Errorf("list categories: %w", err)
	}
	return cats, nil
}

// EntityNames returns up to max entity names of scope, sorted, for a filter
// to suggest.
func (s *Store) EntityNames(ctx context.Context, scope string, max int32) ([]string, error) {
	names, err := s.q.EntityNamesInScope(ctx, queries.EntityNamesInScopeParams{Scope: scope, MaxRows: max})
	if err != nil {
		return nil, fmt.Errorf("list entity names: %w", err)
	}
	return names, nil
}
