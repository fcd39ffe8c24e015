package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/memory"
)

// The conversation recall workload: how well recall answers natural
// questions about long chats, against two baselines on the same turns.
//
// Each conversation of the generated corpus (conversation_corpus.go) goes
// into a scope of its own. Every turn is pushed as a working row, as an
// agent integration pushes what it hears: content "Speaker: text",
// properties.entity the speaker's name, the session and its date in the
// metadata; then one consolidation runs. Each question is passed to Recall
// verbatim with a limit of 25. A question is answered at k when a fact among
// the first k came from one of its answering turns (the fact's
// source_node_id is the id the turn's push returned); a multi-hop question
// counts when any of its two turns is found, and, in a row of its own, when
// both are.
//
// The baselines rank the raw turns themselves: BM25 (bm25.go) in memory,
// and the bare PostgreSQL statement an application would write first, one
// OR of the question's words over a plain table of the turns, ranked by
// ts_rank (conversationORSQL).

// ConversationOptions configure the conversation workload.
type ConversationOptions struct {
	Corpus CorpusOptions
	Logger *slog.Logger
	// Progress receives a line as each step starts; nil for none.
	Progress io.Writer
}

// ConversationReport is the conversation workload's figures.
type ConversationReport struct {
	Corpus CorpusStats `json:"corpus"`
	// PushSeconds and ConsolidateSeconds are how long the turns took to
	// push and to consolidate.
	PushSeconds        float64 `json:"push_seconds"`
	ConsolidateSeconds float64 `json:"consolidate_seconds"`
	ConsolidateStatus  string  `json:"consolidate_status"`
	// AnswerTurns are what became of the answering turns' rows; AllTurns of
	// every turn's.
	AnswerTurns TurnFates      `json:"answer_turns"`
	AllTurns    TurnFates      `json:"all_turns"`
	Methods     []MethodRecall `json:"methods"`
}

// CorpusStats describe the corpus a run used.
type CorpusStats struct {
	Seed          int64          `json:"seed"`
	Conversations int            `json:"conversations"`
	Sessions      int            `json:"sessions"`
	Turns         int            `json:"turns"`
	Speakers      int            `json:"speakers"`
	Questions     int            `json:"questions"`
	ByKind        map[string]int `json:"questions_by_kind"`
	Domains       []string       `json:"domains"`
}

// TurnFates count what consolidation made of turns' rows.
type TurnFates struct {
	Turns int `json:"turns"`
	// Active: a live fact came from the row.
	Active int `json:"active"`
	// Superseded: every fact from the row was archived by a newer one on
	// its key.
	Superseded int `json:"superseded"`
	// Archived: every fact from the row was archived otherwise (merged into
	// a duplicate, decayed).
	Archived int `json:"archived"`
	// Folded: the row was promoted into a fact that came from another row
	// (it reinforced it), so no fact names it as its source.
	Folded int `json:"folded"`
	// NotPromoted: the row was never promoted (refused, or still pending).
	NotPromoted int `json:"not_promoted"`
	// WithoutActive is the share of turns without an active fact.
	WithoutActive float64 `json:"without_active"`
	// SupersededKeys counts the superseded turns by the category and key
	// of their fact ("identity/lives_in").
	SupersededKeys map[string]int `json:"superseded_keys,omitempty"`
}

// MethodRecall is one method's figures.
type MethodRecall struct {
	Method string       `json:"method"`
	Recall []KindRecall `json:"recall"`
	// Errors counts questions the method failed on (counted unanswered).
	Errors int     `json:"errors"`
	P50    float64 `json:"latency_p50_ms"`
	P95    float64 `json:"latency_p95_ms"`
}

// KindRecall is the share of questions of a kind answered in the top 5, 10
// and 25.
type KindRecall struct {
	Kind      string  `json:"kind"`
	Questions int     `json:"questions"`
	At5       float64 `json:"recall_at_5"`
	At10      float64 `json:"recall_at_10"`
	At25      float64 `json:"recall_at_25"`
	// Ceiling, for Tenure, is the share of questions one of whose answering
	// turns (both, for "multi-hop, all turns") kept an active fact: what
	// recall could find at best.
	Ceiling *float64 `json:"ceiling,omitempty"`
}

// The methods.
const (
	MethodTenure = "Tenure"
	MethodBM25   = "BM25"
	MethodOR     = "PostgreSQL OR"
)

