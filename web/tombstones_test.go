package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tenurehq/tenure/memory"
)

// tombSetup prunes rows in two scopes: acme's expired row and stale
// transient row, and globex's row past its ttl. It returns the tombstone ids
// by content.
func tombSetup(t *testing.T, f fixture) map[string]int64 {
	t.Helper()
	early := now.Add(-2 * time.Hour)
	wmPush(t, f, early, "acme",
		memory.NewNode{Content: "ci is red", Durability: "transient"},
		memory.NewNode{Content: `<script>alert(1)</script>`, Durability: "expired",
			Properties: map[string]any{"entity": "<b>ops</b>"}})
	wmPush(t, f, early, "globex", memory.NewNode{Content: "Globex's office moved to Berlin", TTLSeconds: wmPtr(int32(60))})
	wmConsolidate(t, f, now.Add(-time.Minute))
	ids := map[string]int64{}
	rows, err := f.pool.Query(context.Background(), `SELECT id, content FROM node_tombstones`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var content string
		if err := rows.Scan(&id, &content); err != nil {
			t.Fatal(err)
		}
		ids[content] = id
	}
	if len(ids) != 3 {
		t.Fatalf("%d tombstones after the run, want 3: %v", len(ids), ids)
	}
	return ids
}

type tombRowView struct {
	id       int64
	content  string
	reason   string
	restored bool
	form     bool
}

