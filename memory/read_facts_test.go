package memory

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestListFactsFilters: each filter of the fact list narrows the page, and
// the page is newest first.
func TestListFactsFilters(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	lyon := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Key: "lives_in", Content: "Ann lives in Lyon"})
	tea := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Key: "likes", Content: "Ann likes green tea",
		Category: CategoryPreference})
	cheerful := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Bob", Content: "Bob is cheerful", Category: CategoryMood})
	work := fx.create(t, reviewer, NewFact{Scope: "work", Entity: "Ann", Key: "role", Content: "Ann leads the platform team"})
	old := fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Bob", Key: "lives_in", Content: "Bob lives in Paris"})
	if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{old.ID}, "moved away"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		filter FactFilter
		want   []int64
	}{
		{"active by default, newest first", FactFilter{}, []int64{work.ID, cheerful.ID, tea.ID, lyon.ID}},
		{"scope", FactFilter{Scope: "home"}, []int64{cheerful.ID, tea.ID, lyon.ID}},
		{"durability", FactFilter{Durability: string(Ephemeral)}, []int64{cheerful.ID}},
		{"category", FactFilter{Category: CategoryPreference}, []int64{tea.ID}},
		{"archived", FactFilter{Status: string(StatusArchived)}, []int64{old.ID}},
		{"all statuses", FactFilter{Status: FactStatusAll, Scope: "home", Entity: "Bob"}, []int64{old.ID, cheerful.ID}},
		{"entity in every scope", FactFilter{Entity: "Ann"}, []int64{work.ID, tea.ID, lyon.ID}},
		{"entity in a scope", FactFilter{Entity: "Ann", Scope: "work"}, []int64{work.ID}},
		{"text search", FactFilter{Query: "tea"}, []int64{tea.ID}},
		{"below a cursor", FactFilter{BeforeID: tea.ID}, []int64{lyon.ID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := fx.s.ListFacts(ctx, tt.filter)
			if err != nil {
				t.Fatalf("ListFacts(%+v) error = %v", tt.filter, err)
			}
			var got []int64
			for _, f := range page.Facts {
				got = append(got, f.ID)
			}
			if !slices.Equal(got, tt.want) || page.Next != 0 || page.EntityMissing {
				t.Errorf("ListFacts(%+v) = %v next %d missing %v, want %v on one page", tt.filter, got, page.Next, page.EntityMissing, tt.want)
			}
		})
	}

	t.Run("summary", func(t *testing.T) {
		page, err := fx.s.ListFacts(ctx, FactFilter{Category: CategoryPreference})
		if err != nil || len(page.Facts) != 1 {
			t.Fatalf("ListFacts = %+v, %v", page, err)
		}
		got, want := page.Facts[0], fx.get(t, tea.ID)
		if got.Scope != want.Scope || got.EntityID != want.EntityID || got.Entity != "Ann" || got.Key != want.Key ||
			got.Content != want.Content || got.Durability != want.Durability || got.Category != want.Category ||
			got.Confidence != want.Confidence || got.EffectiveConfidence != want.EffectiveConfidence ||
			got.Importance != want.Importance || !got.ConfirmedAt.Equal(want.ConfirmedAt) ||
			!timeEqual(got.ForgetAt, want.ForgetAt) || got.Status != want.Status || got.Source != want.Source ||
			got.Version != want.Version || got.ExtractionCount != want.ExtractionCount || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Errorf("summary = %+v, want it to agree with %+v", got, want)
		}
	})

	t.Run("effective confidence at a moment", func(t *testing.T) {
		later := fxStart.Add(30 * 24 * time.Hour)
		page, err := fx.s.ListFacts(ctx, FactFilter{Category: CategoryMood, At: later})
		if err != nil || len(page.Facts) != 1 {
			t.Fatalf("ListFacts = %+v, %v", page, err)
		}
		if f := page.Facts[0]; f.EffectiveConfidence >= f.Confidence {
			t.Errorf("a mood 30 days on has effective confidence %v, want it below %v", f.EffectiveConfidence, f.Confidence)
		}
	})

	t.Run("unknown entity", func(t *testing.T) {
		for _, f := range []FactFilter{{Entity: "Carol"}, {Entity: "Bob", Scope: "work"}} {
			page, err := fx.s.ListFacts(ctx, f)
			if err != nil || !page.EntityMissing || len(page.Facts) != 0 || page.Next != 0 {
				t.Errorf("ListFacts(%+v) = %+v, %v, want an empty page with EntityMissing", f, page, err)
			}
		}
	})
}

