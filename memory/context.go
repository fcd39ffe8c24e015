package memory

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

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
// in that priority, within a budget of characters.
type Brief struct {
	Scope     string `json:"scope"`
	Budget    int    `json:"budget"`
	Used      int    `json:"used"`      // characters (runes) of Text()
	Truncated bool   `json:"truncated"` // something was left out to stay within budget
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
	// minBriefItem is the fewest characters an item can take ("- [e] c\n", less when the text is only white space):
	// no section can show more than budget/minBriefItem items, so reading one
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

// briefFactRow is the one shape the brief's fact queries return.
type briefFactRow = queries.BriefObligationsRow

// ContextBrief returns the brief of o.Scope: first every locked decision
// with its reasoning (newest first), then obligations due within 14 days or
// overdue (overdue first), then current short-term and ephemeral states
// (newest first), then the permanent and long-term facts with the highest
// effective confidence × importance, until o.Budget characters of Text() are
// used. An item fits whole or is left out (then Truncated is set); Used never
// exceeds Budget. Archived facts and facts past their forget_at are left out.
// All four reads see one snapshot.
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
	maxRows := int32(o.Budget/minBriefItem + 1)
	if o.Since != nil {
		return s.briefChanges(ctx, o, entity, now, maxRows)
	}
	var c briefCandidates
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		ds, err := q.BriefDecisions(ctx, queries.BriefDecisionsParams{Scope: o.Scope, Entity: entity, MaxRows: maxRows})
		if err != nil {
			return fmt.Errorf("decisions: %w", err)
		}
		for _, r := range ds {
			d := newDecision(decisionRow(r))
			c.decisions = append(c.decisions, BriefDecision{
				ID: d.ID, Entity: d.Entity, Key: d.Key, Decision: d.Decision, Reasoning: d.Reasoning,
				Alternatives: d.Alternatives, DecidedBy: d.DecidedBy, DecidedAt: d.DecidedAt,
			})
		}
		obs, err := q.BriefObligations(ctx, queries.BriefObligationsParams{
			Now: now, DueBefore: now.Add(obligationHorizon), Scope: o.Scope, Entity: entity, MaxRows: maxRows,
		})
		if err != nil {
			return fmt.Errorf("obligations: %w", err)
		}
		for _, r := range obs {
			c.obligations = append(c.obligations, newBriefItem(r, now))
		}
		sts, err := q.BriefStates(ctx, queries.BriefStatesParams{Now: now, MoodCutoff: now.Add(-moodFresh),
			Scope: o.Scope, Entity: entity, MaxRows: maxRows})
		if err != nil {
			return fmt.Errorf("states: %w", err)
		}
		// One line an entity and key, the newest (rows come newest first):
		// an older state on the same key is never current.
		seenKey := map[[2]string]bool{}
		for _, r := range sts {
			if r.Key != "" {
				k := [2]string{r.EntityName, r.Key}
				if seenKey[k] {
					continue
				}
				seenKey[k] = true
			}
			c.states = append(c.states, newBriefItem(briefFactRow(r), now))
		}
		var fs []briefFactRow
		if entity != nil {
			rows, err := q.BriefDurableFacts(ctx, queries.BriefDurableFactsParams{Now: now, Scope: o.Scope, Entity: entity, MaxRows: maxRows})
			if err != nil {
				return fmt.Errorf("facts: %w", err)
			}
			for _, r := range rows {
				fs = append(fs, briefFactRow(r))
			}
		} else if fs, err = briefTopDurable(ctx, q, now, o.Scope, int(maxRows)); err != nil {
			return fmt.Errorf("facts: %w", err)
		}
		shown := make(map[int64]bool, len(c.obligations)+len(c.states))
		for _, it := range c.obligations {
			shown[it.FactID] = true
		}
		for _, it := range c.states {
			shown[it.FactID] = true
		}
		for _, r := range fs {
			if !shown[r.ID] {
				c.facts = append(c.facts, newBriefItem(r, now))
			}
		}
		return nil
	})
	if err != nil {
		return Brief{}, fmt.Errorf("context brief: %w", err)
	}
	b := packBrief(o.Scope, o.Budget, c, now)
	return b, nil
}