func tombRows(t *testing.T, doc *goquery.Document) []tombRowView {
	t.Helper()
	var out []tombRowView
	doc.Find(`[data-testid="tombstone-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := strconv.ParseInt(s.AttrOr("data-tombstone-id", ""), 10, 64)
		out = append(out, tombRowView{
			id:       id,
			content:  strings.TrimSpace(s.Find(`[data-testid="tombstone-content"] > span.clamp`).Text()),
			reason:   strings.TrimSpace(s.Find(`[data-testid="tombstone-reason"]`).Contents().First().Text()),
			restored: s.Find(`[data-testid="tombstone-restored"]`).Length() == 1,
			form:     s.Find(`[data-testid="restore-form"]`).Length() == 1,
		})
	})
	return out
}

func tombContents(rows []tombRowView) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.content)
	}
	return strings.Join(out, " | ")
}

func TestTombstonesPage(t *testing.T) {
	f := newFixture(t, false)
	tombSetup(t, f)
	rec := f.get(t, "/tombstones")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /tombstones = %d: %s", rec.Code, rec.Body)
	}
	doc := parse(t, rec)
	got := tombRows(t, doc)
	if tombContents(got) != "Globex's office moved to Berlin | <script>alert(1)</script> | ci is red" {
		t.Errorf("tombstones = %q, want the three pruned rows newest first", tombContents(got))
	}
	for _, r := range got {
		if !r.form || r.restored {
			t.Errorf("tombstone %d: restore form %t, restored %t; want a form for a reviewer", r.id, r.form, r.restored)
		}
	}
	if doc.Find(`[data-testid="restore-note"]`).Length() != 1 {
		t.Error("no note on what restoring a transient or expired row does")
	}
	props := doc.Find(`[data-tombstone-id="` + strconv.FormatInt(got[1].id, 10) + `"] [data-testid="tombstone-properties"]`).Text()
	if props != `{"entity":"<b>ops</b>","durability":"expired"}` {
		t.Errorf("properties = %q, want compact JSON", props)
	}
	hints := doc.Find(`[data-testid="restore-hint"]`).Length()
	if hints != 2 {
		t.Errorf("%d restore hints, want 2 (the transient and the expired row)", hints)
	}

	tests := []struct{ query, want string }{
		{"scope=acme", "<script>alert(1)</script> | ci is red"},
		{"reason=ttl", "Globex's office moved to Berlin"},
		{"reason=transient_ttl&scope=acme", "ci is red"},
		{"state=restored", ""},
		{"state=all&scope=globex", "Globex's office moved to Berlin"},
	}
	for _, tt := range tests {
		rec := f.get(t, "/tombstones?"+tt.query)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /tombstones?%s = %d", tt.query, rec.Code)
		}
		doc := parse(t, rec)
		if got := tombContents(tombRows(t, doc)); got != tt.want {
			t.Errorf("GET /tombstones?%s = %q, want %q", tt.query, got, tt.want)
		}
		if tt.want == "" && doc.Find(`[data-testid="tombstones-empty"]`).Length() != 1 {
			t.Errorf("GET /tombstones?%s shows no empty-state message", tt.query)
		}
	}

	for _, tt := range []struct{ query, want string }{
		{"reason=gone", "allowed values are expired, transient_ttl, ttl, decision_locked"},
		{"state=deleted", "allowed values are pruned, restored, all"},
		{"scope=Not%20Valid", "invalid scope"},
		{"before=0", "positive tombstone id"},
	} {
		rec := f.get(t, "/tombstones?"+tt.query)
		if msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text(); rec.Code != http.StatusBadRequest || !strings.Contains(msg, tt.want) {
			t.Errorf("GET /tombstones?%s = %d %q, want 400 containing %q", tt.query, rec.Code, msg, tt.want)
		}
	}

	body := f.get(t, "/tombstones").Body.String()
	if strings.Contains(body, "<script>alert(1)</script>") || strings.Contains(body, "<b>ops</b>") ||
		!strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("tombstone content or properties rendered as markup")
	}
}

func TestTombstoneRestore(t *testing.T) {
	f := newFixture(t, false)
	ids := tombSetup(t, f)
	ctx := context.Background()
	f.get(t, "/tombstones")

	expired := ids["<script>alert(1)</script>"]
	rec := f.signedIn.post(t, "/tombstones/"+strconv.FormatInt(expired, 10)+"/restore", url.Values{"return": {"/tombstones?scope=acme"}})
	loc, doc, flash := follow(t, f.signedIn, rec)
	if loc != "/tombstones?scope=acme" || doc.Find(`.flash-ok`).Length() != 1 ||
		!strings.Contains(flash, "restored as working row") || !strings.Contains(flash, "still expired") {
		t.Errorf("redirect %q, flash %q; want back to the list saying the row is back and still expired", loc, flash)
	}
	var nodeID int64
	var marker, content string
	var created time.Time
	if err := f.pool.QueryRow(ctx, `SELECT id, properties->>'durability', content, created_at FROM memory_nodes WHERE scope = 'acme'`).
		Scan(&nodeID, &marker, &content, &created); err != nil {
		t.Fatalf("restored row: %v", err)
	}
	if marker != "expired" || content != "<script>alert(1)</script>" || !created.Equal(now) {
		t.Errorf("restored row: marker %q, content %q, created %s; want the same marker and content, created now", marker, content, created)
	}
	var by string
	if err := f.pool.QueryRow(ctx, `SELECT restored_by FROM node_tombstones WHERE id = $1 AND restored_at IS NOT NULL`, expired).Scan(&by); err != nil || by != "user:reviewer@example.com" {
		t.Errorf("tombstone restored_by = %q (%v), want the reviewer", by, err)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'node.restore' AND target_id = $1 AND actor = 'user:reviewer@example.com'`,
		strconv.FormatInt(nodeID, 10)); n != 1 {
		t.Errorf("%d audit rows for the restore, want 1", n)
	}
	restored := tombRows(t, parse(t, f.get(t, "/tombstones?state=restored")))
	if len(restored) != 1 || !restored[0].restored || restored[0].form {
		t.Errorf("restored tombstones = %+v, want the one, marked restored, without a form", restored)
	}

	// Twice: 409, nothing written.
	f.get(t, "/tombstones")
	rec = f.signedIn.post(t, "/tombstones/"+strconv.FormatInt(expired, 10)+"/restore", nil)
	msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text()
	if rec.Code != http.StatusConflict || !strings.Contains(msg, "already restored") {
		t.Errorf("second restore = %d %q, want 409 saying it was already restored", rec.Code, msg)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM memory_nodes`); n != 1 {
		t.Errorf("%d working rows after restoring twice, want 1", n)
	}
	if rec := f.signedIn.post(t, "/tombstones/99999/restore", nil); rec.Code != http.StatusNotFound {
		t.Errorf("restore of an unknown tombstone = %d, want 404", rec.Code)
	}

	// As durable.
	f.get(t, "/tombstones")
	transient := ids["ci is red"]
	_, _, flash = follow(t, f.signedIn, f.signedIn.post(t, "/tombstones/"+strconv.FormatInt(transient, 10)+"/restore",
		url.Values{"durable": {"1"}, "return": {"https://evil.example/"}}))
	if !strings.Contains(flash, "marked durable") {
		t.Errorf("flash = %q, want the row restored as durable", flash)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM memory_nodes WHERE content = 'ci is red' AND properties->>'durability' = 'durable'`); n != 1 {
		t.Errorf("%d durable restored rows, want 1", n)
	}
}

func TestTombstoneRestoreRoles(t *testing.T) {
	f := newFixture(t, false)
	ids := tombSetup(t, f)
	id := ids["ci is red"]
	target := "/tombstones/" + strconv.FormatInt(id, 10) + "/restore"
	viewer := f.login(t, "viewer")
	doc := parse(t, viewer.get(t, "/tombstones"))
	if len(tombRows(t, doc)) != 3 || doc.Find(`[data-testid="restore-form"], [data-testid="restore-button"]`).Length() != 0 {
		t.Error("a viewer sees restore buttons, or not the tombstones")
	}
	if rec := viewer.post(t, target, nil); rec.Code != http.StatusForbidden {
		t.Errorf("viewer restore = %d, want 403", rec.Code)
	}
	f.get(t, "/tombstones")
	for name, token := range map[string]string{"missing": "", "wrong": "not-the-token"} {
		if rec := f.signedIn.post(t, target, url.Values{"_csrf": {token}}); rec.Code != http.StatusForbidden {
			t.Errorf("restore with a %s CSRF token = %d, want 403", name, rec.Code)
		}
	}
	if n := dbInt(t, f, `SELECT count(*) FROM node_tombstones WHERE restored_at IS NOT NULL`); n != 0 {
		t.Errorf("%d tombstones restored by refused requests, want 0", n)
	}
}
