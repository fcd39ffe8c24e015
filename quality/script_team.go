package quality

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// teamScript is the second scenario: an ops team and three people over three
// weeks (days long; fewer compress the dated events, while the hourly
// traffic keeps its rhythm), written by two agents: an assistant (agent 0)
// and an ops bot (agent 1). Unlike the month, which names its entities one
// way and states each decision once, it plants what text written by others
// carries:
//
//   - name variants: each person first under a full name, then the first
//     name, then a lower-case, upper-case or unaccented spelling, and an
//     organisation written "Acme Robotics" and "acme robotics";
//   - one concept under several keys (employer, company, works_at; role,
//     job_title, title; home_city, lives_in);
//   - decisions recorded with their reasoning and later paraphrased, with
//     another value, by the ops bot: as plain text ("José decided to move
//     the night shift to Thursdays."), as a keyed fact, and as a decision
//     under another spelling and key; each must be refused or warned of,
//     never become a second decision;
//   - obligations fulfilled later in other words ("Ana must pay the Acme
//     Robotics invoice" ... "Ana paid the Acme Robotics invoice.");
//   - a flood of templated log lines: a reindex job and a heartbeat every
//     hour, a ticket status change every three hours;
//   - both agents writing the same person and the same facts, the same words
//     under two spellings of a name.
//
// Every person's identity facts, the standup and on-call facts, the locked
// decisions and the open obligation are essential: a brief that leaves one
// out while it is current counts a fact crowded out.
func teamScript(days int, seed uint64) []event {
	r := rand.New(rand.NewPCG(seed, 23))
	day := func(d float64) time.Time {
		return Start.Add(time.Duration(d * float64(days) / 21 * float64(24*time.Hour)))
	}
	const assistant, opsBot = 0, 1
	by := func(agent int, e event) event { e.agent = agent; return e }
	var evs []event

	// The flood, and the daily restatements of both writers.
	tickets := []string{"OPS-311", "OPS-312", "OPS-318", "OPS-320", "OPS-327"}
	statuses := []string{"open", "in progress", "waiting on customer", "resolved"}
	for h := 0; h < days*24; h++ {
		at := Start.Add(time.Duration(h)*time.Hour + 5*time.Minute)
		evs = append(evs,
			by(opsBot, push(at, plain("search/reindex", fmt.Sprintf("Reindex job %d finished in %d s.", 4100+h, 30+r.IntN(40))))),
			by(opsBot, push(at.Add(30*time.Minute), plain("ingest-worker-3/heartbeat",
				fmt.Sprintf("Heartbeat from ingest-worker-3 at %02d:35 UTC, queue depth %d.", h%24, r.IntN(50))))))
		if h%3 == 2 {
			t := tickets[r.IntN(len(tickets))]
			evs = append(evs, by(opsBot, push(at.Add(15*time.Minute),
				plain("ticket/"+t, fmt.Sprintf("Ticket %s updated: status changed to %s.", t, statuses[r.IntN(len(statuses))])))))
		}
		// The standup, stated with its key by the assistant and as plain
		// text by the ops bot, in the same words.
		if h%24 == 8 {
			evs = append(evs,
				by(assistant, push(at, essential(truthAs("ops/standup", fact("ops team", "standup", "observation", "The ops standup is at 09:30 in room Kepler."))))),
				by(opsBot, push(at.Add(20*time.Minute), essential(plain("ops/standup", "The ops standup is at 09:30 in room Kepler.")))))
		}
		// Jun's rotation, restated every day by the ops bot under the first
		// name and without a key, after the assistant stated it with one.
		if h%24 == 9 && at.After(day(2.2)) {
			evs = append(evs, by(opsBot, push(at, essential(scripted{row: row{Content: "Jun Park is on the December on-call rotation.",
				Properties: map[string]any{"entity": "Jun"}}, truth: "jun/oncall"}))))
		}
	}

	// Ana: full name, first name, upper case, lower case; employer under
	// three keys.
	evs = append(evs,
		by(assistant, push(day(0.3), person("ana/employer", "Ana Ruiz", "employer", "identity", "Ana Ruiz leads support at Acme Robotics."))),
		by(assistant, push(day(0.5), person("ana/home_city", "Ana Ruiz", "home_city", "identity", "Ana Ruiz lives in Madrid."))),
		by(opsBot, push(day(2.1), person("ana/employer", "Ana", "company", "identity", "Ana works at Acme Robotics."))),
		by(assistant, push(day(7.2), person("ana/employer", "Ana", "employer", "identity", "Ana now works at Globex as head of support."))),
		by(opsBot, push(day(9.5), person("ana/employer", "ANA RUIZ", "works_at", "observation", "Ana Ruiz is head of support at Globex."))),
		by(assistant, push(day(14.2), person("ana/home_city", "ana ruiz", "home_city", "identity", "ana ruiz moved to Valencia."))),
		by(opsBot, push(day(16), essential(plain("ana/home_city", "Ana lives in Valencia now.")))),
	)
	// José: accented full name, first name, unaccented, lower case.
	evs = append(evs,
		by(assistant, push(day(0.6), person("jose/role", "José Martínez", "role", "identity", "José Martínez is the on-call manager for the ops team."))),
		by(assistant, push(day(1.1), person("jose/home_city", "José Martínez", "home_city", "identity", "José Martínez lives in Lisbon."))),
		by(assistant, push(day(8.3), person("jose/role", "José", "role", "identity", "José is now the incident commander for EMEA."))),
		by(opsBot, push(day(12.4), person("jose/role", "Jose Martinez", "job_title", "identity", "Jose Martinez runs EMEA incident command."))),
		by(opsBot, push(day(15.1), person("jose/home_city", "jose martinez", "lives_in", "identity", "jose martinez moved to Porto."))),
	)
	// Jun: both writers, each with its own keys and spellings.
	evs = append(evs,
		by(assistant, push(day(0.8), person("jun/role", "Jun Park", "role", "identity", "Jun Park is a site reliability engineer."))),
		by(opsBot, push(day(1.4), person("jun/role", "jun park", "job_title", "identity", "jun park is an SRE on the platform team."))),
		by(assistant, push(day(2.0), person("jun/home_city", "Jun Park", "home_city", "identity", "Jun Park lives in Seoul."))),
		by(assistant, push(day(2.2), person("jun/oncall", "Jun Park", "oncall", "observation", "Jun Park is on the December on-call rotation."))),
		by(assistant, push(day(10.2), person("jun/role", "Jun", "role", "identity", "Jun was promoted to staff engineer."))),
		by(opsBot, push(day(10.6), person("jun/role", "Jun Park", "title", "identity", "Jun Park is a staff engineer on the platform team."))),
		by(opsBot, push(day(17.3), person("jun/home_city", "jun park", "lives_in", "identity", "jun park relocated to Busan."))),
		by(assistant, push(day(17.5), person("jun/home_city", "Jun", "home_city", "identity", "Jun lives in Busan now."))),
	)

	// Decisions with their reasoning, then paraphrased with another value
	// by the ops bot, hours later and again a week on.
	shift := decisionEvent{Entity: "ops team", Key: "night_shift", Decision: "The ops night shift moves to Tuesdays.",
		Reasoning: "Tuesday has the fewest tickets and Jun can cover it.", Alternatives: []string{"Thursdays", "Wednesdays"}, truth: "ops/night_shift"}
	shiftAgain := decisionEvent{Entity: "Ops Team", Key: "night_shift_day", Decision: "Night shift runs on Thursdays from now on.",
		Reasoning: "From the standup notes.", truth: "ops/night_shift"}
	tier := decisionEvent{Entity: "Acme Robotics", Key: "support_tier", Decision: "Acme Robotics stays on the Standard support tier.",
		Reasoning: "Premium costs three times as much and we file under five tickets a month.", Alternatives: []string{"Premium"}, truth: "acme/support_tier"}
	tierAgain := decisionEvent{Entity: "acme robotics", Key: "support_plan", Decision: "Acme Robotics upgrades to Premium support.",
		Reasoning: "Ticket volume.", truth: "acme/support_tier"}
	evs = append(evs,
		by(assistant, event{at: day(3), kind: evDecide, decision: &shift}),
		by(opsBot, push(day(3).Add(3*time.Hour), onDecision(plain("ops/night_shift", "José decided to move the night shift to Thursdays.")))),
		by(opsBot, event{at: day(3).Add(5 * time.Hour), kind: evDecideOnLocked, decision: &shiftAgain}),
		by(opsBot, push(day(11), onDecision(truthAs("ops/night_shift", fact("Ops team", "shift_day", "observation", "We're moving the night shift to Thursday next week."))))),
		by(assistant, event{at: day(5), kind: evDecide, decision: &tier}),
		by(opsBot, push(day(5).Add(2*time.Hour), onDecision(truthAs("acme/support_tier", fact("acme robotics", "support_tier", "observation", "acme robotics should move to the Premium support tier."))))),
		by(opsBot, event{at: day(5).Add(4 * time.Hour), kind: evDecideOnLocked, decision: &tierAgain}),
		by(opsBot, push(day(13), onDecision(plain("acme/support_tier", "Let's go with Premium support for Acme Robotics.")))),
	)

	// Obligations, three fulfilled in other words, one left open.
	invoice := teamObligation("ana/acme_invoice", "Ana Ruiz", "acme_invoice", "Ana must pay the Acme Robotics invoice by the 10th.", day(9))
	creds := teamObligation("ops/credential_rotation", "ops team", "credential_rotation", "The ops team has to rotate the database credentials by Friday.", day(6))
	pager := teamObligation("jun/pager_contract", "Jun Park", "pager_contract", "Jun must renew the on-call pager contract before the 15th.", day(15))
	budget := teamObligation("jose/q1_budget", "José Martínez", "q1_budget", "José has to send the Q1 ops budget to finance by the 20th.", day(20))
	budget.essential = true
	evs = append(evs,
		by(assistant, push(day(1.5), invoice)),
		by(assistant, push(day(6.3), fulfils(invoice, plain("ana/acme_invoice", "Ana paid the Acme Robotics invoice.")))),
		by(assistant, push(day(2.5), creds)),
		by(opsBot, push(day(4.8), fulfils(creds, truthAs("ops/credential_rotation", fact("Ops Team", "credentials", "observation", "Ops rotated the database credentials this morning."))))),
		by(assistant, push(day(8), pager)),
		by(opsBot, push(day(12.7), fulfils(pager, plain("jun/pager_contract", "jun renewed the pager contract.")))),
		by(assistant, push(day(16), budget)),
	)
	return evs
}

// person is an identity fact every brief should show while it is current,
// under the script's own truth key for the person (however the row spells
// the name or keys it).
func person(truth, entity, key, category, content string) scripted {
	return essential(truthAs(truth, fact(entity, key, category, content)))
}

func truthAs(truth string, s scripted) scripted { s.truth = truth; return s }

func essential(s scripted) scripted { s.essential = true; return s }

// onDecision marks a row that gives another value of what a locked decision
// settles: the store must warn of it and not let it stand beside the
// decision.
func onDecision(s scripted) scripted { s.onLocked = true; return s }

// fulfils marks s as fulfilling the obligation o.
func fulfils(o, s scripted) scripted { s.fulfils = o.row.Content; return s }

// teamObligation is an obligation with a deadline and a truth key, which the
// row fulfilling it shares.
func teamObligation(truth, entity, key, content string, deadline time.Time) scripted {
	s := obligation(entity, key, content, deadline)
	s.truth = truth
	return s
}
