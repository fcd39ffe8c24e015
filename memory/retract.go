package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/tenurehq/tenure/memory/classify"
	"github.com/tenurehq/tenure/queries"
)

// Denials. A negation ("I no longer live in Berlin", "I'm not vegetarian
// anymore", "I quit my job at Acme") states no value: it denies one. Every
// writer reads it so (the extractor, consolidation of working rows, a direct
// write of a fact): it retires the active facts of its entity on the denied
// attribute (the key classify.NotFact names, any synonym of it:
// CanonicalKey) whose text names the denied value (every word of it, case
// and accents aside), observed no later than the denial. Each is archived
// with the reason "denied by fact N: <the denial>", audited as fact.deny and
// restorable. Facts on other keys, facts naming another value, decisions
// and facts observed after the denial are left alone.
//
// The denial itself never becomes a current fact. It is kept as a fact born
// archived (fact N above), whose reason says what it retired ("denial of
// home_city "Berlin": retired fact 12") or that it named no active fact, so
// the statement and its effect stay on record, the working row it came from
// is promoted into it, and a reviewer can read it; recall and the brief read
// active facts only, so nothing of it is recited. A denial naming a value no
// active fact holds therefore archives nothing and files no current fact.
//
// A denial is a write on its entity and key: an automated writer is held by
// a locked decision on that key like any other write (refused as
// decision_locked, logged and queued for review), so a locked decision is
// never reopened by a negation; and a decision's own fact is never retired.

// NotFactNegation is the kind memory.NotFact gives a negation.
const NotFactNegation = classify.NotFactNegation

// Denial reads text, which Classify classified as c, as a denial: the
// canonical key of the attribute it denies and the value it denies, in the
// text's words ("I no longer live in Berlin": home_city, "Berlin"), or ""
// and "" when the text is no negation or names no value.
func Denial(text string, c Classification) (key, value string) {
	if !classify.MayDeny(text) {
		return "", ""
	}
	kind, key := NotFact(text, c)
	if kind != NotFactNegation || key == "" {
		return "", ""
	}
	key = CanonicalKey(key)
	if value = DeniedValue(text, key); value == "" {
		return "", ""
	}
	return key, value
}

// rowDenial reads a working row as a denial: its text when that is a
// negation of the row's key (explicit, the writer's; "" when it names none,
// and then of any key), with the value its properties' denies names when
// they name one (an extractor's), or else the value the text denies. A row
// whose writer gave both a key and denies is a denial of them whatever its
// text. It returns the canonical key and the value, or "" and "".
func rowDenial(content string, props map[string]any, key string, said time.Time) (string, string) {
	given, _ := props["denies"].(string)
	given = strings.TrimSpace(given)
	if given != "" && key != "" {
		return key, given
	}
	if !classify.MayDeny(content) {
		return "", ""
	}
	k, v := Denial(content, Classify(content, said))
	if k == "" || key != "" && key != k {
		return "", "" // no negation, or the writer filed it under another attribute
	}
	if given != "" {
		v = given
	}
	return k, v
}

// ------------------------------------------------------------ the value

// maxDeniedWords is the most words a denied value has: more is a clause,
// not a value, and nothing is retired by it.
const maxDeniedWords = 5

// A negation's words, by their part in it.
var (
	// denyAux deny what follows them: "no longer live in Berlin", "don't
	// work at Acme", "used to be a nurse". Two-word cues are joined by "+".
	denyAux = denyWordSet(`no+longer used+to not never don't doesn't didn't dont doesnt didnt isn't aren't wasn't
		weren't isnt arent wasnt werent ain't haven't hasn't havent hasnt can't cannot won't`)
	// denyVerbs deny their object: "quit my job at Acme", "stopped drinking
	// coffee", "moved out of Berlin".
	denyVerbs = denyWordSet(`stopped quit quitting left leaving resigned gave+up giving+up given+up moved`)
	// denyCopulas say what the subject is: "I'm not vegetarian".
	denyCopulas = denyWordSet(`am is are was were be being been 'm i'm im he's she's it's we're they're you're
		isn't aren't wasn't weren't isnt arent wasnt werent ain't`)
	// denyPossession are verbs read past like a copula: "don't have a dog".
	denyPossession = denyWordSet(`have has had got own owns`)
	// denyLead are the words that stand before a value without being it.
	denyLead = denyWordSet(`a an the my his her their our your its this that these those some any of in at for from
		with as on to into by out away near around inside within over under about like`)
	// denyAttributes name the attribute rather than its value: "my job at
	// Acme", "the Pro plan".
	denyAttributes = denyWordSet(`job jobs position role post work company firm employer city town place country home
		house diet plan tier team department office`)
	// denyModifiers qualify a value without naming it: "a strict vegetarian".
	denyModifiers = denyWordSet(`strict strictly full fully total totally real really proper committed practising
		practicing devout hardcore big huge former current full-time part-time actually even officially
		technically currently still just`)
	// denyValueEnds end a value: "Acme as an engineer", "Berlin anymore",
	// "Acme last month".
	denyValueEnds = denyWordSet(`in at for from with since until till after before because when while but and or so
		anymore any no either now nowadays these this last ago yet too though although as on by to near
		around then lately recently`)
)

func denyWordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[strings.ReplaceAll(w, "+", " ")] = true
	}
	return m
}

// denyToken is a word of a text as written and lowercased, or a clause
// break (low "").
type denyToken struct{ text, low string }

// denyTokens splits s into words and clause breaks; contractions stay whole
// ("don't", "I'm"), curly apostrophes read straight.
func denyTokens(s string) []denyToken {
	var out []denyToken
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			w := strings.Trim(b.String(), "'-.&")
			if w != "" {
				out = append(out, denyToken{text: w, low: strings.ToLower(w)})
			}
			b.Reset()
		}
	}
	rs := []rune(strings.NewReplacer("’", "'", "‘", "'").Replace(s))
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '-' || r == '&':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0 && i+1 < len(rs) && (unicode.IsLetter(rs[i+1]) || unicode.IsDigit(rs[i+1])):
			b.WriteRune(r) // "Node.js", "3.5"
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			if len(out) > 0 && out[len(out)-1].low != "" {
				out = append(out, denyToken{}) // a clause break
			}
		}
	}
	flush()
	return out
}

// DeniedValue returns the value text denies of the attribute key, in the
// text's words: "I no longer live in Berlin" denies "Berlin", "I'm not
// vegetarian anymore" "vegetarian", "I quit my job at Acme" "Acme", "I used
// to be a nurse" "nurse", "I stopped drinking coffee" "coffee". It reads
// the clause of the first denying words: past them, the verb (or copula),
// then the words that lead to a value ("in", "my job at"), and takes the
// words up to the next one that ends a value ("anymore", "last year", "as
// an engineer"). It returns "" when no value stands there or the words
// there run longer than a value.
func DeniedValue(text, key string) string {
	ts := denyTokens(text)
	at, width, verb := denyCue(ts)
	if at < 0 {
		return ""
	}
	copula := false
	for i := at; i >= 0 && ts[i].low != ""; i-- {
		if denyCopulas[ts[i].low] {
			copula = true
		}
	}
	p := ts[at+width:]
	if end := slices.IndexFunc(p, func(t denyToken) bool { return t.low == "" }); end >= 0 {
		p = p[:end]
	}
	keyWords := denyWordSet(strings.ReplaceAll(key, "_", " "))
	skippable := func(w string) bool {
		return denyLead[w] || denyAttributes[w] || denyModifiers[w] || keyWords[w] || CanonicalKey(w) == key
	}
	// more reports whether a word that may be a value follows p[i].
	more := func(i int) bool {
		for _, t := range p[i+1:] {
			if !skippable(t.low) && !denyValueEnds[t.low] {
				return true
			}
		}
		return false
	}
	i := 0
	for i < len(p) && denyModifiers[p[i].low] {
		i++
	}
	gerund := ""
	switch {
	case i >= len(p):
		return ""
	case verb:
		// "moved out of Berlin", "resigned from Acme", "stopped drinking
		// coffee", "gave up smoking".
		if p[i].low == "out" || p[i].low == "away" || p[i].low == "from" {
			i++
		}
		if i < len(p) && strings.HasSuffix(p[i].low, "ing") && more(i) {
			gerund = p[i].text
			i++
		} else if i < len(p) && strings.HasSuffix(p[i].low, "ing") {
			return p[i].text
		}
	case !copula && denyCopulas[p[i].low]:
		copula = true // "used to be a nurse"
		i++
	case !copula && denyPossession[p[i].low]:
		i++ // "don't have a dog"
	case !copula && more(i):
		i++ // the verb: "live in Berlin", "drink coffee"
	}
	if copula && i < len(p) && more(i) && (strings.HasSuffix(p[i].low, "ing") ||
		i+1 < len(p) && denyLead[p[i+1].low] && !denyLead[p[i].low]) {
		i++ // "not working at Initech", "not based in Lisbon"
	}
	for i < len(p) && skippable(p[i].low) {
		i++
	}
	start := i
	for i < len(p) && !denyValueEnds[p[i].low] {
		i++
	}
	end := i
	for end > start && (denyAttributes[p[end-1].low] || keyWords[p[end-1].low] || denyLead[p[end-1].low]) {
		end-- // "the Pro plan": Pro
	}
	if end == start {
		return gerund
	}
	if end-start > maxDeniedWords {
		return ""
	}
	words := make([]string, 0, end-start)
	for _, t := range p[start:end] {
		words = append(words, t.text)
	}
	return strings.Join(words, " ")
}

