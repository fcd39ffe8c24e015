package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
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

// TestHashingIsBounded: however many verifications are asked for at once, no
// more than MaxConcurrentHashes run argon2id together, and every one ends.
func TestHashingIsBounded(t *testing.T) {
	hash, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	ResetHashingPeak()
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = VerifyPasswordContext(context.Background(), hash, "correct horse battery") })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("verification %d = %v", i, err)
		}
	}
	if running, peak := HashingStats(); running != 0 || peak != MaxConcurrentHashes {
		t.Errorf("HashingStats() = %d running, peak %d; want 0 and %d", running, peak, MaxConcurrentHashes)
	}
}

// TestHashingWaitEndsWithContext: a caller waiting for a hashing slot gives
// up when its context ends, with the context's error, not a mismatch.
func TestHashingWaitEndsWithContext(t *testing.T) {
	hash, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	for range MaxConcurrentHashes {
		hashSlots <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = VerifyPasswordContext(ctx, hash, "correct horse battery")
	for range MaxConcurrentHashes {
		<-hashSlots
	}
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrPasswordMismatch) {
		t.Errorf("VerifyPasswordContext with every slot taken = %v, want the context's deadline", err)
	}
	if _, err := HashPasswordContext(ctx, "correct horse battery"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("HashPasswordContext with an ended context = %v, want the context's deadline", err)
	}
}

func TestVerifyPasswordRefusesHugeMemory(t *testing.T) {
	h := "$argon2id$v=19$m=4194304,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U"
	if err := VerifyPassword(h, "whatever-password"); err == nil || !strings.Contains(err.Error(), "memory") {
		t.Errorf("VerifyPassword(4 GiB hash) = %v, want a refusal naming the memory", err)
	}
}
