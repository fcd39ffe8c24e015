// Package quality replays a scripted month of agent traffic through Tenure's
// public API, with the clock advanced hour by hour and consolidation and
// decay run on their schedule, and checks at every simulated hour what an
// agent would be told: the context brief and recall. It counts every way the
// memory an agent receives could lie (a stale or contradicted state recited
// as current, an old mood, a line twice, an overdue obligation still listed
// as due, a locked decision overwritten or a write against it answered
// without a warning) and scores a naive store, which keeps every row and
// recites the newest, on the same script.
package quality

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Start is the simulated month's first instant.
var Start = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// scope is the one scope the script writes.
const scope = "sim"

// row is one working row an agent pushes.
type row struct {
	Content    string         `json:"content"`
	Durability string         `json:"durability,omitempty"` // the marker
	Properties map[string]any `json:"properties,omitempty"`
}

// event is something that happens at an instant of the month.
type event struct {
	at   time.Time
	kind eventKind
	rows []row
	// truthKey names, for the script's own bookkeeping, what each row is
	// about ("billing-db/replication_lag"); rows with the same truth key
	// supersede each other in truth. Empty: the row accumulates.
	truthKeys []string
	// mood marks rows that state a mood.
	moods []bool
	// deadline of an obligation row.
	deadlines []*time.Time
	// onLocked marks rows written on the key of a locked decision.
	onLocked []bool
	// essential marks rows every brief should show while they are current;
	// fulfils names, for a row that fulfils an obligation, the obligation's
	// content (both used by the team scenario alone).
	essential []bool
	fulfils   []string
	// agent is the index of the writer (its token) that sends the event.
	agent    int
	decision *decisionEvent
}

type eventKind int

const (
	evPush           eventKind = iota // an agent pushes rows
	evDecide                          // an agent records a decision
	evDecideOnLocked                  // an agent tries to record a decision on a locked key
	evReopen                          // a person reopens a decision
)

type decisionEvent struct {
	Entity, Key, Decision, Reasoning string
	Alternatives                     []string
	// truth is the script's truth key of the decision (team scenario);
	// empty in the month.
	truth string
}

// push builds a push event of rows, each with its truth key.
func push(at time.Time, rows ...scripted) event {
	e := event{at: at, kind: evPush}
	for _, r := range rows {
		e.rows = append(e.rows, r.row)
		e.truthKeys = append(e.truthKeys, r.truth)
		e.moods = append(e.moods, r.mood)
		e.deadlines = append(e.deadlines, r.deadline)
		e.onLocked = append(e.onLocked, r.onLocked)
		e.essential = append(e.essential, r.essential)
		e.fulfils = append(e.fulfils, r.fulfils)
	}
	return e
}

// scripted is a row and what the script knows about it.
type scripted struct {
	row       row
	truth     string
	mood      bool
	deadline  *time.Time
	onLocked  bool
	essential bool
	fulfils   string
}

func fact(entity, key, category, content string) scripted {
	return scripted{row: row{Content: content, Properties: map[string]any{"entity": entity, "key": key, "category": category}},
		truth: entity + "/" + key}
}

// plain is a row of text alone: the classifier names its entity and key.
func plain(truth, content string) scripted {
	return scripted{row: row{Content: content}, truth: truth}
}

