package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tenurehq/tenure/queries"
)

// RecallQuery asks for the facts of one scope that answer a query.
type RecallQuery struct {
	Scope string // required
	// Query is a question or keywords, as a person would write them ("What
	// did Caroline research?", "postgres replication"): facts holding any of
	// its words match, ranked by BM25. A "quoted phrase" must occur as
	// written and a -word must not occur; "or" is the default already. Empty
	// ranks by confidence alone.
	Query      string
	Category   string // optional: only facts of this category
	Durability string // optional: only facts of this durability
	Entity     string // optional: only facts about the entity with this name
	Limit      int    // default 10, at most 100
	// Since and Until, when set, keep only the facts last observed
	// (confirmed_at) at or after Since and at or before Until, and the
	// pending rows observed then.
	Since, Until *time.Time
}

// RecallResult is one recalled fact and why it ranks where it does.
type RecallResult struct {
	// Fact carries EffectiveConfidence, the decayed confidence now. For a
	// pending result it is the fact that consolidation plans to make of the
	// working row: the row's content, scope, importance and confidence (not
	// decayed), confirmed when its statement was observed and created when
	// it was pushed, its entity, key, category and durability as
	// consolidation would decide them now, and ID 0 (and no version, no
	// forget_at) until the row is promoted.
	Fact Fact `json:"fact"`
	// Relevance is the fact's BM25 relevance to the query (1 when the query
	// is empty).
	Relevance float64 `json:"relevance"`
	// Score is relevance × effective confidence, what results are ranked by.
	Score float64 `json:"score"`
	// Decision is set for facts of category decision: what was decided, the
	// alternatives considered and the reasoning.
	Decision *Decision `json:"decision,omitempty"`
	// Pending marks a durable working row that no consolidation run has
	// promoted yet, recallable as soon as its push returned; NodeID is the
	// row's id.
	Pending bool  `json:"pending,omitempty"`
	NodeID  int64 `json:"node_id,omitempty"`
}

// Limits of a recall.
const (
	defaultRecallLimit = 10
	maxRecallLimit     = 100
	maxRecallQuery     = 1000
)

// recallParams is a validated RecallQuery in the shape of the queries'
// parameters.
type recallParams struct {
	scope                        string
	query                        string
	entity, category, durability *string
	since, until                 *time.Time
	limit                        int32
}

func (rq RecallQuery) validate() (recallParams, error) {
	var p recallParams
	var err error
	if strings.TrimSpace(rq.Scope) == "" {
		return p, Invalidf("scope", "the scope is empty: recall reads one scope, named by 1 to 63 lowercase letters, digits, '_', '.', ':' or '-'")
	}
	if p.scope, err = ParseScope(rq.Scope); err != nil {
		return p, err
	}
	p.query = strings.TrimSpace(rq.Query)
	if n := utf8.RuneCountInString(p.query); n > maxRecallQuery {
		return p, Invalidf("query", "the query is %d characters long: at most %d are allowed", n, maxRecallQuery)
	}
	if c := strings.TrimSpace(rq.Category); c != "" {
		if _, err := ParseCategory(c); err != nil {
			return p, Invalidf("category", "invalid category %q: use a lowercase slug such as %s", c, strings.Join(SuggestedCategories(), ", "))
		}
		p.category = &c
	}
	if d := strings.TrimSpace(rq.Durability); d != "" {
		if _, err := ParseDurability(d); err != nil {
			return p, err
		}
		p.durability = &d
	}
	if e := strings.TrimSpace(rq.Entity); e != "" {
		if n := utf8.RuneCountInString(e); n > maxEntityName {
			return p, Invalidf("entity", "the entity name is %d characters long: at most %d are allowed", n, maxEntityName)
		}
		p.entity = &e
	}
	for _, t := range []struct {
		field string
		at    *time.Time
	}{{"since", rq.Since}, {"until", rq.Until}} {
		if t.at != nil {
			if err := CheckTime(t.field, *t.at); err != nil {
				return p, err
			}
		}
	}
	if rq.Since != nil && rq.Until != nil && rq.Until.Before(*rq.Since) {
		return p, Invalidf("until", "until %s is before since %s: nothing was observed in between",
			rq.Until.UTC().Format(time.RFC3339), rq.Since.UTC().Format(time.RFC3339))
	}
	p.since, p.until = rq.Since, rq.Until
	switch {
	case rq.Limit == 0:
		p.limit = defaultRecallLimit
	case rq.Limit < 0 || rq.Limit > maxRecallLimit:
		return p, Invalidf("limit", "limit %d is out of range: use 1 to %d (default %d)", rq.Limit, maxRecallLimit, defaultRecallLimit)
	default:
		p.limit = int32(rq.Limit)
	}
	return p, nil
}

