package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tenurehq/tenure/queries"
)

// BriefOptions ask for the context brief of one scope.
type BriefOptions struct {
	Scope string // required
	// Budget is the most characters (runes) Text may have: default 4000,
	// at least 200, at most 100000.
	Budget int
	Entity string // optional: only memories about the entity with this name
	// Since, when set, asks only for what changed after it (new facts,
	// superseded and archived facts, recorded, reopened and locked
	// decisions), so a long session refreshes its brief cheaply.
	Since *time.Time
}

// Brief is the compact state an agent must not forget at the start of a
// turn: locked decisions with their reasoning, obligations due soon or
// overdue, current short-term states, and the most confident durable facts,
// in that priority, within a budget of characters of which each section
// keeps its share (ContextBrief).
type Brief struct {
	Scope     string `json:"scope"`
	Budget    int    `json:"budget"`
	Used      int    `json:"used"`      // characters (runes) of Text()
	Truncated bool   `json:"truncated"` // something was left out to stay within budget
	// AsOf is when the brief was read: what a later brief passes as Since
	// to get only what changed after this one.
	AsOf time.Time `json:"as_of"`
	// DecisionsLeftOut counts the locked decisions an abridged brief left
	// out for lack of room (its Text says so in one line under the header);
	// 0 when every locked decision shows.
	DecisionsLeftOut int `json:"decisions_left_out"`
	// Decisions are the locked decisions, newest first.
	Decisions []BriefDecision `json:"decisions"`
	// Obligations are due within 14 days or overdue, soonest deadline first.
	Obligations []BriefItem `json:"obligations"`
	// States are the current short-term states, most recently confirmed first.
	States []BriefItem `json:"states"`
	// Facts are the most confident durable facts, by effective confidence
	// times importance.
	Facts []BriefItem `json:"facts"`
	// Since and Changes answer a brief asked with Since: what changed after
	// it, newest first; the other lists are then empty.
	Since   *time.Time    `json:"since,omitempty"`
	Changes []BriefChange `json:"changes,omitempty"`
	// now is when the brief was made, for the ages its text shows.
	now time.Time
}

// The kinds of change a brief with Since reports.
const (
	ChangeNew              = "new"
	ChangeSuperseded       = "superseded"
	ChangeArchived         = "archived"
	ChangeDecision         = "decision"
	ChangeDecisionReopened = "decision_reopened"
	ChangeDecisionLocked   = "decision_locked"
)

// BriefChange is one change since an agent's last brief.
type BriefChange struct {
	Kind       string    `json:"kind"`
	FactID     int64     `json:"fact_id,omitempty"`
	DecisionID int64     `json:"decision_id,omitempty"`
	Entity     string    `json:"entity"`
	Key        string    `json:"key"`
	Content    string    `json:"content"`
	Category   string    `json:"category,omitempty"`
	Reason     string    `json:"reason,omitempty"` // why a fact was archived, why a decision was reopened
	At         time.Time `json:"at"`
}

// BriefDecision is a locked decision in a brief.
type BriefDecision struct {
	ID           int64     `json:"id"`
	Entity       string    `json:"entity"`
	Key          string    `json:"key"`
	Decision     string    `json:"decision"`
	Reasoning    string    `json:"reasoning"`
	Alternatives []string  `json:"alternatives"`
	DecidedBy    string    `json:"decided_by"`
	DecidedAt    time.Time `json:"decided_at"`
}

// BriefItem is a fact in a brief.
type BriefItem struct {
	FactID     int64  `json:"fact_id"`
	Entity     string `json:"entity"`
	Key        string `json:"key"`
	Content    string `json:"content"`
	Durability string `json:"durability"`
	Category   string `json:"category"`
	// Confidence is the effective confidence when the brief was made.
	Confidence float64    `json:"confidence"`
	Deadline   *time.Time `json:"deadline"`
	Overdue    bool       `json:"overdue"` // an obligation whose deadline has passed
	// ConfirmedAt is when the fact was last stated; a state's line says how
	// long ago.
	ConfirmedAt time.Time `json:"confirmed_at"`
}

// Bounds of a brief.
const (
	DefaultBriefBudget = 4000
	MinBriefBudget     = 200
	MaxBriefBudget     = 100000
	// obligationHorizon is how far ahead a brief looks for deadlines.
	obligationHorizon = 14 * 24 * time.Hour
	// minBriefItem is the fewest characters a change's line can take: no
	// brief can show more than budget/minBriefItem changes, so reading one
	// more than that tells for sure whether something was left out.
	minBriefItem = 6
)

