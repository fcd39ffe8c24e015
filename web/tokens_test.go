package web_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestTokenCreateShowsTheTokenOnce(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	admin.get(t, "/tokens")

	rec := admin.post(t, "/tokens", url.Values{"name": {"laptop"}, "scope": {"home"}, "role": {"writer"}, "expires_days": {"30"}})
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /tokens = %d, want 201; body %.500s", rec.Code, rec.Body)
	}
	if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Errorf("Cache-Control = %q, want no-store on the page showing a secret", cc)
	}
	doc := parse(t, rec)
	box := doc.Find(`[data-testid="new-token"]`)
	token := strings.TrimSpace(box.Text())
	if !strings.HasPrefix(token, "tnr_") || len(token) < 40 || !box.HasClass("secret") {
		t.Fatalf("new token box = %q (class %q), want a tnr_ token in a .secret box", token, box.AttrOr("class", ""))
	}
	if !strings.Contains(doc.Find(`[data-testid="new-token-panel"]`).Text(), "won't be shown again") {
		t.Error("no warning that the token is shown once")
	}

	ctx := context.Background()
	var id int64
	var hash []byte
	var prefix string
	var expires bool
	if err := f.pool.QueryRow(ctx, `SELECT id, token_hash, token_prefix, expires_at = $1 FROM api_tokens WHERE name = 'laptop'`,
		now.Add(30*24*time.Hour)).Scan(&id, &hash, &prefix, &expires); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(token))
	if string(hash) != string(sum[:]) {
		t.Error("token_hash is not the SHA-256 of the token shown")
	}
	if !expires || !strings.HasPrefix(token, prefix) {
		t.Errorf("expiry in 30 days = %t, prefix %q of %q", expires, prefix, token)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM api_tokens t WHERE position($1 in t::text) > 0`, token); n != 0 {
		t.Error("the token text is stored in api_tokens")
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log a WHERE position($1 in a::text) > 0`, token); n != 0 {
		t.Error("the token text is in the audit log")
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'token.create' AND target_type = 'token'
		AND target_id = $1::bigint::text AND scope = 'home' AND actor = 'user:admin@example.com'`, id); n != 1 {
		t.Errorf("%d token.create audit rows, want 1", n)
	}

	list := admin.get(t, "/tokens")
	if strings.Contains(list.Body.String(), token) {
		t.Error("the token is shown again on the list")
	}
	row := parse(t, list).Find(`[data-testid="token-row"][data-name="laptop"]`)
	if !strings.HasPrefix(row.Find(`[data-testid="token-prefix"]`).Text(), prefix) || !strings.Contains(row.Find(`[data-testid="token-state"]`).Text(), "live") {
		t.Errorf("token row = %q, want its prefix and live", row.Text())
	}
	if !strings.Contains(row.Text(), "admin@example.com") {
		t.Error("the token row does not say who created it")
	}
}

func TestTokenCreateRefusals(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	admin.get(t, "/tokens")
	if rec := admin.post(t, "/tokens", url.Values{"name": {"laptop"}, "scope": {"home"}, "role": {"reader"}}); rec.Code != http.StatusCreated {
		t.Fatalf("POST /tokens = %d", rec.Code)
	}
	tests := []struct {
		name   string
		form   url.Values
		status int
		field  string
		want   string
	}{
		{"duplicate live name", url.Values{"name": {"laptop"}, "scope": {"home"}, "role": {"writer"}}, http.StatusConflict, "name", "already exists"},
		{"empty name", url.Values{"name": {" "}, "scope": {"home"}, "role": {"writer"}}, http.StatusUnprocessableEntity, "name", "empty"},
		{"bad scope", url.Values{"name": {"x"}, "scope": {"Home Scope"}, "role": {"writer"}}, http.StatusUnprocessableEntity, "scope", "invalid scope"},
		{"bad role", url.Values{"name": {"x"}, "scope": {"home"}, "role": {"admin"}}, http.StatusUnprocessableEntity, "role", "writer, reader"},
		{"expiry not a number", url.Values{"name": {"x"}, "scope": {"home"}, "role": {"writer"}, "expires_days": {"soon"}}, http.StatusUnprocessableEntity, "expires_days", "whole number"},
		{"expiry zero", url.Values{"name": {"x"}, "scope": {"home"}, "role": {"writer"}, "expires_days": {"0"}}, http.StatusUnprocessableEntity, "expires_days", "at least 1 day"},
		{"expiry too long", url.Values{"name": {"x"}, "scope": {"home"}, "role": {"writer"}, "expires_days": {"99999"}}, http.StatusUnprocessableEntity, "expires_days", "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := admin.post(t, "/tokens", tt.form)
			if rec.Code != tt.status {
				t.Fatalf("POST /tokens = %d, want %d", rec.Code, tt.status)
			}
			doc := parse(t, rec)
			if doc.Find(`[data-testid="new-token"]`).Length() != 0 {
				t.Error("a refused creation shows a token")
			}
			form := doc.Find(`[data-testid="token-create-form"]`)
			msg := form.Find(`[data-testid="error-` + tt.field + `"]`)
			if !strings.Contains(msg.Text(), tt.want) {
				t.Errorf("error beside %s = %q, want %q", tt.field, msg.Text(), tt.want)
			}
			if msg.Parent().Find(`[aria-invalid="true"]`).Length() != 1 {
				t.Errorf("the %s control is not marked invalid", tt.field)
			}
			if got := form.Find(`[data-testid="input-scope"]`).AttrOr("value", ""); got != tt.form.Get("scope") {
				t.Errorf("scope kept = %q, want %q", got, tt.form.Get("scope"))
			}
		})
	}
	if n := dbInt(t, f, `SELECT count(*) FROM api_tokens`); n != 1 {
		t.Errorf("%d tokens after refusals, want 1", n)
	}
}

func TestTokenRevoke(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	admin.get(t, "/tokens")
	if rec := admin.post(t, "/tokens", url.Values{"name": {"laptop"}, "scope": {"home"}, "role": {"writer"}}); rec.Code != http.StatusCreated {
		t.Fatalf("POST /tokens = %d", rec.Code)
	}
	id := dbInt(t, f, `SELECT id FROM api_tokens WHERE name = 'laptop'`)
	target := "/tokens/" + strconv.Itoa(id) + "/revoke"

	doc, flash := admFollow(t, admin, admin.post(t, target, nil))
	if !strings.Contains(flash, "revoked") {
		t.Errorf("flash = %q", flash)
	}
	row := doc.Find(`[data-testid="token-row"][data-name="laptop"]`)
	if !strings.Contains(row.Find(`[data-testid="token-state"]`).Text(), "revoked") || row.Find(`[data-testid="token-revoke"]`).Length() != 0 {
		t.Errorf("revoked token row = %q, want it revoked without a revoke button", row.Text())
	}
	if n := dbInt(t, f, `SELECT count(*) FROM api_tokens WHERE id = $1 AND revoked_at IS NOT NULL`, id); n != 1 {
		t.Error("the token is not revoked in the database")
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'token.revoke' AND target_id = $1::int::text
		AND actor = 'user:admin@example.com'`, id); n != 1 {
		t.Errorf("%d token.revoke audit rows, want 1", n)
	}

	rec := admin.post(t, target, nil)
	if rec.Code != http.StatusConflict {
		t.Fatalf("revoking twice = %d, want 409", rec.Code)
	}
	if msg := parse(t, rec).Find(`[data-testid="error-message"]`).Text(); !strings.Contains(msg, "already revoked") {
		t.Errorf("revoking twice says %q, want already revoked", msg)
	}
	if n := dbInt(t, f, `SELECT count(*) FROM audit_log WHERE action = 'token.revoke'`); n != 1 {
		t.Errorf("%d token.revoke audit rows after revoking twice, want 1", n)
	}
	if rec := admin.post(t, "/tokens/99999/revoke", nil); rec.Code != http.StatusNotFound {
		t.Errorf("revoking an unknown token = %d, want 404", rec.Code)
	}
}

