package auth

import (
	"context"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/memory"
)

// TestAdminRefusesUnstorableText: creating a user or a token refuses text
// the database cannot store (a NUL, bytes that are not UTF-8) or control
// characters in any field, naming the field, before any statement runs; the
// message never repeats a password.
func TestAdminRefusesUnstorableText(t *testing.T) {
	fx := newAdminFixture(t)
	ctx := context.Background()
	users := fx.count(t, `SELECT count(*) FROM users`)
	audited := fx.count(t, `SELECT count(*) FROM audit_log`)
	const pw = "a long enough secret"

	for _, tt := range []struct {
		name  string
		in    NewUser
		field string
		want  string
	}{
		{"email NUL", NewUser{Email: "ann\x00@example.com", Role: "viewer", Password: pw, Confirm: pw}, "email", "the email contains a NUL"},
		{"email not UTF-8", NewUser{Email: "ann@exampl\xe9.com", Role: "viewer", Password: pw, Confirm: pw}, "email", "the email is not valid UTF-8"},
		{"name NUL", NewUser{Email: "ann@example.com", Name: "Ann\x00", Role: "viewer", Password: pw, Confirm: pw}, "name", "the name contains a NUL"},
		{"name escape", NewUser{Email: "ann@example.com", Name: "\x1b[31mAnn", Role: "viewer", Password: pw, Confirm: pw}, "name", "U+001B"},
		{"password NUL", NewUser{Email: "ann@example.com", Role: "viewer", Password: "secret\x00secret!", Confirm: "secret\x00secret!"}, "password", "the password contains a NUL"},
		{"password not UTF-8", NewUser{Email: "ann@example.com", Role: "viewer", Password: "secret\xffsecret!", Confirm: "secret\xffsecret!"}, "password", "not valid UTF-8"},
		{"confirm NUL", NewUser{Email: "ann@example.com", Role: "viewer", Password: pw, Confirm: pw + "\x00"}, "confirm", "NUL"},
		{"role NUL", NewUser{Email: "ann@example.com", Role: "viewer\x00", Password: pw, Confirm: pw}, "role", "NUL"},
	} {
		t.Run("user "+tt.name, func(t *testing.T) {
			_, err := fx.admin.CreateUser(ctx, fx.boss, tt.in)
			wantAdminError(t, err, memory.CodeInvalid, tt.field, tt.want)
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q repeats the password", err)
			}
		})
	}
	if _, err := ParseEmail("ann\x00@example.com"); err == nil {
		t.Error("ParseEmail took an email with a NUL")
	}

	for _, tt := range []struct {
		name  string
		in    NewToken
		field string
		want  string
	}{
		{"name NUL", NewToken{Name: "ci\x00", Scope: "acme", Role: TokenWriter}, "name", "the name contains a NUL"},
		{"name not UTF-8", NewToken{Name: "caf\xe9", Scope: "acme", Role: TokenWriter}, "name", "the name is not valid UTF-8"},
		{"scope NUL", NewToken{Name: "ci", Scope: "acme\x00", Role: TokenWriter}, "scope", "the scope contains a NUL"},
		{"role not UTF-8", NewToken{Name: "ci", Scope: "acme", Role: "\xffwriter"}, "role", "not valid UTF-8"},
	} {
		t.Run("token "+tt.name, func(t *testing.T) {
			_, _, err := fx.admin.CreateToken(ctx, fx.boss, tt.in)
			wantAdminError(t, err, memory.CodeInvalid, tt.field, tt.want)
		})
	}

	if n := fx.count(t, `SELECT count(*) FROM users`); n != users {
		t.Errorf("%d users after refused creations, want %d", n, users)
	}
	if n := fx.count(t, `SELECT count(*) FROM api_tokens`); n != 0 {
		t.Errorf("%d tokens after refused creations, want 0", n)
	}
	if n := fx.count(t, `SELECT count(*) FROM audit_log`); n != audited {
		t.Errorf("%d audit rows after refused creations, want %d", n, audited)
	}
}