// Recall returns the live facts of q.Scope that answer q, best first. A
// query is read as a person writes it: facts holding any of its words match,
// ranked by BM25 relevance (rarer words of the scope weigh more, a word
// repeated in a fact counts less each time, long facts are normalised, more
// matched words rank higher) times their effective confidence now, so a
// faded fact ranks below a confident one that matches as well. A fact's
// words are its content, its key and its entity's name. Without a query,
// facts rank by effective confidence alone. Archived facts are left out,
// and so are facts past their forget_at, which decay is about to archive.
// Facts that record decisions come with their decision (reasoning,
// alternatives, lock). A query with words also finds the durable working
// rows that consolidation has still to promote, ranked the same way and
// marked Pending (see recallQuestion).
func (s *Store) Recall(ctx context.Context, q RecallQuery) ([]RecallResult, error) {
	p, err := q.validate()
	if err != nil {
		return nil, err
	}
	var out []RecallResult
	err = s.read(ctx, func(ctx context.Context, db *queries.Queries) error {
		var err error
		out, err = s.recall(ctx, db, p)
		return err
	})
	return out, err
}

// recall answers p with queries db.
func (s *Store) recall(ctx context.Context, db *queries.Queries, p recallParams) ([]RecallResult, error) {
	if p.entity != nil {
		// One entity however it is spelled (entities.go).
		name, err := canonicalEntity(ctx, db, p.scope, *p.entity)
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		p.entity = &name
	}
	now := s.Now()
	if p.query == "" {
		return s.recallByConfidence(ctx, db, p, now)
	}
	out, err := s.recallQuestion(ctx, db, p, now)
	if err != nil {
		var me *Error
		if errors.As(err, &me) {
			return nil, err
		}
		return nil, fmt.Errorf("recall: %w", err)
	}
	return out, nil
}

// recallByConfidence answers a recall without words to rank by.
func (s *Store) recallByConfidence(ctx context.Context, db *queries.Queries, p recallParams, now time.Time) ([]RecallResult, error) {
	rows, err := db.RecallByConfidence(ctx, queries.RecallByConfidenceParams{
		Now: now, Scope: p.scope, Entity: p.entity, Category: p.category,
		Durability: p.durability, Since: p.since, Until: p.until, MaxRows: p.limit,
	})
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	out := make([]RecallResult, len(rows))
	for i, r := range rows {
		out[i] = RecallResult{Fact: newFact(factRow{
			ID: r.ID, Scope: r.Scope, EntityID: r.EntityID, EntityName: r.EntityName, Key: r.Key,
			Content: r.Content, Durability: r.Durability, Category: r.Category, Confidence: r.Confidence,
			Importance: r.Importance, ConfirmedAt: r.ConfirmedAt, ExpiresAt: r.ExpiresAt,
			Deadline: r.Deadline, ForgetAt: r.ForgetAt, Status: r.Status, ArchivedAt: r.ArchivedAt,
			ArchiveReason: r.ArchiveReason, Source: r.Source, SourceNodeID: r.SourceNodeID,
			ExtractionCount: r.ExtractionCount, Version: r.Version, CreatedAt: r.CreatedAt,
			UpdatedAt: r.UpdatedAt, EffectiveConfidence: r.EffectiveConfidence,
		}), Relevance: r.Relevance, Score: r.Score}
		if out[i].Decision, err = recallDecision(r.Decision); err != nil {
			return nil, fmt.Errorf("recall: the decision of fact %d: %w", r.ID, err)
		}
	}
	return out, nil
}

// How recall ranks a question without scoring every fact that holds one of
// its words.
//
// A fact's score is BM25 (see bm25) times its effective confidence, which
// is at most 1. One word t can add at most idf(t) × (k1 + 1) to it, its
// bound. Recall reads the facts of the question's rarest words first, as
// many words as hold at most recallCandidates facts in all, and scores each
// fact it reads on every word of the question. When it then holds a full
// page whose last score is at least the sum of the bounds of the words it
// did not read, no unread fact can rank on the page, and the page is exact
// (MaxScore, Turtle and Flood 1995). Otherwise it reads the remaining words'
// facts too, but only among the scope's newest recallRecent facts, at most
// recallCandidates of them: the words it still has to read are then common
// in the scope, each worth little, and a question of common words alone is
// answered from what was said lately. That read walks an index that holds
// every column it ranks by, so its cost is bounded by recallRecent index
// entries however common the words are.
// Words in more than half the scope's facts (idf under ln 2) find no
// candidates at all unless the question has no other: they only add to the
// scores of the facts other words found.
//
// Document frequencies come from recall_terms, which triggers keep for
// every live fact (migration 00029). The words' positions in each fact come
// with it, cut to the question's lexemes (RecallCandidates), so ranking
// costs a few bytes a fact.