func TestTokensRolesAndCSRF(t *testing.T) {
	f := newFixture(t, false)
	admin := f.login(t, "admin")
	admin.get(t, "/tokens")
	if rec := admin.post(t, "/tokens", url.Values{"name": {"laptop"}, "scope": {"home"}, "role": {"writer"}}); rec.Code != http.StatusCreated {
		t.Fatalf("POST /tokens = %d", rec.Code)
	}
	id := dbInt(t, f, `SELECT id FROM api_tokens WHERE name = 'laptop'`)
	revoke := "/tokens/" + strconv.Itoa(id) + "/revoke"

	viewer := f.login(t, "viewer")
	for name, c := range map[string]*client{"viewer": viewer, "reviewer": f.signedIn} {
		if rec := c.get(t, "/tokens"); rec.Code != http.StatusForbidden {
			t.Errorf("%s GET /tokens = %d, want 403", name, rec.Code)
		}
		if rec := c.post(t, "/tokens", url.Values{"name": {"x"}, "scope": {"home"}, "role": {"writer"}}); rec.Code != http.StatusForbidden {
			t.Errorf("%s POST /tokens = %d, want 403", name, rec.Code)
		}
		if rec := c.post(t, revoke, nil); rec.Code != http.StatusForbidden {
			t.Errorf("%s POST %s = %d, want 403", name, revoke, rec.Code)
		}
	}
	for _, token := range []string{"", "forged"} {
		if rec := admin.post(t, "/tokens", url.Values{"name": {"x"}, "scope": {"home"}, "role": {"writer"}, "_csrf": {token}}); rec.Code != http.StatusForbidden {
			t.Errorf("POST /tokens with _csrf=%q = %d, want 403", token, rec.Code)
		}
		if rec := admin.post(t, revoke, url.Values{"_csrf": {token}}); rec.Code != http.StatusForbidden {
			t.Errorf("POST %s with _csrf=%q = %d, want 403", revoke, token, rec.Code)
		}
	}
	if n := dbInt(t, f, `SELECT count(*) FROM api_tokens WHERE revoked_at IS NULL`); n != 1 {
		t.Errorf("%d live tokens after refused requests, want 1", n)
	}
}
