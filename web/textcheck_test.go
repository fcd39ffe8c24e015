package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestConsoleRefusesUnstorableText sends the console's filters and forms
// what PostgreSQL cannot store (a NUL, bytes that are not UTF-8) and control
// characters: filters answer 400 with a page naming the parameter, forms 422
// with the error beside the field (the bulk forms go back with a flash
// message), and nothing is written.
func TestConsoleRefusesUnstorableText(t *testing.T) {
	f := newFixture(t, true)
	factID := dbIDs(t, f, `SELECT id FROM entity_facts WHERE status = 'active' AND category <> 'decision' ORDER BY id LIMIT 1`)[0]
	decisionID := dbIDs(t, f, `SELECT id FROM decisions ORDER BY id LIMIT 1`)[0]
	itemID := dbIDs(t, f, `INSERT INTO review_items (kind, scope, fact_id, detail)
		VALUES ('repeated_mood', 'home', $1, '{"extraction_count": 3}') RETURNING id`, factID)[0]
	audited := dbInt(t, f, `SELECT count(*) FROM audit_log`)

	for _, tt := range []struct{ target, field string }{
		{"/facts?q=%00", "q"},
		{"/facts?entity=caf%E9", "entity"},
		{"/facts?scope=acme&q=%1b%5b31m", "q"},
		{"/decisions?q=a%00b", "q"},
		{"/decisions?entity=%FF", "entity"},
		{"/working?scope=%00", "scope"},
		{"/review?kind=%00", "kind"},
		{"/audit?actor=%00", "actor"},
		{"/audit?target_id=1%00", "target_id"},
		{"/audit?scope=acme&actor=caf%E9", "actor"},
	} {
		t.Run("GET "+tt.target, func(t *testing.T) {
			rec := f.get(t, tt.target)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("GET %s = %d, want 400; body %.300s", tt.target, rec.Code, rec.Body)
			}
			if body := rec.Body.String(); !strings.Contains(body, tt.field+":") {
				t.Errorf("GET %s: the page does not name %s: %.500s", tt.target, tt.field, body)
			}
		})
	}

	fact, decision := "/facts/"+strconv.FormatInt(factID, 10), "/decisions/"+strconv.FormatInt(decisionID, 10)
	for _, tt := range []struct {
		name, target string
		form         url.Values
		want         string
	}{
		{"fact content", fact, url.Values{"version": {"1"}, "content": {"Lisbon\x00"}, "confidence": {"0.8"}}, "NUL"},
		{"fact reason", fact, url.Values{"version": {"1"}, "content": {"x"}, "confidence": {"0.8"}, "reason": {"caf\xe9"}}, "UTF-8"},
		{"decision edit", decision, url.Values{"version": {"1"}, "decision": {"x"}, "reasoning": {"\x1b"}}, "U+001B"},
		{"decision reopen", decision + "/reopen", url.Values{"reason": {"because\x00"}}, "NUL"},
		{"new decision", "/decisions", url.Values{"scope": {"acme"}, "entity": {"p\x00"}, "key": {"k"}, "decision": {"d"}, "reasoning": {"r"}}, "NUL"},
		{"review", "/review/" + strconv.FormatInt(itemID, 10), url.Values{"action": {"dismiss"}, "reason": {"\x00"}}, "NUL"},
	} {
		t.Run("POST "+tt.name, func(t *testing.T) {
			rec := f.signedIn.post(t, tt.target, tt.form)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("POST %s = %d, want 422; body %.300s", tt.target, rec.Code, rec.Body)
			}
			if !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("POST %s: the page does not say %q", tt.target, tt.want)
			}
		})
	}

	for _, tt := range []struct {
		target string
		form   url.Values
	}{
		{"/facts/bulk", url.Values{"ids": {strconv.FormatInt(factID, 10)}, "action": {"archive"}, "reason": {"tidy\x00"}}},
		{"/working/markers", url.Values{"ids": {"1"}, "marker": {"expired"}, "reason": {"\xff"}}},
	} {
		t.Run("POST "+tt.target, func(t *testing.T) {
			_, _, flash := follow(t, f.signedIn, f.signedIn.post(t, tt.target, tt.form))
			if low := strings.ToLower(flash); !strings.Contains(low, "reason:") || !strings.Contains(low, "nothing was changed") {
				t.Errorf("flash = %q, want the reason named and nothing changed", flash)
			}
		})
	}

	if n := dbInt(t, f, `SELECT count(*) FROM audit_log`); n != audited {
		t.Errorf("audit log holds %d rows after refused forms, want %d", n, audited)
	}
}
