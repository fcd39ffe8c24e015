package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// ErrDatabaseNotEmpty is returned by Seed when the database already holds
// memory, accounts, tokens or consolidation runs: a seed only ever fills an
// empty database.
var ErrDatabaseNotEmpty = errors.New("memory: the database already holds data; seeding needs an empty database")

// seedLockKey serialises concurrent seeds, such as several replicas loading
// the demo data at once ("tenure-demo").
const seedLockKey int64 = 0x74656e757265_64

// Seed fills an empty database in one transaction: fn writes the memory as it
// stands at now through the Seeder, and everything is committed when fn
// returns nil, or nothing when it returns an error. Seeds wait for one
// another; a database that already holds memory, accounts, tokens or
// consolidation runs is left untouched (ErrDatabaseNotEmpty).
//
// A seed writes history as it is, with the times it gives: it bypasses the
// rules and the audit of the engine's writers, so it is for loading a
// database (the demo data), never for changing one.
func (s *Store) Seed(ctx context.Context, now time.Time, fn func(*Seeder) error) error {
	return s.tx(ctx, func(q *queries.Queries, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", seedLockKey); err != nil {
			return fmt.Errorf("memory: seed: lock: %w", err)
		}
		holds, err := q.DatabaseHoldsMemory(ctx)
		if err != nil {
			return fmt.Errorf("memory: seed: check empty: %w", err)
		}
		if holds.Entities || holds.MemoryNodes || holds.Users || holds.ConsolidationRuns || holds.ApiTokens {
			return ErrDatabaseNotEmpty
		}
		return fn(&Seeder{q: q, tx: tx, now: now.UTC()})
	})
}

// Seeder writes the rows of a seed, inside Seed's transaction.
type Seeder struct {
	q   *queries.Queries
	tx  pgx.Tx
	now time.Time
}

// Tx is the seed's transaction, for the packages that own other tables
// (accounts) to seed them in it.
func (s *Seeder) Tx() pgx.Tx { return s.tx }

// Entity returns the id of the entity named name in scope, creating it of
// kind kind.
func (s *Seeder) Entity(ctx context.Context, scope, name, kind string) (int64, error) {
	row, err := s.q.UpsertEntity(ctx, queries.UpsertEntityParams{Scope: scope, Name: name, Kind: kind})
	if err != nil {
		return 0, fmt.Errorf("entity %s: %w", name, err)
	}
	return row.ID, nil
}

// SeedFact is a fact to seed, with its own times.
type SeedFact struct {
	Scope       string
	EntityID    int64
	Key         string
	Content     string
	Durability  string
	Category    string
	Confidence  float64
	Importance  float64
	ConfirmedAt time.Time
	CreatedAt   time.Time
	Deadline    *time.Time
	Source      string // consolidation, extraction, api, human, ...
}

// Fact writes an active fact and returns its id; forget_at follows from its
// durability and times as for any fact. Facts are written as they are given:
// duplicates and superseded states stay active until Settle.
func (s *Seeder) Fact(ctx context.Context, f SeedFact) (int64, error) {
	row, err := s.q.CreateFact(ctx, queries.CreateFactParams{
		Scope: f.Scope, EntityID: f.EntityID, Key: f.Key, Content: f.Content,
		Durability: f.Durability, Category: f.Category, Confidence: f.Confidence,
		Importance: f.Importance, ConfirmedAt: f.ConfirmedAt, Deadline: f.Deadline,
		Source: f.Source, CreatedAt: f.CreatedAt,
	})
	if err != nil {
		return 0, fmt.Errorf("fact %q: %w", f.Content, err)
	}
	return row.ID, nil
}

// SeedDecision is a decision to seed on its fact (of category decision).
type SeedDecision struct {
	FactID       int64
	Scope        string
	EntityID     int64
	Key          string
	Decision     string
	Alternatives []string
	Reasoning    string
	DecidedBy    string
	DecidedAt    time.Time
	DoNotReopen  bool
	// Reopened, when set, records that the decision was reopened.
	Reopened *SeedReopening
}

// SeedReopening is when, by whom and why a seeded decision was reopened.
type SeedReopening struct {
	At     time.Time
	By     string
	Reason string
}