// denyCue finds the first words of ts that deny: their index, how many
// tokens they take, and whether they are a verb whose object is denied
// ("quit my job at Acme") rather than words before the denied verb ("no
// longer live in Berlin"). at is -1 when none does.
func denyCue(ts []denyToken) (at, width int, verb bool) {
	for i, t := range ts {
		if t.low == "" {
			continue
		}
		if i+1 < len(ts) && ts[i+1].low != "" {
			two := t.low + " " + ts[i+1].low
			if denyAux[two] {
				return i, 2, false
			}
			if denyVerbs[two] {
				return i, 2, true
			}
		}
		switch {
		case t.low == "moved":
			if i+1 < len(ts) && (ts[i+1].low == "out" || ts[i+1].low == "away") {
				return i, 1, true
			}
		case denyVerbs[t.low]:
			return i, 1, true
		case denyAux[t.low] || strings.HasSuffix(t.low, "n't"):
			return i, 1, false
		}
	}
	return -1, 0, false
}

// ------------------------------------------------------------ matching

// foldWord is w as two spellings of it compare: lowercase, accents off
// ("Zürich" is "zurich"), and a crude stem ("lives", "living" and "live"
// are "liv"), so that a denial names a fact's value however it inflects it.
func foldWord(w string) string {
	w = norm.NFD.String(strings.ToLower(w))
	var b strings.Builder
	for _, r := range w {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ø':
			b.WriteByte('o')
		case r == 'ł':
			b.WriteByte('l')
		case r == 'đ' || r == 'ð':
			b.WriteByte('d')
		case r == 'æ':
			b.WriteString("ae")
		case r == 'œ':
			b.WriteString("oe")
		case r == 'ß':
			b.WriteString("ss")
		case r == 'ı':
			b.WriteByte('i')
		default:
			b.WriteRune(r)
		}
	}
	w = b.String()
	for _, suffix := range []string{"ing", "ed", "es", "s", "e"} {
		if len(w) > len(suffix)+2 && strings.HasSuffix(w, suffix) {
			return w[:len(w)-len(suffix)]
		}
	}
	return w
}

// foldedWords are the folded words of s, split at anything but letters and
// digits ("St. Mary's" is "st", "mary", "s").
func foldedWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out = append(out, foldWord(w))
	}
	return out
}

// valueWords are the folded words of a denied value that a fact must hold
// to name it; the words that join a name ("Bank of America") and a
// company's legal form ("Acme Corp") are not required.
func valueWords(value string) []string {
	var out []string
	for _, w := range foldedWords(value) {
		switch w {
		case "of", "the", "a", "an", "and", "de", "s",
			"corp", "inc", "ltd", "llc", "plc", "gmbh", "co": // "Acme Corp" is Acme
			continue
		}
		out = append(out, w)
	}
	return out
}