// script is the month: days long (30 for the month; fewer compress the
// dated events into the shorter span, while the hourly traffic keeps its
// rhythm).
func script(days int, seed uint64) []event {
	r := rand.New(rand.NewPCG(seed, 17))
	day := func(d float64) time.Time {
		return Start.Add(time.Duration(d * float64(days) / 30 * float64(24*time.Hour)))
	}
	var evs []event
	hours := days * 24
	for h := 0; h < hours; h++ {
		at := Start.Add(time.Duration(h)*time.Hour + 10*time.Minute)
		// billing-db replication lag: a state every 6 hours, that changes and
		// recovers; half of them name entity and key, half are plain text.
		if h%6 == 0 {
			content := fmt.Sprintf("billing-db replication lag is %d s.", 2+r.IntN(8))
			if r.IntN(10) < 3 {
				content = "billing-db replication lag recovered."
			}
			if r.IntN(2) == 0 {
				evs = append(evs, push(at, fact("billing-db", "replication_lag", "state", content)))
			} else {
				evs = append(evs, push(at, plain("billing-db/replication_lag", content)))
			}
		}
		// api-gateway p99 latency, every 4 hours.
		if h%4 == 2 {
			content := fmt.Sprintf("api-gateway p99 latency is %d ms", 120+20*r.IntN(6))
			if r.IntN(10) < 3 {
				content = "api-gateway p99 back under 120 ms"
			}
			evs = append(evs, push(at, fact("api-gateway", "p99_latency", "state", content)))
		}
		// Status lines marked transient, every 3 hours: never facts.
		if h%3 == 1 {
			evs = append(evs, push(at, scripted{row: row{
				Content:    fmt.Sprintf("Nightly sync %d is still running, ETA 30s", h),
				Durability: "transient"}, truth: "sync/progress"}))
		}
		// A deploy a day: an unmarked progress line, then its outcome.
		if h%24 == 10 {
			evs = append(evs, push(at, scripted{row: row{Content: fmt.Sprintf("Deploy %d is rolling out, 40%% of pods updated.", h/24),
				Properties: map[string]any{"entity": "deploy", "key": "rollout", "category": "state", "fact_durability": "ephemeral"}},
				truth: "deploy/rollout"}))
		}
		if h%24 == 12 {
			evs = append(evs, push(at, scripted{row: row{Content: fmt.Sprintf("Deploy %d finished rolling out.", h/24),
				Properties: map[string]any{"entity": "deploy", "key": "rollout", "category": "state", "fact_durability": "ephemeral"}},
				truth: "deploy/rollout"}))
		}
		// Jordan's moods, every 20 hours.
		if h%20 == 7 {
			m := fact("Jordan", "mood", "mood", []string{"Jordan is exhausted today.", "Jordan feels great this morning.",
				"Jordan is stressed about the audit.", "Jordan is relaxed after the weekend."}[r.IntN(4)])
			m.mood = true
			evs = append(evs, push(at, m))
		}
		// A repeated fact, stated again every day.
		if h%24 == 9 {
			evs = append(evs, push(at, scripted{row: row{Content: "The office is on Larimer Street.",
				Properties: map[string]any{"entity": "office", "key": "address", "category": "observation"}}}))
		}
	}
	// Identities stated twice in other words, then changed.
	evs = append(evs,
		push(day(0.4), fact("Jordan", "occupation", "identity", "Jordan works as a nurse.")),
		push(day(1.2), fact("Jordan", "home_city", "identity", "Jordan lives in Denver.")),
		push(day(4.5), fact("Jordan", "occupation", "identity", "Jordan is a nurse at Denver Health.")),
		push(day(12.3), fact("Jordan", "occupation", "identity", "Jordan now works as a paramedic.")),
		push(day(20.1), fact("Jordan", "home_city", "identity", "Jordan moved to Boulder.")),
		// Preferences, repeated, then changed.
		push(day(0.6), fact("Jordan", "drink", "preference", "Jordan drinks tea in the morning.")),
		push(day(3.3), fact("Jordan", "drink", "preference", "Jordan drinks tea in the morning.")),
		push(day(15.2), fact("Jordan", "drink", "preference", "Jordan switched to coffee.")),
	)
	// Obligations with deadlines.
	tls, report := day(10), day(16)
	evs = append(evs,
		push(day(4.1), obligation("ops", "tls_renewal", "Renew the TLS certificate of api-gateway.", tls)),
		push(day(14.1), obligation("ops", "quarterly_report", "Send the quarterly report to finance.", report)),
	)
	// A decision, attempts to reopen it, a person reopening it, a new one.
	engine := decisionEvent{Entity: "billing-db", Key: "engine", Decision: "billing-db stays on PostgreSQL 15.",
		Reasoning: "The upgrade waits for the logical replication fix.", Alternatives: []string{"PostgreSQL 17", "Aurora"}}
	later := decisionEvent{Entity: "billing-db", Key: "engine", Decision: "billing-db moves to PostgreSQL 17.",
		Reasoning: "The replication fix shipped in 17.2.", Alternatives: []string{"stay on 15"}}
	onEngine := func(content string) scripted {
		s := fact("billing-db", "engine", "observation", content)
		s.truth, s.onLocked = "", true
		return s
	}
	evs = append(evs,
		event{at: day(2), kind: evDecide, decision: &engine},
		push(day(8), onEngine("billing-db should move to PostgreSQL 17.")),
		event{at: day(9), kind: evDecideOnLocked, decision: &later},
		push(day(11), onEngine("Upgrade billing-db to PostgreSQL 16 this sprint.")),
		event{at: day(18), kind: evReopen, decision: &engine},
		event{at: day(19), kind: evDecide, decision: &later},
		push(day(22), onEngine("billing-db should stay on PostgreSQL 15 after all.")),
	)
	return evs
}

func obligation(entity, key, content string, deadline time.Time) scripted {
	s := fact(entity, key, "obligation", content)
	s.row.Properties["deadline"] = deadline.Format(time.RFC3339)
	s.truth = ""
	s.deadline = &deadline
	return s
}