// Decision writes a decision and returns its id.
func (s *Seeder) Decision(ctx context.Context, d SeedDecision) (int64, error) {
	row, err := s.q.CreateDecision(ctx, queries.CreateDecisionParams{
		FactID: d.FactID, Scope: d.Scope, EntityID: d.EntityID, Key: d.Key, Decision: d.Decision,
		Alternatives: d.Alternatives, Reasoning: d.Reasoning, DecidedBy: d.DecidedBy,
		DecidedAt: d.DecidedAt, DoNotReopen: d.DoNotReopen,
	})
	if err != nil {
		return 0, fmt.Errorf("decision %q: %w", d.Decision, err)
	}
	if r := d.Reopened; r != nil {
		if _, err := s.tx.Exec(ctx, `
			UPDATE decisions SET reopened_at = $2, reopened_by = $3, reopen_reason = $4
			WHERE id = $1`, row.ID, r.At, r.By, r.Reason); err != nil {
			return 0, fmt.Errorf("reopen decision %q: %w", d.Decision, err)
		}
	}
	return row.ID, nil
}

// SeedNode is a working row to seed.
type SeedNode struct {
	Scope      string
	Content    string
	Properties map[string]string // the durability marker among them
	Importance float64
	TTLSeconds *int32
	CreatedAt  time.Time
}

// Node writes a working row, unpromoted, and returns its id.
func (s *Seeder) Node(ctx context.Context, n SeedNode) (int64, error) {
	props := n.Properties
	if props == nil {
		props = map[string]string{}
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return 0, err
	}
	row, err := s.q.InsertNode(ctx, queries.InsertNodeParams{
		Scope: n.Scope, Content: n.Content, Properties: raw, Importance: n.Importance,
		TtlSeconds: n.TTLSeconds, CreatedAt: n.CreatedAt,
	})
	if err != nil {
		return 0, fmt.Errorf("node %q: %w", n.Content, err)
	}
	return row.ID, nil
}

// Settled counts what Settle archived.
type Settled struct {
	Merged     int // exact repeats merged into the first
	Superseded int // facts a newer one on their key replaced
	Archived   int // facts past their forget_at
}

// Settle leaves the seeded facts as the engine's writers and jobs would have
// left them at the seed's now: exact repeats merged into the first, newer
// states, moods and identities on a key superseding the older ones, and
// active facts past their forget_at archived as decayed, but for the
// obligations past their deadline, which decay holds for a person.
func (s *Seeder) Settle(ctx context.Context) (Settled, error) {
	var out Settled
	rows, err := s.tx.Query(ctx, `SELECT id FROM entity_facts WHERE status = 'active'`)
	if err != nil {
		return out, fmt.Errorf("facts: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return out, fmt.Errorf("facts: %w", err)
	}
	merged, err := s.q.MergeDuplicatesOf(ctx, queries.MergeDuplicatesOfParams{Ids: ids, Now: s.now})
	if err != nil {
		return out, fmt.Errorf("merge duplicates: %w", err)
	}
	out.Merged = len(merged)
	superseded, err := s.q.SupersedeFacts(ctx, queries.SupersedeFactsParams{Ids: ids, Now: s.now})
	if err != nil {
		return out, fmt.Errorf("supersede: %w", err)
	}
	out.Superseded = len(superseded)
	tag, err := s.tx.Exec(ctx, `
		UPDATE entity_facts
		SET status = 'archived', archived_at = forget_at, archive_reason = 'decayed'
		WHERE status = 'active' AND forget_at <= $1
		  AND NOT (category = 'obligation' AND deadline IS NOT NULL AND deadline <= forget_at)`, s.now)
	if err != nil {
		return out, fmt.Errorf("archive decayed: %w", err)
	}
	out.Archived = int(tag.RowsAffected())
	return out, nil
}

// SeedAudit is the audit row of a seed, written at the seed's now: what was
// loaded, by whom, and a summary in After.
type SeedAudit struct {
	Actor      Actor
	Action     string
	TargetType string
	TargetID   string
	After      any // marshalled to JSON
	Reason     string
}

// Audit writes the seed's audit row.
func (s *Seeder) Audit(ctx context.Context, a SeedAudit) error {
	e := AuditEntry{At: s.now, Actor: a.Actor, Action: a.Action, TargetType: a.TargetType,
		TargetID: a.TargetID, Reason: a.Reason}
	if a.After != nil {
		e.After = a.After
	}
	return WriteAudit(ctx, s.q, e)
}