// The parts of Text.
const (
	briefSectionDecisions   = "Decisions (settled, do not reopen):"
	briefSectionObligations = "Obligations:"
	briefSectionStates      = "Current state:"
	briefSectionFacts       = "Known facts:"
	briefSectionChanges     = "Changes:"
	briefEmpty              = "Nothing is remembered here yet."
	briefNoChanges          = "Nothing changed."
	// moodFresh is how long a mood may show as current.
	moodFresh = 48 * time.Hour
)

func (o BriefOptions) validate() (BriefOptions, error) {
	if strings.TrimSpace(o.Scope) == "" {
		return o, Invalidf("scope", "the scope is empty: a brief covers one scope, named by 1 to 63 lowercase letters, digits, '_', '.', ':' or '-'")
	}
	if _, err := ParseScope(o.Scope); err != nil {
		return o, err
	}
	switch {
	case o.Budget == 0:
		o.Budget = DefaultBriefBudget
	case o.Budget < MinBriefBudget || o.Budget > MaxBriefBudget:
		return o, Invalidf("budget", "budget %d is out of range: use %d to %d characters (default %d)",
			o.Budget, MinBriefBudget, MaxBriefBudget, DefaultBriefBudget)
	}
	o.Entity = strings.TrimSpace(o.Entity)
	if n := utf8.RuneCountInString(o.Entity); n > maxEntityName {
		return o, Invalidf("entity", "the entity name is %d characters long: at most %d are allowed", n, maxEntityName)
	}
	if err := CheckText("entity", o.Entity); err != nil {
		return o, err
	}
	return o, nil
}

// briefCandidates are what a brief may show, in order of priority within
// each section, before the budget is applied.
type briefCandidates struct {
	decisions   []BriefDecision
	obligations []BriefItem
	states      []BriefItem
	facts       []BriefItem
	changes     []BriefChange
}

// The sections of the rows queries.Brief returns.
const (
	briefRowDecision   = 0
	briefRowObligation = 1
	briefRowState      = 2
	briefRowFact       = 3
	briefSections      = 4
)

// ContextBrief returns the brief of o.Scope: first every locked decision
// with its reasoning (newest first), then obligations due within 14 days or
// overdue (overdue first), then current short-term and ephemeral states
// (newest first), then the permanent and long-term facts with the highest
// effective confidence × importance, until o.Budget characters of Text() are
// used. When everything fits, everything shows. Otherwise (then Truncated is
// set) each section first takes its items, in its order, within its share
// of the budget (briefShares), so many locked decisions cannot crowd out the
// facts; then the shares left unused go to the items not yet taken, in that
// priority. Each item is taken when it fits whole in what is left and
// skipped otherwise, so a shorter item after a skipped one may still fit;
// Used never exceeds Budget. Archived facts and
// facts past their forget_at are left out. The sections are read a page at
// a time (see readBrief), all in one snapshot.
func (s *Store) ContextBrief(ctx context.Context, o BriefOptions) (Brief, error) {
	o, err := o.validate()
	if err != nil {
		return Brief{}, err
	}
	now := s.Now()
	var entity *string
	if o.Entity != "" {
		entity = &o.Entity
	}
	if o.Since != nil {
		return s.briefChanges(ctx, o, entity, now, int32(o.Budget/minBriefItem+1))
	}
	p := queries.BriefParams{Scope: o.Scope, Entity: entity, Now: now,
		DueBefore: now.Add(obligationHorizon), MoodCutoff: now.Add(-moodFresh)}
	var b Brief
	err = s.readSnapshot(ctx, func(ctx context.Context, q *queries.Queries) error {
		var err error
		lockedDecisions := func() (int, error) {
			n, err := q.CountLockedDecisions(ctx, queries.CountLockedDecisionsParams{Scope: o.Scope, Entity: entity})
			return int(n), err
		}
		b, err = readBrief(ctx, q, o.Scope, o.Budget, p, lockedDecisions)
		return err
	})
	if err != nil {
		return Brief{}, fmt.Errorf("context brief: %w", err)
	}
	return b, nil
}

// briefRows runs queries.Brief, deeper each time its walk of durable facts
// could not prove its best facts (facts tied at the last place, or more of
// the best in one group than the first read takes).
func briefRows(ctx context.Context, q *queries.Queries, p queries.BriefParams) ([]queries.BriefRow, error) {
	for p.Depth = 1; ; p.Depth *= 4 {
		rows, err := q.Brief(ctx, p)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(rows, func(r queries.BriefRow) bool { return r.Section == briefRowFact && !r.Complete }) {
			return rows, nil
		}
	}
}

