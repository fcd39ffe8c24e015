// Package demo fills an empty Tenure database with a realistic memory so that
// a first run has something to review: three scopes, their entities, a few
// hundred facts across every durability and category, decisions with their
// reasoning, obligations due and overdue, working rows with each marker, and an
// admin account.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/queries"
)

// AdminEmail is the login of the admin account the demo creates.
const AdminEmail = "admin@tenure.local"

// lockKey serialises concurrent demo loads from several replicas ("tenure-demo").
const lockKey int64 = 0x74656e757265_64

// ErrNotEmpty is returned by Load when the database already holds data; the
// demo never writes into such a database.
var ErrNotEmpty = errors.New("demo: the database already holds data; demo data is only loaded into an empty database")

// Summary counts what Load wrote. AdminPassword is shown once and stored only
// as a hash.
type Summary struct {
	Scopes        int
	Entities      int
	Facts         int
	Archived      int
	Superseded    int // facts a newer one on their key replaced
	Decisions     int
	Obligations   int
	Nodes         int
	AdminEmail    string
	AdminPassword string
}

// Load writes the demo memory as of now in one transaction, or returns
// ErrNotEmpty and writes nothing.
func Load(ctx context.Context, pool *pgxpool.Pool, now time.Time) (Summary, error) {
	var sum Summary
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey); err != nil {
			return fmt.Errorf("demo: lock: %w", err)
		}
		q := queries.New(tx)
		holds, err := q.DatabaseHoldsMemory(ctx)
		if err != nil {
			return fmt.Errorf("demo: check empty: %w", err)
		}
		if holds.Entities || holds.MemoryNodes || holds.Users || holds.ConsolidationRuns || holds.ApiTokens {
			return ErrNotEmpty
		}
		l := loader{ctx: ctx, tx: tx, q: q, now: now.UTC(), rnd: rand.New(rand.NewPCG(7, 11))}
		sum, err = l.load()
		return err
	})
	if err != nil {
		return Summary{}, err
	}
	return sum, nil
}

type loader struct {
	ctx context.Context
	tx  pgx.Tx
	q   *queries.Queries
	now time.Time
	rnd *rand.Rand
	sum Summary
}

func (l *loader) ago(days float64) time.Time {
	return l.now.Add(-time.Duration(days * float64(24*time.Hour))).Truncate(time.Second)
}

func (l *loader) load() (Summary, error) {
	for _, s := range scopes() {
		if err := l.loadScope(s); err != nil {
			return Summary{}, fmt.Errorf("demo: scope %s: %w", s.name, err)
		}
		l.sum.Scopes++
	}
	// Newer states, moods and identities on a key have superseded the older
	// ones, as every writer of facts leaves them; exact repeats have merged.
	var ids []int64
	rows, err := l.tx.Query(l.ctx, `SELECT id FROM entity_facts WHERE status = 'active'`)
	if err != nil {
		return Summary{}, fmt.Errorf("demo: facts: %w", err)
	}
	ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return Summary{}, fmt.Errorf("demo: facts: %w", err)
	}
	// Facts observed again word for word have merged into the first.
	if _, err := l.q.MergeDuplicatesOf(l.ctx, queries.MergeDuplicatesOfParams{Ids: ids, Now: l.now}); err != nil {
		return Summary{}, fmt.Errorf("demo: merge duplicates: %w", err)
	}
	superseded, err := l.q.SupersedeFacts(l.ctx, queries.SupersedeFactsParams{Ids: ids, Now: l.now})
	if err != nil {
		return Summary{}, fmt.Errorf("demo: supersede: %w", err)
	}
	l.sum.Superseded = len(superseded)
	// Old moods and states have long decayed: the demo shows them archived, as
	// the decay job would have left them.
	tag, err := l.tx.Exec(l.ctx, `
		UPDATE entity_facts
		SET status = 'archived', archived_at = forget_at, archive_reason = 'decayed'
		WHERE status = 'active' AND forget_at <= $1`, l.now)
	if err != nil {
		return Summary{}, fmt.Errorf("demo: archive decayed: %w", err)
	}
	l.sum.Archived = int(tag.RowsAffected())

	password, err := auth.RandomSecret(15)
	if err != nil {
		return Summary{}, err
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return Summary{}, err
	}
	if _, err := l.q.CreateUser(l.ctx, queries.CreateUserParams{
		Email: AdminEmail, Name: "Demo admin", Role: "admin", PasswordHash: hash,
	}); err != nil {
		return Summary{}, fmt.Errorf("demo: admin user: %w", err)
	}
	l.sum.AdminEmail, l.sum.AdminPassword = AdminEmail, password

	after, _ := json.Marshal(map[string]int{
		"scopes": l.sum.Scopes, "entities": l.sum.Entities, "facts": l.sum.Facts,
		"decisions": l.sum.Decisions, "obligations": l.sum.Obligations, "nodes": l.sum.Nodes,
	})
	if err := l.q.InsertAudit(l.ctx, queries.InsertAuditParams{
		At: l.now, Actor: "system:demo", Action: "demo.load", TargetType: "database",
		TargetID: "demo", After: after, Reason: "demo data loaded into an empty database",
	}); err != nil {
		return Summary{}, fmt.Errorf("demo: audit: %w", err)
	}
	return l.sum, nil
}