// Rows of the recall table besides the kinds.
const (
	KindAll         = "all"
	KindMultiHopAll = "multi-hop, all turns"
)

const conversationLimit = 25

// conversationTurnsDDL is the baselines' plain table of the turns.
const conversationTurnsDDL = `CREATE TABLE IF NOT EXISTS bench_turns (
    scope   text   NOT NULL,
    node_id bigint NOT NULL,
    turn    int    NOT NULL,
    content text   NOT NULL,
    tsv     tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
);
CREATE INDEX IF NOT EXISTS bench_turns_tsv_idx ON bench_turns USING gin (tsv)`

// conversationORSQL is the bare PostgreSQL baseline: the question's words
// joined by OR ($2, "what | did | caroline | buy"), which to_tsquery stems
// and rids of stopwords, over the scope's turns, ranked by ts_rank.
const conversationORSQL = `SELECT node_id FROM bench_turns, to_tsquery('english', $2) q
WHERE scope = $1 AND tsv @@ q
ORDER BY ts_rank(tsv, q) DESC, node_id
LIMIT $3`

// orQuery is the OR of a question's words for conversationORSQL.
func orQuery(question string) string { return strings.Join(Tokens(question), " | ") }

// conversationFatesSQL reads what became of rows: whether they were
// promoted, and the facts that name them as their source.
const conversationFatesSQL = `SELECT i.id, n.promoted_at IS NOT NULL,
    count(f.id), coalesce(bool_or(f.status = 'active'), false),
    coalesce(bool_or(f.archive_reason LIKE 'superseded%'), false),
    coalesce(min(f.category || '/' || f.key) FILTER (WHERE f.archive_reason LIKE 'superseded%'), '')
FROM unnest($1::bigint[]) AS i(id)
LEFT JOIN memory_nodes n ON n.id = i.id
LEFT JOIN entity_facts f ON f.source_node_id = i.id
GROUP BY i.id, n.promoted_at`