// briefTopDurable returns the n durable facts of scope (permanent and
// long-term, not decisions) with the highest effective confidence ×
// importance at now, best first (ties: newest first), as BriefDurableFacts
// would, without scoring them all: it walks the facts from the highest
// confidence × importance, a bound no score exceeds, and stops once the
// next bound is below the n-th best score found.
func briefTopDurable(ctx context.Context, q *queries.Queries, now time.Time, scope string, n int) ([]briefFactRow, error) {
	if n <= 0 {
		return nil, nil
	}
	type scored struct {
		id    int64
		score float64
	}
	better := func(a, b scored) bool { return a.score > b.score || a.score == b.score && a.id > b.id }
	top := make([]scored, 0, n+1)
	batch := max(2*n, 256)
	params := queries.BriefDurableCandidatesParams{Now: now, Scope: scope, BeforeBound: math.Inf(1),
		BeforeID: math.MaxInt64, BatchSize: int32(batch)}
	for {
		rows, err := q.BriefDurableCandidates(ctx, params)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			c := scored{r.ID, r.Score}
			if len(top) == n && !better(c, top[n-1]) {
				continue
			}
			i, _ := slices.BinarySearchFunc(top, c, func(a, b scored) int {
				if better(a, b) {
					return -1
				}
				return 1
			})
			top = slices.Insert(top, i, c)
			if len(top) > n {
				top = top[:n]
			}
		}
		if len(rows) < batch {
			break
		}
		last := rows[len(rows)-1]
		// Every fact after last scores at most last.Bound.
		if len(top) == n && last.Bound < top[n-1].score {
			break
		}
		params.BeforeBound, params.BeforeID = last.Bound, last.ID
		// A long walk (old facts with high bounds that have decayed) takes
		// ever larger steps, so its round trips stay few.
		batch = min(2*batch, 16384)
		params.BatchSize = int32(batch)
	}
	ids := make([]int64, len(top))
	for i, t := range top {
		ids[i] = t.id
	}
	rows, err := q.BriefFactsByID(ctx, queries.BriefFactsByIDParams{Now: now, Ids: ids})
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]briefFactRow, len(rows))
	for _, r := range rows {
		byID[r.ID] = briefFactRow(r)
	}
	out := make([]briefFactRow, 0, len(top))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

func newBriefItem(r briefFactRow, now time.Time) BriefItem {
	return BriefItem{
		FactID: r.ID, Entity: r.EntityName, Key: r.Key, Content: r.Content, Durability: r.Durability,
		Category: r.Category, Confidence: r.EffectiveConfidence, Deadline: r.Deadline,
		Overdue:     r.Category == CategoryObligation && r.Deadline != nil && r.Deadline.Before(now),
		ConfirmedAt: r.ConfirmedAt,
	}
}