// briefOrder compares two rows of one section in the section's order:
// decisions and states newest first, obligations by deadline, facts by score
// (each with ties broken by id the same way).
func briefOrder(section int32) func(a, b *queries.BriefRow) int {
	switch section {
	case briefRowObligation:
		return func(a, b *queries.BriefRow) int {
			return cmp.Or(a.Deadline.Compare(*b.Deadline), cmp.Compare(a.ID, b.ID))
		}
	case briefRowFact:
		return func(a, b *queries.BriefRow) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.ID, a.ID))
		}
	default:
		return func(a, b *queries.BriefRow) int { return cmp.Or(b.At.Compare(a.At), cmp.Compare(b.ID, a.ID)) }
	}
}

// briefCandidatesOf sorts the rows of queries.Brief into the candidates of a
// brief, each section in its order (briefOrder). A state shows once an
// entity and key: the newest (an older state on the same key is never
// current). A durable obligation due before dueBefore is listed with the
// obligations and left out of the facts.
func briefCandidatesOf(rows []queries.BriefRow, now, dueBefore time.Time) briefCandidates {
	var sections [briefSections][]*queries.BriefRow
	for i := range rows {
		if s := rows[i].Section; s >= 0 && int(s) < len(sections) {
			sections[s] = append(sections[s], &rows[i])
		}
	}
	for s := range sections {
		slices.SortFunc(sections[s], briefOrder(int32(s)))
	}

	c := briefCandidates{
		decisions:   make([]BriefDecision, 0, len(sections[briefRowDecision])),
		obligations: make([]BriefItem, 0, len(sections[briefRowObligation])),
		states:      make([]BriefItem, 0, len(sections[briefRowState])),
		facts:       make([]BriefItem, 0, len(sections[briefRowFact])),
	}
	for _, r := range sections[briefRowDecision] {
		alts := r.Alternatives
		if alts == nil {
			alts = []string{}
		}
		c.decisions = append(c.decisions, BriefDecision{
			ID: r.ID, Entity: r.EntityName, Key: r.Key, Decision: r.Content, Reasoning: r.Reasoning,
			Alternatives: alts, DecidedBy: r.DecidedBy, DecidedAt: r.At,
		})
	}
	for _, r := range sections[briefRowObligation] {
		c.obligations = append(c.obligations, newBriefItem(r, now))
	}
	seenKey := map[[2]string]bool{}
	for _, r := range sections[briefRowState] {
		if r.Key != "" {
			k := [2]string{r.EntityName, r.Key}
			if seenKey[k] {
				continue
			}
			seenKey[k] = true
		}
		c.states = append(c.states, newBriefItem(r, now))
	}
	for _, r := range sections[briefRowFact] {
		if r.Category == CategoryObligation && r.Deadline != nil && r.Deadline.Before(dueBefore) {
			continue
		}
		c.facts = append(c.facts, newBriefItem(r, now))
	}
	return c
}

func newBriefItem(r *queries.BriefRow, now time.Time) BriefItem {
	return BriefItem{
		FactID: r.ID, Entity: r.EntityName, Key: r.Key, Content: r.Content, Durability: r.Durability,
		Category: r.Category, Confidence: r.EffectiveConfidence, Deadline: r.Deadline,
		Overdue:     r.Category == CategoryObligation && r.Deadline != nil && r.Deadline.Before(now),
		ConfirmedAt: r.At,
	}
}