// RunConversation generates the corpus, writes it into an empty migrated
// database behind pool, consolidates, and asks every question of Tenure
// and of both baselines.
func RunConversation(ctx context.Context, pool *pgxpool.Pool, o ConversationOptions) (ConversationReport, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	corpus := GenerateCorpus(o.Corpus)
	rep := ConversationReport{Corpus: corpusStats(corpus)}
	store := memory.NewStore(pool, memory.Options{Logger: o.Logger})
	fmt.Fprintf(o.Progress, "conversation: %d conversations, %d turns, %d questions\n",
		rep.Corpus.Conversations, rep.Corpus.Turns, rep.Corpus.Questions)

	var scopes []string
	for _, c := range corpus.Conversations {
		scopes = append(scopes, c.Scope)
	}
	var held int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM memory_nodes WHERE scope = ANY($1)`, scopes).Scan(&held); err != nil {
		return rep, fmt.Errorf("conversation: %w", err)
	}
	if held > 0 {
		return rep, fmt.Errorf("conversation: the database already holds %d working rows in the workload's scopes: use an empty database", held)
	}

	// Push every turn, a session at a time, as an agent would.
	fmt.Fprintln(o.Progress, "conversation: pushing the turns")
	ids := make([][]int64, len(corpus.Conversations))
	start := time.Now()
	for ci, c := range corpus.Conversations {
		ids[ci] = make([]int64, 0, len(c.Turns))
		for si, s := range c.Sessions {
			nodes := make([]memory.NewNode, 0, s.Count)
			for ti := s.First; ti < s.First+s.Count; ti++ {
				t := c.Turns[ti]
				nodes = append(nodes, memory.NewNode{
					Content:    t.Content(),
					Properties: map[string]any{"entity": t.Speaker},
					Metadata:   map[string]any{"session": si + 1, "date": t.Date, "turn": ti},
				})
			}
			got, err := store.Push(ctx, memory.Token("conversation-agent"), c.Scope, nodes)
			if err != nil {
				return rep, fmt.Errorf("conversation: push %s session %d: %w", c.Scope, si+1, err)
			}
			if len(got) != len(nodes) {
				return rep, fmt.Errorf("conversation: push %s session %d returned %d ids for %d rows", c.Scope, si+1, len(got), len(nodes))
			}
			ids[ci] = append(ids[ci], got...)
		}
	}
	rep.PushSeconds = time.Since(start).Seconds()

	// The baselines' table of the same turns.
	if _, err := pool.Exec(ctx, conversationTurnsDDL); err != nil {
		return rep, fmt.Errorf("conversation: bench_turns: %w", err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM bench_turns WHERE scope = ANY($1)`, scopes); err != nil {
		return rep, fmt.Errorf("conversation: bench_turns: %w", err)
	}
	var rows [][]any
	for ci, c := range corpus.Conversations {
		for ti, t := range c.Turns {
			rows = append(rows, []any{c.Scope, ids[ci][ti], ti, t.Content()})
		}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"bench_turns"}, []string{"scope", "node_id", "turn", "content"},
		pgx.CopyFromRows(rows)); err != nil {
		return rep, fmt.Errorf("conversation: bench_turns: %w", err)
	}

	fmt.Fprintln(o.Progress, "conversation: consolidating")
	start = time.Now()
	run, err := store.Consolidate(ctx, memory.ConsolidateOptions{Trigger: memory.TriggerManual})
	if err != nil {
		return rep, fmt.Errorf("conversation: consolidate: %w", err)
	}
	rep.ConsolidateSeconds = time.Since(start).Seconds()
	rep.ConsolidateStatus = run.Status
	// Statistics as autovacuum would leave them.
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		return rep, fmt.Errorf("conversation: analyze: %w", err)
	}

	// What became of each turn's row.
	var all []int64
	for _, list := range ids {
		all = append(all, list...)
	}
	fates, err := readFates(ctx, pool, all)
	if err != nil {
		return rep, err
	}
	answering := map[int64]bool{}
	for ci, c := range corpus.Conversations {
		for _, q := range c.Questions {
			for _, t := range q.Turns {
				answering[ids[ci][t]] = true
			}
		}
	}
	for _, id := range all {
		rep.AllTurns.add(fates[id])
		if answering[id] {
			rep.AnswerTurns.add(fates[id])
		}
	}
	rep.AllTurns.finish()
	rep.AnswerTurns.finish()

	fmt.Fprintln(o.Progress, "conversation: asking the questions")
	methods := []string{MethodTenure, MethodBM25, MethodOR}
	tally := make([]*recallTally, len(methods))
	for i := range tally {
		tally[i] = newRecallTally()
	}
	ceiling := newRecallTally()
	var times [3][]time.Duration
	errs := make([]int, len(methods))
	for ci, c := range corpus.Conversations {
		turnOf := make(map[int64]int, len(ids[ci]))
		for ti, id := range ids[ci] {
			turnOf[id] = ti
		}
		docs := make([]string, len(c.Turns))
		for ti, t := range c.Turns {
			docs[ti] = t.Content()
		}
		bm := NewBM25(docs)
		for _, q := range c.Questions {
			// Tenure.
			began := time.Now()
			res, err := store.Recall(ctx, memory.RecallQuery{Scope: c.Scope, Query: q.Text, Limit: conversationLimit})
			times[0] = append(times[0], time.Since(began))
			var found []int
			if err != nil {
				errs[0]++
				o.Logger.Warn("conversation.recall", "scope", c.Scope, "question", q.Text, "err", err)
			}
			for _, r := range res {
				t := -1
				if r.Fact.SourceNodeID != nil {
					if ti, ok := turnOf[*r.Fact.SourceNodeID]; ok {
						t = ti
					}
				}
				found = append(found, t)
			}
			tally[0].add(q, found)
			// What Tenure could find at best: the turns with an active fact.
			var reachable []int
			for _, t := range q.Turns {
				if fates[ids[ci][t]].active {
					reachable = append(reachable, t)
				}
			}
			ceiling.add(q, reachable)

			// BM25 over the raw turns.
			began = time.Now()
			found = bm.Search(q.Text, conversationLimit)
			times[1] = append(times[1], time.Since(began))
			tally[1].add(q, found)

			// The bare PostgreSQL OR statement.
			began = time.Now()
			found, err = orSearch(ctx, pool, c.Scope, q.Text, turnOf)
			times[2] = append(times[2], time.Since(began))
			if err != nil {
				errs[2]++
				o.Logger.Warn("conversation.or_statement", "scope", c.Scope, "question", q.Text, "err", err)
			}
			tally[2].add(q, found)
		}
	}
	for i, m := range methods {
		mr := MethodRecall{Method: m, Recall: tally[i].figures(), Errors: errs[i],
			P50: ms(percentile(times[i], 0.5)), P95: ms(percentile(times[i], 0.95))}
		if m == MethodTenure {
			for k, f := range ceiling.figures() {
				v := f.At25
				mr.Recall[k].Ceiling = &v
			}
		}
		rep.Methods = append(rep.Methods, mr)
	}
	return rep, nil
}

