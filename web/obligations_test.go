package web_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// obligationRows returns the fact ids of one section of the obligations page, in order.
func obligationRows(t *testing.T, doc *goquery.Document, section string) []int64 {
	t.Helper()
	var ids []int64
	doc.Find(`[data-testid="` + section + `"] [data-testid="obligation-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, err := strconv.ParseInt(s.AttrOr("data-fact-id", ""), 10, 64)
		if err != nil {
			t.Errorf("obligation row without a numeric data-fact-id")
		}
		ids = append(ids, id)
		if href := s.Find(`[data-testid="obligation-content"] a`).AttrOr("href", ""); href != factPage(id) {
			t.Errorf("obligation %d links to %q, want its fact page", id, href)
		}
	})
	return ids
}

func deadlines(t *testing.T, f fixture, ids []int64) []time.Time {
	t.Helper()
	out := make([]time.Time, len(ids))
	for i, id := range ids {
		if err := f.pool.QueryRow(context.Background(), `SELECT deadline FROM entity_facts WHERE id = $1`, id).Scan(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestObligationsPage(t *testing.T) {
	f := newFixture(t, true)
	// An extra overdue obligation elsewhere, one without a deadline, and an
	// archived one, which is not shown.
	long := now.Add(-30 * 24 * time.Hour)
	oldest := writeFact(t, f, memory.NewFact{Scope: "elsewhere", Entity: "Bo", Content: "Return the library books.",
		Category: "obligation", Deadline: &long})
	open := writeFact(t, f, memory.NewFact{Scope: "elsewhere", Entity: "Bo", Content: "Call the plumber some day.", Category: "obligation"})
	soon := now.Add(24 * time.Hour)
	gone := writeFact(t, f, memory.NewFact{Scope: "elsewhere", Entity: "Bo", Content: "Archived obligation.", Category: "obligation", Deadline: &soon})
	if _, err := factsStore(f).ArchiveFacts(context.Background(), memory.Human("x@example.com"), []int64{gone.ID}, ""); err != nil {
		t.Fatal(err)
	}

	viewer := f.login(t, "viewer")
	rec := viewer.get(t, "/obligations")
	if rec.Code != http.StatusOK {
		t.Fatalf("viewer GET /obligations = %d, want 200", rec.Code)
	}
	doc := parse(t, rec)
	if doc.Find("h1").Length() != 1 {
		t.Error("want exactly one h1")
	}

	overdue := obligationRows(t, doc, "overdue")
	if len(overdue) < 3 || overdue[0] != oldest.ID {
		t.Errorf("overdue = %v, want the demo's overdue obligations after the oldest, %d", overdue, oldest.ID)
	}
	for i, d := range deadlines(t, f, overdue) {
		if !d.Before(now) {
			t.Errorf("overdue row %d has deadline %s, not before now", i, d)
		}
		if i > 0 && d.Before(deadlines(t, f, overdue[i-1:i])[0]) {
			t.Errorf("overdue row %d (deadline %s) comes after a later deadline; want oldest first", i, d)
		}
	}
	if by := strings.TrimSpace(doc.Find(`[data-testid="overdue"] [data-testid="overdue-by"]`).First().Text()); by != "30 d" {
		t.Errorf("oldest overdue by %q, want 30 d", by)
	}

	upcoming := obligationRows(t, doc, "upcoming")
	if len(upcoming) < 3 {
		t.Fatalf("upcoming = %v, want the demo's upcoming obligations", upcoming)
	}
	ds := deadlines(t, f, upcoming)
	for i, d := range ds {
		if d.Before(now) {
			t.Errorf("upcoming row %d has deadline %s, before now", i, d)
		}
		if i > 0 && d.Before(ds[i-1]) {
			t.Errorf("upcoming row %d (deadline %s) after %s; want soonest first", i, d, ds[i-1])
		}
	}
	dueIn := doc.Find(`[data-testid="upcoming"] [data-testid="due-in"]`)
	if dueIn.Length() != len(upcoming) || strings.TrimSpace(dueIn.First().Text()) == "" {
		t.Errorf("%d due-in cells for %d upcoming rows", dueIn.Length(), len(upcoming))
	}
	for _, id := range append(overdue, upcoming...) {
		if id == gone.ID {
			t.Error("an archived obligation is listed")
		}
	}
	if noDeadline := obligationRows(t, doc, "no-deadline"); len(noDeadline) != 1 || noDeadline[0] != open.ID {
		t.Errorf("without a deadline = %v, want [%d]", noDeadline, open.ID)
	}

	t.Run("scope filter", func(t *testing.T) {
		doc := parse(t, viewer.get(t, "/obligations?scope=elsewhere"))
		if got := obligationRows(t, doc, "overdue"); len(got) != 1 || got[0] != oldest.ID {
			t.Errorf("overdue in scope elsewhere = %v, want [%d]", got, oldest.ID)
		}
		if got := obligationRows(t, doc, "upcoming"); len(got) != 0 {
			t.Errorf("upcoming in scope elsewhere = %v, want none", got)
		}
		if doc.Find(`[data-testid="upcoming-empty"]`).Length() != 1 {
			t.Error("an empty section has no empty-state message")
		}
		if v := doc.Find(`[data-testid="filter-scope"] option[selected]`).AttrOr("value", ""); v != "elsewhere" {
			t.Errorf("selected scope = %q, want elsewhere", v)
		}
	})

	t.Run("bad scope", func(t *testing.T) {
		if rec := viewer.get(t, "/obligations?scope=Bad%20Scope"); rec.Code != http.StatusBadRequest {
			t.Errorf("GET /obligations?scope=Bad Scope = %d, want 400", rec.Code)
		}
	})

	t.Run("htmx fragment", func(t *testing.T) {
		rec := viewer.get(t, "/obligations?scope=elsewhere", "HX-Request", "true")
		body := rec.Body.String()
		if rec.Code != http.StatusOK || strings.Contains(body, "<html") || !strings.Contains(body, `id="obligations-results"`) {
			t.Errorf("htmx GET = %d, want the results fragment: %.200s", rec.Code, body)
		}
	})
}