// briefChanges is the brief of o with Since: what changed after it.
func (s *Store) briefChanges(ctx context.Context, o BriefOptions, entity *string, now time.Time, maxRows int32) (Brief, error) {
	var c briefCandidates
	since := o.Since.UTC()
	err := s.readSnapshot(ctx, func(ctx context.Context, q *queries.Queries) error {
		c = briefCandidates{} // afresh when the read runs again elsewhere
		ds, err := q.BriefChangedDecisions(ctx, queries.BriefChangedDecisionsParams{Scope: o.Scope, Since: since, Entity: entity, MaxRows: maxRows})
		if err != nil {
			return fmt.Errorf("decisions: %w", err)
		}
		for _, d := range ds {
			ch := BriefChange{DecisionID: d.ID, Entity: d.EntityName, Key: d.Key, Content: d.Decision, At: d.UpdatedAt}
			switch {
			case !d.DoNotReopen && d.ReopenedAt != nil && d.ReopenedAt.After(since):
				ch.Kind, ch.Reason = ChangeDecisionReopened, d.ReopenReason
			case !d.DoNotReopen:
				continue // reopened before since and edited since: still open, no news
			case d.DecidedAt.After(since):
				ch.Kind, ch.Reason = ChangeDecision, d.Reasoning
			default:
				ch.Kind, ch.Reason = ChangeDecisionLocked, d.Reasoning
			}
			c.changes = append(c.changes, ch)
		}
		fs, err := q.BriefChangedFacts(ctx, queries.BriefChangedFactsParams{Scope: o.Scope, Since: since, Entity: entity,
			MaxRows: maxRows, ForgottenReason: ForgottenReason})
		if err != nil {
			return fmt.Errorf("facts: %w", err)
		}
		// Changes follow observed time: a fact is new when it was first
		// written and last observed after since, superseded when the fact
		// that replaced it was observed after since, forgotten when its
		// forget_at passed after since. A statement observed before since and
		// written after it (replayed, or consolidated late) is not news of
		// that time.
		for _, f := range fs {
			ch := BriefChange{FactID: f.ID, Entity: f.EntityName, Key: f.Key, Content: f.Content, Category: f.Category, At: f.ChangedAt}
			switch {
			case f.Status == string(StatusArchived) && f.ArchivedAt != nil && f.ArchivedAt.After(since) && f.ChangedAt.After(since):
				switch {
				case strings.HasPrefix(f.ArchiveReason, "merged into"):
					continue // a duplicate folded into a fact the agent knows
				case strings.HasPrefix(f.ArchiveReason, "superseded by"):
					ch.Kind = ChangeSuperseded
				default:
					ch.Kind = ChangeArchived
				}
				ch.Reason = f.ArchiveReason
			case f.Status == string(StatusActive) && f.CreatedAt.After(since) && f.ConfirmedAt.After(since):
				ch.Kind = ChangeNew
			default:
				continue // confirmed again or edited: nothing the agent must unlearn
			}
			c.changes = append(c.changes, ch)
		}
		return nil
	})
	if err != nil {
		return Brief{}, fmt.Errorf("context brief: %w", err)
	}
	b := packBrief(o.Scope, o.Budget, c, now)
	b.Since = &since
	return b, nil
}

// packBrief fills a brief from c within budget. A first packing takes the
// items in order of priority under the plain header; when something is left
// out, a second packing, under the longer header that says so, gives each
// section its share of the budget first (packBriefWith), so the text stays
// within budget either way and a brief that fits is packed as it always was.
func packBrief(scope string, budget int, c briefCandidates, now time.Time) Brief {
	b, _ := packBriefProbed(scope, budget, c, nil, now)
	return b
}

// briefProbe is the state of a packing pass at one point: the room left,
// whether something was left out before it, and whether its section shows
// an item before it.
type briefProbe struct {
	room      int
	truncated bool
	started   bool // an item of the section was taken before the point
}

// briefProbes are what packBriefProbed saw at the marks of each section: in
// the first packing (plain header, one pass in priority order) and, when it
// ran, in the two passes of the second (each section within its share, then
// the leftover in priority order).
type briefProbes struct {
	first, shares, leftover [briefSections][]briefProbe
	secondRan               bool
}

// packBriefProbed is packBrief, and with marks (candidate indexes in the
// decisions, obligations, states and facts) it also reports each pass's
// state just before the candidate at each mark (after the last for a mark
// equal to the section's length).
func packBriefProbed(scope string, budget int, c briefCandidates, marks *[briefSections][]int, now time.Time) (Brief, briefProbes) {
	var pr briefProbes
	lines := briefLinesOf(c, now)
	b := packBriefWith(scope, budget, c, lines, false, marks, &pr, now)
	if b.Truncated {
		b = packBriefWith(scope, budget, c, lines, true, marks, &pr, now)
		pr.secondRan = true
	}
	b.Used = utf8.RuneCountInString(b.Text())
	return b, pr
}

// briefLine is what packing needs of a candidate's line "- [entity] text"
// followed by a tail (a decision's reasoning, a deadline, an age): the entity
// and text on one line, and the runes of the line with its line break, base
// without the tail. A line's runes are the sum of its parts' runes, which
// always meet at ASCII characters.
type briefLine struct {
	entity, text string
	base, tail   int
}

func newBriefLine(entity, text string, tail int) briefLine {
	e, t := oneLine(entity), oneLine(text)
	return briefLine{entity: e, text: t, base: len("- [") + runeLen(e) + len("] ") + runeLen(t) + len("\n"), tail: tail}
}

// briefLines are the lines of a brief's candidates, section by section in
// the order of briefCandidates; a change's line has no entity and no text.
type briefLines struct {
	decisions, obligations, states, facts, changes []briefLine
}