// orSearch runs the bare PostgreSQL OR statement and returns the turns it
// ranks first.
func orSearch(ctx context.Context, pool *pgxpool.Pool, scope, question string, turnOf map[int64]int) ([]int, error) {
	q := orQuery(question)
	if q == "" {
		return nil, nil
	}
	rows, err := pool.Query(ctx, conversationORSQL, scope, q, conversationLimit)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = turnOf[id]
	}
	return out, nil
}

// fate is what became of one row.
type fate struct {
	promoted, active, superseded bool
	facts                        int
	key                          string // category/key of the superseded fact
}

func readFates(ctx context.Context, pool *pgxpool.Pool, ids []int64) (map[int64]fate, error) {
	rows, err := pool.Query(ctx, conversationFatesSQL, ids)
	if err != nil {
		return nil, fmt.Errorf("conversation: fates: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]fate, len(ids))
	for rows.Next() {
		var id int64
		var f fate
		if err := rows.Scan(&id, &f.promoted, &f.facts, &f.active, &f.superseded, &f.key); err != nil {
			return nil, fmt.Errorf("conversation: fates: %w", err)
		}
		out[id] = f
	}
	return out, rows.Err()
}

func (t *TurnFates) add(f fate) {
	t.Turns++
	switch {
	case f.active:
		t.Active++
	case f.superseded:
		t.Superseded++
		if t.SupersededKeys == nil {
			t.SupersededKeys = map[string]int{}
		}
		t.SupersededKeys[f.key]++
	case f.facts > 0:
		t.Archived++
	case f.promoted:
		t.Folded++
	default:
		t.NotPromoted++
	}
}

func (t *TurnFates) finish() {
	if t.Turns > 0 {
		t.WithoutActive = float64(t.Turns-t.Active) / float64(t.Turns)
	}
}

// recallTally counts, by row of the table, the questions answered at each
// depth.
type recallTally struct {
	questions map[string]int
	hits      map[string]*[3]int
}

var recallDepths = [3]int{5, 10, 25}

// recallRows are the table's rows in order.
var recallRows = []string{KindAll, SingleHop, MultiHop, KindMultiHopAll, Temporal, Paraphrase}

func newRecallTally() *recallTally {
	t := &recallTally{questions: map[string]int{}, hits: map[string]*[3]int{}}
	for _, r := range recallRows {
		t.hits[r] = &[3]int{}
	}
	return t
}

// add counts question q, whose method ranked the turns found (best first;
// -1 for a result that is no turn).
func (t *recallTally) add(q Question, found []int) {
	for d, k := range recallDepths {
		top := found[:min(k, len(found))]
		anyHit, allHit := false, true
		for _, turn := range q.Turns {
			if slices.Contains(top, turn) {
				anyHit = true
			} else {
				allHit = false
			}
		}
		if anyHit {
			t.hits[KindAll][d]++
			t.hits[q.Kind][d]++
		}
		if q.Kind == MultiHop && allHit {
			t.hits[KindMultiHopAll][d]++
		}
	}
	t.questions[KindAll]++
	t.questions[q.Kind]++
	if q.Kind == MultiHop {
		t.questions[KindMultiHopAll]++
	}
}

func (t *recallTally) figures() []KindRecall {
	var out []KindRecall
	for _, r := range recallRows {
		n := t.questions[r]
		kr := KindRecall{Kind: r, Questions: n}
		if n > 0 {
			h := t.hits[r]
			kr.At5, kr.At10, kr.At25 = float64(h[0])/float64(n), float64(h[1])/float64(n), float64(h[2])/float64(n)
		}
		out = append(out, kr)
	}
	return out
}

func corpusStats(c Corpus) CorpusStats {
	s := CorpusStats{Seed: c.Seed, Conversations: len(c.Conversations), ByKind: map[string]int{}}
	for _, conv := range c.Conversations {
		s.Sessions += len(conv.Sessions)
		s.Turns += len(conv.Turns)
		s.Speakers += len(conv.Speakers)
		s.Questions += len(conv.Questions)
		for _, q := range conv.Questions {
			s.ByKind[q.Kind]++
		}
		if !slices.Contains(s.Domains, conv.Domain) {
			s.Domains = append(s.Domains, conv.Domain)
		}
	}
	return s
}

// WriteConversationTable prints the report as a Markdown table: recall at
// 5, 10 and 25 of each method by kind of question, then latency.
func WriteConversationTable(w io.Writer, rep ConversationReport) error {
	c := rep.Corpus
	var b strings.Builder
	fmt.Fprintf(&b, "Conversation recall: %d conversations (%s), %d sessions, %d turns, %d speakers, %d questions "+
		"(%d single-hop, %d multi-hop, %d temporal, %d paraphrase), seed %d; push %.1f s, consolidation %.1f s (%s).\n\n",
		c.Conversations, strings.Join(c.Domains, ", "), c.Sessions, c.Turns, c.Speakers, c.Questions,
		c.ByKind[SingleHop], c.ByKind[MultiHop], c.ByKind[Temporal], c.ByKind[Paraphrase], c.Seed,
		rep.PushSeconds, rep.ConsolidateSeconds, rep.ConsolidateStatus)
	b.WriteString("| questions, recall @5 / @10 / @25 |")
	for _, m := range rep.Methods {
		b.WriteString(" " + m.Method + " |")
	}
	b.WriteString("\n|---|")
	for range rep.Methods {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	if len(rep.Methods) == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	for i, r := range rep.Methods[0].Recall {
		label := fmt.Sprintf("%s (%d)", r.Kind, r.Questions)
		switch r.Kind {
		case MultiHop:
			label = fmt.Sprintf("multi-hop (%d), any answering turn", r.Questions)
		case KindMultiHopAll:
			label = fmt.Sprintf("multi-hop (%d), both answering turns", r.Questions)
		}
		fmt.Fprintf(&b, "| %s |", label)
		for _, m := range rep.Methods {
			k := m.Recall[i]
			fmt.Fprintf(&b, " %s / %s / %s |", pct(k.At5), pct(k.At10), pct(k.At25))
		}
		b.WriteString("\n")
	}
	b.WriteString("| latency p50 / p95 |")
	for _, m := range rep.Methods {
		fmt.Fprintf(&b, " %s / %s ms |", latency(m.P50), latency(m.P95))
	}
	b.WriteString("\n\n")
	for _, m := range rep.Methods {
		if m.Errors > 0 {
			fmt.Fprintf(&b, "%s failed on %d questions (counted unanswered).\n", m.Method, m.Errors)
		}
	}
	if t := rep.Methods[0]; t.Method == MethodTenure {
		b.WriteString("Tenure's ceiling (questions with an answering turn that kept an active fact):")
		for i, r := range t.Recall {
			if r.Ceiling != nil {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, " %s %s", r.Kind, pct(*r.Ceiling))
			}
		}
		b.WriteString(".\n")
	}
	f := rep.AnswerTurns
	fmt.Fprintf(&b, "Answering turns without an active fact after consolidation: %d of %d (%s): %d superseded, %d archived otherwise, "+
		"%d folded into another turn's fact, %d never promoted. All turns: %d of %d (%s): %d superseded, %d archived otherwise, "+
		"%d folded, %d never promoted.\n",
		f.Turns-f.Active, f.Turns, pct(f.WithoutActive), f.Superseded, f.Archived, f.Folded, f.NotPromoted,
		rep.AllTurns.Turns-rep.AllTurns.Active, rep.AllTurns.Turns, pct(rep.AllTurns.WithoutActive),
		rep.AllTurns.Superseded, rep.AllTurns.Archived, rep.AllTurns.Folded, rep.AllTurns.NotPromoted)
	if len(f.SupersededKeys) > 0 {
		keys := slices.Collect(maps.Keys(f.SupersededKeys))
		slices.SortFunc(keys, func(a, b string) int {
			if d := f.SupersededKeys[b] - f.SupersededKeys[a]; d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		b.WriteString("Superseded answering turns by the category/key of their fact:")
		for i, k := range keys[:min(10, len(keys))] {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %d", k, f.SupersededKeys[k])
		}
		b.WriteString(".\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

func latency(v float64) string {
	if v < 0.1 {
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
