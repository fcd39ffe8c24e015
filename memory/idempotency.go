package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/replica"
)

// Idempotency keys let an agent retry a write without writing twice. A
// request that carries a key (the REST header Idempotency-Key, MCP's
// idempotency_key argument) first claims the key for its token, in a
// transaction of its own; it then runs, and its answer is stored with the
// key. A repeat of the same request (same method, target and canonical
// body) within IdempotencyWindow gets that answer again and writes
// nothing; one sent while the first still runs is told it is in progress;
// another request with the same key is refused. Keys belong to one token:
// two tokens may use the same key for different requests.
//
// What is stored is decided by the edge (api, mcpserver): answers and
// refusals of the request itself, never a failure of Tenure or of its
// database, whose claim is released so that a retry runs again. The write
// and the storing of its answer are two transactions: a process that dies
// between them leaves the key in progress until its lease ends, after which
// a retry runs the request again.

// IdempotencyWindow is how long a key is kept: a repeat within it gets the
// first answer; after it, the key is free again, and the purge deletes it.
const IdempotencyWindow = 24 * time.Hour

// MaxIdempotencyKey is the longest key, in characters.
const MaxIdempotencyKey = 255

// DefaultIdempotencyLease bounds a claim whose request has no deadline of
// its own: past it, a request that never answered is taken to have died.
const DefaultIdempotencyLease = time.Hour

// idempotencyLeaseMargin is added to a request's deadline for its claim's
// lease: the time it may take to store the answer once the work is done.
const idempotencyLeaseMargin = time.Minute

// CheckIdempotencyKey refuses a key that is empty, longer than
// MaxIdempotencyKey, or holds anything but printable ASCII (space to ~),
// or begins or ends with a space; field names the input in the refusal.
func CheckIdempotencyKey(field, key string) error {
	if key == "" {
		return Invalidf(field, "the idempotency key is empty: give 1 to %d printable ASCII characters, such as a UUID", MaxIdempotencyKey)
	}
	if len(key) > MaxIdempotencyKey {
		return Invalidf(field, "the idempotency key is %d characters long: at most %d are allowed", len(key), MaxIdempotencyKey)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < ' ' || c > '~' {
			return Invalidf(field, "the idempotency key holds a character other than printable ASCII at byte %d: "+
				"use letters, digits and punctuation (space to ~), such as a UUID", i)
		}
	}
	if key[0] == ' ' || key[len(key)-1] == ' ' {
		return Invalidf(field, "the idempotency key begins or ends with a space: remove it")
	}
	return nil
}

// IdempotentRequest is a request that carries a key.
type IdempotentRequest struct {
	// TokenID is the API token that sent it: keys belong to one token.
	TokenID int64
	Key     string
	// Method and Target say what the request is: an HTTP method and the
	// path with its query, or tools/call and an MCP tool's name. With Body
	// they make the request's fingerprint.
	Method string
	Target string
	// Body is the request's body or arguments. JSON (one value, or JSON
	// Lines) is compared canonically: white space and the order of object
	// members do not count. Anything else is compared byte for byte.
	Body []byte
	// Lease bounds how long the request may hold the key without an
	// answer; zero means DefaultIdempotencyLease. LeaseFor gives it from a
	// request's deadline.
	Lease time.Duration
}

// LeaseFor is the lease of a claim made under ctx: until ctx's deadline and
// a minute more, or DefaultIdempotencyLease when ctx has none.
func LeaseFor(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), 0) + idempotencyLeaseMargin
	}
	return DefaultIdempotencyLease
}

// IdempotentAnswer is the stored answer of a request with a key.
type IdempotentAnswer struct {
	Status int
	// Headers are the answer's headers worth repeating (Content-Type,
	// Location).
	Headers map[string]string
	Body    []byte
	// At is when the request that gave the answer claimed its key.
	At time.Time
}

// ClaimOutcome is what the claim of a key means for the request.
type ClaimOutcome int

const (
	// ClaimRun: the request holds the key; run it, then Complete or
	// Release the claim.
	ClaimRun ClaimOutcome = iota
	// ClaimReplay: the same request was answered before; answer
	// Claim.Answer again and write nothing.
	ClaimReplay
	// ClaimInProgress: the same request holds the key and has not
	// answered yet; refuse this one (409), to be retried later.
	ClaimInProgress
	// ClaimReused: the key was used for another request (Claim.FirstMethod
	// and FirstTarget) within the window; refuse this one (422).
	ClaimReused
)

// Claim is the result of ClaimIdempotencyKey.
type Claim struct {
	Outcome ClaimOutcome
	// Answer is the first answer (ClaimReplay).
	Answer IdempotentAnswer
	// FirstMethod and FirstTarget are what the key was first used for, and
	// FirstAt when (ClaimReused, ClaimInProgress).
	FirstMethod, FirstTarget string
	FirstAt                  time.Time

	tokenID int64
	key     string
	attempt int32
}