// briefLinesOf measures every candidate's line once, for both passes of
// packBrief.
func briefLinesOf(c briefCandidates, now time.Time) briefLines {
	out := briefLines{
		decisions:   make([]briefLine, len(c.decisions)),
		obligations: make([]briefLine, len(c.obligations)),
		states:      make([]briefLine, len(c.states)),
		facts:       make([]briefLine, len(c.facts)),
		changes:     make([]briefLine, len(c.changes)),
	}
	for i, d := range c.decisions {
		out.decisions[i] = newBriefLine(d.Entity, d.Decision, decisionTailLen(d))
	}
	for i, it := range c.obligations {
		out.obligations[i] = newBriefLine(it.Entity, it.Content, obligationTailLen(it))
	}
	for i, it := range c.states {
		out.states[i] = newBriefLine(it.Entity, it.Content, stateTailLen(it, now))
	}
	for i, it := range c.facts {
		out.facts[i] = newBriefLine(it.Entity, it.Content, factTailLen)
	}
	for i, ch := range c.changes {
		out.changes[i] = briefLine{base: runeLen(changeLine(ch)) + 1}
	}
	return out
}

// lineTemplate is the shape of a templated line: its words lowercased, each
// word holding a digit ("412", "3m10s", "INC-231", "v2.4.1") read as "#".
// States and facts of one entity with one template ("Reindex job 412
// finished in 3m10s", "Reindex job 413 finished in 2m58s") are one line
// repeated with other numbers: the brief shows the first in its section's
// order (the newest state, the best fact) and skips the rest, so an hourly
// job cannot crowd the brief. It is "" for a line without such a word, or
// with no more plain words than numbered ones (fewer than two).
func lineTemplate(s string) string {
	words := strings.Fields(strings.ToLower(s))
	numbers := 0
	for i, w := range words {
		if strings.ContainsAny(w, "0123456789") {
			words[i] = "#"
			numbers++
		}
	}
	// A template needs words of its own to say what repeats: a line mostly
	// of numbers and codes ("w350x w120x", "v2 k8s") is no template.
	if plain := len(words) - numbers; numbers == 0 || plain < 2 || plain <= numbers {
		return ""
	}
	return "#" + strings.Join(words, " ")
}

// briefShares are the parts of its room (the budget less the header) each
// section of an abridged brief fills first, in percent, so that no section
// crowds out the others: decisions, the longest lines (reasoning and
// rejected alternatives) and the ones an agent must not reopen, the most;
// the durable facts, who and what the scope is about, a quarter; obligations
// due within 14 days and current states, usually few and short, a fifth
// each. What a section leaves of its share goes to the items not yet taken,
// in priority order, so a section alone still fills the whole budget.
var briefShares = [briefSections]int{
	briefRowDecision:   35,
	briefRowObligation: 20,
	briefRowState:      20,
	briefRowFact:       25,
}

// The parts a brief packs: its four sections, then the changes of a brief
// with Since (which has no share: the leftover pass takes them).
const (
	briefPartChanges = briefSections
	briefParts       = briefSections + 1
)

// briefPartTitles are the parts' titles, in part order.
var briefPartTitles = [briefParts]string{briefSectionDecisions, briefSectionObligations, briefSectionStates,
	briefSectionFacts, briefSectionChanges}

// briefPack is a packing in progress.
type briefPack struct {
	budget, used int
	truncated    bool
	lines        [briefParts][]briefLine
	// state is each candidate's: pending, taken, or settled (it says what
	// a line shown says).
	state [briefParts][]uint8
	shown [briefParts]int // items taken of each part
	said  map[[2]string]bool
}

// The states of a candidate in a packing.
const (
	briefPending uint8 = iota
	briefShown
	briefSettled
)

// offer takes candidate i of part p when it fits whole in room (with the
// part's title when the part shows nothing yet), and reports whether it did.
// A line that says what a line already shown says (the same entity and
// text, in any section; a line of general and the same text of any entity;
// for states and facts, the same template: lineTemplate) is settled, and
// does not count as left out. Once something is left out, a line that does
// not fit stays pending without looking further.
func (k *briefPack) offer(p, i, room int) bool {
	l := k.lines[p][i]
	cost := l.base + l.tail
	if k.shown[p] == 0 {
		cost += 1 + runeLen(briefPartTitles[p]) + 1
	}
	if k.truncated && cost > room {
		return false
	}
	var key, kt, anyone [2]string
	dedupe := p != briefPartChanges
	if dedupe {
		key = [2]string{strings.ToLower(l.entity), strings.ToLower(l.text)}
		if t := lineTemplate(l.text); (p == briefRowState || p == briefRowFact) && t != "" {
			kt = [2]string{key[0], t}
		}
		// A line of general, which names no one, says what the same text
		// says of anyone, and the other way round.
		anyone = [2]string{"\x00", key[1]}
		general := [2]string{defaultEntity, key[1]}
		if k.said[key] || kt[1] != "" && k.said[kt] || l.entity == defaultEntity && k.said[anyone] || k.said[general] {
			k.state[p][i] = briefSettled
			return false
		}
	}
	if cost > room {
		k.truncated = true
		return false
	}
	if dedupe {
		k.said[key], k.said[anyone] = true, true
		if kt[1] != "" {
			k.said[kt] = true
		}
	}
	k.used += cost
	k.state[p][i] = briefShown
	k.shown[p]++
	return true
}

