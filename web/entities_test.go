package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// entityRows returns the entities page's rows as name → aliases.
func entityRows(doc *goquery.Document) map[string][]string {
	out := map[string][]string{}
	doc.Find(`[data-testid="entity-row"]`).Each(func(_ int, s *goquery.Selection) {
		aliases := []string{}
		s.Find(`[data-testid="entity-alias"]`).Each(func(_ int, a *goquery.Selection) {
			aliases = append(aliases, a.AttrOr("data-alias", ""))
		})
		out[s.AttrOr("data-name", "")] = aliases
	})
	return out
}

// TestEntitiesPage: a reviewer adds an alias, merges two entities and
// undoes the merge on the entities page, each with a message; refusals come
// back as an error message; a viewer sees the page without its forms.
func TestEntitiesPage(t *testing.T) {
	f := newFixture(t, false)
	ana := writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Ana Ruiz", Key: "home_city", Content: "Ana lives in Lisbon."})
	writeFact(t, f, memory.NewFact{Scope: "home", Entity: "Wife", Key: "hobby", Content: "Wife climbs on Sundays."})
	writeFact(t, f, memory.NewFact{Scope: "work", Entity: "Carla", Key: "role", Content: "Carla leads the team."})

	doc := parse(t, f.get(t, "/entities?scope=home"))
	if got := entityRows(doc); len(got) != 2 || got["Ana Ruiz"] == nil || got["Wife"] == nil {
		t.Fatalf("entities of home = %v, want Ana Ruiz and Wife", got)
	}
	if doc.Find(`[data-testid="merge-form"]`).Length() != 1 || doc.Find(`[data-testid="alias-add-form"]`).Length() != 2 {
		t.Error("a reviewer sees no merge form or no alias forms")
	}
	if doc.Find(`[data-testid="merges-empty"]`).Length() != 1 {
		t.Error("no empty-state message for the merges")
	}
	if rec := f.get(t, "/entities"); !strings.Contains(rec.Body.String(), "Ana Ruiz") {
		t.Error("/entities without a scope does not show the first scope")
	}

	// An alias, added then refused as taken.
	aliasPath := "/entities/" + strconv.FormatInt(ana.EntityID, 10) + "/aliases"
	loc, doc, flash := follow(t, f.signedIn, f.signedIn.post(t, aliasPath, url.Values{"scope": {"home"}, "alias": {"my wife"}}))
	if loc != "/entities?scope=home" || !strings.Contains(flash, `"my wife" is now an alias of Ana Ruiz`) {
		t.Errorf("alias added: %s, %q", loc, flash)
	}
	if got := entityRows(doc)["Ana Ruiz"]; len(got) != 1 || got[0] != "my wife" {
		t.Errorf("Ana Ruiz's aliases = %v, want my wife", got)
	}
	_, doc, flash = follow(t, f.signedIn, f.signedIn.post(t, aliasPath, url.Values{"scope": {"home"}, "alias": {"wife"}}))
	if doc.Find(`.flash-error`).Length() != 1 || !strings.Contains(flash, "No alias was added") || !strings.Contains(flash, "merge the two entities") {
		t.Errorf("an alias naming another entity: flash %q, want an error saying to merge", flash)
	}

	// The merge, then the undo.
	_, doc, flash = follow(t, f.signedIn, f.signedIn.post(t, "/entities/merge", url.Values{"scope": {"home"}, "from": {"Wife"}, "into": {"Ana Ruiz"}}))
	if !strings.Contains(flash, "Merged Wife into Ana Ruiz: 1 fact, 0 decisions and 0 working rows moved") {
		t.Errorf("merge flash = %q", flash)
	}
	if got := entityRows(doc); len(got) != 1 || strings.Join(got["Ana Ruiz"], ",") != "my wife,Wife" {
		t.Errorf("entities after the merge = %v, want Ana Ruiz alone with aliases my wife and Wife", got)
	}
	merge := doc.Find(`[data-testid="merge-row"]`)
	if merge.Length() != 1 || merge.Find(`[data-testid="merge-undo-form"]`).Length() != 1 {
		t.Fatalf("merges listed: %d, want one with an undo button", merge.Length())
	}
	if doc.Find(`[data-alias="Wife"] [data-testid="alias-remove"]`).Length() != 0 {
		t.Error("the merge's alias offers a remove button; only an undo removes it")
	}
	_, _, flash = follow(t, f.signedIn, f.signedIn.post(t, "/entities/merge", url.Values{"scope": {"home"}, "from": {"wife"}, "into": {"Ana Ruiz"}}))
	if !strings.Contains(flash, "Nothing was merged") || !strings.Contains(flash, "one entity already") {
		t.Errorf("merging an alias into its entity: flash %q", flash)
	}
	undo := "/entities/merges/" + merge.AttrOr("data-merge-id", "") + "/undo"
	_, doc, flash = follow(t, f.signedIn, f.signedIn.post(t, undo, url.Values{"scope": {"home"}}))
	if !strings.Contains(flash, "undone: Wife is an entity of its own again") {
		t.Errorf("undo flash = %q", flash)
	}
	if got := entityRows(doc); len(got) != 2 || len(got["Wife"]) != 0 {
		t.Errorf("entities after the undo = %v, want Ana Ruiz and Wife again", got)
	}
	if doc.Find(`[data-testid="merge-undone"]`).Length() != 1 {
		t.Error("the undone merge is not marked undone")
	}
	_, _, flash = follow(t, f.signedIn, f.signedIn.post(t, undo, url.Values{"scope": {"home"}}))
	if !strings.Contains(flash, "already undone") {
		t.Errorf("second undo: flash %q, want already undone", flash)
	}
	_, _, flash = follow(t, f.signedIn, f.signedIn.post(t, aliasPath+"/remove", url.Values{"scope": {"home"}, "alias": {"My Wife"}}))
	if !strings.Contains(flash, `"my wife" is no longer an alias of Ana Ruiz`) {
		t.Errorf("alias removed: flash %q", flash)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action LIKE 'entity.%' AND actor = 'user:reviewer@example.com'`); n != 4 {
		t.Errorf("%d entity audit rows by the reviewer, want 4", n)
	}

	// A viewer reads the page but gets no forms, and may not post.
	viewer := f.login(t, "viewer")
	doc = parse(t, viewer.get(t, "/entities?scope=home"))
	if doc.Find(`form[method="post"][action^="/entities"]`).Length() != 0 {
		t.Error("a viewer sees forms that change entities")
	}
	if rec := viewer.post(t, "/entities/merge", url.Values{"scope": {"home"}, "from": {"Wife"}, "into": {"Ana Ruiz"}}); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's merge = %d, want 403", rec.Code)
	}
	if rec := f.get(t, "/entities?scope=Not%20Valid"); rec.Code != http.StatusBadRequest {
		t.Errorf("GET /entities with a bad scope = %d, want 400", rec.Code)
	}
	// A merge's audit row links to the merge on the entities page.
	if href, _ := parse(t, f.get(t, "/audit?action=entity.merge")).Find(`a[href*="#merge-"]`).Attr("href"); !strings.HasPrefix(href, "/entities?scope=home#merge-") {
		t.Errorf("audit link of the merge = %q", href)
	}
}