// recallCandidates is about how many facts one recall reads and scores.
const recallCandidates = 1000

// recallRecent is how many of the scope's newest facts the common words of
// a question are looked for in.
const recallRecent = 8000

// recallPending is about how many pending working rows one recall reads at
// most: the newest that hold each word of the question, shared among its
// words, at least 20 a word.
const recallPending = 200

// recallFoldAt is how many rows of recall_terms one sum of a recall may
// read before the recall folds them.
const recallFoldAt = 256

// recallQuestion ranks p.query.
func (s *Store) recallQuestion(ctx context.Context, db *queries.Queries, p recallParams, now time.Time) ([]RecallResult, error) {
	qs := parseQuestion(p.query)
	w, err := db.RecallWords(ctx, queries.RecallWordsParams{
		Scope: p.scope, Words: qs.words, Phrases: qs.phrases, Negations: qs.negations,
	})
	if err != nil {
		return nil, err
	}
	if w.Parts > recallFoldAt {
		if err := s.FoldRecallTerms(ctx); err != nil {
			s.logger.Warn("recall.fold_terms", "error", err.Error())
		}
	}
	if len(w.Lexemes) == 0 {
		if w.Required != "" {
			return nil, Invalidf("query", "the query %q only says what a fact must not hold: add a word to look for", p.query)
		}
		// Only stop words ("what is it?"): nothing to rank by but confidence.
		return s.recallByConfidence(ctx, db, p, now)
	}
	r := newRanking(w.Lexemes, w.LexemeFacts, w.Facts, w.LexemesTotal)
	if err := s.expandQuestion(ctx, db, p.scope, qs, &w, r); err != nil {
		return nil, err
	}
	params := queries.RecallCandidatesParams{
		Now: now, Scope: p.scope, Lexemes: w.Lexemes,
		Entity: p.entity, Category: p.category, Durability: p.durability, Since: p.since, Until: p.until,
	}
	if w.Required != "" {
		params.Required = &w.Required
	}
	essential, rest := r.split(recallCandidates)
	if len(essential) > 0 {
		params.Match = orQuery(essential)
		rows, err := db.RecallCandidates(ctx, params)
		if err != nil {
			return nil, err
		}
		for _, c := range rows {
			r.add(c.ID, c.EffectiveConfidence, int(c.Length), c.Terms)
		}
	}
	if len(rest) > 0 && !r.settled(int(p.limit), rest) {
		rows, err := db.RecallNewestCandidates(ctx, recallNewest(params, orQuery(r.common(rest)), recallRecent, recallCandidates))
		if err != nil {
			return nil, err
		}
		for _, c := range rows {
			r.add(c.ID, c.EffectiveConfidence, int(c.Length), c.Terms)
		}
	}
	// Read your own writes: the durable working rows that consolidation has
	// still to promote rank beside the facts, with the same idf, under the
	// negation of their ids, and are answered as pending; for each word, the
	// newest rows that hold it are read. They are read after the facts: a
	// row promoted in between is missed by this one recall, never answered
	// twice. A category or durability filter leaves them out, as they are
	// not classified yet.
	pending := map[int64]queries.RecallPendingRow{}
	if p.category == nil && p.durability == nil {
		words := make([]string, len(r.terms))
		for i, t := range r.terms {
			words[i] = tsqueryOperand(t.lexeme)
		}
		rows, err := db.RecallPending(ctx, queries.RecallPendingParams{
			Lexemes: w.Lexemes, Words: words, Scope: p.scope, Required: params.Required, Now: now,
			Entity: p.entity, Since: p.since, Until: p.until, PerWord: int32(max(recallPending/len(words), 20)),
		})
		if err != nil {
			return nil, err
		}
		for _, n := range rows {
			pending[n.ID] = n
			r.add(-n.ID, nodeConfidence(n.Properties), int(n.Length), n.Terms)
		}
	}
	// Lines repeating one template (lineTemplate: "Reindex job 412
	// finished", "Reindex job 413 finished") show once, the best of them:
	// the ranked facts are read whole a chunk of twice the page at a time,
	// at most recallChunks chunks, until the page is full.
	ranked := r.top(len(r.seen))
	out := make([]RecallResult, 0, p.limit)
	shown := map[[2]string]bool{}
	repeated := func(f Fact) bool {
		t := lineTemplate(f.Content)
		if t == "" {
			return false
		}
		k := [2]string{strings.ToLower(f.Entity), t}
		if shown[k] {
			return true
		}
		shown[k] = true
		return false
	}
	chunk := 2 * int(p.limit)
	for start, round := 0, 0; start < len(ranked) && len(out) < int(p.limit) && round < recallChunks; start, round = start+chunk, round+1 {
		top := ranked[start:min(start+chunk, len(ranked))]
		ids := make([]int64, 0, len(top))
		for _, c := range top {
			if c.id > 0 {
				ids = append(ids, c.id)
			}
		}
		rows, err := db.RecallFacts(ctx, queries.RecallFactsParams{Now: now, Ids: ids})
		if err != nil {
			return nil, err
		}
		byID := make(map[int64]queries.RecallFactsRow, len(rows))
		for _, row := range rows {
			byID[row.ID] = row
		}
		for _, c := range top {
			if len(out) == int(p.limit) {
				break
			}
			if c.id < 0 {
				if res, ok := pendingResult(pending[-c.id], c, now); ok && !repeated(res.Fact) {
					out = append(out, res)
				}
				continue
			}
			row, ok := byID[c.id]
			if !ok {
				continue // archived since it was ranked
			}
			res := RecallResult{Fact: newFact(recallFactRow(row)), Relevance: c.relevance, Score: c.score}
			if repeated(res.Fact) {
				continue
			}
			if res.Decision, err = recallDecision(row.Decision); err != nil {
				return nil, fmt.Errorf("the decision of fact %d: %w", row.ID, err)
			}
			out = append(out, res)
		}
	}
	return out, nil
}

