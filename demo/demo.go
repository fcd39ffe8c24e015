// Package demo fills an empty Tenure database with a realistic memory so that
// a first run has something to review: three scopes, their entities, a few
// hundred facts across every durability and category, decisions with their
// reasoning, obligations due and overdue, working rows with each marker, and an
// admin account.
package demo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// AdminEmail is the login of the admin account the demo creates.
const AdminEmail = "admin@tenure.local"

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
// ErrNotEmpty and writes nothing. Concurrent loads (several replicas starting
// at once) wait for each other, so only the first writes.
func Load(ctx context.Context, pool *pgxpool.Pool, now time.Time) (Summary, error) {
	var sum Summary
	store := memory.NewStore(pool, memory.Options{})
	err := store.Seed(ctx, now, func(s *memory.Seeder) error {
		l := loader{ctx: ctx, s: s, now: now.UTC(), rnd: rand.New(rand.NewPCG(7, 11))}
		var err error
		sum, err = l.load()
		return err
	})
	if errors.Is(err, memory.ErrDatabaseNotEmpty) {
		return Summary{}, ErrNotEmpty
	}
	if err != nil {
		return Summary{}, err
	}
	return sum, nil
}

type loader struct {
	ctx context.Context
	s   *memory.Seeder
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
	// Exact repeats have merged into the first; newer states, moods and
	// identities on a key have superseded the older ones, as every writer of
	// facts leaves them; old moods and states have long decayed, and the demo
	// shows them archived, as the decay job would have left them.
	settled, err := l.s.Settle(l.ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("demo: %w", err)
	}
	l.sum.Superseded, l.sum.Archived = settled.Superseded, settled.Archived

	password, err := auth.RandomSecret(15)
	if err != nil {
		return Summary{}, err
	}
	if _, err := auth.SeedUser(l.ctx, l.s.Tx(), auth.NewUser{
		Email: AdminEmail, Name: "Demo admin", Role: string(auth.RoleAdmin), Password: password,
	}); err != nil {
		return Summary{}, fmt.Errorf("demo: admin user: %w", err)
	}
	l.sum.AdminEmail, l.sum.AdminPassword = AdminEmail, password

	if err := l.s.Audit(l.ctx, memory.SeedAudit{
		Actor: memory.System("demo"), Action: "demo.load", TargetType: "database", TargetID: "demo",
		After: map[string]int{
			"scopes": l.sum.Scopes, "entities": l.sum.Entities, "facts": l.sum.Facts,
			"decisions": l.sum.Decisions, "obligations": l.sum.Obligations, "nodes": l.sum.Nodes,
		},
		Reason: "demo data loaded into an empty database",
	}); err != nil {
		return Summary{}, fmt.Errorf("demo: %w", err)
	}
	return l.sum, nil
}

func (l *loader) loadScope(s scopeSpec) error {
	ids := make(map[string]int64, len(s.entities))
	for _, e := range s.entities {
		id, err := l.s.Entity(l.ctx, s.name, e.name, e.kind)
		if err != nil {
			return err
		}
		ids[e.name] = id
		l.sum.Entities++
	}
	for _, f := range s.facts {
		if _, _, err := l.fact(s.name, ids[f.entity], f, nil); err != nil {
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
		if _, _, err := l.fact(s.name, ids[o.entity], f, &deadline); err != nil {
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

// fact writes f and returns its id and confirmation time.
func (l *loader) fact(scope string, entityID int64, f factSpec, deadline *time.Time) (int64, time.Time, error) {
	confirmed := l.ago(f.ageDays)
	created := confirmed.Add(-time.Duration(l.rnd.IntN(72)) * time.Hour)
	id, err := l.s.Fact(l.ctx, memory.SeedFact{
		Scope: scope, EntityID: entityID, Key: f.key, Content: f.content,
		Durability: f.durability, Category: f.category, Confidence: f.confidence,
		Importance: math.Round((0.3+l.rnd.Float64()*0.6)*100) / 100, ConfirmedAt: confirmed,
		Deadline: deadline, Source: l.source(), CreatedAt: created,
	})
	if err != nil {
		return 0, confirmed, err
	}
	l.sum.Facts++
	return id, confirmed, nil
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
		if _, _, err := l.fact(scope, entityID, f, nil); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) decision(scope string, entityID int64, d decisionSpec) error {
	f := factSpec{key: d.key, content: d.decision, durability: "permanent", category: "decision",
		confidence: 1, ageDays: d.ageDays}
	factID, confirmed, err := l.fact(scope, entityID, f, nil)
	if err != nil {
		return err
	}
	dec := memory.SeedDecision{
		FactID: factID, Scope: scope, EntityID: entityID, Key: d.key, Decision: d.decision,
		Alternatives: d.alternatives, Reasoning: d.reasoning, DecidedBy: d.decidedBy,
		DecidedAt: confirmed, DoNotReopen: !d.open,
	}
	if d.open {
		dec.Reopened = &memory.SeedReopening{At: l.ago(d.ageDays / 3), By: AdminEmail,
			Reason: "The Saturday opening hours changed; compare practices again."}
	}
	if _, err := l.s.Decision(l.ctx, dec); err != nil {
		return err
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
	var ttl *int32
	if n.ttlSeconds > 0 {
		ttl = &n.ttlSeconds
	}
	_, err := l.s.Node(l.ctx, memory.SeedNode{
		Scope: scope, Content: n.content, Properties: props, Importance: n.importance,
		TTLSeconds: ttl, CreatedAt: l.now.Add(-time.Duration(n.ageMinutes * float64(time.Minute))),
	})
	if err != nil {
		return err
	}
	l.sum.Nodes++
	return nil
}
