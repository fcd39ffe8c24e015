package auth

import (
	"errors"
	"strings"
	"testing"
)

func TestHashPasswordRoundTrip(t *testing.T) {
	hash, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatalf("HashPassword() error = %v", err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$") {
		t.Errorf("HashPassword() = %q, want an argon2id PHC string", hash)
	}
	if err := VerifyPassword(hash, "correct horse battery"); err != nil {
		t.Errorf("VerifyPassword(right) = %v, want nil", err)
	}
	if err := VerifyPassword(hash, "correct horse battered"); !errors.Is(err, ErrPasswordMismatch) {
		t.Errorf("VerifyPassword(wrong) = %v, want ErrPasswordMismatch", err)
	}
	again, _ := HashPassword("correct horse battery")
	if again == hash {
		t.Error("two hashes of one password are equal; the salt is not random")
	}
}

func TestHashPasswordRefusesShort(t *testing.T) {
	_, err := HashPassword("short")
	if err == nil || !strings.Contains(err.Error(), "at least 12 characters") {
		t.Errorf("HashPassword(short) = %v, want an error naming the minimum length", err)
	}
}

func TestVerifyPasswordMalformed(t *testing.T) {
	for _, h := range []string{"", "plain", "$bcrypt$x$y$z$w", "$argon2id$v=19$m=x$a$b"} {
		if err := VerifyPassword(h, "whatever-password"); err == nil || errors.Is(err, ErrPasswordMismatch) {
			t.Errorf("VerifyPassword(%q) = %v, want a format error", h, err)
		}
	}
}