// recallChunks bounds the chunks of ranked facts one recall reads whole
// while templated lines leave its page short.
const recallChunks = 4

// nodeConfidence is the confidence consolidation gives a working row's
// fact: the row's properties.confidence when it is one, else
// defaultConfidence (planNode).
func nodeConfidence(properties json.RawMessage) float64 {
	var props map[string]any
	_ = json.Unmarshal(properties, &props)
	if c, ok := props["confidence"].(float64); ok && c >= 0 && c <= 1 {
		return c
	}
	return defaultConfidence
}

// pendingResult answers working row n, ranked as c, with the fact that
// consolidation plans to make of it now; false for a row that will make no
// current fact (a negation retires what it denies: retract.go).
func pendingResult(n queries.RecallPendingRow, c ranked, now time.Time) (RecallResult, bool) {
	pl := planNode(queries.PeekPendingNodesRow{ID: n.ID, Scope: n.Scope, Content: n.Content,
		Properties: n.Properties, Marker: string(MarkerDurable), ObservedAt: n.ObservedAt}, now)
	if pl.denies != "" {
		return RecallResult{}, false
	}
	f := Fact{Scope: n.Scope, Entity: pl.entity, Key: pl.key, Content: n.Content, Durability: pl.durability,
		Category: pl.category, Confidence: c.conf, EffectiveConfidence: c.conf, Importance: n.Importance,
		ConfirmedAt: n.ObservedAt, Status: StatusActive, Source: SourceConsolidation, SourceNodeID: &n.ID,
		CreatedAt: n.CreatedAt, UpdatedAt: n.CreatedAt}
	if d, err := time.Parse(time.RFC3339, pl.deadline); err == nil {
		f.Deadline = &d
	}
	return RecallResult{Fact: f, Relevance: c.relevance, Score: c.score, Pending: true, NodeID: n.ID}, true
}

// recallNewest is the candidates' parameters for the newest max facts that
// match match among the scope's newest recent.
func recallNewest(p queries.RecallCandidatesParams, match string, recent, max int32) queries.RecallNewestCandidatesParams {
	return queries.RecallNewestCandidatesParams{Now: p.Now, Lexemes: p.Lexemes, Scope: p.Scope, RecentFacts: recent,
		Match: match, Required: p.Required, Entity: p.Entity, Category: p.Category, Durability: p.Durability,
		Since: p.Since, Until: p.Until, MaxRows: max}
}

// FoldRecallTerms folds the rows of recall_terms written since the last
// fold into one per scope and lexeme, unless another process is folding
// them. The decay tick and every consolidation run call it, and so does a
// recall that finds its sums spread over many rows.
func (s *Store) FoldRecallTerms(ctx context.Context) error {
	return s.foldUnderLock(ctx, foldRecallKey, (*queries.Queries).FoldRecallTerms)
}

