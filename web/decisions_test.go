package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// decStore is an engine over the fixture's database with the server's clock,
// to set up what the pages show.
func decStore(f fixture) *memory.Store {
	return memory.NewStore(f.pool, memory.Options{
		Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

// decRecord records a locked decision as a reviewer.
func decRecord(t *testing.T, f fixture, scope, entity, key, decision, reasoning string) memory.Decision {
	t.Helper()
	d, err := decStore(f).RecordDecision(context.Background(), memory.Human("ann@example.com"), memory.NewDecision{
		Scope: scope, Entity: entity, Key: key, Decision: decision, Reasoning: reasoning,
		Alternatives: []string{"MySQL", "SQLite"}, DecidedBy: "the team",
	})
	if err != nil {
		t.Fatalf("RecordDecision() error = %v", err)
	}
	return d
}

// decGet reads a decision that must exist.
func decGet(t *testing.T, f fixture, id int64) memory.Decision {
	t.Helper()
	d, err := decStore(f).GetDecision(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func decText(doc *goquery.Document, testid string) string {
	return strings.TrimSpace(doc.Find(`[data-testid="` + testid + `"]`).First().Text())
}

func decPage(id int64) string { return "/decisions/" + strconv.FormatInt(id, 10) }

// decRows returns the decision ids listed, in order.
func decRows(t *testing.T, rec *httptest.ResponseRecorder) []int64 {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("GET = %d, want 200; body %.300s", rec.Code, rec.Body)
	}
	var ids []int64
	parse(t, rec).Find(`[data-testid="decision-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, err := strconv.ParseInt(s.AttrOr("data-decision-id", ""), 10, 64)
		if err != nil {
			t.Errorf("decision row without an id: %v", err)
		}
		ids = append(ids, id)
	})
	return ids
}

func TestDecisionsListAndFilters(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	all := decRows(t, f.get(t, "/decisions"))
	if n := dbInt(t, f, `SELECT count(*) FROM decisions`); len(all) != n || n == 0 {
		t.Fatalf("GET /decisions lists %d decisions, want all %d", len(all), n)
	}
	for i := 1; i < len(all); i++ {
		if all[i] >= all[i-1] {
			t.Errorf("decision %d listed after %d, want newest first", all[i], all[i-1])
		}
	}

	// One refused write against the RMA decision shows in its count.
	var rma int64
	if err := f.pool.QueryRow(ctx, `SELECT id FROM decisions WHERE key = 'rma_policy'`).Scan(&rma); err != nil {
		t.Fatal(err)
	}
	_, _, err := decStore(f).CreateFact(ctx, memory.Token("support-bot"), memory.NewFact{
		Scope: "acme-support", Entity: "Acme Robotics", Key: "rma_policy", Content: "Ask for photos first."})
	if memory.ErrorCode(err) != memory.CodeDecisionLocked {
		t.Fatalf("CreateFact on a locked key = %v, want a refusal", err)
	}
	doc := parse(t, f.get(t, "/decisions"))
	row := doc.Find(fmt.Sprintf(`[data-testid="decision-row"][data-decision-id="%d"]`, rma))
	if got := strings.TrimSpace(row.Find(`[data-testid="decision-refusals"]`).Text()); got != "1" {
		t.Errorf("refused count of the RMA decision = %q, want 1", got)
	}
	if got := strings.TrimSpace(row.Find(`[data-testid="decision-lock"]`).Text()); got != "locked" {
		t.Errorf("lock badge = %q, want locked", got)
	}
	if href, _ := row.Find(`[data-testid="decision-link"]`).Attr("href"); href != decPage(rma) {
		t.Errorf("row links to %q, want %q", href, decPage(rma))
	}
	for _, col := range []string{"Decision", "Entity", "Key", "Decided by", "Decided", "Lock", "Refused"} {
		if !strings.Contains(doc.Find(`[data-testid="decisions-table"] thead`).Text(), col) {
			t.Errorf("no %s column", col)
		}
	}

	tests := []struct {
		query string
		where string
	}{
		{"lock=open", `NOT do_not_reopen`},
		{"lock=locked", `do_not_reopen`},
		{"scope=platform-ops", `scope = 'platform-ops'`},
		{"entity=Acme+Robotics", `entity_id IN (SELECT id FROM entities WHERE name = 'Acme Robotics')`},
		{"q=EUR", `concat_ws(' ', decision, reasoning, key, array_to_string(alternatives, ' ')) ILIKE '%EUR%'`},
		{"scope=acme-support&lock=locked", `scope = 'acme-support' AND do_not_reopen`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := decRows(t, f.get(t, "/decisions?"+tt.query))
			want := dbInt(t, f, `SELECT count(*) FROM decisions WHERE `+tt.where)
			if len(got) != want || want == 0 {
				t.Errorf("GET /decisions?%s lists %d, want %d", tt.query, len(got), want)
			}
		})
	}

	t.Run("filter kept in the form and htmx fragment", func(t *testing.T) {
		doc := parse(t, f.get(t, "/decisions?lock=open&scope=personal-assistant"))
		if v := doc.Find(`[data-testid="decisions-filter-lock"] option[selected]`).AttrOr("value", ""); v != "open" {
			t.Errorf("selected lock = %q, want open", v)
		}
		if v := doc.Find(`[data-testid="decisions-filter-scope"] option[selected]`).AttrOr("value", ""); v != "personal-assistant" {
			t.Errorf("selected scope = %q", v)
		}
		rec := f.get(t, "/decisions?lock=open", "HX-Request", "true")
		if body := rec.Body.String(); strings.Contains(body, "<html") || !strings.Contains(body, `id="decisions-results"`) {
			t.Errorf("htmx response is not the results fragment: %.200s", body)
		}
	})

	t.Run("no match and bad filters", func(t *testing.T) {
		if parse(t, f.get(t, "/decisions?q=zzzznothing")).Find(`[data-testid="decisions-empty"]`).Length() != 1 {
			t.Error("no empty-state message")
		}
		for q, want := range map[string]string{
			"lock=maybe": "allowed values are locked, open", "scope=Bad%20Scope": "invalid scope",
			"before=x": "positive decision id",
		} {
			rec := f.get(t, "/decisions?"+q)
			if rec.Code != http.StatusBadRequest || !strings.Contains(parse(t, rec).Find(`[data-testid="error-message"]`).Text(), want) {
				t.Errorf("GET /decisions?%s = %d, want 400 saying %q", q, rec.Code, want)
			}
		}
	})
}

func TestDecisionsListPages(t *testing.T) {
	f := newFixture(t, false)
	for i := range 53 {
		decRecord(t, f, "acme", "Acme", fmt.Sprintf("question_%02d", i), fmt.Sprintf("Answer %d.", i), "Because.")
	}
	first := decRows(t, f.get(t, "/decisions"))
	if len(first) != 50 {
		t.Fatalf("first page lists %d, want 50", len(first))
	}
	next, ok := parse(t, f.get(t, "/decisions")).Find(`[data-testid="decisions-next-page"]`).Attr("href")
	if !ok {
		t.Fatal("no link to the next page")
	}
	second := decRows(t, f.get(t, next))
	if len(second) != 3 || second[0] >= first[49] {
		t.Errorf("second page = %v, want the 3 oldest, after %d", second, first[49])
	}
}

func TestDecisionPageShowsReasoningAndRefusedWrites(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	d := decRecord(t, f, "acme", "Acme Robotics", "database", "Use PostgreSQL.", "We know it well.\nIt has advisory locks.")
	_, _, err := decStore(f).CreateFact(ctx, memory.Token("laptop-agent"), memory.NewFact{
		Scope: "acme", Entity: "Acme Robotics", Key: "database", Content: "Move to MongoDB."})
	if locked := memory.AsError(err); locked == nil || locked.Locked == nil || locked.Locked.ID != d.ID {
		t.Fatalf("CreateFact(locked) = %v, want a refusal by decision %d", err, d.ID)
	}

	rec := f.get(t, decPage(d.ID))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d", decPage(d.ID), rec.Code)
	}
	doc := parse(t, rec)
	reasoning := doc.Find(`[data-testid="decision-reasoning"]`)
	if !strings.Contains(reasoning.Text(), "We know it well.") || !strings.Contains(reasoning.Text(), "It has advisory locks.") ||
		reasoning.Find("br").Length() != 1 {
		html, _ := reasoning.Html()
		t.Errorf("reasoning = %q, want both lines with the line break kept", html)
	}
	if got := decText(doc, "decision-decision"); got != "Use PostgreSQL." {
		t.Errorf("decision = %q", got)
	}
	if n := doc.Find(`[data-testid="decision-alternative"]`).Length(); n != 2 {
		t.Errorf("alternatives listed = %d, want 2", n)
	}
	if got := decText(doc, "decision-decided-by"); got != "the team" {
		t.Errorf("decided by = %q", got)
	}
	if got := decText(doc, "decision-lock"); got != "locked" {
		t.Errorf("lock = %q, want locked", got)
	}
	rows := doc.Find(`[data-testid="refused-row"]`)
	if rows.Length() != 1 {
		t.Fatalf("refused writes listed = %d, want 1", rows.Length())
	}
	if c := strings.TrimSpace(rows.Find(`[data-testid="refused-content"]`).Text()); c != "Move to MongoDB." {
		t.Errorf("refused content = %q", c)
	}
	if src := rows.Find(`[data-testid="refused-source"]`).Text(); !strings.Contains(src, "api") || !strings.Contains(src, "token:laptop-agent") {
		t.Errorf("refused source = %q, want api and the token", src)
	}
	if doc.Find(`[data-testid="history-row"]`).Length() != 1 || decText(doc, "history-action") != "decision.create" {
		t.Errorf("history = %q, want the creation", doc.Find(`[data-testid="history-table"]`).Text())
	}

	for _, path := range []string{"/decisions/999999", "/decisions/abc"} {
		if rec := f.get(t, path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, rec.Code)
		}
	}
}

// decEditForm is the decision's edit form as the page fills it.
func decEditForm(t *testing.T, c *client, id int64) url.Values {
	t.Helper()
	doc := parse(t, c.get(t, decPage(id)))
	form := doc.Find(`[data-testid="decision-form"]`)
	if form.Length() != 1 {
		t.Fatal("no edit form on the decision page")
	}
	v := url.Values{}
	form.Find("input[name], textarea[name]").Each(func(_ int, s *goquery.Selection) {
		name := s.AttrOr("name", "")
		if name == "_csrf" {
			return
		}
		if goquery.NodeName(s) == "textarea" {
			v.Set(name, s.Text())
		} else {
			v.Set(name, s.AttrOr("value", ""))
		}
	})
	return v
}

func TestDecisionEdit(t *testing.T) {
	f := newFixture(t, false)
	d := decRecord(t, f, "acme", "Acme Robotics", "database", "Use PostgreSQL.", "We know it well.")

	t.Run("saved", func(t *testing.T) {
		form := decEditForm(t, f.signedIn, d.ID)
		if form.Get("version") != "1" || form.Get("alternatives") != "MySQL\nSQLite" {
			t.Fatalf("edit form = %v, want version 1 and one alternative per line", form)
		}
		form.Set("reasoning", "We know it well.\nAnd it has advisory locks.")
		form.Set("alternatives", "MySQL\n\n CockroachDB \n")
		form.Set("reason", "added the locks argument")
		rec := f.signedIn.post(t, decPage(d.ID), form)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != decPage(d.ID) {
			t.Fatalf("POST edit = %d to %q, want 303 back to the decision; body %.300s", rec.Code, rec.Header().Get("Location"), rec.Body)
		}
		got := decGet(t, f, d.ID)
		if got.Reasoning != "We know it well.\nAnd it has advisory locks." || got.Version != 2 ||
			strings.Join(got.Alternatives, "|") != "MySQL|CockroachDB" || !got.DecidedAt.Equal(d.DecidedAt) {
			t.Errorf("decision after edit = %+v, want the new reasoning and alternatives, decided_at unchanged", got)
		}
		doc := parse(t, f.get(t, decPage(d.ID)))
		if !strings.Contains(decText(doc, "flash"), "saved") {
			t.Errorf("flash = %q, want it to say saved", decText(doc, "flash"))
		}
		first := doc.Find(`[data-testid="history-row"]`).First()
		if a := strings.TrimSpace(first.Find(`[data-testid="history-action"]`).Text()); a != "decision.update" ||
			first.Find(`[data-testid="history-change"][data-field="reasoning"]`).Length() != 1 ||
			!strings.Contains(first.Find(`[data-testid="history-reason"]`).Text(), "added the locks argument") {
			t.Errorf("newest history row = %q, want the reasoning change with its reason", first.Text())
		}
	})

	t.Run("stale version", func(t *testing.T) {
		form := decEditForm(t, f.signedIn, d.ID)
		form.Set("version", "1")
		form.Set("reasoning", "An old idea.")
		rec := f.signedIn.post(t, decPage(d.ID), form)
		if rec.Code != http.StatusConflict {
			t.Fatalf("POST with a stale version = %d, want 409", rec.Code)
		}
		doc := parse(t, rec)
		if !strings.Contains(decText(doc, "conflict-message"), "Someone else changed") {
			t.Errorf("conflict message = %q", decText(doc, "conflict-message"))
		}
		if v := doc.Find(`[data-testid="decision-form-version"]`).AttrOr("value", ""); v != "2" {
			t.Errorf("form version = %q, want the current 2", v)
		}
		if r := doc.Find(`[data-testid="decision-form-reasoning"]`).Text(); r != "We know it well.\nAnd it has advisory locks." {
			t.Errorf("form reasoning = %q, want the current value", r)
		}
		if !strings.Contains(doc.Find(`[data-testid="conflict-yours"]`).Text(), "An old idea.") {
			t.Error("the refused change is not shown for reference")
		}
		if got := decGet(t, f, d.ID); got.Version != 2 || got.Reasoning == "An old idea." {
			t.Errorf("decision after stale edit = %+v, want unchanged", got)
		}
	})

	invalid := []struct {
		name, field, value, errID, want string
	}{
		{"empty reasoning", "reasoning", "  ", "reasoning", "reasoning is empty"},
		{"empty decision", "decision", "", "decision", "decision is empty"},
		{"future", "decided_at", "2027-01-01T00:00:00", "decided_at", "in the future"},
		{"not a time", "decided_at", "yesterday", "decided_at", "not a date and time"},
		{"long decided_by", "decided_by", strings.Repeat("x", 201), "decided_by", "at most 200"},
	}
	for _, tt := range invalid {
		t.Run(tt.name, func(t *testing.T) {
			form := decEditForm(t, f.signedIn, d.ID)
			form.Set(tt.field, tt.value)
			form.Set("reason", "kept reason")
			rec := f.signedIn.post(t, decPage(d.ID), form)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("POST %s = %d, want 422", tt.name, rec.Code)
			}
			doc := parse(t, rec)
			if msg := decText(doc, "error-"+tt.errID); !strings.Contains(msg, tt.want) {
				t.Errorf("error-%s = %q, want %q", tt.errID, msg, tt.want)
			}
			if doc.Find(`[data-testid="decision-form"] [aria-invalid="true"]`).Length() != 1 {
				t.Error("want exactly the field at fault marked aria-invalid")
			}
			if v := doc.Find(`[data-testid="decision-form-reason"]`).AttrOr("value", ""); v != "kept reason" {
				t.Errorf("typed reason = %q, want it kept", v)
			}
			if got := decGet(t, f, d.ID); got.Version != 2 {
				t.Errorf("version = %d after an invalid edit, want 2", got.Version)
			}
		})
	}
}

func TestDecisionReopenAndRelock(t *testing.T) {
	f := newFixture(t, false)
	d := decRecord(t, f, "acme", "Acme Robotics", "database", "Use PostgreSQL.", "We know it well.")
	doc := parse(t, f.get(t, decPage(d.ID)))
	reason := doc.Find(`[data-testid="reopen-form"] textarea[name="reason"]`)
	if _, ok := reason.Attr("required"); !ok {
		t.Error("the reopen reason is not marked required")
	}
	if doc.Find(`[data-testid="relock-form"]`).Length() != 0 {
		t.Error("a locked decision offers to lock it again")
	}

	rec := f.signedIn.post(t, decPage(d.ID)+"/reopen", url.Values{"reason": {"   "}})
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("reopen without a reason = %d, want 422", rec.Code)
	}
	doc = parse(t, rec)
	if msg := decText(doc, "error-reopen-reason"); !strings.Contains(msg, "reason is required") {
		t.Errorf("error beside the reason = %q", msg)
	}
	if v := doc.Find(`[data-testid="reopen-reason"]`).AttrOr("aria-invalid", ""); v != "true" {
		t.Errorf("reason aria-invalid = %q, want true", v)
	}
	if got := decGet(t, f, d.ID); !got.DoNotReopen || got.Version != 1 {
		t.Errorf("decision after a refused reopen = %+v, want unchanged", got)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'decision.reopen'`); n != 0 {
		t.Errorf("reopen audit rows = %d, want 0", n)
	}

	rec = f.signedIn.post(t, decPage(d.ID)+"/reopen", url.Values{"reason": {"MongoDB has transactions now."}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != decPage(d.ID) {
		t.Fatalf("reopen = %d to %q, want 303", rec.Code, rec.Header().Get("Location"))
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'decision.reopen' AND target_id = $1
		AND reason = 'MongoDB has transactions now.' AND actor = 'user:reviewer@example.com'`, strconv.FormatInt(d.ID, 10)); n != 1 {
		t.Errorf("reopen audit rows with the reason = %d, want 1", n)
	}
	doc = parse(t, f.get(t, decPage(d.ID)))
	if decText(doc, "decision-lock") != "reopened" || decText(doc, "decision-reopen-reason") != "MongoDB has transactions now." ||
		decText(doc, "decision-reopened-by") != "reviewer@example.com" {
		t.Errorf("page after reopening: lock %q, reason %q, by %q", decText(doc, "decision-lock"),
			decText(doc, "decision-reopen-reason"), decText(doc, "decision-reopened-by"))
	}
	if doc.Find(`[data-testid="relock-form"]`).Length() != 1 || doc.Find(`[data-testid="reopen-form"]`).Length() != 0 {
		t.Error("a reopened decision should offer to lock it again, not to reopen it")
	}

	rec = f.signedIn.post(t, decPage(d.ID)+"/reopen", url.Values{"reason": {"again"}})
	if rec.Code != http.StatusConflict || !strings.Contains(decText(parse(t, rec), "decision-alert"), "already open") {
		t.Errorf("reopening an open decision = %d, want 409 saying it is open", rec.Code)
	}

	rec = f.signedIn.post(t, decPage(d.ID)+"/relock", url.Values{"reason": {"settled again"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("relock = %d, want 303", rec.Code)
	}
	if got := decGet(t, f, d.ID); !got.DoNotReopen {
		t.Error("decision not locked again")
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'decision.relock' AND reason = 'settled again'`); n != 1 {
		t.Errorf("relock audit rows = %d, want 1", n)
	}
	rec = f.signedIn.post(t, decPage(d.ID)+"/relock", nil)
	if rec.Code != http.StatusConflict {
		t.Errorf("relocking a locked decision = %d, want 409", rec.Code)
	}
}

func TestDecisionNew(t *testing.T) {
	f := newFixture(t, false)
	doc := parse(t, f.get(t, "/decisions/new"))
	if _, ok := doc.Find(`[data-testid="decision-form-do-not-reopen"]`).Attr("checked"); !ok {
		t.Error("do_not_reopen is not checked by default")
	}
	valid := url.Values{
		"scope": {"acme"}, "entity": {"Acme Robotics"}, "key": {"database"}, "decision": {"Use PostgreSQL."},
		"alternatives": {"MySQL\nSQLite"}, "reasoning": {"We know it."}, "decided_by": {"the CTO"},
		"decided_at": {"2026-11-01T09:30"}, "do_not_reopen": {"true"},
	}
	with := func(k, v string) url.Values {
		out := url.Values{}
		for key, vals := range valid {
			out[key] = vals
		}
		out.Set(k, v)
		return out
	}

	for _, tt := range []struct{ field, value, errID, want string }{
		{"key", "", "key", "needs a key"},
		{"key", "Data Base", "key", "invalid key"},
		{"scope", "Bad Scope", "scope", "invalid scope"},
		{"entity", " ", "entity", "entity is empty"},
		{"reasoning", "", "reasoning", "reasoning is empty"},
		{"decided_at", "2030-01-01T00:00", "decided_at", "in the future"},
	} {
		t.Run(tt.field+"="+tt.value, func(t *testing.T) {
			rec := f.signedIn.post(t, "/decisions", with(tt.field, tt.value))
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("POST = %d, want 422", rec.Code)
			}
			doc := parse(t, rec)
			if msg := decText(doc, "error-"+tt.errID); !strings.Contains(msg, tt.want) {
				t.Errorf("error-%s = %q, want %q", tt.errID, msg, tt.want)
			}
			if v := doc.Find(`[data-testid="decision-form-decision"]`).Text(); v != "Use PostgreSQL." {
				t.Errorf("typed decision = %q, want it kept", v)
			}
		})
	}
	if n := dbInt(t, f, `SELECT count(*) FROM decisions`); n != 0 {
		t.Fatalf("decisions = %d after refused forms, want 0", n)
	}

	rec := f.signedIn.post(t, "/decisions", valid)
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/decisions/") {
		t.Fatalf("POST /decisions = %d to %q, want 303 to the decision; body %.300s", rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	id, _ := strconv.ParseInt(strings.TrimPrefix(rec.Header().Get("Location"), "/decisions/"), 10, 64)
	d := decGet(t, f, id)
	if !d.DoNotReopen || d.DecidedBy != "the CTO" || !d.DecidedAt.Equal(time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)) ||
		strings.Join(d.Alternatives, "|") != "MySQL|SQLite" {
		t.Errorf("recorded decision = %+v", d)
	}

	rec = f.signedIn.post(t, "/decisions", with("decision", "Use MySQL."))
	if rec.Code != http.StatusConflict || !strings.Contains(decText(parse(t, rec), "error-key"), "reopen it first") {
		t.Errorf("a second decision on a locked key = %d, want 409 beside the key", rec.Code)
	}

	open := with("key", "queue")
	open.Del("do_not_reopen")
	open.Del("decided_at")
	rec = f.signedIn.post(t, "/decisions", open)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("POST unlocked = %d", rec.Code)
	}
	id, _ = strconv.ParseInt(strings.TrimPrefix(rec.Header().Get("Location"), "/decisions/"), 10, 64)
	if d := decGet(t, f, id); d.DoNotReopen || !d.DecidedAt.Equal(now) {
		t.Errorf("unchecked do_not_reopen, no decided_at = %+v, want an open decision decided now", d)
	}
}

func TestDecisionRolesAndCSRF(t *testing.T) {
	f := newFixture(t, false)
	d := decRecord(t, f, "acme", "Acme Robotics", "database", "Use PostgreSQL.", "We know it well.")
	viewer := f.login(t, "viewer")

	doc := parse(t, viewer.get(t, decPage(d.ID)))
	if doc.Find("form[method=post]").Length() != 1 { // sign out only
		t.Errorf("a viewer sees %d post forms, want only sign-out", doc.Find("form[method=post]").Length())
	}
	if decText(doc, "decision-reasoning") != "We know it well." {
		t.Error("a viewer does not see the reasoning")
	}
	if parse(t, viewer.get(t, "/decisions")).Find(`[data-testid="decision-new"]`).Length() != 0 {
		t.Error("a viewer is offered to record a decision")
	}
	if rec := viewer.get(t, "/decisions/new"); rec.Code != http.StatusForbidden {
		t.Errorf("viewer GET /decisions/new = %d, want 403", rec.Code)
	}
	for _, path := range []string{decPage(d.ID), decPage(d.ID) + "/reopen", decPage(d.ID) + "/relock", "/decisions"} {
		rec := viewer.post(t, path, url.Values{"reason": {"viewer tries"}, "version": {"1"}, "reasoning": {"x"}})
		if rec.Code != http.StatusForbidden {
			t.Errorf("viewer POST %s = %d, want 403", path, rec.Code)
		}
	}

	for _, token := range []string{"forged", ""} {
		rec := f.signedIn.post(t, decPage(d.ID)+"/reopen", url.Values{"reason": {"forged"}, "_csrf": {token}})
		if rec.Code != http.StatusForbidden {
			t.Errorf("reopen with _csrf %q = %d, want 403", token, rec.Code)
		}
	}
	if got := decGet(t, f, d.ID); !got.DoNotReopen || got.Version != 1 {
		t.Errorf("decision after refused posts = %+v, want unchanged", got)
	}
}

func TestDecisionTextIsEscaped(t *testing.T) {
	f := newFixture(t, false)
	d := decRecord(t, f, "x", "<b>Eve</b>", "k", "<script>alert(1)</script>", "<img src=x onerror=alert(2)>\n<i>two</i>")
	for _, path := range []string{"/decisions", decPage(d.ID)} {
		body := f.get(t, path).Body.String()
		for _, raw := range []string{"<script>alert(1)</script>", "<b>Eve</b>", "<img src=x", "<i>two</i>"} {
			if strings.Contains(body, raw) {
				t.Errorf("GET %s renders %q as markup", path, raw)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("GET %s: escaped script text not found", path)
		}
	}
}

// An edit form that does not carry a usable version is refused above the
// form, keeping what was typed, and changes nothing.
func TestDecisionEditWithoutVersion(t *testing.T) {
	f := newFixture(t, false)
	d := decRecord(t, f, "acme", "Acme Robotics", "database", "Use PostgreSQL.", "We know it well.")
	form := decEditForm(t, f.signedIn, d.ID)
	form.Set("reasoning", "A new argument.")
	for _, version := range []string{"", "0", "two"} {
		form.Set("version", version)
		rec := f.signedIn.post(t, decPage(d.ID), form)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("POST with version %q = %d, want 422", version, rec.Code)
		}
		doc := parse(t, rec)
		if msg := decText(doc, "form-error"); !strings.Contains(msg, "no valid version") {
			t.Errorf("version %q: form error = %q, want it to ask for a reload", version, msg)
		}
		if r := doc.Find(`[data-testid="decision-form-reasoning"]`).Text(); r != "A new argument." {
			t.Errorf("version %q: form reasoning = %q, want what was typed", version, r)
		}
	}
	if got := decGet(t, f, d.ID); got.Version != 1 || got.Reasoning != "We know it well." {
		t.Errorf("decision after refused edits = %+v, want unchanged", got)
	}
}