func (l *loader) loadScope(s scopeSpec) error {
	ids := make(map[string]int64, len(s.entities))
	for _, e := range s.entities {
		row, err := l.q.UpsertEntity(l.ctx, queries.UpsertEntityParams{Scope: s.name, Name: e.name, Kind: e.kind})
		if err != nil {
			return fmt.Errorf("entity %s: %w", e.name, err)
		}
		ids[e.name] = row.ID
		l.sum.Entities++
	}
	for _, f := range s.facts {
		if _, err := l.fact(s.name, ids[f.entity], f, nil); err != nil {
			return err
		}
	}
	for _, r := range s.recurring {
		if err := l.recurring(s.name, ids[r.entity], r); err != nil {
			return err
		}
	}
	for _, d := range s.decisions {
		if err := l.decision(s.name, ids[d.entity], d); err != nil {
			return err
		}
	}
	for _, o := range s.obligations {
		deadline := l.ago(-o.inDays)
		f := factSpec{entity: o.entity, key: o.key, content: o.content, durability: "short_term",
			category: "obligation", confidence: 0.9, ageDays: 10 + l.rnd.Float64()*10}
		if _, err := l.fact(s.name, ids[o.entity], f, &deadline); err != nil {
			return err
		}
		l.sum.Obligations++
	}
	for _, n := range s.nodes {
		if err := l.node(s.name, n); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) fact(scope string, entityID int64, f factSpec, deadline *time.Time) (queries.CreateFactRow, error) {
	confirmed := l.ago(f.ageDays)
	created := confirmed.Add(-time.Duration(l.rnd.IntN(72)) * time.Hour)
	row, err := l.q.CreateFact(l.ctx, queries.CreateFactParams{
		Scope: scope, EntityID: entityID, Key: f.key, Content: f.content,
		Durability: f.durability, Category: f.category, Confidence: f.confidence,
		Importance: math.Round((0.3+l.rnd.Float64()*0.6)*100) / 100, ConfirmedAt: confirmed,
		Deadline: deadline, Source: l.source(), CreatedAt: created,
	})
	if err != nil {
		return row, fmt.Errorf("fact %q: %w", f.content, err)
	}
	l.sum.Facts++
	return row, nil
}

// source spreads the demo facts over the ways facts arrive.
func (l *loader) source() string {
	switch n := l.rnd.IntN(10); {
	case n < 6:
		return "consolidation"
	case n < 8:
		return "extraction"
	case n < 9:
		return "api"
	default:
		return "human"
	}
}

// recurring writes each variant many times, one row per observation, spread
// back in time every everyDays with some jitter.
func (l *loader) recurring(scope string, entityID int64, r recurringSpec) error {
	const observations = 26
	for i := range observations {
		age := float64(i)*r.everyDays + l.rnd.Float64()*r.everyDays*0.8
		f := factSpec{key: r.key, content: r.variants[i%len(r.variants)], durability: r.durability,
			category: r.category, confidence: math.Round((0.45+l.rnd.Float64()*0.5)*100) / 100, ageDays: age}
		if _, err := l.fact(scope, entityID, f, nil); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) decision(scope string, entityID int64, d decisionSpec) error {
	f := factSpec{key: d.key, content: d.decision, durability: "permanent", category: "decision",
		confidence: 1, ageDays: d.ageDays}
	fact, err := l.fact(scope, entityID, f, nil)
	if err != nil {
		return err
	}
	dec, err := l.q.CreateDecision(l.ctx, queries.CreateDecisionParams{
		FactID: fact.ID, Scope: scope, EntityID: entityID, Key: d.key, Decision: d.decision,
		Alternatives: d.alternatives, Reasoning: d.reasoning, DecidedBy: d.decidedBy,
		DecidedAt: fact.ConfirmedAt, DoNotReopen: !d.open,
	})
	if err != nil {
		return fmt.Errorf("decision %q: %w", d.decision, err)
	}
	if d.open {
		_, err := l.tx.Exec(l.ctx, `
			UPDATE decisions SET reopened_at = $2, reopened_by = 'admin@tenure.local',
				reopen_reason = 'The Saturday opening hours changed; compare practices again.'
			WHERE id = $1`, dec.ID, l.ago(d.ageDays/3))
		if err != nil {
			return fmt.Errorf("reopen decision %q: %w", d.decision, err)
		}
	}
	l.sum.Decisions++
	return nil
}

func (l *loader) node(scope string, n nodeSpec) error {
	props := make(map[string]string, len(n.props)+1)
	for k, v := range n.props {
		props[k] = v
	}
	if n.marker != "" {
		props["durability"] = n.marker
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return err
	}
	var ttl *int32
	if n.ttlSeconds > 0 {
		ttl = &n.ttlSeconds
	}
	_, err = l.q.InsertNode(l.ctx, queries.InsertNodeParams{
		Scope: scope, Content: n.content, Properties: raw, Importance: n.importance,
		TtlSeconds: ttl, CreatedAt: l.now.Add(-time.Duration(n.ageMinutes * float64(time.Minute))),
	})
	if err != nil {
		return fmt.Errorf("node %q: %w", n.content, err)
	}
	l.sum.Nodes++
	return nil
}