// briefChanges is the brief of o with Since: what changed after it.
func (s *Store) briefChanges(ctx context.Context, o BriefOptions, entity *string, now time.Time, maxRows int32) (Brief, error) {
	var c briefCandidates
	since := o.Since.UTC()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
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
		fs, err := q.BriefChangedFacts(ctx, queries.BriefChangedFactsParams{Scope: o.Scope, Since: since, Entity: entity, MaxRows: maxRows})
		if err != nil {
			return fmt.Errorf("facts: %w", err)
		}
		for _, f := range fs {
			ch := BriefChange{FactID: f.ID, Entity: f.EntityName, Key: f.Key, Content: f.Content, Category: f.Category, At: f.UpdatedAt}
			switch {
			case f.Status == string(StatusArchived) && f.ArchivedAt != nil && f.ArchivedAt.After(since):
				switch {
				case strings.HasPrefix(f.ArchiveReason, "merged into"):
					continue // a duplicate folded into a fact the agent knows
				case strings.HasPrefix(f.ArchiveReason, "superseded by"):
					ch.Kind = ChangeSuperseded
				default:
					ch.Kind = ChangeArchived
				}
				ch.Reason = f.ArchiveReason
			case f.Status == string(StatusActive) && f.CreatedAt.After(since):
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

// packBrief fills a brief from c in order of priority within budget. A first
// pass packs under the plain header; when something is left out, a second
// pass packs again under the longer header that says so, so the text stays
// within budget either way.
func packBrief(scope string, budget int, c briefCandidates, now time.Time) Brief {
	b := packBriefWith(scope, budget, c, false, now)
	if b.Truncated {
		b = packBriefWith(scope, budget, c, true, now)
	}
	b.Used = utf8.RuneCountInString(b.Text())
	return b
}

// packBriefWith packs greedily: each item, in priority order, is taken if it
// fits whole in what is left of the budget (with its section's title when it
// is the section's first item), and skipped otherwise.
func packBriefWith(scope string, budget int, c briefCandidates, truncated bool, now time.Time) Brief {
	b := Brief{
		Scope: scope, Budget: budget, Truncated: truncated, now: now,
		Decisions: []BriefDecision{}, Obligations: []BriefItem{}, States: []BriefItem{}, Facts: []BriefItem{},
	}
	used := runeLen(briefHeader(scope, truncated)) + 1
	// No line twice: an item whose line another section already shows (the
	// same entity and text) is left out.
	said := map[string]bool{}
	fresh := func(entity, content string) bool {
		k := strings.ToLower(oneLine(entity)) + "\x00" + strings.ToLower(oneLine(content))
		if said[k] {
			return false
		}
		said[k] = true
		return true
	}
	// take reports whether a line fits, and counts it when it does.
	take := func(title, line string, started bool) bool {
		cost := runeLen(line) + 1
		if !started {
			cost += 1 + runeLen(title) + 1
		}
		if used+cost > budget {
			b.Truncated = true
			return false
		}
		used += cost
		return true
	}
	for _, d := range c.decisions {
		if fresh(d.Entity, d.Decision) && take(briefSectionDecisions, decisionLine(d), len(b.Decisions) > 0) {
			b.Decisions = append(b.Decisions, d)
		}
	}
	for _, it := range c.obligations {
		if fresh(it.Entity, it.Content) && take(briefSectionObligations, obligationLine(it), len(b.Obligations) > 0) {
			b.Obligations = append(b.Obligations, it)
		}
	}
	for _, it := range c.states {
		if fresh(it.Entity, it.Content) && take(briefSectionStates, stateLine(it, now), len(b.States) > 0) {
			b.States = append(b.States, it)
		}
	}
	for _, it := range c.facts {
		if fresh(it.Entity, it.Content) && take(briefSectionFacts, itemLine(it), len(b.Facts) > 0) {
			b.Facts = append(b.Facts, it)
		}
	}
	if c.changes != nil {
		b.Changes = []BriefChange{}
	}
	for _, ch := range c.changes {
		if take(briefSectionChanges, changeLine(ch), len(b.Changes) > 0) {
			b.Changes = append(b.Changes, ch)
		}
	}
	return b
}

// Text is the brief as a block ready to paste into a prompt: a header line,
// then one section per kind of memory, empty sections omitted:
//
//	Memory brief for scope acme
//
//	Decisions (settled, do not reopen):
//	- [backend] Use PostgreSQL — because we already run it (rejected: MySQL, SQLite)
//
//	Obligations:
//	- [ann] Send the report (due 2026-12-03, overdue)
//
//	Current state:
//	- [ann] Travelling in Japan
//
//	Known facts:
//	- [ann] Lives in Berlin
//
// Line breaks inside memory text become spaces so that every item stays one
// line.
func (b Brief) Text() string {
	var sb strings.Builder
	sb.WriteString(briefHeader(b.Scope, b.Truncated))
	sb.WriteByte('\n')
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
	section(briefSectionFacts, mapLines(b.Facts, itemLine))
	return sb.String()
}

func briefHeader(scope string, truncated bool) string {
	if truncated {
		return "Memory brief for scope " + scope + " (abridged to fit; recall finds more)"
	}
	return "Memory brief for scope " + scope
}

func mapLines[T any](items []T, line func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = line(it)
	}
	return out
}

func decisionLine(d BriefDecision) string {
	var sb strings.Builder
	sb.WriteString("- [")
	sb.WriteString(oneLine(d.Entity))
	sb.WriteString("] ")
	sb.WriteString(oneLine(d.Decision))
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

func obligationLine(it BriefItem) string {
	line := itemLine(it)
	if it.Deadline == nil {
		return line
	}
	due := it.Deadline.UTC().Format(time.DateOnly)
	if it.Overdue {
		return line + " (due " + due + ", overdue)"
	}
	return line + " (due " + due + ")"
}

func itemLine(it BriefItem) string {
	return "- [" + oneLine(it.Entity) + "] " + oneLine(it.Content)
}

// stateLine is a current state with how long ago it was last stated.
func stateLine(it BriefItem, now time.Time) string {
	if it.ConfirmedAt.IsZero() || now.IsZero() {
		return itemLine(it)
	}
	return itemLine(it) + " (as of " + ago(now.Sub(it.ConfirmedAt)) + ")"
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
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d d ago", int(d/(24*time.Hour)))
}

// oneLine collapses every run of white space, line breaks included, into
// one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func runeLen(s string) int { return utf8.RuneCountInString(s) }