// pass offers every pending candidate, part by part, each part in its
// order: within what is left of the part's share when shares is set
// (spending it), within what is left of the budget otherwise. With marks it
// notes in probes the state before the candidates at the marks.
func (k *briefPack) pass(shares *[briefParts]int, marks *[briefSections][]int, probes *[briefSections][]briefProbe) {
	room := func(p int) int {
		if shares != nil {
			return shares[p]
		}
		return k.budget - k.used
	}
	if marks != nil {
		for s := range marks {
			probes[s] = make([]briefProbe, len(marks[s]))
		}
	}
	probe := func(s, i int) {
		if marks == nil || s >= briefSections {
			return
		}
		for m, at := range marks[s] {
			if at == i {
				probes[s][m] = briefProbe{room: room(s), truncated: k.truncated, started: k.shown[s] > 0}
			}
		}
	}
	for p := range k.lines {
		for i := range k.lines[p] {
			probe(p, i)
			if k.state[p][i] != briefPending {
				continue
			}
			before := k.used
			if k.offer(p, i, room(p)) && shares != nil {
				shares[p] -= k.used - before
			}
		}
		probe(p, len(k.lines[p]))
	}
}

// packBriefWith packs c within budget under the plain header or, abridged,
// under the header that says something was left out. The plain packing is
// one pass in priority order: each item is taken when it fits whole in what
// is left of the budget (with its section's title when it is the section's
// first item) and skipped otherwise. The abridged packing is two passes:
// first each section offers its items, in its order, within its share of the
// room (briefShares), an item that does not fit waiting for the second pass;
// then what is left of the whole budget (the shares not used) goes to the
// items still waiting, in priority order, each when it fits. Either way
// every section shows its items in its own order, whichever pass took them,
// and no line shows twice (briefPack.offer), across both passes. The plain
// packing's probes go to pr.first, the abridged one's to pr.shares and
// pr.leftover.
func packBriefWith(scope string, budget int, c briefCandidates, lines briefLines, abridged bool,
	marks *[briefSections][]int, pr *briefProbes, now time.Time) Brief {
	k := briefPack{budget: budget, truncated: abridged, said: map[[2]string]bool{},
		lines: [briefParts][]briefLine{lines.decisions, lines.obligations, lines.states, lines.facts, lines.changes}}
	k.used = runeLen(briefHeader(scope, abridged, now)) + 1
	if abridged && len(c.decisions) > 0 {
		// An abridged brief with locked decisions keeps room for the line
		// saying how many it left out (decisionsLeftOutLine).
		k.used += briefLeftOutReserve(scope, budget, now)
	}
	for p := range k.lines {
		k.state[p] = make([]uint8, len(k.lines[p]))
	}
	if !abridged {
		k.pass(nil, marks, &pr.first)
	} else {
		var shares [briefParts]int
		for s, pct := range briefShares {
			shares[s] = (budget - k.used) * pct / 100
		}
		k.pass(&shares, marks, &pr.shares)
		k.pass(nil, marks, &pr.leftover)
	}

	b := Brief{
		Scope: scope, Budget: budget, Truncated: k.truncated, AsOf: now.UTC(), now: now,
		Decisions: []BriefDecision{}, Obligations: []BriefItem{}, States: []BriefItem{}, Facts: []BriefItem{},
	}
	b.Decisions = briefTaken(b.Decisions, c.decisions, k.state[briefRowDecision])
	b.Obligations = briefTaken(b.Obligations, c.obligations, k.state[briefRowObligation])
	b.States = briefTaken(b.States, c.states, k.state[briefRowState])
	b.Facts = briefTaken(b.Facts, c.facts, k.state[briefRowFact])
	for _, st := range k.state[briefRowDecision] {
		if st == briefPending {
			b.DecisionsLeftOut++
		}
	}
	if c.changes != nil {
		b.Changes = briefTaken([]BriefChange{}, c.changes, k.state[briefPartChanges])
	}
	return b
}

// briefTaken appends to dst the candidates a packing took, in their order.
func briefTaken[T any](dst, candidates []T, state []uint8) []T {
	for i, c := range candidates {
		if state[i] == briefShown {
			dst = append(dst, c)
		}
	}
	return dst
}

