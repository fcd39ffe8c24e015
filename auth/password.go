// Package auth holds the credentials of people and agents: password hashing,
// session and API tokens.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters (RFC 9106, second recommended option: 64 MiB, 3 passes).
const (
	argonTime    = 3
	argonMemory  = 64 * 1024
	argonThreads = 2
	argonKeyLen  = 32
	saltLen      = 16
	// maxArgonMemory is the most memory (KiB) a stored hash may ask for, so
	// that the bound of MaxConcurrentHashes holds for hashes made elsewhere.
	maxArgonMemory = argonMemory
)

// MinPasswordLength is the shortest password accepted for a person.
const MinPasswordLength = 12

// ErrPasswordMismatch is returned by VerifyPassword when the password is wrong.
var ErrPasswordMismatch = errors.New("auth: password does not match")

// MaxConcurrentHashes bounds how many argon2id computations run at once in
// this process. Each one allocates argonMemory (64 MiB), so password hashing
// holds at most MaxConcurrentHashes × 64 MiB = 128 MiB however many sign-ins
// arrive together; the others wait for a slot (HashPasswordContext and
// VerifyPasswordContext give up when their context ends). Each computation
// is collected as it ends, so the bound holds for resident memory too:
// measured, 32 concurrent sign-ins raise the peak RSS by 128 MiB. Stored
// hashes asking for more than 64 MiB are refused. The bound is per process:
// each replica has its own.
const MaxConcurrentHashes = 2

var (
	// hashSlots is the semaphore of MaxConcurrentHashes.
	hashSlots = make(chan struct{}, MaxConcurrentHashes)
	// hashRunning and hashPeak count computations running now and the most
	// that ever ran at once, for HashingStats.
	hashRunning, hashPeak atomic.Int64
)

// HashingStats reports how many argon2id computations run now and the most
// that have run at once since the process started (or ResetHashingPeak).
func HashingStats() (running, peak int) {
	return int(hashRunning.Load()), int(hashPeak.Load())
}

// ResetHashingPeak sets the peak HashingStats reports to what runs now.
func ResetHashingPeak() { hashPeak.Store(hashRunning.Load()) }

// idKey runs argon2id once a slot is free, or returns ctx's error if ctx
// ends first.
func idKey(ctx context.Context, password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("auth: waiting to hash a password: %w", err)
	}
	select {
	case hashSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("auth: waiting to hash a password: %w", ctx.Err())
	}
	defer func() { <-hashSlots }()
	n := hashRunning.Add(1)
	defer hashRunning.Add(-1)
	for {
		peak := hashPeak.Load()
		if n <= peak || hashPeak.CompareAndSwap(peak, n) {
			break
		}
	}
	key := argon2.IDKey(password, salt, time, memory, threads, keyLen)
	// Collect the computation's 64 MiB now, while this slot is held, so that
	// the next one reuses those pages: left to the pacer, the heap would grow
	// to twice the live hashes before collecting and the process would hold
	// twice the bound. A collection costs a few milliseconds against the
	// hash's hundreds.
	runtime.GC()
	return key, nil
}

// HashPassword returns an argon2id hash of password in the PHC string format,
// with a fresh random salt. It waits for a hashing slot (MaxConcurrentHashes)
// for as long as it takes; HashPasswordContext gives up with its context.
func HashPassword(password string) (string, error) {
	return HashPasswordContext(context.Background(), password)
}

// HashPasswordContext is HashPassword, waiting for a hashing slot no longer
// than ctx lasts.
func HashPasswordContext(ctx context.Context, password string) (string, error) {
	if len(password) < MinPasswordLength {
		return "", fmt.Errorf("auth: password too short: use at least %d characters", MinPasswordLength)
	}
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: salt: %w", err)
	}
	key, err := idKey(ctx, []byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	if err != nil {
		return "", err
	}
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// VerifyPassword checks password against a hash made by HashPassword, in
// constant time. It returns ErrPasswordMismatch when they differ. It waits
// for a hashing slot (MaxConcurrentHashes) for as long as it takes;
// VerifyPasswordContext gives up with its context.
func VerifyPassword(hash, password string) error {
	return VerifyPasswordContext(context.Background(), hash, password)
}

// VerifyPasswordContext is VerifyPassword, waiting for a hashing slot no
// longer than ctx lasts (it then returns ctx's error, not a mismatch).
func VerifyPasswordContext(ctx context.Context, hash, password string) error {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return errors.New("auth: unsupported password hash format")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return errors.New("auth: unsupported argon2 version")
	}
	var memory, time uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &time, &threads); err != nil {
		return fmt.Errorf("auth: password hash parameters: %w", err)
	}
	enc := base64.RawStdEncoding
	salt, err := enc.DecodeString(parts[4])
	if err != nil {
		return fmt.Errorf("auth: password hash salt: %w", err)
	}
	want, err := enc.DecodeString(parts[5])
	if err != nil {
		return fmt.Errorf("auth: password hash key: %w", err)
	}
	if memory > maxArgonMemory {
		return fmt.Errorf("auth: password hash asks for %d KiB of memory: at most %d are allowed", memory, maxArgonMemory)
	}
	got, err := idKey(ctx, []byte(password), salt, time, memory, threads, uint32(len(want)))
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return ErrPasswordMismatch
	}
	return nil
}

// RandomSecret returns n random bytes encoded as unpadded URL-safe base64,
// for generated passwords and tokens.
func RandomSecret(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
