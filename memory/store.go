package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/replica"
)

// Store is the memory engine over one PostgreSQL database. Every method that
// changes memory runs in one transaction and writes its audit rows in it.
type Store struct {
	pool    *pgxpool.Pool
	q       *queries.Queries
	logger  *slog.Logger
	now     func() time.Time
	metrics Metrics
	workers int // Options.ConsolidateWorkers
	// reads routes the reads of recall, the brief and the lists to hot
	// standbys (reads.go); nil reads everything from pool.
	reads *replica.Router
}

// Options configure a Store.
type Options struct {
	Logger *slog.Logger
	// Now is the clock; tests inject one to run days ahead in milliseconds.
	Now func() time.Time
	// Metrics receives counters; nil counts nothing.
	Metrics Metrics
	// ConsolidateWorkers is how many transactions a consolidation run's
	// promote phase runs at once (ConsolidateOptions.Workers); 0 means 2.
	ConsolidateWorkers int
	// Reads, when set, routes recall, the context brief and the lists the
	// API and the console show to the hot standbys it keeps in rotation,
	// under a context made by replica.WithMinLSN (the server makes one for
	// each request); see reads.go. Its primary must be the Store's pool.
	// Nil reads everything from the pool.
	Reads *replica.Router
}

// Metrics is what the engine counts. The jobs and web packages back it with
// Prometheus; tests may count in memory.
type Metrics interface {
	// Rejected counts one refusal by reason (transient, expired, decision_locked).
	Rejected(phase int, reason string)
	// Archived counts facts archived by decay.
	Archived(n int)
	// Promoted counts working rows turned into facts or reinforcements.
	Promoted(n int)
}

type noMetrics struct{}

func (noMetrics) Rejected(int, string) {}
func (noMetrics) Archived(int)         {}
func (noMetrics) Promoted(int)         {}

// NewStore returns a Store over pool.
func NewStore(pool *pgxpool.Pool, opts Options) *Store {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Metrics == nil {
		opts.Metrics = noMetrics{}
	}
	if opts.ConsolidateWorkers <= 0 {
		opts.ConsolidateWorkers = defaultWorkers
	}
	return &Store{pool: pool, q: queries.New(pool), logger: opts.Logger, now: opts.Now, metrics: opts.Metrics,
		workers: opts.ConsolidateWorkers, reads: opts.Reads}
}

// Now returns the store's current time, truncated to microseconds as
// PostgreSQL stores it.
func (s *Store) Now() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// tx runs fn in one transaction; it commits when fn returns nil. A commit
// tried (made, or of unknown outcome when the connection failed on it) is
// then noted in ctx (replica.NoteWrite), so that the reads that follow
// under it go to the primary; a transaction fn refused wrote nothing and is
// not noted.
func (s *Store) tx(ctx context.Context, fn func(q *queries.Queries, tx pgx.Tx) error) error {
	committing := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := fn(s.q.WithTx(tx), tx)
		committing = err == nil
		return err
	})
	if committing {
		replica.NoteWrite(ctx)
	}
	return err
}

// ActorKind says who makes a change.
type ActorKind string

// The kinds of actor. Humans are people signed in to the console; tokens are
// agents calling the API or MCP; system is Tenure's own jobs and commands.
const (
	ActorHuman  ActorKind = "user"
	ActorToken  ActorKind = "token"
	ActorSystem ActorKind = "system"
)

// Actor is who makes a change, as the audit log records it.
type Actor struct {
	Kind ActorKind
	Name string // an email, a token name, or a job name such as consolidation
}

// Human returns the actor for a person signed in as email.
func Human(email string) Actor { return Actor{Kind: ActorHuman, Name: email} }

// Token returns the actor for an agent using the API token named name.
func Token(name string) Actor { return Actor{Kind: ActorToken, Name: name} }

// System returns the actor for one of Tenure's own processes.
func System(name string) Actor { return Actor{Kind: ActorSystem, Name: name} }

// String is the actor as stored in audit_log.actor, e.g. "user:ann@example.com".
func (a Actor) String() string { return string(a.Kind) + ":" + a.Name }

// Automated reports whether the actor is a program rather than a person.
// Automated writers may not reopen decisions, raise durability, or turn a
// mood or state into another category.
func (a Actor) Automated() bool { return a.Kind != ActorHuman }

// ParseActor reads an actor back from its String form.
func ParseActor(s string) (Actor, error) {
	kind, name, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return Actor{}, fmt.Errorf("memory: invalid actor %q", s)
	}
	switch ActorKind(kind) {
	case ActorHuman, ActorToken, ActorSystem:
		return Actor{Kind: ActorKind(kind), Name: name}, nil
	}
	return Actor{}, fmt.Errorf("memory: invalid actor kind %q", kind)
}

// auditEntry is one row of the audit log.
type auditEntry struct {
	actor      Actor
	action     string // e.g. fact.update, node.durability, decision.reopen
	targetType string // fact, decision, node, policy, user, token, ...
	targetID   string
	scope      string
	before     any // marshalled to JSON; nil for creations
	after      any // marshalled to JSON; nil for deletions
	reason     string
}

// AuditEntry is one row of the audit log: who changed what, when, why,
// and the values before and after (marshalled to JSON; nil for a creation
// or a deletion).
type AuditEntry struct {
	At         time.Time
	Actor      Actor
	Action     string // e.g. fact.update, node.durability, user.role
	TargetType string // fact, decision, node, policy, user, token, ...
	TargetID   string
	Scope      string // "" when the change belongs to no scope
	Before     any
	After      any
	Reason     string
}

// WriteAudit writes one row of the audit log with q, inside the caller's
// transaction: the one writer of audit_log, for memory, auth, the CLI, jobs
// and the demo alike, so that every row names its actor the same way
// (Actor.String: user:EMAIL, token:NAME, system:NAME). Changes made to many
// rows in one statement (bulk archive and restore, marker changes) write
// their audit rows in that statement, with the same columns and the actor as
// Actor.String gives it.
func WriteAudit(ctx context.Context, q *queries.Queries, e AuditEntry) error {
	var before, after json.RawMessage
	var err error
	if e.Before != nil {
		if before, err = json.Marshal(e.Before); err != nil {
			return fmt.Errorf("audit: before: %w", err)
		}
	}
	if e.After != nil {
		if after, err = json.Marshal(e.After); err != nil {
			return fmt.Errorf("audit: after: %w", err)
		}
	}
	var scope *string
	if e.Scope != "" {
		scope = &e.Scope
	}
	err = q.InsertAudit(ctx, queries.InsertAuditParams{
		At: e.At, Actor: e.Actor.String(), Action: e.Action, TargetType: e.TargetType,
		TargetID: e.TargetID, Scope: scope, Before: before, After: after, Reason: e.Reason,
	})
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}

// WriteAuditTo is WriteAudit through db: a pool, a connection or a
// transaction, for the edges that write an audit row of their own (a
// backup, a restore) without running queries themselves.
func WriteAuditTo(ctx context.Context, db queries.DBTX, e AuditEntry) error {
	return WriteAudit(ctx, queries.New(db), e)
}

// audit writes one audit row with q, inside the caller's transaction, at
// the store's now.
func (s *Store) audit(ctx context.Context, q *queries.Queries, e auditEntry) error {
	return WriteAudit(ctx, q, AuditEntry{At: s.Now(), Actor: e.actor, Action: e.action, TargetType: e.targetType,
		TargetID: e.targetID, Scope: e.scope, Before: e.before, After: e.after, Reason: e.reason})
}