// Text is the brief as a block ready to paste into a prompt: a header line,
// then one section per kind of memory, empty sections omitted:
//
//	Memory brief for scope acme, as of 2026-12-07 15:20 UTC
//
//	Decisions (settled, do not reopen):
//	- [backend] Use PostgreSQL — because we already run it (rejected: MySQL, SQLite)
//
//	Obligations:
//	- [ann] Send the report (due 2026-12-03, overdue)
//
//	Current state:
//	- [ann] Travelling in Japan (as of 3 h ago)
//
//	Known facts:
//	- [ann] Lives in Berlin (as of 2026-11-20)
//
// An abridged brief says so in its header, and when it left out locked
// decisions, says how many on the line under it ("2 locked decisions left
// out: raise budget to see them"). Line breaks inside memory text become
// spaces so that every item stays one line.
func (b Brief) Text() string {
	var sb strings.Builder
	sb.WriteString(briefHeader(b.Scope, b.Truncated, b.AsOf))
	sb.WriteByte('\n')
	if b.DecisionsLeftOut > 0 {
		sb.WriteString(decisionsLeftOutLine(b.DecisionsLeftOut, briefLeftOutLong(b.Budget)))
		sb.WriteByte('\n')
	}
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		sb.WriteByte('\n')
		sb.WriteString(title)
		sb.WriteByte('\n')
		for _, l := range lines {
			sb.WriteString(l)
			sb.WriteByte('\n')
		}
	}
	if b.Since != nil {
		if len(b.Changes) == 0 && !b.Truncated {
			sb.WriteByte('\n')
			sb.WriteString(briefNoChanges)
			sb.WriteByte('\n')
			return sb.String()
		}
		section(briefSectionChanges, mapLines(b.Changes, changeLine))
		return sb.String()
	}
	if len(b.Decisions)+len(b.Obligations)+len(b.States)+len(b.Facts) == 0 && !b.Truncated {
		sb.WriteByte('\n')
		sb.WriteString(briefEmpty)
		sb.WriteByte('\n')
		return sb.String()
	}
	section(briefSectionDecisions, mapLines(b.Decisions, decisionLine))
	section(briefSectionObligations, mapLines(b.Obligations, obligationLine))
	section(briefSectionStates, mapLines(b.States, func(it BriefItem) string { return stateLine(it, b.now) }))
	section(briefSectionFacts, mapLines(b.Facts, factLine))
	return sb.String()
}

// briefHeader is a brief's first line: its scope, the minute it was read
// (UTC), and whether it was abridged. Its length depends only on the scope
// and on truncated.
func briefHeader(scope string, truncated bool, asOf time.Time) string {
	h := "Memory brief for scope " + scope + ", as of " + asOf.UTC().Format(briefAsOfLayout)
	if truncated {
		return h + " (abridged; recall finds more)"
	}
	return h
}

// briefAsOfLayout is how the header shows when a brief was read.
const briefAsOfLayout = "2006-01-02 15:04 UTC"

// maxLeftOutShown is the largest count decisionsLeftOutLine writes in
// digits; a larger one is written as this count and a "+".
const maxLeftOutShown = 99999

// decisionsLeftOutLine is the line under an abridged brief's header that
// says how many locked decisions were left out for lack of room: with what
// to do about it when long, bare when the budget leaves no room for more
// (briefLeftOutLong).
func decisionsLeftOutLine(n int, long bool) string {
	count := strconv.Itoa(min(n, maxLeftOutShown))
	if n > maxLeftOutShown {
		count += "+"
	}
	line := count + " locked decision left out"
	them := "it"
	if n != 1 {
		line, them = count+" locked decisions left out", "them"
	}
	if long {
		line += ": raise budget to see " + them
	}
	return line
}

// briefLeftOutLong reports whether an abridged brief within budget says
// what to do about the decisions it left out (the long form of
// decisionsLeftOutLine): only from budgetLeftOutLong on, where its room is
// at most 6% of the budget. Below, the short form keeps a small brief's
// room for memories: the longest header and short line take 178 characters
// of the least budget, 200.
func briefLeftOutLong(budget int) bool {
	return budget >= budgetLeftOutLong
}

// budgetLeftOutLong is the least budget whose abridged brief says "raise
// budget to see them" after the count of decisions left out.
const budgetLeftOutLong = 1000

// briefLeftOutReserve is the room an abridged brief with locked decisions
// keeps for decisionsLeftOutLine (and its line break), whatever the count.
func briefLeftOutReserve(scope string, budget int, asOf time.Time) int {
	return runeLen(decisionsLeftOutLine(maxLeftOutShown+1, briefLeftOutLong(budget))) + 1
}

func mapLines[T any](items []T, line func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = line(it)
	}
	return out
}

func decisionLine(d BriefDecision) string {
	return "- [" + oneLine(d.Entity) + "] " + oneLine(d.Decision) + decisionTail(d)
}