// question is a query split as recall reads it: the words to rank by (free
// words and the words of phrases), the phrases that must occur, and the
// words that must not.
type question struct {
	words     string
	phrases   []string
	negations []string
}

// parseQuestion splits a query the way websearch_to_tsquery reads its
// operators: "a phrase" in double quotes, -word for a word that must not
// occur (when the '-' starts a word: not "well-known" or "3 - 2"), and or,
// which needs nothing (any word may match already).
func parseQuestion(s string) question {
	var q question
	var words []string
	start := 0 // of the free text not yet taken
	for i := 0; i < len(s); {
		switch {
		case s[i] == '"':
			words = append(words, s[start:i])
			phrase, next := s[i+1:], len(s)
			if end := strings.IndexByte(s[i+1:], '"'); end >= 0 {
				phrase, next = s[i+1:i+1+end], i+2+end
			}
			if strings.TrimSpace(phrase) != "" {
				q.phrases = append(q.phrases, phrase)
				words = append(words, phrase)
			}
			i, start = next, next
		case s[i] == '-' && startsWord(s, i):
			words = append(words, s[start:i])
			end := strings.IndexFunc(s[i+1:], unicode.IsSpace)
			if end < 0 {
				end = len(s) - i - 1
			}
			q.negations = append(q.negations, s[i+1:i+1+end])
			i = i + 1 + end
			start = i
		default:
			i++
		}
	}
	words = append(words, s[start:])
	q.words = strings.Join(strings.Fields(strings.Join(words, " ")), " ")
	return q
}

// startsWord reports whether the '-' at s[i] negates the word after it: it
// comes first or after white space, and a word (not a phrase, not another
// '-') follows.
func startsWord(s string, i int) bool {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); !unicode.IsSpace(r) {
			return false
		}
	}
	if i+1 >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i+1:])
	return !unicode.IsSpace(r) && r != '-' && r != '"'
}

// orQuery is the tsquery that any of terms satisfies.
func orQuery(terms []bm25Term) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(tsqueryOperand(t.lexeme))
	}
	return b.String()
}

// tsqueryOperand quotes a lexeme for a tsquery's text.
func tsqueryOperand(s string) string {
	return "'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(s) + "'"
}

// recallDecisionRow is the decision a recall statement returns with a fact
// of category decision: the decisions row as JSON (to_jsonb's snake_case
// keys), with its entity's name. It has decisionRow's fields in its order,
// so the conversion to it fails to compile if the two drift apart.
type recallDecisionRow struct {
	ID           int64      `json:"id"`
	FactID       int64      `json:"fact_id"`
	Scope        string     `json:"scope"`
	EntityID     int64      `json:"entity_id"`
	EntityName   string     `json:"entity_name"`
	Key          string     `json:"key"`
	Decision     string     `json:"decision"`
	Alternatives []string   `json:"alternatives"`
	Reasoning    string     `json:"reasoning"`
	DecidedBy    string     `json:"decided_by"`
	DecidedAt    time.Time  `json:"decided_at"`
	DoNotReopen  bool       `json:"do_not_reopen"`
	ReopenedAt   *time.Time `json:"reopened_at"`
	ReopenedBy   *string    `json:"reopened_by"`
	ReopenReason *string    `json:"reopen_reason"`
	Version      int32      `json:"version"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// recallDecision reads the decision column of a recall statement: nil for
// a fact that records none.
func recallDecision(raw json.RawMessage) (*Decision, error) {
	if raw == nil {
		return nil, nil
	}
	var r recallDecisionRow
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	// As pgx reads a timestamptz: in the process's local time.
	for _, t := range []*time.Time{&r.DecidedAt, r.ReopenedAt, &r.CreatedAt, &r.UpdatedAt} {
		if t != nil {
			*t = t.Local()
		}
	}
	d := newDecision(decisionRow(r))
	return &d, nil
}

func recallFactRow(r queries.RecallFactsRow) factRow {
	return factRow{
		ID: r.ID, Scope: r.Scope, EntityID: r.EntityID, EntityName: r.EntityName, Key: r.Key,
		Content: r.Content, Durability: r.Durability, Category: r.Category, Confidence: r.Confidence,
		Importance: r.Importance, ConfirmedAt: r.ConfirmedAt, ExpiresAt: r.ExpiresAt,
		Deadline: r.Deadline, ForgetAt: r.ForgetAt, Status: r.Status, ArchivedAt: r.ArchivedAt,
		ArchiveReason: r.ArchiveReason, Source: r.Source, SourceNodeID: r.SourceNodeID,
		ExtractionCount: r.ExtractionCount, Version: r.Version, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, EffectiveConfidence: r.EffectiveConfidence,
	}
}