// ClaimIdempotencyKey claims r's key for r, in a transaction of its own, and
// says what r should do (Claim.Outcome). A claim that ran (ClaimRun) must
// end with CompleteIdempotencyKey or ReleaseIdempotencyKey.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, r IdempotentRequest) (*Claim, error) {
	if r.TokenID <= 0 {
		return nil, errors.New("idempotency: a key needs the id of the API token that sent it")
	}
	if err := CheckIdempotencyKey("idempotency_key", r.Key); err != nil {
		return nil, err
	}
	fp := RequestFingerprint(r.Method, r.Target, r.Body)
	lease := r.Lease
	if lease <= 0 {
		lease = DefaultIdempotencyLease
	}
	// A claim loses only to a key held by another request; when that one
	// lets go between the two statements (a release, a lease running out),
	// the claim is tried again.
	for range 3 {
		now := s.Now()
		attempt, err := s.q.ClaimIdempotencyKey(ctx, queries.ClaimIdempotencyKeyParams{
			TokenID: r.TokenID, Key: r.Key, Fingerprint: fp[:], Method: r.Method, Target: r.Target,
			Now: now, LockedUntil: now.Add(lease), ExpiredBefore: now.Add(-IdempotencyWindow),
		})
		if err == nil {
			return &Claim{Outcome: ClaimRun, tokenID: r.TokenID, key: r.Key, attempt: attempt}, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("claim idempotency key: %w", err)
		}
		row, err := s.q.GetIdempotencyKey(ctx, queries.GetIdempotencyKeyParams{TokenID: r.TokenID, Key: r.Key})
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read idempotency key: %w", err)
		}
		c := &Claim{FirstMethod: row.Method, FirstTarget: row.Target, FirstAt: row.CreatedAt,
			tokenID: r.TokenID, key: r.Key, attempt: row.Attempt}
		switch {
		case !bytes.Equal(row.Fingerprint, fp[:]):
			c.Outcome = ClaimReused
		case row.Status == nil && row.LockedUntil.After(now):
			c.Outcome = ClaimInProgress
		case row.Status == nil:
			continue // its lease ran out just now: claim it
		default:
			c.Outcome = ClaimReplay
			c.Answer = IdempotentAnswer{Status: int(*row.Status), Body: row.Body, At: row.CreatedAt}
			// The answer reports a write made earlier: what follows
			// reads it from the primary, and the caller learns a
			// position past it (reads.go).
			replica.NoteWrite(ctx)
			if len(row.Headers) > 0 {
				if err := json.Unmarshal(row.Headers, &c.Answer.Headers); err != nil {
					return nil, fmt.Errorf("read idempotency key's headers: %w", err)
				}
			}
		}
		return c, nil
	}
	return nil, errors.New("claim idempotency key: the key changed hands three times during the claim")
}

// CompleteIdempotencyKey stores a's answer with c's key. It reports false,
// without an error, when the claim was taken over since (its lease ran
// out): the answer is then not stored.
func (s *Store) CompleteIdempotencyKey(ctx context.Context, c *Claim, a IdempotentAnswer) (bool, error) {
	if c == nil || c.Outcome != ClaimRun {
		return false, errors.New("idempotency: only a claim that ran may be completed")
	}
	var headers json.RawMessage
	if len(a.Headers) > 0 {
		var err error
		if headers, err = json.Marshal(a.Headers); err != nil {
			return false, fmt.Errorf("idempotency headers: %w", err)
		}
	}
	body := a.Body
	if body == nil {
		body = []byte{}
	}
	n, err := s.q.CompleteIdempotencyKey(ctx, queries.CompleteIdempotencyKeyParams{
		Status: int32(a.Status), Headers: headers, Body: body, Now: s.Now(),
		TokenID: c.tokenID, Key: c.key, Attempt: c.attempt,
	})
	if err != nil {
		return false, fmt.Errorf("store idempotent answer: %w", err)
	}
	return n == 1, nil
}

// ReleaseIdempotencyKey forgets c's key, whose request failed without an
// answer worth keeping (a failure of Tenure or of its database), so that a
// retry runs the request again.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, c *Claim) error {
	if c == nil || c.Outcome != ClaimRun {
		return nil
	}
	if _, err := s.q.ReleaseIdempotencyKey(ctx, queries.ReleaseIdempotencyKeyParams{
		TokenID: c.tokenID, Key: c.key, Attempt: c.attempt,
	}); err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// PurgeIdempotencyKeys deletes the keys claimed more than IdempotencyWindow
// ago (a claim reads them as free already) and returns how many it deleted.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context) (int, error) {
	n, err := s.q.PurgeIdempotencyKeys(ctx, s.Now().Add(-IdempotencyWindow))
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	return int(n), nil
}

// RequestFingerprint is the SHA-256 of a request: method, target and the
// canonical form of body (canonicalJSON), or body itself when it is not JSON.
func RequestFingerprint(method, target string, body []byte) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", method, target)
	if canon, ok := canonicalJSON(body); ok {
		h.Write([]byte("json\n"))
		h.Write(canon)
	} else {
		h.Write([]byte("raw\n"))
		h.Write(body)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// canonicalJSON is body, a sequence of JSON values (one object, or JSON
// Lines), with each value written compactly, object members sorted by name
// and strings escaped one way, one value a line; numbers keep their
// digits. It reports false when body is not such a sequence. Values are
// read one at a time, so that a long JSON Lines file is never held decoded
// whole.
func canonicalJSON(body []byte) ([]byte, bool) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out bytes.Buffer
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return out.Bytes(), true
		}
		if err != nil {
			return nil, false
		}
		// Maps marshal with their keys sorted.
		b, err := json.Marshal(v)
		if err != nil {
			return nil, false
		}
		out.Write(b)
		out.WriteByte('\n')
	}
}