// decisionTail is what a decision's line says after the decision: its
// reasoning and the alternatives it rejected.
func decisionTail(d BriefDecision) string {
	var sb strings.Builder
	if r := oneLine(d.Reasoning); r != "" {
		sb.WriteString(" — because ")
		sb.WriteString(r)
	}
	alts := make([]string, 0, len(d.Alternatives))
	for _, a := range d.Alternatives {
		if a = oneLine(a); a != "" {
			alts = append(alts, a)
		}
	}
	if len(alts) > 0 {
		sb.WriteString(" (rejected: ")
		sb.WriteString(strings.Join(alts, ", "))
		sb.WriteString(")")
	}
	return sb.String()
}

// decisionTailLen is runeLen(decisionTail(d)).
func decisionTailLen(d BriefDecision) int {
	n := 0
	if r := oneLine(d.Reasoning); r != "" {
		n += runeLen(" — because ") + runeLen(r)
	}
	alts := 0
	for _, a := range d.Alternatives {
		if a = oneLine(a); a != "" {
			if alts > 0 {
				n += len(", ")
			}
			n += runeLen(a)
			alts++
		}
	}
	if alts > 0 {
		n += len(" (rejected: ") + len(")")
	}
	return n
}

func obligationLine(it BriefItem) string { return itemLine(it) + obligationTail(it) }

// obligationTailLen is runeLen(obligationTail(it)).
func obligationTailLen(it BriefItem) int {
	if it.Deadline == nil {
		return 0
	}
	var buf [32]byte
	n := len(" (due ") + len(it.Deadline.UTC().AppendFormat(buf[:0], time.DateOnly))
	if it.Overdue {
		return n + len(", overdue)")
	}
	return n + len(")")
}

// obligationTail is what an obligation's line says after its text: when it
// is due, and whether that has passed.
func obligationTail(it BriefItem) string {
	if it.Deadline == nil {
		return ""
	}
	due := it.Deadline.UTC().Format(time.DateOnly)
	if it.Overdue {
		return " (due " + due + ", overdue)"
	}
	return " (due " + due + ")"
}

func itemLine(it BriefItem) string {
	return "- [" + oneLine(it.Entity) + "] " + oneLine(it.Content)
}

// factLine is a durable fact with the day it was last observed.
func factLine(it BriefItem) string { return itemLine(it) + factTail(it) }

// factTailLen is runeLen(factTail(it)), the same for every fact: a date
// within the bounds of every time (1970 to 9000) has ten characters.
const factTailLen = len(" (as of 2006-01-02)")

func factTail(it BriefItem) string {
	return " (as of " + it.ConfirmedAt.UTC().Format(time.DateOnly) + ")"
}

// stateLine is a current state with how long ago it was last stated.
func stateLine(it BriefItem, now time.Time) string { return itemLine(it) + stateTail(it, now) }

// stateTailLen is runeLen(stateTail(it, now)).
func stateTailLen(it BriefItem, now time.Time) int {
	if it.ConfirmedAt.IsZero() || now.IsZero() {
		return 0
	}
	return len(" (as of ") + len(ago(now.Sub(it.ConfirmedAt))) + len(")")
}

func stateTail(it BriefItem, now time.Time) string {
	if it.ConfirmedAt.IsZero() || now.IsZero() {
		return ""
	}
	return " (as of " + ago(now.Sub(it.ConfirmedAt)) + ")"
}

// changeLine is one change since the last brief.
func changeLine(ch BriefChange) string {
	head := "[" + oneLine(ch.Entity) + "] " + oneLine(ch.Content)
	switch ch.Kind {
	case ChangeNew:
		return "+ " + head
	case ChangeSuperseded:
		return "- " + head + " (" + oneLine(ch.Reason) + ")"
	case ChangeArchived:
		return "- " + head + " (archived: " + oneLine(ch.Reason) + ")"
	case ChangeDecision:
		return "+ decision " + head
	case ChangeDecisionLocked:
		return "+ decision locked again " + head
	case ChangeDecisionReopened:
		line := "! decision reopened " + head
		if r := oneLine(ch.Reason); r != "" {
			line += " (" + r + ")"
		}
		return line
	}
	return "* " + head
}

// ago says how long ago something was, briefly: "just now", "12 min ago",
// "3 h ago", "2 d ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " d ago"
}

// oneLine collapses every run of white space, line breaks included, into
// one space, and trims white space at both ends.
func oneLine(s string) string {
	// Most text already is one line: single ASCII spaces between words.
	lastSpace := true // the start counts as a space: a leading one is not allowed
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			switch {
			case c == ' ' && !lastSpace:
				lastSpace = true
			case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
				return strings.Join(strings.Fields(s), " ")
			default:
				lastSpace = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return strings.Join(strings.Fields(s), " ")
		}
		lastSpace = false
		i += size
	}
	if lastSpace { // empty, or a trailing space
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