// TestListFactsPages: a page holds Limit facts and says where the next one
// starts; the last page says none follows.
func TestListFactsPages(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	var ids []int64
	for _, c := range []string{"one", "two", "three", "four", "five"} {
		ids = append(ids, fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann counts " + c}).ID)
	}
	slices.Reverse(ids)
	var got []int64
	f := FactFilter{Limit: 2}
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatalf("more pages than facts: %v", got)
		}
		page, err := fx.s.ListFacts(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Facts) > 2 {
			t.Fatalf("page of %d facts, want at most 2", len(page.Facts))
		}
		for _, s := range page.Facts {
			got = append(got, s.ID)
		}
		if page.Next == 0 {
			break
		}
		if page.Next != got[len(got)-1] {
			t.Errorf("next = %d, want the last id shown, %d", page.Next, got[len(got)-1])
		}
		f.BeforeID = page.Next
	}
	if !slices.Equal(got, ids) {
		t.Errorf("paged through %v, want %v", got, ids)
	}

	// A page that ends exactly at the last fact says no page follows.
	page, err := fx.s.ListFacts(ctx, FactFilter{Limit: 5})
	if err != nil || len(page.Facts) != 5 || page.Next != 0 {
		t.Errorf("ListFacts(limit 5) = %d facts, next %d, %v; want 5 and no next page", len(page.Facts), page.Next, err)
	}
}

// TestListFactsValidate: a bad filter is refused before any read, naming
// the filter at fault and what it accepts.
func TestListFactsValidate(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	long := strings.Repeat("é", 201)
	tests := []struct {
		name   string
		filter FactFilter
		field  string
		msg    string
	}{
		{"entity too long", FactFilter{Entity: long}, "entity", "the entity name is 201 characters long: at most 200 are allowed"},
		{"scope", FactFilter{Scope: "Not A Scope"}, "scope", `invalid scope "Not A Scope"`},
		{"durability", FactFilter{Durability: "forever"}, "durability", `unknown durability "forever": allowed values are permanent, long_term, short_term, ephemeral`},
		{"category", FactFilter{Category: "Not A Slug"}, "category", `invalid category "Not A Slug"`},
		{"status", FactFilter{Status: "deleted"}, "status", `unknown status "deleted": allowed values are active, archived, all`},
		{"text too long", FactFilter{Query: long}, "q", "the text search is 201 characters long: at most 200 are allowed"},
		{"cursor", FactFilter{BeforeID: -1}, "before", "invalid page cursor -1"},
		{"limit", FactFilter{Limit: 501}, "limit", "invalid limit 501"},
		// The checks run in a fixed order: the entity before the scope,
		// durability before category, status before the text.
		{"first of several", FactFilter{Entity: long, Scope: "Bad"}, "entity", "the entity name"},
		{"durability first", FactFilter{Category: "Bad", Durability: "bad"}, "durability", "unknown durability"},
		{"status first", FactFilter{Status: "bad", Query: long}, "status", "unknown status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fx.s.ListFacts(ctx, tt.filter)
			e := wantError(t, "ListFacts", err, CodeInvalid, tt.msg)
			if e.Field != tt.field {
				t.Errorf("ListFacts(%+v) field = %q, want %q", tt.filter, e.Field, tt.field)
			}
			if verr := tt.filter.Validate(); verr == nil || verr.Error() != err.Error() {
				t.Errorf("Validate() = %v, want what ListFacts said, %v", verr, err)
			}
		})
	}
	for _, f := range []FactFilter{{}, {Status: "active"}, {Status: "archived"}, {Status: "all"}, {Limit: 500},
		{Scope: "home", Durability: "permanent", Category: "preference", Entity: strings.Repeat("é", 200)}} {
		if err := f.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", f, err)
		}
	}
}

// TestListCategoriesAndNames: the categories in use and a scope's entity
// names, both sorted, the names bounded.
func TestListCategoriesAndNames(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Bob", Content: "Bob is cheerful", Category: CategoryMood})
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Content: "Ann likes tea", Category: CategoryPreference})
	fx.create(t, reviewer, NewFact{Scope: "work", Entity: "Carol", Content: "Carol ships", Category: "shipping"})
	cats, err := fx.s.Categories(ctx)
	if want := []string{"mood", "preference", "shipping"}; err != nil || !slices.Equal(cats, want) {
		t.Errorf("Categories() = %v, %v, want %v", cats, err, want)
	}
	names, err := fx.s.EntityNames(ctx, "home", 10)
	if want := []string{"Ann", "Bob"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("EntityNames(home) = %v, %v, want %v", names, err, want)
	}
	names, err = fx.s.EntityNames(ctx, "home", 1)
	if want := []string{"Ann"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("EntityNames(home, 1) = %v, %v, want %v", names, err, want)
	}
}