// namesValue reports whether content names every word of a denied value.
func namesValue(content string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	have := foldedWords(content)
	for _, w := range words {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// ------------------------------------------------------------ the store

// denial is one denying statement to apply.
type denial struct {
	nodeID     int64 // the working row it came from; 0 for a direct write
	scope      string
	entityID   int64
	key, value string // the canonical key and the value denied
	content    string
	category   string
	durability Durability
	confidence float64
	importance float64
	observedAt time.Time
	source     string
}

// Denied is a fact archived because a later statement denied its value.
type Denied struct {
	FactID int64  `json:"fact_id"`
	Scope  string `json:"scope"`
	By     int64  `json:"denied_by"` // the denial's record
}

// retired is what one denial did: its record and the facts it retired.
type retired struct {
	record int64
	facts  []Denied
}

// maxReasonQuote is how much of a denial its victims' reason quotes.
const maxReasonQuote = 80

// quoteReason is s quoted for a reason, at most maxReasonQuote characters.
func quoteReason(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxReasonQuote {
		s = string([]rune(s)[:maxReasonQuote]) + "…"
	}
	return strconv.Quote(s)
}

// retire applies denials in q's transaction: each retires the active facts
// of its entity on its key (any spelling of it) that name its value and
// were observed no later than it, and is kept as an archived record that
// says so; its working row, if any, is promoted into that record. A fact
// two denials name is retired by the first. runID is the consolidation run
// (0 for none). Each retired fact is audited as fact.deny.
func (s *Store) retire(ctx context.Context, q *queries.Queries, actor Actor, now time.Time, runID int64, ds []denial) ([]retired, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	victims, err := deniedFacts(ctx, q, ds)
	if err != nil {
		return nil, err
	}
	p := queries.RecordDenialsParams{Now: now, RunID: runID}
	for i, d := range ds {
		reason := fmt.Sprintf("denial of %s %s: no active fact named it", d.key, strconv.Quote(d.value))
		if n := len(victims[i]); n > 0 {
			ids := make([]int64, n)
			for j, v := range victims[i] {
				ids[j] = v.ID
			}
			reason = fmt.Sprintf("denial of %s %s: retired %s %s", d.key, strconv.Quote(d.value),
				pluralOf(n, "fact", "facts"), joinIDs(ids))
		}
		p.NodeIds = append(p.NodeIds, d.nodeID)
		p.Scopes = append(p.Scopes, d.scope)
		p.EntityIds = append(p.EntityIds, d.entityID)
		p.Keys = append(p.Keys, d.key)
		p.Contents = append(p.Contents, d.content)
		p.Durabilities = append(p.Durabilities, string(d.durability))
		p.Categories = append(p.Categories, d.category)
		p.Confidences = append(p.Confidences, d.confidence)
		p.Importances = append(p.Importances, d.importance)
		p.ObservedAts = append(p.ObservedAts, d.observedAt)
		p.Sources = append(p.Sources, d.source)
		p.Reasons = append(p.Reasons, reason)
	}
	records, err := q.RecordDenials(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("record denials: %w", err)
	}
	if len(records) != len(ds) {
		return nil, fmt.Errorf("record denials: %d records for %d denials", len(records), len(ds))
	}
	out := make([]retired, len(ds))
	var ids []int64
	var reasons []string
	by := map[int64]int{} // a victim's denial
	for i, d := range ds {
		if d.nodeID != 0 && records[i].NodeID != d.nodeID {
			return nil, fmt.Errorf("record denials: record %d is of row %d, not %d", records[i].ID, records[i].NodeID, d.nodeID)
		}
		out[i].record = records[i].ID
		for _, v := range victims[i] {
			ids = append(ids, v.ID)
			reasons = append(reasons, fmt.Sprintf("denied by fact %d: %s", records[i].ID, quoteReason(d.content)))
			by[v.ID] = i
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.ArchiveDenied(ctx, queries.ArchiveDeniedParams{Now: now, Ids: ids, Reasons: reasons})
	if err != nil {
		return nil, fmt.Errorf("archive denied facts: %w", err)
	}
	var all []Denied
	for _, r := range rows {
		i := by[r.ID]
		x := Denied{FactID: r.ID, Scope: r.Scope, By: out[i].record}
		out[i].facts = append(out[i].facts, x)
		all = append(all, x)
	}
	return out, s.auditDenied(ctx, q, actor, all, ds, out, runID)
}

// deniedFacts returns, for each denial, the active facts it retires: on its
// entity, on a key whose concept is its key, naming its value, observed no
// later than it, each taken by the first denial that names it.
func deniedFacts(ctx context.Context, q *queries.Queries, ds []denial) ([][]queries.ActiveFactsOnKeysRow, error) {
	entities := make([]int64, 0, len(ds))
	for _, d := range ds {
		if !slices.Contains(entities, d.entityID) {
			entities = append(entities, d.entityID)
		}
	}
	keys, err := q.ActiveKeysOf(ctx, entities)
	if err != nil {
		return nil, fmt.Errorf("denied facts: %w", err)
	}
	var p queries.ActiveFactsOnKeysParams
	for _, k := range keys {
		for _, d := range ds {
			if d.entityID == k.EntityID && CanonicalKey(k.Key) == d.key {
				p.EntityIds, p.Keys = append(p.EntityIds, k.EntityID), append(p.Keys, k.Key)
				break
			}
		}
	}
	out := make([][]queries.ActiveFactsOnKeysRow, len(ds))
	if len(p.Keys) == 0 {
		return out, nil
	}
	facts, err := q.ActiveFactsOnKeys(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("denied facts: %w", err)
	}
	taken := map[int64]bool{}
	for i, d := range ds {
		words := valueWords(d.value)
		for _, f := range facts {
			if !taken[f.ID] && f.EntityID == d.entityID && CanonicalKey(f.Key) == d.key &&
				!f.ConfirmedAt.After(d.observedAt) && namesValue(f.Content, words) {
				taken[f.ID] = true
				out[i] = append(out[i], f)
			}
		}
	}
	return out, nil
}

// auditDenied audits each fact a denial archived (one row for the lot when
// many, as consolidation writes them), with the run that archived them, if
// any (runID 0 for none).
func (s *Store) auditDenied(ctx context.Context, q *queries.Queries, actor Actor, all []Denied, ds []denial, out []retired, runID int64) error {
	if len(all) > 20 {
		facts := make([]int64, len(all))
		by := make([]int64, len(all))
		for i, x := range all {
			facts[i], by[i] = x.FactID, x.By
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.deny", targetType: "facts", targetID: strconv.FormatInt(facts[0], 10),
			after:  withRun(map[string]any{"status": "archived", "facts": facts, "denied_by": by}, runID),
			reason: "later statements denied their values",
		})
	}
	for i, r := range out {
		for _, x := range r.facts {
			if err := s.audit(ctx, q, auditEntry{
				actor: actor, action: "fact.deny", targetType: "fact", targetID: strconv.FormatInt(x.FactID, 10),
				scope:  x.Scope,
				before: map[string]any{"status": "active"},
				after: withRun(map[string]any{"status": "archived", "denied_by": x.By, "denial": ds[i].content,
					"archive_reason": fmt.Sprintf("denied by fact %d: %s", x.By, quoteReason(ds[i].content))}, runID),
				reason: fmt.Sprintf("a later statement denies its %s %s", ds[i].key, strconv.Quote(ds[i].value)),
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func pluralOf(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ------------------------------------------------------ consolidation

// deniedRow is one denial a consolidation batch applied, logged once the
// batch commits.
type deniedRow struct {
	nodeID, record int64
	scope          string
	key, value     string
	retired        []int64
}

// denial is the denial of working row row, planned as p, on entity.
func (p plan) denial(row *queries.PeekPendingNodesRow, entity int64) denial {
	return denial{nodeID: p.nodeID, scope: row.Scope, entityID: entity, key: p.key, value: p.denies,
		content: row.Content, category: p.category, durability: p.durability, confidence: p.confidence,
		importance: row.Importance, observedAt: row.ObservedAt, source: SourceConsolidation}
}

// deny applies a promote batch's denials (rows already past the gate and
// the decision locks): each row retires what it denies and is promoted into
// its archived record, never into a current fact. The report counts the
// rows as denials and the facts they retired as denied.
func (r *runner) deny(ctx context.Context, q *queries.Queries, ds []denial, res *batchResult) error {
	if len(ds) == 0 {
		return nil
	}
	out, err := r.s.retire(ctx, q, System("consolidation"), r.now, r.id, ds)
	if err != nil {
		return err
	}
	res.add("denials", len(ds))
	for i, o := range out {
		ids := make([]int64, len(o.facts))
		for j, f := range o.facts {
			ids[j] = f.FactID
		}
		res.add("denied", len(ids))
		res.denials = append(res.denials, deniedRow{nodeID: ds[i].nodeID, record: o.record, scope: ds[i].scope,
			key: ds[i].key, value: ds[i].value, retired: ids})
	}
	return nil
}

// ------------------------------------------------------ a direct write

// createDenial is CreateFact of a negation, in q's transaction, on the
// entity entityID (resolved, locks passed): it retires what in denies of
// key and returns the denial's archived record, audited as fact.create.
func (s *Store) createDenial(ctx context.Context, q *queries.Queries, actor Actor, now time.Time, in NewFact, entityID int64, key, value string) (Fact, error) {
	out, err := s.retire(ctx, q, actor, now, 0, []denial{{scope: in.Scope, entityID: entityID, key: key, value: value,
		content: in.Content, category: in.Category, durability: in.Durability, confidence: *in.Confidence,
		importance: *in.Importance, observedAt: *in.ObservedAt, source: in.Source}})
	if err != nil {
		return Fact{}, err
	}
	row, err := q.FactByID(ctx, queries.FactByIDParams{Now: now, ID: out[0].record})
	if err != nil {
		return Fact{}, fmt.Errorf("denial %d: %w", out[0].record, err)
	}
	f := newFact(row)
	after := factAudit(f)
	after["status"], after["archive_reason"] = f.Status, f.ArchiveReason
	return f, s.audit(ctx, q, auditEntry{
		actor: actor, action: "fact.create", targetType: "fact", targetID: strconv.FormatInt(f.ID, 10),
		scope: f.Scope, after: after,
		reason: "a denial: it retires the facts that name what it denies and is kept archived, never current",
	})
}
